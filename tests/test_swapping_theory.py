"""DP swapping theory: printed delta vs exact enumeration, bias proposition, L1 theorem."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dadp_lite.definitions import keep_probability
from dadp_lite.metrics import l1_norm
from dadp_lite.theory.accounting import (
    VALUE_DISCRETIZATION_INTERVAL,
    randomized_response_delta,
    randomized_response_delta_closed_form,
)
from dadp_lite.theory.swapping import (
    dp_swapping_bias_as_printed,
    dp_swapping_bias_l1_as_printed,
    dp_swapping_bias_l1_groups_once,
    dp_swapping_cell_delta,
    dp_swapping_colocation_probability,
    dp_swapping_delta,
    dp_swapping_delta_as_printed,
    dp_swapping_delta_proof_line3,
    dp_swapping_exact_delta,
    dp_swapping_expected_release,
    dp_swapping_output_distribution,
    dp_swapping_pair_delta,
    dp_swapping_record_delta,
    mean_absolute_deviation,
)

EPSILONS = [0.5, 1.0, 2.0, 4.0]


def test_printed_delta_reproduces_paper_table_with_nine_races():
    # Table 1 of the paper (DP swapping column), which we read as n_Q = 9 (race as QI);
    # the paper shows three decimals, sometimes rounded and sometimes truncated
    paper = {0.5: 0.868, 1.0: 0.874, 2.0: 0.899, 4.0: 0.969}
    for epsilon, printed in paper.items():
        assert abs(dp_swapping_delta_as_printed(epsilon, 9) - printed) < 1e-3


@pytest.mark.parametrize("n_q", [2, 3, 9])
def test_proof_last_step_is_not_an_identity(n_q):
    eps = np.array(EPSILONS)
    gamma = 1 / (1 + (n_q - 1) * np.exp(-eps))  # computed here from the definition
    gap = dp_swapping_delta_proof_line3(eps, n_q) - dp_swapping_delta_as_printed(eps, n_q)
    np.testing.assert_allclose(gap, 2 * ((1 - gamma) / (n_q - 1)) ** 2, rtol=1e-12)
    assert np.all(gap > 0)


@pytest.mark.parametrize(("n_q", "bound"), [(2, 2), (2, 3), (3, 2), (3, 3), (4, 2)])
def test_cell_delta_under_qi_replace_equals_enumeration(n_q, bound):
    exact = dp_swapping_exact_delta(
        np.array([0.5, 2.0]), n_q=n_q, n_groups=1, bound=bound, unit="cell", adjacency="qi_replace"
    )
    np.testing.assert_allclose(
        exact, dp_swapping_cell_delta(np.array([0.5, 2.0]), n_q, bound), atol=1e-12
    )


def test_cell_delta_with_two_groups_equals_one_group():
    exact = dp_swapping_exact_delta(
        1.0, n_q=2, n_groups=2, bound=2, unit="cell", adjacency="qi_replace"
    )
    assert exact == pytest.approx(dp_swapping_cell_delta(1.0, 2, 2), abs=1e-12)


def test_cell_delta_with_counts_at_most_one_is_zero():
    assert dp_swapping_exact_delta(
        1.0, n_q=3, n_groups=2, bound=1, unit="cell", adjacency="qi_replace"
    ) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_printed_delta_too_small_for_per_cell_version_with_nine_races(epsilon):
    # the worst pair found by enumeration for small n_Q, evaluated exactly at n_Q = 9
    x = np.zeros((1, 9), dtype=int)
    y = np.zeros((1, 9), dtype=int)
    x[0, 0], y[0, 0], y[0, 1] = 2, 1, 1
    exact_pair = dp_swapping_pair_delta(x, y, epsilon, "cell")
    assert exact_pair == pytest.approx(dp_swapping_cell_delta(epsilon, 9), abs=1e-12)
    assert exact_pair > dp_swapping_delta_as_printed(epsilon, 9)


@pytest.mark.parametrize(("n_q", "bound"), [(2, 3), (3, 2), (4, 2)])
def test_record_version_is_pure_dp_under_qi_replace(n_q, bound):
    exact = dp_swapping_exact_delta(
        np.array(EPSILONS), n_q=n_q, n_groups=1, bound=bound, unit="record", adjacency="qi_replace"
    )
    assert np.all(exact <= 1e-12)
    assert np.all(dp_swapping_record_delta(np.array(EPSILONS), n_q) == 0)


@pytest.mark.parametrize("n_q", [2, 3, 9])
def test_record_version_matches_randomized_response_accounting(n_q):
    for epsilon in EPSILONS:
        keep = keep_probability(epsilon, n_q)
        pld = randomized_response_delta(epsilon, n_outcomes=n_q, keep_probability=keep)
        closed = randomized_response_delta_closed_form(
            epsilon, n_outcomes=n_q, keep_probability=keep
        )
        assert closed == pytest.approx(0.0, abs=1e-12)
        assert 0 <= pld <= VALUE_DISCRETIZATION_INTERVAL  # pessimistic PLD overestimates by <= h


@pytest.mark.parametrize("unit", ["cell", "record"])
@pytest.mark.parametrize("adjacency", ["replace", "add_remove"])
def test_delta_is_one_when_non_qi_values_may_change(unit, adjacency):
    exact = dp_swapping_exact_delta(
        np.array([0.5, 4.0]), n_q=2, n_groups=2, bound=2, unit=unit, adjacency=adjacency
    )
    np.testing.assert_allclose(exact, 1.0, atol=1e-12)
    assert dp_swapping_record_delta(1.0, 2, adjacency) == 1.0


def test_colocation_probability_matches_enumerated_law():
    law = dp_swapping_output_distribution(np.array([[1, 1, 0, 0]]), 1.5, "record")
    together = sum(p for outcome, p in law.items() if max(outcome) == 2)
    assert together == pytest.approx(dp_swapping_colocation_probability(1.5, 4), abs=1e-12)


def test_output_distribution_sums_to_one():
    for unit in ("cell", "record"):
        law = dp_swapping_output_distribution(np.array([[2, 1, 0], [0, 1, 1]]), 0.7, unit)
        assert sum(law.values()) == pytest.approx(1.0, abs=1e-12)


# ------------------------------------------------------------------------------- bias
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_bias_proposition_matches_transition_matrix(ma_histogram, epsilon):
    exact = dp_swapping_expected_release(ma_histogram, ("race",), epsilon) - ma_histogram.counts
    np.testing.assert_allclose(
        dp_swapping_bias_as_printed(ma_histogram, ("race",), epsilon), exact, atol=1e-9
    )


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_l1_theorem_as_printed_equals_exact_l1_of_bias(ma_histogram, epsilon):
    exact = l1_norm(
        dp_swapping_expected_release(ma_histogram, ("race",), epsilon) - ma_histogram.counts
    )
    assert dp_swapping_bias_l1_as_printed(ma_histogram, ("race",), epsilon) == pytest.approx(
        exact, rel=1e-12
    )
    once = dp_swapping_bias_l1_groups_once(ma_histogram, ("race",), epsilon)
    assert once * 9 == pytest.approx(exact, rel=1e-12)


def test_mean_absolute_deviation_definition():
    assert mean_absolute_deviation([0, 0, 3]) == pytest.approx((1 + 1 + 2) / 3)


# ------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("epsilon", [0.0, -0.5])
def test_theory_rejects_bad_epsilon(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        dp_swapping_delta_as_printed(epsilon, 9)
    with pytest.raises(ValueError, match="epsilon"):
        keep_probability(np.array([1.0, epsilon]), 9)


def test_theory_rejects_small_n_q_bad_unit_and_adjacency():
    with pytest.raises(ValueError, match="n_q"):
        dp_swapping_delta_as_printed(1.0, 1)
    with pytest.raises(ValueError, match="unit"):
        dp_swapping_output_distribution(np.array([[1, 0]]), 1.0, "group")
    with pytest.raises(ValueError, match="adjacency"):
        dp_swapping_record_delta(1.0, 3, "swap")
    with pytest.raises(ValueError, match="adjacency"):
        dp_swapping_exact_delta(1.0, n_q=2, n_groups=1, bound=1, unit="cell", adjacency="x")


def test_gamma_definition():
    assert keep_probability(1.0, 9) == pytest.approx(math.e / (math.e + 8))


def test_exact_delta_dispatch_and_bad_unit():
    assert dp_swapping_delta(1.0, 9, unit="cell", adjacency="qi_replace") == pytest.approx(
        dp_swapping_delta_proof_line3(1.0, 9)
    )
    assert dp_swapping_delta(1.0, 9, unit="record", adjacency="qi_replace") == 0.0
    assert dp_swapping_delta(1.0, 9, unit="cell", adjacency="add_remove") == 1.0
    with pytest.raises(ValueError, match="unit"):
        dp_swapping_delta(1.0, 9, unit="group", adjacency="replace")


@pytest.mark.parametrize("n_q", [2, 3])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_two_block_worst_pair_equals_the_full_enumeration(n_q, epsilon):
    from dadp_lite.theory.swapping import dp_swapping_cell_worst_pair, dp_swapping_exact_delta

    two_blocks, _ = dp_swapping_cell_worst_pair(epsilon, n_q=n_q, bound=2)
    for n_groups in (1, 2):
        full = dp_swapping_exact_delta(
            epsilon, n_q=n_q, n_groups=n_groups, bound=2, unit="cell", adjacency="qi_replace"
        )
        assert two_blocks == pytest.approx(full, abs=1e-12)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_closed_form_cell_delta_holds_at_nine_qi_values_for_counts_up_to_ten(epsilon):
    from dadp_lite.theory.swapping import dp_swapping_cell_delta, dp_swapping_cell_worst_pair

    worst, _ = dp_swapping_cell_worst_pair(epsilon, n_q=9, bound=10)
    assert worst == pytest.approx(dp_swapping_cell_delta(epsilon, 9, bound=10), abs=1e-12)


@pytest.mark.parametrize("n_q", [2, 3, 9])
@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_two_block_delta_depends_only_on_the_equality_pattern(n_q, epsilon):
    from dadp_lite.theory.swapping import (
        dp_swapping_cell_pair_pattern,
        dp_swapping_cell_pattern_deltas,
        dp_swapping_pair_delta,
    )

    representative = {
        tuple(dp_swapping_cell_pair_pattern(a, b)): value
        for (a, b), value in dp_swapping_cell_pattern_deltas(epsilon, n_q=n_q, bound=7)
    }
    for a in range(1, 8):
        for b in range(7):
            x = np.zeros((1, n_q), dtype=int)
            y = np.zeros((1, n_q), dtype=int)
            x[0, :2], y[0, :2] = (a, b), (a - 1, b + 1)
            value = dp_swapping_pair_delta(x, y, epsilon, "cell")
            pattern = tuple(dp_swapping_cell_pair_pattern(a, b))
            assert value == pytest.approx(representative[pattern], abs=1e-12), (a, b)


def test_every_pattern_occurs_with_counts_up_to_four():
    from dadp_lite.theory.swapping import dp_swapping_cell_pair_pattern

    def patterns(bound):
        a, b = np.meshgrid(np.arange(1, bound + 1), np.arange(bound), indexing="ij")
        return {tuple(p) for p in dp_swapping_cell_pair_pattern(a.ravel(), b.ravel())}

    assert len(patterns(4)) == 9 and patterns(200) == patterns(4)
    assert len(patterns(3)) < 9


@pytest.mark.parametrize("n_q", [2, 9])
@pytest.mark.parametrize("bound", [1, 2, 3, 6])
def test_worst_pair_by_pattern_equals_every_pair(n_q, bound):
    from dadp_lite.theory.swapping import (
        dp_swapping_cell_worst_pair,
        dp_swapping_cell_worst_pair_any_bound,
    )

    for epsilon in (0.5, 2.0):
        every = dp_swapping_cell_worst_pair(epsilon, n_q=n_q, bound=bound)
        by_pattern = dp_swapping_cell_worst_pair_any_bound(epsilon, n_q=n_q, bound=bound)
        assert by_pattern[0] == pytest.approx(every[0], abs=1e-12)
        assert by_pattern[1] == every[1]


def test_worst_pair_at_the_largest_count_of_the_data_is_the_closed_form():
    from dadp_lite.theory.swapping import (
        dp_swapping_cell_delta,
        dp_swapping_cell_worst_pair_any_bound,
    )

    delta, pair = dp_swapping_cell_worst_pair_any_bound(0.5, n_q=9, bound=1054)
    assert delta == pytest.approx(dp_swapping_cell_delta(0.5, 9), abs=1e-12) and pair == (1, 1)
    with pytest.raises(ValueError, match="bound"):
        dp_swapping_cell_worst_pair_any_bound(0.5, n_q=9, bound=0)


def test_the_exact_delta_keeps_the_shape_of_its_epsilon():
    """A one-element array gives a one-element array (issue 33: chapter 6 with one epsilon
    failed with "'float' object is not iterable"); a number gives a number."""
    from dadp_lite import theory as th

    options = dict(n_q=2, n_groups=1, bound=2, unit="cell", adjacency="qi_replace")
    one = th.dp_swapping_exact_delta(np.array([0.5]), **options)
    assert isinstance(one, np.ndarray) and one.shape == (1,)
    assert isinstance(th.dp_swapping_exact_delta(0.5, **options), float)
    assert one[0] == th.dp_swapping_exact_delta(0.5, **options)
