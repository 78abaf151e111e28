"""Releases of registered mechanisms on a dataset, seeded by the configuration's values.

Seeding. One ``SeedSequence(seed)``; the releases of a configuration (dataset, mechanism,
epsilon) come from a child keyed by those *values* (:func:`release_seed`), so a row of a
table does not depend on which other rows are computed, and the classification experiment
trains on exactly the releases the data-release table summarises for the same seed.
"""

from __future__ import annotations

import numbers
import zlib
from collections.abc import Sequence

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
    return 0 if epsilon is None else round(epsilon * 10**EPSILON_KEY_DIGITS)


def release_seed(
    seed: int, dataset: str, mechanism: str, epsilon: float | None
) -> np.random.SeedSequence:
    """Child of ``SeedSequence(seed)`` keyed by the configuration's values (module doc).

    The mechanism enters through its registry ``seed_key``, which never changes.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed must be a non-negative integer, got {seed!r}")
    key = (zlib.crc32(str(dataset).encode()), get(mechanism).seed_key, _epsilon_key(epsilon))
    return np.random.SeedSequence(int(seed), spawn_key=key)


def _parameters(entry: Mechanism, epsilon: float | None, params: dict) -> dict:
    values = entry.select(params)
    if entry.private:
        values["epsilon"] = check_epsilon(epsilon)
    elif epsilon is not None:
        raise ValueError(f"{entry.name} is traditional and takes no epsilon")
    return values


def release(
    mechanism: str,
    dataset: str | Dataset,
    *,
    epsilon: float | None = None,
    reps: int,
    seed: int,
    age_edges: Sequence[int] = AGE_EDGES,
    **params: object,
) -> np.ndarray:
    """``reps`` releases of one registered mechanism, shape ``(reps, n_cells)`` (float64).

    ``params`` may hold settings for several mechanisms at once (``k``, ``qi``, ``ka_qi``,
    ...): each mechanism takes the ones it declares in the registry and its defaults for the
    rest. Runs through :func:`dadp_lite.simulate.simulate` with the seed
    :func:`release_seed` ``(seed, dataset name, mechanism, epsilon)``.
    """
    entry = get(mechanism)
    data = as_dataset(dataset, age_edges)
    values = _parameters(entry, epsilon, params)
    reps = check_positive_int(reps, "reps")
    out = simulate(
        entry.release,
        data,
        reps=reps,
        seed=release_seed(seed, data.name, entry.name, values.get("epsilon")),
        progress=False,
        **values,
    )
    return np.asarray(out, dtype=float)
