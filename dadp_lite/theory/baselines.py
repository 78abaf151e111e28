"""Closed forms for the two baseline DP mechanisms: projected Laplace and discrete Gaussian.

Projected Laplace. For a count ``x >= 0`` and ``eta ~ Lap(b)`` (``b = 2/epsilon``),
``E[max(x + eta, 0)] - x = E[(-x - eta)^+]``. The event ``eta < -x`` has probability
``exp(-x/b) / 2`` and, given it, ``-x - eta`` is Exponential with mean ``b`` (memorylessness
of the Laplace tail), so the bias is ``(b/2) exp(-x/b)``, and
``E[(-x - eta)^{+2}] = b^2 exp(-x/b)`` gives the variance.

Discrete Gaussian. The paper states that ``N_Z(0, 4/epsilon^2)`` noise gives
``(epsilon^2/2 + epsilon sqrt(2 log(1/delta)), delta)``-DP; :func:`zcdp_delta` inverts that
conversion for any rho (the printed statement is ``rho = epsilon^2 / 2``). Tight deltas
live in :mod:`dadp_lite.theory.accounting`.

The registry's records of both (:mod:`dadp_lite.registry.baselines`) name the functions at
the end of this module, which take the histogram first and keywords after
(:mod:`dadp_lite.theory._contract`); ``project`` is the records' fixed projection onto
counts >= 0, post-processing that can only lower a delta.
"""

from __future__ import annotations

import math
from typing import overload

import numpy as np
from scipy import special

from dadp_lite._types import FloatArray, FloatOrArray
from dadp_lite._validate import check_counts, check_epsilon, check_epsilons, check_grid
from dadp_lite.definitions import discrete_gaussian_sigma, laplace_scale
from dadp_lite.histogram import Histogram, NeighbourPair
from dadp_lite.theory import accounting
from dadp_lite.theory._contract import bound, make_pair, need_cells, profile_points
from dadp_lite.theory.accounting import discrete_gaussian_pmf

__all__ = [
    "discrete_gaussian_delta_as_printed",
    "discrete_gaussian_delta_table_reading",
    "discrete_gaussian_table_sigma",
    "discrete_gaussian_vacuous_from",
    "exact_bias_discrete_gaussian",
    "exact_bias_laplace",
    "exact_delta_discrete_gaussian",
    "exact_delta_laplace",
    "pair_delta_discrete_gaussian",
    "pair_delta_laplace",
    "printed_delta_discrete_gaussian",
    "printed_delta_laplace",
    "printed_reading_discrete_gaussian",
    "reference_delta_discrete_gaussian",
    "reference_delta_laplace",
    "worst_pair_unit_shift",
    "expected_empirical_alpha",
    "laplace_alpha_as_printed",
    "projected_discrete_gaussian_bias",
    "projected_discrete_gaussian_log_mgf",
    "projected_laplace_alpha",
    "projected_laplace_bias",
    "projected_laplace_log_mgf",
    "projected_laplace_variance",
    "projected_rounded_laplace_moments",
    "zcdp_delta",
]


def _laplace_inputs(counts: object, epsilon: float) -> tuple[FloatArray, float]:
    return check_counts(counts).astype(float), 2.0 / check_epsilon(epsilon)


def projected_laplace_bias(counts: object, *, epsilon: float) -> FloatArray:
    """Per-cell bias ``E[max(x + Lap(2/eps), 0)] - x = (b/2) exp(-x/b)``, ``b = 2/eps``."""
    x, b = _laplace_inputs(counts, epsilon)
    return 0.5 * b * np.exp(-x / b)


def projected_laplace_variance(counts: object, *, epsilon: float) -> FloatArray:
    """Per-cell variance of ``max(x + Lap(b), 0)``.

    ``2b^2 - b^2 e^{-x/b} - x b e^{-x/b} - (b^2/4) e^{-2x/b}`` (``3b^2/4`` at ``x = 0``).
    """
    x, b = _laplace_inputs(counts, epsilon)
    decay = np.exp(-x / b)
    return 2 * b**2 - b**2 * decay - x * b * decay - 0.25 * b**2 * decay**2


def _log_mgf_arguments(counts: object, t: object) -> tuple[FloatArray, FloatArray]:
    """Counts as a column ``(m, 1)`` and ``t`` broadcast against it, ``(m, T)``."""
    x = check_counts(counts, ndim=1).astype(float)[:, None]
    t_arr = check_grid(t)
    return x, np.broadcast_to(t_arr, (x.shape[0], t_arr.shape[-1]))


def projected_laplace_log_mgf(counts: object, t: object, *, epsilon: float) -> FloatArray:
    """``log E[exp(t max(x + eta, 0))]``, ``eta ~ Lap(b)``, ``b = 2/eps``, for ``t < 1/b``.

    ``counts`` has shape ``(m,)``; ``t`` is a grid ``(T,)`` or one row per count
    ``(m, T)``; the result is ``(m, T)``. Splitting at ``x + eta = 0`` and integrating the
    Laplace density, ``E = e^{-x/b}/2 + (e^{tx} - e^{-x/b}) / (2(1 + bt)) +
    e^{tx} / (2(1 - bt))``; the middle term is written as
    ``e^{max(tx, -x/b)} x h(|x(t + 1/b)|) / (2b)`` with ``h(u) = (1 - e^{-u})/u`` (positive,
    no cancellation), and the sum is taken in log space.
    """
    x, t_arr = _log_mgf_arguments(counts, t)
    b = 2.0 / check_epsilon(epsilon)
    if np.any(t_arr >= 1 / b):
        raise ValueError(f"the moment generating function is infinite for t >= 1/b = {1 / b:g}")
    d = np.abs(x * (t_arr + 1 / b))
    h = np.where(d > 0, -np.expm1(-d) / np.where(d > 0, d, 1.0), 1.0)
    with np.errstate(divide="ignore"):
        log_middle = np.maximum(t_arr * x, -x / b) + np.log(x * h / (2 * b))
    terms = np.stack([np.broadcast_to(math.log(0.5) - x / b, t_arr.shape), log_middle,
                      t_arr * x - np.log(2 * (1 - b * t_arr))])  # fmt: skip
    log_mgf: FloatArray = special.logsumexp(terms, axis=0)
    return log_mgf


def projected_discrete_gaussian_log_mgf(counts: object, t: object, *, sigma: float) -> FloatArray:
    """``log E[exp(t max(x + Z, 0))]``, ``Z ~ N_Z(0, sigma^2)``; shapes as in
    :func:`projected_laplace_log_mgf`.

    Summed over the pmf of :func:`dadp_lite.theory.accounting.discrete_gaussian_pmf`. The
    mass it leaves out (below ``exp(-72)``, beyond ``12 sigma``) changes the result by less
    than ``exp(12 sigma t - 72)`` relative for ``t > 0`` (negligible for ``t sigma <= 1``;
    larger ``t`` raises ``ValueError``) and by less than ``exp(-72)`` for ``t <= 0``, where
    ``exp(t max(x + Z, 0)) <= 1``.
    """
    x, t_arr = _log_mgf_arguments(counts, t)
    sigma = check_epsilon(sigma, "sigma")
    if np.any(t_arr * sigma > 1):
        raise ValueError("t sigma must be at most 1 (the pmf's truncation would matter)")
    support, pmf = discrete_gaussian_pmf(sigma)
    values, inverse = np.unique(x[:, 0], return_inverse=True)
    released = np.maximum(values[:, None] + support[None, :], 0.0)  # (u, S)
    log_pmf = np.log(pmf)[None, :]
    out = np.empty(t_arr.shape)
    done: dict[tuple[int, bytes], np.ndarray] = {}  # cells of one count and one t row
    for i, row in enumerate(inverse.ravel()):
        key = (int(row), t_arr[i].tobytes())
        if key not in done:
            done[key] = special.logsumexp(log_pmf + t_arr[i][:, None] * released[row], axis=1)
        out[i] = done[key]
    return out


def projected_rounded_laplace_moments(
    counts: object, *, epsilon: float
) -> tuple[FloatArray, FloatArray]:
    """Per-cell bias and variance of ``max(round(x + Lap(b)), 0)``, ``b = 2/eps``, integer x.

    ``J = round(eta)`` is two-sided geometric: ``P(J = j) = (e^{-(|j|-1/2)/b} -
    e^{-(|j|+1/2)/b}) / 2`` for ``j != 0``, so with ``q = e^{-1/b}``,
    ``Var J = (e^{-1/(2b)} - e^{-3/(2b)}) (1 + q) / (1 - q)^3``. The release is
    ``x + J + U`` with ``U = (-x - J)^+`` and ``P(U >= m) = e^{-(x + m - 1/2)/b} / 2``
    (m >= 1), so ``E U = e^{-(x+1/2)/b} / (2(1 - q))`` (the bias) and
    ``E U^2 = e^{-(x+1/2)/b} (1 + q) / (2(1 - q)^2)``. Where ``U > 0``, ``J = -x - U``,
    hence ``Cov(J, U) = -x E U - E U^2`` and
    ``Var = Var J - E U^2 - (E U)^2 - 2 x E U``.
    """
    x, b = _laplace_inputs(counts, epsilon)
    one_minus_q = -np.expm1(-1.0 / b)
    q = 1.0 - one_minus_q
    tail = np.exp(-(x + 0.5) / b)
    mean_u = tail / (2 * one_minus_q)
    second_u = tail * (1 + q) / (2 * one_minus_q**2)
    var_j = (math.exp(-0.5 / b) - math.exp(-1.5 / b)) * (1 + q) / one_minus_q**3
    return mean_u, var_j - second_u - mean_u**2 - 2 * x * mean_u


def projected_laplace_alpha(counts: object, *, epsilon: float) -> float:
    """True alpha of projected Laplace: ``(b/2)(exp(-x_min/b) - exp(-x_max/b))``.

    (Unprojected Laplace is unbiased, so its alpha is 0.)
    """
    bias = projected_laplace_bias(counts, epsilon=epsilon)
    return float(bias.max() - bias.min())


def laplace_alpha_as_printed(counts: object, *, epsilon: float) -> float:
    """The paper's alpha_Lap bound: ``exp(-eps x_1 / 2) / 2 * (x_n - x_1)``.

    ``x_1`` and ``x_n`` are the smallest and largest counts (the paper sorts the histogram).
    """
    x, _ = _laplace_inputs(counts, epsilon)
    eps = check_epsilon(epsilon)
    return float(0.5 * math.exp(-eps * x.min() / 2) * (x.max() - x.min()))


def expected_empirical_alpha(bias: object, se: object, *, grid: int = 4001) -> float:
    """``E[max_i B_i - min_i B_i]`` for independent ``B_i ~ N(bias_i, se_i^2)``.

    The expected empirical alpha of a Monte Carlo run whose per-cell mean biases have
    standard errors ``se`` (normal approximation, exact integral on a grid):
    ``E[max] = int (1 - prod_i Phi((t - bias_i)/se_i)) dt`` over ``t >= lo`` plus ``lo``,
    and the same for the minimum by symmetry.
    """
    mean = np.asarray(bias, dtype=float).ravel()
    sd = np.broadcast_to(np.asarray(se, dtype=float), mean.shape).ravel()
    if mean.size == 0 or np.any(~np.isfinite(sd)) or np.any(sd < 0):
        raise ValueError("bias must be non-empty and se finite and >= 0")
    spread = 9 * sd.max() + 1e-12
    lo, hi = mean.min() - spread, mean.max() + spread
    t = np.linspace(lo, hi, grid)
    safe = np.where(sd > 0, sd, 1.0)
    z = (t[:, None] - mean[None, :]) / safe[None, :]
    log_cdf = np.where(sd > 0, special.log_ndtr(z), np.where(z >= 0, 0.0, -np.inf))
    log_sf = np.where(sd > 0, special.log_ndtr(-z), np.where(z < 0, 0.0, -np.inf))
    cdf_max = np.exp(log_cdf.sum(axis=1))  # P(max <= t)
    sf_min = np.exp(log_sf.sum(axis=1))  # P(min > t)
    e_max = lo + np.trapezoid(1 - cdf_max, t)
    e_min = lo + np.trapezoid(sf_min, t)
    return float(e_max - e_min)


@overload
def zcdp_delta(epsilon: float, *, rho: float) -> float: ...
@overload
def zcdp_delta(epsilon: object, *, rho: object) -> FloatOrArray: ...
def zcdp_delta(epsilon: object, *, rho: object) -> FloatOrArray:
    """delta solving ``epsilon = rho + 2 sqrt(rho log(1/delta))`` (1 where ``epsilon <= rho``).

    ``rho`` may be an array broadcasting against ``epsilon``. This is the rho-zCDP ->
    (epsilon, delta) conversion of Canonne, Kamath and Steinke (2020);
    the paper's statement is this with ``rho = epsilon^2 / 2`` (see
    :func:`discrete_gaussian_delta_as_printed`).
    """
    rho_values: FloatArray = np.asarray(rho, dtype=float)
    if not np.all(np.isfinite(rho_values)) or np.any(rho_values <= 0):
        raise ValueError(f"rho must be finite and > 0, got {rho!r}")
    return _conversion(check_epsilons(epsilon, allow_zero=True), rho_values)


def _conversion(eps: FloatArray, rho: FloatOrArray) -> FloatOrArray:
    gap = np.maximum(eps - rho, 0.0)
    delta: FloatArray = np.where(eps > rho, np.exp(-(gap**2) / (4 * rho)), 1.0)
    return float(delta) if np.ndim(delta) == 0 else delta


@overload
def discrete_gaussian_delta_as_printed(
    epsilon: float, *, noise_epsilon: float | None = None
) -> float: ...
@overload
def discrete_gaussian_delta_as_printed(
    epsilon: object, *, noise_epsilon: object | None = None
) -> FloatOrArray: ...
def discrete_gaussian_delta_as_printed(
    epsilon: object, *, noise_epsilon: object | None = None
) -> FloatOrArray:
    """The paper's statement solved for delta: ``eps = e^2/2 + e sqrt(2 log(1/delta))``.

    ``e`` is the epsilon of the noise ``N_Z(0, 4/e^2)`` (``noise_epsilon``; defaults to the
    target ``epsilon``, as the paper's tables pair them). Vacuous (1) where
    ``epsilon <= e^2 / 2``.
    """
    eps = check_epsilons(epsilon, allow_zero=True)
    noise = eps if noise_epsilon is None else check_epsilons(noise_epsilon, allow_zero=True)
    if np.any(noise <= 0):
        raise ValueError(f"noise_epsilon must be > 0, got {noise_epsilon!r}")
    return _conversion(eps, 0.5 * noise**2)


def discrete_gaussian_vacuous_from(gap: float) -> float:
    """The smallest epsilon from which the printed statement's delta leaves ``1 - delta``
    below ``gap`` (the noise tied to the same epsilon, as in the paper's tables).

    With ``rho = eps^2 / 2`` the conversion gives ``delta = exp(-(1 - eps/2)^2 / 2)`` for
    ``eps < 2``, rising to 1 at ``eps = 2`` (and 1 beyond: no guarantee at all). So
    ``1 - delta < gap`` exactly for ``eps > 2 - 2 sqrt(-2 log(1 - gap))`` (0 when that is
    negative). ``gap`` must lie in (0, 1).
    """
    if isinstance(gap, bool) or not isinstance(gap, int | float | np.floating):
        raise TypeError(f"gap must be a real number, got {type(gap).__name__}")
    if not 0 < gap < 1:
        raise ValueError(f"gap must lie in (0, 1), got {gap!r}")
    return max(0.0, 2.0 - 2.0 * math.sqrt(-2.0 * math.log1p(-gap)))


@overload
def discrete_gaussian_delta_table_reading(epsilon: float) -> float: ...
@overload
def discrete_gaussian_delta_table_reading(epsilon: object) -> FloatOrArray: ...
def discrete_gaussian_delta_table_reading(epsilon: object) -> FloatOrArray:
    """The reading that reproduces the discrete Gaussian delta column of Tables 1-3: the
    zCDP conversion with ``rho = epsilon / 10``.

    Gaussian noise of variance ``20 / epsilon`` on a query of l2 sensitivity 2 is
    ``rho``-zCDP with ``rho = 2^2 / (2 * 20 / epsilon) = epsilon / 10``. The text states
    ``N_Z(0, 4 / epsilon^2)`` instead (:func:`discrete_gaussian_delta_as_printed`).
    """
    eps = check_epsilons(epsilon)
    return zcdp_delta(eps, rho=eps / 10)


@overload
def discrete_gaussian_table_sigma(epsilon: float) -> float: ...
@overload
def discrete_gaussian_table_sigma(epsilon: object) -> FloatOrArray: ...
def discrete_gaussian_table_sigma(epsilon: object) -> FloatOrArray:
    """The noise scale that the printed discrete Gaussian delta column implies:
    ``sigma = sqrt(20 / epsilon)`` (variance ``20 / epsilon``, the reading of
    :func:`discrete_gaussian_delta_table_reading`), against the text's ``2 / epsilon``."""
    eps = check_epsilons(epsilon)
    return np.sqrt(20 / eps) if np.ndim(eps) else float(np.sqrt(20 / eps))


def projected_discrete_gaussian_bias(counts: object, *, sigma: float) -> FloatArray:
    """Per-cell bias ``E[max(x + Z, 0)] - x = sum_{z < -x} (-x - z) P(Z = z)``, Z ~ N_Z(0, s^2).

    Summed over the pmf of :func:`dadp_lite.theory.accounting.discrete_gaussian_pmf`
    (mass beyond its support is below 1e-31).
    """
    x = check_counts(counts)
    support, pmf = discrete_gaussian_pmf(sigma)
    values, inverse = np.unique(x, return_inverse=True)
    shortfall = np.maximum(-values[:, None] - support[None, :], 0)
    bias: FloatArray = (shortfall * pmf[None, :]).sum(axis=1)[inverse]
    return bias


# ------------------------------------------------- the registry's answers (histogram first)


def _shift_adjacency(x: Histogram, x_prime: Histogram) -> str:
    """``add_remove`` for a unit change of one cell, ``replace`` for +1/-1 in two cells."""
    d = x_prime.counts - x.counts
    changed = d[d != 0]
    if changed.size == 1 and abs(changed[0]) == 1:
        return "add_remove"
    if changed.size == 2 and sorted(changed) == [-1, 1]:
        return "replace"
    raise ValueError("x and x_prime are not neighbours (one cell +-1, or one record moved)")


def worst_pair_unit_shift(
    histogram: Histogram, *, epsilon: float | None = None, project: bool = True
) -> NeighbourPair:
    """The worst pair of additive noise per cell (Laplace, discrete Gaussian): one record
    moves between two cells at the bound."""
    need_cells(histogram, 2)
    b = bound(histogram)
    reason = (
        "every replace-one pair has the same exact delta; counts at the bound keep the "
        "projection onto counts >= 0 (post-processing) out of the way"
    )
    return make_pair(histogram, {0: b, 1: b - 1}, {0: b - 1, 1: b}, "replace", reason)


def exact_bias_laplace(histogram: Histogram, *, epsilon: float, project: bool = True) -> FloatArray:
    """Per-cell bias of the Laplace release: :func:`projected_laplace_bias`, 0 unprojected."""
    if not project:
        return np.zeros(histogram.n_cells)
    return projected_laplace_bias(histogram.counts, epsilon=epsilon)


def exact_delta_laplace(
    histogram: Histogram, *, epsilon: float, adjacency: str, project: bool = True
) -> float:
    """Laplace's delta at its own epsilon (``dp_accounting`` PLD of two unit shifts)."""
    scale = laplace_scale(epsilon)
    return float(accounting.laplace_histogram_delta(epsilon, scale=scale, adjacency=adjacency))


def reference_delta_laplace(
    histogram: Histogram, *, epsilon: float, adjacency: str, project: bool = True
) -> float:
    """:func:`exact_delta_laplace` by the closed form."""
    scale = laplace_scale(epsilon)
    return float(accounting.laplace_delta_closed_form(epsilon, scale=scale, adjacency=adjacency))


def printed_delta_laplace(histogram: Histogram, *, epsilon: float, project: bool = True) -> float:
    """The paper states (epsilon, 0)-DP."""
    return 0.0


def pair_delta_laplace(
    x: Histogram,
    x_prime: Histogram,
    *,
    epsilon: float,
    at: object = None,
    project: bool = True,
) -> FloatOrArray:
    """Closed form for unprojected Laplace (projection can only lower it)."""
    adjacency = _shift_adjacency(x, x_prime)
    scale = laplace_scale(epsilon)
    where = profile_points(epsilon, at)
    value: FloatOrArray = accounting.laplace_delta_closed_form(
        where, scale=scale, adjacency=adjacency
    )
    return value


def exact_bias_discrete_gaussian(
    histogram: Histogram, *, epsilon: float, project: bool = True
) -> FloatArray:
    """Per-cell bias: :func:`projected_discrete_gaussian_bias`, 0 unprojected."""
    if not project:
        return np.zeros(histogram.n_cells)
    sigma = discrete_gaussian_sigma(epsilon)
    return projected_discrete_gaussian_bias(histogram.counts, sigma=sigma)


def exact_delta_discrete_gaussian(
    histogram: Histogram, *, epsilon: float, adjacency: str, project: bool = True
) -> float:
    """The discrete Gaussian's delta at its own epsilon (``dp_accounting`` PLD)."""
    sigma = discrete_gaussian_sigma(epsilon)
    value = accounting.discrete_gaussian_histogram_delta(epsilon, sigma=sigma, adjacency=adjacency)
    return float(value)


def reference_delta_discrete_gaussian(
    histogram: Histogram, *, epsilon: float, adjacency: str, project: bool = True
) -> float:
    """:func:`exact_delta_discrete_gaussian` by enumerating the two output laws."""
    sigma = discrete_gaussian_sigma(epsilon)
    return float(
        accounting.discrete_gaussian_delta_enumerated(epsilon, sigma=sigma, adjacency=adjacency)
    )


def printed_delta_discrete_gaussian(
    histogram: Histogram, *, epsilon: float, project: bool = True
) -> float:
    """:func:`discrete_gaussian_delta_as_printed`."""
    return float(discrete_gaussian_delta_as_printed(epsilon))


def printed_reading_discrete_gaussian(
    histogram: Histogram, *, epsilon: float, project: bool = True
) -> float:
    """:func:`discrete_gaussian_delta_table_reading`."""
    return float(discrete_gaussian_delta_table_reading(epsilon))


def pair_delta_discrete_gaussian(
    x: Histogram,
    x_prime: Histogram,
    *,
    epsilon: float,
    at: object = None,
    project: bool = True,
) -> FloatOrArray:
    """Exact enumeration for the unprojected discrete Gaussian (projection can only lower
    it)."""
    adjacency = _shift_adjacency(x, x_prime)
    sigma = discrete_gaussian_sigma(epsilon)
    values = profile_points(epsilon, at)
    out = [
        accounting.discrete_gaussian_delta_enumerated(v, sigma=sigma, adjacency=adjacency)
        for v in values.ravel()
    ]
    return float(out[0]) if values.ndim == 0 else np.asarray(out).reshape(values.shape)
