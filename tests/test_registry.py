"""The registry's contract, checked for every entry (a new entry needs no new test code).

For each registered mechanism:

1. ``release`` returns all repetitions at once, reproducibly, non-negative, on the MA
   histogram;
2. its releases agree with its ``exact_bias`` by simulation (when it has one);
3. every ``exact_delta`` agrees with the entry's independent ``reference_delta`` on a small
   histogram (enumeration, or closed form against dp_accounting);
4. bad values of epsilon, reps, rng and of each declared parameter are refused with an
   error that names the argument;
5. the record follows the recipe of ARCHITECTURE.md ("Adding a mechanism"): a worst-case
   pair and a pair delta for the audits, the calibration in ``dadp_lite.definitions`` and
   used by the sampler's module, the sampler re-exported, the record registered.

``tests/test_recipe.py`` runs these checks on a throwaway record, so each of them must
take the entry as an argument (no test here may assume the entries it loops over).

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

import ast
import importlib
import math
import pkgutil
import sys
from pathlib import Path

import numpy as np
import pytest

import dadp_lite as dl
from dadp_lite import definitions
from dadp_lite.histogram import Histogram
from dadp_lite.registry import REGISTRY, Mechanism

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


def _release(entry, dataset, reps, seed, settings=SETTINGS):
    rng = np.random.default_rng(seed)
    return entry.release(dataset, rng=rng, reps=reps, **entry.bind(settings, epsilon=EPSILON))


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
    reps = REPS
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
    [(e, a) for e in ENTRIES for a in e.adjacencies],
    ids=[f"{e.name}-{a}" for e in ENTRIES for a in e.adjacencies],
)
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_exact_delta_agrees_with_the_reference(entry, adjacency, epsilon):
    assert entry.reference_delta is not None, f"{entry.name} has no reference computation"
    fast = entry.delta(TINY, epsilon=epsilon, adjacency=adjacency, **TINY_SETTINGS)
    values = entry.select(TINY_SETTINGS) | dict(entry.fixed)
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
        kwargs = {"rng": np.random.default_rng(0), "reps": 2}
        kwargs |= entry.bind(SETTINGS, epsilon=EPSILON)
        kwargs.update(override)
        with pytest.raises((ValueError, TypeError)) as error:
            entry.release(ma, **kwargs)
        assert argument in str(error.value), f"{entry.name}, {override}: {error.value}"


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_every_entry_follows_the_recipe(entry):
    """The steps of ARCHITECTURE.md's "Adding a mechanism" that the checks above do not see."""
    assert entry.kind in dl.registry.KINDS and entry.source in dl.registry.SOURCES
    # a sampler that reads the records costs at least one step per record
    assert entry.scales_with in dl.registry.SCALES
    assert entry.takes != "records" or entry.scales_with == "records", entry.name
    assert entry.color.startswith("#") and entry.label
    assert entry.adjacencies, f"{entry.name} has no exact delta"
    assert entry.adjacency in entry.adjacencies
    # every required function named (the audits, chapter 14, run every record's worst pair)
    for attribute, required in dl.registry.FUNCTIONS.items():
        assert not required or callable(getattr(entry, attribute, None)), (
            f"{entry.name} names no {attribute}"
        )
    # the sampler (and its run_chunks) re-exported, as CONTRIBUTING requires
    exported = [(entry.sampler, (dl.mechanisms, dl))]
    if entry.run_chunks is not None:
        exported.append((entry.run_chunks, (dl.mechanisms,)))
    for function, packages in exported:
        for package in packages:
            name = function.__name__
            assert getattr(package, name, None) is function and name in package.__all__, (
                f"{package.__name__} does not re-export {name}"
            )
    # epsilon -> noise in dadp_lite.definitions, where the sampler's module takes it from
    if entry.private:
        assert entry.calibration is not None, f"{entry.name} names no calibration"
        name = entry.calibration.__name__
        assert getattr(definitions, name, None) is entry.calibration, (
            f"{name} is not in dadp_lite.definitions"
        )
        assert name in definitions.__all__, f"{name} is not in dadp_lite.definitions.__all__"
        module = sys.modules[entry.sampler.__module__]
        assert getattr(module, name, None) is entry.calibration, (
            f"{module.__name__} does not take {name} from dadp_lite.definitions"
        )
    else:
        assert entry.calibration is None, f"{entry.name} is traditional: no calibration"
    # registered (the live registry: a test may put a copy in its place), own random stream
    registry = dl.registry.REGISTRY
    assert registry.get(entry.name) is entry, f"{entry.name} is not in the registry"
    assert entry.seed_key not in [m.seed_key for m in registry.values() if m is not entry]


def test_every_record_of_the_registry_package_is_registered():
    """A record class defined in a family module but not decorated with ``register`` (or a
    family missing from ``FAMILIES``) would escape every check: refuse it. A class without
    a ``name`` is a shared base of records, not a record."""
    found = 0
    for info in pkgutil.iter_modules(dl.registry.__path__):
        if info.name == "_template":  # a commented skeleton, never imported
            continue
        module = importlib.import_module(f"dadp_lite.registry.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Mechanism) and "name" in vars(value):
                found += 1
                assert type(REGISTRY.get(value.name)) is value, f"{value.name} is not registered"
    assert found == len(REGISTRY)


def test_the_template_sets_every_attribute_of_a_record():
    """``dadp_lite/registry/_template.py`` is what a new record copies: it must set every
    attribute of :class:`Mechanism`, so an attribute added later is documented there too."""
    tree = ast.parse((Path(dl.registry.__file__).parent / "_template.py").read_text())
    classes = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(getattr(b, "id", "") == "Mechanism" for b in node.bases)
    ]
    assert len(classes) == 1
    named = {t.id for node in classes[0].body if isinstance(node, ast.Assign) for t in node.targets}
    assert named == set(Mechanism.__annotations__)


def test_a_record_is_checked_when_it_is_registered():
    """A missing required function, a declared value that is not allowed, or a function
    that cannot take the arguments the record passes is refused, naming what is wrong."""
    laplace = REGISTRY["laplace"]
    with pytest.raises(TypeError, match="does not set worst_pair"):
        keep = (
            "name",
            "label",
            "color",
            "kind",
            "source",
            "seed_key",
            "adjacency",
            "adjacencies",
            "sampler",
            "exact_delta",
            "reference_delta",
            "pair_delta",
        )
        type("NoPair", (Mechanism,), {k: getattr(laplace, k) for k in keep})()  # fmt: skip

    def bias(histogram, *, epsilon):  # forgets the fixed keyword "project"
        return np.zeros(histogram.n_cells)

    with pytest.raises(TypeError, match=r"exact_bias\(histogram, \*, epsilon\) cannot be called"):
        laplace.replace(exact_bias=bias)
    with pytest.raises(ValueError, match="adjacency must be one of"):
        laplace.replace(adjacency="qi_replace", adjacencies=("replace",))
    free = max(m.seed_key for m in REGISTRY.values()) + 1
    with pytest.raises(ValueError, match=f"seed_key 0 is laplace's; the next free one is {free}"):
        dl.registry.register(_renamed(laplace))


def _renamed(entry):
    """An unregistered subclass of ``entry``'s class under a new name, same seed key."""
    return type("Renamed", (type(entry),), {"name": "renamed"})


# ------------------------------------------------------------- binding settings
def test_bind_turns_settings_into_a_mechanisms_arguments():
    cs, sw, trad = REGISTRY["dp_cell_suppression"], REGISTRY["dp_swapping"], REGISTRY["swapping"]
    assert cs.bind({"k": 3, "qi": ("sex",)}, epsilon=1) == {"k": 3, "epsilon": 1.0}
    assert cs.bind({"epsilon": 2.0}) == {"k": dl.PAPER_K, "epsilon": 2.0}
    assert trad.bind({"rate": 0.5}, epsilon=1.0) == {"qi": dl.PAPER_QI, "rate": 0.5}
    with pytest.raises(ValueError, match="needs epsilon"):
        sw.bind({})
    with pytest.raises(ValueError, match="needs the parameter 'rate'"):
        trad.bind({})
    with pytest.raises(ValueError, match="traditional and takes no epsilon"):
        trad.bind({"rate": 0.5}, epsilon=1.0, strict=True)
    with pytest.raises(ValueError, match="takes no argument 'qi'; it takes epsilon, k"):
        cs.bind({"k": 3, "qi": ("sex",)}, epsilon=1, strict=True)
    with pytest.raises(ValueError, match="unknown setting 'K': no registered mechanism"):
        cs.bias(TINY, epsilon=1.0, K=50)
    with pytest.raises(ValueError, match="epsilon must be finite and > 0"):
        cs.bind({}, epsilon=-1.0)


def test_a_record_with_run_chunks_releases_every_chunk_in_one_call(ma):
    entry = REGISTRY["swapping"]
    assert entry.run_chunks is not None
    calls = []

    def spy(data, chunks, **params):
        calls.append(len(chunks))
        return entry.run_chunks(data, chunks, **params)

    kwargs = {"reps": 60, "seed": 1, "rate": 0.3}  # two chunks of 50 and 10
    spied = dl.release(entry.replace(run_chunks=spy), ma, **kwargs)
    plain = dl.release(entry.replace(run_chunks=None), ma, **kwargs)
    assert calls == [2]
    np.testing.assert_array_equal(spied, plain)


@pytest.mark.parametrize("field", ["kind", "source", "takes", "scales_with"])
def test_a_record_refuses_an_unknown_declared_value(field):
    """Declared fields take one of their listed values; a typo raises, naming the field."""
    with pytest.raises(ValueError, match=field):
        dl.registry.get("laplace").replace(**{field: "cells"})
