"""Tight (epsilon, delta) curves for noisy histograms and k-ary randomized response.

The histogram mechanisms add independent noise to every cell. What one person can change:

``"add_remove"``
    one cell changes by 1, so the two output distributions differ by one unit shift of one
    noise coordinate;
``"replace"`` (and ``"qi_replace"``, identical for cell-wise noise)
    one cell gains 1 and another loses 1, so the outputs differ by two unit shifts in two
    different coordinates: the 2-fold composition of a unit shift.

Every ``*_histogram_delta`` returns the smallest delta at the given epsilon, the largest
hockey-stick divergence over both orders of the neighbouring pair. The primary numbers come
from Google's ``dp_accounting`` (privacy loss distributions, PLDs):

- a single shift uses the analytic ``get_delta_for_epsilon`` of the mechanism's privacy loss
  (exact up to rounding);
- a composition (``"replace"`` for Laplace and discrete Gaussian) and randomized response use
  a pessimistic PLD with discretisation interval ``VALUE_DISCRETIZATION_INTERVAL`` = h.
  Such a PLD never underestimates delta and overestimates it by at most ``k h`` for a k-fold
  composition (the loss is rounded up by at most h per factor, and the privacy curve has
  slope at most 1 in epsilon); see :func:`pld_error_bound`.

Independent cross-checks: closed forms (``*_closed_form``), exact enumeration of the
truncated discrete Gaussian (:func:`discrete_gaussian_output_pair` with
:func:`dadp_lite.theory.privacy.exact_delta`), and certified lower/upper bounds from binning
the continuous outputs (:func:`binned_privacy_bounds`).
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple, overload

import numpy as np
import numpy.typing as npt
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from dp_accounting.pld import privacy_loss_mechanism as plm
from scipy import special, stats

from dadp_lite._types import FloatArray, FloatOrArray, IntArray
from dadp_lite._validate import check_epsilon, check_epsilons, check_positive_int, check_probability
from dadp_lite.definitions import ADJACENCIES
from dadp_lite.theory.privacy import exact_delta

__all__ = [
    "VALUE_DISCRETIZATION_INTERVAL",
    "BinnedBounds",
    "binned_privacy_bounds",
    "discrete_gaussian_delta_enumerated",
    "discrete_gaussian_histogram_delta",
    "discrete_gaussian_output_pair",
    "discrete_gaussian_pmf",
    "gaussian_delta_closed_form",
    "gaussian_histogram_delta",
    "laplace_delta_closed_form",
    "laplace_histogram_delta",
    "n_unit_shifts",
    "pld_error_bound",
    "randomized_response_delta",
    "randomized_response_delta_closed_form",
    "randomized_response_distributions",
]

#: Discretisation interval of dp_accounting's privacy loss distributions (its error bound
#: grows with it).
VALUE_DISCRETIZATION_INTERVAL = 1e-4
_MAX_GRID_CELLS = 4_000_000
#: Largest sigma whose exact delta :func:`discrete_gaussian_delta_enumerated` computes: the
#: privacy-loss sum holds about 50 sigma terms (10^7 floats at this sigma, under 1 GiB in
#: all); beyond it the sum would not fit in memory.
ENUMERABLE_SIGMA_MAX = 200_000.0


def n_unit_shifts(adjacency: str) -> int:
    """Number of cells that change by one between neighbours (1 add/remove, 2 replace)."""
    if adjacency not in ADJACENCIES:
        raise ValueError(f"adjacency must be one of {ADJACENCIES}, got {adjacency!r}")
    return 1 if adjacency == "add_remove" else 2


def pld_error_bound(adjacency: str) -> float:
    """Largest overestimate of delta by the pessimistic PLD used for ``adjacency``.

    ``k h`` for a k-fold composition with discretisation interval h, plus 1e-14 for the
    tail mass that ``dp_accounting`` truncates pessimistically. A single shift of Laplace or
    (discrete) Gaussian noise is computed analytically; the bound still holds there.
    """
    return n_unit_shifts(adjacency) * VALUE_DISCRETIZATION_INTERVAL + 1e-14


def _shaped(eps: FloatArray, values: npt.ArrayLike) -> FloatOrArray:
    """``values`` clipped to [0, 1], as a float (0-d ``eps``) or in ``eps``'s shape."""
    clipped: FloatArray = np.clip(np.asarray(values, dtype=float).reshape(eps.shape), 0.0, 1.0)
    return float(clipped) if eps.ndim == 0 else clipped


@functools.lru_cache(maxsize=64)
def _composed_pld(kind: str, parameter: float, times: int) -> pld_lib.PrivacyLossDistribution:
    h = VALUE_DISCRETIZATION_INTERVAL
    if kind == "laplace":
        single = pld_lib.from_laplace_mechanism(parameter, value_discretization_interval=h)
    elif kind == "discrete_gaussian":
        single = pld_lib.from_discrete_gaussian_mechanism(
            parameter, value_discretization_interval=h
        )
    else:  # pragma: no cover - internal
        raise ValueError(kind)
    return single if times == 1 else single.self_compose(times)


@overload
def laplace_histogram_delta(epsilon: float, *, scale: float, adjacency: str) -> float: ...
@overload
def laplace_histogram_delta(epsilon: object, *, scale: float, adjacency: str) -> FloatOrArray: ...
def laplace_histogram_delta(epsilon: object, *, scale: float, adjacency: str) -> FloatOrArray:
    """Tight delta of the Laplace histogram mechanism ``x + Lap(scale)`` per cell.

    ``"add_remove"``: analytic (``dp_accounting`` LaplacePrivacyLoss); ``"replace"``: PLD
    of two composed unit shifts (overestimates by at most :func:`pld_error_bound`).
    """
    eps = check_epsilons(epsilon, allow_zero=True)
    scale = check_epsilon(scale, "scale")
    shifts = n_unit_shifts(adjacency)
    if shifts == 1:
        values = plm.LaplacePrivacyLoss(scale).get_delta_for_epsilon(eps.ravel())
    else:
        values = _composed_pld("laplace", scale, 2).get_delta_for_epsilon(eps.ravel())
    return _shaped(eps, values)


@overload
def gaussian_histogram_delta(epsilon: float, *, sigma: float, adjacency: str) -> float: ...
@overload
def gaussian_histogram_delta(epsilon: object, *, sigma: float, adjacency: str) -> FloatOrArray: ...
def gaussian_histogram_delta(epsilon: object, *, sigma: float, adjacency: str) -> FloatOrArray:
    """Tight delta of the Gaussian histogram mechanism ``x + N(0, sigma^2)`` per cell.

    Two unit shifts in different coordinates are one shift of Euclidean length sqrt(2), so
    both adjacencies use ``dp_accounting``'s analytic GaussianPrivacyLoss.
    """
    eps = check_epsilons(epsilon, allow_zero=True)
    sigma = check_epsilon(sigma, "sigma")
    sensitivity = math.sqrt(n_unit_shifts(adjacency))
    loss = plm.GaussianPrivacyLoss(sigma, sensitivity=sensitivity)
    return _shaped(eps, loss.get_delta_for_epsilon(eps.ravel()))


@overload
def discrete_gaussian_histogram_delta(epsilon: float, *, sigma: float, adjacency: str) -> float: ...
@overload
def discrete_gaussian_histogram_delta(
    epsilon: object, *, sigma: float, adjacency: str
) -> FloatOrArray: ...
def discrete_gaussian_histogram_delta(
    epsilon: object, *, sigma: float, adjacency: str
) -> FloatOrArray:
    """Tight delta of ``x + N_Z(0, sigma^2)`` per cell (pmf ~ exp(-z^2 / (2 sigma^2)) on Z).

    ``sigma`` is the discrete Gaussian's parameter, not its standard deviation.
    ``"add_remove"``: analytic single shift; ``"replace"``: pessimistic PLD of two shifts.
    """
    eps = check_epsilons(epsilon, allow_zero=True)
    sigma = check_epsilon(sigma, "sigma")
    if n_unit_shifts(adjacency) == 1:
        values = plm.DiscreteGaussianPrivacyLoss(sigma).get_delta_for_epsilon(eps.ravel())
    else:
        values = _composed_pld("discrete_gaussian", sigma, 2).get_delta_for_epsilon(eps.ravel())
    return _shaped(eps, values)


def _check_rr(n_outcomes: object, keep_probability: object) -> tuple[int, float]:
    n = check_positive_int(n_outcomes, "n_outcomes", minimum=2)
    keep = check_probability(keep_probability, "keep_probability")
    return n, keep


@overload
def randomized_response_delta(
    epsilon: float, *, n_outcomes: int, keep_probability: float
) -> float: ...
@overload
def randomized_response_delta(
    epsilon: object, *, n_outcomes: int, keep_probability: float
) -> FloatOrArray: ...
def randomized_response_delta(
    epsilon: object, *, n_outcomes: int, keep_probability: float
) -> FloatOrArray:
    """Tight delta of k-ary randomized response (replace-the-value adjacency, one record).

    The true value is kept with probability ``keep_probability``, otherwise one of the other
    ``n_outcomes - 1`` values is reported uniformly. For ``1/n < keep < 1`` this uses
    ``dp_accounting.pld.from_randomized_response`` (pessimistic PLD, overestimate at most
    h); outside that range (which dp_accounting does not model) the exact closed form.
    """
    eps = check_epsilons(epsilon, allow_zero=True)
    n, keep = _check_rr(n_outcomes, keep_probability)
    # dp_accounting's noise parameter: probability of reporting a uniform value over all n.
    noise = n * (1.0 - keep) / (n - 1)
    if not 0.0 < noise < 1.0:
        return randomized_response_delta_closed_form(eps, n_outcomes=n, keep_probability=keep)
    pld = _rr_pld(n, noise)
    return _shaped(eps, pld.get_delta_for_epsilon(eps.ravel()))


@functools.lru_cache(maxsize=64)
def _rr_pld(n: int, noise: float) -> pld_lib.PrivacyLossDistribution:
    return pld_lib.from_randomized_response(
        noise, n, value_discretization_interval=VALUE_DISCRETIZATION_INTERVAL
    )


# ---------------------------------------------------------------- closed forms


@overload
def laplace_delta_closed_form(epsilon: float, *, scale: float, adjacency: str) -> float: ...
@overload
def laplace_delta_closed_form(epsilon: object, *, scale: float, adjacency: str) -> FloatOrArray: ...
def laplace_delta_closed_form(epsilon: object, *, scale: float, adjacency: str) -> FloatOrArray:
    """Exact delta of the Laplace histogram mechanism, by hand (c = 1 / scale).

    One shift: ``1 - exp((eps - c) / 2)`` for eps < c, else 0. Two shifts (replace):
    ``1 - exp(-u/2) (1 + u/4)`` with ``u = 2c - eps`` for eps < 2c, else 0.
    """
    eps = check_epsilons(epsilon, allow_zero=True)
    c = 1.0 / check_epsilon(scale, "scale")
    if n_unit_shifts(adjacency) == 1:
        values = np.where(eps < c, -np.expm1((eps - c) / 2.0), 0.0)
    else:
        u = np.maximum(2.0 * c - eps, 0.0)
        values = np.where(eps < 2 * c, -np.expm1(-u / 2.0) - u / 4.0 * np.exp(-u / 2.0), 0.0)
    return _shaped(eps, values)


@overload
def gaussian_delta_closed_form(epsilon: float, *, sigma: float, adjacency: str) -> float: ...
@overload
def gaussian_delta_closed_form(
    epsilon: object, *, sigma: float, adjacency: str
) -> FloatOrArray: ...
def gaussian_delta_closed_form(epsilon: object, *, sigma: float, adjacency: str) -> FloatOrArray:
    """Balle-Wang analytic delta: ``Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D)``.

    D = 1 (add/remove) or sqrt(2) (replace) is the Euclidean length of the shift.
    """
    eps = check_epsilons(epsilon, allow_zero=True)
    sigma = check_epsilon(sigma, "sigma")
    shift = math.sqrt(n_unit_shifts(adjacency))
    a = shift / (2 * sigma) - eps * sigma / shift
    b = -shift / (2 * sigma) - eps * sigma / shift
    values = special.ndtr(a) - np.exp(eps + special.log_ndtr(b))
    return _shaped(eps, values)


def randomized_response_distributions(
    n_outcomes: int, keep_probability: float
) -> tuple[FloatArray, FloatArray]:
    """Output pmfs of k-ary randomized response on true values 0 and 1 (neighbours)."""
    n, keep = _check_rr(n_outcomes, keep_probability)
    other = (1.0 - keep) / (n - 1)
    p = np.full(n, other)
    q = np.full(n, other)
    p[0], q[1] = keep, keep
    return p, q


@overload
def randomized_response_delta_closed_form(
    epsilon: float, *, n_outcomes: int, keep_probability: float
) -> float: ...
@overload
def randomized_response_delta_closed_form(
    epsilon: object, *, n_outcomes: int, keep_probability: float
) -> FloatOrArray: ...
def randomized_response_delta_closed_form(
    epsilon: object, *, n_outcomes: int, keep_probability: float
) -> FloatOrArray:
    """Exact delta of k-ary RR: ``max(0, a - e^eps b, b - e^eps a)``, a = keep, b = (1-a)/(n-1)."""
    eps = check_epsilons(epsilon, allow_zero=True)
    n, keep = _check_rr(n_outcomes, keep_probability)
    other = (1.0 - keep) / (n - 1)
    with np.errstate(over="ignore"):
        scale = np.exp(eps)
    forward = keep - scale * other if other > 0 else np.full(eps.shape, keep)
    values = np.maximum.reduce([np.zeros(eps.shape), forward, other - scale * keep])
    return _shaped(eps, values)


# ---------------------------------------------------------------- exact enumeration


def discrete_gaussian_pmf(sigma: float, bound: int | None = None) -> tuple[IntArray, FloatArray]:
    """Support ``-bound..bound`` and pmf of N_Z(0, sigma^2) truncated there and renormalised.

    The default bound ``ceil(12 sigma) + 1`` leaves out mass below exp(-72) ~ 5e-32.
    """
    sigma = check_epsilon(sigma, "sigma")
    if bound is None:
        bound = math.ceil(12 * sigma) + 1
    bound = check_positive_int(bound, "bound")
    support = np.arange(-bound, bound + 1)
    log_weights = -0.5 * (support / sigma) ** 2
    pmf = np.exp(log_weights - special.logsumexp(log_weights))
    return support, pmf


def discrete_gaussian_output_pair(
    sigma: float, adjacency: str, bound: int | None = None
) -> tuple[FloatArray, FloatArray]:
    """Output pmfs (P, Q) of the discrete Gaussian histogram mechanism on two neighbours.

    Only the changed cells matter. ``"add_remove"``: one cell, P = N_Z(0), Q = N_Z(1) on a
    common 1-d grid. ``"replace"``: two cells, P = N_Z(0) x N_Z(0) and Q = N_Z(1) x N_Z(-1),
    flattened from the 2-d grid.
    """
    support, pmf = discrete_gaussian_pmf(sigma, bound)
    base = np.append(pmf, 0.0)  # noise at 0, on the grid -bound..bound+1
    shifted = np.insert(pmf, 0, 0.0)  # noise at +1
    if n_unit_shifts(adjacency) == 1:
        return base, shifted
    if base.size**2 > _MAX_GRID_CELLS:
        raise ValueError(f"sigma = {sigma} gives a {base.size}^2 grid; too large to enumerate")
    # second cell moves by -1: mirror image of the first cell's pair.
    p = np.outer(base, base[::-1]).ravel()
    q = np.outer(shifted, shifted[::-1]).ravel()
    return p / p.sum(), q / q.sum()


@overload
def discrete_gaussian_delta_enumerated(
    epsilon: float, *, sigma: float, adjacency: str
) -> float: ...
@overload
def discrete_gaussian_delta_enumerated(
    epsilon: object, *, sigma: float, adjacency: str
) -> FloatOrArray: ...
def discrete_gaussian_delta_enumerated(
    epsilon: object, *, sigma: float, adjacency: str
) -> FloatOrArray:
    """Exact delta of the discrete Gaussian histogram mechanism by enumerating outputs.

    ``"replace"`` with a noise scale whose 2-d grid of outputs is too large to hold
    (sigma above about 83, epsilon below about 0.024 at the book's sigma = 2/epsilon)
    enumerates the privacy loss instead (:func:`_replace_delta_by_loss`): the same sum.
    A ``sigma`` above :data:`ENUMERABLE_SIGMA_MAX` is refused (``ValueError``).
    """
    eps = check_epsilons(epsilon, allow_zero=True)
    sigma = check_epsilon(sigma, "sigma")
    if sigma > ENUMERABLE_SIGMA_MAX:
        raise ValueError(
            f"sigma = {sigma:.6g} is too large to enumerate (at most {ENUMERABLE_SIGMA_MAX:g}: "
            "the sum would not fit in memory)"
        )
    if n_unit_shifts(adjacency) == 2 and _grid_size(sigma) ** 2 > _MAX_GRID_CELLS:
        return _shaped(eps, _replace_delta_by_loss(sigma, eps.ravel()))
    p, q = discrete_gaussian_output_pair(sigma, adjacency)
    return _shaped(eps, exact_delta(p, q, eps.ravel()))


def _grid_size(sigma: float) -> int:
    """Outputs of one cell on the grid of :func:`discrete_gaussian_output_pair`."""
    return 2 * (math.ceil(12 * sigma) + 1) + 2


def _replace_delta_by_loss(sigma: float, epsilons: np.ndarray) -> np.ndarray:
    """The sum of :func:`discrete_gaussian_output_pair` ``"replace"``'s grid, by privacy loss.

    Relabelling the second cell's outputs (its mirror image) makes the pair the 2-fold
    product of one cell's pair P1 = N_Z(0), Q1 = N_Z(1) on the grid ``-bound..bound+1``.
    Where Q1 > 0 and P1 > 0 the loss ln(P1/Q1) at noise x is (1 - 2x) / (2 sigma^2), so the
    product's loss is (1 - s) / sigma^2 with s the sum of the two noises; where Q1 = 0
    (x = -bound) the output counts in full. With x and s - x in ``-bound+1..bound``,
    P(s) = exp(-s^2 / (4 sigma^2)) / Z^2 * sum_x exp(-(x - s/2)^2 / sigma^2), the inner sum
    a window of one of two fixed sequences (s even or odd), taken from prefix sums; every
    term keeps its relative accuracy, however small. delta = P(some x = -bound) +
    sum_s P(s) (1 - e^(eps - loss(s)))_+: 4 bound - 1 terms instead of (2 bound + 2)^2.
    """
    support, pmf = discrete_gaussian_pmf(sigma)
    bound = int(support[-1])
    log_z = float(special.logsumexp(-0.5 * (support / sigma) ** 2))
    lo, hi = -bound + 1, bound
    sums = np.arange(2 * lo, 2 * hi + 1)
    first = np.maximum(lo, sums - hi)  # the window of x for each s
    last = np.minimum(hi, sums - lo)
    half = sums % 2  # s odd: x - s/2 is a half-integer
    offsets = np.arange(-2 * bound, 2 * bound + 1)
    prefix = [
        np.concatenate([[0.0], np.cumsum(np.exp(-((offsets + h / 2) ** 2) / sigma**2))])
        for h in (0, 1)
    ]  # prefix[h][i]: terms of u = offsets[:i] (+ 1/2 for h = 1)
    start = first - (sums - half) // 2 + 2 * bound  # index of u = x - floor(s/2) in offsets
    stop = last - (sums - half) // 2 + 2 * bound + 1
    window = np.where(
        half == 0,
        prefix[0][stop] - prefix[0][start],
        prefix[1][stop] - prefix[1][start],
    )
    law = np.exp(-(sums**2) / (4 * sigma**2) - 2 * log_z) * window
    loss = (1.0 - sums) / sigma**2
    edge = pmf[0] * (2.0 - pmf[0])
    out = np.empty(epsilons.size)
    for j, e in enumerate(epsilons):
        out[j] = edge + float(np.sum(law * np.maximum(-np.expm1(e - loss), 0.0)))
    return out


class BinnedBounds(NamedTuple):
    """Certified bounds from binning a continuous output (each array has epsilon's shape)."""

    delta_lower: FloatOrArray
    delta_upper: FloatOrArray
    lemma_lower: FloatOrArray
    lemma_upper: FloatOrArray


def _binned_coordinate(
    noise: str, scale: float, n_bins: int
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Per-bin masses under P (noise at 0) and Q (at 1) and the range of the loss ln(p/q)."""
    if noise == "laplace":
        edges = np.concatenate([[-np.inf], np.linspace(0.0, 1.0, n_bins + 1), [np.inf]])
        dist = stats.laplace(scale=scale)

        def loss(o: FloatArray) -> FloatArray:
            return (np.abs(o - 1.0) - np.abs(o)) / scale

        clipped = np.clip(edges, 0.0, 1.0)  # loss is constant outside [0, 1]
        loss_at_edges = loss(clipped)
    elif noise == "gaussian":
        width = 10.0 * scale
        edges = np.concatenate([[-np.inf], np.linspace(-width, 1 + width, n_bins + 1), [np.inf]])
        dist = stats.norm(scale=scale)
        with np.errstate(invalid="ignore"):
            loss_at_edges = (1.0 - 2.0 * edges) / (2 * scale**2)
    else:
        raise ValueError(f"noise must be 'laplace' or 'gaussian', got {noise!r}")
    p = np.diff(dist.cdf(edges))
    q = np.diff(dist.cdf(edges - 1.0))
    # the loss decreases in o: its min on a bin is at the right edge, its max at the left.
    return p, q, loss_at_edges[1:], loss_at_edges[:-1]


def binned_privacy_bounds(
    epsilon: object, *, noise: str, scale: float, adjacency: str, n_bins: int = 400
) -> BinnedBounds:
    """Certified bounds on the exact delta and on the lemma's delta P(loss > eps).

    The real line is cut into ``n_bins`` equal bins (plus two tails); exact bin masses come
    from the CDFs. Lower bound on delta: the hockey-stick of the binned distributions (data
    processing). Upper bound: on a bin, ``q >= p exp(-max loss)``, so the bin contributes at
    most ``P(bin) (1 - exp(eps - max loss))_+``. The lemma's delta is bracketed by the mass of
    bins whose smallest (largest) loss exceeds eps. ``noise`` is ``"laplace"`` (``scale`` =
    Laplace scale) or ``"gaussian"`` (``scale`` = standard deviation). Both bounds converge
    to the exact values as ``n_bins`` grows.
    """
    eps = check_epsilons(epsilon, allow_zero=True)
    scale = check_epsilon(scale, "scale")
    n_bins = check_positive_int(n_bins, "n_bins")
    p, q, loss_min, loss_max = _binned_coordinate(noise, scale, n_bins)
    if n_unit_shifts(adjacency) == 2:
        if p.size**2 > _MAX_GRID_CELLS:
            raise ValueError(f"n_bins = {n_bins} gives too many 2-d bins")
        p, q = np.outer(p, p).ravel(), np.outer(q, q).ravel()
        loss_min = np.add.outer(loss_min, loss_min).ravel()
        loss_max = np.add.outer(loss_max, loss_max).ravel()
    out = np.zeros((4, eps.size))
    for j, e in enumerate(eps.ravel()):
        out[0, j] = np.maximum(p - np.exp(e) * q, 0.0).sum()
        out[1, j] = (p * np.maximum(-np.expm1(e - loss_max), 0.0)).sum()
        out[2, j] = p[loss_min > e].sum()
        out[3, j] = p[loss_max > e].sum()
    return BinnedBounds(*(_shaped(eps, row) for row in out))
