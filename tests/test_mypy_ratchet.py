"""The mypy ratchet of ``make lint`` (``tools/mypy_ratchet.py``): error counts per unit of
dadp_lite and dadp_book may only go down. Its logic on made-up reports; the real run is
``make lint``."""

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
dadp_book/pdf.py:7: error: Missing return statement  [return]
dadp_book/course/grade.py:9: error: Returning Any  [no-any-return]
Found 5 errors in 5 files (checked 9 source files)
"""


def test_errors_are_counted_per_unit_notes_left_out():
    assert ratchet.count(REPORT) == Counter({
        "dadp_lite/theory": 2, "dadp_lite/registry": 1, "dadp_book/pdf": 1, "dadp_book/course": 1
    })  # fmt: skip


REPORT_ELSEWHERE = """\
dadp_lite/plotting.py:12: error: Missing type parameters  [type-arg]
dadp_lite/errata/claims.py:3: error: Incompatible types  [assignment]
dadp_lite/errata/store.py:1: error: Returning Any  [no-any-return]
"""


def test_a_count_above_its_record_fails_and_one_below_is_reported():
    counts = {"mypy": ratchet.count(REPORT_ELSEWHERE)}
    # plotting is not recorded: 0 errors allowed there
    assert ratchet.compare(counts, {"mypy": {"dadp_lite/errata": 2}}) == [
        "mypy: dadp_lite/plotting has 1 mypy errors, recorded 0"
    ]
    assert ratchet.compare(counts, {"mypy": {"dadp_lite/errata": 2, "dadp_lite/plotting": 1}}) == []
    assert ratchet.lowered(counts, {"mypy": {"dadp_lite/errata": 5, "dadp_lite/plotting": 1}}) == [
        "mypy: dadp_lite/errata went down from 5 to 2"
    ]


def test_a_strict_unit_fails_on_any_error_whatever_the_record_allows():
    counts = {"mypy": ratchet.count(REPORT), "strict": Counter({"dadp_lite/audit": 1})}
    record = {
        "mypy": {"dadp_lite/theory": 2, "dadp_lite/registry": 1, "dadp_book/pdf": 1,
                 "dadp_book/course": 1},
        "strict": {"dadp_lite/audit": 3},
    }  # fmt: skip
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
    assert modules == {f"{u.replace('/', '.')}{s}" for u in ratchet.STRICT for s in ("", ".*")}
