"""Simulated releases against exact values: per-cell z-scores and the simulated alpha.

The standard errors here decide whether a chapter's check passes, so each function says
which variance it uses and why (sample variance, exact variance, or the larger of the two).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dadp_lite._validate import check_counts
from dadp_lite.definitions import laplace_scale
from dadp_lite.theory.cell_suppression import (
    check_variant,
    dp_cell_suppression_error_log_mgf,
    dp_cell_suppression_moments,
    suppression_probabilities,
)
from dadp_lite.verification import chernoff_log_bound

__all__ = ["SimulatedAlpha", "bias_z_scores", "bias_z_scores_by_count", "simulated_alpha"]


def bias_z_scores(
    released: object,
    true: object,
    exact_bias: object,
    exact_variance: object | None = None,
) -> np.ndarray:
    """Per-cell z-scores of the simulated bias against an exact bias vector.

    ``released`` has shape ``(reps, n_cells)``. The standard error of cell i is
    ``sqrt(v_i / reps)`` with ``v_i`` the larger of the sample variance and, when given,
    the exact variance of the release. The exact variance guards against cells whose
    release is a rare event that never occurs in ``reps`` draws (sample variance 0); the
    sample variance guards against the opposite, a rare event that occurs once (the
    normal approximation with the exact variance would then give a huge z). Cells whose
    standard error is 0 get z = 0 when the gap is round-off, infinity otherwise.
    """
    released = np.asarray(released, dtype=float)
    if released.ndim != 2 or released.shape[0] < 2:
        raise ValueError(f"released must have shape (reps >= 2, n_cells), got {released.shape}")
    true = np.asarray(true, dtype=float)
    exact_bias = np.asarray(exact_bias, dtype=float)
    reps = released.shape[0]
    variance = released.var(axis=0, ddof=1)
    if exact_variance is not None:
        variance = np.maximum(variance, np.asarray(exact_variance, dtype=float))
    se = np.sqrt(variance / reps)
    gap = released.mean(axis=0) - true - exact_bias
    tiny = 1e-9 * (1.0 + np.abs(true))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, gap / se, np.where(np.abs(gap) <= tiny, 0.0, np.inf))


@dataclass(frozen=True)
class SimulatedAlpha:
    """Plug-in alpha of simulated releases with a delta-method standard error.

    ``alpha`` = max minus min of the per-cell mean bias; ``se`` = standard error of the
    difference between the two cells attaining them (``cell_max``, ``cell_min``), from the
    per-repetition differences. The plug-in alpha is biased upwards by the Monte Carlo
    noise (a maximum of noisy means); the SE does not include that floor.
    """

    alpha: float
    se: float
    cell_max: int
    cell_min: int
    reps: int


def simulated_alpha(
    released: object, true: object, cells: tuple[int, int] | None = None
) -> SimulatedAlpha:
    """Alpha of simulated releases ``(reps, n_cells)`` around the histogram ``true``.

    By default the plug-in estimate (max minus min of the mean biases; biased upwards).
    With ``cells=(i, j)`` the estimate is the mean bias of cell i minus that of cell j,
    which is unbiased for ``alpha`` when i and j are the cells where the exact bias is
    largest and smallest (it never exceeds the true alpha in expectation otherwise).
    """
    released = np.asarray(released, dtype=float)
    if released.ndim != 2 or released.shape[0] < 2:
        raise ValueError(f"released must have shape (reps >= 2, n_cells), got {released.shape}")
    bias = released.mean(axis=0) - np.asarray(true, dtype=float)
    if cells is None:
        hi, lo = int(np.argmax(bias)), int(np.argmin(bias))
    else:
        hi, lo = (int(c) for c in cells)
        if not (0 <= hi < bias.size and 0 <= lo < bias.size):
            raise ValueError(f"cells must index the {bias.size} cells, got {cells}")
    diff = released[:, hi] - released[:, lo]
    se = float(diff.std(ddof=1) / math.sqrt(released.shape[0]))
    return SimulatedAlpha(float(bias[hi] - bias[lo]), se, hi, lo, released.shape[0])


def bias_z_scores_by_count(
    released: np.ndarray,
    counts: object,
    *,
    k: float,
    epsilon: float,
    variant: str = "per_cell",
    min_events: float = 10.0,
) -> pd.DataFrame:
    """Simulated against exact bias, pooled over cells that share a count.

    Cells with equal counts have the same exact bias. Per cell they are independent, so
    their releases are pooled (SE from the exact variance over ``reps * cells`` draws);
    under the noisy threshold they are released identically, so one of them is used
    (SE over ``reps`` draws). ``clt`` marks groups whose expected number of suppressions
    and non-suppressions both reach ``min_events`` (the z-score is then close to
    normal); groups with zero variance must match exactly (``z`` 0 or inf).

    ``log_chernoff`` needs no normal approximation: the log of the Chernoff bound
    (:func:`dadp_lite.verification.chernoff_log_bound`, from the exact moment generating
    function of one draw's error, :func:`dp_cell_suppression_error_log_mgf`) on the chance
    that the group's mean lies at least as far from its exact bias as observed; 0 for a
    group with zero variance that matches exactly, ``-inf`` for one that does not.
    """
    variant = check_variant(variant)
    x = check_counts(counts)
    released = np.asarray(released, dtype=float)
    reps = released.shape[0]
    moments = dp_cell_suppression_moments(x, k=k, epsilon=epsilon, variant=variant)
    p = suppression_probabilities(x, k=k, epsilon=epsilon)
    # the per-cell error is bounded (any t); the noisy threshold's MGF is used up to 1/b
    limit = math.inf if variant == "per_cell" else 1 / laplace_scale(epsilon)
    rows = []
    for value in np.unique(x):
        cells = np.flatnonzero(x == value)
        draws = reps * cells.size if variant == "per_cell" else reps
        sample = released[:, cells] if variant == "per_cell" else released[:, cells[:1]]
        first = cells[0]
        gap = sample.mean() - value - moments.bias[first]
        se = math.sqrt(moments.variance[first] / draws)
        z = gap / se if se > 0 else (0.0 if abs(gap) < 1e-9 else math.inf)
        events = draws * min(p[first], 1 - p[first])
        log_chernoff = 0.0 if abs(gap) < 1e-9 else -math.inf
        if se > 0:
            log_chernoff = float(
                chernoff_log_bound(
                    [gap + moments.bias[first]],
                    moments.bias[first],
                    draws,
                    lambda t, v=value: dp_cell_suppression_error_log_mgf(
                        [v], t, k=k, epsilon=epsilon, variant=variant
                    ),
                    scale=math.sqrt(moments.variance[first]),
                    positive_limit=limit,
                )[0]
            )
        rows.append(
            {"count": int(value), "cells": cells.size, "empirical": gap + moments.bias[first],
             "exact": moments.bias[first], "se": se, "z": z,
             "clt": bool(events >= min_events and se > 0), "log_chernoff": log_chernoff}
        )  # fmt: skip
    return pd.DataFrame(rows)
