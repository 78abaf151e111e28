"""Chapter checks under many seeds: no seed may trip a check by chance.

Every chapter check is designed for a false-failure probability of at most 1e-6 at any seed
and any allowed parameter value. This slow test runs every chapter that declares a ``SEED``
parameter with its quick profile values and many other seeds, through the book's own
executor, and fails if any run fails. A new chapter with a ``SEED`` joins by itself. It is
not part of the quick suite: run it with

    pytest -m seed_sweep                        # the default numbers of seeds below (make sweep)
    DADP_SEED_SWEEP_SEEDS=50 pytest -m seed_sweep   # fewer seeds per chapter (not chapter 12)
    DADP_SEED_SWEEP_SEEDS=3 DADP_SEED_SWEEP_SHORT=1 pytest -m seed_sweep  # 3 for every chapter

The last is the short sweep of ``make check`` (CI): other seeds than the profiles', in
minutes; the full sweep (``make sweep``) takes hours.

Chapter 12 (the data-release tables, whose coverage check once failed on 3 of 120 seeds)
always runs at least 200 seeds.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dadp_book.discovery import convert_chapter, list_chapters
from dadp_book.parameters import chapter_parameters, load_profile, validate_parameters
from dadp_book.runners import local_runner

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.seed_sweep

#: The chapters swept: every chapter of the book that declares a SEED parameter.
SEEDED = [s for s in list_chapters(ROOT) if "SEED" in {p.name for p in chapter_parameters(ROOT, s)}]
DEFAULT_SEEDS = 40  # seeds per chapter
#: Chapters that need more seeds than the default (at least this many).
MIN_SEEDS = {"12-data-release-tables": 200}
#: Values set on top of the quick profile. Chapter 12 runs on the first dataset only, the
#: setting whose coverage check once failed (``DATASETS: [ma2019]``), so that 200 seeds take
#: about half an hour on two cores rather than an hour and a half.
OVERRIDES = {"12-data-release-tables": {"DATASETS": ["ma2019"]}}
FIRST_SEED = 1_000  # the seeds tried are FIRST_SEED, FIRST_SEED + 1, ...


def _seeds(slug: str) -> range:
    override = os.environ.get("DADP_SEED_SWEEP_SEEDS")
    count = DEFAULT_SEEDS if override is None else int(override)
    if os.environ.get("DADP_SEED_SWEEP_SHORT") != "1":
        count = max(count, MIN_SEEDS.get(slug, 0))
    return range(FIRST_SEED, FIRST_SEED + count)


def test_the_sweep_finds_the_seeded_chapters():
    assert SEEDED, "no chapter declares SEED"
    assert set(MIN_SEEDS) | set(OVERRIDES) <= set(SEEDED), "a setting names an unseeded chapter"


@pytest.mark.parametrize("slug", SEEDED)
def test_no_seed_trips_a_check(slug, tmp_path):
    quick = load_profile(ROOT, "quick")[slug]
    notebook = convert_chapter(ROOT, slug)
    settings = {**quick, **OVERRIDES.get(slug, {})}
    tasks = [
        (notebook, slug, validate_parameters(ROOT, slug, {**settings, "SEED": seed}))
        for seed in _seeds(slug)
    ]
    failures = []
    with local_runner(min(os.cpu_count() or 1, 2), tmp_path) as run:
        for index, outcome in run(tasks):
            error = outcome if isinstance(outcome, BaseException) else outcome.error
            if error:
                failures.append(f"SEED={tasks[index][2]['SEED']}: {error}")
    print(f"{slug}: {len(tasks)} seeds, {len(failures)} failed")
    assert failures == [], "\n".join(failures)
