"""SHA-256 of every registry record's releases and exact answers on each NIST excerpt.

Run on two versions of the package (``python tools/registry_hashes.py > out.txt``) and diff
the outputs: a refactoring of the registry must leave every line unchanged (bit for bit).
Uses only the public methods of a record.
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np

import dadp_lite as dl
from dadp_lite.registry import REGISTRY

EPSILONS = (0.5, 1.0, 4.0)
SETTINGS = {"rate": 0.5}
ADJACENCIES = ("replace", "add_remove", "qi_replace")


def digest(*values: object) -> str:
    h = hashlib.sha256()
    for value in values:
        if isinstance(value, np.ndarray):
            h.update(str((value.dtype, value.shape)).encode())
            h.update(np.ascontiguousarray(value).tobytes())
        else:
            h.update(repr(value).encode())
    return h.hexdigest()[:16]


def lines(dataset_name: str):
    ds = dl.Dataset.load(dataset_name)
    h = ds.histogram
    for name, entry in REGISTRY.items():
        eps = 1.0 if entry.private else None
        kwargs = entry.bind(SETTINGS, epsilon=eps)
        direct = entry.release(ds, rng=np.random.default_rng(2023), reps=3, **kwargs)
        yield f"{dataset_name} {name} release {digest(direct)}"
        seeded = dl.release(entry, ds, reps=4, seed=7, **kwargs)
        yield f"{dataset_name} {name} dl.release {digest(seeded)}"
        for e in EPSILONS:
            bias = entry.bias(h, epsilon=e, **SETTINGS)
            yield f"{dataset_name} {name} bias eps={e} {digest(bias)}"
            for a in ADJACENCIES:
                try:
                    value = entry.delta(h, epsilon=e, adjacency=a, **SETTINGS)
                except ValueError as error:
                    value = f"ValueError: {error}"
                yield f"{dataset_name} {name} delta {a} eps={e} {digest(value)} {value!r}"
            printed = entry.printed(h, epsilon=e, **SETTINGS)
            reading = entry.reading(h, epsilon=e, **SETTINGS)
            yield f"{dataset_name} {name} printed eps={e} {printed!r} reading {reading!r}"
        pair = entry.neighbour_pair(h, epsilon=1.0, **SETTINGS)
        yield (
            f"{dataset_name} {name} pair {digest(pair.x.counts, pair.x_prime.counts)} "
            f"{pair.adjacency} {dict(pair.settings)} {pair.reason!r}"
        )
        at = np.array([0.0, 0.5, 1.0, 2.0])
        value = entry.delta_of_pair(pair, epsilon=1.0, at=at, **SETTINGS)
        point = entry.delta_of_pair(pair, epsilon=1.0, **SETTINGS)
        yield f"{dataset_name} {name} pair_delta {digest(np.asarray(value))} {point!r}"
        yield f"{dataset_name} {name} context {entry.context(h, **entry.select(SETTINGS))}"


def main() -> None:
    names = sys.argv[1:] or sorted(dl.DATASETS)
    for dataset_name in names:
        for line in lines(dataset_name):
            print(line, flush=True)


if __name__ == "__main__":
    main()
