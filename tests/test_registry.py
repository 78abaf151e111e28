"""The registry's contract, checked for every entry (a new entry needs no new test code).

For each registered mechanism:

1. ``release`` returns all repetitions at once, reproducibly, on the MA histogram;
2. its releases agree with its ``exact_bias`` by simulation (when it has one);
3. every ``exact_delta`` agrees with the entry's independent ``reference_delta`` on a small
   histogram (enumeration, or closed form against dp_accounting);
4. bad values of epsilon, reps, rng and of each declared parameter are refused with an
   error that names the argument.

Design of check 2 (false failure at most 1e-6, as every check of the book). The per-cell
bias is tested through ``N_PROJECTIONS`` linear statistics ``T_r = sum_i w_i (x~_ri -
x_i)`` whose expectation is ``sum_i w_i b_i`` exactly: the signs of the exact bias (so the
first one tests its l1 norm) and random normal weights (which catch an error in any single
cell). Each ``T_r`` sums hundreds of bounded cells, so the mean of ``REPS`` of them is
normal to high accuracy, with standard error from the sample; the limit is the Bonferroni
z-limit of :func:`dadp_lite.z_limit` over the projections of one entry. A deterministic
mechanism has standard error 0 and must match exactly (to round-off).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dadp_lite as dl
from dadp_lite.histogram import Histogram
from dadp_lite.registry import REGISTRY

ENTRIES = list(REGISTRY.values())
IDS = [entry.name for entry in ENTRIES]
EPSILON = 1.0
REPS = 4000
N_PROJECTIONS = 4
#: Settings for the release checks: the paper's (k = 6, race as QI) plus a swap rate.
SETTINGS = {"rate": 0.5}
#: A small histogram for the delta checks: race (2 values, the QI) x sex (2), counts <= 3.
TINY = Histogram(np.array([3, 1, 0, 2]), ("sex", "race"), ((1, 2), (1, 2)))
TINY_SETTINGS = {"k": 2, "qi": ("race",), "ka_qi": ("sex", "race"), "rate": 0.5}


@pytest.fixture(scope="module")
def ma():
    return dl.Dataset.load("ma2019")


def _params(entry, settings, epsilon=EPSILON) -> dict:
    values = entry.select(settings)
    if entry.private:
        values["epsilon"] = epsilon
    return values


def _release(entry, dataset, reps, seed, settings=SETTINGS):
    rng = np.random.default_rng(seed)
    return entry.release(dataset, rng=rng, reps=reps, **_params(entry, settings))


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_release_returns_all_repetitions_reproducibly(ma, entry):
    first = _release(entry, ma, reps=3, seed=1)
    again = _release(entry, ma, reps=3, seed=1)
    assert first.shape == (3, ma.histogram.n_cells)
    np.testing.assert_array_equal(first, again)
    assert np.all(first >= 0)


@pytest.mark.parametrize(
    "entry", [e for e in ENTRIES if e.exact_bias is not None], ids=lambda e: e.name
)
def test_release_agrees_with_exact_bias(ma, entry):
    cheap = entry.name not in ("swapping",)  # the record-level sampler is slower
    reps = REPS if cheap else 400
    released = _release(entry, ma, reps=reps, seed=2)
    true = ma.histogram.counts.astype(float)
    exact = entry.bias(ma.histogram, epsilon=EPSILON, **SETTINGS)
    weights = np.vstack(
        [np.sign(exact), np.random.default_rng(3).normal(size=(N_PROJECTIONS - 1, true.size))]
    )
    projected = (released - true) @ weights.T  # (reps, projections)
    expected = weights @ exact
    se = projected.std(axis=0, ddof=1) / math.sqrt(reps)
    gap = projected.mean(axis=0) - expected
    limit = dl.z_limit(N_PROJECTIONS)
    exact_match = np.all(projected == projected[0], axis=0)  # deterministic statistic
    assert np.all(np.abs(gap[exact_match]) <= 1e-9 * (1 + np.abs(expected[exact_match])))
    z = np.abs(gap[~exact_match]) / se[~exact_match]
    assert np.all(z < limit), f"{entry.name}: |z| = {z.max():.2f} >= {limit:.2f}"


@pytest.mark.parametrize(
    ("entry", "adjacency"),
    [(e, a) for e in ENTRIES for a in e.exact_delta],
    ids=[f"{e.name}-{a}" for e in ENTRIES for a in e.exact_delta],
)
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_exact_delta_agrees_with_the_reference(entry, adjacency, epsilon):
    assert entry.reference_delta is not None, f"{entry.name} has no reference computation"
    fast = entry.delta(TINY, epsilon=epsilon, adjacency=adjacency, **TINY_SETTINGS)
    values = entry.select(TINY_SETTINGS)
    reference = entry.reference_delta(TINY, epsilon=epsilon, adjacency=adjacency, **values)
    assert 0.0 <= fast <= 1.0
    assert abs(fast - reference) <= entry.reference_tolerance, (fast, reference)


def _bad_calls(entry):
    """(argument name, keyword overrides) pairs that the release must refuse."""
    calls = [("reps", {"reps": 0}), ("reps", {"reps": 2.5}), ("rng", {"rng": 42})]
    if entry.private:
        for bad in (0.0, -1.0, math.nan, math.inf, True, "1"):
            calls.append(("epsilon", {"epsilon": bad}))
    for parameter in entry.parameters:
        for bad in parameter.invalid:
            calls.append((parameter.argument or parameter.name, {parameter.name: bad}))
    return calls


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_release_refuses_bad_values_naming_the_argument(ma, entry):
    for argument, override in _bad_calls(entry):
        kwargs = {"rng": np.random.default_rng(0), "reps": 2, **_params(entry, SETTINGS)}
        kwargs.update(override)
        with pytest.raises((ValueError, TypeError)) as error:
            entry.release(ma, **kwargs)
        assert argument in str(error.value), f"{entry.name}, {override}: {error.value}"


def test_every_entry_is_described_completely():
    for entry in ENTRIES:
        assert entry.kind in dl.registry.KINDS
        assert entry.color.startswith("#") and entry.label
        assert entry.adjacency in entry.exact_delta
        assert entry.exact_delta, f"{entry.name} has no exact delta"
    keys = [entry.seed_key for entry in ENTRIES]
    assert len(set(keys)) == len(keys), "two entries share a random stream"
