"""The release step shared by the additive-noise mechanisms (Laplace, discrete Gaussian)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from dadp_lite._validate import check_counts, check_positive_int, check_rng
from dadp_lite.resources import check_memory

__all__ = ["additive_release"]

#: The dtype of a release: float64 (Laplace) or int64 (discrete Gaussian), the noise's.
Noise = TypeVar("Noise", np.float64, np.int64)


def additive_release(
    counts: object,
    sample_noise: Callable[[np.random.Generator, tuple[int, int]], npt.NDArray[Noise]],
    *,
    rng: np.random.Generator,
    reps: int,
    project: bool,
) -> npt.NDArray[Noise]:
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
