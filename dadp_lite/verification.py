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

import numpy as np
from scipy import special, stats

from dadp_lite._validate import check_positive_int, check_probability

__all__ = ["FALSE_FAILURE", "bernstein_limit", "binomial_limits", "t_limit", "z_limit"]

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
