"""The mypy ratchet of ``make lint`` (``tools/mypy_ratchet.py``): error counts per unit of
dadp_lite may only go down. Its logic on made-up reports; the real run is ``make lint``."""

from __future__ import annotations

import json
import sys
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


def test_a_count_above_its_record_fails_and_one_below_is_reported():
    record = {"mypy": {"theory": 2}}
    counts = {"mypy": ratchet.count(REPORT)}
    # the registry is not recorded: 0 errors allowed there
    assert ratchet.compare(counts, record) == [
        "mypy: dadp_lite/registry has 1 mypy errors, recorded 0"
    ]
    assert ratchet.compare(counts, {"mypy": {"theory": 2, "registry": 1}}) == []
    assert ratchet.lowered(counts, {"mypy": {"theory": 5, "registry": 1}}) == [
        "mypy: dadp_lite/theory went down from 5 to 2"
    ]


def test_the_record_keeps_the_strict_packages_and_the_registry_at_zero():
    record = json.loads((ROOT / "tools" / "mypy_counts.json").read_text())
    assert set(record) == {"mypy", "strict"}
    assert "registry" not in record["mypy"] and "registry" not in record["strict"]
    assert set(record["strict"]) <= set(ratchet.STRICT)
