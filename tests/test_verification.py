"""The checks' design (dadp_lite.verification): z-, binomial, Bernstein and Chernoff limits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dadp_lite.verification import (
    FALSE_FAILURE,
    bernstein_limit,
    binomial_limits,
    chernoff_log_bound,
    chernoff_log_limit,
    z_limit,
)


def test_z_limit_is_the_bonferroni_normal_quantile():
    assert z_limit(1) == pytest.approx(stats.norm.isf(FALSE_FAILURE / 2))
    assert z_limit(100) == pytest.approx(stats.norm.isf(FALSE_FAILURE / 200))


def test_binomial_limits_hold_the_stated_tail_mass():
    lo, hi = binomial_limits(1000, 0.3, n_tests=5)
    assert stats.binom.cdf(lo - 1, 1000, 0.3) <= FALSE_FAILURE / 10
    assert stats.binom.sf(hi, 1000, 0.3) <= FALSE_FAILURE / 10


def test_chernoff_log_limit():
    assert chernoff_log_limit(10) == pytest.approx(math.log(FALSE_FAILURE / 20))


def _normal_log_mgf(mean, sd):
    return lambda t: mean * t + 0.5 * (sd * t) ** 2


def test_chernoff_bound_of_normal_draws_is_the_gaussian_exponent():
    # mean of R draws of N(mu, s^2): the optimal bound is exp(-R (y - mu)^2 / (2 s^2))
    mu, sd, reps = 1.0, 2.0, 50
    y = np.array([mu + 0.8, mu - 0.8, mu])
    log_bound = chernoff_log_bound(y, mu, reps, _normal_log_mgf(mu, sd), scale=sd, points=4000)
    exact = -reps * 0.64 / (2 * sd**2)
    np.testing.assert_allclose(log_bound[:2], exact, rtol=1e-3)
    assert log_bound[2] == 0.0  # no deviation: the bound is 1


@pytest.mark.parametrize("reps", [2, 30])
def test_chernoff_check_never_fails_more_often_than_its_level(reps):
    """Exponential draws (skewed): the rate of bounds below log(a/2) stays below a."""
    rng = np.random.default_rng(7)
    draws = rng.exponential(1.0, size=(200_000, reps)).mean(axis=1)
    log_bound = chernoff_log_bound(draws, 1.0, reps, lambda t: -np.log1p(-t), scale=1.0,
                                   positive_limit=1.0)  # fmt: skip
    for level in (0.1, 0.01, 0.001):
        rate = np.mean(log_bound < math.log(level / 2))
        # a count above the level's expectation by 5 binomial sd would be a real failure
        assert rate <= level + 5 * math.sqrt(level / draws.size)


def test_chernoff_bound_is_tighter_than_nothing_for_a_real_shift():
    reps = 100
    y = np.array([1.0 + 8 / math.sqrt(reps)])  # 8 standard errors above the mean
    log_bound = chernoff_log_bound(y, 1.0, reps, _normal_log_mgf(1.0, 1.0), scale=1.0)
    assert log_bound[0] < chernoff_log_limit(1)


def test_chernoff_bound_refuses_bad_input():
    mgf = _normal_log_mgf(0.0, 1.0)
    with pytest.raises(ValueError, match="scale"):
        chernoff_log_bound([0.1], 0.0, 10, mgf, scale=0.0)
    with pytest.raises(ValueError, match="finite"):
        chernoff_log_bound([np.nan], 0.0, 10, mgf, scale=1.0)
    with pytest.raises(TypeError):
        chernoff_log_bound([0.1], 0.0, 2.5, mgf, scale=1.0)


def test_check_grid_accepts_finite_grids_and_names_the_argument():
    from dadp_lite._validate import check_grid

    assert check_grid([0.1, 0.2]).shape == (2,)
    assert check_grid([[0.1], [0.2]]).shape == (2, 1)
    with pytest.raises(ValueError, match="tau"):
        check_grid([np.inf], "tau")
    with pytest.raises(ValueError, match="t must"):
        check_grid(np.zeros((1, 1, 1)))
    with pytest.raises(TypeError, match="t must"):
        check_grid(["a"])


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
