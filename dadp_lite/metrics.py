"""Error and fairness metrics of released histograms.

Releases come as arrays of shape ``(reps, n_cells)``; the true histogram as ``(n_cells,)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "BiasEstimate",
    "alpha_fairness",
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
