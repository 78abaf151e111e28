"""Error and fairness metrics of released histograms.

Releases come as arrays of shape ``(reps, n_cells)``; the true histogram as ``(n_cells,)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special
from threadpoolctl import threadpool_limits

from dadp_lite._validate import MAX_COUNT, check_positive_int, check_probability, check_rng
from dadp_lite.resources import check_memory

__all__ = [
    "INTERVALS",
    "BiasEstimate",
    "alpha_fairness",
    "bootstrap_bias_replicates",
    "release_summary",
    "empirical_bias",
    "l1_error",
    "l1_norm",
    "project_nonnegative",
    "round_counts",
]


@dataclass(frozen=True)
class BiasEstimate:
    """Per-cell Monte Carlo bias: ``mean`` (E[M(x)] - x) and its standard error ``se``."""

    mean: np.ndarray
    se: np.ndarray
    reps: int

    def z_scores(self, expected: np.ndarray) -> np.ndarray:
        """(estimate - expected) / se, with 0 where both se and the gap are 0."""
        gap = self.mean - np.asarray(expected, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(self.se > 0, gap / self.se, np.where(np.isclose(gap, 0), 0.0, np.inf))
        return z


def _releases(released: np.ndarray, true: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    released = np.asarray(released, dtype=float)
    true = np.asarray(true, dtype=float)
    if released.ndim != 2:
        raise ValueError(f"released must have shape (reps, n_cells), got {released.shape}")
    if released.shape[1] != true.shape[-1]:
        raise ValueError(f"released has {released.shape[1]} cells, true has {true.shape[-1]}")
    if released.shape[0] < 1:
        raise ValueError("released holds no repetitions")
    return released, true


def empirical_bias(released: np.ndarray, true: np.ndarray) -> BiasEstimate:
    """Per-cell empirical bias mean(released) - true with standard errors (ddof=1)."""
    released, true = _releases(released, true)
    reps = released.shape[0]
    se = released.std(axis=0, ddof=1) / np.sqrt(reps) if reps > 1 else np.full(true.shape, np.inf)
    return BiasEstimate(released.mean(axis=0) - true, se, reps)


def l1_norm(vector: np.ndarray) -> float:
    """Sum of absolute values (e.g. of a bias vector)."""
    return float(np.abs(np.asarray(vector, dtype=float)).sum())


def alpha_fairness(bias: np.ndarray, axis: int | tuple[int, ...] = -1) -> float | np.ndarray:
    """Max minus min bias over cells (the paper's alpha, Definition 2).

    ``axis`` names the cell axis (or axes); leading batch axes give one alpha each. A single
    bias vector gives a float.
    """
    bias = np.asarray(bias, dtype=float)
    if bias.size == 0:
        raise ValueError("bias is empty")
    value = bias.max(axis=axis) - bias.min(axis=axis)
    return float(value) if np.ndim(value) == 0 else value


def l1_error(released: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Per repetition L1 distance ||released - true||_1 (shape ``(reps,)``)."""
    released, true = _releases(released, true)
    return np.abs(released - true).sum(axis=1)


def project_nonnegative(released: np.ndarray) -> np.ndarray:
    """Post-processing used by the paper: clip negative counts to 0."""
    return np.maximum(np.asarray(released, dtype=float), 0.0)


def round_counts(released: np.ndarray) -> np.ndarray:
    """Non-negative integer counts (round half to even after projection).

    Every value must be finite and at most :data:`dadp_lite._validate.MAX_COUNT` (NaN or an
    infinite release has no count; a larger one would wrap in int64).
    """
    values = project_nonnegative(released)
    if not np.all(np.isfinite(values)):
        raise ValueError("released must be finite to be rounded to counts")
    if values.size and values.max() > MAX_COUNT:
        raise ValueError(f"released must be at most 2**52 = {MAX_COUNT}, got {values.max()!r}")
    return np.rint(values).astype(np.int64)


def bootstrap_bias_replicates(
    released: np.ndarray, true: np.ndarray, *, rng: np.random.Generator, n_boot: int = 1000
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap replicates of (L1 norm of the mean bias, alpha), each of shape ``(n_boot,)``.

    Repetitions are resampled with replacement: replicate b weights repetition r by
    ``w_br = multinomial count / reps``, so its mean release is ``w_b @ released`` (one
    matrix product for all replicates, on one BLAS thread: a multi-threaded product sums in
    an order that depends on the number of threads, and the last bits with it). The spread
    of the replicates measures Monte Carlo noise only; the empirical alpha is also biased
    upwards (a maximum of noisy means).
    """
    released, true = _releases(released, true)
    if released.shape[0] < 2:
        raise ValueError(f"released must have shape (reps >= 2, n_cells), got {released.shape}")
    rng = check_rng(rng)
    n_boot = check_positive_int(n_boot, "n_boot", minimum=2)
    reps = released.shape[0]
    check_memory(
        8 * n_boot * (2 * reps + released.shape[1]),
        f"n_boot = {n_boot} replicates of {reps} repetitions",
    )
    weights = rng.multinomial(reps, np.full(reps, 1.0 / reps), size=n_boot) / reps
    with threadpool_limits(limits=1, user_api="blas"):  # same bits on 1 or N cores
        bias = weights @ released - true[None, :]
    return np.abs(bias).sum(axis=1), bias.max(axis=1) - bias.min(axis=1)


#: The choices of ``interval`` in :func:`release_summary`.
INTERVALS = ("normal", "percentile")


def _interval(point: float, replicates: np.ndarray, confidence: float, kind: str) -> tuple:
    """(lo, hi) of a bootstrap interval: point +- z SD (``normal``) or percentiles."""
    if kind == "normal":
        half = float(special.ndtri(0.5 + confidence / 2)) * float(replicates.std(ddof=1))
        return point - half, point + half
    tail = 50 * (1 - confidence)
    lo, hi = np.percentile(replicates, [tail, 100 - tail])
    return float(lo), float(hi)


def release_summary(
    released: np.ndarray,
    true: np.ndarray,
    *,
    rng: np.random.Generator,
    n_boot: int = 200,
    confidence: float = 0.95,
    interval: str = "normal",
) -> dict[str, float]:
    """Error, bias and fairness of ``reps`` releases, each with its Monte Carlo uncertainty.

    Keys: ``reps``; ``l1_error`` (mean over repetitions of ``||release - x||_1``) and
    ``l1_error_se``; ``bias_l1`` (``||mean release - x||_1``, the paper's statistic) and
    ``alpha`` (max minus min of the mean bias), each with ``*_se`` (bootstrap standard
    deviation, :func:`bootstrap_bias_replicates`) and a ``confidence`` interval
    ``*_lo``/``*_hi`` (``interval="normal"``: statistic +- z SE; ``"percentile"``: bootstrap
    percentiles). The interval says how far the statistic moves when the experiment is rerun
    with other seeds; both statistics are biased upwards by the Monte Carlo noise itself, so
    it is not an interval for the exact bias. With one repetition the SEs are infinite and
    the intervals NaN.
    """
    released, true = _releases(released, true)
    confidence = check_probability(confidence, "confidence")
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {INTERVALS}, got {interval!r}")
    reps = released.shape[0]
    errors = l1_error(released, true)
    bias = released.mean(axis=0) - true
    summary = {
        "reps": reps,
        "l1_error": float(errors.mean()),
        "l1_error_se": float(errors.std(ddof=1) / math.sqrt(reps)) if reps > 1 else math.inf,
        "bias_l1": l1_norm(bias),
        "bias_l1_se": math.inf,
        "bias_l1_lo": math.nan,
        "bias_l1_hi": math.nan,
        "alpha": alpha_fairness(bias),
        "alpha_se": math.inf,
        "alpha_lo": math.nan,
        "alpha_hi": math.nan,
    }
    if reps > 1:
        l1_boot, alpha_boot = bootstrap_bias_replicates(released, true, rng=rng, n_boot=n_boot)
        for stat, boot in (("bias_l1", l1_boot), ("alpha", alpha_boot)):
            summary[f"{stat}_se"] = float(boot.std(ddof=1))
            lo, hi = _interval(summary[stat], boot, confidence, interval)
            summary[f"{stat}_lo"], summary[f"{stat}_hi"] = lo, hi
    return summary
