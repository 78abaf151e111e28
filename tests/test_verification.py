"""The checks' design: z-limits, binomial limits and Bernstein limits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dadp_lite.verification import FALSE_FAILURE, bernstein_limit, binomial_limits, z_limit


def test_bernstein_limit_solves_the_inequality_for_its_tail():
    variance, bound, n, n_tests = 4.0, 10.0, 500, 20
    t = float(bernstein_limit(variance, bound, n, n_tests))
    s = n * t
    tail = 2 * math.exp(-(s**2) / (2 * (n * variance + bound * s / 3)))
    assert tail == pytest.approx(FALSE_FAILURE / n_tests, rel=1e-9)


def test_bernstein_limit_is_wider_than_the_normal_limit_and_shrinks_with_n():
    variance, bound = 1.0, 1.0
    normal = z_limit(1) * math.sqrt(variance / 1000)
    assert bernstein_limit(variance, bound, 1000) > normal
    assert bernstein_limit(variance, bound, 4000) < bernstein_limit(variance, bound, 1000)
    assert bernstein_limit(0.0, 0.0, 10) == 0.0


def test_bernstein_limit_covers_a_skewed_mean_by_simulation():
    """Bernoulli(0.01) draws scaled by 50 (a rare large block): the limit at a loose
    false-failure rate of 0.05 is exceeded in at most about 5% of 20000 runs."""
    rng = np.random.default_rng(3)
    p, size, n = 0.01, 50.0, 200
    means = size * rng.binomial(n, p, size=20_000) / n
    t = bernstein_limit(size**2 * p * (1 - p), size * (1 - p), n, false_failure=0.05)
    assert np.mean(np.abs(means - size * p) > t) <= 0.05


def test_bernstein_limit_vectorises_and_refuses_bad_input():
    out = bernstein_limit(np.array([1.0, 4.0]), np.array([1.0, 2.0]), 100, n_tests=2)
    assert out.shape == (2,) and out[1] > out[0]
    with pytest.raises(ValueError, match="variance"):
        bernstein_limit(-1.0, 1.0, 10)
    with pytest.raises(ValueError, match="bound"):
        bernstein_limit(1.0, float("nan"), 10)
    with pytest.raises(ValueError, match="n"):
        bernstein_limit(1.0, 1.0, 0)


def test_binomial_limits_hold_their_tail():
    lo, hi = binomial_limits(1000, 0.3, n_tests=4)
    from scipy.stats import binom

    assert binom.cdf(lo - 1, 1000, 0.3) <= FALSE_FAILURE / 8
    assert binom.sf(hi, 1000, 0.3) <= FALSE_FAILURE / 8
