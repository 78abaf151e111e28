"""Argument checks shared by every public function (clear errors naming the argument)."""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "check_counts",
    "check_epsilon",
    "check_positive_int",
    "check_probability",
    "check_rng",
]


def check_epsilon(epsilon: object, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float after checking it is a finite number > 0."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(epsilon).__name__}")
    value = float(epsilon)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {epsilon!r}")
    return value


def check_positive_int(value: object, name: str, minimum: int = 1) -> int:
    """Return ``value`` as an int after checking it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
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


def check_counts(counts: object, name: str = "counts") -> np.ndarray:
    """Return counts as int64 after checking they are finite non-negative integers."""
    array = np.asarray(counts)
    if array.dtype == object or not (
        np.issubdtype(array.dtype, np.integer)
        or np.issubdtype(array.dtype, np.floating)
        or np.issubdtype(array.dtype, np.bool_)
    ):
        raise TypeError(f"{name} must be a numeric array, got dtype {array.dtype}")
    if array.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite")
    if np.any(array < 0):
        raise ValueError(f"{name} must be non-negative")
    if np.any(array != np.floor(array)):
        raise ValueError(f"{name} must be integers")
    return array.astype(np.int64)


def check_rng(rng: object) -> np.random.Generator:
    """Check ``rng`` is a numpy Generator (never the global state)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (e.g. np.random.default_rng(seed)), "
            f"got {type(rng).__name__}"
        )
    return rng
