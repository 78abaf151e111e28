"""dadp_lite.metrics and dadp_lite.simulate."""

from __future__ import annotations

import numpy as np
import pytest

import dadp_lite as dl


def add_gaussian(counts, *, rng, reps, shift=0.0):
    counts = np.asarray(counts, dtype=float)
    return counts + shift + rng.normal(size=(reps, counts.size))


def test_same_seed_gives_identical_results():
    a = dl.simulate(add_gaussian, np.arange(5), reps=120, seed=7, chunk_size=50)
    b = dl.simulate(add_gaussian, np.arange(5), reps=120, seed=7, chunk_size=50)
    assert np.array_equal(a, b)


def test_different_seeds_differ():
    a = dl.simulate(add_gaussian, np.arange(5), reps=10, seed=7)
    b = dl.simulate(add_gaussian, np.arange(5), reps=10, seed=8)
    assert not np.array_equal(a, b)


def test_results_do_not_depend_on_the_number_of_workers():
    serial = dl.simulate(add_gaussian, np.arange(5), reps=130, seed=3, chunk_size=40)
    parallel = dl.simulate(add_gaussian, np.arange(5), reps=130, seed=3, chunk_size=40, n_jobs=2)
    assert np.array_equal(serial, parallel)
    assert serial.shape == (130, 5)


def test_mechanism_returning_the_wrong_shape_is_reported():
    with pytest.raises(ValueError, match="repetitions"):
        dl.simulate(lambda c, rng, reps: np.zeros((1, 3)), np.arange(3), reps=5, seed=0)


def test_reps_must_be_positive():
    with pytest.raises(ValueError, match="reps"):
        dl.simulate(add_gaussian, np.arange(3), reps=0, seed=0)


def test_empirical_bias_recovers_a_known_shift_within_its_standard_error():
    released = dl.simulate(add_gaussian, np.zeros(200), reps=400, seed=11, shift=0.25)
    estimate = dl.empirical_bias(released, np.zeros(200))
    # standard error of each cell is 1/sqrt(400) = 0.05
    assert np.allclose(estimate.se, 0.05, rtol=0.15)
    z = estimate.z_scores(np.full(200, 0.25))
    assert np.abs(z).max() < 4.5
    assert abs(z.mean()) < 4.5 / np.sqrt(200)


def test_alpha_fairness_and_l1_norm():
    bias = np.array([0.5, -1.0, 2.0])
    assert dl.alpha_fairness(bias) == 3.0
    assert dl.l1_norm(bias) == 3.5


def test_l1_error_is_per_repetition():
    released = np.array([[1.0, 2.0], [0.0, 0.0]])
    assert dl.l1_error(released, np.array([1.0, 1.0])).tolist() == [1.0, 2.0]


def test_projection_and_rounding():
    assert dl.project_nonnegative(np.array([-0.2, 1.4])).tolist() == [0.0, 1.4]
    assert dl.round_counts(np.array([-0.2, 1.6])).tolist() == [0, 2]


def test_metrics_refuse_mismatched_shapes():
    with pytest.raises(ValueError, match="cells"):
        dl.empirical_bias(np.zeros((3, 4)), np.zeros(5))
    with pytest.raises(ValueError, match="reps, n_cells"):
        dl.l1_error(np.zeros(4), np.zeros(4))
