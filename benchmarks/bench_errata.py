"""Timing of the errata page's computations (``dadp_lite.errata``).

Evaluates every finding of the catalog once, in catalog order, as the errata page does, and
prints one line per finding (seconds, status) and the total. Shared simulations are
computed by the first finding that needs them. Target: the whole page (kernel start and
imports included) under 60 s on a quiet 2-core machine.

    DADP_DATA_DIR=/path/to/data python benchmarks/bench_errata.py
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    start = time.perf_counter()
    from dadp_lite import errata

    imported = time.perf_counter() - start
    print(f"{'import dadp_lite.errata':32s} {imported:6.2f} s")
    for finding in errata.FINDINGS:
        began = time.perf_counter()
        status = errata.result(finding.id).status
        print(f"{finding.id:32s} {time.perf_counter() - began:6.2f} s  {status.label}")
    print(f"{'total':32s} {time.perf_counter() - start:6.2f} s")


if __name__ == "__main__":
    main()
