"""Reconstruction, traditional and DP k-anonymity: laws, shapes, edge cases, bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import dadp_lite as dl
from dadp_lite.data import ATTRIBUTES as FEATURES_ALL
from dadp_lite.definitions import sampling_probability
from dadp_lite.experiments import k_anonymity_sweep
from dadp_lite.mechanisms.k_anonymity import dp_k_anonymity, k_anonymity, reconstruct
from dadp_lite.mechanisms.mondrian import EquivalenceClass, Interval, mondrian

SHAPE = (9, 2, 3, 5, 2)


@pytest.fixture(scope="module")
def ma():
    return dl.load_records("ma2019")


def expected_reconstruction(classes) -> np.ndarray:
    """E[reconstructed histogram], by enumerating each class's product of merged lists."""
    domains = dl.feature_domains()
    expected = np.zeros(int(np.prod(SHAPE)))
    for cls in classes:
        size = math.prod(len(v) for v in cls.values)
        for combo in itertools.product(*cls.values):
            codes = tuple(domains[q].index(v) for q, v in zip(cls.qi, combo, strict=True))
            expected[np.ravel_multi_index(codes, SHAPE)] += cls.count / size
    return expected


def assert_mean_matches(released, expected):
    bias = dl.empirical_bias(released, expected)
    z = bias.z_scores(np.zeros_like(expected))
    assert np.all(np.abs(z) <= 4.5), float(np.abs(z).max())


def test_reconstruct_mean_matches_uniform_over_merged_lists(ma):
    classes = mondrian(ma, FEATURES_ALL, 5)
    released = reconstruct(classes, rng=np.random.default_rng(1), reps=300)
    assert released.shape == (300, 540)
    assert np.all(released.sum(axis=1) == len(ma))
    assert_mean_matches(released, expected_reconstruction(classes))


def test_k_anonymity_mean_matches_uniform_over_merged_lists(ma):
    released = k_anonymity(ma, qi=FEATURES_ALL, k=8, rng=np.random.default_rng(2), reps=300)
    assert released.dtype == np.int64 and released.shape == (300, 540)
    assert_mean_matches(released, expected_reconstruction(mondrian(ma, FEATURES_ALL, 8)))


def test_dp_k_anonymity_with_beta_one_is_traditional_in_law(ma):
    released = dp_k_anonymity(
        ma, qi=FEATURES_ALL, k=8, epsilon=1.0, beta=1.0, rng=np.random.default_rng(3), reps=300
    )
    assert_mean_matches(released, expected_reconstruction(mondrian(ma, FEATURES_ALL, 8)))


def test_reconstruct_numeric_follows_rounded_gaussian():
    cls = EquivalenceClass(("age",), (Interval(20, 40),), 2000)
    released = reconstruct([cls], rng=np.random.default_rng(4), reps=50)
    ages = np.arange(100)
    probs = norm.cdf(ages + 0.5, 30, 5) - norm.cdf(ages - 0.5, 30, 5)
    central = slice(14, 47)  # +- 3.2 sd: every cell there is hit in every repetition
    assert_mean_matches(released[:, central], 2000 * probs[central])
    outside = released.sum(axis=1) - released[:, central].sum(axis=1)
    p_out = 1 - probs[central].sum()
    assert abs(outside.mean() - 2000 * p_out) <= 4.5 * math.sqrt(2000 * p_out * (1 - p_out) / 50)


def test_reconstruct_numeric_clips_to_domain():
    cls = EquivalenceClass(("age",), (Interval(0, 99),), 5000)
    released = reconstruct([cls], rng=np.random.default_rng(5), reps=2)
    assert released.shape == (2, 100)
    assert released[:, 0].min() > 0 and released[:, 99].min() > 0  # both tails piled up
    assert np.all(released.sum(axis=1) == 5000)


def test_dp_k_anonymity_keeps_beta_share_of_records(ma):
    epsilon = 0.5
    beta = sampling_probability(epsilon)
    assert beta == pytest.approx(1 - math.exp(-epsilon))
    released = dp_k_anonymity(
        ma, qi=FEATURES_ALL, k=5, epsilon=epsilon, rng=np.random.default_rng(6), reps=100
    )
    totals = released.sum(axis=1)
    se = math.sqrt(len(ma) * beta * (1 - beta) / 100)
    assert abs(totals.mean() - beta * len(ma)) <= 4.5 * se


def test_dp_k_anonymity_keeps_non_qi_attributes(ma):
    qi = ("race", "sex", "tenure", "age_bracket")
    released = dp_k_anonymity(
        ma, qi=qi, k=5, epsilon=4.0, beta=1.0, rng=np.random.default_rng(7), reps=3
    )
    income = released.reshape(3, *SHAPE).sum(axis=(1, 2, 3, 4))
    assert np.all(income == np.bincount(ma["income_over_50k"], minlength=2))


def test_empty_subsamples_do_not_crash():
    tiny = pd.DataFrame(
        {
            "race": [1, 2, 2],
            "sex": [1, 1, 2],
            "tenure": [0, 1, 2],
            "age_bracket": [0, 1, 2],
            "income_over_50k": [0, 0, 1],
            "age": [5, 25, 45],
        }
    )
    released = dp_k_anonymity(
        tiny, qi=FEATURES_ALL, k=2, epsilon=0.1, rng=np.random.default_rng(8), reps=200
    )
    empty = released.sum(axis=1) == 0
    assert 0 < empty.sum() < 200
    assert np.all(released[empty] == 0)
    assert set(released.sum(axis=1)) <= {0, 1, 2, 3}


def test_sweep_reports_every_setting(ma):
    table = k_anonymity_sweep(ma, k_values=[5, 20], epsilons=[1.0], reps=4, seed=0, n_boot=20)
    assert list(table["mechanism"]) == ["k_anonymity"] * 2 + ["dp_k_anonymity"] * 2
    for column in ("l1_error", "l1_error_se", "bias_l1", "alpha", "alpha_se", "empty"):
        assert table[column].notna().all()
    again = k_anonymity_sweep(ma, k_values=[5, 20], epsilons=[1.0], reps=4, seed=0, n_boot=20)
    pd.testing.assert_frame_equal(table, again)


@pytest.mark.parametrize("beta", [0.0, -0.1, 1.5])
def test_bad_beta_raises(ma, beta):
    with pytest.raises(ValueError, match="beta"):
        dp_k_anonymity(
            ma, qi=FEATURES_ALL, k=2, epsilon=1.0, beta=beta, rng=np.random.default_rng(0), reps=1
        )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"k": 0}, ValueError, "k must be"),
        ({"k": 10**6}, ValueError, "k must be"),
        ({"epsilon": 0.0}, ValueError, "epsilon"),
        ({"qi": ()}, ValueError, "at least one"),
        ({"qi": ("race", "zip")}, ValueError, "unknown"),
        ({"rng": 0}, TypeError, "rng"),
        ({"reps": 0}, ValueError, "reps"),
    ],
)
def test_bad_input_raises(ma, kwargs, error, match):
    args = {"qi": FEATURES_ALL, "k": 2, "epsilon": 1.0, "rng": np.random.default_rng(0), "reps": 1}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        dp_k_anonymity(ma, **args)


def test_reconstruct_bad_input_raises():
    with pytest.raises(ValueError, match="empty"):
        reconstruct([], rng=np.random.default_rng(0), reps=1)
    bad = EquivalenceClass(("race",), ((42,),), 3)
    with pytest.raises(ValueError, match="outside its domain"):
        reconstruct([bad], rng=np.random.default_rng(0), reps=1)
