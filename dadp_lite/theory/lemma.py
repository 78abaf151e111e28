"""The paper's sufficient condition for (epsilon, delta)-DP (its Lemma 1), made computable.

For output distributions P = M(D) and Q = M(D') let ``S^c = {o : P(o) > e^eps Q(o)}`` (an
outcome with Q(o) = 0 < P(o) belongs to S^c). The lemma certifies ``delta = P(S^c)``. The
smallest valid delta is the hockey-stick divergence, and it is attained on the same event:

    H_eps(P || Q) = P(S^c) - e^eps Q(S^c) <= P(S^c),

so the lemma overpays by exactly ``e^eps Q(S^c)`` (:func:`lemma_gap`). Functions take
probability vectors ``p``, ``q`` of shape ``(n,)`` or a batch ``(m, n)`` (one pair per row);
``epsilon`` may be a scalar or a 1-d array, and results have shape ``batch + epsilon``.
"""

from __future__ import annotations

import math
from typing import overload

import numpy as np
import pandas as pd
from scipy import special

from dadp_lite._types import BoolArray, FloatArray, FloatOrArray
from dadp_lite._validate import (
    check_epsilon,
    check_epsilons,
    check_positive_int,
    check_probability,
    check_rng,
)
from dadp_lite.theory import accounting as acc
from dadp_lite.theory.accounting import n_unit_shifts
from dadp_lite.theory.privacy import check_distribution, exact_delta

__all__ = [
    "gaussian_lemma_delta",
    "laplace_lemma_delta",
    "lemma_delta",
    "lemma_delta_both_orders",
    "lemma_event",
    "lemma_gap",
    "lemma_masses",
    "max_event_violation",
    "privacy_curves",
    "random_distribution_pairs",
    "randomized_response_lemma_delta",
]

_MAX_EVENT_SUPPORT = 16


def _pairs(p: object, q: object) -> tuple[FloatArray, FloatArray, bool]:
    """Validate a pair (or a batch of pairs) of probability vectors; rows are pairs."""
    arrays, vectors = [], []
    for value, name in ((p, "p"), (q, "q")):
        try:
            array: FloatArray = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be an array of probabilities") from None
        vectors.append(array.ndim == 1)
        if array.ndim == 1:
            array = check_distribution(array, name)[None, :]
        elif array.ndim == 2 and array.size:
            for row in array:
                check_distribution(row, name)
            array = np.clip(array, 0.0, None)
        else:
            raise ValueError(f"{name} must be a probability vector or a 2-d batch of them")
        arrays.append(array)
    p_arr, q_arr = arrays
    if p_arr.shape != q_arr.shape:
        raise ValueError(f"p and q must have the same shape, got {p_arr.shape} and {q_arr.shape}")
    return p_arr, q_arr, vectors[0]


def _exceeds(p: FloatArray, q: FloatArray, eps: FloatArray) -> BoolArray:
    """Boolean (m, k, n): outcome o is in S^c at eps_k for pair m (overflow-safe)."""
    with np.errstate(over="ignore"):
        scale = np.exp(eps)[None, :, None]
    positive_q = q[:, None, :] > 0
    scaled = scale * np.where(positive_q, q[:, None, :], 1.0)
    exceeds: BoolArray = np.where(positive_q, p[:, None, :] > scaled, p[:, None, :] > 0)
    return exceeds


def _finish(values: FloatArray, single: bool, eps: FloatArray) -> FloatOrArray:
    values = values.reshape(values.shape[:1] + eps.shape)
    if single:
        values = values[0]
        return float(values) if values.ndim == 0 else values
    return values


def lemma_event(p: object, q: object, epsilon: float) -> BoolArray:
    """Boolean mask of ``S^c = {o : p(o) > e^eps q(o)}`` (scalar ``epsilon``)."""
    eps = check_epsilons(epsilon, allow_zero=True)
    if eps.ndim != 0:
        raise ValueError("lemma_event takes a scalar epsilon")
    p_arr, q_arr, single = _pairs(p, q)
    mask = _exceeds(p_arr, q_arr, eps.reshape(1))[:, 0, :]
    return mask[0] if single else mask


def lemma_masses(p: object, q: object, epsilon: object) -> tuple[FloatOrArray, FloatOrArray]:
    """``(P(S^c), Q(S^c))`` at each epsilon."""
    eps = check_epsilons(epsilon, allow_zero=True)
    p_arr, q_arr, single = _pairs(p, q)
    mask = _exceeds(p_arr, q_arr, eps.reshape(-1))
    p_mass = np.einsum("mkn,mn->mk", mask, p_arr)
    q_mass = np.einsum("mkn,mn->mk", mask, q_arr)
    return _finish(p_mass, single, eps), _finish(q_mass, single, eps)


def lemma_delta(p: object, q: object, epsilon: object) -> FloatOrArray:
    """The lemma's delta ``P(S^c)`` for the ordered pair (P, Q)."""
    return lemma_masses(p, q, epsilon)[0]


def lemma_delta_both_orders(p: object, q: object, epsilon: object) -> FloatOrArray:
    """The lemma applied to both orders of a neighbouring pair: ``max(P(S^c), Q(S'^c))``."""
    return np.maximum(lemma_delta(p, q, epsilon), lemma_delta(q, p, epsilon))


def lemma_gap(p: object, q: object, epsilon: object) -> FloatOrArray:
    """What the lemma overpays for (P, Q): ``e^eps Q(S^c) = lemma_delta - hockey_stick``."""
    eps = check_epsilons(epsilon, allow_zero=True)
    q_mass = lemma_masses(p, q, eps)[1]
    with np.errstate(over="ignore", invalid="ignore"):
        gap = np.where(np.asarray(q_mass) > 0, np.exp(eps) * q_mass, 0.0)
    return float(gap) if np.ndim(gap) == 0 else gap


def max_event_violation(p: object, q: object, epsilon: object) -> FloatOrArray:
    """``max over all events O of P(O) - e^eps Q(O)`` by enumerating every subset of outcomes.

    This is the definition of (eps, delta)-DP checked literally (2^n events, n <= 16), with no
    use of the hockey-stick formula. The empty event makes the result >= 0.
    """
    eps = check_epsilons(epsilon, allow_zero=True)
    p_arr, q_arr, single = _pairs(p, q)
    n = p_arr.shape[1]
    if n > _MAX_EVENT_SUPPORT:
        raise ValueError(f"support size {n} > {_MAX_EVENT_SUPPORT}: too many events to list")
    events = ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(float)
    p_events = p_arr @ events.T  # (m, 2^n)
    q_events = q_arr @ events.T
    out = np.empty((p_arr.shape[0], eps.size))
    for j, e in enumerate(eps.reshape(-1)):
        with np.errstate(over="ignore", invalid="ignore"):
            gaps = np.where(q_events > 0, p_events - np.exp(e) * q_events, p_events)
        out[:, j] = gaps.max(axis=1)
    return _finish(out, single, eps)


def random_distribution_pairs(
    n_pairs: int,
    support_size: int,
    *,
    rng: np.random.Generator,
    log_ratio_scale: float = 2.0,
    zero_probability: float = 0.1,
) -> tuple[FloatArray, FloatArray]:
    """Random pairs (P, Q) of distributions, shape ``(n_pairs, support_size)`` each.

    P is Dirichlet(1); Q reweights P by ``exp(s Z)`` with Z standard normal per outcome and a
    per-pair spread s uniform on (0, log_ratio_scale), so pairs range from almost equal to
    far apart. Each outcome of Q (and independently of P) is zeroed with probability
    ``zero_probability`` (never a whole row), which exercises outcomes only one side can emit.
    """
    n_pairs = check_positive_int(n_pairs, "n_pairs")
    support_size = check_positive_int(support_size, "support_size", minimum=2)
    log_ratio_scale = check_epsilon(log_ratio_scale, "log_ratio_scale")
    zero_probability = check_probability(zero_probability, "zero_probability", open_low=False)
    rng = check_rng(rng)
    p = rng.dirichlet(np.ones(support_size), size=n_pairs)
    spread = rng.uniform(0.0, log_ratio_scale, size=(n_pairs, 1))
    q = p * np.exp(spread * rng.standard_normal((n_pairs, support_size)))
    out = []
    for dist in (p, q):
        zeroed = np.where(rng.random(dist.shape) < zero_probability, 0.0, dist)
        empty = zeroed.sum(axis=1) == 0
        zeroed[empty] = dist[empty]
        out.append(zeroed / zeroed.sum(axis=1, keepdims=True))
    return out[0], out[1]


# ------------------------------------------------- the lemma's delta for known mechanisms


@overload
def laplace_lemma_delta(epsilon: float, *, scale: float, adjacency: str) -> float: ...
@overload
def laplace_lemma_delta(epsilon: object, *, scale: float, adjacency: str) -> FloatOrArray: ...
def laplace_lemma_delta(epsilon: object, *, scale: float, adjacency: str) -> FloatOrArray:
    """``P(loss > eps)`` for the Laplace histogram mechanism (c = 1 / scale).

    One shift: ``1 - exp(-(c - eps)/2) / 2`` for eps < c, else 0 (a jump from 1/2 to 0 at
    eps = c). Two shifts: ``1 - exp(-u/2) (3/4 + u/8)``, u = 2c - eps, for eps < 2c, else 0.
    """
    eps = check_epsilons(epsilon, allow_zero=True)
    c = 1.0 / check_epsilon(scale, "scale")
    if n_unit_shifts(adjacency) == 1:
        values = np.where(eps < c, 1.0 - 0.5 * np.exp(-(c - eps) / 2.0), 0.0)
    else:
        u = np.maximum(2.0 * c - eps, 0.0)
        values = np.where(eps < 2 * c, 1.0 - np.exp(-u / 2.0) * (0.75 + u / 8.0), 0.0)
    return float(values) if eps.ndim == 0 else values


@overload
def gaussian_lemma_delta(epsilon: float, *, sigma: float, adjacency: str) -> float: ...
@overload
def gaussian_lemma_delta(epsilon: object, *, sigma: float, adjacency: str) -> FloatOrArray: ...
def gaussian_lemma_delta(epsilon: object, *, sigma: float, adjacency: str) -> FloatOrArray:
    """``P(loss > eps) = Phi(D/(2 sigma) - eps sigma / D)``, D = 1 or sqrt(2) (replace)."""
    eps = check_epsilons(epsilon, allow_zero=True)
    sigma = check_epsilon(sigma, "sigma")
    shift = math.sqrt(n_unit_shifts(adjacency))
    values = special.ndtr(shift / (2 * sigma) - eps * sigma / shift)
    return float(values) if eps.ndim == 0 else values


@overload
def randomized_response_lemma_delta(
    epsilon: float, *, n_outcomes: int, keep_probability: float
) -> float: ...
@overload
def randomized_response_lemma_delta(
    epsilon: object, *, n_outcomes: int, keep_probability: float
) -> FloatOrArray: ...
def randomized_response_lemma_delta(
    epsilon: object, *, n_outcomes: int, keep_probability: float
) -> FloatOrArray:
    """Lemma delta of k-ary RR: ``a 1{a > e^eps b} + b 1{b > e^eps a}``, b = (1-a)/(n-1)."""
    eps = check_epsilons(epsilon, allow_zero=True)
    n = check_positive_int(n_outcomes, "n_outcomes", minimum=2)
    keep = check_probability(keep_probability, "keep_probability")
    other = (1.0 - keep) / (n - 1)
    with np.errstate(over="ignore"):
        scale = np.exp(eps)
    kept_exceeds = keep > scale * other if other > 0 else np.ones(eps.shape, dtype=bool)
    values = np.where(kept_exceeds, keep, 0.0) + np.where(other > scale * keep, other, 0.0)
    return float(values) if eps.ndim == 0 else values


def privacy_curves(
    epsilon: object,
    *,
    laplace_scale: float,
    gaussian_sigma: float,
    discrete_gaussian_sigma: float,
    rr_outcomes: int,
    rr_keep: float,
) -> pd.DataFrame:
    """Tidy table of exact delta (two ways) and the lemma's delta for four mechanisms.

    One row per mechanism, adjacency and epsilon with columns ``dp_accounting`` (the
    ``*_histogram_delta`` / ``randomized_response_delta`` value), ``independent`` (closed
    form, or enumeration for the discrete Gaussian), ``method``, ``tolerance`` (the
    dp_accounting error bound, :func:`~dadp_lite.theory.accounting.pld_error_bound`) and
    ``lemma`` (the lemma's delta, both orders). Randomized response is listed under
    adjacency ``"replace"`` (one record's value changes).
    """
    eps = np.atleast_1d(check_epsilons(epsilon, allow_zero=True)).astype(float)
    frames: list[pd.DataFrame] = []

    def add(
        mechanism: str,
        adjacency: str,
        method: str,
        tight: FloatOrArray,
        independent: FloatOrArray,
        lemma: FloatOrArray,
        tolerance: float,
    ) -> None:
        columns: dict[str, object] = {
            "mechanism": mechanism,
            "adjacency": adjacency,
            "epsilon": eps,
        }
        columns.update(dp_accounting=tight, independent=independent, method=method)
        columns.update(tolerance=tolerance, lemma=lemma)
        frames.append(pd.DataFrame(columns))

    for adj in ("add_remove", "replace"):
        tol = acc.pld_error_bound(adj)
        b = laplace_scale
        tight, closed = (
            acc.laplace_histogram_delta(eps, scale=b, adjacency=adj),
            acc.laplace_delta_closed_form(eps, scale=b, adjacency=adj),
        )
        lemma = laplace_lemma_delta(eps, scale=b, adjacency=adj)
        add("Laplace", adj, "closed form", tight, closed, lemma, tol)
        s = gaussian_sigma
        tight, closed = (
            acc.gaussian_histogram_delta(eps, sigma=s, adjacency=adj),
            acc.gaussian_delta_closed_form(eps, sigma=s, adjacency=adj),
        )
        lemma = gaussian_lemma_delta(eps, sigma=s, adjacency=adj)
        add("Gaussian", adj, "Balle-Wang", tight, closed, lemma, tol)
        s = discrete_gaussian_sigma
        p, q = acc.discrete_gaussian_output_pair(s, adj)
        tight, lemma = (
            acc.discrete_gaussian_histogram_delta(eps, sigma=s, adjacency=adj),
            lemma_delta_both_orders(p, q, eps),
        )
        add("discrete Gaussian", adj, "enumeration", tight, exact_delta(p, q, eps), lemma, tol)
    n, keep = rr_outcomes, rr_keep
    tight = acc.randomized_response_delta(eps, n_outcomes=n, keep_probability=keep)
    closed = acc.randomized_response_delta_closed_form(eps, n_outcomes=n, keep_probability=keep)
    lemma = randomized_response_lemma_delta(eps, n_outcomes=n, keep_probability=keep)
    # one record's value is replaced; dp_accounting uses a single (uncomposed) PLD: error <= h
    add(
        "randomized response",
        "replace",
        "closed form",
        tight,
        closed,
        lemma,
        acc.pld_error_bound("add_remove"),
    )
    return pd.concat(frames, ignore_index=True)
