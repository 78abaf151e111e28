"""Releases of registered mechanisms on a dataset, seeded by the configuration's values.

Seeding. One ``SeedSequence(seed)``; the releases of a configuration (dataset, mechanism,
epsilon) come from a child keyed by those *values* (:func:`release_seed`), so a row of a
table does not depend on which other rows are computed, and the classification experiment
trains on exactly the releases the data-release table summarises for the same seed.
"""

from __future__ import annotations

import math
import numbers
import zlib
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from dadp_lite._validate import check_epsilon, check_positive_int
from dadp_lite.data import AGE_EDGES
from dadp_lite.dataset import Dataset, as_dataset
from dadp_lite.registry import Mechanism, get
from dadp_lite.simulate import simulate

__all__ = ["EPSILON_KEY_DIGITS", "release", "release_seed"]

#: Epsilons that agree to this many decimals share a random stream (the key is
#: ``round(epsilon * 10**EPSILON_KEY_DIGITS)``).
EPSILON_KEY_DIGITS = 6


def _epsilon_key(epsilon: float | None) -> int:
    if epsilon is None:
        return 0
    epsilon = check_epsilon(epsilon)
    scaled = epsilon * 10**EPSILON_KEY_DIGITS
    if math.isfinite(scaled):
        return round(scaled)
    return round(Fraction(epsilon) * 10**EPSILON_KEY_DIGITS)  # beyond floats: exactly


def release_seed(
    seed: int, dataset: str, mechanism: str | Mechanism, epsilon: float | None
) -> np.random.SeedSequence:
    """Child of ``SeedSequence(seed)`` keyed by the configuration's values (module doc).

    The mechanism (a record, or its name) enters through its registry ``seed_key``, which
    never changes.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed must be a non-negative integer, got {seed!r}")
    entry = get(mechanism)
    key = (zlib.crc32(str(dataset).encode()), entry.seed_key, _epsilon_key(epsilon))
    return np.random.SeedSequence(int(seed), spawn_key=key)


def release(
    mechanism: str | Mechanism,
    dataset: str | Dataset,
    *,
    epsilon: float | None = None,
    reps: int,
    seed: int,
    age_edges: Sequence[int] = AGE_EDGES,
    **params: object,
) -> np.ndarray:
    """``reps`` releases of one registered mechanism, shape ``(reps, n_cells)`` (float64).

    ``mechanism`` is a registry record or its name. ``params`` are the mechanism's own
    parameters (``k``, ``qi``, ``ka_qi``, ``rate``: those its record declares; defaults for
    the rest); any other name raises ValueError naming it and the accepted ones. A private
    mechanism needs ``epsilon``; a traditional one refuses it. Runs through
    :func:`dadp_lite.simulate.simulate` (with the record's ``run_chunks`` when it has one)
    with the seed :func:`release_seed` ``(seed, dataset name, mechanism, epsilon)``.
    """
    entry = get(mechanism)
    data = as_dataset(dataset, age_edges)
    values = entry.bind(params, epsilon=epsilon, strict=True)
    reps = check_positive_int(reps, "reps")
    out = simulate(
        entry.release,
        data,
        reps=reps,
        seed=release_seed(seed, data.name, entry, values.get("epsilon")),
        progress=False,
        run_chunks=None if entry.run_chunks is None else entry.release_chunks,
        **values,
    )
    return np.asarray(out, dtype=float)
