"""Chapter 01's findings as glue values: what the adjacency changes, and how sparse a
histogram is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from dadp_lite.definitions import ADJACENCIES

__all__ = ["adjacency_deltas", "sparsity"]


def adjacency_deltas(
    dataset_label: str, qi: Sequence[str], epsilon: float, deltas: Mapping[str, float]
) -> dict[str, object]:
    """The setting and the exact delta under each adjacency: ``first_dataset``,
    ``qi_label`` (the quasi-identifiers, comma-separated), ``adjacency_eps`` and
    ``delta_<adjacency>`` for each adjacency of :data:`~dadp_lite.definitions.ADJACENCIES`
    (all of them required)."""
    if isinstance(qi, str) or not qi or not all(isinstance(q, str) and q for q in qi):
        raise TypeError(f"qi must be a non-empty sequence of attribute names, got {qi!r}")
    if set(deltas) != set(ADJACENCIES):
        raise ValueError(
            f"deltas must have one value per adjacency {ADJACENCIES}, got {set(deltas)}"
        )
    out: dict[str, object] = {
        "first_dataset": dataset_label,
        "qi_label": ", ".join(qi),
        "adjacency_eps": float(epsilon),
    }
    out.update({f"delta_{a}": float(deltas[a]) for a in ADJACENCIES})
    return out


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
