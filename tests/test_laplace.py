"""The (projected) Laplace mechanism."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dadp_lite as dl
from dadp_lite.theory import projected_laplace_bias, projected_laplace_variance

Z_MAX = 4.5


def test_shape_and_dtype():
    out = dl.laplace(np.arange(7), epsilon=1.0, rng=np.random.default_rng(0), reps=3)
    assert out.shape == (3, 7) and out.dtype == np.float64


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_noise_has_laplace_scale_two_over_epsilon(epsilon):
    counts = np.array([0, 10, 200])
    out = dl.laplace(counts, epsilon=epsilon, rng=np.random.default_rng(4), reps=100_000)
    noise = (out - counts).ravel()
    b = 2 / epsilon
    z_mean = noise.mean() / math.sqrt(2 * b**2 / noise.size)
    z_abs = (np.abs(noise).mean() - b) / (b / math.sqrt(noise.size))  # |Lap(b)| ~ Exp(b)
    assert abs(z_mean) < Z_MAX and abs(z_abs) < Z_MAX


def test_projection_is_the_clipped_unprojected_release():
    counts = np.array([0, 1, 30])
    raw = dl.laplace(counts, epsilon=0.5, rng=np.random.default_rng(8), reps=200)
    clipped = dl.laplace(counts, epsilon=0.5, rng=np.random.default_rng(8), reps=200, project=True)
    assert np.array_equal(clipped, np.maximum(raw, 0.0))


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_projected_bias_matches_closed_form(epsilon):
    counts = np.array([0, 1, 2, 5, 20])
    reps = 200_000
    out = dl.laplace(
        counts, epsilon=epsilon, rng=np.random.default_rng(11), reps=reps, project=True
    )
    se = np.sqrt(projected_laplace_variance(counts, epsilon=epsilon) / reps)
    z = (out.mean(axis=0) - counts - projected_laplace_bias(counts, epsilon=epsilon)) / se
    assert np.abs(z).max() < Z_MAX, z


def test_unprojected_laplace_is_unbiased():
    counts = np.array([0, 3])
    out = dl.laplace(counts, epsilon=1.0, rng=np.random.default_rng(2), reps=200_000)
    z = (out.mean(axis=0) - counts) / math.sqrt(2 * 2.0**2 / 200_000)
    assert np.abs(z).max() < Z_MAX


def test_same_seed_same_release():
    a = dl.laplace([1, 2], epsilon=1.0, rng=np.random.default_rng(1), reps=4)
    b = dl.laplace([1, 2], epsilon=1.0, rng=np.random.default_rng(1), reps=4)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("epsilon", [0.0, -0.5, float("nan"), float("inf")])
def test_bad_epsilon_is_rejected(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        dl.laplace([1, 2], epsilon=epsilon, rng=np.random.default_rng(0), reps=1)


@pytest.mark.parametrize("counts", [[1, -2], [0.5, 1]])
def test_bad_counts_are_rejected(counts):
    with pytest.raises(ValueError, match="counts"):
        dl.laplace(counts, epsilon=1.0, rng=np.random.default_rng(0), reps=1)


@pytest.mark.parametrize("reps", [0, -1])
def test_bad_reps_are_rejected(reps):
    with pytest.raises(ValueError, match="reps"):
        dl.laplace([1, 2], epsilon=1.0, rng=np.random.default_rng(0), reps=reps)


def test_global_random_state_is_refused():
    with pytest.raises(TypeError, match="rng"):
        dl.laplace([1], epsilon=1.0, rng=np.random, reps=1)
