"""Error and fairness metrics of released histograms.

Releases come as arrays of shape ``(reps, n_cells)``; the true histogram as ``(n_cells,)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dadp_lite._validate import check_positive_int, check_rng

__all__ = [
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


def alpha_fairness(bias: np.ndarray) -> float:
    """Max minus min bias over cells (the paper's alpha, Definition 2)."""
    bias = np.asarray(bias, dtype=float)
    if bias.size == 0:
        raise ValueError("bias is empty")
    return float(bias.max() - bias.min())


def l1_error(released: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Per repetition L1 distance ||released - true||_1 (shape ``(reps,)``)."""
    released, true = _releases(released, true)
    return np.abs(released - true).sum(axis=1)


def project_nonnegative(released: np.ndarray) -> np.ndarray:
    """Post-processing used by the paper: clip negative counts to 0."""
    return np.maximum(np.asarray(released, dtype=float), 0.0)


def round_counts(released: np.ndarray) -> np.ndarray:
    """Non-negative integer counts (round half to even after projection)."""
    return np.rint(project_nonnegative(released)).astype(np.int64)


def bootstrap_bias_replicates(
    released: np.ndarray, true: np.ndarray, *, rng: np.random.Generator, n_boot: int = 1000
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap replicates of (L1 norm of the mean bias, alpha), each of shape ``(n_boot,)``.

    Repetitions are resampled with replacement: replicate b weights repetition r by
    ``w_br = multinomial count / reps``, so its mean release is ``w_b @ released`` (one
    matrix product for all replicates). The spread of the replicates measures Monte Carlo
    noise only; the empirical alpha is also biased upwards (a maximum of noisy means).
    """
    released, true = _releases(released, true)
    if released.shape[0] < 2:
        raise ValueError(f"released must have shape (reps >= 2, n_cells), got {released.shape}")
    rng = check_rng(rng)
    n_boot = check_positive_int(n_boot, "n_boot", minimum=2)
    reps = released.shape[0]
    weights = rng.multinomial(reps, np.full(reps, 1.0 / reps), size=n_boot) / reps
    bias = weights @ released - true[None, :]
    return np.abs(bias).sum(axis=1), bias.max(axis=1) - bias.min(axis=1)


def release_summary(
    released: np.ndarray, true: np.ndarray, *, rng: np.random.Generator, n_boot: int = 200
) -> dict[str, float]:
    """Mean L1 error, L1 norm of the empirical bias and alpha, each with a standard error.

    ``l1_error_se`` is the standard error of a mean over repetitions; ``bias_l1_se`` and
    ``alpha_se`` are bootstrap standard deviations (:func:`bootstrap_bias_replicates`).
    With a single repetition the standard errors are infinite.
    """
    released, true = _releases(released, true)
    reps = released.shape[0]
    errors = l1_error(released, true)
    bias = released.mean(axis=0) - true
    summary = {
        "l1_error": float(errors.mean()),
        "l1_error_se": float(errors.std(ddof=1) / math.sqrt(reps)) if reps > 1 else math.inf,
        "bias_l1": l1_norm(bias),
        "bias_l1_se": math.inf,
        "alpha": alpha_fairness(bias),
        "alpha_se": math.inf,
    }
    if reps > 1:
        l1_boot, alpha_boot = bootstrap_bias_replicates(released, true, rng=rng, n_boot=n_boot)
        summary["bias_l1_se"] = float(l1_boot.std(ddof=1))
        summary["alpha_se"] = float(alpha_boot.std(ddof=1))
    return summary
