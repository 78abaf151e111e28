"""Exact expected error of an average of releases, per cell, for projected Laplace.

The paper's l1-bias statistic is ``sum_i |mean of R releases of cell i - x_i|``. Its
expectation is ``sum_i E|S_i / R|`` with ``S_i`` the sum of ``R`` independent deviations
``D = release - x`` (linearity: no independence between cells is needed). This module
computes ``E|S| / R`` exactly for the two Laplace releases the book searches:

- ``max(x + eta, 0)``, ``eta ~ Lap(b)``: ``D = max(eta, -x)``, an atom at ``-x`` plus a
  continuous part. Its characteristic function is, with ``u = t b`` and ``y = x / b``,
  ``psi(u) = e^{-y} e^{-iuy} / 2 + (1 - e^{-y} e^{-iuy}) / (2 (1 + iu)) + 1 / (2 (1 - iu))``,
  and ``E|S| = (2 b / pi) int_0^inf (1 - Re psi(u)^R) / u^2 du`` (the absolute-moment
  formula, valid for any distribution with a mean), integrated by composite
  Gauss-Legendre (4096 nodes) on ``[0, U]`` plus the exact tail ``1 / U``, where
  ``|psi|^R`` is below ``1e-20``.
- ``max(round(x + eta), 0)``: ``D = max(J, -x)`` with ``J = round(eta)`` two-sided
  geometric, an integer variable; the law of ``S`` comes from the FFT of ``D``'s pmf raised
  to the power ``R`` on a window of 40 standard deviations of ``S`` around its mean.

Both neglect only the Laplace tail beyond 40 ``b`` (mass ``e^{-40} / 2``, about 2e-18):
counts above ``40 b`` are treated as unprojected. The tables are computed once per
``(epsilon, R)`` for every count up to ``40 b`` and cached.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import numpy.typing as npt

from dadp_lite._types import FloatArray
from dadp_lite._validate import check_counts, check_epsilon, check_positive_int

__all__ = ["MIN_REPS_PLAIN", "projected_laplace_mean_abs_error"]

#: Laplace tail neglected: beyond this many scales (mass e^-40 / 2).
TAIL_SCALES = 40.0
#: Fewest releases for the plain reading: the atom of an empty cell (probability 1/2 per
#: release) leaves a part of psi^R that never decays, of size 2^-R; from 67 releases it is
#: below 1e-20 and the integral can stop.
MIN_REPS_PLAIN = 67
_PANELS, _PANEL_NODES = 128, 32  # composite Gauss-Legendre: 4096 nodes on [0, U]
_SMALL_POWER = 1e-20  # |psi(u)|^R below this counts as 0 for u >= U


def _largest_projected(b: float) -> int:
    """Counts above this are never projected, up to the neglected tail."""
    return int(math.ceil(TAIL_SCALES * b))


def _psi(u: FloatArray, y: FloatArray) -> npt.NDArray[np.complex128]:
    """Characteristic function of ``max(eta, -x) / b`` at ``u`` (rows: ``y = x / b``)."""
    atom = np.exp(-y)[:, None] * np.exp(-1j * u[None, :] * y[:, None])
    psi: npt.NDArray[np.complex128] = (
        atom / 2 + (1 - atom) / (2 * (1 + 1j * u[None, :])) + 1 / (2 * (1 - 1j * u[None, :]))
    )
    return psi


@functools.lru_cache(maxsize=32)
def _continuous_table(b: float, reps: int) -> FloatArray:
    """``E|S| / R`` for ``x = 0 .. 40 b`` (plain projected Laplace)."""
    y = np.arange(_largest_projected(b) + 1) / b
    upper = 1.0
    while np.max(np.abs(_psi(np.array([upper]), y)) ** reps) > _SMALL_POWER:
        upper *= 2
        if upper > 1e4:  # pragma: no cover - |psi| < 1 away from 0 for every y
            raise RuntimeError("the characteristic function does not decay")  # fmt: skip
    nodes, weights = np.polynomial.legendre.leggauss(_PANEL_NODES)
    width = upper / _PANELS
    left = width * np.arange(_PANELS)
    u = (left[:, None] + width * (nodes[None, :] + 1) / 2).ravel()
    w = np.tile(width * weights / 2, _PANELS)
    power = _psi(u, y) ** reps
    integral = ((1 - power.real) / u**2) @ w + 1 / upper
    table: FloatArray = 2 * b / math.pi * integral / reps
    return table


def _laplace_cdf(z: npt.NDArray[np.floating], b: float) -> FloatArray:
    below = 0.5 * np.exp(np.minimum(z, 0) / b)
    cdf: FloatArray = np.where(z < 0, below, 1 - 0.5 * np.exp(-np.maximum(z, 0) / b))
    return cdf


@functools.lru_cache(maxsize=32)
def _rounded_table(b: float, reps: int) -> FloatArray:
    """``E|S| / R`` for ``x = 0 .. 40 b`` (projected Laplace rounded to integers)."""
    top = _largest_projected(b)
    reach = int(math.ceil(TAIL_SCALES * b))
    d = np.arange(-top, reach + 1)  # the deviations any row can take
    p_round = _laplace_cdf(d + 0.5, b) - _laplace_cdf(d - 0.5, b)  # P(round(eta) = d)
    x = np.arange(top + 1)
    pmf = np.where(d[None, :] > -x[:, None], p_round[None, :], 0.0)
    pmf[x, top - x] = _laplace_cdf(-x + 0.5, b)  # the atom at D = -x
    mean = pmf @ d
    sd = np.sqrt(np.maximum(pmf @ d.astype(float) ** 2 - mean**2, 0.0) * reps)
    half = int(math.ceil(TAIL_SCALES * sd.max())) + 1
    size = 1 << int(math.ceil(math.log2(max(2 * half + 1, d.size))))
    spectrum = np.zeros((x.size, size))
    spectrum[:, np.mod(d, size)] += pmf  # d mod size: each deviation's residue
    law = np.fft.irfft(np.fft.rfft(spectrum, axis=1) ** reps, n=size, axis=1)
    centre = np.rint(reps * mean).astype(int)
    values = centre[:, None] + np.arange(-(size // 2), size - size // 2)[None, :]  # the window
    weights = np.take_along_axis(law, np.mod(values, size), axis=1)
    table: FloatArray = np.sum(np.abs(values) * np.maximum(weights, 0.0), axis=1) / reps
    return table


def projected_laplace_mean_abs_error(
    counts: object, *, epsilon: float, reps: int, rounded: bool = False
) -> FloatArray:
    """Per cell, ``E|(1/R) sum_r release_r - x|`` for ``R = reps`` independent releases of
    ``max(x + Lap(2/eps), 0)`` (or ``max(round(x + Lap(2/eps)), 0)`` with ``rounded``),
    exactly (module docstring): the expected contribution of the cell to the empirical
    l1 bias of ``reps`` releases. The plain reading needs ``reps >=``
    :data:`MIN_REPS_PLAIN`; the rounded one takes any number."""
    x = check_counts(counts)
    b = 2.0 / check_epsilon(epsilon)
    if not isinstance(rounded, bool):
        raise TypeError(f"rounded must be a bool, got {type(rounded).__name__}")
    reps = check_positive_int(reps, "reps", minimum=1 if rounded else MIN_REPS_PLAIN)
    table = (_rounded_table if rounded else _continuous_table)(b, reps)
    per_cell: FloatArray = table[np.minimum(x, table.size - 1)]
    return per_cell
