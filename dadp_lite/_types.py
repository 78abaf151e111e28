"""Type aliases of the arrays and numbers that cross the package's function boundaries.

Annotations only (nothing here runs): a float array is ``FloatArray``, a count or index
array ``IntArray`` / ``IndexArray``, a mask ``BoolArray``. Functions that take a number or
an array of numbers and answer in kind take and return ``FloatOrArray`` (with overloads
where the input decides the output).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = [
    "BoolArray",
    "Domain",
    "DomainMap",
    "FloatArray",
    "FloatOrArray",
    "IndexArray",
    "IntArray",
]

#: float64 values: releases of the additive mechanisms, probabilities, bounds.
FloatArray: TypeAlias = npt.NDArray[np.float64]
#: int64 values: counts, cells, codes.
IntArray: TypeAlias = npt.NDArray[np.int64]
#: Positions from numpy's index functions (``np.arange``, ``np.flatnonzero``, ...): ``intp``.
IndexArray: TypeAlias = npt.NDArray[np.intp]
#: Masks.
BoolArray: TypeAlias = npt.NDArray[np.bool_]
#: A number, or an array of numbers (answers take the shape of their input).
FloatOrArray: TypeAlias = float | FloatArray
#: Every possible value of one attribute, each listed once (codes, ages, labels).
Domain: TypeAlias = tuple[Hashable, ...]
#: Domains by attribute name, as callers pass them (``feature_domains()`` by default).
DomainMap: TypeAlias = Mapping[str, Sequence[Hashable]]
