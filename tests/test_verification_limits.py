"""The checks' design: z- and t-limits at the book's false-failure rate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dadp_lite as dl
from dadp_lite.verification import FALSE_FAILURE


def test_t_limit_is_the_student_quantile_at_the_split_budget():
    for n, df in [(1, 1), (4, 9), (12, 99)]:
        limit = dl.verification.t_limit(n, df)
        assert math.isclose(2 * n * stats.t.sf(limit, df), FALSE_FAILURE, rel_tol=1e-6)


def test_t_limit_exceeds_z_limit_and_tends_to_it():
    limits = [dl.verification.t_limit(4, df) for df in (1, 4, 19, 99, 10**6)]
    assert all(a > b for a, b in zip(limits, limits[1:], strict=False))
    assert limits[-1] > dl.z_limit(4)
    assert math.isclose(limits[-1], dl.z_limit(4), rel_tol=1e-4)


def test_t_limit_false_failure_by_simulation_of_t_statistics():
    """With 3 repetitions the z-limit trips far more often than 1e-6: the t-limit does not
    (a t statistic of 2 degrees of freedom beyond the z-limit has probability ~4e-2)."""
    rng = np.random.default_rng(7)
    draws = rng.normal(size=(200_000, 3))
    t = draws.mean(axis=1) / (draws.std(axis=1, ddof=1) / math.sqrt(3))
    assert np.mean(np.abs(t) > dl.z_limit(1)) > 1e-2
    assert np.mean(np.abs(t) > dl.verification.t_limit(1, 2)) == 0.0


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((0, 5), ValueError),
        ((1, 0), ValueError),
        ((1, 2.5), (TypeError, ValueError)),
        ((1, 5, 0.0), ValueError),
    ],  # fmt: skip
)
def test_t_limit_refuses_bad_input(args, error):
    with pytest.raises(error):
        dl.verification.t_limit(*args)


def test_bernstein_limit_solves_the_inequality_and_covers_a_bounded_mean():
    limit = dl.verification.bernstein_limit(4.0, 3.0, 50, n_tests=3)
    s = 50 * limit
    tail = 2 * np.exp(-(s**2) / (2 * (50 * 4.0 + 3.0 * s / 3)))
    assert math.isclose(tail, FALSE_FAILURE / 3, rel_tol=1e-9)
    # a two-point draw (values 0 and 3, p = 0.2): the limit is wider than 5 SE, finite at n = 2
    assert dl.verification.bernstein_limit(9 * 0.16, 3.0, 2) > 5 * math.sqrt(9 * 0.16 / 2)
    np.testing.assert_allclose(
        dl.verification.bernstein_limit([0.0, 1.0], [0.0, 0.0], 10),
        [0.0, math.sqrt(2 * math.log(2 / FALSE_FAILURE) / 10)],
    )


def test_bernstein_limit_refuses_bad_input():
    with pytest.raises(ValueError):
        dl.verification.bernstein_limit(-1.0, 1.0, 5)
    with pytest.raises(ValueError):
        dl.verification.bernstein_limit(1.0, float("inf"), 5)
    with pytest.raises(ValueError):
        dl.verification.bernstein_limit(1.0, 1.0, 0)
