"""DP k-anonymity theory: d as printed vs corrected vs exact, and the indicator bias."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

import dadp_lite as dl
from dadp_lite.definitions import sampling_probability
from dadp_lite.theory.k_anonymity import (
    compare_indicator_bias,
    d_as_printed,
    d_corrected,
    indicator_bias,
    indicator_bias_as_printed,
    printed_pmf,
    printed_pmf_total,
    subsampling_delta,
    subsampling_pair_delta,
)
from dadp_lite.theory.privacy import binomial_pmf, worst_case_delta

EPSILONS = (0.5, 1.0, 2.0, 4.0)
PAPER_TABLE_DELTA = {0.5: 0.878, 1.0: 0.906, 2.0: 0.981, 4.0: 0.999}  # Tables 1-3


def beta_of(epsilon):
    return 1 - math.exp(-epsilon)


@pytest.mark.parametrize("w", [1, 3, 10])
@pytest.mark.parametrize("beta", [0.2, 0.632, 0.95])
def test_printed_f_is_not_a_pmf(w, beta):
    total = printed_pmf(w, beta).sum()
    assert total == pytest.approx(printed_pmf_total(w, beta), rel=1e-12)
    assert total < 1 - 1e-3


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_corrected_d_reproduces_the_paper_table(epsilon):
    for bound in (5, 50, 500):
        value = d_corrected(2, beta_of(epsilon), epsilon, bound)
        assert math.floor(value * 1000) / 1000 == PAPER_TABLE_DELTA[epsilon]


def test_printed_d_does_not_reproduce_the_paper_table():
    values = [d_as_printed(2, beta_of(e), e, 50) for e in EPSILONS]
    truncated = [math.floor(v * 1000) / 1000 for v in values]
    assert truncated != [PAPER_TABLE_DELTA[e] for e in EPSILONS]


@pytest.mark.parametrize("function", [d_as_printed, d_corrected])
def test_d_does_not_depend_on_k(function):
    values = {function(k, 0.5, 1.0, 20) for k in (1, 2, 10, 100)}
    assert len(values) == 1


@pytest.mark.parametrize("adjacency", ["replace", "add_remove"])
@pytest.mark.parametrize(("beta", "epsilon"), [(0.6, 1.0), (0.3, 0.2), (0.9, 3.0)])
def test_pairwise_enumeration_equals_generic_worst_case(adjacency, beta, epsilon):
    bound = 3

    def thinned(x):
        law = np.ones(1)
        for count in x:
            cell = np.zeros(bound + 1)
            cell[: count + 1] = binomial_pmf(int(count), beta)
            law = np.multiply.outer(law, cell).ravel()
        return law

    generic = worst_case_delta(thinned, 2, bound, adjacency, epsilon)
    assert subsampling_delta(beta, epsilon, bound, adjacency) == pytest.approx(generic, abs=1e-12)


@pytest.mark.parametrize("adjacency", ["replace", "add_remove"])
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_exact_delta_of_subsample_is_beta(adjacency, epsilon):
    """With beta = 1 - e^-eps the worst pair is a lone record kept or not: delta = beta."""
    beta = beta_of(epsilon)
    for bound in (1, 4, 12):
        assert subsampling_delta(beta, epsilon, bound, adjacency) == pytest.approx(beta, abs=1e-12)


def test_lone_record_pair_attains_beta():
    assert subsampling_pair_delta((1, 0), (0, 1), 0.4, 0.5) == pytest.approx(0.4)


def test_d_is_valid_but_not_tight():
    for beta in np.linspace(0.05, 0.95, 10):
        for epsilon in np.linspace(0.1, 4.0, 10):
            exact = max(subsampling_delta(beta, epsilon, 6, a) for a in ("replace", "add_remove"))
            corrected = d_corrected(1, beta, epsilon, 6)
            printed = d_as_printed(1, beta, epsilon, 6)
            assert exact <= corrected + 1e-12 and corrected <= printed + 1e-12
    assert d_corrected(1, beta_of(0.5), 0.5, 50) - beta_of(0.5) > 0.4


@pytest.mark.parametrize("k", [1, 2, 6, 20])
@pytest.mark.parametrize("beta", [0.1, 0.63, 0.98])
def test_printed_bias_sum_is_a_binomial_cdf(k, beta):
    x = np.arange(0, 80)
    assert np.allclose(
        indicator_bias_as_printed(x, k, beta), indicator_bias(x, k, beta), atol=1e-12
    )
    assert np.all(indicator_bias(x[x < k], k, beta) == 0)


@pytest.mark.parametrize(("k", "epsilon"), [(2, 0.5), (6, 1.0), (10, 2.0)])
def test_indicator_bias_matches_row_subsampling(k, epsilon):
    records = dl.load_records("ma2019")
    hist = dl.histogram_of(records)
    cell_of_row = np.ravel_multi_index(
        tuple(
            np.searchsorted(np.asarray(d), records[a].to_numpy())
            for a, d in zip(hist.attributes, hist.domains, strict=True)
        ),
        hist.shape,
    )
    beta, reps = beta_of(epsilon), 400
    keep = np.random.default_rng(k).random((reps, len(records))) < beta
    sampled = np.stack([np.bincount(cell_of_row[row], minlength=hist.n_cells) for row in keep])
    indicator = (sampled < k).astype(float) - (hist.counts < k)
    result = compare_indicator_bias(indicator, indicator_bias_as_printed(hist.counts, k, beta))
    assert result["n_normal"] > 10
    # the chapter's design: exact binomial tails, false failure 1e-6 over all cells tested
    assert result["min_p_value"] >= dl.FALSE_FAILURE / result["n_tested"]


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: d_as_printed(0, 0.5, 1.0, 5), ValueError),
        (lambda: d_corrected(1, 0.0, 1.0, 5), ValueError),
        (lambda: d_corrected(1, 1.2, 1.0, 5), ValueError),
        (lambda: d_corrected(1, 0.5, -1.0, 5), ValueError),
        (lambda: d_corrected(1, 0.5, 1.0, 0), ValueError),
        (lambda: subsampling_delta(0.5, 1.0, 3, "qi_replace"), ValueError),
        (lambda: indicator_bias(np.arange(3), 0, 0.5), ValueError),
        (lambda: printed_pmf(3, 0.0), ValueError),
    ],
)
def test_bad_input_raises(call, error):
    with pytest.raises(error):
        call()


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("bound", [1, 3, 12])
def test_proof_set_delta_is_the_minimum_over_every_pair_and_at_most_d(epsilon, bound):
    from dadp_lite.theory.k_anonymity import d_proof_set, proof_set_probability

    beta = sampling_probability(epsilon)
    smallest = min(proof_set_probability(v, w, beta, epsilon)
                   for w in range(1, bound + 1) for v in range(bound))  # fmt: skip
    assert d_proof_set(beta, epsilon, bound) == pytest.approx(1 - smallest, abs=1e-12)
    assert d_proof_set(beta, epsilon, bound) <= d_corrected(2, beta, epsilon, bound) + 1e-12
    assert d_proof_set(beta, epsilon, bound) >= beta - 1e-12  # the lone record: P(S) <= 1 - beta


def test_proof_set_probability_uses_the_larger_threshold_on_the_smaller_count():
    from dadp_lite.theory.k_anonymity import proof_set_probability

    beta, epsilon = 0.6, 1.0
    nu = lambda w: math.floor((1 - math.exp(-epsilon)) * w)  # noqa: E731
    expected = binom.cdf(nu(3), 3, beta) * binom.cdf(nu(5), 4, beta)
    assert proof_set_probability(4, 3, beta, epsilon) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="x_last"):
        proof_set_probability(1, 0, beta, epsilon)


def test_sum_from_one_gives_one_because_w_one_has_threshold_zero():
    from dadp_lite.theory.k_anonymity import d_sum_from_one

    for epsilon in (0.1, 0.5, 4.0, 20.0):
        assert d_sum_from_one(2, sampling_probability(epsilon), epsilon, 5) == 1.0


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_edge_pairs_and_add_remove_reach_beta_exactly_at_large_counts(epsilon):
    from dadp_lite.theory.k_anonymity import subsampling_delta_edge_pairs

    beta = sampling_probability(epsilon)
    assert subsampling_delta_edge_pairs(beta, epsilon, 60) == pytest.approx(beta, abs=1e-12)
    assert subsampling_delta(beta, epsilon, 60, "add_remove") == pytest.approx(beta, abs=1e-12)
    small = subsampling_delta(beta, epsilon, 4, "replace")
    assert subsampling_delta_edge_pairs(beta, epsilon, 4) <= small + 1e-12


def test_thinned_histogram_law_is_the_product_of_binomials():
    from dadp_lite.theory.k_anonymity import thinned_histogram_law

    law = thinned_histogram_law([2, 1], 0.3, 3).reshape(4, 4)
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    assert law[1, 0] == pytest.approx(2 * 0.3 * 0.7 * 0.7, rel=1e-12)
    assert law[3].sum() == 0.0 and law[:, 2:].sum() == 0.0
    with pytest.raises(ValueError, match="x must"):
        thinned_histogram_law([4], 0.3, 3)


def test_the_threshold_nu_is_exact_at_every_epsilon():
    """nu_w = floor(w (1 - e^-eps)) computed with 50 digits: float64's product rounds to w
    from eps of about 37.4 (issue 33: chapter 8 failed at the top of its range)."""
    from decimal import Decimal, getcontext

    from dadp_lite.theory.k_anonymity import _nu

    getcontext().prec = 50
    for eps in [0.001, 0.5, 1.0, 4.0, 20.0, 37.43, 40.0, 100.0]:
        tail = (-Decimal(eps)).exp()
        for w in (1, 2, 7, 60):
            assert _nu(w, eps) == int((w * (1 - tail)).to_integral_value(rounding="ROUND_FLOOR"))


def test_the_printed_sums_hold_at_large_counts_and_large_epsilon():
    from dadp_lite.definitions import sampling_probability
    from dadp_lite.theory.k_anonymity import (
        compare_indicator_bias,
        d_sum_from_one,
        indicator_bias,
        indicator_bias_as_printed,
    )

    counts = np.array([0, 3, 10, 200, 2000, 5000])
    for beta in (1 - np.exp(-0.001), 0.3, 0.9):  # C(5000, j) overflows float64
        printed = indicator_bias_as_printed(counts, 6, beta)
        assert np.all(np.isfinite(printed))
        np.testing.assert_allclose(printed, indicator_bias(counts, 6, beta), rtol=1e-9, atol=1e-300)
    for eps in (4.0, 40.0, 100.0):  # the empty sum of w = 1: d = 1 at every epsilon
        assert d_sum_from_one(2, sampling_probability(eps), eps, 12) == 1.0
    expected = np.array([0.0, 1.0 + 3e-14, 0.5])  # a probability past 1 by round-off
    result = compare_indicator_bias(np.zeros((4, 3)) + [0, 1, 0], expected)
    assert np.isfinite(result["min_p_value"])
