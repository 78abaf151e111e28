"""The sufficient-condition lemma: never below the exact delta, attained on S^c, gap quantified."""

import math

import numpy as np
import pytest

from dadp_lite.theory.accounting import (
    binned_privacy_bounds,
    discrete_gaussian_output_pair,
    gaussian_delta_closed_form,
    laplace_delta_closed_form,
    randomized_response_delta_closed_form,
    randomized_response_distributions,
)
from dadp_lite.theory.lemma import (
    gaussian_lemma_delta,
    laplace_lemma_delta,
    lemma_delta,
    lemma_delta_both_orders,
    lemma_event,
    lemma_gap,
    lemma_masses,
    max_event_violation,
    random_distribution_pairs,
    randomized_response_lemma_delta,
)
from dadp_lite.theory.privacy import exact_delta, hockey_stick

EPSILONS = np.array([0.0, 0.05, 0.2, 0.5, 1.0, 2.0, 4.0])
ROUNDING = 1e-12  # floating-point summation only
SEED = 20230819


@pytest.fixture(scope="module")
def pairs():
    return random_distribution_pairs(500, 7, rng=np.random.default_rng(SEED))


@pytest.fixture(scope="module")
def exact(pairs):
    p, q = pairs
    return np.array([hockey_stick(a, b, EPSILONS) for a, b in zip(p, q)])


def test_lemma_delta_never_below_exact_delta(pairs, exact):
    lemma = lemma_delta(*pairs, EPSILONS)
    assert lemma.shape == exact.shape == (500, EPSILONS.size)
    assert np.all(lemma >= exact - ROUNDING)
    assert np.mean(lemma > exact + 1e-9) > 0.5  # and usually strictly above


def test_exact_delta_is_attained_on_the_lemma_event(pairs, exact):
    p_mass, q_mass = lemma_masses(*pairs, EPSILONS)
    np.testing.assert_allclose(p_mass - np.exp(EPSILONS) * q_mass, exact, atol=ROUNDING)


def test_hockey_stick_equals_the_definition_over_all_events(pairs, exact):
    np.testing.assert_allclose(max_event_violation(*pairs, EPSILONS), exact, atol=ROUNDING)


def test_gap_is_lemma_minus_exact(pairs, exact):
    np.testing.assert_allclose(
        lemma_gap(*pairs, EPSILONS), lemma_delta(*pairs, EPSILONS) - exact, atol=ROUNDING
    )


def test_batch_agrees_with_single_pairs(pairs):
    p, q = pairs
    batch = lemma_delta_both_orders(p, q, EPSILONS)
    for i in (0, 17, 499):
        single = lemma_delta_both_orders(p[i], q[i], EPSILONS)
        np.testing.assert_array_equal(single, batch[i])
        assert single.shape == EPSILONS.shape
    assert isinstance(lemma_delta(p[0], q[0], 0.5), float)


def test_lemma_event_by_hand():
    p = np.array([0.5, 0.2, 0.2, 0.1, 0.0])
    q = np.array([0.1, 0.4, 0.1, 0.0, 0.4])
    # ratios 5, 0.5, 2 (= e^eps: not in S^c), inf, 0
    np.testing.assert_array_equal(
        lemma_event(p, q, math.log(2.0)), [True, False, False, True, False]
    )
    assert lemma_delta(p, q, math.log(2.0)) == pytest.approx(0.6)
    assert hockey_stick(p, q, math.log(2.0)) == pytest.approx(0.5 - 0.2 + 0.1)
    assert lemma_delta_both_orders(p, q, math.log(2.0)) == pytest.approx(
        max(0.6, 0.4)
    )  # reverse: only q(4) = 0.4


def test_huge_epsilon_keeps_outcomes_q_cannot_emit():
    p, q = np.array([0.7, 0.3]), np.array([1.0, 0.0])
    assert lemma_delta(p, q, 1000.0) == pytest.approx(0.3)
    assert lemma_gap(p, q, 1000.0) == 0.0


@pytest.mark.parametrize("adjacency", ["add_remove", "replace"])
@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_laplace_lemma_closed_form_inside_binned_bounds(scale, adjacency):
    eps = np.append(EPSILONS, [0.99 / scale, 1.0 / scale, 1.99 / scale])
    bounds = binned_privacy_bounds(eps, noise="laplace", scale=scale, adjacency=adjacency)
    closed = laplace_lemma_delta(eps, scale=scale, adjacency=adjacency)
    assert np.all(bounds.lemma_lower <= closed + ROUNDING)
    assert np.all(closed <= bounds.lemma_upper + ROUNDING)
    assert np.all(closed >= laplace_delta_closed_form(eps, scale=scale, adjacency=adjacency))


@pytest.mark.parametrize("adjacency", ["add_remove", "replace"])
@pytest.mark.parametrize("sigma", [0.5, 2.0])
def test_gaussian_lemma_closed_form_inside_binned_bounds(sigma, adjacency):
    bounds = binned_privacy_bounds(EPSILONS, noise="gaussian", scale=sigma, adjacency=adjacency)
    closed = gaussian_lemma_delta(EPSILONS, sigma=sigma, adjacency=adjacency)
    assert np.all(bounds.lemma_lower <= closed + ROUNDING)
    assert np.all(closed <= bounds.lemma_upper + ROUNDING)
    assert np.all(closed >= gaussian_delta_closed_form(EPSILONS, sigma=sigma, adjacency=adjacency))


@pytest.mark.parametrize("n_outcomes, keep", [(2, 0.75), (2, 0.95), (6, 0.4), (4, 0.1), (3, 1.0)])
def test_randomized_response_lemma_matches_enumeration(n_outcomes, keep):
    p, q = randomized_response_distributions(n_outcomes, keep)
    enumerated = lemma_delta_both_orders(p, q, EPSILONS)
    closed = randomized_response_lemma_delta(EPSILONS, n_outcomes=n_outcomes, keep_probability=keep)
    np.testing.assert_allclose(closed, enumerated, atol=ROUNDING)


def test_lemma_near_one_while_exact_delta_is_tiny():
    # RR with keep 0.95 over 2 values: loss ln 19; just below it the lemma pays ~keep
    eps = math.log(19.0) - 0.001
    lemma = randomized_response_lemma_delta(eps, n_outcomes=2, keep_probability=0.95)
    exact = randomized_response_delta_closed_form(eps, n_outcomes=2, keep_probability=0.95)
    assert lemma == pytest.approx(0.95)
    assert exact == pytest.approx(0.95 - math.exp(eps) * 0.05, abs=1e-15)
    assert exact < 1e-3


@pytest.mark.parametrize("adjacency", ["add_remove", "replace"])
def test_discrete_gaussian_lemma_dominates_exact(adjacency):
    p, q = discrete_gaussian_output_pair(1.0, adjacency)
    assert np.all(lemma_delta_both_orders(p, q, EPSILONS) >= exact_delta(p, q, EPSILONS) - ROUNDING)


def test_random_pairs_are_distributions_and_reproducible():
    p, q = random_distribution_pairs(50, 5, rng=np.random.default_rng(1), zero_probability=0.3)
    p2, _ = random_distribution_pairs(50, 5, rng=np.random.default_rng(1), zero_probability=0.3)
    np.testing.assert_array_equal(p, p2)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_allclose(q.sum(axis=1), 1.0)
    assert (q == 0).any() and (p == 0).any()


@pytest.mark.parametrize(
    "call, error, word",
    [
        (lambda: lemma_delta([0.5, 0.5], [0.5, 0.6], 1.0), ValueError, "q"),
        (lambda: lemma_delta([0.5, 0.5], [1.0], 1.0), ValueError, "shape"),
        (lambda: lemma_delta([[[1.0]]], [[[1.0]]], 1.0), ValueError, "p"),
        (lambda: lemma_delta(["a"], [1.0], 1.0), TypeError, "p"),
        (lambda: lemma_delta([1.0], [1.0], -1.0), ValueError, "epsilon"),
        (lambda: lemma_event([1.0], [1.0], [0.1, 0.2]), ValueError, "scalar epsilon"),
        (
            lambda: max_event_violation(np.ones(20) / 20, np.ones(20) / 20, 1.0),
            ValueError,
            "support",
        ),
        (lambda: laplace_lemma_delta(1.0, scale=-1.0, adjacency="replace"), ValueError, "scale"),
        (lambda: gaussian_lemma_delta(1.0, sigma=1.0, adjacency="x"), ValueError, "adjacency"),
        (
            lambda: randomized_response_lemma_delta(1.0, n_outcomes=1, keep_probability=0.5),
            ValueError,
            "n_outcomes",
        ),
        (lambda: random_distribution_pairs(5, 3, rng=1), TypeError, "rng"),
        (
            lambda: random_distribution_pairs(0, 3, rng=np.random.default_rng(0)),
            ValueError,
            "n_pairs",
        ),
        (
            lambda: random_distribution_pairs(
                5, 3, rng=np.random.default_rng(0), zero_probability=2
            ),
            ValueError,
            "zero_probability",
        ),
    ],
)
def test_bad_input_names_the_argument(call, error, word):
    with pytest.raises(error, match=word):
        call()
