"""The black-box auditor: its bounds are valid, reach the exact delta, and refuse bad input.

Design of the statistical checks (false failure at most 1e-6, as every check of the book):

* validity: an audit at confidence c fails (certifies more than the exact delta) with
  probability at most 1 - c. Checks that compare one audit with the exact delta use
  c = 1 - FALSE_FAILURE / (number of audits compared);
* coverage: the number of failures of R independent audits at confidence c is at most
  Binomial(R, 1 - c); it is compared with the upper limit of
  :func:`dadp_lite.binomial_limits` at false-failure 1e-6;
* power: where a check asks the audit to reach a value, the value lies many standard
  errors of the certified frequencies below what the audit reaches in expectation (the
  margin is stated beside the check), or the outcome is deterministic (deterministic
  mechanisms give counts n and 0 whatever the seed).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dadp_lite as dl
from dadp_lite import errata
from dadp_lite.audit import (
    audit,
    audit_profile,
    audit_samples,
    certified_delta,
    certified_epsilon,
    clopper_pearson,
    exact_curves,
    exact_epsilon,
    random_neighbour_pairs,
    refutations,
    search_pairs,
    trials_to_certify,
)
from dadp_lite.audit.events import factorize_rows
from dadp_lite.histogram import Histogram
from dadp_lite.paper import PAPER_EPSILONS
from dadp_lite.registry import REGISTRY, NeighbourPair
from dadp_lite.theory import accounting
from dadp_lite.theory import cell_suppression as cs
from dadp_lite.theory import swapping as sw
from dadp_lite.theory.privacy import distinguishing_pair, exact_delta, neighbours
from dadp_lite.verification import FALSE_FAILURE, binomial_limits

ENTRIES = list(REGISTRY.values())
IDS = [entry.name for entry in ENTRIES]
#: 2 sexes x 9 races (the paper's QI, n_Q = 9), largest count 8.
UNIVERSE = Histogram(np.eye(18, dtype=int)[0] * 8, ("sex", "race"), ((1, 2), tuple(range(1, 10))))
SETTINGS = {"k": 6, "qi": ("race",), "ka_qi": ("sex", "race"), "rate": 0.5}
TINY = Histogram(np.array([3, 1, 0, 2]), ("sex", "race"), ((1, 2), (1, 2)))
TINY_SETTINGS = {"k": 2, "qi": ("race",), "ka_qi": ("sex", "race"), "rate": 0.5}


def _values(entry, pair, epsilon, settings=SETTINGS):
    return entry.bind({**settings, **pair.settings}, epsilon=epsilon)


# ----------------------------------------------------------------------- bounds
@pytest.mark.parametrize("n", [1, 7, 200])
def test_clopper_pearson_is_the_beta_quantile(n):
    k = np.arange(n + 1)
    lower, upper = clopper_pearson(k, n, 0.01)
    np.testing.assert_allclose(lower[1:], stats.beta.ppf(0.01, k[1:], n - k[1:] + 1), rtol=1e-9)
    np.testing.assert_allclose(upper[:-1], stats.beta.ppf(0.99, k[:-1] + 1, n - k[:-1]), rtol=1e-9)
    assert lower[0] == 0.0 and upper[-1] == 1.0
    assert np.all(np.diff(lower) > 0) and np.all(lower < k / n + 1e-15)


@pytest.mark.parametrize(("n", "p"), [(20, 0.1), (50, 0.5), (300, 0.97), (1000, 0.003)])
def test_clopper_pearson_covers_exactly_by_enumeration(n, p):
    """Exact coverage: P(lower(K) > p) and P(upper(K) < p) summed over the binomial law."""
    k = np.arange(n + 1)
    pmf = stats.binom.pmf(k, n, p)
    for alpha in (0.05, 1e-3):
        lower, upper = clopper_pearson(k, n, alpha)
        assert pmf[lower > p].sum() <= alpha + 1e-12
        assert pmf[upper < p].sum() <= alpha + 1e-12


def test_certified_bounds_follow_the_dp_inequality():
    assert certified_delta(0.6, 0.1, 0.0) == pytest.approx(0.5)
    assert certified_delta(0.6, 0.1, math.log(2)) == pytest.approx(0.4)
    assert certified_delta(0.1, 0.2, 0.0) == 0.0
    assert certified_delta(1.0, 1e-9, 1000.0) == 0.0  # e^1000 overflows: no bound
    assert certified_epsilon(0.5, 0.1, 0.0) == pytest.approx(math.log(5))
    assert certified_epsilon(0.5, 0.1, 0.3) == pytest.approx(math.log(2))
    assert certified_epsilon(0.2, 0.5, 0.0) == 0.0 and certified_epsilon(0.2, 0.1, 0.25) == 0.0


def test_trials_to_certify_is_the_smallest_sufficient_count():
    alpha = 0.05 / 2
    for eps in (0.5, 4.0):
        n = trials_to_certify(1.0, 0.0, epsilon=eps, target=0.99, confidence=0.95)
        half = int(n) // 2
        reach = 1 - (1 + math.exp(eps)) * (1 - alpha ** (1 / half))  # closed form, p=1, q=0
        before = 1 - (1 + math.exp(eps)) * (1 - alpha ** (1 / (half - 1)))
        assert reach > 0.99 >= before
    assert trials_to_certify(0.3, 0.2, epsilon=1.0, target=0.0) == math.inf
    assert trials_to_certify(0.5, 0.05, delta=0.0, target=1.0) < 1e6
    with pytest.raises(ValueError, match="exactly one"):
        trials_to_certify(0.5, 0.1, target=0.1)


def test_exact_epsilon_inverts_a_privacy_profile():
    scale = 2.0  # Laplace calibrated at epsilon = 1 for sensitivity 2
    profile = lambda e: accounting.laplace_delta_closed_form(  # noqa: E731
        e, scale=scale, adjacency="replace"
    )
    assert exact_epsilon(profile, 0.0) == pytest.approx(1.0, abs=1e-5)
    assert exact_epsilon(lambda e: 0.5, 0.1) == math.inf


# ----------------------------------------------------------------- theory parts
def _law_pair(variant, x, y, k, eps, bound):
    law = {"per_cell": cs.per_cell_output_distribution}.get(
        variant, cs.noisy_threshold_output_distribution
    )
    return law(x, k=k, epsilon=eps, bound=bound), law(y, k=k, epsilon=eps, bound=bound)


@pytest.mark.parametrize("variant", ["per_cell", "noisy_threshold"])
def test_cell_suppression_pair_delta_matches_the_full_output_law(variant):
    rng = np.random.default_rng(5)
    for _ in range(12):
        x = rng.integers(0, 5, size=3)
        y = next(iter(neighbours(x, "replace", 4))) if x.sum() else x + np.array([1, 0, 0])
        k, eps = float(rng.uniform(1, 5)), float(rng.uniform(0.2, 3))
        p, q = _law_pair(variant, x, y, k, eps, 4)
        at = np.array([0.0, eps, 2 * eps])
        fast = cs.dp_cell_suppression_pair_delta(x, y, k=k, epsilon=eps, variant=variant, at=at)
        np.testing.assert_allclose(fast, exact_delta(p, q, at), atol=1e-12)


def test_swapping_pair_delta_at_fixed_noise():
    x, y = np.array([[2, 0, 0]]), np.array([[1, 1, 0]])
    at = np.array([0.5, 1.0, 3.0])
    profile = sw.dp_swapping_pair_delta(x, y, 1.0, "cell", at=at)
    assert profile[1] == pytest.approx(sw.dp_swapping_pair_delta(x, y, 1.0, "cell"))
    assert np.all(np.diff(profile) <= 1e-15)  # a privacy profile never increases


def test_distinguishing_pair_finds_a_pair_or_none():
    x, y = distinguishing_pair(lambda c: np.minimum(c, 2), 2, 4, "replace")
    assert not np.array_equal(np.minimum(x, 2), np.minimum(y, 2))
    assert distinguishing_pair(lambda c: c.sum(), 2, 4, "replace") is None


# ------------------------------------------------------------- registry pairs
@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
@pytest.mark.parametrize(("universe", "settings"), [(UNIVERSE, SETTINGS), (TINY, TINY_SETTINGS)])
def test_worst_pair_attains_the_exact_delta(entry, universe, settings):
    for eps in (0.25, 1.0, 4.0):
        pair = entry.neighbour_pair(universe, epsilon=eps, **settings)
        assert pair.adjacency == entry.adjacency and pair.reason
        assert pair.x.counts.max() <= universe.counts.max()
        assert pair.x_prime.counts.max() <= universe.counts.max()
        merged = {**settings, **pair.settings}
        exact = entry.delta(universe, epsilon=eps, **merged)
        own = entry.delta_of_pair(pair, epsilon=eps, **settings)
        assert abs(own - exact) <= max(entry.reference_tolerance, 1e-9), (eps, own, exact)


def test_random_pairs_are_neighbours_and_reproducible():
    for adjacency in ("replace", "add_remove", "qi_replace"):
        pairs = random_neighbour_pairs(
            UNIVERSE, adjacency, n_pairs=5, rng=np.random.default_rng(1), qi=("race",)
        )
        again = random_neighbour_pairs(
            UNIVERSE, adjacency, n_pairs=5, rng=np.random.default_rng(1), qi=("race",)
        )
        groups = UNIVERSE.qi_group_index(("race",))
        for pair, other in zip(pairs, again, strict=True):
            assert np.array_equal(pair.x.counts, other.x.counts)
            found = list(neighbours(pair.x.counts, adjacency, 8, groups))
            assert any(np.array_equal(pair.x_prime.counts, y) for y in found)


# --------------------------------------------------------------- the auditor
def _rr_release(p_one):
    def release(counts, rng, reps):
        return (rng.random((reps, 1)) < p_one[int(counts[0])]).astype(float)

    return release


def test_audit_is_valid_over_many_seeds():
    """Coverage: 400 audits at confidence 0.8 of a binary mechanism (P(1) = 0.6 on D, 0.4
    on D'; exact delta at epsilon 0 is 0.2, at epsilon ln 1.2 it is 0.12): the number that
    certify more than the exact value is at most Binomial(400, 0.2)'s 1e-6 upper limit."""
    release = _rr_release({0: 0.6, 1: 0.4})
    eps = np.array([0.0, math.log(1.2)])
    exact = np.array([0.2, 0.6 - 1.2 * 0.4])
    failures = 0
    for seed in range(400):
        result = audit(release, [0], [1], epsilons=eps, trials=400, seed=seed, confidence=0.8)
        failures += bool(np.any(result.delta_lower(eps) > exact + 1e-12))
    assert failures <= binomial_limits(400, 0.2)[1]


def test_audit_reaches_the_exact_delta_of_randomized_response():
    """Power: at 10^5 trials per side the certifying half has 5 * 10^4; the certified delta
    at epsilon 0 loses about 2 * 5.3 * sqrt(0.24 / 5e4) ~ 0.023 to the bounds at 1 - 1e-6,
    so 0.15 (of 0.2) leaves a margin of more than 10 standard errors."""
    release = _rr_release({0: 0.6, 1: 0.4})
    result = audit(release, [0], [1], epsilons=[0.0], trials=100_000, seed=1,
                   confidence=1 - FALSE_FAILURE)  # fmt: skip
    assert 0.15 < result.delta_lower(0.0) <= 0.2
    assert result.best_test(epsilon=0.0).event


def test_audit_catches_laplace_calibrated_for_the_wrong_sensitivity():
    """The classic bug: noise Lap(1/eps) on a query of sensitivity 2 (replace one record)
    is 2 eps-DP, not eps-DP. The corner event has probabilities 1/4 and e^-2/4: at 2 * 10^5
    trials the certified epsilon at delta = 0 is near 1.9 (the bounds at 1 - 1e-6 cost
    about 5.3 * sqrt(3 / 10^5) ~ 0.03 on each log-probability), far above the claimed 1."""
    eps = 1.0

    def buggy(counts, rng, reps):
        return counts + rng.laplace(0.0, 1.0 / eps, size=(reps, counts.size))

    result = audit(buggy, [50, 50], [49, 51], deltas=[0.0], trials=200_000, seed=2,
                   confidence=1 - FALSE_FAILURE)  # fmt: skip
    assert 1.5 < result.epsilon_lower(0.0) <= 2 * eps + 1e-9


def test_single_output_functions_are_audited_too():
    def release(counts, rng):  # one output per call
        return counts + rng.integers(0, 2, size=counts.size)

    result = audit(release, [3, 0], [2, 1], epsilons=[0.0, 1.0], trials=400, seed=0)
    assert 0.0 <= result.delta_lower(0.0) <= 1.0
    assert result.trials == 400


def test_audit_is_reproducible():
    entry = REGISTRY["dp_cell_suppression"]
    pair = entry.neighbour_pair(UNIVERSE, epsilon=1.0, **SETTINGS)
    runs = [
        audit(entry, pair, settings=_values(entry, pair, 1.0), epsilons=[1.0], trials=2000, seed=7)
        for _ in range(2)
    ]
    assert runs[0].tests == runs[1].tests


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_registry_audits_never_exceed_the_exact_delta(entry):
    """One audit per record at 4 * 10^4 trials, each at confidence 1 - 1e-6 / 11 (all
    records together fail with probability at most 1e-6). Deterministic releases reach
    delta >= 0.99 at epsilon 2: counts are n and 0 whatever the seed, and 2 * 10^4
    certifying trials give 1 - (1 + e^2) * 17.5 / 2e4 ~ 0.993."""
    confidence = 1 - FALSE_FAILURE / len(ENTRIES)
    epsilons = [0.5, 2.0]
    pair = entry.neighbour_pair(UNIVERSE, epsilon=1.0, **SETTINGS)
    values = _values(entry, pair, 1.0)
    result = audit(entry, pair, settings=values, epsilons=epsilons, deltas=[0.0],
                   trials=40_000, seed=entry.seed_key, confidence=confidence)  # fmt: skip
    if entry.private:
        exact = entry.delta_of_pair(pair, epsilon=1.0, at=epsilons, **SETTINGS)
    else:
        exact = np.ones(len(epsilons))
    tolerance = max(entry.reference_tolerance, 1e-12)
    assert np.all(result.delta_lower(epsilons) <= exact + tolerance)
    if entry.kind == "traditional":
        assert np.all(result.delta_lower(epsilons) >= 0.99)


def test_audit_samples_takes_outputs_drawn_elsewhere():
    rng = np.random.default_rng(3)
    out_x = rng.random((5000, 1)) < 0.9
    out_y = rng.random((5000, 1)) < 0.1
    result = audit_samples(out_x.astype(float), out_y.astype(float), epsilons=[1.0])
    assert result.delta_lower(1.0) > 0.5
    custom = audit_samples(out_x, out_y, epsilons=[1.0], statistics={}, views={"bit": lambda o: o})
    assert custom.best_test(epsilon=1.0).family == "likelihood ratio: bit"


# ------------------------------------------------------------------ bad input
def test_bad_input_is_refused_with_a_clear_message():
    release = _rr_release({0: 0.6, 1: 0.4})
    with pytest.raises(ValueError, match="target"):
        audit(release, [0], [1], trials=100)
    with pytest.raises(ValueError, match="deltas"):
        audit(release, [0], [1], deltas=[1.0], trials=100)
    with pytest.raises(ValueError, match="epsilons"):
        audit(release, [0], [1], epsilons=[float("nan")], trials=100)
    with pytest.raises(ValueError, match="trials"):
        audit(release, [0], [1], epsilons=[1.0], trials=0)
    with pytest.raises(ValueError, match="confidence"):
        audit(release, [0], [1], epsilons=[1.0], trials=100, confidence=1.5)
    with pytest.raises(ValueError, match="equal"):
        audit_samples(np.zeros((10, 2)), np.ones((10, 2)), epsilons=[1.0], x=[1, 1], x_prime=[1, 1])
    with pytest.raises(ValueError, match="shape"):
        audit_samples(np.zeros((10, 2)), np.ones((12, 2)), epsilons=[1.0])
    with pytest.raises(TypeError, match="release"):
        audit(42, [0], [1], epsilons=[1.0], trials=100)
    with pytest.raises(TypeError, match="Histogram"):
        audit("laplace", [1, 2], [2, 1], settings={"epsilon": 1.0}, epsilons=[1.0], trials=100)
    with pytest.raises(ValueError, match="unknown mechanism"):
        audit("laplace_typo", UNIVERSE, UNIVERSE, epsilons=[1.0], trials=100)
    pair = NeighbourPair(UNIVERSE, UNIVERSE, "replace")
    with pytest.raises(ValueError, match="not both"):
        audit("laplace", pair, UNIVERSE, epsilons=[1.0], trials=100)


def test_registry_without_epsilon_is_refused():
    pair = REGISTRY["laplace"].neighbour_pair(UNIVERSE)
    with pytest.raises(ValueError, match="epsilon"):
        audit("laplace", pair, epsilons=[1.0], trials=100)


def test_public_api_exports_the_auditor():
    assert dl.audit.audit is audit


# ------------------------------------------------------------- building blocks
@pytest.mark.parametrize("kind", ["int", "float", "bool", "wide", "huge"])
def test_factorize_rows_gives_equal_ids_to_equal_rows(kind):
    rng = np.random.default_rng(4)
    base = rng.integers(0, 3, size=(300, 4))
    array = {
        "int": base,
        "float": base + 0.5,
        "bool": base > 1,
        "wide": np.tile(base, (1, 40)),  # radix product overflows: keys are compressed
        "huge": base * 2**40,  # offsets too large for one radix digit: hashed per column
    }[kind]
    parts = [array[:100], array[100:250], array[250:]]
    ids, count = factorize_rows(parts)
    flat = np.concatenate(ids)
    _, expected = np.unique(np.asarray(array), axis=0, return_inverse=True)
    assert count == len(np.unique(np.asarray(array), axis=0))
    same = flat[:, None] == flat[None, :]
    assert np.array_equal(same, expected.ravel()[:, None] == expected.ravel()[None, :])


def test_random_pairs_respect_min_records():
    pairs = random_neighbour_pairs(
        UNIVERSE, "add_remove", n_pairs=10, rng=np.random.default_rng(2), min_records=6
    )
    assert all(min(p.x.total, p.x_prime.total) >= 6 for p in pairs)
    with pytest.raises(ValueError, match="cannot hold"):
        random_neighbour_pairs(UNIVERSE, "replace", n_pairs=1, rng=np.random.default_rng(2),
                               support=1, min_records=20)  # fmt: skip


def test_profile_search_and_refutations_of_the_swapping_theorem():
    """At epsilon 0.25 the printed swapping delta is 0.024 below the exact 0.889: with 10^5
    trials per side the bound at 1 - 1e-6 loses about 2 * 5.3 * sqrt(0.1 / 5e4) ~ 0.015, so
    the refutation margin is several standard errors (see the chapter's table)."""
    entry = REGISTRY["dp_swapping"]
    confidences = {"figure": 0.95, "check": 1 - FALSE_FAILURE}
    profile = audit_profile(entry, UNIVERSE, epsilons=[0.25, 4.0], trials=100_000, seed=3,
                            settings=SETTINGS, confidences=confidences)  # fmt: skip
    assert np.all(profile["delta_lower_check"] <= profile["pair_exact"] + 1e-12)
    assert np.allclose(profile["pair_exact"], profile["exact"], atol=1e-12)
    found = refutations(profile, "printed", confidence=1 - FALSE_FAILURE)
    assert list(found["epsilon"]) == [0.25, 4.0]
    assert bool(found["certified wrong"].iloc[0])
    assert found["trials per side needed"].iloc[0] <= 100_000
    curves = exact_curves(entry, UNIVERSE, epsilons=[0.25, 4.0], settings=SETTINGS)
    assert np.allclose(curves["exact"], profile["exact"], atol=1e-12)
    search = search_pairs(entry, UNIVERSE, epsilon=1.0, n_pairs=2, trials=2000, seed=1,
                          settings=SETTINGS, confidences=confidences)  # fmt: skip
    assert list(search["kind"]) == ["worst", "random", "random"]
    assert np.all(search["delta_lower_check"] <= search["exact"] + 1e-12)


def test_profile_reports_per_level_the_event_behind_that_levels_bound():
    """The counts reported at each confidence level recompute that level's delta bound:
    the event, its counts and the trials-per-side estimate come from one event."""
    from dadp_lite.audit.bounds import certified_delta, clopper_pearson

    entry = REGISTRY["dp_swapping"]
    confidences = {"figure": 0.95, "check": 1 - FALSE_FAILURE}
    profile = audit_profile(entry, UNIVERSE, epsilons=[0.25, 1.0], trials=20_000, seed=5,
                            settings=SETTINGS, confidences=confidences)  # fmt: skip
    for name, confidence in confidences.items():
        for row in profile.itertuples():
            alpha = (1 - confidence) / (2 * row.certified_events)
            hits, other, n = (getattr(row, f"{c}_{name}") for c in
                              ("hits", "hits_other", "certifying_trials"))  # fmt: skip
            lower, _ = clopper_pearson(hits, n, alpha)
            _, upper = clopper_pearson(other, n, alpha)
            assert math.isclose(certified_delta(lower, upper, row.epsilon),
                                getattr(row, f"delta_lower_{name}"), abs_tol=1e-12)  # fmt: skip
    with pytest.raises(ValueError, match="level"):
        refutations(profile, "printed", confidence=0.9, level="other")


def test_traditional_profile_is_one_audit_over_the_grid():
    entry = REGISTRY["cell_suppression"]
    profile = audit_profile(entry, UNIVERSE, epsilons=[0.5, 1.0], trials=4000, seed=0,
                            settings=SETTINGS, confidences={"figure": 0.95})  # fmt: skip
    assert profile["certified_events"].nunique() == 1 and profile["pair"].nunique() == 1
    assert np.all(profile["hits_figure"] == profile["certifying_trials_figure"])
    assert np.all(profile["hits_other_figure"] == 0) and profile["printed"].isna().all()


def _claims_and_exact(entry, epsilons):
    """Printed delta, the tables' reading (NaN where none) and the exact delta of the
    record's worst-case pair, noise calibrated at each epsilon."""
    rows = []
    for eps in epsilons:
        pair = entry.neighbour_pair(UNIVERSE, epsilon=eps, **SETTINGS)
        merged = {**SETTINGS, **pair.settings}
        rows.append((entry.printed(UNIVERSE, epsilon=eps, **merged),
                     entry.reading(UNIVERSE, epsilon=eps, **merged),
                     entry.delta_of_pair(pair, epsilon=eps, **SETTINGS)))  # fmt: skip
    return np.array(rows).T


def _statuses(entry, epsilons):
    """Status word (errata rule, claim against exact) of the printed delta, where the
    paper prints one, and, where the record has one that differs from it, of the tables'
    reading (a record without a printed delta has NaN there and no status)."""
    printed, reading, exact = _claims_and_exact(entry, epsilons)
    tol = max(entry.reference_tolerance, 1e-12)
    words = {}
    if not np.isnan(printed).all():
        words["printed"] = errata.delta_status(printed, exact, tol=tol).word
    if not np.isnan(reading).all() and not np.allclose(reading, printed):
        words["reading"] = errata.delta_status(reading, exact, tol=tol).word
    return words


PRIVATE = [e for e in ENTRIES if e.private]


@pytest.mark.parametrize("entry", PRIVATE, ids=lambda e: e.name)
def test_verdict_on_the_papers_epsilons_holds_on_a_fine_grid(entry):
    """A claimed delta that holds at the paper's four epsilons (status not "wrong") holds at
    every epsilon of a fine grid over the same range, and one that fails there fails on the
    grid (which contains them): exact computations on both sides, so no seed is involved."""
    paper = np.asarray(PAPER_EPSILONS)
    fine = np.union1d(np.geomspace(paper.min(), paper.max(), 25), paper)
    on_paper, on_fine = _statuses(entry, paper), _statuses(entry, fine)
    assert {k: w == "wrong" for k, w in on_fine.items()} == {
        k: w == "wrong" for k, w in on_paper.items()
    }


#: The paper's claims the book finds below the exact delta (chapter 14's verdicts): the
#: per-cell swapping theorem and the discrete Gaussian column of Tables 1-3. A finding about
#: the paper, so mechanisms the book adds (source "book") are outside it.
WRONG_CLAIMS = {("dp_swapping", "printed"), ("discrete_gaussian", "reading")}


def test_only_the_swapping_theorem_and_the_dg_column_are_below_the_exact_delta():
    wrong = {
        (e.name, claim)
        for e in PRIVATE
        if e.source != "book"
        for claim, word in _statuses(e, PAPER_EPSILONS).items()
        if word == "false"
    }
    assert wrong == WRONG_CLAIMS


def test_audit_catches_shared_noise_and_a_threshold_from_the_data():
    """Both bugs leak a constant share of the outputs: noise shared by all cells releases
    the differences between cells exactly (delta = 1 on a replace pair), and a median
    threshold lets values in [2, 3) through under (5, 2, 2) only (probability about 0.4).
    With 10^5 trials per side the certified values sit tens of standard errors above the
    limits asserted; the correct versions are (1, 0)-DP and must certify 0."""
    confidence = 1 - FALSE_FAILURE / 4

    def shared(counts, rng, reps):
        return counts + rng.laplace(0.0, 2.0, size=(reps, 1))

    def independent(counts, rng, reps):
        return counts + rng.laplace(0.0, 2.0, size=(reps, counts.size))

    def thresholded(counts, rng, reps, threshold=None):
        noisy = independent(counts, rng, reps)
        return np.where(noisy >= (np.median(counts) if threshold is None else threshold), noisy, 0)

    smallest = {"smallest": lambda o: np.where(o > 0, o, np.inf).min(axis=1)}
    pair = ([5, 3, 1], [5, 2, 2])
    run = lambda f, stats_=None: audit(  # noqa: E731
        f, *pair, epsilons=[1.0], trials=100_000, seed=5, confidence=confidence, statistics=stats_
    ).delta_lower(1.0)
    assert run(shared) > 0.99 and run(independent) == 0.0
    assert run(thresholded, smallest) > 0.3
    assert run(lambda c, rng, reps: thresholded(c, rng, reps, 3.0), smallest) == 0.0


def test_teaching_cases_release_what_they_claim():
    from dadp_lite.audit.examples import STUDENT_PAIR, teaching_cases

    cases = teaching_cases(1.0)
    assert [c.bug for c in cases] == ["sensitivity", "data threshold", "shared noise"]
    x = np.array(STUDENT_PAIR[0])
    rng = np.random.default_rng(0)
    for case in cases:
        for release in (case.correct, case.buggy):
            out = release(x, rng, 5)
            assert out.shape == (5, 3)
    shared = cases[2].buggy(x, rng, 1000)
    assert np.allclose(np.diff(shared, axis=1), np.diff(x))  # differences released exactly
    wide = cases[0].correct(x, rng, 200_000) - x
    narrow = cases[0].buggy(x, rng, 200_000) - x
    assert np.std(wide) > 1.9 * np.std(narrow)  # scales 2 and 1: ratio 2
    with pytest.raises(ValueError, match="counts"):
        cases[0].correct(np.zeros((2, 2)), rng, 1)


def test_bug_leaks_against_an_independent_computation():
    """The sensitivity bug's delta by numerical convolution of the two cells' privacy-loss
    laws; the threshold bug's leaking event by simulation (an exact binomial test at the
    book's false-failure rate)."""
    from dadp_lite.audit.examples import STUDENT_PAIR, bug_leaks, teaching_cases

    epsilon, scale = 1.0, 1.0  # the bug uses scale 1 / epsilon
    y = np.linspace(-60.0, 60.0, 600_001)
    p = np.exp(-np.abs(y) / scale) / (2 * scale) * (y[1] - y[0])
    loss = (np.abs(y - 1) - np.abs(y)) / scale
    bins = np.linspace(-epsilon - 1e-9, epsilon + 1e-9, 4001)
    law, _ = np.histogram(loss, bins=bins, weights=p)
    two = np.convolve(law, law)
    centres = np.linspace(2 * bins[0], 2 * bins[-1], two.size)
    delta = float(np.sum(two * np.maximum(1 - np.exp(epsilon - centres), 0)))
    leaks = bug_leaks(epsilon)
    assert leaks["sensitivity"] == pytest.approx(delta, abs=2e-3)
    buggy = teaching_cases(epsilon)[1].buggy
    out = buggy(np.array(STUDENT_PAIR[1]), np.random.default_rng(1), 100_000)
    hits = int(np.any((out >= 2) & (out < 3), axis=1).sum())
    lo, hi = binomial_limits(100_000, leaks["data threshold"])
    assert lo <= hits <= hi
    assert leaks["shared noise"] == 1.0
