"""The Laplace mechanism for histogram release, optionally projected onto counts >= 0.

The paper adds ``Lap(2/epsilon)`` noise to every cell (scale 2/epsilon, because replacing
one record changes two cells by one each: L1 sensitivity 2 under replace-one adjacency)
and, for its experiments, clips negative releases to 0. The projection is
post-processing, so it keeps the (epsilon, 0)-DP guarantee but makes the mechanism biased
upwards on small counts (see :mod:`dadp_lite.theory.baselines`).
"""

from __future__ import annotations

import numpy as np

from dadp_lite._validate import check_counts, check_epsilon, check_positive_int, check_rng

__all__ = ["laplace", "laplace_scale"]


def laplace_scale(epsilon: float) -> float:
    """The paper's Laplace scale ``b = 2 / epsilon`` (L1 sensitivity 2, replace-one)."""
    return 2.0 / check_epsilon(epsilon)


def laplace(
    counts: object,
    *,
    epsilon: float,
    rng: np.random.Generator,
    reps: int,
    project: bool = False,
) -> np.ndarray:
    """Release ``counts + Lap(2/epsilon)`` independently per cell, ``reps`` times at once.

    Parameters
    ----------
    counts
        True histogram, non-negative integers, shape ``(n_cells,)``.
    epsilon
        Privacy parameter (> 0, finite); the noise scale is ``2 / epsilon``.
    rng
        The numpy Generator all randomness comes from.
    reps
        Number of independent releases (>= 1).
    project
        If True, clip each released count to ``>= 0`` (the paper's post-processing).

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(reps, n_cells)``.
    """
    counts = check_counts(counts)
    scale = laplace_scale(epsilon)
    reps = check_positive_int(reps, "reps")
    rng = check_rng(rng)
    released = rng.laplace(0.0, scale, size=(reps, counts.size))
    released += counts
    if project:
        np.maximum(released, 0.0, out=released)
    return released
