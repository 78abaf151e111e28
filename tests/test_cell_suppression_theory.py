"""Privacy and bias theory of DP cell suppression: printed formulas against exact answers."""

import math

import numpy as np
import pytest
from scipy import integrate

from dadp_lite.experiments import bias_z_scores_by_count
from dadp_lite.mechanisms.cell_suppression import dp_cell_suppression
from dadp_lite.theory.cell_suppression import (
    cell_suppression_bias,
    dp_cell_suppression_bias,
    dp_cell_suppression_bias_as_printed,
    dp_cell_suppression_delta_as_printed,
    dp_cell_suppression_delta_closed_form,
    dp_cell_suppression_exact_delta,
    dp_cell_suppression_l1_bound_as_printed,
    dp_cell_suppression_moments,
    dp_cell_suppression_worst_case,
    noisy_threshold_output_distribution,
    per_cell_output_distribution,
    suppression_probabilities,
    threshold_interval_probabilities,
)
from dadp_lite.theory.cell_suppression import (
    dp_cell_suppression_l1_error_moments as cs_l1_moments,
)
from dadp_lite.theory.privacy import worst_case_delta

ADJACENCIES = ("replace", "add_remove")
VARIANTS = ("per_cell", "noisy_threshold")


# ------------------------------------------------------------------ privacy
def test_printed_delta_is_the_printed_formula():
    eps = np.array([0.5, 1.0, 2.0])
    expected = 1 - 0.25 * np.exp(-eps * (10 - 4))
    np.testing.assert_allclose(dp_cell_suppression_delta_as_printed(eps, 4, 10), expected)
    assert isinstance(dp_cell_suppression_delta_as_printed(1.0, 4, 10), float)


@pytest.mark.parametrize("adjacency", ADJACENCIES)
@pytest.mark.parametrize("k", [1.0, 2.0, 3.0])
def test_per_cell_exact_delta_matches_brute_force_enumeration(adjacency, k):
    bound, epsilons = 4, np.array([0.3, 1.0, 2.5])

    def law(x):
        return per_cell_output_distribution(x, k=k, epsilon=eps, bound=bound)

    for eps in epsilons:
        brute = worst_case_delta(law, 2, bound, adjacency, eps)
        fast = dp_cell_suppression_exact_delta(eps, k=k, bound=bound, adjacency=adjacency)
        assert fast == pytest.approx(brute, abs=1e-12)


@pytest.mark.parametrize("adjacency", ADJACENCIES)
@pytest.mark.parametrize("n_cells,bound", [(2, 4), (3, 3)])
def test_noisy_threshold_exact_delta_matches_brute_force_enumeration(adjacency, n_cells, bound):
    k = 2.0
    for eps in (0.4, 1.5):

        def law(x, eps=eps):
            return noisy_threshold_output_distribution(x, k=k, epsilon=eps, bound=bound)

        brute = worst_case_delta(law, n_cells, bound, adjacency, eps)
        fast = dp_cell_suppression_exact_delta(
            eps, k=k, bound=bound, adjacency=adjacency, variant="noisy_threshold", n_cells=n_cells
        )
        assert fast == pytest.approx(brute, abs=1e-12)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("adjacency", ADJACENCIES)
@pytest.mark.parametrize("k,bound", [(1, 2), (2, 5), (3.5, 6), (6, 9)])
def test_exact_delta_never_exceeds_printed_delta_when_k_below_bound(variant, adjacency, k, bound):
    eps = np.array([0.25, 1.0, 3.0])
    exact = dp_cell_suppression_exact_delta(
        eps, k=k, bound=bound, adjacency=adjacency, variant=variant
    )
    assert np.all(exact <= dp_cell_suppression_delta_as_printed(eps, k, bound) + 1e-12)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("adjacency", ADJACENCIES)
@pytest.mark.parametrize("k,bound", [(1, 3), (2, 3), (2.5, 6), (4, 7)])
def test_closed_form_delta_matches_enumeration(variant, adjacency, k, bound):
    eps = np.array([0.2, 0.8, 2.0, 4.0])
    exact = dp_cell_suppression_exact_delta(
        eps, k=k, bound=bound, adjacency=adjacency, variant=variant
    )
    closed = dp_cell_suppression_delta_closed_form(
        eps, k=k, bound=bound, adjacency=adjacency, variant=variant
    )
    np.testing.assert_allclose(exact, closed, atol=1e-12)


def test_per_cell_replace_worst_pair_holds_the_largest_counts():
    worst = dp_cell_suppression_worst_case(1.0, k=3, bound=7, adjacency="replace")
    assert worst.x == (7, 6) and worst.x_prime == (6, 7)


def test_closed_form_refuses_parameters_outside_its_range():
    with pytest.raises(ValueError, match="bound"):
        dp_cell_suppression_delta_closed_form(1.0, k=4.5, bound=5, adjacency="replace")
    with pytest.raises(ValueError, match="bound"):
        dp_cell_suppression_delta_closed_form(1.0, k=5, bound=5, adjacency="add_remove")


@pytest.mark.parametrize("variant", VARIANTS)
def test_output_distribution_matches_simulated_frequencies(variant):
    x, k, eps, bound, reps = np.array([1, 3]), 2.0, 1.0, 4, 20000
    rng = np.random.default_rng(21)
    released = dp_cell_suppression(x, k=k, epsilon=eps, rng=rng, reps=reps, variant=variant)
    if variant == "per_cell":
        law = per_cell_output_distribution(x, k=k, epsilon=eps, bound=bound)
        values = list(range(bound + 1)) + [k / 2] if k / 2 % 1 else list(range(bound + 1))
        index = np.array([[values.index(v) for v in row] for row in released])
        codes = np.ravel_multi_index(index.T, (len(values),) * x.size)
    else:
        law = noisy_threshold_output_distribution(x, k=k, epsilon=eps, bound=bound)
        inside = np.all(released <= bound, axis=1)
        codes = np.full(reps, law.size - 1)
        codes[inside] = np.ravel_multi_index(released[inside].astype(int).T, (bound + 1,) * x.size)
    freq = np.bincount(codes, minlength=law.size) / reps
    se = np.sqrt(np.maximum(law * (1 - law), 1e-12) / reps)
    assert np.all(np.abs(freq - law) / se < 4.5)


def test_threshold_interval_probabilities_sum_to_one_and_match_cdf_differences():
    probs = threshold_interval_probabilities(3.0, 0.7, 10)
    assert probs.sum() == pytest.approx(1.0, abs=1e-14)
    scale = 2 / 0.7
    cdf = [
        0.5 * math.exp((t - 3) / scale) if t < 3 else 1 - 0.5 * math.exp(-(t - 3) / scale)
        for t in (4, 5)
    ]
    assert probs[5] == pytest.approx(cdf[1] - cdf[0], rel=1e-12)  # interval (4, 5)


@pytest.mark.parametrize(
    "call",
    [
        lambda: dp_cell_suppression_exact_delta(1.0, k=2, bound=4, adjacency="qi_replace"),
        lambda: dp_cell_suppression_exact_delta(1.0, k=2, bound=4, variant="svt"),
        lambda: dp_cell_suppression_exact_delta(0.0, k=2, bound=4),
        lambda: dp_cell_suppression_exact_delta(1.0, k=-1, bound=4),
        lambda: dp_cell_suppression_exact_delta(1.0, k=2, bound=0),
        lambda: dp_cell_suppression_delta_as_printed(-1.0, 2, 4),
        lambda: dp_cell_suppression_bias([1, -1], k=2, epsilon=1.0),
        lambda: suppression_probabilities([1.5], k=2, epsilon=1.0),
        lambda: cell_suppression_bias([1, 2], k=2, form="other"),
    ],
)
def test_theory_functions_reject_bad_input(call):
    with pytest.raises(ValueError):
        call()


# ------------------------------------------------------------------ bias
X = np.array([0, 1, 2, 3, 4, 5, 6, 7, 9, 15, 40])


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_per_cell_bias_equals_the_printed_expression(epsilon):
    exact = dp_cell_suppression_bias(X, k=6, epsilon=epsilon, variant="per_cell")
    printed = dp_cell_suppression_bias_as_printed(X, k=6, epsilon=epsilon)
    np.testing.assert_allclose(exact, printed, rtol=1e-12, atol=1e-15)


def _noisy_threshold_bias_by_quadrature(x, k, epsilon):
    """E[(floor(k~/2) - x) 1{x < k~}] by numerical integration of the Laplace density."""
    scale = 2 / epsilon
    total = 0.0
    for j in range(int(x), int(k + 60 * scale) + 2):  # floor(k~/2) is constant on (j, j+1)
        mass, _ = integrate.quad(lambda t: math.exp(-abs(t - k) / scale) / (2 * scale), j, j + 1)
        total += (j // 2 - x) * mass
    return total


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_noisy_threshold_bias_matches_quadrature(epsilon):
    exact = dp_cell_suppression_bias(X, k=6, epsilon=epsilon, variant="noisy_threshold")
    quad = [_noisy_threshold_bias_by_quadrature(x, 6, epsilon) for x in X]
    np.testing.assert_allclose(exact, quad, atol=1e-9)


def test_noisy_threshold_bias_differs_from_the_printed_expression():
    exact = dp_cell_suppression_bias(X, k=6, epsilon=1.0, variant="noisy_threshold")
    printed = dp_cell_suppression_bias_as_printed(X, k=6, epsilon=1.0)
    assert np.max(np.abs(exact - printed)) > 0.1


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_bias_and_expected_l1_error_match_simulation(variant, epsilon):
    reps, k = 20000, 6
    moments = dp_cell_suppression_moments(X, k=k, epsilon=epsilon, variant=variant)
    rng = np.random.default_rng(31)
    released = dp_cell_suppression(X, k=k, epsilon=epsilon, rng=rng, reps=reps, variant=variant)
    p = suppression_probabilities(X, k=k, epsilon=epsilon)
    normal = (reps * p * (1 - p) >= 20) & (moments.variance > 0)  # CLT regime
    degenerate = moments.variance == 0  # e.g. x = k/2 per cell: released exactly
    np.testing.assert_allclose(released[:, degenerate].mean(axis=0) - X[degenerate], 0, atol=1e-12)
    se = np.sqrt(moments.variance / reps)
    z = (released.mean(axis=0) - X - moments.bias)[normal] / se[normal]
    assert np.all(np.abs(z) < 4.5), z
    errors = np.abs(released - X).sum(axis=1)
    z_l1 = (errors.mean() - moments.abs_error.sum()) / (errors.std(ddof=1) / math.sqrt(reps))
    assert abs(z_l1) < 4.5


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cauchy_schwarz_bound_holds_for_per_cell_bias(seed):
    x = np.random.default_rng(seed).integers(0, 60, size=200)
    for epsilon in (0.5, 2.0):
        exact_l1 = np.abs(dp_cell_suppression_bias(x, k=6, epsilon=epsilon)).sum()
        assert exact_l1 <= dp_cell_suppression_l1_bound_as_printed(x, k=6, epsilon=epsilon) + 1e-9


def test_traditional_bias_forms():
    np.testing.assert_array_equal(cell_suppression_bias(X, k=5), np.where(X < 5, 2 - X, 0))
    np.testing.assert_array_equal(
        cell_suppression_bias(X, k=5, form="main_text"), np.maximum(X, 2.5) - X
    )


@pytest.mark.parametrize("variant", VARIANTS)
def test_l1_error_moments_match_simulation(variant):
    reps, k, epsilon = 20000, 6, 0.7
    mean, variance = cs_l1_moments(X, k=k, epsilon=epsilon, variant=variant)
    rng = np.random.default_rng(41)
    released = dp_cell_suppression(X, k=k, epsilon=epsilon, rng=rng, reps=reps, variant=variant)
    errors = np.abs(released - X).sum(axis=1)
    assert abs(errors.mean() - mean) / math.sqrt(variance / reps) < 4.5
    # variance of the sample variance ~ (m4 - var^2) / reps: check within 4.5 of its SE
    m4 = np.mean((errors - errors.mean()) ** 4)
    assert abs(errors.var() - variance) / math.sqrt((m4 - variance**2) / reps) < 4.5
    moments = dp_cell_suppression_moments(X, k=k, epsilon=epsilon, variant=variant)
    assert mean == pytest.approx(moments.abs_error.sum(), rel=1e-12)


def test_bias_z_scores_by_count_pools_equal_counts():
    x = np.array([0, 0, 0, 3, 9, 9])
    rng = np.random.default_rng(5)
    released = dp_cell_suppression(x, k=4, epsilon=1.0, rng=rng, reps=500)
    table = bias_z_scores_by_count(released, x, k=4, epsilon=1.0)
    assert list(table["count"]) == [0, 3, 9] and list(table.cells) == [3, 1, 2]
    assert np.all(np.abs(table.z[table.clt]) < 4.5)


@pytest.mark.parametrize("variant", ["per_cell", "noisy_threshold"])
@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_bias_by_integration_matches_the_closed_form(variant, epsilon):
    from dadp_lite.theory.cell_suppression import dp_cell_suppression_bias_by_integration

    x = np.array([0, 1, 2, 3, 5, 6, 7, 11, 40])
    by_quadrature = dp_cell_suppression_bias_by_integration(
        x, k=6, epsilon=epsilon, variant=variant
    )
    closed = dp_cell_suppression_bias(x, k=6, epsilon=epsilon, variant=variant)
    np.testing.assert_allclose(by_quadrature, closed, rtol=0, atol=1e-11)


# ------------------------------------------------ brute force and the proof's safe set
def test_output_distributions_of_a_batch_are_the_rows_of_single_histograms():
    from dadp_lite.theory.privacy import histograms_up_to

    batch = histograms_up_to(3, 3)
    for law in (per_cell_output_distribution, noisy_threshold_output_distribution):
        rows = law(batch, k=2, epsilon=0.7, bound=3)
        singles = np.array([law(h, k=2, epsilon=0.7, bound=3) for h in batch])
        np.testing.assert_array_equal(rows, singles)
        np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("variant,n_cells,bound", [("per_cell", 2, 5), ("noisy_threshold", 2, 5),
                                                   ("noisy_threshold", 3, 3)])  # fmt: skip
@pytest.mark.parametrize("adjacency", ADJACENCIES)
def test_brute_force_equals_the_generic_worst_case_delta(variant, n_cells, bound, adjacency):
    from dadp_lite.theory.cell_suppression import brute_force_exact_delta

    law = per_cell_output_distribution if variant == "per_cell" else (
        noisy_threshold_output_distribution)  # fmt: skip
    for k in (1, 2, 3):
        for eps in (0.3, 2.0):
            generic = worst_case_delta(lambda x, eps=eps, k=k: law(x, k=k, epsilon=eps,
                                       bound=bound), n_cells, bound, adjacency, eps)  # fmt: skip
            brute = brute_force_exact_delta(eps, k=k, bound=bound, adjacency=adjacency,
                                            variant=variant, n_cells=n_cells)  # fmt: skip
            assert brute == pytest.approx(generic, abs=1e-12)


@pytest.mark.parametrize("variant,n_cells,max_bound", [("per_cell", 2, 8),
                         ("noisy_threshold", 2, 8), ("noisy_threshold", 3, 5),
                         ("noisy_threshold", 4, 3)])  # fmt: skip
def test_brute_force_agrees_with_the_closed_forms_for_every_k_below_bound(
    variant, n_cells, max_bound
):
    from dadp_lite.theory.cell_suppression import brute_force_exact_delta

    eps = np.array([0.2, 1.0, 3.0])
    for bound in range(2, max_bound + 1):
        for k in range(1, bound):
            for adjacency in ADJACENCIES:
                brute = brute_force_exact_delta(eps, k=k, bound=bound, adjacency=adjacency,
                                                variant=variant, n_cells=n_cells)  # fmt: skip
                closed = dp_cell_suppression_delta_closed_form(
                    eps, k=k, bound=bound, adjacency=adjacency, variant=variant)  # fmt: skip
                np.testing.assert_allclose(brute, closed, rtol=0, atol=1e-12)


def test_brute_force_refuses_a_table_above_its_limit():
    from dadp_lite.theory.cell_suppression import brute_force_exact_delta, brute_force_table_size

    assert brute_force_table_size(2, 3) == 16 * 17
    with pytest.raises(ValueError, match="entries"):
        brute_force_exact_delta(1.0, k=2, bound=20, variant="noisy_threshold", n_cells=4)


def _suppressed(count, k, eps):
    """P(count + Lap(2/eps) < k), from the Laplace CDF written out."""
    t = k - count
    return 1 - 0.5 * math.exp(-eps * t / 2) if t >= 0 else 0.5 * math.exp(eps * t / 2)


def _safe_ratio(x, y, k, eps):
    """Ratio on {o : o_a = o_b = k/2}: a count k/2 outputs k/2 with probability 1."""

    def half(c):
        return 1.0 if 2 * c == k else _suppressed(c, k, eps)

    return half(x[0]) * half(x[1]) / (half(y[0]) * half(y[1]))


def test_proof_set_counterexample_is_the_first_failure_in_the_stated_order():
    from dadp_lite.theory.cell_suppression import proof_set_counterexample

    grid = (0.5, 1.0, 2.0, 4.0)
    first = None
    for k in range(2, 8, 2):  # independent search with the written-out law
        for bound in range(k + 1, 9):
            for a in range(bound + 1):
                for b in range(bound + 1):
                    moves = [(a - 1, b + 1), (a + 1, b - 1)]  # neighbours' order: cell 0 first
                    for y in [m for m in moves if 0 <= min(m) and max(m) <= bound]:
                        for eps in grid:
                            if first is None and _safe_ratio((a, b), y, k, eps) > math.exp(eps):
                                first = (k, bound, (a, b), y, eps)
    found = proof_set_counterexample(grid, max_bound=8)
    assert (found.k, found.bound, found.x, found.x_prime, found.epsilon) == first
    assert found.ratio == pytest.approx(_safe_ratio(found.x, found.x_prime, found.k, found.epsilon),
                                        rel=1e-12)  # fmt: skip
    assert found.ratio > math.exp(found.epsilon)


def test_proof_set_counterexample_numbers_against_the_written_out_law():
    from dadp_lite.theory.cell_suppression import proof_set_counterexample

    found = proof_set_counterexample([0.5], max_bound=8)
    k, eps = found.k, found.epsilon
    assert (k, found.x, found.x_prime) == (2, (1, 1), (0, 2))
    # D = (1, 1): both counts equal k/2, so M(D) = (1, 1) with probability 1
    assert found.true_mass == 0.0
    assert found.proof_mass == pytest.approx(1 - _suppressed(1, k, eps) ** 2, abs=1e-12)
    q_point = _suppressed(0, k, eps) * _suppressed(2, k, eps)  # M(D') = (1, 1)
    assert found.ratio == pytest.approx(1 / q_point, rel=1e-12)
    assert found.lemma_delta == 1.0  # the only output of D has loss above eps
    assert found.pair_delta == pytest.approx(1 - math.exp(eps) * q_point, abs=1e-12)
    assert found.lemma_delta > found.printed_delta >= found.worst_delta >= found.pair_delta


def test_proof_set_threshold_at_k_2_is_ln_5_over_2():
    from dadp_lite.theory.cell_suppression import proof_set_counterexample, proof_set_threshold

    # k = 2: the largest ratio is 1 / (P(0 suppressed) P(2 suppressed)) = 2 / (1 - e^-eps / 2),
    # which equals e^eps where e^eps = 5/2
    assert proof_set_threshold(2, bound=5) == pytest.approx(math.log(2.5), abs=1e-9)
    thresholds = [proof_set_threshold(k, bound=k + 3) for k in (2, 4, 6)]
    assert thresholds == sorted(thresholds, reverse=True)
    above = [thresholds[0] * 1.01, 2.0]
    assert proof_set_counterexample(above, max_bound=9) is None
    below = proof_set_counterexample([thresholds[0] * 0.99], max_bound=9)
    assert below is not None and below.k == 2


def test_proof_set_functions_refuse_bad_input():
    from dadp_lite.theory.cell_suppression import (
        proof_set_counterexample,
        proof_set_ratio,
        proof_set_threshold,
    )

    with pytest.raises(ValueError, match="even"):
        proof_set_ratio((1, 1), (0, 2), k=3, epsilon=1.0, bound=5)
    with pytest.raises(ValueError, match="even"):
        proof_set_threshold(4, bound=4)
    with pytest.raises(ValueError, match="bound"):
        proof_set_ratio((1, 9), (0, 10), k=2, epsilon=1.0, bound=5)
    with pytest.raises(ValueError, match="max_bound"):
        proof_set_counterexample([0.5], max_bound=2)
    with pytest.raises(ValueError, match="epsilon"):
        proof_set_counterexample([0.0], max_bound=5)


@pytest.mark.parametrize("k,bound", [(2, 3), (4, 7), (6, 9)])
def test_proof_set_ratio_is_read_off_the_per_cell_output_law(k, bound):
    from dadp_lite.theory.cell_suppression import proof_set_ratio
    from dadp_lite.theory.privacy import histograms_up_to, neighbours

    at = (k // 2) * (bound + 1) + k // 2  # the outcome (k/2, k/2) of V^2, V = 0..bound
    for eps in (0.3, 1.5):
        for x in histograms_up_to(2, bound):
            p = per_cell_output_distribution(x, k=k, epsilon=eps, bound=bound)[at]
            for y in neighbours(x, "replace", bound):
                q = per_cell_output_distribution(y, k=k, epsilon=eps, bound=bound)[at]
                ratio = proof_set_ratio(x, y, k=k, epsilon=eps, bound=bound)
                assert ratio == pytest.approx(p / q, rel=1e-9)


# ---------------------------------------------- moment generating functions of the error
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_error_log_mgfs_have_the_exact_moments_as_derivatives(variant, epsilon):
    from dadp_lite.theory.cell_suppression import (
        dp_cell_suppression_error_log_mgf,
        dp_cell_suppression_l1_error_log_mgf,
    )

    x = np.array([0, 1, 2, 3, 5, 6, 7, 11, 40])
    h = 1e-5
    cells = dp_cell_suppression_error_log_mgf(x, [-h, 0.0, h], k=6, epsilon=epsilon,
                                              variant=variant)  # fmt: skip
    moments = dp_cell_suppression_moments(x, k=6, epsilon=epsilon, variant=variant)
    np.testing.assert_allclose(cells[:, 1], 0.0, atol=1e-15)
    np.testing.assert_allclose((cells[:, 2] - cells[:, 0]) / (2 * h), moments.bias, atol=1e-7)
    curvature = (cells[:, 2] - 2 * cells[:, 1] + cells[:, 0]) / h**2
    np.testing.assert_allclose(curvature, moments.variance, rtol=1e-4, atol=1e-6)
    total = dp_cell_suppression_l1_error_log_mgf(x, [-h, 0.0, h], k=6, epsilon=epsilon,
                                                 variant=variant)  # fmt: skip
    mean, variance = cs_l1_moments(x, k=6, epsilon=epsilon, variant=variant)
    assert (total[2] - total[0]) / (2 * h) == pytest.approx(mean, rel=1e-6)
    assert (total[2] - 2 * total[1] + total[0]) / h**2 == pytest.approx(variance, rel=1e-4)


def test_per_cell_error_log_mgf_is_the_two_point_law():
    from dadp_lite.theory.cell_suppression import dp_cell_suppression_error_log_mgf

    x, t = np.array([0, 4, 9]), np.array([-0.7, 0.3, 2.0])
    p = suppression_probabilities(x, k=5, epsilon=1.0)
    expected = np.log(1 - p[:, None] + p[:, None] * np.exp(t[None, :] * (2.5 - x)[:, None]))
    got = dp_cell_suppression_error_log_mgf(x, t, k=5, epsilon=1.0)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_error_log_mgfs_refuse_t_beyond_their_cut():
    from dadp_lite.theory.cell_suppression import (
        dp_cell_suppression_error_log_mgf,
        dp_cell_suppression_l1_error_log_mgf,
    )

    with pytest.raises(ValueError, match="1/b"):
        dp_cell_suppression_error_log_mgf(
            [1, 2], [0.6], k=4, epsilon=1.0, variant="noisy_threshold"
        )
    with pytest.raises(ValueError, match="2 n b"):
        dp_cell_suppression_l1_error_log_mgf([1, 2], [0.2], k=4, epsilon=1.0,
                                             variant="noisy_threshold")  # fmt: skip


@pytest.mark.parametrize("variant", VARIANTS)
def test_bias_by_count_chernoff_column_flags_a_wrong_exact_value(variant):
    x = np.repeat([0, 1, 3, 4, 8], 20)
    released = dp_cell_suppression(x, k=4, epsilon=1.0, rng=np.random.default_rng(3),
                                   reps=400, variant=variant)  # fmt: skip
    table = bias_z_scores_by_count(released, x, k=4, epsilon=1.0, variant=variant)
    from dadp_lite.verification import chernoff_log_limit

    assert np.all(table.log_chernoff >= chernoff_log_limit(len(table)))
    shifted = released + (x == 0) * 1.0  # every empty cell one record too high
    wrong = bias_z_scores_by_count(shifted, x, k=4, epsilon=1.0, variant=variant)
    assert wrong.log_chernoff.min() < chernoff_log_limit(len(table))
