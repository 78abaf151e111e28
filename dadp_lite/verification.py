"""How the chapters' checks are designed: false-failure rate and the tolerances it implies.

Every assertion in a chapter compares two independently computed numbers. When one of them
comes from simulation, the comparison is a statistical test, and the test can fail by
chance. The book's rule: **no check fails by chance with probability above**
:data:`FALSE_FAILURE` (one in a million) at any seed and any allowed parameter value.
A check that makes ``n`` comparisons at once (one per cell, per epsilon, ...) splits that
budget over them (Bonferroni), so its z-limit grows slowly with ``n``:

======  ========
n       z-limit
======  ========
1       4.89
100     5.73
10^4    6.47
======  ========

Each chapter states, next to its check, what is compared, the standard error used, the
number of comparisons and the resulting limit.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import special, stats

from dadp_lite._validate import check_positive_int, check_probability

__all__ = [
    "FALSE_FAILURE",
    "bernstein_limit",
    "binomial_limits",
    "chernoff_log_bound",
    "chernoff_log_limit",
    "t_limit",
    "z_limit",
]

#: Largest probability that a correct chapter fails one of its checks by chance.
FALSE_FAILURE = 1e-6


def z_limit(n_tests: int = 1, false_failure: float = FALSE_FAILURE) -> float:
    """Two-sided normal limit for ``n_tests`` comparisons at a family-wise false-failure
    probability ``false_failure``: ``Phi^-1(1 - false_failure / (2 n_tests))``."""
    n_tests = check_positive_int(n_tests, "n_tests")
    false_failure = check_probability(false_failure, "false_failure")
    return float(-special.ndtri(false_failure / (2 * n_tests)))


def binomial_limits(
    n: int, p: float, n_tests: int = 1, false_failure: float = FALSE_FAILURE
) -> tuple[int, int]:
    """Smallest and largest count of a Binomial(n, p) accepted by a two-sided exact test at
    family-wise false-failure probability ``false_failure`` over ``n_tests`` counts.

    A count outside ``[lo, hi]`` has probability at most ``false_failure / n_tests``.
    """
    n = check_positive_int(n, "n", minimum=0)
    p = check_probability(p, "p", open_low=False)
    n_tests = check_positive_int(n_tests, "n_tests")
    tail = check_probability(false_failure, "false_failure") / (2 * n_tests)
    lo = int(stats.binom.ppf(tail, n, p))  # smallest k with P(X <= k) >= tail
    hi = int(stats.binom.isf(tail, n, p))  # smallest k with P(X > k) <= tail
    return lo, hi


def chernoff_log_limit(n_tests: int = 1, false_failure: float = FALSE_FAILURE) -> float:
    """``log(false_failure / (2 n_tests))``: a two-sided check that fails when
    :func:`chernoff_log_bound` falls below it fails by chance with probability at most
    ``false_failure`` over ``n_tests`` comparisons."""
    n_tests = check_positive_int(n_tests, "n_tests")
    return float(np.log(check_probability(false_failure, "false_failure") / (2 * n_tests)))


def chernoff_log_bound(
    observed: object,
    expected: object,
    reps: int,
    log_mgf: Callable[[np.ndarray], np.ndarray],
    *,
    scale: object,
    positive_limit: float = np.inf,
    points: int = 400,
) -> np.ndarray:
    """Log of the Chernoff bound on the chance that a mean of ``reps`` i.i.d. draws lies at
    least as far from its expectation as ``observed`` does, on the side where it lies.

    For each test ``i`` with exact mean ``expected[i]`` and cumulant generating function
    ``K_i(t) = log E[exp(t Y)]`` (``log_mgf(t)`` returns ``K_i(t[i, j])`` for a grid
    ``t`` of shape ``(m, points)``), ``P(mean >= y) <= exp(-reps (t y - K_i(t)))`` for every
    ``t >= 0``, and the same with ``t <= 0`` below the expectation. The bound is minimised
    over ``t = +-tau / scale[i]``, ``tau`` on a log grid from 1e-4 to 100 (positive ``t``
    kept below ``positive_limit``, where the MGF must be finite); any ``t`` gives a valid
    bound, so the grid only costs tightness. No normal approximation is involved: a check
    that fails when this falls below :func:`chernoff_log_limit` has a false-failure
    probability at most ``false_failure`` at every number of repetitions.
    """
    obs = np.atleast_1d(np.asarray(observed, dtype=float))
    mean = np.broadcast_to(np.asarray(expected, dtype=float), obs.shape)
    reps = check_positive_int(reps, "reps")
    points = check_positive_int(points, "points", minimum=2)
    size = np.broadcast_to(np.asarray(scale, dtype=float), obs.shape)
    if obs.ndim != 1 or not np.all(np.isfinite(obs)) or not np.all(np.isfinite(mean)):
        raise ValueError("observed and expected must be finite 1-d arrays of one length")
    if not np.all(size > 0):
        raise ValueError("scale must be > 0")
    tau = np.geomspace(1e-4, 100.0, points)
    side = np.where(obs >= mean, 1.0, -1.0)[:, None]
    t = side * tau[None, :] / size[:, None]
    t = np.where(t < positive_limit, t, np.nan)  # positive t beyond the MGF's domain: unused
    usable = np.isfinite(t)
    log_mgf_values = np.asarray(log_mgf(np.where(usable, t, 0.0)), dtype=float)
    exponent = np.where(usable, reps * (log_mgf_values - t * obs[:, None]), np.inf)
    return np.minimum(exponent.min(axis=1), 0.0)


def t_limit(n_tests: int, df: int, false_failure: float = FALSE_FAILURE) -> float:
    """Two-sided Student-t limit for ``n_tests`` comparisons of a mean of ``df + 1`` normal
    draws with its *sample* standard error: ``t_df^-1(1 - false_failure / (2 n_tests))``.

    The limit of a check whose standard error is estimated from few repetitions: it is
    exact when each repetition's statistic is normal (e.g. a sum over many independent
    cells), at any number of repetitions, and tends to :func:`z_limit` as ``df`` grows.
    """
    n_tests = check_positive_int(n_tests, "n_tests")
    df = check_positive_int(df, "df")
    false_failure = check_probability(false_failure, "false_failure")
    return float(stats.t.isf(false_failure / (2 * n_tests), df))


def bernstein_limit(
    variance: object,
    bound: object,
    n: int,
    n_tests: int = 1,
    false_failure: float = FALSE_FAILURE,
) -> np.ndarray:
    """Largest deviation of a mean of ``n`` independent draws from its expectation that a
    check accepts, valid at every ``n`` (no normal approximation).

    Each draw has variance ``variance`` and lies within ``bound`` of its expectation
    (arrays allowed, one check per element). Bernstein's inequality,
    ``P(|sum - n mu| >= s) <= 2 exp(-s^2 / (2 (n variance + bound s / 3)))``, set equal
    to ``false_failure / n_tests`` and solved for ``s``, gives the half-width
    ``(L bound / 3 + sqrt((L bound / 3)^2 + 2 L n variance)) / n`` with
    ``L = log(2 n_tests / false_failure)``. An unbounded draw whose centred moments obey
    ``E|X|^k <= k! v c^(k-2) / 2`` (Bernstein's moment condition, e.g. Laplace-type tails)
    is covered by ``variance = v`` and ``bound = 3 c``.
    """
    n = check_positive_int(n, "n")
    n_tests = check_positive_int(n_tests, "n_tests")
    false_failure = check_probability(false_failure, "false_failure")
    variance = np.asarray(variance, dtype=float)
    bound = np.asarray(bound, dtype=float)
    if np.any(~np.isfinite(variance)) or np.any(variance < 0):
        raise ValueError("variance must be finite and >= 0")
    if np.any(~np.isfinite(bound)) or np.any(bound < 0):
        raise ValueError("bound must be finite and >= 0")
    log_term = np.log(2 * n_tests / false_failure)
    linear = log_term * bound / 3
    return (linear + np.sqrt(linear**2 + 2 * log_term * n * variance)) / n
