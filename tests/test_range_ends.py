"""Every chapter at the ends of its declared epsilon ranges (issues 26 and 33).

A chapter's declared range is a promise: every value inside it works (the chapter runs and
its checks hold), and every value outside it is refused before a kernel starts. Values
inside fail, if at all, at the ends (the noise is largest at the smallest epsilon; at the
largest, quantities such as 1 - e^eps / (e^eps + n - 1) lose their digits to float64
rounding), so each chapter runs with its quick profile and its epsilon parameters set to
the ends of their declared ranges, through the book's own executor, twice:

- every list at both ends (``[low, high]``) and every number at its low end;
- every list as the number at its high end (a scalar for a list: a one-element list) and
  every number at its high end.

A chapter that cannot run at an end declares the range it can run (its parameters cell),
and says why in the declaration's meaning. These runs are part of ``make check`` (markers
``book`` and ``slow``, tests/conftest.py: about two runs per chapter, two at a time); the
checks that need no kernel are in ``make test``.
"""

from __future__ import annotations

import fnmatch
import math
import os
from pathlib import Path

import pytest

from dadp_book.discovery import convert_chapter, list_chapters
from dadp_book.errors import BuildError
from dadp_book.parameters import (
    chapter_parameters,
    check_memory_estimate,
    effective_parameters,
    load_profile,
    profile_values,
    validate_parameters,
)
from dadp_book.provenance import datasets_of
from dadp_book.runners import local_runner

ROOT = Path(__file__).resolve().parents[1]
#: Parameters whose range ends are run: the privacy parameters of every chapter.
PATTERNS = ("EPSILON", "EPSILONS", "*_EPSILONS")
CHAPTERS = list_chapters(ROOT)


def _epsilon_parameters(slug: str) -> list:
    return [
        p
        for p in chapter_parameters(ROOT, slug)
        if p.spec is not None and any(fnmatch.fnmatchcase(p.name, pat) for pat in PATTERNS)
    ]


def _ends(spec) -> tuple[float, float]:
    """The closed, finite ends of a declared interval (an open end is no value)."""
    low = spec.low if not spec.low_open and math.isfinite(spec.low) else None
    high = spec.high if not spec.high_open and math.isfinite(spec.high) else None
    return low, high


def _runs(slug: str) -> list[dict]:
    """The two settings of the module's text (none for a chapter without epsilon)."""
    both, high_only = {}, {}
    for parameter in _epsilon_parameters(slug):
        low, high = _ends(parameter.spec)
        ends = [end for end in (low, high) if end is not None]
        if not ends:
            continue
        if parameter.spec.is_list:
            both[parameter.name] = ends
            high_only[parameter.name] = ends[-1]  # a number for a list: one element
        else:
            both[parameter.name] = ends[0]
            high_only[parameter.name] = ends[-1]
    return [both, high_only] if both else []


CASES = [(slug, i, values) for slug in CHAPTERS for i, values in enumerate(_runs(slug))]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict:
    """Every case executed once, two at a time: ``{(slug, index): error or None}``."""
    tasks = []
    for slug, _index, values in CASES:
        quick = load_profile(ROOT, "quick").get(slug, {})
        checked = validate_parameters(ROOT, slug, {**quick, **values})
        tasks.append((convert_chapter(ROOT, slug), slug, checked))
    found = {}
    jobs = min(os.cpu_count() or 1, 2)
    with local_runner(jobs, tmp_path_factory.mktemp("ends")) as run:
        for k, outcome in run(tasks):
            error = outcome if isinstance(outcome, BaseException) else outcome.error
            found[CASES[k][:2]] = error
    return found


@pytest.mark.book
@pytest.mark.parametrize(("slug", "index", "values"), CASES,
                         ids=[f"{s}-{v}" for s, _i, v in CASES])  # fmt: skip
def test_a_chapter_runs_at_the_ends_of_its_epsilon_range(outcomes, slug, index, values):
    error = outcomes[slug, index]
    assert error is None, f"{slug} at {values}: {error}"


@pytest.mark.parametrize("slug", CHAPTERS)
def test_every_chapter_declares_a_finite_closed_epsilon_range(slug):
    for parameter in _epsilon_parameters(slug):
        spec = parameter.spec
        assert math.isfinite(spec.high) and not spec.high_open, f"{parameter.name}: no top end"


@pytest.mark.parametrize("slug", CHAPTERS)
def test_a_value_beyond_an_end_is_refused_before_a_kernel_starts(slug):
    """Just outside each end (by one part in a million): a one-line refusal naming the
    parameter and the declared range, from the checks that run before any kernel."""
    for parameter in _epsilon_parameters(slug):
        spec = parameter.spec
        for end, step in ((spec.low, -1), (spec.high, 1)):
            if not math.isfinite(end) or (end == 0 and step < 0 and spec.low_open):
                continue
            beyond = end + step * max(abs(end) * 1e-6, 1e-9)
            value = [beyond] if spec.is_list else beyond
            with pytest.raises(BuildError, match=f"parameter {parameter.name} .* is outside"):
                validate_parameters(ROOT, slug, {parameter.name: value})


@pytest.mark.parametrize("profile", ["quick", "full"])
@pytest.mark.parametrize("slug", CHAPTERS)
def test_the_defaults_of_both_profiles_fit_a_16_gib_machine(slug, profile, monkeypatch):
    """Issue 33: chapter 11's own defaults were refused below 32 GiB (its cap on the
    repetitions of 2-4-cell releases was counted as releases of 540 cells)."""
    monkeypatch.setenv("DADP_MEMORY_LIMIT", "16GiB")
    params = chapter_parameters(ROOT, slug)
    values = validate_parameters(ROOT, slug, profile_values(ROOT, slug, profile))
    effective = effective_parameters(ROOT, slug, values)
    datasets = datasets_of({p.name: p.spec for p in params}, effective, locate=False)
    check_memory_estimate(slug, effective, params, datasets)


def test_a_declared_size_per_repetition_bounds_what_the_library_allocates():
    """Chapter 11 declares ``MAX_SIM_REPS`` at 512 bytes a repetition: the confirmation of
    a 4-cell counterexample run at that cap (a target z it cannot reach) allocates less."""
    import tracemalloc

    import numpy as np

    import dadp_lite as dl

    spec = {p.name: p.spec for p in chapter_parameters(ROOT, "11-fairness-comparison")}
    per_rep = spec["MAX_SIM_REPS"].bytes_each
    reps = 200_000
    tracemalloc.start()
    try:
        dl.experiments.confirm_counterexample(
            np.array([3, 0, 0, 1]), comparison="laplace_vs_swapping", epsilon=1.0, seed=0,
            n_q=2, pilot_reps=1_000, max_reps=reps, target_z=1e9,
        )  # fmt: skip
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= per_rep * reps, f"peak {peak} bytes > {per_rep} x {reps}"
