"""Argument checks shared by every public function (clear errors naming the argument).

One checker per kind of argument, so every function refuses bad input with the same words:
a ``TypeError`` for the wrong kind of value, a ``ValueError`` for a value outside its range.
Nothing is silently clipped or rounded.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = [
    "MAX_COUNT",
    "check_choice",
    "check_counts",
    "check_domain",
    "check_epsilon",
    "check_epsilons",
    "check_frame",
    "check_positive",
    "check_positive_int",
    "check_probability",
    "check_qi",
    "check_rng",
    "check_seed",
]

#: Largest count accepted: sums of counts over a universe must stay exact in int64 and in
#: float64 (2**53), so a single count is capped well below both.
MAX_COUNT = 2**52


def _one_number(value: object, name: str) -> object:
    """A 0-d array as its number; an array or list of several values is refused by name."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    if isinstance(value, np.ndarray | list | tuple):
        shape = np.shape(value)
        raise TypeError(f"{name} must be one number, got an array of shape {shape}")
    return value


def check_positive(value: object, name: str) -> float:
    """Return ``value`` as a float after checking it is a finite real number > 0."""
    value = _one_number(value, name)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return number


def check_epsilon(epsilon: object, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float after checking it is a finite number > 0."""
    return check_positive(epsilon, name)


def check_epsilons(
    epsilon: object, name: str = "epsilon", *, allow_zero: bool = False
) -> npt.NDArray[np.float64]:
    """``epsilon`` (a number or an array of them) as a float array, every value finite and
    > 0 (>= 0 with ``allow_zero``). The array keeps the input's shape (0-d for a number)."""
    if isinstance(epsilon, bool | str | bytes):
        raise TypeError(f"{name} must be a real number or an array of them, got {epsilon!r}")
    try:
        values: npt.NDArray[np.float64] = np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a real number or an array of them, got {epsilon!r}"
        ) from None
    low_ok = values >= 0 if allow_zero else values > 0
    if not np.all(np.isfinite(values)) or not np.all(low_ok):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {bound}, got {epsilon!r}")
    return values


def check_positive_int(value: object, name: str, minimum: int = 1) -> int:
    """Return ``value`` as an int after checking it is an integer >= ``minimum``."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_probability(value: object, name: str, *, open_low: bool = True) -> float:
    """Check ``value`` lies in (0, 1] (or [0, 1] when ``open_low`` is False)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    low_ok = value > 0 if open_low else value >= 0
    if not (math.isfinite(value) and low_ok and value <= 1):
        interval = "(0, 1]" if open_low else "[0, 1]"
        raise ValueError(f"{name} must lie in {interval}, got {value}")
    return value


def check_choice(value: object, name: str, choices: Sequence[object]) -> object:
    """Check ``value`` is one of ``choices`` (a ValueError lists them)."""
    if value not in tuple(choices):
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_counts(
    counts: object, name: str = "counts", *, ndim: int | None = None
) -> npt.NDArray[np.int64]:
    """Return counts as int64 after checking they are finite non-negative integers.

    Counts must be at most :data:`MAX_COUNT` (larger values would wrap or lose precision
    in int64/float64 arithmetic). ``ndim`` requires that many dimensions.
    """
    array = np.asarray(counts)
    if array.dtype.kind not in "iufb":  # timedelta64 ("m") is an integer to numpy, not here
        raise TypeError(f"{name} must be a numeric array, got dtype {array.dtype}")
    if ndim is not None and array.ndim != ndim:
        shape = "(n_cells,)" if ndim == 1 else f"{ndim} dimensions"
        raise ValueError(f"{name} must have shape {shape}, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} is empty")
    if np.issubdtype(array.dtype, np.floating) and not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite")
    if np.any(array < 0):
        raise ValueError(f"{name} must be non-negative")
    if np.any(array > MAX_COUNT):
        raise ValueError(f"{name} must be at most 2**52 = {MAX_COUNT}, got {array.max()!r}")
    if np.issubdtype(array.dtype, np.floating) and np.any(array != np.floor(array)):
        raise ValueError(f"{name} must be integers")
    return array.astype(np.int64)


def check_qi(qi: object, attributes: Sequence[str], name: str = "qi") -> tuple[str, ...]:
    """Quasi-identifier names as a tuple: one name (a plain string) or a sequence of
    distinct names, each among ``attributes``."""
    if isinstance(qi, str):
        qi = (qi,)
    if qi is None or not isinstance(qi, Sequence):
        raise TypeError(f"{name} must be an attribute name or a sequence of them, got {qi!r}")
    names = tuple(qi)
    if not names:
        raise ValueError(f"{name} must name at least one attribute")
    bad_type = [q for q in names if not isinstance(q, str)]
    if bad_type:
        raise TypeError(f"{name} must hold attribute names (str), got {bad_type[0]!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"{name} repeats a name: {names}")
    unknown = [q for q in names if q not in attributes]
    if unknown:
        raise ValueError(f"{name} holds unknown attribute(s) {unknown}; known: {tuple(attributes)}")
    return names


def check_domain(domain: Sequence[object], name: str) -> tuple[object, ...]:
    """An attribute's domain as a tuple: non-empty, no value listed twice."""
    values = tuple(domain)
    if not values:
        raise ValueError(f"domain of {name!r} is empty")
    seen: set[object] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"domain of {name!r} lists {value!r} twice; list each value once")
        seen.add(value)
    return values


def check_seed(seed: object, name: str = "seed") -> int | np.random.SeedSequence:
    """A seed: a non-negative integer or a ``numpy.random.SeedSequence``."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(
            f"{name} must be a non-negative integer or a numpy SeedSequence, got {seed!r}"
        )
    if seed < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {seed}")
    return int(seed)


def check_rng(rng: object) -> np.random.Generator:
    """Check ``rng`` is a numpy Generator (never the global state)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (e.g. np.random.default_rng(seed)), "
            f"got {type(rng).__name__}"
        )
    return rng


def check_grid(values: object, name: str = "t") -> npt.NDArray[np.float64]:
    """A finite grid of real numbers: 1-d, or 2-d with one row per item, as a float array."""
    try:
        grid: npt.NDArray[np.float64] = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers") from None
    if grid.ndim not in (1, 2) or grid.size == 0 or not np.all(np.isfinite(grid)):
        raise ValueError(f"{name} must be a non-empty finite 1-d grid or one row per item")
    return grid


def check_frame(frame: object, name: str, columns: Sequence[str], *, made_by: str) -> None:
    """``frame`` is a non-empty pandas DataFrame holding ``columns`` (``made_by`` names the
    function that makes such a frame, for the message); else TypeError or ValueError."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks the columns {missing} (use {made_by})")
    if frame.empty:
        raise ValueError(f"{name} has no rows")
