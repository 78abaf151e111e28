"""Cell suppression, traditional and differentially private, vectorised over repetitions.

The paper defines cell suppression twice, and the two definitions differ:

* the appendix algorithm ("cellSuppress") releases ``floor(k/2)`` for every cell with
  ``x_i < k`` and ``x_i`` otherwise: :func:`cell_suppression`;
* the main text's one-line definition releases ``max{x_i, k/2}``: small cells are *raised*
  to ``k/2`` and cells in ``[k/2, k)`` are never suppressed: :func:`cell_suppression_main_text`.

The DP version also comes twice (see :func:`dp_cell_suppression`): the main-text equation
draws one Laplace noise per cell and compares the noisy count with ``k`` (``"per_cell"``);
the appendix algorithm draws ONE noisy threshold ``k~ = k + Lap(2/eps)`` per release and
suppresses to ``floor(k~/2)`` (``"noisy_threshold"``).
"""

from __future__ import annotations

import math

import numpy as np

from dadp_lite._types import FloatArray, IntArray
from dadp_lite._validate import (
    MAX_COUNT,
    check_choice,
    check_counts,
    check_epsilon,
    check_positive,
    check_positive_int,
    check_rng,
)
from dadp_lite.definitions import VARIANTS, laplace_scale

__all__ = [
    "VARIANTS",
    "cell_suppression",
    "cell_suppression_main_text",
    "dp_cell_suppression",
]


def _check_k(k: object) -> float:
    """The threshold as a float: finite, > 0 and at most 2**52 (released values are counts)."""
    k = check_positive(k, "k")
    if k > MAX_COUNT:
        raise ValueError(f"k must be at most 2**52 = {MAX_COUNT}, got {k!r}")
    return k


def cell_suppression(counts: object, *, k: float) -> IntArray:
    """Traditional cell suppression as in the paper's appendix algorithm.

    Every cell with ``x_i < k`` is released as ``floor(k/2)``, every other cell as ``x_i``.
    Deterministic; ``counts`` may carry leading batch axes and the result has its shape
    (int64).

    Notes
    -----
    The main text's definition ``max{x_i, k/2}`` is a different mechanism (it raises cells
    below ``k/2`` to ``k/2`` and leaves cells in ``[k/2, k)`` untouched); it is
    :func:`cell_suppression_main_text`.
    """
    k = _check_k(k)
    x = check_counts(counts)
    released: IntArray = np.where(x < k, np.int64(math.floor(k / 2)), x)
    return released


def cell_suppression_main_text(counts: object, *, k: float) -> FloatArray:
    """Cell suppression as the main text's one-line definition: ``max{x_i, k/2}`` (float)."""
    k = _check_k(k)
    x = check_counts(counts)
    released: FloatArray = np.maximum(x.astype(float), k / 2)
    return released


def dp_cell_suppression(
    counts: object,
    *,
    k: float,
    epsilon: float,
    rng: np.random.Generator,
    reps: int = 1,
    variant: str = "per_cell",
) -> FloatArray:
    """DP cell suppression, all repetitions at once: shape ``(reps, n_cells)``, float.

    Parameters
    ----------
    counts
        The true histogram, shape ``(n_cells,)``.
    k, epsilon
        Suppression threshold (> 0) and privacy parameter (> 0); the noise is
        ``Lap(2/epsilon)`` as in the paper.
    rng, reps
        Source of randomness and number of independent releases.
    variant
        ``"per_cell"`` (main text): cell i gets its own noise ``eta_i`` and is released as
        ``x_i`` if ``x_i + eta_i >= k``, else as ``k/2``.
        ``"noisy_threshold"`` (appendix algorithm): one ``k~ = k + Lap(2/epsilon)`` per
        repetition; cells with ``x_i < k~`` are released as ``floor(k~/2)``, the others
        as ``x_i``.
    """
    variant = str(check_choice(variant, "variant", VARIANTS))
    k = _check_k(k)
    epsilon = check_epsilon(epsilon)
    rng = check_rng(rng)
    reps = check_positive_int(reps, "reps")
    x = check_counts(counts, ndim=1)
    scale = laplace_scale(epsilon)
    xf = x.astype(float)[None, :]
    if variant == "per_cell":
        noise = rng.laplace(0.0, scale, size=(reps, x.size))
        return np.where(xf + noise >= k, xf, k / 2)
    threshold = k + rng.laplace(0.0, scale, size=(reps, 1))
    return np.where(xf < threshold, np.floor(threshold / 2), xf)
