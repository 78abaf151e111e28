"""Closed forms for the baselines (dadp_lite.theory.baselines)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

import dadp_lite as dl
from dadp_lite.theory import (
    discrete_gaussian_delta_as_printed,
    discrete_gaussian_histogram_delta,
    discrete_gaussian_vacuous_from,
    expected_empirical_alpha,
    laplace_alpha_as_printed,
    projected_discrete_gaussian_bias,
    projected_laplace_alpha,
    projected_laplace_bias,
    projected_laplace_variance,
    zcdp_delta,
)

Z_MAX = 4.5
PAPER_EPSILONS = np.array([0.5, 1.0, 2.0, 4.0])
PAPER_DG_DELTAS = np.array([0.363, 0.132, 0.017, 3e-4])  # Tables 1-3, all equal


def laplace_moment(x: float, b: float, power: int) -> float:
    """E[max(x + eta, 0)^power] for eta ~ Lap(b), by numerical integration."""

    def integrand(eta):
        return max(x + eta, 0.0) ** power * math.exp(-abs(eta) / b) / (2 * b)

    pieces = [(-x, 0.0), (0.0, math.inf)] if x > 0 else [(0.0, math.inf)]
    return sum(
        integrate.quad(integrand, lo, hi, epsabs=1e-13, epsrel=1e-12)[0] for lo, hi in pieces
    )


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
@pytest.mark.parametrize("x", [0, 1, 3, 17])
def test_projected_laplace_bias_and_variance_match_integration(epsilon, x):
    b = 2 / epsilon
    first = laplace_moment(x, b, 1)
    second = laplace_moment(x, b, 2)
    assert projected_laplace_bias([x], epsilon=epsilon)[0] == pytest.approx(first - x, abs=1e-9)
    assert projected_laplace_variance([x], epsilon=epsilon)[0] == pytest.approx(
        second - first**2, rel=1e-7, abs=1e-9
    )


def test_projected_laplace_bias_at_zero_is_one_over_epsilon():
    assert projected_laplace_bias([0], epsilon=0.5)[0] == pytest.approx(2.0)


def test_true_alpha_is_the_bias_range():
    counts = np.array([3, 0, 10, 1])
    bias = projected_laplace_bias(counts, epsilon=1.0)
    assert projected_laplace_alpha(counts, epsilon=1.0) == pytest.approx(bias.max() - bias.min())


def test_printed_alpha_bound_is_the_printed_formula():
    counts = np.array([5, 2, 9])
    expected = math.exp(-1.0 * 2 / 2) / 2 * (9 - 2)
    assert laplace_alpha_as_printed(counts, epsilon=1.0) == pytest.approx(expected)


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 4.0])
def test_printed_alpha_bound_holds_on_random_histograms(epsilon):
    rng = np.random.default_rng(int(epsilon * 10))
    for _ in range(200):
        counts = rng.integers(0, rng.integers(1, 500), size=rng.integers(2, 30))
        if counts.min() == counts.max():
            continue
        assert projected_laplace_alpha(counts, epsilon=epsilon) <= laplace_alpha_as_printed(
            counts, epsilon=epsilon
        ) * (1 + 1e-12)


def test_expected_empirical_alpha_matches_monte_carlo():
    rng = np.random.default_rng(3)
    bias = rng.uniform(0, 1, size=60)
    se = rng.uniform(0.1, 0.5, size=60)
    draws = bias + se * rng.standard_normal((20_000, 60))
    ranges = draws.max(axis=1) - draws.min(axis=1)
    z = (ranges.mean() - expected_empirical_alpha(bias, se)) / (ranges.std() / math.sqrt(20_000))
    assert abs(z) < Z_MAX


def test_expected_empirical_alpha_of_two_standard_normals():
    assert expected_empirical_alpha([0.0, 0.0], [1.0, 1.0]) == pytest.approx(2 / math.sqrt(math.pi))


def test_zero_standard_error_gives_the_true_range():
    assert expected_empirical_alpha([0.0, 2.5, 1.0], 0.0) == pytest.approx(2.5, abs=1e-3)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 3.0])
def test_zcdp_delta_inverts_the_conversion(epsilon):
    rho = 0.2
    delta = zcdp_delta(epsilon, rho=rho)
    assert rho + 2 * math.sqrt(rho * math.log(1 / delta)) == pytest.approx(epsilon)


def test_printed_statement_is_vacuous_from_epsilon_two():
    delta = discrete_gaussian_delta_as_printed(PAPER_EPSILONS)
    assert np.all(delta[2:] == 1.0) and np.all(delta[:2] < 1.0)


@pytest.mark.parametrize("gap", [1e-6, 1e-3, 0.05, 0.3])
def test_vacuous_threshold_is_where_one_minus_delta_crosses_the_gap(gap):
    """The closed form against a bisection on the printed delta itself, and the crossing
    seen on both sides of the threshold."""
    threshold = discrete_gaussian_vacuous_from(gap)
    low, high = 1e-6, 2.0  # 1 - delta falls from about 1 to 0 on (0, 2]
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (
            (mid, high) if 1 - discrete_gaussian_delta_as_printed(mid) >= gap else (low, mid)
        )
    assert threshold == pytest.approx(high, abs=1e-12)
    assert 1 - discrete_gaussian_delta_as_printed(threshold * (1 - 1e-6)) > gap
    assert 1 - discrete_gaussian_delta_as_printed(threshold * (1 + 1e-6)) < gap
    assert threshold < 2.0  # delta = 1 exactly only from epsilon = 2


def test_vacuous_threshold_of_the_book_is_below_two():
    # the errata's 1e-3: vacuous from 1.9105..., delta = 1 only from 2
    assert discrete_gaussian_vacuous_from(1e-3) == pytest.approx(1.9105349, abs=1e-7)


def test_vacuous_threshold_is_zero_for_a_large_gap():
    assert discrete_gaussian_vacuous_from(0.5) == 0.0  # 1 - delta <= 1 - e^(-1/2) < 0.5


@pytest.mark.parametrize("gap", [0.0, 1.0, -0.1, float("nan")])
def test_vacuous_threshold_refuses_a_gap_outside_the_unit_interval(gap):
    with pytest.raises(ValueError, match="gap"):
        discrete_gaussian_vacuous_from(gap)


def test_vacuous_threshold_refuses_a_non_number():
    with pytest.raises(TypeError, match="gap"):
        discrete_gaussian_vacuous_from("0.001")


def test_printed_statement_with_noise_epsilon_matches_its_formula():
    delta = discrete_gaussian_delta_as_printed(1.0, noise_epsilon=0.5)
    assert 0.5**2 / 2 + 0.5 * math.sqrt(2 * math.log(1 / delta)) == pytest.approx(1.0)


@pytest.mark.parametrize("adjacency", ["replace", "add_remove"])
def test_printed_statement_bounds_the_tight_delta(adjacency):
    # the printed conversion is CKS's bound for an L2 shift of 2 at sigma = 2 / eps,
    # which dominates both adjacencies (shifts of sqrt(2) and 1)
    eps = np.array([0.5, 1.0, 1.5])
    for e in eps:
        tight = discrete_gaussian_histogram_delta(e, sigma=2 / e, adjacency=adjacency)
        assert tight <= discrete_gaussian_delta_as_printed(e)


def test_tables_delta_column_is_the_conversion_with_rho_epsilon_over_ten():
    fitted = zcdp_delta(PAPER_EPSILONS, rho=PAPER_EPSILONS / 10)
    printed_digits = [3, 3, 3, 4]  # 0.363, 0.132, 0.017, 3E-4
    for value, paper, digits in zip(fitted, PAPER_DG_DELTAS, printed_digits):
        assert round(float(value), digits) == pytest.approx(paper)


@pytest.mark.parametrize("adjacency", ["replace", "add_remove"])
def test_tables_delta_column_is_not_the_tight_delta(adjacency):
    tight = np.array(
        [
            discrete_gaussian_histogram_delta(e, sigma=2 / e, adjacency=adjacency)
            for e in PAPER_EPSILONS
        ]
    )
    assert np.all(np.diff(tight) > 0)  # tight delta grows with epsilon; the table's falls
    assert np.all(np.abs(tight - PAPER_DG_DELTAS) > 0.3 * PAPER_DG_DELTAS)


@pytest.mark.parametrize("sigma", [0.5, 2.0, 8.0])
def test_projected_discrete_gaussian_bias_matches_simulation(sigma):
    counts = np.array([0, 1, 2, 5, 30])
    reps = 100_000
    out = dl.discrete_gaussian(
        counts, sigma=sigma, rng=np.random.default_rng(int(sigma * 7)), reps=reps, project=True
    )
    estimate = dl.empirical_bias(out, counts)
    z = estimate.z_scores(projected_discrete_gaussian_bias(counts, sigma=sigma))
    assert np.abs(z).max() < Z_MAX, z


def test_projected_discrete_gaussian_bias_at_zero_is_mean_of_positive_part():
    sigma = 3.0
    z = np.arange(1, 200)
    weights = np.exp(-(z**2) / (2 * sigma**2))
    total = 1 + 2 * weights.sum()
    assert projected_discrete_gaussian_bias([0], sigma=sigma)[0] == pytest.approx(
        (z * weights).sum() / total
    )


@pytest.mark.parametrize("epsilon", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_epsilon_is_rejected(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        projected_laplace_bias([1], epsilon=epsilon)
    with pytest.raises(ValueError, match="epsilon"):
        laplace_alpha_as_printed([1, 2], epsilon=epsilon)


def test_bad_counts_and_rho_are_rejected():
    with pytest.raises(ValueError, match="counts"):
        projected_laplace_bias([-1], epsilon=1.0)
    with pytest.raises(ValueError, match="counts"):
        projected_discrete_gaussian_bias([0.5], sigma=1.0)
    with pytest.raises(ValueError, match="rho"):
        zcdp_delta(1.0, rho=0.0)
    with pytest.raises(ValueError, match="sigma"):
        projected_discrete_gaussian_bias([1], sigma=-1.0)


# ---------------------------------------------------- moment generating functions
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
@pytest.mark.parametrize("x", [0, 1, 7, 200])
def test_projected_laplace_log_mgf_matches_integration(epsilon, x):
    from dadp_lite.theory.baselines import projected_laplace_log_mgf

    b = 2 / epsilon
    for t in (-3.0, -1 / b, -0.1, 0.0, 0.4 / b, 0.9 / b):

        def integrand(u, t=t):
            return math.exp(t * max(x + u, 0) - t * x - abs(u) / b) / (2 * b)

        pieces = [(-np.inf, -x), (-x, 0.0), (0.0, np.inf)]
        value = sum(integrate.quad(integrand, lo, hi, limit=200)[0] for lo, hi in pieces)
        expected = math.log(value) + t * x
        got = projected_laplace_log_mgf([x], [t], epsilon=epsilon)[0, 0]
        assert got == pytest.approx(expected, rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("sigma", [0.5, 4.0])
def test_projected_discrete_gaussian_log_mgf_is_the_pmf_sum(sigma):
    from dadp_lite.theory.accounting import discrete_gaussian_pmf
    from dadp_lite.theory.baselines import projected_discrete_gaussian_log_mgf

    support, pmf = discrete_gaussian_pmf(sigma)
    x = np.array([0, 1, 3, 30])
    t = np.array([-5.0, -0.3, 0.0, 0.2, 1.0]) / sigma
    got = projected_discrete_gaussian_log_mgf(x, t, sigma=sigma)
    for i, count in enumerate(x):
        expected = np.log(
            (pmf[None, :] * np.exp(t[:, None] * np.maximum(count + support, 0))).sum(1)
        )
        np.testing.assert_allclose(got[i], expected, rtol=1e-12, atol=1e-12)
    # the derivative at 0 is the mean: (K(h) - K(-h)) / 2h -> x + bias
    h = 1e-6
    slope = np.diff(projected_discrete_gaussian_log_mgf(x, [-h, h], sigma=sigma), axis=1)[:, 0]
    mean = x + projected_discrete_gaussian_bias(x, sigma=sigma)
    np.testing.assert_allclose(slope / (2 * h), mean, rtol=1e-6, atol=1e-6)


def test_log_mgfs_refuse_t_outside_their_domain():
    from dadp_lite.theory.baselines import (
        projected_discrete_gaussian_log_mgf,
        projected_laplace_log_mgf,
    )

    with pytest.raises(ValueError, match="infinite"):
        projected_laplace_log_mgf([0, 1], [0.5], epsilon=1.0)  # t = 1/b
    with pytest.raises(ValueError, match="sigma"):
        projected_discrete_gaussian_log_mgf([0], [2.0], sigma=1.0)
    with pytest.raises(ValueError):
        projected_laplace_log_mgf([[0, 1]], [0.1], epsilon=1.0)
