"""What a pair of binomial counts certifies about (epsilon, delta), and what it would take.

If a mechanism M is (epsilon, delta)-DP, every event S and every neighbouring pair
(D, D') satisfy ``P(M(D) in S) <= e^epsilon P(M(D') in S) + delta``. An audit observes
how often S happens in ``n`` independent runs on each side. With one-sided Clopper-Pearson
bounds ``p_lower <= P(M(D) in S)`` and ``q_upper >= P(M(D') in S)``, both holding with
probability at least ``1 - alpha`` each, the inequality gives

* ``delta >= p_lower - e^epsilon q_upper`` at a given epsilon, and
* ``epsilon >= log((p_lower - delta) / q_upper)`` at a given delta,

with probability at least ``1 - 2 alpha``. These are lower bounds: a mechanism can be
less private than any audit shows, never more.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import overload

import numpy as np
from scipy import special

from dadp_lite._types import FloatOrArray
from dadp_lite._validate import check_positive_int, check_probability

__all__ = [
    "certified_delta",
    "certified_epsilon",
    "clopper_pearson",
    "exact_epsilon",
    "trials_to_certify",
]


@overload
def clopper_pearson(successes: float, trials: float, alpha: float) -> tuple[float, float]: ...
@overload
def clopper_pearson(
    successes: object, trials: object, alpha: float
) -> tuple[FloatOrArray, FloatOrArray]: ...
def clopper_pearson(
    successes: object, trials: object, alpha: float
) -> tuple[FloatOrArray, FloatOrArray]:
    """One-sided Clopper-Pearson bounds ``(lower, upper)`` on a binomial probability.

    Each bound holds with probability at least ``1 - alpha`` on its own:
    ``lower = Beta^-1(alpha; k, n - k + 1)`` (0 when k = 0) and
    ``upper = Beta^-1(1 - alpha; k + 1, n - k)`` (1 when k = n). Arrays broadcast.
    """
    alpha = check_probability(alpha, "alpha")
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if np.any(k < 0) or np.any(k > n) or np.any(n < 1):
        raise ValueError("successes must lie in 0..trials and trials must be >= 1")
    # Beta quantiles (scipy.special.betaincinv, the function behind scipy.stats.beta.ppf,
    # without its per-call argument handling) need positive shapes: substitute a harmless 1
    # where the bound is fixed (k = 0 or k = n) and overwrite the result there
    lower = special.betaincinv(np.where(k > 0, k, 1.0), n - k + 1, alpha)
    upper = special.betaincinv(k + 1, np.where(k < n, n - k, 1.0), 1.0 - alpha)
    lower = np.where(k > 0, lower, 0.0)
    upper = np.where(k < n, upper, 1.0)
    if lower.ndim == 0:
        return float(lower), float(upper)
    return lower, upper


@overload
def certified_delta(p_lower: float, q_upper: float, epsilon: float) -> float: ...
@overload
def certified_delta(p_lower: object, q_upper: object, epsilon: object) -> FloatOrArray: ...
def certified_delta(p_lower: object, q_upper: object, epsilon: object) -> FloatOrArray:
    """``max(p_lower - e^epsilon q_upper, 0)``: the delta an event certifies at epsilon."""
    p = np.asarray(p_lower, dtype=float)
    q = np.asarray(q_upper, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.where(q > 0, np.exp(np.asarray(epsilon, dtype=float)) * q, 0.0)
    value = np.maximum(p - scaled, 0.0)
    return float(value) if value.ndim == 0 else value


@overload
def certified_epsilon(p_lower: float, q_upper: float, delta: float) -> float: ...
@overload
def certified_epsilon(p_lower: object, q_upper: object, delta: object) -> FloatOrArray: ...
def certified_epsilon(p_lower: object, q_upper: object, delta: object) -> FloatOrArray:
    """``max(log((p_lower - delta) / q_upper), 0)``: the epsilon an event certifies at delta
    (``inf`` when ``q_upper`` is 0, which a Clopper-Pearson bound never is)."""
    p = np.asarray(p_lower, dtype=float)
    q = np.asarray(q_upper, dtype=float)
    gap = p - np.asarray(delta, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(gap > 0, np.log(np.where(gap > 0, gap, 1.0) / q), 0.0)
    value = np.maximum(value, 0.0)
    return float(value) if value.ndim == 0 else value


def _bound_at(
    p: float, q: float, n: int, alpha: float, epsilon: float | None, delta: float | None
) -> float:
    """The bound certified when the counts equal their expectations in n trials."""
    lower, _ = clopper_pearson(round(p * n), n, alpha)
    _, upper = clopper_pearson(round(q * n), n, alpha)
    if epsilon is not None:
        return certified_delta(lower, upper, epsilon)
    if delta is not None:
        return certified_epsilon(lower, upper, delta)
    raise ValueError("give exactly one of epsilon and delta")  # trials_to_certify checked


def trials_to_certify(
    p: float,
    q: float,
    *,
    target: float,
    epsilon: float | None = None,
    delta: float | None = None,
    confidence: float = 0.95,
    n_tests: int = 1,
    max_trials: int = 10**12,
) -> float:
    """Trials per side an audit needs for one event to certify more than ``target``.

    The event has probability ``p`` under the favoured dataset and ``q`` under the other.
    The audit spends half of its trials on choosing the event and certifies it on the other
    half, with Clopper-Pearson bounds at ``alpha = (1 - confidence) / (2 n_tests)`` each.
    Returns the smallest number of trials per side for which the bound computed at the
    expected counts (``round(p n)``, ``round(q n)`` in the certifying half) exceeds
    ``target``: a delta at ``epsilon`` or an epsilon at ``delta`` (give exactly one). About
    half of all audits of that size reach the target. ``math.inf`` if no number of trials
    up to ``max_trials`` does (for instance when ``p - e^epsilon q <= target``).
    """
    if (epsilon is None) == (delta is None):
        raise ValueError("give exactly one of epsilon and delta")
    p = check_probability(p, "p", open_low=False)
    q = check_probability(q, "q", open_low=False)
    confidence = check_probability(confidence, "confidence")
    n_tests = check_positive_int(n_tests, "n_tests")
    alpha = (1.0 - confidence) / (2 * n_tests)

    def enough(n: int) -> bool:
        return _bound_at(p, q, n, alpha, epsilon, delta) > target

    high = 1
    while not enough(high):
        high *= 2
        if high > max_trials // 2:
            return math.inf
    low = high // 2  # enough(low) is False (or low == 0)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return float(2 * high)


def exact_epsilon(
    profile: Callable[[float], float], delta: float, *, upper: float = 64.0, tol: float = 1e-10
) -> float:
    """Smallest epsilon with ``profile(epsilon) <= delta + tol``, by bisection.

    ``profile`` is a pair's exact delta as a function of epsilon at fixed noise (it never
    increases). ``math.inf`` if even ``profile(upper)`` exceeds ``delta + tol``.
    """
    if profile(0.0) <= delta + tol:
        return 0.0
    if profile(upper) > delta + tol:
        return math.inf
    low, high = 0.0, upper
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (low, middle) if profile(middle) <= delta + tol else (middle, high)
    return high
