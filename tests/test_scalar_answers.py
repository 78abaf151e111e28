"""The overloads of the strict units say "a float in, a float out": each function they
declare answers a float (``np.float64`` counts) for a number and an array shaped like its
input for an array. mypy trusts the overloads; this checks that the code keeps them.

Every overloaded function of the modules below must have a row (the last test finds them
with ``typing.get_overloads``), so a new overload comes with its check.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import typing
from collections.abc import Callable

import numpy as np
import pytest

from dadp_lite import definitions as defs
from dadp_lite.audit import auditor, bounds
from dadp_lite.theory import accounting as acc
from dadp_lite.theory import baselines, k_anonymity, lemma, privacy, swapping
from dadp_lite.theory import cell_suppression as cs


def _modules() -> tuple[str, ...]:
    """``dadp_lite.definitions`` and every module of the theory, the audits and the
    mechanisms, found by walking the packages (a new module is checked without an edit)."""
    found = ["dadp_lite.definitions"]
    for package in ("dadp_lite.theory", "dadp_lite.audit", "dadp_lite.mechanisms"):
        path = importlib.import_module(package).__path__
        found += [info.name for info in pkgutil.walk_packages(path, f"{package}.")]
    return tuple(found)


MODULES = _modules()
EPS = np.array([0.5, 1.0])  # every array call passes this (or a 2-vector like it)
RESULT = auditor.AuditResult(
    tests=(auditor.CertifiedTest("threshold: t", "t > 0", "D", 50, 10, 100, ("x",)),),
    trials=200,
    confidence=0.95,
    targets=("x",),
)


def _rr(x: np.ndarray) -> list[float]:
    return [0.6, 0.4] if x[0] else [0.4, 0.6]


Call = Callable[[], object]


def _first(function: Callable[..., object], *args: object, **kwargs: object) -> tuple[Call, Call]:
    """The calls of ``function`` with epsilon 1.0 and with EPS as first argument."""
    return (
        functools.partial(function, 1.0, *args, **kwargs),
        functools.partial(function, EPS, *args, **kwargs),
    )


#: name -> (the call with a number, the call with EPS)
CALLS: dict[str, tuple[Call, Call]] = {
    "laplace_scale": _first(defs.laplace_scale),
    "discrete_gaussian_sigma": _first(defs.discrete_gaussian_sigma),
    "keep_probability": _first(defs.keep_probability, 3),
    "sampling_probability": _first(defs.sampling_probability),
    "laplace_histogram_delta": _first(acc.laplace_histogram_delta, scale=2.0,
                                      adjacency="add_remove"),
    "gaussian_histogram_delta": _first(acc.gaussian_histogram_delta, sigma=2.0,
                                       adjacency="replace"),
    "discrete_gaussian_histogram_delta": _first(acc.discrete_gaussian_histogram_delta,
                                                sigma=2.0, adjacency="add_remove"),
    "randomized_response_delta": _first(acc.randomized_response_delta, n_outcomes=3,
                                        keep_probability=0.6),
    "laplace_delta_closed_form": _first(acc.laplace_delta_closed_form, scale=2.0,
                                        adjacency="replace"),
    "gaussian_delta_closed_form": _first(acc.gaussian_delta_closed_form, sigma=2.0,
                                         adjacency="replace"),
    "randomized_response_delta_closed_form": _first(acc.randomized_response_delta_closed_form,
                                                    n_outcomes=3, keep_probability=0.6),
    "discrete_gaussian_delta_enumerated": _first(acc.discrete_gaussian_delta_enumerated,
                                                 sigma=2.0, adjacency="add_remove"),
    "zcdp_delta": _first(baselines.zcdp_delta, rho=0.1),
    "discrete_gaussian_delta_as_printed": (
        lambda: baselines.discrete_gaussian_delta_as_printed(1.0, noise_epsilon=0.5),
        lambda: baselines.discrete_gaussian_delta_as_printed(EPS),
    ),
    "discrete_gaussian_delta_table_reading": _first(
        baselines.discrete_gaussian_delta_table_reading),
    "discrete_gaussian_table_sigma": _first(baselines.discrete_gaussian_table_sigma),
    "dp_cell_suppression_delta_as_printed": _first(cs.dp_cell_suppression_delta_as_printed,
                                                   2.0, 4),
    "dp_cell_suppression_log10_gap_as_printed": _first(
        cs.dp_cell_suppression_log10_gap_as_printed, 2.0, 4),
    "dp_cell_suppression_exact_delta": _first(cs.dp_cell_suppression_exact_delta, k=2.0,
                                              bound=3),
    "dp_cell_suppression_delta_closed_form": _first(cs.dp_cell_suppression_delta_closed_form,
                                                    k=2.0, bound=4),
    "dp_cell_suppression_pair_delta": (
        lambda: cs.dp_cell_suppression_pair_delta([2, 1], [1, 2], k=2.0, epsilon=1.0),
        lambda: cs.dp_cell_suppression_pair_delta([2, 1], [1, 2], k=2.0, epsilon=1.0, at=EPS),
    ),
    "brute_force_exact_delta": _first(cs.brute_force_exact_delta, k=2.0, bound=2),
    "subsampling_pair_delta": (
        lambda: k_anonymity.subsampling_pair_delta((2, 0), (1, 1), 0.5, 1.0),
        lambda: k_anonymity.subsampling_pair_delta((2, 0), (1, 1), 0.5, EPS),
    ),
    "subsampling_delta": (
        lambda: k_anonymity.subsampling_delta(0.5, 1.0, 2, "replace"),
        lambda: k_anonymity.subsampling_delta(0.5, EPS, 2, "replace"),
    ),
    "subsampling_delta_edge_pairs": (
        lambda: k_anonymity.subsampling_delta_edge_pairs(0.5, 1.0, 3),
        lambda: k_anonymity.subsampling_delta_edge_pairs(0.5, EPS, 3),
    ),
    "laplace_lemma_delta": _first(lemma.laplace_lemma_delta, scale=2.0, adjacency="replace"),
    "gaussian_lemma_delta": _first(lemma.gaussian_lemma_delta, sigma=2.0, adjacency="replace"),
    "randomized_response_lemma_delta": _first(lemma.randomized_response_lemma_delta,
                                              n_outcomes=3, keep_probability=0.6),
    "hockey_stick": (
        lambda: privacy.hockey_stick([0.5, 0.5], [0.25, 0.75], 0.1),
        lambda: privacy.hockey_stick([0.5, 0.5], [0.25, 0.75], EPS),
    ),
    "exact_delta": (
        lambda: privacy.exact_delta([0.5, 0.5], [0.25, 0.75], 0.1),
        lambda: privacy.exact_delta([0.5, 0.5], [0.25, 0.75], EPS),
    ),
    "worst_case_delta": (
        lambda: privacy.worst_case_delta(_rr, 1, 1, "add_remove", 0.1),
        lambda: privacy.worst_case_delta(_rr, 1, 1, "add_remove", EPS),
    ),
    "dp_swapping_colocation_probability": _first(swapping.dp_swapping_colocation_probability, 3),
    "dp_swapping_delta_as_printed": _first(swapping.dp_swapping_delta_as_printed, 3),
    "dp_swapping_delta_proof_line3": _first(swapping.dp_swapping_delta_proof_line3, 3),
    "dp_swapping_cell_delta": _first(swapping.dp_swapping_cell_delta, 3),
    "dp_swapping_record_delta": _first(swapping.dp_swapping_record_delta, 3),
    "dp_swapping_delta": _first(swapping.dp_swapping_delta, 3, unit="cell",
                                adjacency="qi_replace"),
    "dp_swapping_pair_delta": (
        lambda: swapping.dp_swapping_pair_delta([[2, 0]], [[1, 1]], 1.0, "cell"),
        lambda: swapping.dp_swapping_pair_delta([[2, 0]], [[1, 1]], 1.0, "cell", at=EPS),
    ),
    "dp_swapping_exact_delta": _first(swapping.dp_swapping_exact_delta, n_q=2, n_groups=1,
                                      bound=2, unit="cell", adjacency="qi_replace"),
    "clopper_pearson": (
        lambda: bounds.clopper_pearson(3, 10, 0.05),
        lambda: bounds.clopper_pearson(np.array([3, 4]), 10, 0.05),
    ),
    "certified_delta": (
        lambda: bounds.certified_delta(0.5, 0.1, 1.0),
        lambda: bounds.certified_delta(0.5, 0.1, EPS),
    ),
    "certified_epsilon": (
        lambda: bounds.certified_epsilon(0.5, 0.1, 0.0),
        lambda: bounds.certified_epsilon(0.5, 0.1, np.array([0.0, 0.1])),
    ),
    "AuditResult.delta_lower": (lambda: RESULT.delta_lower(1.0), lambda: RESULT.delta_lower(EPS)),
    "AuditResult.epsilon_lower": (
        lambda: RESULT.epsilon_lower(0.0),
        lambda: RESULT.epsilon_lower(np.array([0.0, 0.1])),
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_number_gives_a_float_and_an_array_an_array_of_its_shape(name):
    scalar, array = (call() for call in CALLS[name])
    answers = scalar if isinstance(scalar, tuple) else (scalar,)  # clopper_pearson: a pair
    assert all(isinstance(a, float) for a in answers), (name, scalar)
    arrays = array if isinstance(array, tuple) else (array,)
    assert all(isinstance(a, np.ndarray) and a.shape == (2,) for a in arrays), (name, array)


def test_dp_swapping_exact_delta_with_its_pair_gives_a_float_and_the_pair():
    delta, pair = swapping.dp_swapping_exact_delta(
        1.0, n_q=2, n_groups=1, bound=2, unit="cell", adjacency="qi_replace", return_pair=True
    )
    assert isinstance(delta, float) and delta > 0
    assert pair is not None and all(isinstance(m, np.ndarray) for m in pair)


def _overloaded(module: str) -> set[str]:
    found = set()
    for name, value in vars(importlib.import_module(module)).items():
        if inspect.isclass(value) and value.__module__ == module:
            found |= {f"{name}.{n}" for n, v in vars(value).items()
                      if callable(v) and typing.get_overloads(v)}  # fmt: skip
        elif inspect.isfunction(value) and value.__module__ == module:
            found |= {name} if typing.get_overloads(value) else set()
    return found


def test_every_overload_of_the_strict_units_is_checked():
    found = set().union(*(_overloaded(m) for m in MODULES))
    missing, stale = sorted(found - set(CALLS)), sorted(set(CALLS) - found)
    assert not missing, f"add a row to CALLS in tests/test_scalar_answers.py for {missing}"
    assert not stale, f"CALLS in tests/test_scalar_answers.py names no overload: {stale}"
