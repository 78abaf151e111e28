"""Unit tests of dadp_lite.theory.privacy (hockey stick, neighbours, worst-case delta)."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dadp_lite.theory.privacy import (
    binomial_pmf,
    check_distribution,
    exact_delta,
    histograms_up_to,
    hockey_stick,
    neighbours,
    worst_case_delta,
)

P = np.array([0.5, 0.3, 0.2, 0.0])
Q = np.array([0.1, 0.3, 0.4, 0.2])


def brute_force_delta(p, q, epsilon):
    """max over every event O of P(O) - e^eps Q(O): the DP definition, enumerated."""
    best = 0.0
    for size in range(1, len(p) + 1):
        for event in itertools.combinations(range(len(p)), size):
            idx = list(event)
            best = max(best, p[idx].sum() - math.exp(epsilon) * q[idx].sum())
    return best


@pytest.mark.parametrize("epsilon", [0.0, 0.2, 0.7, 1.5, 3.0])
def test_hockey_stick_equals_worst_event_both_orders(epsilon):
    assert hockey_stick(P, Q, epsilon) == pytest.approx(brute_force_delta(P, Q, epsilon), abs=1e-15)
    assert hockey_stick(Q, P, epsilon) == pytest.approx(brute_force_delta(Q, P, epsilon), abs=1e-15)


def test_hockey_stick_is_asymmetric_and_exact_delta_takes_max():
    forward, backward = hockey_stick(P, Q, 0.5), hockey_stick(Q, P, 0.5)
    assert forward != pytest.approx(backward)
    assert exact_delta(P, Q, 0.5) == max(forward, backward)
    assert exact_delta(Q, P, 0.5) == exact_delta(P, Q, 0.5)


def test_hockey_stick_at_zero_is_total_variation():
    assert hockey_stick(P, Q, 0.0) == pytest.approx(0.5 * np.abs(P - Q).sum(), abs=1e-15)


def test_hockey_stick_by_hand():
    # p - e^eps q at eps = ln 2: 0.5 - 0.2 = 0.3, 0.3 - 0.6 < 0, 0.2 - 0.8 < 0, 0 - 0.4 < 0
    assert hockey_stick(P, Q, math.log(2.0)) == pytest.approx(0.3, abs=1e-15)
    assert hockey_stick(Q, P, math.log(2.0)) == pytest.approx(0.2, abs=1e-15)


def test_hockey_stick_array_epsilon_keeps_shape_and_decreases():
    eps = np.linspace(0, 3, 12).reshape(3, 4)
    values = hockey_stick(P, Q, eps)
    assert values.shape == (3, 4)
    assert np.all(np.diff(values.ravel()) <= 1e-15)
    assert isinstance(hockey_stick(P, Q, 0.3), float)


def test_hockey_stick_huge_epsilon_keeps_mass_where_q_is_zero():
    # regression: exp(eps) overflowed to inf and inf * 0 gave nan
    assert hockey_stick(Q, P, 1000.0) == pytest.approx(0.2)
    assert hockey_stick(P, Q, 1000.0) == 0.0
    assert np.all(np.isfinite(hockey_stick(Q, P, [0.0, 800.0])))


def test_identical_distributions_have_zero_delta():
    assert exact_delta(P, P, 0.0) == 0.0


@pytest.mark.parametrize(
    "p, q, error",
    [
        ([0.5, 0.6], [0.5, 0.5], ValueError),  # does not sum to 1
        ([1.2, -0.2], [0.5, 0.5], ValueError),  # negative
        ([0.5, 0.5], [1.0], ValueError),  # shape mismatch
        ([[0.5, 0.5]], [[0.5, 0.5]], ValueError),  # 2-d
        ([], [], ValueError),
        ([np.nan, 1.0], [0.5, 0.5], ValueError),
        (["a", "b"], [0.5, 0.5], TypeError),
    ],
)
def test_hockey_stick_rejects_bad_distributions(p, q, error):
    with pytest.raises(error, match=r"\bp\b|\bq\b"):
        hockey_stick(p, q, 1.0)


@pytest.mark.parametrize(
    "epsilon, error",
    [(-0.1, ValueError), (np.nan, ValueError), (np.inf, ValueError), ("x", TypeError)],
)
def test_hockey_stick_rejects_bad_epsilon(epsilon, error):
    with pytest.raises(error, match="epsilon"):
        hockey_stick(P, Q, epsilon)


def test_check_distribution_clips_rounding_noise():
    out = check_distribution([0.5 + 1e-12, 0.5 - 1e-12 - 1e-13, 1e-13 - 1e-13])
    assert np.all(out >= 0)


def as_set(arrays):
    return {tuple(int(v) for v in a) for a in arrays}


def test_neighbours_add_remove():
    assert as_set(neighbours([0, 2, 1], "add_remove", bound=2)) == {
        (1, 2, 1),
        (0, 1, 1),
        (0, 2, 2),
        (0, 2, 0),
    }


def test_neighbours_replace_moves_one_record():
    got = as_set(neighbours([0, 2, 1], "replace", bound=2))
    assert got == {(1, 1, 1), (0, 1, 2), (1, 2, 0)}
    assert all(sum(y) == 3 for y in got)


def test_neighbours_qi_replace_stays_in_group():
    got = as_set(neighbours([1, 1, 1, 1], "qi_replace", bound=2, groups=[0, 0, 1, 1]))
    assert got == {(0, 2, 1, 1), (2, 0, 1, 1), (1, 1, 0, 2), (1, 1, 2, 0)}


@pytest.mark.parametrize("adjacency", ["add_remove", "replace", "qi_replace"])
def test_neighbour_relation_is_symmetric_and_in_range(adjacency):
    groups = [0, 0, 1]
    pairs = set()
    for x in histograms_up_to(3, 2):
        for y in neighbours(x, adjacency, 2, groups):
            assert y.min() >= 0 and y.max() <= 2
            assert np.abs(y - x).sum() == (1 if adjacency == "add_remove" else 2)
            pairs.add((tuple(x), tuple(y)))
    assert all((y, x) in pairs for x, y in pairs)


@pytest.mark.parametrize(
    "kwargs, error, word",
    [
        ({"adjacency": "bogus"}, ValueError, "adjacency"),
        ({"adjacency": "qi_replace"}, ValueError, "groups"),
        ({"adjacency": "qi_replace", "groups": [0]}, ValueError, "groups"),
        ({"adjacency": "replace", "x": [0, 5]}, ValueError, "bound"),
        ({"adjacency": "replace", "x": [-1, 1]}, ValueError, "x"),
        ({"adjacency": "replace", "bound": 0}, ValueError, "bound"),
    ],
)
def test_neighbours_validates_when_called(kwargs, error, word):
    args = {"x": [1, 2], "bound": 3, **kwargs}
    with pytest.raises(error, match=word):
        neighbours(**args)  # no next(): errors are raised eagerly


def test_histograms_up_to_lists_everything():
    grid = histograms_up_to(2, 2)
    assert grid.shape == (9, 2)
    assert as_set(grid) == set(itertools.product(range(3), repeat=2))
    with pytest.raises(ValueError, match="too many"):
        histograms_up_to(30, 9)


def randomized_response_cell(keep):
    """One cell with bound 1: report the count w.p. keep, flip it otherwise."""
    return lambda x: np.array([keep, 1 - keep]) if x[0] == 0 else np.array([1 - keep, keep])


@pytest.mark.parametrize("epsilon", [0.0, 0.5, 1.0, 2.0])
def test_worst_case_delta_of_randomized_response_cell(epsilon):
    keep = 0.8
    got = worst_case_delta(randomized_response_cell(keep), 1, 1, "add_remove", epsilon)
    assert got == pytest.approx(max(0.0, keep - math.exp(epsilon) * (1 - keep)), abs=1e-15)


def total_binomial(n_cells, bound):
    size = n_cells * bound + 1
    return lambda x: np.pad(binomial_pmf(int(x.sum()), 0.5), (0, size - int(x.sum()) - 1))


def test_worst_case_delta_depends_on_adjacency():
    # a release that depends only on the total is immune to replace, not to add/remove
    mech = total_binomial(2, 2)
    eps = np.array([0.0, 0.5])
    assert np.all(worst_case_delta(mech, 2, 2, "replace", eps) == 0.0)
    assert np.all(worst_case_delta(mech, 2, 2, "qi_replace", eps, groups=[0, 0]) == 0.0)
    add_remove = worst_case_delta(mech, 2, 2, "add_remove", eps)
    expected = max(
        exact_delta(
            np.pad(binomial_pmf(s, 0.5), (0, 4 - s)),
            np.pad(binomial_pmf(s + 1, 0.5), (0, 3 - s)),
            eps,
        )[0]
        for s in range(4)
    )
    assert add_remove[0] == pytest.approx(expected, abs=1e-15)
    assert add_remove[0] > 0


def test_worst_case_delta_rejects_bad_distribution():
    with pytest.raises(ValueError, match="output_distribution"):
        worst_case_delta(lambda x: np.array([0.5, 0.6]), 1, 1, "add_remove", 1.0)


@pytest.mark.parametrize("n, p", [(0, 0.3), (1, 0.3), (7, 0.25), (40, 0.9), (5, 0.0), (5, 1.0)])
def test_binomial_pmf_matches_scipy(n, p):
    np.testing.assert_allclose(
        binomial_pmf(n, p), stats.binom.pmf(np.arange(n + 1), n, p), atol=1e-14
    )


@pytest.mark.parametrize(
    "n, p, error, word",
    [
        (3, 1.5, ValueError, "p"),
        (3, -0.1, ValueError, "p"),
        (-1, 0.5, ValueError, "n"),
        (2.5, 0.5, TypeError, "n"),
    ],
)
def test_binomial_pmf_rejects_bad_input(n, p, error, word):
    with pytest.raises(error, match=word):
        binomial_pmf(n, p)
