"""The mypy ratchet of ``make lint`` (``tools/mypy_ratchet.py``): error counts per unit of
dadp_lite may only go down. Its logic on made-up reports; the real run is ``make lint``."""

from __future__ import annotations

import json
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import mypy_ratchet as ratchet  # noqa: E402

REPORT = """\
dadp_lite/theory/swapping.py:12: error: Missing type parameters  [type-arg]
dadp_lite/theory/swapping.py:13: note: a note is no error
dadp_lite/registry/record.py:3: error: Incompatible types  [assignment]
dadp_lite/theory/lemma.py:1: error: Returning Any  [no-any-return]
Found 3 errors in 3 files (checked 9 source files)
"""


def test_errors_are_counted_per_unit_notes_left_out():
    assert ratchet.count(REPORT) == Counter({"theory": 2, "registry": 1})


REPORT_ELSEWHERE = """\
dadp_lite/plotting.py:12: error: Missing type parameters  [type-arg]
dadp_lite/errata/claims.py:3: error: Incompatible types  [assignment]
dadp_lite/errata/store.py:1: error: Returning Any  [no-any-return]
"""


def test_a_count_above_its_record_fails_and_one_below_is_reported():
    counts = {"mypy": ratchet.count(REPORT_ELSEWHERE)}
    # plotting is not recorded: 0 errors allowed there
    assert ratchet.compare(counts, {"mypy": {"errata": 2}}) == [
        "mypy: dadp_lite/plotting has 1 mypy errors, recorded 0"
    ]
    assert ratchet.compare(counts, {"mypy": {"errata": 2, "plotting": 1}}) == []
    assert ratchet.lowered(counts, {"mypy": {"errata": 5, "plotting": 1}}) == [
        "mypy: dadp_lite/errata went down from 5 to 2"
    ]


def test_a_strict_unit_fails_on_any_error_whatever_the_record_allows():
    counts = {"mypy": ratchet.count(REPORT), "strict": Counter({"audit": 1})}
    record = {"mypy": {"theory": 2, "registry": 1}, "strict": {"audit": 3}}
    assert ratchet.compare(counts, record) == [
        "mypy: dadp_lite/registry has 1 mypy errors, allowed 0 (strict)",
        "mypy: dadp_lite/theory has 2 mypy errors, allowed 0 (strict)",
        "strict: dadp_lite/audit has 1 mypy errors, allowed 0 (strict)",
    ]
    # and --record refuses to write them down
    assert len(ratchet.strict_errors(counts)) == 3
    assert ratchet.strict_errors({"mypy": ratchet.count(REPORT_ELSEWHERE)}) == []


def test_the_record_holds_no_strict_unit():
    record = json.loads((ROOT / "tools" / "mypy_counts.json").read_text())
    assert set(record) == {"mypy", "strict"}
    assert not set(ratchet.STRICT) & (set(record["mypy"]) | set(record["strict"]))


def test_pyproject_checks_every_strict_unit_strictly():
    """The configured run (and an editor's mypy) applies the strict checks to the same
    units as the ratchet's --strict run."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    strict = [o for o in config["overrides"] if o.get("disallow_untyped_defs")]
    assert len(strict) == 1
    modules = set(strict[0]["module"])
    assert modules == {f"dadp_lite.{u}{s}" for u in ratchet.STRICT for s in ("", ".*")}
