"""The exact discrete Gaussian sampler (Canonne, Kamath and Steinke 2020, Alg. 3)."""

from __future__ import annotations

import importlib
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dadp_lite as dl
from dadp_lite.theory.accounting import discrete_gaussian_pmf

# the module, not the function of the same name re-exported by dadp_lite.mechanisms
dg = importlib.import_module("dadp_lite.mechanisms.discrete_gaussian")
bexp = importlib.import_module("dadp_lite.mechanisms._bernoulli_exp")

# 0.5: t = 1 (no U step); 1, 4, 40: table-driven acceptance with nested cuts; 7919/7907:
# sigma^2 with an 8-digit denominator, so the fractional coin goes trial by trial
# (2 m^2 > 2**62); 1000: large t
SIGMAS = [0.5, 1.0, 4.0, 40.0, Fraction(7919, 7907), 1000.0]
DRAWS = 200_000
Z_MAX = 4.5  # per check; the checks below are few, so a false alarm has probability < 1e-4


def exact_pmf(sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """pmf of N_Z(0, sigma^2) on -40 sigma..40 sigma (missing mass < 1e-300)."""
    return discrete_gaussian_pmf(float(sigma), bound=math.ceil(40 * sigma) + 2)


@pytest.fixture(scope="module", params=SIGMAS)
def draws(request):
    sigma = request.param
    seed = 1000 + int(10 * sigma) + SIGMAS.index(sigma)
    return sigma, dl.sample_discrete_gaussian(sigma, DRAWS, np.random.default_rng(seed))


def test_sampler_matches_pmf_by_chi_square(draws):
    sigma, x = draws
    support, pmf = exact_pmf(sigma)
    expected = DRAWS * pmf
    keep = expected >= 20  # pool both tails so every bin expects >= 20 draws
    inner = support[keep]
    observed = np.array(
        [np.sum(x < inner[0])] + [np.sum(x == v) for v in inner] + [np.sum(x > inner[-1])]
    )
    exp = np.concatenate(
        [
            [expected[support < inner[0]].sum()],
            expected[keep],
            [expected[support > inner[-1]].sum()],
        ]
    )
    observed, exp = observed[exp > 0], exp[exp > 0]
    result = stats.chisquare(observed, exp * observed.sum() / exp.sum())
    assert result.pvalue > 1e-4, (sigma, result)


def test_sampler_mean_and_variance_match_exact_moments(draws):
    sigma, x = draws
    support, pmf = exact_pmf(sigma)
    variance = float((support**2 * pmf).sum())
    fourth = float((support**4 * pmf).sum())
    z_mean = x.mean() / math.sqrt(variance / DRAWS)
    z_var = (x.var() - variance) / math.sqrt((fourth - variance**2) / DRAWS)
    assert abs(z_mean) < Z_MAX and abs(z_var) < Z_MAX, (sigma, z_mean, z_var)


def test_sampler_tails_match_exact_tail_probabilities(draws):
    sigma, x = draws
    support, pmf = exact_pmf(sigma)
    for k in sorted({max(1, round(c * sigma)) for c in (1, 2, 3)}):
        p = float(pmf[np.abs(support) >= k].sum())
        count = int(np.sum(np.abs(x) >= k))
        z = (count - DRAWS * p) / math.sqrt(DRAWS * p * (1 - p))
        assert abs(z) < Z_MAX, (sigma, k, count, DRAWS * p)
    assert np.abs(x).max() < 12 * sigma + 6  # beyond that the mass is < 1e-30


def test_sampler_is_symmetric(draws):
    sigma, x = draws
    positive, negative = int(np.sum(x > 0)), int(np.sum(x < 0))
    z = (positive - negative) / math.sqrt(positive + negative)
    assert abs(z) < Z_MAX


def test_small_sigma_variance_is_below_sigma_squared():
    support, pmf = exact_pmf(0.5)
    assert (support**2 * pmf).sum() < 0.25 * 0.9


def z_score(hits: int, n: int, p: float) -> float:
    return (hits - n * p) / math.sqrt(max(n * p * (1 - p), 1e-12))


BIG_MODULUS = 2**31 + 11  # 2 m^2 > 2**62: the coin goes trial by trial


@pytest.mark.parametrize(
    ("numerator", "modulus"),
    [
        (0, 7),
        (3, 7),
        (7, 7),
        (1, 1),
        (0, BIG_MODULUS),
        (BIG_MODULUS // 3, BIG_MODULUS),
        (BIG_MODULUS, BIG_MODULUS),
    ],
)
def test_bernoulli_exp_fraction_has_probability_exp_minus_gamma(numerator, modulus):
    n = 400_000
    rng = np.random.default_rng(numerator % 1000 * 10 + modulus % 1000)
    hits = bexp.bernoulli_exp_fraction(np.full(n, numerator), modulus, rng).sum()
    assert abs(z_score(hits, n, math.exp(-numerator / modulus))) < Z_MAX


def test_bernoulli_exp_fraction_nested_cuts_have_exact_trial_probabilities():
    # with W uniform on 2 m^2 values: P(first trial succeeds) = a/m, P(first two) = a^2/(2m^2)
    modulus = 9
    w = np.arange(2 * modulus**2)
    for a in range(modulus + 1):
        first = np.count_nonzero(w < 2 * a * modulus)
        both = np.count_nonzero(w < a * a)
        assert Fraction(first, w.size) == Fraction(a, modulus)
        assert Fraction(both, w.size) == Fraction(a, modulus) ** 2 / 2


def test_bernoulli_exp_one_has_probability_one_over_e():
    n = 1_000_000
    hits = bexp.bernoulli_exp_one(n, np.random.default_rng(5)).sum()
    assert abs(z_score(hits, n, math.exp(-1))) < Z_MAX


def test_exp_one_table_counts_are_the_truncated_series():
    # W on {0..depth!-1} has s = j leading successes on depth!/j! - depth!/(j+1)! values
    # (1 <= j < depth); the table answers True on the even j, and W = 0 (s = depth) goes on.
    for depth in (2, 4, 6):
        top, one, pair = bexp._nested_exp_one_tables(depth)
        expected = sum(
            top // math.factorial(j) - top // math.factorial(j + 1) for j in range(2, depth, 2)
        )
        assert top == math.factorial(depth)
        assert int(one[1:].sum()) == expected, depth
    assert bexp._TOP == math.factorial(bexp._DEPTH) and bexp._TOP**2 < 2**31


def test_pair_table_reads_two_independent_trials():
    top, one, pair = bexp._nested_exp_one_tables(4)
    for w1 in range(top):
        for w2 in range(top):
            lead = pair[w1 * top + w2]
            if w1 == 0 or (one[w1] and w2 == 0):
                assert lead == 3
            else:
                assert lead == int(one[w1]) + int(one[w1] and one[w2])


@pytest.fixture(params=[6, 2], ids=["depth6", "depth2"])
def exp_one_depth(request, monkeypatch):
    """The shipped tables, and depth-2 tables where half the draws take the slow path."""
    depth = request.param
    top, one, pair = bexp._nested_exp_one_tables(depth)
    for name, value in {"_DEPTH": depth, "_TOP": top, "_ONE": one, "_PAIR": pair}.items():
        monkeypatch.setattr(bexp, name, value)
    return depth


def test_exp_one_coins_at_every_depth(exp_one_depth):
    n = 400_000
    rng = np.random.default_rng(40 + exp_one_depth)
    p = math.exp(-1)
    assert abs(z_score(bexp.bernoulli_exp_one(n, rng).sum(), n, p)) < Z_MAX
    lead = bexp.leading_exp_one_pair(n, rng)
    observed = np.bincount(lead, minlength=3)
    assert observed.size == 3  # never the "undecided" code 3
    expected = n * np.array([1 - p, p * (1 - p), p * p])
    assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_geometric_and_all_coins_at_every_depth(exp_one_depth):
    n = 400_000
    rng = np.random.default_rng(50 + exp_one_depth)
    v = bexp.geometric_exp_one(n, rng)
    for k in range(1, 6):  # P(V >= k) = exp(-k)
        assert abs(z_score(np.count_nonzero(v >= k), n, math.exp(-k))) < Z_MAX, k
    trials = np.repeat(np.array([0, 1, 2, 3, 5]), n // 5)
    ok = bexp.all_bernoulli_exp_one(trials, rng)
    for k in (0, 1, 2, 3, 5):
        assert abs(z_score(ok[trials == k].sum(), n // 5, math.exp(-k))) < Z_MAX, k


@pytest.mark.parametrize("sigma", [0.5, 1.0, 4.0, 40.0, Fraction(7919, 7907), 1000.0])
def test_acceptance_tables_match_python_integers(sigma):
    plan = dg._Plan.for_sigma(sigma)
    sigma2 = dg.sigma_squared_fraction(sigma)
    size = plan.whole.size
    x = np.array([0, 1, 2, size - 1, size, 3 * size, 10**6], dtype=np.int64)
    whole, first_cut, second_cut = plan.exponent_parts(x)
    for xi, w, c1, c2 in zip(x, whole, first_cut, second_cut):
        gamma = (int(xi) - sigma2 / plan.t) ** 2 / (2 * sigma2)  # exact rational
        assert int(w) == math.floor(gamma)
        rest = (gamma - math.floor(gamma)) * plan.modulus
        assert rest.denominator == 1
        if bexp.fraction_fits_nested_cuts(plan.modulus):
            assert (int(c1), int(c2)) == (2 * plan.modulus * rest, rest**2)
        else:
            assert int(c1) == rest


def test_square_divmod_matches_python_integers_beyond_int64():
    gap = np.array([0, 5, -7, 3_037_000_499, 3_037_000_500, -9_000_000_000], dtype=np.int64)
    modulus = 2**61 + 12345
    whole, rest = dg._square_divmod(gap, modulus)
    for g, w, r in zip(gap, whole, rest):
        assert (int(w), int(r)) == divmod(int(g) ** 2, modulus)


def test_sigma_squared_is_recovered_exactly_for_decimal_epsilons():
    assert dg.sigma_squared_fraction(2 / 0.3) == Fraction(400, 9)
    assert dg.sigma_squared_fraction(2 / 0.5) == 16
    assert dg.sigma_squared_fraction(Fraction(3, 7)) == Fraction(9, 49)


def test_awkward_float_sigma_uses_a_close_rational():
    sigma = 25.123456789
    value = dg.sigma_squared_fraction(sigma)
    assert abs(float(value) - sigma**2) <= 1e-9 * sigma**2
    x = dl.sample_discrete_gaussian(sigma, 20_000, np.random.default_rng(3))
    z = (x.var() - sigma**2) / (sigma**2 * math.sqrt(2 / x.size))
    assert abs(z) < Z_MAX


def test_mechanism_adds_integer_noise_of_scale_two_over_epsilon():
    counts = np.array([0, 3, 50, 7])
    out = dl.discrete_gaussian(counts, epsilon=1.0, rng=np.random.default_rng(0), reps=4000)
    assert out.shape == (4000, 4) and out.dtype == np.int64
    noise = (out - counts).ravel()
    support, pmf = exact_pmf(2.0)
    variance = float((support**2 * pmf).sum())
    z = (noise.var() - variance) / (variance * math.sqrt(2 / noise.size))
    assert abs(z) < Z_MAX


def test_epsilon_and_sigma_give_the_same_stream():
    counts = np.arange(6)
    a = dl.discrete_gaussian(counts, epsilon=0.5, rng=np.random.default_rng(9), reps=3)
    b = dl.discrete_gaussian(counts, sigma=4.0, rng=np.random.default_rng(9), reps=3)
    assert np.array_equal(a, b)


def test_same_seed_same_release():
    counts = np.arange(10)
    a = dl.discrete_gaussian(counts, epsilon=2.0, rng=np.random.default_rng(1), reps=5)
    b = dl.discrete_gaussian(counts, epsilon=2.0, rng=np.random.default_rng(1), reps=5)
    assert np.array_equal(a, b)


def test_projection_clips_at_zero_only():
    counts = np.array([0, 1, 100])
    raw = dl.discrete_gaussian(counts, epsilon=0.5, rng=np.random.default_rng(2), reps=500)
    projected = dl.discrete_gaussian(
        counts, epsilon=0.5, rng=np.random.default_rng(2), reps=500, project=True
    )
    assert np.array_equal(projected, np.maximum(raw, 0))
    assert projected.min() >= 0 and raw.min() < 0


@pytest.mark.parametrize("epsilon", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_epsilon_is_rejected(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        dl.discrete_gaussian([1, 2], epsilon=epsilon, rng=np.random.default_rng(0), reps=1)


@pytest.mark.parametrize("sigma", [0.0, -2.0, float("nan"), float("inf")])
def test_bad_sigma_is_rejected(sigma):
    with pytest.raises(ValueError, match="sigma"):
        dl.discrete_gaussian([1, 2], sigma=sigma, rng=np.random.default_rng(0), reps=1)
    with pytest.raises(ValueError, match="sigma"):
        dl.sample_discrete_gaussian(sigma, 3, np.random.default_rng(0))


def test_exactly_one_of_epsilon_and_sigma():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="epsilon or sigma"):
        dl.discrete_gaussian([1], rng=rng, reps=1)
    with pytest.raises(ValueError, match="epsilon or sigma"):
        dl.discrete_gaussian([1], epsilon=1.0, sigma=2.0, rng=rng, reps=1)


@pytest.mark.parametrize("counts", [[1, -1], [1.5, 2]])
def test_bad_counts_are_rejected(counts):
    with pytest.raises(ValueError, match="counts"):
        dl.discrete_gaussian(counts, epsilon=1.0, rng=np.random.default_rng(0), reps=1)


@pytest.mark.parametrize("reps", [0, -3])
def test_bad_reps_are_rejected(reps):
    with pytest.raises(ValueError, match="reps"):
        dl.discrete_gaussian([1, 2], epsilon=1.0, rng=np.random.default_rng(0), reps=reps)


def test_global_random_state_is_refused():
    with pytest.raises(TypeError, match="rng"):
        dl.discrete_gaussian([1], epsilon=1.0, rng=np.random, reps=1)
