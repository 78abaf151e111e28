"""Repetitions per second of the Laplace and discrete Gaussian mechanisms.

On the MA histogram (540 cells) at 200 repetitions per call, against the same number of
raw numpy draws in the same run (``rng.laplace`` and ``rng.normal``). Targets: Laplace
within 2x of its floor, discrete Gaussian within 10x of numpy normal draws.

Run: ``DADP_DATA_DIR=... python benchmarks/bench_mechanisms.py [--repeat 20]``.
"""

from __future__ import annotations

import argparse
import timeit
from functools import partial

import numpy as np

import dadp_lite as dl

REPS = 200


def best_seconds(call, repeat: int) -> float:
    """Best of ``repeat`` timings of 5 calls each, per call."""
    call()  # warm-up
    return min(timeit.repeat(call, number=5, repeat=repeat)) / 5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--dataset", default="ma2019")
    args = parser.parse_args()
    counts = dl.histogram_of(dl.load_records(args.dataset)).counts
    shape = (REPS, counts.size)
    rng = np.random.default_rng(0)
    rows = []
    for epsilon in (0.5, 1.0, 2.0, 4.0):
        scale = 2 / epsilon
        mech = {"epsilon": epsilon, "rng": rng, "reps": REPS, "project": True}
        t_lap = best_seconds(partial(dl.laplace, counts, **mech), args.repeat)
        t_lap_raw = best_seconds(partial(rng.laplace, 0.0, scale, size=shape), args.repeat)
        t_dg = best_seconds(partial(dl.discrete_gaussian, counts, **mech), args.repeat)
        t_normal = best_seconds(partial(rng.normal, 0.0, scale, size=shape), args.repeat)
        rows.append((epsilon, t_lap, t_lap_raw, t_dg, t_normal))
    print(
        f"{args.dataset}: {counts.size} cells, {REPS} repetitions per call "
        f"({REPS * counts.size} draws); best of {args.repeat} x 5 calls"
    )
    print(
        f"{'eps':>4} {'laplace reps/s':>15} {'numpy laplace':>14} {'ratio':>6} "
        f"{'DG reps/s':>10} {'numpy normal':>13} {'ratio':>6}"
    )
    for epsilon, t_lap, t_lap_raw, t_dg, t_normal in rows:
        print(
            f"{epsilon:>4} {REPS / t_lap:>15,.0f} {REPS / t_lap_raw:>14,.0f} "
            f"{t_lap / t_lap_raw:>6.2f} {REPS / t_dg:>10,.0f} {REPS / t_normal:>13,.0f} "
            f"{t_dg / t_normal:>6.1f}"
        )
    worst_lap = max(r[1] / r[2] for r in rows)
    worst_dg = max(r[3] / r[4] for r in rows)
    print(
        f"worst ratios: laplace / numpy laplace = {worst_lap:.2f} (target <= 2); "
        f"discrete Gaussian / numpy normal = {worst_dg:.1f} (target <= 10)"
    )


if __name__ == "__main__":
    main()
