"""Timings of traditional and DP swapping on national2019 (prints, never asserts).

Run: ``DADP_DATA_DIR=... python benchmarks/bench_swapping.py [--reps 200] [--reference-reps 2]``

Targets: 200 repetitions of traditional swapping at rate 0.5 under 20 s; 200
repetitions of DP swapping under 1 s. The naive per-record algorithm
(:func:`dadp_lite.swapping_reference`) runs on a few repetitions in the same script and the
ratio is per repetition.
"""

from __future__ import annotations

import argparse
import time

import dadp_lite as dl


def _timed(function, *args, **kwargs) -> tuple[float, object]:
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="national2019")
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--reference-reps", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2023)
    args = parser.parse_args()

    hist = dl.histogram_of(dl.load_records(args.dataset))
    print(f"{args.dataset}: {hist.total} records, {hist.n_cells} cells, QI = race (n_Q = 9)")
    rng = dl.make_rng(args.seed)
    for rate in (0.1, 0.5):
        fast, _ = _timed(dl.swapping, hist, rate=rate, rng=rng, reps=args.reps)
        slow, _ = _timed(dl.swapping_reference, hist, rate=rate, rng=rng, reps=args.reference_reps)
        per_fast, per_slow = fast / args.reps, slow / args.reference_reps
        print(
            f"swapping rate={rate}: {args.reps} reps in {fast:.3f} s "
            f"({per_fast * 1e3:.2f} ms/rep); "
            f"reference {args.reference_reps} reps in {slow:.2f} s ({per_slow:.2f} s/rep); "
            f"speed-up x{per_slow / per_fast:.0f}"
        )
    for unit in ("cell", "record"):
        for epsilon in (0.5, 4.0):
            seconds, _ = _timed(
                dl.dp_swapping, hist, epsilon=epsilon, rng=rng, reps=args.reps, unit=unit
            )
            print(f"dp_swapping unit={unit} eps={epsilon}: {args.reps} reps in {seconds:.3f} s")


if __name__ == "__main__":
    main()
