"""Draw a mechanism's outputs on both datasets of a neighbouring pair, reproducibly.

A mechanism is a registered one (its name or :class:`~dadp_lite.registry.Mechanism`, run on
:class:`~dadp_lite.histogram.Histogram` inputs with its parameters in ``settings``) or any
function of the counts:

* ``release(counts, rng, reps)``, or with a keyword ``reps``: all repetitions at once,
  returning an array whose first axis has length ``reps`` (fast);
* ``release(counts, rng)``: one output per call (called once per trial: slower, but it is
  how a mechanism is usually first written).

The two sides draw from two children of one ``SeedSequence(seed)``, in fixed chunks
(:func:`dadp_lite.simulate.simulate`), so the same seed gives the same outputs bit for bit.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeAlias

import numpy as np
import numpy.typing as npt

from dadp_lite._validate import check_counts, check_positive_int, check_seed
from dadp_lite.dataset import Dataset
from dadp_lite.histogram import Histogram
from dadp_lite.registry import Mechanism, get
from dadp_lite.simulate import simulate

__all__ = ["CHUNK", "as_sampler", "sample_pair"]

#: Trials drawn per call of the mechanism (bounds memory; results do not depend on n_jobs).
CHUNK = 65_536
#: A mechanism's outputs, one row per trial, in whatever numeric dtype the mechanism
#: returns (integers, floats or booleans; the auditor checks them), hence no fixed dtype.
Outputs: TypeAlias = npt.NDArray[Any]


class Sampler(Protocol):
    """``draw(data, rng=, reps=)``: ``reps`` outputs on ``data``, first axis the trials."""

    def __call__(self, data: object, /, *, rng: np.random.Generator, reps: int) -> Outputs: ...


def _takes_reps(function: Callable[..., object]) -> bool:
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # builtins without a signature: assume one output
        return False
    return "reps" in parameters


def _registry_sampler(entry: Mechanism, settings: Mapping[str, object]) -> Sampler:
    values = entry.bind(settings, strict=True)

    def draw(histogram: object, *, rng: np.random.Generator, reps: int) -> Outputs:
        if not isinstance(histogram, Histogram):
            kind = type(histogram).__name__
            raise TypeError(f"a registered mechanism audits Histogram inputs, got {kind}")
        dataset = Dataset.from_histogram(histogram)
        return entry.release(dataset, rng=rng, reps=reps, **values)

    return draw


def _numeric(value: object, what: str) -> Outputs:
    """A release's output as a numeric array, or a ValueError saying what it was."""
    array = np.asarray(value) if not isinstance(value, str | bytes | dict) else None
    if array is None or array.dtype.kind not in "iufb":
        kind = type(value).__name__
        raise ValueError(
            f"release returned {kind} {str(value)[:40]!r} ({what}); a release must return "
            "a number or an array of numbers"
        )
    return array


def _function_sampler(release: Callable[..., object], settings: Mapping[str, object]) -> Sampler:
    if _takes_reps(release):

        def draw(counts: object, *, rng: np.random.Generator, reps: int) -> Outputs:
            return _numeric(release(counts, rng, reps=reps, **settings), f"{reps} trials")

    else:

        def draw(counts: object, *, rng: np.random.Generator, reps: int) -> Outputs:
            outputs = [_numeric(release(counts, rng, **settings), "one trial")]
            for call in range(1, reps):
                outputs.append(_numeric(release(counts, rng, **settings), "one trial"))
                if outputs[-1].shape != outputs[0].shape:
                    raise ValueError(
                        f"release returned shape {outputs[-1].shape} on call {call + 1} and "
                        f"{outputs[0].shape} on call 1; every output must have one shape"
                    )
            return np.stack(outputs)

    return draw


def as_sampler(release: object, settings: Mapping[str, object] | None = None) -> Sampler:
    """A function ``draw(data, rng=, reps=)`` for a registered mechanism or a user function;
    ``settings`` are its parameters (``epsilon``, ``k``, ...)."""
    settings = dict(settings or {})
    if isinstance(release, str):
        release = get(release, "release")
    if isinstance(release, Mechanism):
        return _registry_sampler(release, settings)
    if callable(release):
        return _function_sampler(release, settings)
    kind = type(release).__name__
    raise TypeError(f"release must be a mechanism name, a Mechanism or a function, got {kind}")


def _input(data: object, name: str, registered: bool) -> object:
    if registered:
        if not isinstance(data, Histogram):
            raise TypeError(f"{name} must be a Histogram for a registered mechanism")
        return data
    if isinstance(data, Histogram):
        return data.counts
    return check_counts(data, name, ndim=1)


def _as_rows(out: npt.ArrayLike, trials: int) -> Outputs:
    out = np.asarray(out)
    if out.shape[:1] != (trials,):
        raise ValueError(f"the mechanism returned shape {out.shape}, expected {trials} trials")
    return out.reshape(trials, -1)


def sample_pair(
    release: object,
    x: object,
    x_prime: object,
    *,
    trials: int,
    seed: int | np.random.SeedSequence,
    settings: Mapping[str, object] | None = None,
    chunk_size: int = CHUNK,
) -> tuple[Outputs, Outputs]:
    """``trials`` outputs on ``x`` and on ``x_prime``, each of shape ``(trials, width)``
    (outputs flattened to one row per trial)."""
    trials = check_positive_int(trials, "trials")
    seed = check_seed(seed)
    registered = isinstance(release, (str, Mechanism))
    draw = as_sampler(release, settings)
    x = _input(x, "x", registered)
    x_prime = _input(x_prime, "x_prime", registered)
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    side_x, side_x_prime = root.spawn(2)
    out = []
    for data, child in ((x, side_x), (x_prime, side_x_prime)):
        drawn = simulate(draw, data, reps=trials, seed=child, chunk_size=chunk_size,
                         progress=False, reps_name="trials")  # fmt: skip
        out.append(_as_rows(drawn, trials))
    if out[0].shape[1] != out[1].shape[1]:
        raise ValueError("the outputs on x and x_prime have different sizes")
    return out[0], out[1]
