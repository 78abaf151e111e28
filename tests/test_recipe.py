"""The recipe of ARCHITECTURE.md ("Adding a mechanism") is true, and cannot silently rot.

A throwaway mechanism, the projected Gaussian (``max(x + N(0, sigma^2), 0)`` per cell,
``sigma = 2 / epsilon``), is added at test time the way the recipe says: a sampler
(re-exported by ``dadp_lite.mechanisms`` and ``dadp_lite``), its calibration in
``dadp_lite.definitions``, its exact answers (histogram first, in the registry's argument
order), and one record class registered with ``register`` in a copy of the registry.
With no other code it then passes the registry's contract (``tests/test_registry.py``),
the audits (``tests/test_audit.py``) and the data-release table; and skipping any step of
the recipe fails a check.

Its exact answers (this module plays the theory module): the bias of ``max(x + Z, 0)`` is
``sigma phi(x / sigma) - x Phi(-x / sigma)``; the delta of two neighbours at L2 distance
``D`` (``sqrt 2`` under replace-one, 1 under add/remove) is the analytic Gaussian
mechanism's ``Phi(D / (2 sigma) - eps sigma / D) - e^eps Phi(-D / (2 sigma) - eps sigma /
D)`` (Balle and Wang 2018) for the unprojected release (projection, post-processing, can
only lower it; as for the Laplace record), checked against a numerical integration of the
hockey-stick divergence (``scipy.integrate.quad``).

The checks run are the contract's own tests called on the new record; their false-failure
design is stated there. A check that must fail (a skipped step) fails deterministically,
or, for the wrong bias, by a margin stated beside it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import test_audit as audits
import test_registry as contract
from scipy import integrate, special, stats

import dadp_lite as dl
from dadp_lite import definitions, registry
from dadp_lite import experiments as ex
from dadp_lite._validate import check_epsilon
from dadp_lite.mechanisms._additive import additive_release
from dadp_lite.theory._contract import bound, make_pair, need_cells, profile_points

NAME = "projected_gaussian"
#: Two neighbours' L2 distance under each adjacency the record declares.
DISTANCE = {"replace": math.sqrt(2.0), "add_remove": 1.0}


# ------------------------------------------------- step 2: calibration (definitions)
def gaussian_sigma(epsilon: float) -> float:
    """sigma = 2 / epsilon."""
    return 2.0 / check_epsilon(epsilon)


# --------------------------------------------------------- step 1: the sampler
def projected_gaussian(counts, *, epsilon, rng, reps, project=True):
    """counts + N(0, sigma^2) per cell, reps at once, clipped at 0 when ``project``."""
    sigma = gaussian_sigma(epsilon)
    noise = lambda generator, shape: generator.normal(0.0, sigma, size=shape)  # noqa: E731
    return additive_release(counts, noise, rng=rng, reps=reps, project=project)


# ---------------------------------------------------- step 3: the exact answers
def projected_gaussian_bias(counts, *, sigma):
    x = np.asarray(counts, dtype=float)
    return sigma * stats.norm.pdf(x / sigma) - x * special.ndtr(-x / sigma)


def gaussian_delta(at, *, sigma, distance):
    """Analytic Gaussian mechanism: delta at ``at`` of two means ``distance`` apart."""
    eps = np.asarray(at, dtype=float)
    a, b = distance / (2 * sigma), eps * sigma / distance
    value = special.ndtr(a - b) - np.exp(eps) * special.ndtr(-a - b)
    return float(value) if value.ndim == 0 else value


def gaussian_delta_integrated(at, *, sigma, distance):
    """The hockey-stick divergence of N(0, sigma^2) and N(distance, sigma^2), numerically."""
    p, q = stats.norm(0.0, sigma), stats.norm(distance, sigma)
    cut = distance / 2 - at * sigma**2 / distance  # p >= e^eps q below the cut
    value, _ = integrate.quad(lambda y: p.pdf(y) - math.exp(at) * q.pdf(y), -np.inf, cut,
                              epsabs=1e-13, epsrel=1e-12)  # fmt: skip
    return value


# (the exact answers in the registry's argument order: histogram first, keywords after)
def exact_bias(histogram, *, epsilon, project=True):
    sigma = gaussian_sigma(epsilon)
    return projected_gaussian_bias(histogram.counts, sigma=sigma) if project else 0 * sigma


def exact_delta(histogram, *, epsilon, adjacency, project=True):
    return gaussian_delta(epsilon, sigma=gaussian_sigma(epsilon), distance=DISTANCE[adjacency])


def reference_delta(histogram, *, epsilon, adjacency, project=True):
    sigma = gaussian_sigma(epsilon)
    return gaussian_delta_integrated(epsilon, sigma=sigma, distance=DISTANCE[adjacency])


def worst_pair(histogram, *, epsilon=None, project=True):
    need_cells(histogram, 2)
    b = bound(histogram)
    reason = "every replace-one pair is at L2 distance sqrt 2; counts at the bound"
    return make_pair(histogram, {0: b, 1: b - 1}, {0: b - 1, 1: b}, "replace", reason)


def pair_delta(x, x_prime, *, epsilon, at=None, project=True):
    distance = float(np.linalg.norm(x.counts - x_prime.counts))
    where = profile_points(epsilon, at)
    return gaussian_delta(where, sigma=gaussian_sigma(epsilon), distance=distance)


# --------------------------------------------------- step 4: the registry record
class ProjectedGaussian(dl.registry.Mechanism):
    """The record, declared as the template says (registered at test time)."""

    name = NAME
    label = "projected Gaussian"
    color = "#E69F00"
    kind = "baseline"
    source = "book"
    seed_key = max(m.seed_key for m in registry.REGISTRY.values()) + 1
    sampler = projected_gaussian
    fixed = {"project": True}
    calibration = gaussian_sigma
    exact_bias = exact_bias
    adjacencies = tuple(DISTANCE)
    adjacency = "replace"
    exact_delta = exact_delta
    exact_method = "analytic Gaussian mechanism (Balle and Wang 2018)"
    reference_delta = reference_delta
    reference_tolerance = 1e-8
    worst_pair = worst_pair
    pair_delta = pair_delta


#: The steps a test may skip, in the recipe's order.
STEPS = ("re-export", "calibration", "register")


def follow_the_recipe(monkeypatch, *, skip: tuple[str, ...] = (), **changes) -> object:
    """Every step of the recipe (at test time; monkeypatch undoes them) but those in
    ``skip``; ``changes`` replace attributes of the record."""
    if "re-export" not in skip:
        for package in (dl.mechanisms, dl):
            monkeypatch.setattr(package, NAME, projected_gaussian, raising=False)
            monkeypatch.setattr(package, "__all__", [*package.__all__, NAME])
    if "calibration" not in skip:
        monkeypatch.setattr(definitions, "gaussian_sigma", gaussian_sigma, raising=False)
        monkeypatch.setattr(definitions, "__all__", [*definitions.__all__, "gaussian_sigma"])
    cls = type("ProjectedGaussian", (ProjectedGaussian,), changes) if changes else ProjectedGaussian
    if "register" not in skip:
        monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
        registry.register(cls)
        return registry.REGISTRY[NAME]
    return cls()


@pytest.fixture(scope="module")
def ma():
    return dl.Dataset.load("ma2019")


# ------------------------------------------------------------------ the recipe holds
def test_the_exact_answers_agree_with_a_simulation_and_an_integral():
    """The throwaway's own theory, before it enters the registry: the analytic delta
    against the integral on a grid, and the bias formula against a direct quadrature of
    E max(x + Z, 0)."""
    for eps in (0.25, 1.0, 4.0):
        sigma = gaussian_sigma(eps)
        for distance in DISTANCE.values():
            fast = gaussian_delta(eps, sigma=sigma, distance=distance)
            assert abs(fast - gaussian_delta_integrated(eps, sigma=sigma, distance=distance)) < 1e-9
        for x in (0, 1, 5):
            positive = lambda z, x=x, s=sigma: (x + z) * stats.norm.pdf(z, 0, s)  # noqa: E731
            mean, _ = integrate.quad(positive, -x, np.inf, epsabs=1e-12)  # E max(x + Z, 0)
            assert abs(mean - x - projected_gaussian_bias(x, sigma=sigma)) < 1e-8


def test_the_new_record_passes_the_registry_contract(monkeypatch, ma):
    entry = follow_the_recipe(monkeypatch)
    contract.test_every_entry_follows_the_recipe(entry)
    contract.test_release_returns_all_repetitions_reproducibly(ma, entry)
    contract.test_release_agrees_with_exact_bias(ma, entry)
    contract.test_release_refuses_bad_values_naming_the_argument(ma, entry)
    for adjacency in entry.adjacencies:
        for epsilon in (0.5, 2.0):
            contract.test_exact_delta_agrees_with_the_reference(entry, adjacency, epsilon)


def test_the_new_record_passes_the_audits(monkeypatch):
    entry = follow_the_recipe(monkeypatch)
    for universe, settings in [(audits.UNIVERSE, audits.SETTINGS),
                               (audits.TINY, audits.TINY_SETTINGS)]:  # fmt: skip
        audits.test_worst_pair_attains_the_exact_delta(entry, universe, settings)
    audits.test_registry_audits_never_exceed_the_exact_delta(entry)
    audits.test_verdict_on_the_papers_epsilons_holds_on_a_fine_grid(entry)  # no printed delta


def test_the_new_record_gets_rows_in_the_data_release_table(monkeypatch, ma):
    entry = follow_the_recipe(monkeypatch)
    epsilons = [1.0, 4.0]
    table = ex.data_release_table(ma, epsilons=epsilons, reps=400, seed=0, n_boot=50,
                                  mechanisms=[NAME])  # fmt: skip
    assert list(table["mechanism"]) == [NAME, NAME]
    assert table["delta_paper"].isna().all()  # the paper prints nothing for it
    exact = [entry.delta(ma.histogram, epsilon=e) for e in epsilons]
    np.testing.assert_allclose(table["delta_exact"], exact, rtol=0, atol=0)
    # z of an unbiased estimator of the exact l1 bias: two rows, limit at 1e-6 over both
    assert (table["z_bias_l1"].abs() < dl.z_limit(len(epsilons))).all(), table["z_bias_l1"]
    html = dl.tables.release_table(ex.compare_with_paper(table)).to_html()
    assert entry.label in html
    by_name = dl.release(NAME, ma, epsilon=1.0, reps=3, seed=4)
    np.testing.assert_array_equal(by_name, dl.release(entry, ma, epsilon=1.0, reps=3, seed=4))


# ----------------------------------------------------- a skipped step fails a check
@pytest.mark.parametrize("step", STEPS)
def test_skipping_a_step_of_the_recipe_fails_the_contract(monkeypatch, step):
    entry = follow_the_recipe(monkeypatch, skip=(step,))
    with pytest.raises(AssertionError):
        contract.test_every_entry_follows_the_recipe(entry)


def test_a_record_without_a_worst_pair_is_refused_when_registered(monkeypatch):
    """The audits and chapter 14 run every record on its worst pair: no opting out."""
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    bare = type("Bare", (dl.registry.Mechanism,), {
        k: v for k, v in vars(ProjectedGaussian).items() if k not in ("worst_pair", "pair_delta")
    })  # fmt: skip
    with pytest.raises(TypeError, match="Bare does not set worst_pair, pair_delta"):
        registry.register(bare)
    assert NAME not in registry.REGISTRY


def test_an_exact_answer_in_another_argument_order_is_refused(monkeypatch):
    """A theory function that takes the counts first, or misses a parameter of the record,
    cannot be named as it is: registration says which call it cannot take."""
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))

    def counts_first(counts, epsilon):
        return projected_gaussian_bias(counts, sigma=gaussian_sigma(epsilon))

    with pytest.raises(TypeError, match=r"exact_bias\(counts, epsilon\) cannot be called as"):
        registry.register(type("Wrong", (ProjectedGaussian,), {"exact_bias": counts_first}))


def test_releases_below_zero_fail_the_contract(monkeypatch, ma):
    """Releases are counts: without the projection some cells come out negative (a zero
    cell is negative with probability 1/2 in each of 3 x 540 draws)."""
    entry = follow_the_recipe(monkeypatch, fixed={"project": False})
    with pytest.raises(AssertionError):
        contract.test_release_returns_all_repetitions_reproducibly(ma, entry)


def test_a_two_percent_bias_error_fails_the_contract(monkeypatch, ma):
    """The exact bias 2% too large. On MA at epsilon 1 (sigma = 2) the l1 projection's
    expected gap is 0.02 ||b||_1 (6.0 records) against a standard error of 0.51 at 4000
    repetitions: z about 11.8 against the limit 5.2, so the check would pass only after a
    fluctuation of 6.6 standard errors (probability below 1e-10)."""

    def wrong(histogram, *, epsilon, project=True):
        return 1.02 * exact_bias(histogram, epsilon=epsilon)

    entry = follow_the_recipe(monkeypatch, exact_bias=wrong)
    with pytest.raises(AssertionError, match=r"\|z\|"):
        contract.test_release_agrees_with_exact_bias(ma, entry)
