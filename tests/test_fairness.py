"""alpha-fairness bounds, true alphas and the comparison-theorem search."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dadp_lite.experiments import comparisons as C
from dadp_lite.histogram import Histogram
from dadp_lite.mechanisms.cell_suppression import dp_cell_suppression
from dadp_lite.mechanisms.laplace import laplace
from dadp_lite.mechanisms.swapping import dp_swapping
from dadp_lite.simulate import simulate
from dadp_lite.theory import fairness as F
from dadp_lite.theory.baselines import (
    laplace_alpha_as_printed,
    projected_laplace_alpha,
    projected_laplace_bias,
    projected_laplace_variance,
)
from dadp_lite.theory.cell_suppression import dp_cell_suppression_moments
from dadp_lite.theory.swapping import dp_swapping_bias_as_printed

EPSILONS = [0.25, 1.0, 4.0]


def _random_histograms(seed: int, count: int = 200, n_cells: int = 6, top: int = 40):
    rng = np.random.default_rng(seed)
    return rng.integers(0, top + 1, size=(count, n_cells))


def _grouped(matrix: np.ndarray) -> Histogram:
    groups, n_q = matrix.shape
    return Histogram(matrix.ravel(), ("group", "qi"), (tuple(range(groups)), tuple(range(n_q))))


# ------------------------------------------------------------------ printed formulas
def test_cell_suppression_bound_as_printed_matches_hand_computation():
    # x = (2, 3), k = 2, eps = 1 (b = 2): p_1 = 1/2, p_n = exp(-1/2)/2
    p1, pn = 0.5, 0.5 * math.exp(-0.5)
    expected = 1 * p1 + max(abs(1 - 2), abs(1 - 3)) * (p1 - pn)
    assert F.alpha_cell_suppression_as_printed([3, 2], k=2, epsilon=1) == pytest.approx(expected)


def test_swapping_bound_as_printed_matches_hand_computation():
    value = F.alpha_swapping_as_printed([5, 1, 9], n_q=3, epsilon=1.0)
    assert value == pytest.approx(2 * 3 * 8 / (math.e + 2))


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_batched_laplace_bound_agrees_with_baselines(epsilon):
    hists = _random_histograms(1, count=20)
    batched = F._laplace_as_printed(hists.astype(float), epsilon)
    single = [laplace_alpha_as_printed(h, epsilon=epsilon) for h in hists]
    np.testing.assert_allclose(batched, single, rtol=1e-12)
    true = F._laplace_true(hists, epsilon)
    np.testing.assert_allclose(true, [projected_laplace_alpha(h, epsilon=epsilon) for h in hists])


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_laplace_proof_line_equals_true_alpha(epsilon):
    hists = _random_histograms(2, count=50)
    np.testing.assert_allclose(
        F.alpha_laplace_proof_line(hists, epsilon=epsilon), F._laplace_true(hists, epsilon),
        rtol=1e-12, atol=1e-15,
    )  # fmt: skip


# --------------------------------------------------------------- bounds vs true alpha
@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("k", [2, 6, 20])
def test_cell_suppression_bound_is_an_upper_bound(epsilon, k):
    hists = _random_histograms(3)
    true = F.alpha_cell_suppression(hists, k=k, epsilon=epsilon)
    bound = F.alpha_cell_suppression_as_printed(hists, k=k, epsilon=epsilon)
    assert np.all(true <= bound * (1 + 1e-12) + 1e-15)


def test_cell_suppression_bound_not_tight_when_max_is_half_threshold():
    # the proof claims equality when x_n = k/2; the gap is (k/2 - x_1)(p_1 - p_n) > 0
    x, k, epsilon = [0, 3], 6, 1.0
    true = F.alpha_cell_suppression(x, k=k, epsilon=epsilon)
    bound = F.alpha_cell_suppression_as_printed(x, k=k, epsilon=epsilon)
    p = 1 - 0.5 * np.exp(-np.array([6.0, 3.0]) / 2)
    assert bound - true == pytest.approx(3 * (p[0] - p[1]))
    assert true < bound


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("n_q", [2, 3, 9])
def test_swapping_bounds_hold_and_sharp_bound_is_attained(epsilon, n_q):
    mats = _random_histograms(4, count=100, n_cells=3 * n_q).reshape(100, 3, n_q)
    flat = mats.reshape(100, -1)
    true = F.alpha_swapping(mats, epsilon=epsilon)
    sharp = F.alpha_swapping_sharp_bound(flat, n_q=n_q, epsilon=epsilon)
    printed = F.alpha_swapping_as_printed(flat, n_q=n_q, epsilon=epsilon)
    assert np.all(true <= sharp * (1 + 1e-12))
    assert np.all(sharp < printed)
    extreme = np.array([[0] + [7] * (n_q - 1), [7] + [0] * (n_q - 1)])
    assert F.alpha_swapping(extreme, epsilon=epsilon) == pytest.approx(
        F.alpha_swapping_sharp_bound(extreme.ravel(), n_q=n_q, epsilon=epsilon)
    )


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_swapping_bias_matches_the_printed_proposition(epsilon):
    matrix = _random_histograms(5, count=4, n_cells=3).reshape(4, 3)
    hist = _grouped(matrix)
    printed = dp_swapping_bias_as_printed(hist, ("qi",), epsilon)
    np.testing.assert_allclose(
        F.swapping_bias(matrix, epsilon=epsilon).ravel(), printed, atol=1e-12
    )


# ------------------------------------------------------------------ comparison search
def test_search_finds_no_counterexample_to_the_printed_comparison():
    result = F.comparison_search(max_count=10, epsilons=(0.5, 2.0, 8.0), k_values=(2, 6, 10))
    printed = result.summary[result.summary["quantity"] == "printed"]
    assert (printed["checked"] > 0).all()
    assert (printed["violations"] == 0).all()


def test_search_finds_the_smallest_true_alpha_counterexamples():
    result = F.comparison_search(max_count=6, epsilons=(1.0,), k_values=(2,), n_qs=(2,))
    rows = result.violations
    cs = rows[rows["comparison"] == "laplace_vs_cell_suppression"].iloc[0]
    assert cs["counts"] == (2, 3) and cs["hypothesis"]
    assert cs["alpha_lap"] > cs["alpha_other"]
    sw = rows[rows["comparison"] == "laplace_vs_swapping"].iloc[0]
    assert sw["counts"] == (2, 2, 3, 3) and sw["alpha_other"] == pytest.approx(0, abs=1e-12)


def test_swapping_printed_comparison_needs_x1_at_least_two():
    result = F.comparison_search(max_count=4, epsilons=(4.0,), k_values=(2,), n_qs=(2,),
                                 hypothesis_only=False)  # fmt: skip
    rows = result.violations
    bad = rows[(rows["comparison"] == "laplace_vs_swapping") & (rows["quantity"] == "printed")]
    assert len(bad) > 0
    assert (bad["x_min"] < 2).all()


def test_search_sorts_smallest_counterexamples_first():
    rows = F.comparison_search(max_count=8, epsilons=(1.0, 2.0), k_values=(2, 4)).violations
    for _, group in rows.groupby(["comparison", "quantity"]):
        keys = list(zip(group["n_cells"], group["x_max"], group["total"]))
        assert keys == sorted(keys)


# ------------------------------------------------------------------------ Monte Carlo
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_simulated_biases_match_exact_biases(epsilon):
    x = np.array([0, 2, 3, 7, 15])
    reps = 20_000
    lap = simulate(laplace, x, reps=reps, seed=11, epsilon=epsilon, project=True)
    z_lap = C.bias_z_scores(lap, x, projected_laplace_bias(x, epsilon=epsilon),
                            projected_laplace_variance(x, epsilon=epsilon))  # fmt: skip
    cs = simulate(dp_cell_suppression, x, reps=reps, seed=12, k=6, epsilon=epsilon)
    moments = dp_cell_suppression_moments(x, k=6, epsilon=epsilon)
    z_cs = C.bias_z_scores(cs, x, moments.bias, moments.variance)
    assert np.max(np.abs(z_lap)) < 4.5 and np.max(np.abs(z_cs)) < 4.5


def test_simulated_swapping_bias_matches_exact_bias():
    matrix = np.array([[2, 2, 9], [0, 5, 1]])
    hist = _grouped(matrix)
    released = simulate(dp_swapping, hist, reps=20_000, seed=13, qi=("qi",), epsilon=1.0)
    z = C.bias_z_scores(released, hist.counts, F.swapping_bias(matrix, epsilon=1.0).ravel())
    assert np.max(np.abs(z)) < 4.5


def test_counterexample_confirmed_by_simulation():
    x, k, epsilon = np.array([2, 3]), 2, 1.0
    assert projected_laplace_alpha(x, epsilon=epsilon) > F.alpha_cell_suppression(
        x, k=k, epsilon=epsilon
    )
    reps = 400_000
    lap = simulate(
        laplace, x, reps=reps, seed=21, chunk_size=100_000, epsilon=epsilon, project=True
    )
    cs = simulate(
        dp_cell_suppression, x, reps=reps, seed=22, chunk_size=100_000, k=k, epsilon=epsilon
    )
    a_lap = C.simulated_alpha(lap, x, cells=(0, 1))  # exact bias is largest at x_1
    a_cs = C.simulated_alpha(cs, x)  # plug-in: biased upwards, conservative here
    z = (a_lap.alpha - a_cs.alpha) / math.hypot(a_lap.se, a_cs.se)
    assert z > 4.5


def test_simulated_alpha_plug_in_and_fixed_cells():
    released = np.array([[1.0, 5.0], [3.0, 5.0], [2.0, 8.0]])
    plug_in = C.simulated_alpha(released, [0, 0])
    assert plug_in.alpha == pytest.approx(6 - 2) and (plug_in.cell_max, plug_in.cell_min) == (1, 0)
    fixed = C.simulated_alpha(released, [0, 0], cells=(0, 1))
    assert fixed.alpha == pytest.approx(-4)
    with pytest.raises(ValueError, match="cells"):
        C.simulated_alpha(released, [0, 0], cells=(0, 5))


def test_z_scores_handle_constant_releases():
    released = np.full((10, 2), 3.0)
    z = C.bias_z_scores(released, [3, 1], [0.0, 2.0])
    assert np.array_equal(z, [0.0, 0.0])
    assert np.isinf(C.bias_z_scores(released, [3, 1], [0.5, 2.0])[0])


# -------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("epsilon", [0, -1.0, float("nan")])
def test_bad_epsilon_raises(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        F.alpha_cell_suppression_as_printed([1, 2], k=2, epsilon=epsilon)
    with pytest.raises(ValueError, match="epsilon"):
        F.alpha_swapping_as_printed([1, 2], n_q=2, epsilon=epsilon)
    with pytest.raises(ValueError, match="epsilon"):
        F.alpha_laplace_proof_line([1, 2], epsilon=epsilon)
    with pytest.raises(ValueError, match="epsilon"):
        F.comparison_search(max_count=3, epsilons=(epsilon,))


@pytest.mark.parametrize("k", [0, -2])
def test_bad_k_raises(k):
    with pytest.raises(ValueError, match="k"):
        F.alpha_cell_suppression_as_printed([1, 2], k=k, epsilon=1)
    with pytest.raises(ValueError, match="k"):
        F.alpha_cell_suppression([1, 2], k=k, epsilon=1)


@pytest.mark.parametrize("counts", [[], [1, -2], [1.5, 2]])
def test_bad_counts_raise(counts):
    with pytest.raises(ValueError, match="counts|matrix"):
        F.alpha_cell_suppression_as_printed(counts, k=2, epsilon=1)
    with pytest.raises(ValueError, match="counts|matrix"):
        F.alpha_swapping_as_printed(counts, n_q=2, epsilon=1)


def test_n_q_below_two_raises():
    with pytest.raises(ValueError, match="n_q"):
        F.alpha_swapping_as_printed([1, 2], n_q=1, epsilon=1)
    with pytest.raises(ValueError, match="n_q"):
        F.alpha_swapping_sharp_bound([1, 2], n_q=1, epsilon=1)
    with pytest.raises(ValueError, match="n_q"):
        F.alpha_swapping(np.array([[1], [2]]), epsilon=1)
    with pytest.raises(ValueError, match="n_q"):
        F.comparison_search(max_count=3, n_qs=(1,))
    with pytest.raises(ValueError, match="matrix"):
        F.alpha_swapping([1, 2], epsilon=1)


def test_swapping_bias_spread_gives_the_true_alpha_at_every_epsilon():
    rng = np.random.default_rng(11)
    for _ in range(50):
        matrix = rng.negative_binomial(1, 0.1, size=(4, 3))
        spread = F.swapping_bias_spread(matrix)
        for eps in (0.25, 1.0, 4.0):
            true = F.alpha_swapping(matrix, epsilon=eps)
            printed = F.alpha_swapping_as_printed(matrix.ravel(), n_q=3, epsilon=eps)
            assert math.isclose(spread.alpha(eps), true, rel_tol=1e-12, abs_tol=1e-12)
            if true > 0:
                assert math.isclose(spread.printed_ratio, printed / true, rel_tol=1e-12)


def test_swapping_bias_spread_from_the_group_of_the_largest_cell():
    # the largest cell's group holds the smallest count of its group, m = 2, and x_1 = 0
    matrix = np.array([[2, 50, 9], [0, 1, 1]])
    spread = F.swapping_bias_spread(matrix)
    assert spread.in_largest_group and spread.group_min == 2 and spread.smallest == 0
    assert spread.spread == 3 * (50 - 2)
    assert math.isclose(spread.printed_ratio, 2 * 50 / 48)
    # a group (0, 10, 10) next to (10, 0, 0): the largest value of S - n_Q x sits elsewhere
    other = F.swapping_bias_spread(np.array([[0, 10, 10], [10, 0, 0]]))
    assert not other.in_largest_group and other.spread == 40
    assert math.isclose(other.printed_ratio, 2 * 3 * 10 / 40)  # n_Q / (n_Q - 1) of the sharp


def test_swapping_bias_spread_refuses_batches_and_bad_input():
    with pytest.raises(ValueError):
        F.swapping_bias_spread(np.zeros((2, 2, 3), dtype=int))
    with pytest.raises(ValueError):
        F.swapping_bias_spread(np.array([[1, -1]]))
    with pytest.raises(ValueError):
        F.swapping_bias_spread(np.array([1, 2, 3]))
    with pytest.raises(ValueError):
        F.swapping_bias_spread(np.ones((2, 2))).alpha(0.0)


@pytest.mark.parametrize(
    ("counts", "comparison", "settings"),
    [
        ((2, 3), "laplace_vs_cell_suppression", {"k": 2}),
        ((2, 2, 3, 3), "laplace_vs_swapping", {"n_q": 2}),
    ],  # fmt: skip
)
def test_confirm_counterexample_estimates_both_alphas_without_bias(counts, comparison, settings):
    """Both alphas are pair estimates (differences of two cells' mean biases), so z is
    normal around expected_z with variance 1: |z - expected_z| within z_limit(1)."""
    from dadp_lite.experiments.fairness import confirm_counterexample
    from dadp_lite.verification import z_limit

    check = confirm_counterexample(np.array(counts), comparison=comparison, epsilon=1.0,
                                   seed=5, pilot_reps=2_000, target_z=6.0, **settings)  # fmt: skip
    x = np.array(counts)
    if comparison == "laplace_vs_cell_suppression":
        other = F.alpha_cell_suppression(x, k=settings["k"], epsilon=1.0)
    else:
        other = F.alpha_swapping(x.reshape(-1, settings["n_q"]), epsilon=1.0)
    assert check.alpha_other_exact == pytest.approx(other, abs=1e-12)
    assert check.alpha_lap_exact == pytest.approx(projected_laplace_alpha(x, epsilon=1.0))
    se = math.hypot(check.alpha_lap.se, check.alpha_other.se)
    assert check.expected_z == pytest.approx((check.alpha_lap_exact - other) / se)
    assert abs(check.z - check.expected_z) < z_limit(1)
