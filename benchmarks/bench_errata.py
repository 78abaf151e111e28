"""Timing of every finding's computation (``dadp_lite.errata``), at a profile's values.

Evaluates every finding once, in catalog order, at the values its chapter runs with in the
profile (as a chapter, or a page without the build's store, computes it), and prints one
line per finding (seconds, status word) and the total. Shared runs are computed by the
first finding that needs them. In a build, the errata and landing pages read these results
from the store the chapters wrote; this is the cost they pay without it.

    DADP_DATA_DIR=/path/to/data python benchmarks/bench_errata.py --profile quick
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="full", choices=["quick", "full"])
    args = parser.parse_args()
    start = time.perf_counter()
    from dadp_book.build import chapter_values
    from dadp_lite import errata

    imported = time.perf_counter() - start
    print(f"{'import dadp_lite.errata':32s} {imported:6.2f} s")
    values = chapter_values(Path(__file__).resolve().parents[1], args.profile)
    for finding in errata.FINDINGS:
        began = time.perf_counter()
        result = errata.evaluate(finding, values[finding.chapter])
        print(f"{finding.id:32s} {time.perf_counter() - began:6.2f} s  {result.word}")
    print(f"{'total':32s} {time.perf_counter() - start:6.2f} s")


if __name__ == "__main__":
    main()
