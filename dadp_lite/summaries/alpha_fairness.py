"""What the alpha-fairness chapter found, as glue values.

Each function takes one of the chapter's result tables (or a row of one) and returns
``{glue name: value}``: the verification's worst ratios, the Monte Carlo floor of the
Laplace alpha against the paper's value, how loose the printed bounds are on the real
tables, and where the swapping truth is exactly half its bound.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dadp_lite import errata
from dadp_lite.data import dataset_label

__all__ = [
    "half_bound_values",
    "laplace_floor_values",
    "looseness_values",
    "verification_values",
]


def verification_values(verification: pd.DataFrame) -> dict:
    """The largest simulated-against-exact gaps, as shares of their Bernstein limits: per
    cell (``worst_cell_ratio``) and for the pair estimate of alpha (``worst_alpha_ratio``);
    above 1 the check fails."""
    return {
        "worst_cell_ratio": float(verification["largest gap / limit"].max()),
        "worst_alpha_ratio": float(verification["alpha gap / limit"].max()),
    }


def laplace_floor_values(
    row: Mapping[str, object], *, paper_alpha: float | None, sd: float | None
) -> dict:
    """The Laplace row of the floor table (dataset, epsilon, alpha exact, simulated and
    predicted) against the paper's printed alpha there (None: not printed), judged by the
    errata's rule with the spread of two runs, sqrt(2) times the run-to-run standard
    deviation ``sd``: the status of the printed value against our simulated alpha and
    against the true alpha, and the share of the simulated alpha that is Monte Carlo noise.
    """
    exact, simulated = float(row["alpha exact"]), float(row["alpha simulated"])
    values = {
        "lap_eps": float(row["epsilon"]),
        "lap_alpha_exact": exact,
        "lap_alpha_sim": simulated,
        "lap_alpha_pred": float(row["alpha predicted"]),
        "first_dataset_name": dataset_label(str(row["dataset"])),
        "floor_share": 1 - exact / simulated,
    }
    if paper_alpha is None or sd is None:
        against_run = against_truth = "not compared"
    else:
        spread = math.sqrt(2) * sd
        against_run = errata.reproduced_status(row["alpha simulated"], paper_alpha, spread).word
        against_truth = errata.reproduced_status(row["alpha exact"], paper_alpha, spread).word
    values[errata.status_key("simulated-alpha-floor")] = against_run
    values["lap_alpha_true_word"] = against_truth
    return values


def looseness_values(real: pd.DataFrame, dataset: str, epsilons: Sequence[float]) -> dict:
    """How many times the truth the printed bound is on ``dataset`` (the real table's
    "printed / true"): Laplace's at the largest epsilon (``lap_loose``), cell
    suppression's at the smallest (``cs_loose``)."""
    ratios = real[real["dataset"] == dataset].set_index(["mechanism", "epsilon"])
    ratios = ratios["printed / true"]
    return {
        "lap_loose": float(ratios.loc[("laplace", max(epsilons))]),
        "cs_loose": float(ratios.loc[("dp_cell_suppression", min(epsilons))]),
    }


def half_bound_values(half: pd.DataFrame) -> dict:
    """Where DP swapping's true alpha is exactly half the printed bound (``sw_half_on``,
    relative 1e-12) and, for every other dataset, why not (``sw_half_other``): the
    smallest count m of the largest cell's group against x_1. ``half`` has one row per
    dataset with columns dataset (its label), m, x_1 and "printed / true"."""
    exactly = np.isclose(half["printed / true"], 2.0, rtol=1e-12, atol=0)
    other = half[~exactly]
    reasons = [
        f"on {r['dataset']} the group of the largest cell has m = {r['m']} against "
        f"x_1 = {r['x_1']}, and the ratio is {r['printed / true']:.3f}"
        for _, r in other.iterrows()
    ]
    return {
        "sw_half_on": ", ".join(half.loc[exactly, "dataset"]) or "none of the datasets",
        "sw_half_other": "; ".join(reasons) or "no dataset differs",
    }
