"""Chapter 01's numbers as glue values: how sparse a histogram is."""

from __future__ import annotations

import numpy as np

__all__ = ["sparsity"]


def sparsity(counts: object, k: int) -> dict[str, object]:
    """How sparse a histogram is: ``n_cells``, ``empty_share`` (% of cells with count 0),
    ``k_mid`` (= ``k``) and ``below_k_share`` (% of cells with fewer than ``k`` records)."""
    x = np.asarray(counts)
    if x.ndim != 1 or x.size == 0 or not np.issubdtype(x.dtype, np.integer):
        raise ValueError("counts must be a non-empty one-dimensional array of integers")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    return {
        "n_cells": int(x.size),
        "empty_share": 100 * float(np.mean(x == 0)),
        "k_mid": int(k),
        "below_k_share": 100 * float(np.mean(x < k)),
    }
