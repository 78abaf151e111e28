"""The Laplace mechanism for histogram release, optionally projected onto counts >= 0.

The paper adds ``Lap(2/epsilon)`` noise to every cell (scale 2/epsilon, because replacing
one record changes two cells by one each: L1 sensitivity 2 under replace-one adjacency)
and, for its experiments, clips negative releases to 0. The projection is
post-processing, so it keeps the (epsilon, 0)-DP guarantee but makes the mechanism biased
upwards on small counts (see :mod:`dadp_lite.theory.baselines`).
"""

from __future__ import annotations

import numpy as np

from dadp_lite._types import FloatArray
from dadp_lite._validate import check_epsilon
from dadp_lite.definitions import laplace_scale
from dadp_lite.mechanisms._additive import additive_release

__all__ = ["laplace"]


def laplace(
    counts: object,
    *,
    epsilon: float,
    rng: np.random.Generator,
    reps: int,
    project: bool = False,
) -> FloatArray:
    """Release ``counts + Lap(2/epsilon)`` independently per cell, ``reps`` times at once.

    Parameters
    ----------
    counts
        True histogram, non-negative integers, shape ``(n_cells,)``.
    epsilon
        Privacy parameter (> 0, finite); the noise scale is ``2 / epsilon``
        (:func:`dadp_lite.definitions.laplace_scale`).
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
    scale = laplace_scale(check_epsilon(epsilon))  # one epsilon per call
    return additive_release(
        counts,
        lambda rng_, shape: rng_.laplace(0.0, scale, size=shape),
        rng=rng,
        reps=reps,
        project=project,
    )
