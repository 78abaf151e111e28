"""Definitions that the samplers (:mod:`dadp_lite.mechanisms`) and the exact computations
(:mod:`dadp_lite.theory`) share, so the two can never disagree.

Names. :data:`ADJACENCIES` (what "neighbouring datasets" means; the paper never says),
:data:`VARIANTS` of DP cell suppression and :data:`UNITS` of DP swapping.

Calibration: how the paper turns a privacy parameter epsilon into each mechanism's noise
parameter.

``laplace_scale``
    ``b = 2 / epsilon``: Laplace noise for L1 sensitivity 2 (replace-one moves one record
    between two cells).
``discrete_gaussian_sigma``
    ``sigma = 2 / epsilon``: the paper's ``N_Z(0, 4/epsilon^2)`` read with Canonne, Kamath
    and Steinke's convention (second argument = ``sigma^2``).
``keep_probability``
    ``gamma = e^eps / (e^eps + n_Q - 1)``: DP swapping keeps a QI value with probability
    gamma (k-ary randomized response over the ``n_Q`` QI values).
``sampling_probability``
    ``beta = 1 - e^-eps``: DP k-anonymity keeps each record with probability beta.

Each accepts an array of epsilons (and returns an array of the same shape) or a number
(and returns a float).
"""

from __future__ import annotations

from typing import overload

import numpy as np

from dadp_lite._types import FloatArray, FloatOrArray
from dadp_lite._validate import check_epsilons, check_positive_int

__all__ = [
    "ADJACENCIES",
    "UNITS",
    "VARIANTS",
    "discrete_gaussian_sigma",
    "keep_probability",
    "laplace_scale",
    "sampling_probability",
]

#: Adjacency relations between datasets, as histograms ``x`` and ``x'``:
#: ``"replace"`` one record changes cell (``x' = x - e_i + e_j``, i != j);
#: ``"add_remove"`` one record more or less (``x' = x +- e_i``);
#: ``"qi_replace"`` one record changes only its quasi-identifier (like ``"replace"``, with
#: i and j sharing their non-QI values).
ADJACENCIES: tuple[str, ...] = ("replace", "add_remove", "qi_replace")
#: DP cell suppression: the main text's noise per cell, or the appendix's one noisy threshold.
VARIANTS: tuple[str, ...] = ("per_cell", "noisy_threshold")
#: DP swapping moves a cell's whole count (main text) or each record (appendix algorithm).
UNITS: tuple[str, ...] = ("cell", "record")


def _out(value: FloatArray) -> FloatOrArray:
    return float(value) if np.ndim(value) == 0 else value


def _finite_noise(value: FloatArray, epsilon: object) -> FloatArray:
    if not np.all(np.isfinite(value)):
        raise ValueError(f"epsilon = {epsilon!r} is too small: the noise scale is not finite")
    return value


@overload
def laplace_scale(epsilon: float) -> float: ...
@overload
def laplace_scale(epsilon: object) -> FloatOrArray: ...
def laplace_scale(epsilon: object) -> FloatOrArray:
    """The paper's Laplace scale ``b = 2 / epsilon`` (L1 sensitivity 2, replace-one)."""
    eps = check_epsilons(epsilon)
    with np.errstate(divide="ignore", over="ignore"):
        return _out(_finite_noise(2.0 / eps, epsilon))


@overload
def discrete_gaussian_sigma(epsilon: float) -> float: ...
@overload
def discrete_gaussian_sigma(epsilon: object) -> FloatOrArray: ...
def discrete_gaussian_sigma(epsilon: object) -> FloatOrArray:
    """The paper's discrete Gaussian scale: ``sigma = 2 / epsilon`` (``sigma^2 = 4/eps^2``)."""
    return laplace_scale(epsilon)


@overload
def keep_probability(epsilon: float, n_q: int) -> float: ...
@overload
def keep_probability(epsilon: object, n_q: int) -> FloatOrArray: ...
def keep_probability(epsilon: object, n_q: int) -> FloatOrArray:
    """DP swapping's ``gamma = e^eps / (e^eps + n_Q - 1)``, computed as
    ``1 / (1 + (n_Q - 1) e^-eps)`` (no overflow for large epsilon)."""
    eps = check_epsilons(epsilon)
    n = check_positive_int(n_q, "n_q", minimum=2)
    return _out(1.0 / (1.0 + (n - 1) * np.exp(-eps)))


@overload
def sampling_probability(epsilon: float) -> float: ...
@overload
def sampling_probability(epsilon: object) -> FloatOrArray: ...
def sampling_probability(epsilon: object) -> FloatOrArray:
    """DP k-anonymity's ``beta = 1 - exp(-epsilon)``."""
    return _out(-np.expm1(-check_epsilons(epsilon)))
