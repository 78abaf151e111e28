"""What the classification chapter found, as glue values.

The chapter trains a classifier on each mechanism's released data
(:func:`dadp_lite.experiments.classification_accuracy`) and tests the paper's claim that
Laplace and the discrete Gaussian stay "much closer to the baseline than any other method"
(:func:`dadp_lite.experiments.classification_margins`, judged by
:func:`dadp_lite.errata.margin_status`). These functions turn those tables into the numbers
and phrases the chapter's prose shows.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from dadp_lite.data import dataset_label
from dadp_lite.errata import Status
from dadp_lite.plotting import MECHANISM_LABELS

__all__ = ["baseline_values", "loss_values", "margin_values"]

#: Why DP swapping costs the classifier most when it swaps race (the feature it blurs).
SWAPPING_RACE_WHY = (
    " It moves whole cells to another race, so the relation between race and "
    "income that the classifier learns is blurred."
)


def _require(frame: pd.DataFrame, columns: Sequence[str], name: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a DataFrame, got {type(frame).__name__}")
    if frame.empty:
        raise ValueError(f"{name} is empty")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {missing}")


def baseline_values(baselines: pd.DataFrame) -> dict[str, float | int | str]:
    """The yardsticks: ``baselines`` has one row per dataset (index: dataset name) with
    ``majority_rate``, ``baseline_accuracy``, ``ceiling`` and ``baseline_balanced_accuracy``.

    Returns the first dataset's four values (``first_<column>``), its label
    (``first_name``), the headroom of the non-private classifier over the majority class in
    percentage points (``headroom_pp``) and ``baseline_beats``, the phrase "beats the
    majority-class rate on n of m datasets".
    """
    columns = ["majority_rate", "baseline_accuracy", "ceiling", "baseline_balanced_accuracy"]
    _require(baselines, columns, "baselines")
    first = baselines.iloc[0]
    beats = baselines["baseline_accuracy"] >= baselines["majority_rate"]
    return {
        **{f"first_{c}": float(first[c]) for c in columns},
        "first_name": dataset_label(str(baselines.index[0])),
        "headroom_pp": float(100 * (first["baseline_accuracy"] - first["majority_rate"])),
        "baseline_beats": (
            f"beats the majority-class rate on {int(beats.sum())} of {len(beats)} datasets"
        ),
    }


def margin_values(
    margins: pd.DataFrame, *, limit: float, claim: Status, ahead: Status
) -> dict[str, float | int | str]:
    """The test of the paper's claim, from the margins of
    :func:`~dadp_lite.experiments.classification_margins` (columns ``leader``, ``other``,
    ``dataset``, ``epsilon``, ``margin``, ``margin_se``, ``excess``, ``excess_se``), the
    interval's ``limit`` in standard errors, and the statuses of the claim with "much"
    (``claim``) and without it (``ahead``).

    ``n_much`` counts the comparisons whose excess is above 0 beyond its interval;
    ``smallest_*`` describe the smallest margin, its interval and where it is
    (``smallest_where``: "Laplace against DP swapping on MA at epsilon = 0.5").
    """
    columns = ["leader", "other", "dataset", "epsilon", "margin", "margin_se", "excess",
               "excess_se"]  # fmt: skip
    _require(margins, columns, "margins")
    pairs = margins[["leader", "other"]].drop_duplicates().shape[0]
    smallest = margins.loc[margins["margin"].idxmin()]
    return {
        "n_margins": len(margins),
        "n_settings": len(margins) // pairs,
        "n_much": int((margins["excess"] - limit * margins["excess_se"] > 0).sum()),
        "margin_limit": float(limit),
        "claim_basis": claim.basis,
        "ahead_word": ahead.word,
        "smallest_margin": float(smallest["margin"]),
        "smallest_lower": float(smallest["margin"] - limit * smallest["margin_se"]),
        "smallest_upper": float(smallest["margin"] + limit * smallest["margin_se"]),
        "smallest_where": (
            f"{MECHANISM_LABELS[smallest['leader']]} against "
            f"{MECHANISM_LABELS[smallest['other']]} on {dataset_label(smallest['dataset'])} "
            f"at epsilon = {smallest['epsilon']:g}"
        ),
    }


def loss_values(
    results: pd.DataFrame, *, epsilon: float, qi: Sequence[str]
) -> dict[str, float | int | str]:
    """The accuracy each mechanism loses against the non-private baseline, from
    ``results`` (columns ``dataset``, ``mechanism``, ``epsilon``, ``accuracy``,
    ``baseline_accuracy``, ``balanced_accuracy``).

    ``worst_<mechanism>`` is the mechanism's largest loss over datasets and epsilons in
    percentage points; ``worst_label`` and ``worst_value`` name the mechanism that loses
    most, ``worst_rest`` the largest loss of the others, ``worst_why`` why (a sentence with a
    leading space, for DP swapping of race; else empty), and ``hurts_balanced_min`` its
    smallest balanced accuracy at ``epsilon``.
    """
    columns = ["dataset", "mechanism", "epsilon", "accuracy", "baseline_accuracy",
               "balanced_accuracy"]  # fmt: skip
    _require(results, columns, "results")
    if results["mechanism"].nunique() < 2:
        raise ValueError("results must hold at least two mechanisms to compare their losses")
    gap = 100 * (results["baseline_accuracy"] - results["accuracy"])
    worst = gap.groupby(results["mechanism"], sort=False).max()
    hurts = str(worst.idxmax())
    at_epsilon = results[(results["mechanism"] == hurts) & (results["epsilon"] == epsilon)]
    if at_epsilon.empty:
        raise ValueError(f"epsilon: no result for {hurts} at epsilon = {epsilon!r}")
    return {
        **{f"worst_{m}": float(v) for m, v in worst.items()},
        "worst_label": MECHANISM_LABELS[hurts],
        "worst_value": float(worst[hurts]),
        "worst_rest": float(worst.drop(hurts).max()),
        "worst_why": SWAPPING_RACE_WHY if hurts == "dp_swapping" and "race" in qi else "",
        "hurts_balanced_min": float(at_epsilon["balanced_accuracy"].min()),
    }
