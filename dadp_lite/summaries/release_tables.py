"""What the data-release chapter's own analyses show, as numbers and verdicts for its prose.

The findings about Tables 1-3 (the printed columns against ours) are computed once by
:mod:`dadp_lite.errata` and glued by :func:`dadp_lite.errata.glue_findings`; the functions
here count what the chapter's other analyses show: the structure behind DP swapping's
alpha, and the search of the encodings of the records
(:mod:`dadp_lite.experiments.encodings`). They return numbers, counts, lists of names and
verdict keys, never sentences: the chapter writes the sentences.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from dadp_lite.data import dataset_label
from dadp_lite.experiments.encodings import PAPER_COLUMN
from dadp_lite.theory.fairness import SwappingSpread

__all__ = [
    "INCOME_VERDICTS",
    "comparison_scope",
    "encoding_counts",
    "income_cut",
    "rounded_releases",
    "swapping_implied",
    "swapping_structure",
    "words",
]

#: The verdicts of :func:`income_cut`.
INCOME_VERDICTS: tuple[str, ...] = ("none", "indistinguishable", "contradicts")
#: How the search's labels write the two income cuts.
_AT_LEAST, _ABOVE = ">= 50000", "> 50000"


def words(items: Iterable[str]) -> str:
    """``items`` as a comma-separated list (``["race", "sex"]`` -> ``"race, sex"``)."""
    return ", ".join(str(i) for i in items)


def _require(frame: pd.DataFrame, columns: Sequence[str], name: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {missing}")


def comparison_scope(dataset_names: Sequence[str], epsilons: Sequence[float]) -> dict:
    """The rows of the paper's tables this run compares with: ``cmp_datasets`` (labels),
    ``cmp_epsilons`` and ``cmp_printed`` (1 if there is any such row, else 0, a verdict for
    the chapter's phrasebook)."""
    printed = bool(len(dataset_names)) and bool(len(epsilons))
    return {
        "cmp_datasets": words(dataset_label(n) for n in dataset_names) or "-",
        "cmp_epsilons": words(f"{float(e):g}" for e in epsilons) or "-",
        "cmp_printed": int(printed),
    }


def swapping_structure(spreads: Mapping[str, SwappingSpread]) -> dict[str, int]:
    """On how many histograms both extremes of DP swapping's bias lie in the group of the
    largest cell (``sw_inside_n`` of ``sw_histograms_n``)."""
    if not spreads:
        raise ValueError("spreads is empty")
    return {
        "sw_inside_n": sum(bool(s.in_largest_group) for s in spreads.values()),
        "sw_histograms_n": len(spreads),
    }


def swapping_implied(compared: pd.DataFrame, spreads: Mapping[str, SwappingSpread]) -> dict:
    """Where the largest cell that a printed DP swapping alpha implies (column ``implied
    x_n``, one row per printed dataset and epsilon) lies against ours: in how many rows it
    is smaller (``sw_implied_smaller_n``), larger (``sw_implied_larger_n``), of
    ``sw_implied_rows_n``."""
    _require(compared, ["dataset", "implied x_n"], "compared")
    ours = compared["dataset"].map({n: s.largest for n, s in spreads.items()})
    if ours.isna().any():
        raise ValueError("spreads lacks a dataset of compared")
    implied = compared["implied x_n"].to_numpy(dtype=float)
    return {
        "sw_implied_smaller_n": int(np.sum(implied < ours.to_numpy(dtype=float))),
        "sw_implied_larger_n": int(np.sum(implied > ours.to_numpy(dtype=float))),
        "sw_implied_rows_n": len(compared),
    }


def _printed_columns(columns: pd.DataFrame, swapping_column: str) -> pd.DataFrame:
    """Per printed (dataset, column): reproduced out of sample by some reading of it, and
    fitted in sample by some reading (the two readings of the Laplace column count once)."""
    bias = columns[columns["column"] != swapping_column]
    printed = bias.assign(printed=bias["column"].map(PAPER_COLUMN).fillna(bias["column"]))
    grouped = printed.groupby(["dataset", "printed"], sort=False)
    return pd.DataFrame({
        "reproduced": grouped["reproduced"].agg(lambda v: bool(v.astype(bool).any())),
        "within": grouped["best_within"].agg(lambda v: bool(v.astype(bool).any())),
    })  # fmt: skip


def encoding_counts(columns: pd.DataFrame, *, swapping_column: str) -> dict:
    """What :func:`dadp_lite.experiments.encodings.column_summary` shows, counted per
    printed column (the Laplace column counted once, over its two readings): printed bias
    columns (``enc_printed_n``), those fitted within the tolerance only by the encoding
    chosen on them (``enc_in_sample_only_n``), and DP swapping's alpha column
    (``swapping_column``): datasets (``sw_enc_n``), reproduced out of sample
    (``sw_enc_reproduced_n``), and the best in-sample fit's largest deviation from 1 in per
    cent, smallest over the datasets (``sw_enc_best_pct``; 0 if none)."""
    _require(columns, ["dataset", "column", "reproduced", "best_within", "score"], "columns")
    per = _printed_columns(columns, swapping_column)
    alpha = columns[columns["column"] == swapping_column]
    best = 100 * math.expm1(float(alpha["score"].min())) if len(alpha) else 0.0
    return {
        "enc_printed_n": len(per),
        "enc_in_sample_only_n": int((per["within"] & ~per["reproduced"]).sum()),
        "sw_enc_n": len(alpha),
        "sw_enc_reproduced_n": int(alpha["reproduced"].astype(bool).sum()),
        "sw_enc_best_pct": best,
    }


def income_cut(search: pd.DataFrame, columns: pd.DataFrame, *, within: float) -> dict:
    """Does a best fit that counts income of exactly 50,000 as above the cut (">=") say the
    paper used that cut? Among the (dataset, column) rows whose best fit lies within
    ``within`` (relative) and uses ">=" (``ge_n``), the same encoding with ">" is also
    within ``within`` in ``ge_twin_within_n`` (its largest deviation from 1, in per cent,
    over them: ``ge_twin_pct_max``; 0 if none). ``ge_verdict`` is ``"none"`` (no such
    row), ``"indistinguishable"`` (every twin also fits) or ``"contradicts"``."""
    _require(search, ["dataset", "column", "encoding", "log_ratio"], "search")
    _require(columns, ["dataset", "column", "best_encoding", "best_within"], "columns")
    if not 0 < within < 1:
        raise ValueError(f"within must lie in (0, 1), got {within!r}")
    rows = columns[columns["best_within"].astype(bool)
                   & columns["best_encoding"].str.contains(_AT_LEAST, regex=False)]  # fmt: skip
    twins = []
    for r in rows.itertuples():
        twin = r.best_encoding.replace(_AT_LEAST, _ABOVE)
        part = search[(search["dataset"] == r.dataset) & (search["column"] == r.column)
                      & (search["encoding"] == twin)]["log_ratio"].dropna()  # fmt: skip
        twins.append(float(part.abs().max()) if len(part) else math.inf)
    fits = [t <= math.log1p(within) for t in twins]
    verdict = "none" if not twins else ("indistinguishable" if all(fits) else "contradicts")
    finite = [t for t in twins if math.isfinite(t)]
    return {
        "ge_n": len(twins),
        "ge_twin_within_n": int(sum(fits)),
        "ge_twin_pct_max": 100 * math.expm1(max(finite)) if finite else 0.0,
        "ge_verdict": verdict,
    }


def rounded_releases(search: pd.DataFrame, reading: pd.DataFrame) -> dict[str, float]:
    """Under each dataset's best fit (``reading``), the largest over the smallest ratio of
    the Laplace column across epsilon, for plain releases (``enc_plain_spread_min``/``max``
    over the datasets) and for rounded ones (``enc_rounded_spread_min``/``max``); NaN
    where nothing is compared (glue them with a format)."""
    _require(search, ["dataset", "encoding", "column", "ratio"], "search")
    spreads: dict[str, list[float]] = {"laplace": [], "laplace_rounded": []}
    for r in reading.itertuples():
        rows = search[(search["dataset"] == r.dataset) & (search["encoding"] == r.encoding)]
        for column, found in spreads.items():
            ratio = rows[rows["column"] == column]["ratio"].dropna()
            if len(ratio):
                found.append(float(ratio.max() / ratio.min()))
    out = {}
    for column, name in (("laplace", "plain"), ("laplace_rounded", "rounded")):
        found = spreads[column]
        out[f"enc_{name}_spread_min"] = min(found) if found else math.nan
        out[f"enc_{name}_spread_max"] = max(found) if found else math.nan
    return out
