"""Monte Carlo driver: vectorised repetitions, chunked, reproducible, optionally parallel.

Seeding rule: one ``SeedSequence(seed)``; repetitions are cut into chunks of fixed size
``chunk_size`` and chunk ``c`` draws from ``Generator(PCG64(root.spawn(...)[c]))``. Chunk
boundaries never depend on the number of workers, so the same seed gives the same result
bit for bit with ``n_jobs=1`` or ``n_jobs=8``.

Resources: a request of more than :data:`PILOT_AFTER` chunks starts with a pilot of two
chunks. From their output size and time, :func:`simulate` estimates the memory and time of
the whole request and refuses it before going on if it cannot fit in memory, or if it would
take more than an hour without ``allow_long`` (:mod:`dadp_lite.resources`). The pilot's
chunks are part of the result.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

import numpy as np

from dadp_lite._validate import check_positive_int
from dadp_lite.resources import check_duration, check_memory

__all__ = ["DEFAULT_CHUNK", "chunk_generators", "make_rng", "simulate"]

#: Repetitions per chunk: each chunk has its own random stream from the one seed.
DEFAULT_CHUNK = 50
#: Requests of more chunks than this start with a pilot of two chunks (module docstring).
PILOT_AFTER = 8


def make_rng(seed: int | np.random.SeedSequence | None) -> np.random.Generator:
    """A PCG64 Generator from an int seed or a SeedSequence."""
    sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return np.random.Generator(np.random.PCG64(sequence))


def chunk_generators(
    seed: int | np.random.SeedSequence, reps: int, chunk_size: int = DEFAULT_CHUNK
) -> list[tuple[int, np.random.Generator]]:
    """``(reps_in_chunk, rng)`` pairs, one per chunk, spawned from one SeedSequence."""
    reps = check_positive_int(reps, "reps")
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    sizes = [min(chunk_size, reps - start) for start in range(0, reps, chunk_size)]
    children = root.spawn(len(sizes))
    return [
        (size, np.random.Generator(np.random.PCG64(child))) for size, child in zip(sizes, children)
    ]


def _lazy_chunks(
    seed: int | np.random.SeedSequence, reps: int, chunk_size: int
) -> Iterator[tuple[int, np.random.Generator]]:
    """The pairs of :func:`chunk_generators`, made one at a time (the same children:
    ``spawn`` numbers them in order however many are spawned per call)."""
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    for start in range(0, reps, chunk_size):
        (child,) = root.spawn(1)
        yield min(chunk_size, reps - start), np.random.Generator(np.random.PCG64(child))


def _check_request(pilot: list[tuple[int, float, int]], reps: int, n_jobs: int, what: str,
                   allow_long: bool | None) -> None:  # fmt: skip
    """Refuse the whole request from its pilot chunks ``(size, seconds, bytes)``."""
    per_rep_bytes = max(nbytes / size for size, _seconds, nbytes in pilot)
    per_rep_seconds = min(seconds / size for size, seconds, _nbytes in pilot)
    check_memory(2 * per_rep_bytes * reps, what)  # the chunks, then their concatenation
    check_duration(per_rep_seconds * reps / n_jobs, what, allow_long)


def _progress_enabled(progress: bool | None, reps: int, chunk_size: int) -> bool:
    if os.environ.get("TQDM_DISABLE"):
        return False
    if progress is None:
        return reps > 4 * chunk_size
    return bool(progress)


def simulate(
    mechanism: Callable[..., np.ndarray],
    data: object,
    *,
    reps: int,
    seed: int | np.random.SeedSequence,
    chunk_size: int = DEFAULT_CHUNK,
    n_jobs: int = 1,
    progress: bool | None = None,
    description: str | None = None,
    run_chunks: Callable[..., np.ndarray] | None = None,
    allow_long: bool | None = None,
    reps_name: str = "reps",
    **params: object,
) -> np.ndarray:
    """Run ``mechanism(data, rng=..., reps=..., **params)`` for ``reps`` repetitions.

    The mechanism must return an array whose first axis has length ``reps`` (all
    repetitions at once). Results of all chunks are concatenated along that axis.

    Parameters
    ----------
    mechanism
        A vectorised mechanism such as :func:`dadp_lite.laplace`.
    data
        Its first argument (a histogram's counts, a records frame, ...).
    reps, seed, chunk_size
        Repetitions, root seed and chunk size (see the module docstring).
    n_jobs
        Worker processes (joblib); 1 runs in this process.
    progress
        Show a tqdm bar; ``None`` shows one for long runs. ``TQDM_DISABLE=1`` turns bars off.
    run_chunks
        Optional ``run_chunks(data, chunks, **params)``: all chunks (the ``(size, rng)``
        pairs of :func:`chunk_generators`) in one call, their releases concatenated, equal
        bit for bit to running the chunks one by one (e.g.
        :func:`dadp_lite.mechanisms.swapping_chunks`, whose cost is a loop over steps that
        all chunks can share; a registry record passes its ``release_chunks``). It is used
        with ``n_jobs=1`` and no progress bar.
    allow_long
        Run a request estimated to take more than an hour (default: only if the environment
        sets ``DADP_ALLOW_LONG=1``). A request that cannot fit in memory is always refused.
    reps_name
        What the caller calls ``reps`` (``"trials"`` for an audit), for error messages.
    """
    reps = check_positive_int(reps, reps_name)
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    n_jobs = check_positive_int(n_jobs, "n_jobs")
    lazy = _lazy_chunks(seed, reps, chunk_size)

    def run(size: int, rng: np.random.Generator) -> np.ndarray:
        out = np.asarray(mechanism(data, rng=rng, reps=size, **params))
        if out.shape[:1] != (size,):
            raise ValueError(
                f"{getattr(mechanism, '__name__', mechanism)} returned shape {out.shape}, "
                f"expected a first axis of {size} repetitions"
            )
        return out

    pilot, timing = [], []
    if reps > PILOT_AFTER * chunk_size:  # a large request: time two chunks first
        for size, rng in lazy:
            start = time.perf_counter()
            pilot.append(run(size, rng))
            timing.append((size, time.perf_counter() - start, pilot[-1].nbytes))
            if len(pilot) == 2:
                break
        _check_request(timing, reps, n_jobs, f"{reps_name} = {reps}", allow_long)
    done = sum(part.shape[0] for part in pilot)
    chunks = list(lazy)
    show = _progress_enabled(progress, reps, chunk_size)
    if n_jobs == 1 and not show and run_chunks is not None:
        out = np.asarray(run_chunks(data, chunks, **params))
        if out.shape[:1] != (reps - done,):
            raise ValueError(
                f"run_chunks returned shape {out.shape}, "
                f"expected a first axis of {reps - done} repetitions"
            )
        return np.concatenate([*pilot, out], axis=0)
    if n_jobs == 1:
        iterator = chunks
        if show:
            from tqdm.auto import tqdm

            iterator = tqdm(chunks, desc=description or "repetitions", unit="chunk")
        parts = [run(size, rng) for size, rng in iterator]
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=n_jobs, verbose=5 if show else 0)(
            delayed(run)(size, rng) for size, rng in chunks
        )
    return np.concatenate([*pilot, *parts], axis=0)
