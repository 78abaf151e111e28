"""Fast Mondrian (dadp_lite) against anonypy 0.2.1 on national2019.

Prints, for each k, the wall time of one anonypy run, of one fast run, their ratio and
whether the partitions are identical (same classes, counts and order). Also times a batch
of 200 thinned repetitions (what DP k-anonymity runs per setting).

Usage: DADP_DATA_DIR=... python benchmarks/bench_mondrian.py [--dataset national2019]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import dadp_lite as dl
from dadp_lite.mechanisms.mondrian import (
    CellTable,
    mondrian,
    mondrian_anonypy,
    mondrian_batch,
    thin_cells,
)

QI = ("race", "sex", "tenure", "age_bracket", "income_over_50k")


def best_of(func, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="national2019")
    parser.add_argument("--k", type=int, nargs="+", default=[2, 5, 10, 20, 50])
    parser.add_argument("--numeric-age", action="store_true", help="QIs age (numeric), race, sex")
    args = parser.parse_args()
    records = dl.load_records(args.dataset)
    qi, numeric = (("age", "race", "sex"), ("age",)) if args.numeric_age else (QI, ())
    print(f"{args.dataset}: {len(records)} records, QIs {qi}, numeric {numeric}")
    print(f"{'k':>4} {'anonypy s':>10} {'fast s':>9} {'ratio':>7} identical classes")
    ratios = []
    for k in args.k:
        slow, reference = best_of(lambda k=k: mondrian_anonypy(records, qi, k, numeric=numeric), 1)
        fast, result = best_of(lambda k=k: mondrian(records, qi, k, numeric=numeric), 5)
        ratios.append(slow / fast)
        print(
            f"{k:>4} {slow:>10.3f} {fast:>9.4f} {slow / fast:>7.0f} "
            f"{str(result == reference):>9} {len(result):>7}"
        )
    print(f"smallest ratio {min(ratios):.0f}x (target >= 50x)")

    table = CellTable.from_records(records, qi, numeric=numeric)
    rng = np.random.default_rng(0)
    counts, first = thin_cells(table, 1 - np.exp(-1.0), rng=rng, reps=200)
    for k in args.k:
        batch_time, batch = best_of(lambda k=k: mondrian_batch(table, counts, first, k), 3)
        print(
            f"batch of 200 thinned repetitions (beta = 1 - e^-1), k={k}: {batch_time:.3f} s, "
            f"{batch.n_classes.mean():.0f} classes per repetition"
        )


if __name__ == "__main__":
    main()
