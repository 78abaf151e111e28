"""Small building blocks the registry's records share (bounds, neighbouring pairs, profiles)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from dadp_lite.histogram import Histogram
from dadp_lite.registry.record import NeighbourPair

__all__ = [
    "ALL_ADJACENCIES",
    "bound",
    "constant",
    "make_pair",
    "need_cells",
    "profile_points",
    "shaped_like",
]

#: Every adjacency of :data:`dadp_lite.definitions.ADJACENCIES`, for records derived under all.
ALL_ADJACENCIES = ("replace", "add_remove", "qi_replace")


def bound(histogram: Histogram) -> int:
    """B, the largest count of ``histogram`` (the bound of every enumeration)."""
    return int(histogram.counts.max())


def constant(value: float) -> Callable[..., float]:
    """An exact delta that is ``value`` whatever the histogram and parameters."""

    def delta(histogram: Histogram, **_: object) -> float:
        return value

    return delta


def _placed(histogram: Histogram, cells: Mapping[int, int]) -> Histogram:
    """``histogram``'s universe with the given counts in the given flat cells, 0 elsewhere."""
    counts = np.zeros(histogram.n_cells, dtype=np.int64)
    for cell, count in cells.items():
        counts[cell] = count
    return histogram.with_counts(counts)


def make_pair(
    histogram: Histogram,
    x_cells: Mapping[int, int],
    y_cells: Mapping[int, int],
    adjacency: str,
    reason: str,
    **settings: object,
) -> NeighbourPair:
    """A :class:`NeighbourPair` in ``histogram``'s universe: ``{flat cell: count}`` of each
    side (0 elsewhere), the adjacency, why this pair, and the settings it needs."""
    x, y = _placed(histogram, x_cells), _placed(histogram, y_cells)
    return NeighbourPair(x, y, adjacency, settings, reason)


def need_cells(histogram: Histogram, n: int) -> None:
    """Refuse a universe of fewer than ``n`` cells (a pair needs room)."""
    if histogram.n_cells < n:
        raise ValueError(f"the universe needs at least {n} cells, has {histogram.n_cells}")


def profile_points(epsilon: float | None, where: object) -> np.ndarray:
    """Where a privacy profile is evaluated: ``where``, or ``epsilon`` when it is None."""
    return np.asarray(epsilon if where is None else where, dtype=float)


def shaped_like(where: np.ndarray, value: float) -> float | np.ndarray:
    """``value`` as a float, or an array of it shaped like ``where``."""
    return float(value) if where.ndim == 0 else np.full(where.shape, float(value))
