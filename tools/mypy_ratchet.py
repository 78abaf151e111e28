"""mypy on dadp_lite and dadp_book, with error counts that may only go down (``make lint``).

Two runs: mypy as configured in pyproject.toml (the strict units with strict checks, the
rest with the default ones), and ``--strict`` on the strict units (:data:`STRICT`: the
registry, the theory, the mechanisms and the audits). Each run's errors are counted per
unit, a package's module or subpackage (``dadp_lite/theory/...`` -> ``dadp_lite/theory``,
``dadp_book/pdf.py`` -> ``dadp_book/pdf``), and compared with the counts
recorded in ``tools/mypy_counts.json``: a count above its record (a unit not recorded has
0) fails with the new errors listed; a count below it is reported, so the record is
lowered in the same commit (``python tools/mypy_ratchet.py --record``). A strict unit
allows no error in either run, whatever the record says, and ``--record`` refuses to
write one down for it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tools" / "mypy_counts.json"
#: The packages checked with --strict beside the configured run: 0 errors allowed in both.
STRICT = tuple(f"dadp_lite/{unit}" for unit in ("registry", "theory", "mechanisms", "audit"))
_ERROR = re.compile(r"^(?P<unit>dadp_(?:lite|book)/[A-Za-z_]+)[/.].*: error: ")


def count(report: str) -> Counter[str]:
    """Errors per unit in a mypy report."""
    return Counter(m["unit"] for line in report.splitlines() if (m := _ERROR.match(line)))


def compare(counts: dict[str, Counter[str]], record: dict[str, dict[str, int]]) -> list[str]:
    """Problems (a count above its record, any error in a strict unit), empty when every
    count is at most its record."""
    problems = []
    for run, found in counts.items():
        for unit, n in sorted(found.items()):
            if unit in STRICT and n:
                problems.append(f"{run}: {unit} has {n} mypy errors, allowed 0 (strict)")
                continue
            allowed = record.get(run, {}).get(unit, 0)
            if n > allowed:
                problems.append(f"{run}: {unit} has {n} mypy errors, recorded {allowed}")
    return problems


def strict_errors(counts: dict[str, Counter[str]]) -> list[str]:
    """Errors found in a strict unit: ``--record`` writes no allowance for them."""
    return [
        f"{run}: {unit} has {n} mypy errors; a strict unit must have none"
        for run, found in counts.items()
        for unit, n in sorted(found.items())
        if unit in STRICT and n
    ]


def lowered(counts: dict[str, Counter[str]], record: dict[str, dict[str, int]]) -> list[str]:
    """Counts that went down (the record should follow)."""
    return [
        f"{run}: {unit} went down from {allowed} to {counts[run].get(unit, 0)}"
        for run, units in record.items()
        for unit, allowed in sorted(units.items())
        if counts.get(run, Counter()).get(unit, 0) < allowed
    ]


def run() -> tuple[dict[str, Counter[str]], dict[str, str]]:
    configured = api.run(["--config-file", str(ROOT / "pyproject.toml")])[0]
    strict = api.run([
        "--config-file", str(ROOT / "pyproject.toml"), "--strict", "--follow-imports=silent",
        *STRICT,
    ])[0]  # fmt: skip
    reports = {"mypy": configured, "strict": strict}
    return {name: count(text) for name, text in reports.items()}, reports


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write the counts found")
    args = parser.parse_args(argv)
    counts, reports = run()
    if args.record:
        refused = strict_errors(counts)
        if refused:
            print("\n".join(["not recorded:", *refused]), file=sys.stderr)
            return 1
        data = {run: dict(sorted(found.items())) for run, found in counts.items()}
        RECORD.write_text(json.dumps(data, indent=2) + "\n")
        print(f"recorded {RECORD.relative_to(ROOT)}")
        return 0
    record = json.loads(RECORD.read_text())
    problems = compare(counts, record)
    for line in lowered(counts, record):
        print(f"mypy: {line}: lower tools/mypy_counts.json (--record)")
    if problems:
        for name, text in reports.items():
            units = {p.split(" ")[1] for p in problems if p.startswith(name)}
            shown = [
                line
                for line in text.splitlines()
                if (m := _ERROR.match(line)) and m["unit"] in units
            ]
            print(f"--- {name}\n" + "\n".join(shown))  # fmt: skip
        heading = "mypy errors above the record (a strict unit allows none):"
        print("\n".join([heading, *problems]), file=sys.stderr)
        return 1
    total = {name: sum(found.values()) for name, found in counts.items()}
    print(f"mypy: {total['mypy']} errors ({total['strict']} under --strict in "
          f"{', '.join(STRICT)}), none above the record")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
