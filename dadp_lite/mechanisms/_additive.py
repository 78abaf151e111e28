"""The release step shared by the additive-noise mechanisms (Laplace, discrete Gaussian)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dadp_lite._validate import check_counts, check_positive_int, check_rng
from dadp_lite.resources import check_memory

__all__ = ["additive_release"]


def additive_release(
    counts: object,
    sample_noise: Callable[[np.random.Generator, tuple[int, int]], np.ndarray],
    *,
    rng: np.random.Generator,
    reps: int,
    project: bool,
) -> np.ndarray:
    """``reps`` releases ``counts + noise`` of shape ``(reps, n_cells)``.

    ``sample_noise(rng, shape)`` draws the noise of all repetitions at once; with
    ``project`` every released count is clipped to ``>= 0`` (the paper's post-processing).
    The output (8 bytes a cell) is checked against the memory available before it is made.
    """
    counts = check_counts(counts, ndim=1)
    reps = check_positive_int(reps, "reps")
    rng = check_rng(rng)
    check_memory(8 * reps * counts.size, f"reps = {reps} releases of {counts.size} cells")
    released = sample_noise(rng, (reps, counts.size))
    released += counts
    if project:
        np.maximum(released, 0, out=released)
    return released
