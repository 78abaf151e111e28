"""DP k-anonymity: the paper's privacy function d(k, beta, epsilon), exact deltas, bias.

The mechanism keeps every record independently with probability ``beta`` and then runs
k-anonymity (Mondrian) and reconstruction on the kept records. Everything after the
subsampling is post-processing, so the privacy of the whole mechanism is bounded by that
of the subsample, which as a histogram is the vector of independent Binomial(x_i, beta)
thinned counts.

Printed (Theorem "beta_dp_param" of :cite:`zhu2023privacy`)::

    d(k, beta, eps) = 1 - min_{w in [B]} ( sum_{j=0}^{nu} f(j; w, beta) )^2,
    nu = floor((1 - exp(-eps)) w),
    f(j; w, beta) = C(w, j) beta^w (1 - beta)^(w - j)        (as printed)

The printed ``f`` is not a probability mass function: it sums to
``(beta (2 - beta))^w < 1``. The binomial pmf is ``C(w, j) beta^j (1 - beta)^(w - j)``.
``k`` does not occur on the right-hand side at all.

Adjacency: ``"replace"`` (one record changes cell, as in the paper's proof) and
``"add_remove"`` (one record more or less); see :mod:`dadp_lite.theory.privacy`.

The registry's records (:mod:`dadp_lite.registry.k_anonymity`) name the functions at the
end of this module, which take the histogram first and keywords after
(:mod:`dadp_lite.theory._contract`); traditional k-anonymity's answers are there too: it
releases the number of records exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import overload

import numpy as np
import numpy.typing as npt
from scipy.special import comb, gammaln
from scipy.stats import binom

from dadp_lite._types import FloatArray, FloatOrArray
from dadp_lite._validate import check_epsilon, check_positive_int, check_probability
from dadp_lite.definitions import sampling_probability
from dadp_lite.histogram import Histogram, NeighbourPair
from dadp_lite.theory._contract import bound as _bound
from dadp_lite.theory._contract import make_pair, need_cells, profile_points, shaped_like
from dadp_lite.theory.privacy import binomial_pmf, deterministic_worst_case_delta, exact_delta

__all__ = [
    "TAIL_4_5_SIGMA",
    "compare_indicator_bias",
    "d_as_printed",
    "d_corrected",
    "d_proof_set",
    "d_sum_from_one",
    "exact_delta_dp_k_anonymity",
    "exact_delta_k_anonymity",
    "indicator_bias",
    "indicator_bias_as_printed",
    "pair_delta_dp_k_anonymity",
    "pair_delta_k_anonymity",
    "printed_delta_dp_k_anonymity",
    "printed_reading_dp_k_anonymity",
    "printed_pmf",
    "printed_pmf_total",
    "proof_set_probability",
    "reference_delta_dp_k_anonymity",
    "reference_delta_k_anonymity",
    "subsampling_delta",
    "subsampling_delta_edge_pairs",
    "subsampling_pair_delta",
    "thinned_histogram_law",
    "worst_pair_dp_k_anonymity",
    "worst_pair_k_anonymity",
]


def _nu(w: int, epsilon: float) -> int:
    """floor(w (1 - e^-eps)) = w - ceil(w e^-eps), exact: the product w (1 - e^-eps) rounds
    to w in float64 from eps of about 37.4, where the floor is still w - 1."""
    return w - math.ceil(w * math.exp(-epsilon))


def printed_pmf(w: int, beta: float) -> FloatArray:
    """The paper's f(j; w, beta) = C(w, j) beta^w (1 - beta)^(w - j), for j = 0..w."""
    w = check_positive_int(w, "w", minimum=0)
    beta = check_probability(beta, "beta")
    j = np.arange(w + 1)
    pmf: FloatArray
    if beta == 1.0:
        pmf = np.where(j == w, 1.0, 0.0)
        return pmf
    log_choose = gammaln(w + 1) - gammaln(j + 1) - gammaln(w - j + 1)
    pmf = np.exp(log_choose + w * math.log(beta) + (w - j) * math.log1p(-beta))
    return pmf


def printed_pmf_total(w: int, beta: float) -> float:
    """Closed form of ``printed_pmf(w, beta).sum()``: (beta (2 - beta))^w."""
    w = check_positive_int(w, "w", minimum=0)
    beta = check_probability(beta, "beta")
    return (beta * (2 - beta)) ** w


def _d(
    k: int,
    beta: float,
    epsilon: float,
    bound: int,
    pmf: Callable[[int, float], FloatArray],
    first: int = 0,
) -> float:
    check_positive_int(k, "k")
    beta = check_probability(beta, "beta")
    epsilon = check_epsilon(epsilon)
    bound = check_positive_int(bound, "bound")
    sums = [pmf(w, beta)[first : _nu(w, epsilon) + 1].sum() for w in range(1, bound + 1)]
    return float(1 - min(sums) ** 2)


def d_as_printed(k: int, beta: float, epsilon: float, bound: int) -> float:
    """d(k, beta, eps) exactly as printed, with the printed (non-pmf) f and w in 1..bound.

    ``k`` is validated and otherwise ignored: it does not occur in the printed formula.
    """
    return _d(k, beta, epsilon, bound, printed_pmf)


def d_corrected(k: int, beta: float, epsilon: float, bound: int) -> float:
    """d with f the Binomial(w, beta) pmf: 1 - min_w P(Bin(w, beta) <= nu_w)^2.

    ``k`` is validated and otherwise ignored.
    """
    return _d(k, beta, epsilon, bound, lambda w, b: binom.pmf(np.arange(w + 1), w, b))


def d_sum_from_one(k: int, beta: float, epsilon: float, bound: int) -> float:
    """:func:`d_corrected` with the sum over ``j`` in ``[w] = {1, ..., w}``, the set on which
    the paper defines ``f``, instead of from ``j = 0``.

    For ``w = 1`` the threshold ``nu_1 = floor(1 - e^-eps)`` is 0, so the sum is empty and
    the result is 1 at every epsilon: the printed ``d`` needs the ``j = 0`` term.
    """
    return _d(k, beta, epsilon, bound, lambda w, b: binom.pmf(np.arange(w + 1), w, b), first=1)


def proof_set_probability(x_prev: int, x_last: int, beta: float, epsilon: float) -> float:
    """``P(S)`` under the subsample of ``D`` for the proof's set ``S`` of Theorem 4.

    ``D`` has ``x_prev`` records in cell ``n - 1`` and ``x_last >= 1`` in cell ``n``; its
    neighbour moves one record from cell ``n`` to cell ``n - 1``. ``S`` asks for a kept
    count at most ``nu(x_last)`` in cell ``n`` and at most ``nu(x_prev + 1)`` in cell
    ``n - 1``: the second threshold is computed from ``x_prev + 1`` records while the
    count has ``x_prev`` trials. So ``P(S) = P(Bin(x_last) <= nu(x_last)) *
    P(Bin(x_prev) <= nu(x_prev + 1))`` (binomial pmf).
    """
    x_prev = check_positive_int(x_prev, "x_prev", minimum=0)
    x_last = check_positive_int(x_last, "x_last")
    beta = check_probability(beta, "beta")
    epsilon = check_epsilon(epsilon)
    last = binom.cdf(_nu(x_last, epsilon), x_last, beta)
    prev = binom.cdf(_nu(x_prev + 1, epsilon), x_prev, beta)
    return float(last * prev)


def d_proof_set(beta: float, epsilon: float, bound: int) -> float:
    """``1 - min P(S)`` over every neighbouring pair with counts up to ``bound``: the delta
    the proof of Theorem 4 establishes before its last step (:func:`proof_set_probability`).

    The two factors of ``P(S)`` depend on different counts, so the minimum is the product
    of ``min_{1 <= w <= bound} P(Bin(w) <= nu(w))`` and
    ``min_{0 <= v < bound} P(Bin(v) <= nu(v + 1))``. The second factor is at least the first
    at ``w = v + 1``, so this is at most :func:`d_corrected`: the proof's last ``=`` is a
    ``<=``.
    """
    beta = check_probability(beta, "beta")
    epsilon = check_epsilon(epsilon)
    bound = check_positive_int(bound, "bound")
    w = np.arange(1, bound + 1)
    nu = np.floor(-np.expm1(-epsilon) * w)
    last = binom.cdf(nu, w, beta).min()
    prev = binom.cdf(nu, w - 1, beta).min()  # v = w - 1 records, threshold nu(v + 1)
    return float(1 - last * prev)


def thinned_histogram_law(x: object, beta: float, bound: int) -> FloatArray:
    """Exact law of the Bernoulli(``beta``) subsample of histogram ``x``, as a probability
    vector over ``{0..bound}^len(x)`` (C order): independent Binomial(x_i, beta) cells.

    For the generic enumeration :func:`dadp_lite.theory.privacy.worst_case_delta`.
    """
    beta = check_probability(beta, "beta")
    bound = check_positive_int(bound, "bound")
    counts = np.asarray(x, dtype=np.int64)
    if counts.ndim != 1 or np.any(counts < 0) or np.any(counts > bound):
        raise ValueError(f"x must be a 1-d histogram with counts in 0..{bound}, got {x!r}")
    law = np.ones(1)
    for count in counts:
        law = np.multiply.outer(law, _padded(binomial_pmf(int(count), beta), bound + 1)).ravel()
    return law


#: Two histograms (the cells that differ), from and to.
_HistogramPair = tuple[tuple[int, ...], tuple[int, ...]]


def _padded(pmf: FloatArray, size: int) -> FloatArray:
    out = np.zeros(size)
    out[: pmf.size] = pmf
    return out


@overload
def subsampling_pair_delta(
    x_from: tuple[int, ...], x_to: tuple[int, ...], beta: float, epsilon: float
) -> float: ...
@overload
def subsampling_pair_delta(
    x_from: tuple[int, ...], x_to: tuple[int, ...], beta: float, epsilon: npt.ArrayLike
) -> FloatOrArray: ...
def subsampling_pair_delta(
    x_from: tuple[int, ...], x_to: tuple[int, ...], beta: float, epsilon: npt.ArrayLike
) -> FloatOrArray:
    """Exact delta (both directions) of Binomial thinning between two histograms.

    Only the cells where ``x_from`` and ``x_to`` differ are enumerated: the other cells
    have identical output laws and cancel in the hockey-stick divergence.
    """
    beta = check_probability(beta, "beta")
    a = np.asarray(x_from, dtype=np.int64)
    b = np.asarray(x_to, dtype=np.int64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("x_from and x_to must be 1-d histograms of the same length")
    differ = np.flatnonzero(a != b)
    if differ.size == 0:
        return np.zeros(np.shape(epsilon)) if np.ndim(epsilon) else 0.0
    p = np.ones(1)
    q = np.ones(1)
    for i in differ:
        size = max(a[i], b[i]) + 1
        p = np.multiply.outer(p, _padded(binomial_pmf(int(a[i]), beta), size)).ravel()
        q = np.multiply.outer(q, _padded(binomial_pmf(int(b[i]), beta), size)).ravel()
    return exact_delta(p / p.sum(), q / q.sum(), epsilon)


@overload
def subsampling_delta(beta: float, epsilon: float, bound: int, adjacency: str) -> float: ...
@overload
def subsampling_delta(
    beta: float, epsilon: npt.ArrayLike, bound: int, adjacency: str
) -> FloatOrArray: ...
def subsampling_delta(
    beta: float, epsilon: npt.ArrayLike, bound: int, adjacency: str
) -> FloatOrArray:
    """Exact worst-case delta of the Bernoulli(beta) subsample released as a histogram.

    Maximum over all neighbouring histograms with counts in 0..bound (any number of
    cells: only the one or two cells that differ matter). ``"replace"``: cells
    ``(a, b) -> (a - 1, b + 1)``; ``"add_remove"``: one cell ``x -> x + 1``.
    """
    bound = check_positive_int(bound, "bound")
    if adjacency not in ("replace", "add_remove"):
        raise ValueError(f"adjacency must be 'replace' or 'add_remove', got {adjacency!r}")
    pairs: list[_HistogramPair]
    if adjacency == "add_remove":
        pairs = [((x,), (x + 1,)) for x in range(bound)]
    else:
        pairs = [((a, b), (a - 1, b + 1)) for a in range(1, bound + 1) for b in range(bound)]
    return _largest_pair_delta(pairs, beta, epsilon)


def _largest_pair_delta(
    pairs: Sequence[_HistogramPair], beta: float, epsilon: npt.ArrayLike
) -> FloatOrArray:
    """The largest :func:`subsampling_pair_delta` over ``pairs`` (at least one), in order."""
    worst: FloatOrArray = subsampling_pair_delta(*pairs[0], beta, epsilon)
    for x_from, x_to in pairs[1:]:
        worst = np.maximum(worst, subsampling_pair_delta(x_from, x_to, beta, epsilon))
    return float(worst) if np.ndim(worst) == 0 else worst


@overload
def subsampling_delta_edge_pairs(beta: float, epsilon: float, bound: int) -> float: ...
@overload
def subsampling_delta_edge_pairs(
    beta: float, epsilon: npt.ArrayLike, bound: int
) -> FloatOrArray: ...
def subsampling_delta_edge_pairs(beta: float, epsilon: npt.ArrayLike, bound: int) -> FloatOrArray:
    """Largest exact delta over the replace pairs ``(a, b) -> (a - 1, b + 1)`` with
    ``a = 1`` or ``b = 0`` (one of the two cells of ``D`` holds at most one record of the
    pair), for every count up to ``bound``.

    These pairs are cheap (the joint law of the two cells has one side of size at most 2),
    so ``bound`` may be the largest count of a dataset; :func:`subsampling_delta` covers
    every pair but only small bounds.
    """
    bound = check_positive_int(bound, "bound")
    pairs: list[_HistogramPair] = [((1, b), (0, b + 1)) for b in range(bound)]
    pairs += [((a, 0), (a - 1, 1)) for a in range(2, bound + 1)]
    return _largest_pair_delta(pairs, beta, epsilon)


def indicator_bias_as_printed(x: object, k: int, beta: float) -> FloatArray:
    """The paper's bias theorem, summed exactly as printed.

    For x_i >= k: sum_{j = x_i - k + 1}^{x_i} C(x_i, j) beta^(x_i - j) (1 - beta)^j;
    otherwise 0. This is the bias of the indicator 1{x_i(D_beta) < k} against
    1{x_i < k}, not of a released histogram.
    """
    k = check_positive_int(k, "k")
    beta = check_probability(beta, "beta")
    x = np.asarray(x, dtype=np.int64)
    out = np.zeros(x.shape)
    for index, count in np.ndenumerate(x):
        if count >= k:
            j = np.arange(count - k + 1, count + 1)
            with np.errstate(over="ignore", invalid="ignore"):
                terms = comb(count, j) * beta ** (count - j) * (1 - beta) ** j
            if not np.all(np.isfinite(terms)):  # C(x, j) beyond floats (x in the thousands)
                terms = binom.pmf(j, count, 1 - beta)  # the same terms, from logarithms
            out[index] = float(np.sum(terms))
    return out


def indicator_bias(x: object, k: int, beta: float) -> FloatArray:
    """P(Binomial(x_i, beta) < k) - 1{x_i < k}, computed from scipy's binomial cdf."""
    k = check_positive_int(k, "k")
    beta = check_probability(beta, "beta")
    x = np.asarray(x, dtype=np.int64)
    bias: FloatArray = binom.cdf(k - 1, x, beta) - (x < k)
    return bias


#: Two-sided tail probability of a 4.5-sigma normal deviation (about 6.8e-6).
TAIL_4_5_SIGMA = math.erfc(4.5 / math.sqrt(2))


def compare_indicator_bias(indicator: object, expected: object) -> dict[str, float]:
    """Test simulated indicator differences ``(reps, n)`` against their expected bias.

    In each cell the indicator difference takes two values, so the number of repetitions
    in which it differs from ``1{x_i < k}`` is Binomial(R, b_i) under the theorem, with
    b_i the expected bias. Each cell gets the exact two-sided binomial tail probability of
    its observed count (cells with b_i = 0 must never differ). Returns ``min_p_value``
    (to be compared with ``FALSE_FAILURE / n`` over the ``n`` cells tested together: a tail
    probability is at most ``p`` with probability at most ``p``), ``max_abs_z`` (z-score with the
    theorem's standard error sqrt(b (1 - b) / R), over cells with R b (1 - b) >= 10, where
    the normal approximation is fair), ``n_tested`` and ``n_normal``.
    """
    indicator = np.asarray(indicator, dtype=float)
    expected = np.asarray(expected, dtype=float)
    reps = indicator.shape[0]
    hits = np.rint(np.abs(indicator).sum(axis=0)).astype(np.int64)
    b = np.abs(expected)
    b[(b > 1) & (b <= 1 + 1e-12)] = 1.0  # a sum of probabilities past 1 by round-off only
    lower = binom.cdf(hits, reps, b)
    upper = binom.sf(hits - 1, reps, b)
    p_value = np.minimum(1.0, 2 * np.minimum(lower, upper))
    normal = reps * b * (1 - b) >= 10
    z = (hits[normal] / reps - b[normal]) / np.sqrt(b[normal] * (1 - b[normal]) / reps)
    return {
        "min_p_value": float(p_value.min()),
        "max_abs_z": float(np.abs(z).max()) if z.size else 0.0,
        "n_tested": int(b.size),
        "n_normal": int(normal.sum()),
    }


# ------------------------------------------------- the registry's answers (histogram first)
def exact_delta_dp_k_anonymity(
    histogram: Histogram, *, epsilon: float, adjacency: str, k: int, ka_qi: Sequence[str]
) -> float:
    """beta = 1 - e^-eps for every bound >= 1 (the pair (1, 0) -> (0, 1) attains it and a
    coupling caps the total variation there); Mondrian and reconstruction are
    post-processing."""
    return float(sampling_probability(epsilon))


def reference_delta_dp_k_anonymity(
    histogram: Histogram, *, epsilon: float, adjacency: str, k: int, ka_qi: Sequence[str]
) -> float:
    """:func:`subsampling_delta` by enumeration up to the histogram's largest count."""
    beta = sampling_probability(epsilon)
    return float(subsampling_delta(beta, epsilon, _bound(histogram), adjacency))


def printed_delta_dp_k_anonymity(
    histogram: Histogram, *, epsilon: float, k: int, ka_qi: Sequence[str]
) -> float:
    """:func:`d_as_printed` with B the largest count."""
    with np.errstate(invalid="ignore", over="ignore"):  # huge binomial coefficients, w ~ B
        return d_as_printed(k, sampling_probability(epsilon), epsilon, _bound(histogram))


def printed_reading_dp_k_anonymity(
    histogram: Histogram, *, epsilon: float, k: int, ka_qi: Sequence[str]
) -> float:
    """:func:`d_corrected` with B the largest count."""
    return d_corrected(k, sampling_probability(epsilon), epsilon, _bound(histogram))


def worst_pair_dp_k_anonymity(
    histogram: Histogram, *, epsilon: float | None = None, k: int, ka_qi: Sequence[str]
) -> NeighbourPair:
    """A lone record with k = 1: released exactly when sampled."""
    need_cells(histogram, 2)
    reason = "a lone record (k = 1): released exactly when sampled (the privacy chapter)"
    return make_pair(histogram, {0: 1}, {1: 1}, "replace", reason, k=1)


def pair_delta_dp_k_anonymity(
    x: Histogram,
    x_prime: Histogram,
    *,
    epsilon: float,
    at: object = None,
    k: int,
    ka_qi: Sequence[str],
) -> FloatOrArray:
    """Exact for the Bernoulli subsample; the whole mechanism is post-processing of it, so
    this bounds the pair's delta from above, with equality for a lone record and k = 1."""
    beta = sampling_probability(epsilon)
    where = profile_points(epsilon, at)
    return subsampling_pair_delta(tuple(x.counts), tuple(x_prime.counts), beta, where)


def exact_delta_k_anonymity(
    histogram: Histogram,
    *,
    epsilon: float | None = None,
    adjacency: str,
    k: int,
    ka_qi: Sequence[str],
) -> float:
    """Traditional k-anonymity with reconstruction releases the number of records exactly:
    delta 1 under add/remove."""
    return 1.0


def reference_delta_k_anonymity(
    histogram: Histogram,
    *,
    epsilon: float | None = None,
    adjacency: str,
    k: int,
    ka_qi: Sequence[str],
) -> float:
    """k-anonymity with reconstruction releases exactly as many records as it got, so
    add/remove neighbours are told apart surely."""
    return deterministic_worst_case_delta(lambda x: x.sum(), 2, _bound(histogram), adjacency)


def worst_pair_k_anonymity(
    histogram: Histogram, *, epsilon: float | None = None, k: int, ka_qi: Sequence[str]
) -> NeighbourPair:
    """k records against k + 1: the number of records is released exactly."""
    b = _bound(histogram)
    if histogram.n_cells * b < k + 1:
        raise ValueError(f"the universe cannot hold k + 1 = {k + 1} records with counts <= {b}")
    full, rest = divmod(int(k), b)
    x_cells = {i: b for i in range(full)} | ({full: rest} if rest else {})
    y_cells = dict(x_cells)
    y_cells[full] = y_cells.get(full, 0) + 1
    reason = "k records against k + 1: the number of records is released exactly"
    return make_pair(histogram, x_cells, y_cells, "add_remove", reason)


def pair_delta_k_anonymity(
    x: Histogram,
    x_prime: Histogram,
    *,
    epsilon: float | None = None,
    at: object = None,
    k: int,
    ka_qi: Sequence[str],
) -> FloatOrArray:
    """1 if the two totals differ, else NaN (no bound known for such a pair)."""
    differ = x.total != x_prime.total
    where = profile_points(0.0 if epsilon is None else epsilon, at)
    return shaped_like(where, 1.0 if differ else np.nan)
