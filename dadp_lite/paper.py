"""The paper's settings and printed numbers, in one place.

Every chapter, experiment and erratum that needs "the paper's epsilons", its ``k``, its
quasi-identifier or a number printed in Tables 1-3 reads it from here, so a setting is
typed once. The printed tables are facts reported by the paper (file
``dadp_lite/reference/paper_tables.csv``, transcribed and checked as its README says); they
are shown beside our numbers and never used as the expected value of a check.
"""

from __future__ import annotations

import functools
from importlib import resources

import pandas as pd

__all__ = [
    "PAPER_EPSILONS",
    "PAPER_K",
    "PAPER_QI",
    "PAPER_REPS",
    "PAPER_TABLE_MECHANISMS",
    "paper_tables",
    "paper_value",
]

#: The four privacy levels of Tables 1-3 and of every figure of the paper.
PAPER_EPSILONS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)
#: Suppression threshold and Mondrian class size of the tables ("the threshold k is set to
#: be 6").
PAPER_K = 6
#: The quasi-identifier of DP swapping that reproduces the paper's delta column (race,
#: nine values, so n_Q = 9).
PAPER_QI: tuple[str, ...] = ("race",)
#: Repetitions behind every empirical number of the paper ("the average of 200 repetitions").
PAPER_REPS = 200
#: The five mechanisms of Tables 1-3, in the paper's row order.
PAPER_TABLE_MECHANISMS: tuple[str, ...] = (
    "laplace",
    "discrete_gaussian",
    "dp_cell_suppression",
    "dp_swapping",
    "dp_k_anonymity",
)


@functools.lru_cache(maxsize=1)
def _tables() -> pd.DataFrame:
    source = resources.files("dadp_lite").joinpath("reference", "paper_tables.csv")
    with resources.as_file(source) as path:
        return pd.read_csv(path)


def paper_tables() -> pd.DataFrame:
    """The numbers printed in the paper's Tables 1-3: one row per (dataset, epsilon,
    mechanism) with columns ``table, dataset, epsilon, mechanism, delta, l1_bias, alpha``."""
    return _tables().copy()


def paper_value(dataset: str, mechanism: str, epsilon: float, column: str) -> float:
    """One printed number, e.g. ``paper_value("ma2019", "laplace", 0.5, "l1_bias")``."""
    table = _tables()
    if column not in ("delta", "l1_bias", "alpha"):
        raise ValueError(f"column must be 'delta', 'l1_bias' or 'alpha', got {column!r}")
    match = table[
        (table["dataset"] == dataset)
        & (table["mechanism"] == mechanism)
        & (table["epsilon"] == float(epsilon))
    ]
    if match.empty:
        raise ValueError(f"the paper prints no {column} for ({dataset}, {mechanism}, {epsilon})")
    return float(match[column].iloc[0])
