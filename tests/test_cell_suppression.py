"""Cell suppression mechanisms: traditional (appendix and main-text forms) and DP variants."""

import math

import numpy as np
import pytest

from dadp_lite.experiments import cell_suppression_sweep
from dadp_lite.mechanisms.cell_suppression import (
    VARIANTS,
    cell_suppression,
    cell_suppression_main_text,
    dp_cell_suppression,
)
from dadp_lite.metrics import release_summary
from dadp_lite.theory.cell_suppression import laplace_cdf

X = np.array([0, 1, 2, 3, 4, 5, 6, 7, 12, 40])


def test_cell_suppression_follows_appendix_algorithm():
    released = cell_suppression(X, k=5)
    expected = np.where(X < 5, math.floor(5 / 2), X)
    np.testing.assert_array_equal(released, expected)
    assert released.dtype == np.int64


def test_cell_suppression_keeps_batch_axes():
    batch = np.stack([X, X[::-1]])
    assert cell_suppression(batch, k=4).shape == batch.shape


def test_main_text_form_raises_small_cells_and_leaves_middle_cells():
    released = cell_suppression_main_text(X, k=6)
    np.testing.assert_array_equal(released, np.maximum(X, 3.0))
    middle = (X >= 3) & (X < 6)  # suppressed by the appendix algorithm, untouched here
    assert np.all(released[middle] == X[middle])
    assert np.all(cell_suppression(X, k=6)[middle] == 3)


@pytest.mark.parametrize("variant", VARIANTS)
def test_dp_cell_suppression_shape_and_reproducibility(variant):
    a = dp_cell_suppression(
        X, k=5, epsilon=1.0, rng=np.random.default_rng(3), reps=7, variant=variant
    )
    b = dp_cell_suppression(
        X, k=5, epsilon=1.0, rng=np.random.default_rng(3), reps=7, variant=variant
    )
    assert a.shape == (7, X.size)
    np.testing.assert_array_equal(a, b)


def test_per_cell_releases_either_the_count_or_half_the_threshold():
    released = dp_cell_suppression(X, k=5, epsilon=0.7, rng=np.random.default_rng(1), reps=200)
    assert np.all((released == X[None, :]) | (released == 2.5))


def test_noisy_threshold_release_comes_from_one_threshold():
    rng = np.random.default_rng(2)
    released = dp_cell_suppression(
        X, k=6, epsilon=0.5, rng=rng, reps=300, variant="noisy_threshold"
    )
    # every release equals where(X <= j, floor(j/2), X) for the interval (j, j+1) holding k~
    candidates = np.array([np.where(X <= j, j // 2, X) for j in range(-1, 3 * X.max())])
    matches = (released[:, None, :] == candidates[None, :, :]).all(axis=2)
    assert matches.any(axis=1).all()


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_per_cell_suppression_frequency_matches_laplace_probability(epsilon):
    reps, k = 4000, 5
    x = np.array([2, 4, 5, 6, 9])
    released = dp_cell_suppression(
        x, k=k, epsilon=epsilon, rng=np.random.default_rng(11), reps=reps
    )
    freq = (released == k / 2).mean(axis=0)
    p = laplace_cdf(k - x, 2 / epsilon)
    z = (freq - p) / np.sqrt(p * (1 - p) / reps)
    assert np.all(np.abs(z) < 4.5), z


def test_noisy_threshold_frequency_of_unchanged_cells_matches_laplace():
    reps, k, epsilon = 4000, 5, 1.0
    x = np.array([0, 1, 3, 5, 8])
    rng = np.random.default_rng(12)
    released = dp_cell_suppression(
        x, k=k, epsilon=epsilon, rng=rng, reps=reps, variant="noisy_threshold"
    )
    freq = (released == x).mean(axis=0)

    def cdf(t):  # CDF of k~ = k + Lap(2/eps)
        return laplace_cdf(np.asarray(t, dtype=float) - k, 2 / epsilon)

    # x_i is released unchanged if k~ <= x_i, or if it is suppressed to floor(k~/2) = x_i
    p = cdf(x) + cdf(2 * x + 2) - cdf(np.maximum(2 * x, x))
    z = (freq - p) / np.sqrt(p * (1 - p) / reps)
    assert np.all(np.abs(z) < 4.5), z


@pytest.mark.parametrize("k", [0, -1, float("nan"), float("inf")])
def test_bad_threshold_raises_value_error(k):
    for call in (
        lambda: cell_suppression(X, k=k),
        lambda: cell_suppression_main_text(X, k=k),
        lambda: dp_cell_suppression(X, k=k, epsilon=1, rng=np.random.default_rng(0)),
    ):
        with pytest.raises(ValueError, match="k"):
            call()


def test_boolean_threshold_raises_type_error():
    with pytest.raises(TypeError, match="k"):
        cell_suppression(X, k=True)


@pytest.mark.parametrize("epsilon", [0, -0.5, float("inf")])
def test_bad_epsilon_raises_value_error(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        dp_cell_suppression(X, k=3, epsilon=epsilon, rng=np.random.default_rng(0))


@pytest.mark.parametrize("counts", [[1, -2, 3], [1.5, 2, 3], [1, float("nan")]])
def test_bad_counts_raise_value_error(counts):
    with pytest.raises(ValueError, match="counts"):
        cell_suppression(counts, k=3)
    with pytest.raises(ValueError, match="counts"):
        dp_cell_suppression(counts, k=3, epsilon=1, rng=np.random.default_rng(0))


def test_unknown_variant_raises_value_error():
    with pytest.raises(ValueError, match="variant"):
        dp_cell_suppression(X, k=3, epsilon=1, rng=np.random.default_rng(0), variant="svt")


def test_bad_reps_and_rng_raise():
    with pytest.raises(ValueError, match="reps"):
        dp_cell_suppression(X, k=3, epsilon=1, rng=np.random.default_rng(0), reps=0)
    with pytest.raises(TypeError, match="rng"):
        dp_cell_suppression(X, k=3, epsilon=1, rng=0)


def test_dp_cell_suppression_needs_one_histogram():
    with pytest.raises(ValueError, match="counts"):
        dp_cell_suppression(np.stack([X, X]), k=3, epsilon=1, rng=np.random.default_rng(0))


def test_sweep_rows_and_reproducibility():
    kwargs = dict(k_values=[2, 4], epsilons=[1.0, 2.0], reps=20, seed=5, n_boot=20)
    a = cell_suppression_sweep(X, **kwargs)
    b = cell_suppression_sweep(X, **kwargs)
    assert len(a) == 2 * 2 + 2 * 2 * 2  # two traditional forms + variants x eps x k
    assert a.equals(b)
    traditional = a[a.variant == "traditional"]
    assert np.all(traditional.l1_error_se == 0)
    row = a[(a.mechanism == "cell_suppression") & (a.k == 4)].iloc[0]
    assert row.l1_error == np.abs(cell_suppression(X, k=4) - X).sum()


def test_sweep_rows_do_not_depend_on_grid_order():
    a = cell_suppression_sweep(X, k_values=[2, 4], epsilons=[1.0, 2.0], reps=10, seed=5, n_boot=5)
    b = cell_suppression_sweep(X, k_values=[4, 2], epsilons=[2.0, 1.0], reps=10, seed=5, n_boot=5)
    key = ["mechanism", "variant", "epsilon", "k"]
    a = a.sort_values(key).reset_index(drop=True)
    b = b.sort_values(key).reset_index(drop=True)
    assert a.equals(b)


def test_release_summary_alpha_se_is_zero_for_deterministic_releases_and_positive_otherwise():
    rng = np.random.default_rng(0)
    fixed = np.tile(cell_suppression(X, k=4).astype(float), (30, 1))
    assert release_summary(fixed, X, rng=rng)["alpha_se"] == 0
    noisy = dp_cell_suppression(X, k=4, epsilon=1, rng=rng, reps=30)
    assert release_summary(noisy, X, rng=rng)["alpha_se"] > 0
