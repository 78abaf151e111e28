"""The auditor's throughput against the mechanism's raw sampling rate, and Laplace tightness.

1. For every registered mechanism, on its worst-case pair in the privacy-audit chapter's
   universe (sex x race, counts up to 8) at epsilon = 1: trials per second of drawing the
   outputs on both datasets alone (``sample_pair``, the raw rate) and of the whole audit
   (drawing plus choosing and certifying events), and their ratio. Laplace is also timed
   on the chapter's two-cell tightness pair. Target: the audit runs at least 50% of the
   raw rate, i.e. the auditor costs at most as much as the sampling.
2. Laplace noise calibrated at epsilon = 1 (exactly (1, 0)-DP), audited with 10^6 trials
   per side: the certified epsilon at delta = 0 as a fraction of 1, over several seeds.
   Target: at least 80%.

Timings are CPU seconds of this process (``time.process_time``), best of ``--repeat`` runs:
on a shared machine both are far less disturbed by other processes than wall time.

Run: ``python benchmarks/bench_audit.py [--trials 200000] [--repeat 3] [--seeds 5]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import dadp_lite as dl
from dadp_lite.audit import audit, audit_samples, sample_pair
from dadp_lite.histogram import Histogram
from dadp_lite.registry import REGISTRY

EPSILON = 1.0
SETTINGS = {"k": 6, "qi": ("race",), "ka_qi": ("sex", "race"), "rate": 0.5}


def universe() -> Histogram:
    domains = dl.feature_domains()
    counts = np.zeros(len(domains["sex"]) * len(domains["race"]), dtype=int)
    counts[0] = 8
    return Histogram(counts, ("sex", "race"), (domains["sex"], domains["race"]))


def best(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return min(times)


def throughput(entry, pair, trials: int, repeat: int) -> tuple[float, float]:
    values = entry.bind({**SETTINGS, **pair.settings}, epsilon=EPSILON)

    def raw():
        return sample_pair(entry, pair.x, pair.x_prime, trials=trials, seed=1, settings=values)

    def full():
        out_x, out_y = raw()
        return audit_samples(
            out_x, out_y, epsilons=[EPSILON], deltas=[0.0], x=pair.x, x_prime=pair.x_prime
        )

    return best(raw, repeat), best(full, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200_000, help="trials per side")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    grid = universe()
    cases = [(e.label, e, e.neighbour_pair(grid, epsilon=EPSILON, **SETTINGS), args.trials)
             for e in REGISTRY.values()]  # fmt: skip
    laplace = REGISTRY["laplace"]
    far = laplace.neighbour_pair(Histogram(np.array([1000, 0]), ("sex",), ((1, 2),)))
    cases.insert(1, ("Laplace, 2 cells, 10^6 trials", laplace, far, 1_000_000))
    print(f"epsilon = {EPSILON}; best of {args.repeat} runs; trials per side per CPU second")
    print(f"{'mechanism':40} {'trials':>9} {'raw rate':>12} {'audit rate':>12} {'ratio':>6}")
    for label, entry, pair, trials in cases:
        t_raw, t_audit = throughput(entry, pair, trials, args.repeat)
        ratio = t_raw / t_audit
        flag = "" if ratio >= 0.5 else "  (below the 50% target)"
        print(
            f"{label:40} {trials:>9,} {trials / t_raw:>12,.0f} {trials / t_audit:>12,.0f} "
            f"{ratio:>6.2f}{flag}"
        )
    fractions = [
        audit(laplace, far, settings={"epsilon": EPSILON}, deltas=[0.0], trials=1_000_000,
              seed=seed).epsilon_lower(0.0) / EPSILON
        for seed in range(args.seeds)
    ]  # fmt: skip
    print(
        f"Laplace tightness (epsilon = {EPSILON}, 10^6 trials per side, 95%): certified epsilon "
        f"= {min(fractions):.1%} to {max(fractions):.1%} of the true one "
        f"(median {np.median(fractions):.1%}, {args.seeds} seeds; target >= 80%)"
    )


if __name__ == "__main__":
    main()
