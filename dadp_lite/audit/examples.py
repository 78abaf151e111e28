"""Small histogram mechanisms for teaching audits: three classic bugs, each with its
correct version.

Every release takes ``(counts, rng, reps)`` and returns ``(reps, len(counts))`` outputs, the
form :func:`dadp_lite.audit.audit` accepts. All claim pure ``(epsilon, 0)``-DP for
histograms under replace-one adjacency (sensitivity 2 in the l1 norm):

- *sensitivity*: Laplace noise of scale ``2 / epsilon`` (correct) against ``1 / epsilon``
  (calibrated for sensitivity 1);
- *data threshold*: noisy counts below a threshold are released as 0; the threshold is a
  public constant (correct) or the median of the true counts (the bug);
- *shared noise*: one Laplace draw per cell (correct) against one draw per release added
  to every cell, which releases the differences between cells exactly.

:func:`teaching_cases` lists them with the extra statistic an auditor needs for the data
threshold (the smallest value the release lets through).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from dadp_lite._types import FloatArray
from dadp_lite._validate import check_epsilon, check_positive, check_positive_int, check_rng
from dadp_lite.audit.sampling import Outputs

__all__ = [
    "STUDENT_PAIR",
    "TeachingCase",
    "bug_leaks",
    "laplace_counts",
    "shared_noise_counts",
    "smallest_value_shown",
    "teaching_cases",
    "thresholded_counts",
]

#: ``release(counts, rng, reps)``: ``reps`` released histograms, one row each.
Release = Callable[[object, np.random.Generator, int], FloatArray]

#: The neighbouring pair the teaching audits run on: one record moves from cell 2 to cell 3
#: (replace-one adjacency), which also moves the median of the counts from 3 to 2.
STUDENT_PAIR: tuple[tuple[int, ...], tuple[int, ...]] = ((5, 3, 1), (5, 2, 2))


def _inputs(counts: object, rng: object, reps: object) -> tuple[FloatArray, int]:
    check_rng(rng)
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 1 or counts.size == 0:
        raise ValueError(f"counts must be a non-empty 1-d histogram, got shape {counts.shape}")
    return counts, check_positive_int(reps, "reps")


def laplace_counts(
    counts: object, rng: np.random.Generator, reps: int, *, scale: float
) -> FloatArray:
    """Counts plus independent Laplace(``scale``) noise in every cell."""
    counts, reps = _inputs(counts, rng, reps)
    scale = check_positive(scale, "scale")
    return counts + rng.laplace(0.0, scale, size=(reps, counts.size))


def thresholded_counts(
    counts: object,
    rng: np.random.Generator,
    reps: int,
    *,
    scale: float,
    threshold: float | None,
) -> FloatArray:
    """Laplace(``scale``) counts, with noisy values below ``threshold`` released as 0.

    ``threshold=None`` takes the median of the *true* counts: the bug, since the released
    values that pass reveal it.
    """
    counts, reps = _inputs(counts, rng, reps)
    cut = float(np.median(counts)) if threshold is None else float(threshold)
    noisy = laplace_counts(counts, rng, reps, scale=scale)
    return np.where(noisy >= cut, noisy, 0.0)


def shared_noise_counts(
    counts: object, rng: np.random.Generator, reps: int, *, scale: float
) -> FloatArray:
    """Counts plus *one* Laplace(``scale``) draw per release, added to every cell (the bug)."""
    counts, reps = _inputs(counts, rng, reps)
    scale = check_positive(scale, "scale")
    return counts + rng.laplace(0.0, scale, size=(reps, 1))


def smallest_value_shown(outputs: Outputs) -> FloatArray:
    """Per output, the smallest released value above 0 (``inf`` if none): the statistic that
    sees a threshold taken from the data."""
    outputs = np.asarray(outputs, dtype=float)
    smallest: FloatArray = np.where(outputs > 0, outputs, np.inf).min(axis=1)
    return smallest


@dataclass(frozen=True)
class TeachingCase:
    """One bug: its name, the correct and the buggy release, and extra audit statistics."""

    bug: str
    correct: Release
    buggy: Release
    statistics: dict[str, Callable[[Outputs], FloatArray]] | None = field(default=None)


def teaching_cases(epsilon: float, threshold: float = 3.0) -> list[TeachingCase]:
    """The three bugs at privacy parameter ``epsilon`` (noise scale ``2 / epsilon``; the
    correct thresholded release uses the public ``threshold``)."""
    epsilon = check_epsilon(epsilon)
    scale = 2 / epsilon
    right = functools.partial(laplace_counts, scale=scale)
    return [
        TeachingCase("sensitivity", right, functools.partial(laplace_counts, scale=1 / epsilon)),
        TeachingCase(
            "data threshold",
            functools.partial(thresholded_counts, scale=scale, threshold=threshold),
            functools.partial(thresholded_counts, scale=scale, threshold=None),
            {"smallest value shown": smallest_value_shown},
        ),
        TeachingCase("shared noise", right, functools.partial(shared_noise_counts, scale=scale)),
    ]


def _laplace_cdf(t: npt.ArrayLike, scale: float) -> FloatArray:
    t = np.asarray(t, dtype=float)
    cdf: FloatArray = np.where(t < 0, 0.5 * np.exp(t / scale), 1 - 0.5 * np.exp(-t / scale))
    return cdf


def bug_leaks(epsilon: float) -> dict[str, float]:
    """A lower bound on the exact delta, at the claimed ``epsilon``, of each buggy release of
    :func:`teaching_cases` on :data:`STUDENT_PAIR` (the correct versions have delta 0).

    - sensitivity: Laplace of scale ``1/epsilon`` on two cells shifted by 1 is exactly
      ``(2 epsilon, 0)``-DP, and its delta at ``epsilon`` is
      ``1 - e^(-epsilon/2) (1 + epsilon/4)``;
    - data threshold: under the second dataset the threshold is 2, under the first 3, so a
      released value in ``[2, 3)`` is impossible under the first; its probability under the
      second (independent Laplace cells) bounds delta from below;
    - shared noise: the differences between cells are released exactly and differ between
      the two datasets: delta is 1.
    """
    epsilon = check_epsilon(epsilon)
    scale = 2 / epsilon
    x, x_prime = (np.asarray(c, dtype=float) for c in STUDENT_PAIR)
    low, high = float(np.median(x_prime)), float(np.median(x))
    inside = _laplace_cdf(high - x_prime, scale) - _laplace_cdf(low - x_prime, scale)
    return {
        "sensitivity": float(1 - np.exp(-epsilon / 2) * (1 + epsilon / 4)),
        "data threshold": float(1 - np.prod(1 - inside)),
        "shared noise": 1.0,
    }
