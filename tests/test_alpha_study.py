"""The alpha study's helpers: exact release moments, the two per-configuration summaries
and the grid runner (chapter 10)."""

from __future__ import annotations

import numpy as np
import pytest

import dadp_lite as dl
from dadp_lite import theory as th
from dadp_lite.experiments import (
    ALPHA_MECHANISMS,
    ReleaseMoments,
    bias_check,
    monte_carlo_floor,
    release_moments,
    simulate_grid,
)


@pytest.fixture(scope="module")
def ma():
    return dl.Dataset.load("ma2019")


def _moments(bias, variance):
    bias, variance = np.asarray(bias, float), np.asarray(variance, float)
    return ReleaseMoments(bias, variance, variance, np.full(bias.shape, 10.0))


def test_moments_are_the_theory_modules_closed_forms(ma):
    h = ma.histogram
    lap = release_moments(h, "laplace", epsilon=1.0, k=6, qi=["race"])
    np.testing.assert_array_equal(lap.bias, th.projected_laplace_bias(h.counts, epsilon=1.0))
    cs = release_moments(h, "dp_cell_suppression", epsilon=1.0, k=6, qi=["race"])
    assert np.all(cs.bernstein_range == np.abs(3 - h.counts))
    sw = release_moments(h, "dp_swapping", epsilon=1.0, k=6, qi=["race"])
    # swapping moves counts within a QI group: the biases of a group sum to zero
    assert np.allclose(h.to_qi_matrix(["race"], sw.bias).sum(axis=1), 0, atol=1e-9)


def test_moments_refuse_an_unknown_mechanism_and_a_non_histogram(ma):
    with pytest.raises(ValueError, match="mechanism"):
        release_moments(ma.histogram, "swapping", epsilon=1.0, k=6, qi=["race"])
    with pytest.raises(TypeError, match="histogram"):
        release_moments(ma.histogram.counts, "laplace", epsilon=1.0, k=6, qi=["race"])


def test_bias_check_passes_releases_with_the_exact_bias_and_fails_a_shifted_one():
    rng = np.random.default_rng(1)
    true, bias = np.array([5.0, 0.0, 12.0]), np.array([0.5, 1.0, -0.25])
    released = true + bias + rng.uniform(-1, 1, size=(4000, 3))  # variance 1/3, range 1
    moments = ReleaseMoments(bias, np.full(3, 1 / 3), np.full(3, 1 / 3), np.ones(3))
    good = bias_check(released, true, moments, n_tests=3, n_alpha_tests=1)
    assert good["largest gap / limit"] <= 1 and good["alpha gap / limit"] <= 1
    assert good["alpha exact"] == pytest.approx(1.25)
    bad = bias_check(released + [0.0, 0.5, 0.0], true, moments, n_tests=3, n_alpha_tests=1)
    assert bad["largest gap / limit"] > 1 and bad["alpha gap / limit"] > 1


def test_the_floor_is_above_the_exact_alpha_of_an_unbiased_release():
    rng = np.random.default_rng(2)
    true = np.zeros(200)
    released = rng.normal(size=(50, 200))
    floor = monte_carlo_floor(released, true, _moments(np.zeros(200), np.ones(200)))
    assert floor["alpha exact"] == 0
    assert floor["alpha simulated"] > 0 and floor["alpha predicted"] > 0


def test_the_grid_gives_one_row_per_configuration_from_its_own_seed(ma):
    configs = [("ma2019", 1.0, mech) for mech in ALPHA_MECHANISMS]
    exact = {c: release_moments(ma.histogram, c[2], epsilon=1.0, k=6, qi=["race"]) for c in configs}
    seeds = dict(zip(configs, np.random.SeedSequence(5).spawn(len(configs))))
    kwargs = dict(reps=20, seeds=seeds, settings={"k": 6, "qi": ["race"]}, chunk_size=10)
    grid = simulate_grid(configs, {"ma2019": ma}, exact, monte_carlo_floor, **kwargs)
    assert list(grid["mechanism"]) == list(ALPHA_MECHANISMS)
    entry = dl.registry.get("laplace")
    fresh = np.random.SeedSequence(5).spawn(1)[0]  # a copy: simulate spawns from its seed
    direct = dl.simulate(
        entry.release,
        ma,
        reps=20,
        seed=fresh,
        chunk_size=10,
        progress=False,
        **entry.bind({"k": 6, "qi": ["race"]}, epsilon=1.0),
    )
    expected = dl.experiments.simulated_alpha(direct, ma.histogram.counts).alpha
    assert grid.loc[0, "alpha simulated"] == expected
