"""Timing of the experiments chapters' computations at the full profile.

Runs what chapters 12 (data-release tables) and 13 (classification) compute with the
paper's settings: three datasets, epsilon in {0.5, 1, 2, 4}, 200 repetitions, 1000
bootstrap resamples. Prints one line per (chapter, dataset, mechanism) and the totals.
Target: both chapters together under 4 minutes on a 2-core machine.

    DADP_DATA_DIR=/path/to/data python benchmarks/bench_experiments.py [--reps 200]
"""

from __future__ import annotations

import argparse
import time

import dadp_lite as dl
from dadp_lite import experiments as ex

DATASETS = ("ma2019", "tx2019", "national2019")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2023)
    args = parser.parse_args()
    totals = {"data release": 0.0, "classification": 0.0}
    per_mechanism = {("data release", m): 0.0 for m in ex.TABLE_MECHANISMS}
    per_mechanism.update({("classification", m): 0.0 for m in ex.TABLE_MECHANISMS})
    start = time.perf_counter()
    for name in DATASETS:
        setup = dl.Dataset.load(name)
        for mechanism in ex.TABLE_MECHANISMS:
            for chapter, run in (
                ("data release", lambda m=mechanism, s=setup: ex.data_release_table(
                    s, epsilons=dl.PAPER_EPSILONS, reps=args.reps, seed=args.seed,
                    mechanisms=[m], n_boot=args.n_boot)),
                ("classification", lambda m=mechanism, s=setup: ex.classification_accuracy(
                    s, epsilons=dl.PAPER_EPSILONS, reps=args.reps, seed=args.seed, mechanisms=[m])),
            ):  # fmt: skip
                tick = time.perf_counter()
                run()
                elapsed = time.perf_counter() - tick
                totals[chapter] += elapsed
                per_mechanism[(chapter, mechanism)] += elapsed
                print(f"{chapter:15s} {name:13s} {mechanism:20s} {elapsed:7.2f} s", flush=True)
    print("\nper mechanism (all datasets):")
    for (chapter, mechanism), elapsed in per_mechanism.items():
        print(f"  {chapter:15s} {mechanism:20s} {elapsed:7.2f} s")
    for chapter, elapsed in totals.items():
        print(f"total {chapter:15s} {elapsed:7.2f} s")
    wall = time.perf_counter() - start
    print(f"total wall time {wall:.1f} s (target < 240 s): {'ok' if wall < 240 else 'SLOW'}")


if __name__ == "__main__":
    main()
