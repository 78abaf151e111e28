"""dadp_lite.theory.mean_deviation: E|mean of R projected Laplace releases - x|, exactly.

Closed forms where they exist (an empty cell's deviation never goes below 0; a large
count's is unprojected Laplace, whose sum of R is a difference of two Gamma(R, b)), and
simulation elsewhere: each simulated mean is compared with the exact value with its own
standard error against ``z_limit(n_tests)`` (family-wise false failure 1e-6).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

import dadp_lite as dl
from dadp_lite.theory import baselines
from dadp_lite.theory.mean_deviation import MIN_REPS_PLAIN
from dadp_lite.theory.mean_deviation import projected_laplace_mean_abs_error as mean_abs_error

COUNTS = np.array([0, 1, 2, 3, 5, 12])


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
@pytest.mark.parametrize("reps", [1, 7, MIN_REPS_PLAIN, 200])
def test_an_empty_cell_errs_by_its_bias(epsilon, reps):
    """At x = 0 every release is >= 0, so the mean error is its own absolute value."""
    if reps >= MIN_REPS_PLAIN:
        plain = mean_abs_error([0], epsilon=epsilon, reps=reps)[0]
        bias = baselines.projected_laplace_bias([0], epsilon=epsilon)[0]
        assert plain == pytest.approx(bias, rel=1e-9)
    rounded = mean_abs_error([0], epsilon=epsilon, reps=reps, rounded=True)[0]
    bias = baselines.projected_rounded_laplace_moments([0], epsilon=epsilon)[0][0]
    assert rounded == pytest.approx(bias, rel=1e-9)


@pytest.mark.parametrize("epsilon", [0.5, 4.0])
@pytest.mark.parametrize("reps", [MIN_REPS_PLAIN, 200, 1000])
def test_a_large_count_errs_like_an_average_of_laplace_noise(epsilon, reps):
    """E|sum of R Lap(b)| = 2 b Gamma(R + 1/2) / (sqrt(pi) Gamma(R))."""
    b = 2 / epsilon
    closed = (
        2 * b * math.exp(special.gammaln(reps + 0.5) - special.gammaln(reps)) / math.sqrt(math.pi)
    )
    value = mean_abs_error([10_000], epsilon=epsilon, reps=reps)[0]
    assert value == pytest.approx(closed / reps, rel=1e-9)


@pytest.mark.parametrize("reps", [1, 2])
def test_few_rounded_releases_by_direct_summation(reps):
    """R = 1 or 2: E|mean of max(x + J, 0) - x| summed over every value of J = round(eta)
    (and every pair, for R = 2; tails beyond 60 scales are below 1e-26)."""
    epsilon, b = 1.0, 2.0
    j = np.arange(-130, 131)
    pmf = stats.laplace.cdf(j + 0.5, scale=b) - stats.laplace.cdf(j - 0.5, scale=b)
    for x in (0, 1, 3):
        deviation = np.maximum(j, -x)
        if reps == 1:
            exact = np.abs(deviation) @ pmf
        else:
            exact = np.abs(deviation[:, None] + deviation[None, :]) / 2
            exact = pmf @ exact @ pmf
        value = mean_abs_error([x], epsilon=epsilon, reps=reps, rounded=True)[0]
        assert value == pytest.approx(exact, rel=1e-9)


def test_small_counts_match_simulation():
    """20,000 simulated 200-release experiments per epsilon, plain and rounded, on cells
    whose mean may change sign (2 epsilons x 2 readings x 6 cells comparisons)."""
    rng = dl.make_rng(20230822)
    runs, reps = 20_000, 200
    limit = dl.z_limit(2 * 2 * COUNTS.size)
    for epsilon in (0.5, 4.0):
        noise = rng.laplace(0.0, 2 / epsilon, size=(runs, reps, 1))
        for rounded in (False, True):
            released = COUNTS + noise
            if rounded:
                released = np.rint(released)
            error = np.abs(np.maximum(released, 0).mean(axis=1) - COUNTS)
            exact = mean_abs_error(COUNTS, epsilon=epsilon, reps=reps, rounded=rounded)
            z = (error.mean(axis=0) - exact) / (error.std(axis=0, ddof=1) / math.sqrt(runs))
            assert np.abs(z).max() < limit, (epsilon, rounded, z)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="epsilon"):
        mean_abs_error([1], epsilon=0.0, reps=5)
    with pytest.raises(ValueError, match="reps"):
        mean_abs_error([1], epsilon=1.0, reps=0, rounded=True)
    with pytest.raises(ValueError, match="reps"):
        mean_abs_error([1], epsilon=1.0, reps=MIN_REPS_PLAIN - 1)
    with pytest.raises(ValueError):
        mean_abs_error([-1], epsilon=1.0, reps=5)
    with pytest.raises(TypeError, match="rounded"):
        mean_abs_error([1], epsilon=1.0, reps=5, rounded="yes")
