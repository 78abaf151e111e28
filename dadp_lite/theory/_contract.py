"""Building blocks of the exact answers that registry records name (ARCHITECTURE.md, "The
mechanism registry"): the bound of an enumeration, where a privacy profile is evaluated, a
value shaped like it, and the room a neighbouring pair needs.

A record's exact answers take the histogram first and keywords after, in the order
:class:`dadp_lite.registry.Mechanism` calls them: ``exact_bias(histogram, epsilon=...,
**params)``, ``exact_delta(histogram, epsilon=..., adjacency=..., **params)``,
``worst_pair(histogram, epsilon=..., **params)``, ``pair_delta(x, x_prime, epsilon=...,
at=..., **params)``; ``params`` are the record's parameters and its ``fixed`` keywords.
"""

from __future__ import annotations

import numpy as np

from dadp_lite._types import FloatArray, FloatOrArray
from dadp_lite.histogram import Histogram, NeighbourPair

__all__ = ["bound", "make_pair", "need_cells", "profile_points", "shaped_like"]

#: :meth:`NeighbourPair.from_cells`: a pair from ``{flat cell: count}`` of each side.
make_pair = NeighbourPair.from_cells


def bound(histogram: Histogram) -> int:
    """B, the largest count of ``histogram`` (the bound of every enumeration)."""
    return int(histogram.counts.max())


def need_cells(histogram: Histogram, n: int) -> None:
    """Refuse a universe of fewer than ``n`` cells (a pair needs room)."""
    if histogram.n_cells < n:
        raise ValueError(f"the universe needs at least {n} cells, has {histogram.n_cells}")


def profile_points(epsilon: float | None, where: object) -> FloatArray:
    """Where a privacy profile is evaluated: ``where``, or ``epsilon`` when it is None."""
    return np.asarray(epsilon if where is None else where, dtype=float)


def shaped_like(where: FloatArray, value: float) -> FloatOrArray:
    """``value`` as a float, or an array of it shaped like ``where``."""
    return float(value) if where.ndim == 0 else np.full(where.shape, float(value))
