"""What the classification chapter's own analyses show, as numbers and verdicts.

The chapter trains a classifier on each mechanism's released data
(:func:`dadp_lite.experiments.classification_accuracy`, through the shared run
:func:`dadp_lite.errata.runs.classification_runs`). Its finding about the paper's claim is
computed once by :mod:`dadp_lite.errata` (``classification-ranking``); these functions give
the yardsticks and the other numbers its prose shows, and verdict keys for its phrasebooks.
They never return sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from dadp_lite.data import dataset_label

__all__ = ["HURTS_VERDICTS", "baseline_values", "loss_values", "margin_values"]

#: The verdicts of :func:`loss_values` (``hurts_why``): why the mechanism that costs the
#: most accuracy costs it, where the chapter can say.
HURTS_VERDICTS: tuple[str, ...] = ("swapping-race", "other")


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
    percentage points (``headroom_pp``), and on how many of the ``datasets_n`` datasets the
    non-private classifier is at least as accurate as the majority class
    (``baseline_beats_n``).
    """
    columns = ["majority_rate", "baseline_accuracy", "ceiling", "baseline_balanced_accuracy"]
    _require(baselines, columns, "baselines")
    first = baselines.iloc[0]
    beats = baselines["baseline_accuracy"] >= baselines["majority_rate"]
    return {
        **{f"first_{c}": float(first[c]) for c in columns},
        "first_name": dataset_label(str(baselines.index[0])),
        "headroom_pp": float(100 * (first["baseline_accuracy"] - first["majority_rate"])),
        "baseline_beats_n": int(beats.sum()),
        "datasets_n": len(beats),
    }


def margin_values(margins: pd.DataFrame, *, limit: float) -> dict[str, float | int]:
    """The design of the comparisons, from the margins of
    :func:`~dadp_lite.experiments.classification_margins` (columns ``leader``, ``other``):
    the settings per pair of mechanisms (``n_settings``) and the interval's ``limit`` in
    standard errors (``margin_limit``)."""
    _require(margins, ["leader", "other"], "margins")
    pairs = margins[["leader", "other"]].drop_duplicates().shape[0]
    return {"n_settings": len(margins) // pairs, "margin_limit": float(limit)}


def loss_values(
    results: pd.DataFrame, *, epsilon: float, qi: Sequence[str]
) -> dict[str, float | str]:
    """The mechanism that loses most accuracy against the non-private baseline (over
    datasets and epsilons), from ``results`` (columns ``dataset``, ``mechanism``,
    ``epsilon``, ``accuracy``, ``baseline_accuracy``, ``balanced_accuracy``): its smallest
    balanced accuracy at ``epsilon`` (``hurts_balanced_min``) and ``hurts_why``, a verdict
    of :data:`HURTS_VERDICTS` (``"swapping-race"``: DP swapping with race among the
    quasi-identifiers ``qi``)."""
    columns = ["dataset", "mechanism", "epsilon", "accuracy", "baseline_accuracy",
               "balanced_accuracy"]  # fmt: skip
    _require(results, columns, "results")
    if results["mechanism"].nunique() < 2:
        raise ValueError("results must hold at least two mechanisms to compare their losses")
    gap = 100 * (results["baseline_accuracy"] - results["accuracy"])
    hurts = str(gap.groupby(results["mechanism"], sort=False).max().idxmax())
    at_epsilon = results[(results["mechanism"] == hurts) & (results["epsilon"] == epsilon)]
    if at_epsilon.empty:
        raise ValueError(f"epsilon: no result for {hurts} at epsilon = {epsilon!r}")
    why = "swapping-race" if hurts == "dp_swapping" and "race" in qi else "other"
    return {"hurts_balanced_min": float(at_epsilon["balanced_accuracy"].min()), "hurts_why": why}
