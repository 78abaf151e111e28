"""dp_accounting privacy curves against closed forms, enumeration and certified bin bounds."""

import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from dadp_lite.theory.accounting import (
    VALUE_DISCRETIZATION_INTERVAL,
    binned_privacy_bounds,
    discrete_gaussian_delta_enumerated,
    discrete_gaussian_histogram_delta,
    discrete_gaussian_output_pair,
    discrete_gaussian_pmf,
    gaussian_delta_closed_form,
    gaussian_histogram_delta,
    laplace_delta_closed_form,
    laplace_histogram_delta,
    pld_error_bound,
    randomized_response_delta,
    randomized_response_delta_closed_form,
    randomized_response_distributions,
)
from dadp_lite.theory.privacy import exact_delta

EPSILONS = np.array([0.0, 0.1, 0.3, 0.5, 0.9, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
ADJACENCIES = ["add_remove", "replace"]
ROUNDING = 1e-12  # floating-point summation, far below every modelling tolerance


def assert_pessimistic_close(pld_values, exact, adjacency):
    """A pessimistic PLD never underestimates and overestimates by at most k h."""
    assert np.all(pld_values >= exact - ROUNDING)
    assert np.all(pld_values <= exact + pld_error_bound(adjacency))


@pytest.mark.parametrize("adjacency", ADJACENCIES)
@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0, 4.0])
def test_laplace_dp_accounting_matches_closed_form(scale, adjacency):
    got = laplace_histogram_delta(EPSILONS, scale=scale, adjacency=adjacency)
    exact = laplace_delta_closed_form(EPSILONS, scale=scale, adjacency=adjacency)
    assert_pessimistic_close(got, exact, adjacency)


@pytest.mark.parametrize("adjacency", ADJACENCIES)
@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_laplace_closed_form_inside_binned_bounds(scale, adjacency):
    bounds = binned_privacy_bounds(EPSILONS, noise="laplace", scale=scale, adjacency=adjacency)
    exact = laplace_delta_closed_form(EPSILONS, scale=scale, adjacency=adjacency)
    assert np.all(bounds.delta_lower <= exact + ROUNDING)
    assert np.all(exact <= bounds.delta_upper + ROUNDING)
    assert np.max(bounds.delta_upper - bounds.delta_lower) < 5e-3  # bounds are informative


@pytest.mark.parametrize("scale", [0.5, 1.0, 3.0])
def test_laplace_is_pure_dp_at_l1_sensitivity_over_scale(scale):
    assert laplace_histogram_delta(1.0 / scale, scale=scale, adjacency="add_remove") <= 1e-15
    assert laplace_histogram_delta(
        2.0 / scale, scale=scale, adjacency="replace"
    ) <= pld_error_bound("replace")
    assert laplace_histogram_delta(1.9 / scale, scale=scale, adjacency="replace") > 1e-4


def test_laplace_single_shift_by_hand():
    # scale 1, eps 0: total variation of Lap(0, 1) and Lap(1, 1) is 1 - exp(-1/2)
    assert laplace_delta_closed_form(0.0, scale=1.0, adjacency="add_remove") == pytest.approx(
        1 - math.exp(-0.5), abs=1e-15
    )


@pytest.mark.parametrize("adjacency", ADJACENCIES)
@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.0, 8.0])
def test_gaussian_dp_accounting_matches_balle_wang(sigma, adjacency):
    got = gaussian_histogram_delta(EPSILONS, sigma=sigma, adjacency=adjacency)
    exact = gaussian_delta_closed_form(EPSILONS, sigma=sigma, adjacency=adjacency)
    np.testing.assert_allclose(got, exact, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("sigma", [0.7, 2.0])
def test_gaussian_replace_equals_composition_of_two_unit_shifts(sigma):
    h = VALUE_DISCRETIZATION_INTERVAL
    composed = pld_lib.from_gaussian_mechanism(sigma, value_discretization_interval=h)
    composed = composed.self_compose(2).get_delta_for_epsilon(EPSILONS)
    exact = gaussian_delta_closed_form(EPSILONS, sigma=sigma, adjacency="replace")
    assert_pessimistic_close(composed, exact, "replace")


@pytest.mark.parametrize("adjacency", ADJACENCIES)
@pytest.mark.parametrize("sigma", [0.5, 2.0])
def test_gaussian_closed_form_inside_binned_bounds(sigma, adjacency):
    bounds = binned_privacy_bounds(EPSILONS, noise="gaussian", scale=sigma, adjacency=adjacency)
    exact = gaussian_delta_closed_form(EPSILONS, sigma=sigma, adjacency=adjacency)
    assert np.all(bounds.delta_lower <= exact + ROUNDING)
    assert np.all(exact <= bounds.delta_upper + ROUNDING)


@pytest.mark.parametrize("adjacency", ADJACENCIES)
@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.0, 4.0])
def test_discrete_gaussian_dp_accounting_matches_enumeration(sigma, adjacency):
    got = discrete_gaussian_histogram_delta(EPSILONS, sigma=sigma, adjacency=adjacency)
    exact = discrete_gaussian_delta_enumerated(EPSILONS, sigma=sigma, adjacency=adjacency)
    assert_pessimistic_close(got, exact, adjacency)


def test_discrete_gaussian_pmf_is_normalised_and_symmetric():
    support, pmf = discrete_gaussian_pmf(1.5)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(pmf, pmf[::-1], rtol=1e-15)
    assert pmf[support == 1][0] / pmf[support == 0][0] == pytest.approx(math.exp(-1 / (2 * 1.5**2)))


def test_discrete_gaussian_output_pair_shapes():
    p, q = discrete_gaussian_output_pair(1.0, "add_remove")
    assert p.shape == q.shape and p[-1] == 0.0 and q[0] == 0.0
    p2, q2 = discrete_gaussian_output_pair(1.0, "replace")
    assert p2.size == p.size**2
    assert p2.sum() == pytest.approx(1.0) and q2.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    "n_outcomes, keep", [(2, 0.75), (2, 0.95), (5, 0.5), (10, 0.2), (3, 1.0), (4, 0.25), (4, 0.1)]
)
def test_randomized_response_three_ways(n_outcomes, keep):
    got = randomized_response_delta(EPSILONS, n_outcomes=n_outcomes, keep_probability=keep)
    closed = randomized_response_delta_closed_form(
        EPSILONS, n_outcomes=n_outcomes, keep_probability=keep
    )
    p, q = randomized_response_distributions(n_outcomes, keep)
    enumerated = exact_delta(p, q, EPSILONS)
    np.testing.assert_allclose(closed, enumerated, atol=ROUNDING)
    assert_pessimistic_close(got, closed, "add_remove")  # a single (k = 1) PLD


def test_randomized_response_pure_dp_at_its_own_epsilon():
    # keep = e^eps / (e^eps + n - 1) is exactly eps-DP
    eps, n = 1.3, 6
    keep = math.exp(eps) / (math.exp(eps) + n - 1)
    assert randomized_response_delta_closed_form(eps, n_outcomes=n, keep_probability=keep) < 1e-15
    assert randomized_response_delta(eps, n_outcomes=n, keep_probability=keep) <= 1e-4


@pytest.mark.parametrize(
    "function, kwargs",
    [
        (laplace_histogram_delta, {"scale": 1.0}),
        (gaussian_histogram_delta, {"sigma": 1.0}),
        (discrete_gaussian_histogram_delta, {"sigma": 1.0}),
    ],
)
def test_output_shape_follows_epsilon(function, kwargs):
    assert isinstance(function(0.5, adjacency="replace", **kwargs), float)
    eps = np.array([[0.0, 0.5, 1.0], [2.0, 3.0, 4.0]])
    out = function(eps, adjacency="replace", **kwargs)
    assert out.shape == (2, 3)
    assert np.all(np.diff(out.ravel()) <= 1e-15)  # delta decreases in epsilon
    assert function(eps, adjacency="qi_replace", **kwargs) == pytest.approx(out)


@pytest.mark.parametrize(
    "call, error, word",
    [
        (
            lambda: laplace_histogram_delta(-1.0, scale=1.0, adjacency="replace"),
            ValueError,
            "epsilon",
        ),
        (
            lambda: laplace_histogram_delta(np.nan, scale=1.0, adjacency="replace"),
            ValueError,
            "epsilon",
        ),
        (
            lambda: laplace_histogram_delta("a", scale=1.0, adjacency="replace"),
            TypeError,
            "epsilon",
        ),
        (lambda: laplace_histogram_delta(1.0, scale=0.0, adjacency="replace"), ValueError, "scale"),
        (
            lambda: laplace_histogram_delta(1.0, scale=1.0, adjacency="swap"),
            ValueError,
            "adjacency",
        ),
        (
            lambda: gaussian_histogram_delta(1.0, sigma=-2.0, adjacency="replace"),
            ValueError,
            "sigma",
        ),
        (lambda: gaussian_histogram_delta(1.0, sigma="2", adjacency="replace"), TypeError, "sigma"),
        (
            lambda: gaussian_histogram_delta(1.0, sigma=1.0, adjacency="bogus"),
            ValueError,
            "adjacency",
        ),
        (
            lambda: discrete_gaussian_histogram_delta(1.0, sigma=np.inf, adjacency="replace"),
            ValueError,
            "sigma",
        ),
        (
            lambda: discrete_gaussian_histogram_delta(1.0, sigma=1.0, adjacency=""),
            ValueError,
            "adjacency",
        ),
        (
            lambda: randomized_response_delta(1.0, n_outcomes=1, keep_probability=0.5),
            ValueError,
            "n_outcomes",
        ),
        (
            lambda: randomized_response_delta(1.0, n_outcomes=2.5, keep_probability=0.5),
            TypeError,
            "n_outcomes",
        ),
        (
            lambda: randomized_response_delta(1.0, n_outcomes=3, keep_probability=0.0),
            ValueError,
            "keep_probability",
        ),
        (
            lambda: randomized_response_delta(1.0, n_outcomes=3, keep_probability=1.2),
            ValueError,
            "keep_probability",
        ),
        (
            lambda: binned_privacy_bounds(1.0, noise="cauchy", scale=1.0, adjacency="replace"),
            ValueError,
            "noise",
        ),
    ],
)
def test_bad_input_names_the_argument(call, error, word):
    with pytest.raises(error, match=word):
        call()


@pytest.mark.parametrize("sigma", [0.7, 2.0, 10.0, 40.0, 80.0])
def test_the_replace_delta_by_privacy_loss_is_the_grid_sum(sigma):
    """Above a 2-d grid of 4 million outputs (sigma > 83, epsilon < 0.024 at sigma = 2 /
    epsilon) the replace delta is summed over the privacy loss instead (issue 33: the
    documented epsilon = 0.001 failed with "too large to enumerate"); below it both sums
    are available and agree to round-off, relative and in the tails."""
    from dadp_lite.theory.accounting import _replace_delta_by_loss

    eps = np.array([0.0, 0.01, 0.1, 0.5, 1.0, 3.0])
    p, q = discrete_gaussian_output_pair(sigma, "replace")
    np.testing.assert_allclose(
        _replace_delta_by_loss(sigma, eps), exact_delta(p, q, eps), rtol=1e-12, atol=1e-300
    )


def test_the_replace_delta_at_the_smallest_epsilon_against_dp_accounting():
    """epsilon = 0.001 (sigma = 2000): the exact delta lies below dp_accounting's
    pessimistic PLD value, by at most that PLD's discretisation error."""
    sigma = 2 / 0.001
    exact = discrete_gaussian_delta_enumerated([0.001, 0.01], sigma=sigma, adjacency="replace")
    pld = discrete_gaussian_histogram_delta([0.001, 0.01], sigma=sigma, adjacency="replace")
    assert np.all(exact <= pld) and np.all(pld <= exact + pld_error_bound("replace"))


def test_enumerated_discrete_gaussian_delta_refuses_a_sigma_whose_sum_cannot_fit():
    """Above ENUMERABLE_SIGMA_MAX the sum would need gigabytes: a ValueError naming sigma,
    never an out-of-memory kill (chapter 03 at epsilon 0.001 read as sigma = 4/eps^2)."""
    from dadp_lite.theory import accounting

    limit = accounting.ENUMERABLE_SIGMA_MAX
    with pytest.raises(ValueError, match="sigma = 4e"):
        accounting.discrete_gaussian_delta_enumerated(0.5, sigma=4e6, adjacency="replace")
    assert (
        0
        <= accounting.discrete_gaussian_delta_enumerated(
            0.5, sigma=limit / 1000, adjacency="replace"
        )
        <= 1
    )
