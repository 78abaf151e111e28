"""Cost of the histogram build and of every registered mechanism from 10^4 to 10^7 records.

The national excerpt is resampled with replacement (seeded) to each size. At each size the
script times the histogram build (records -> ``Histogram``) and ``--reps`` repetitions of
every mechanism of ``dadp_lite.registry.REGISTRY``, run as the book runs them
(``dadp_lite.experiments.release``: the registry's release through ``simulate``, chunks of
50 repetitions). Settings: ``epsilon = 1`` for the private mechanisms, the paper's
``k = 6`` (suppression threshold and Mondrian class size), QI ``race`` for swapping, all
five features as QIs of k-anonymity, and a fixed rate of 0.5 for traditional swapping.

Peak memory is the process's peak resident set size (``VmHWM``, read as ``ru_maxrss``;
resident size now through psutil), reset before each measurement by writing 5 to
``/proc/self/clear_refs`` (no library does that). Resident memory is what the machine
must hold: it counts numpy buffers, pandas and BLAS work space alike, and costs nothing
while timing (tracemalloc sees only allocations reported to it and slows every Python
allocation). It includes the interpreter, the imported packages and the records of the
current size, which every measurement holds anyway.

Targets at 10^7 records: histogram build under 5 s; ``reps = 200`` of every
mechanism under 60 s; peak memory under 4 GiB. Histogram mechanisms should cost the same
at every size, record-level ones grow no worse than linearly.

Run: ``DADP_DATA_DIR=... python benchmarks/bench_scale.py [--sizes 10000 100000]
[--reps 200] [--skip-over SECONDS] [--out benchmarks/results/scale.csv]``. Prints a table and
writes a CSV with one row per (size, measurement) and the machine's description.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import os
import platform
import resource
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

import dadp_lite as dl
from dadp_lite import experiments as ex
from dadp_lite.paper import PAPER_K
from dadp_lite.registry import REGISTRY

SIZES = (10_000, 100_000, 1_000_000, 10_000_000)
EPSILON = 1.0
SWAP_RATE = 0.5
SETTINGS = {"k": PAPER_K, "rate": SWAP_RATE}  # the rest: registry defaults (paper's QIs)
HISTOGRAM = "histogram"
RESULTS = Path(__file__).resolve().parent / "results" / "scale.csv"


# --------------------------------------------------------------------------- memory
def _rss_mib() -> float:
    """The process's resident set size now (``VmRSS``), through psutil."""
    return psutil.Process().memory_info().rss / 2**20


def _peak_mib() -> float:
    """The process's peak resident set size (``VmHWM``, which ``ru_maxrss`` reports and
    :func:`_reset_peak` resets), in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _reset_peak() -> bool:
    """Reset VmHWM to the current resident size; False where the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def measure(call) -> dict[str, float]:
    """Seconds, resident memory before and peak resident memory during ``call()`` (MiB)."""
    gc.collect()
    reset = _reset_peak()
    before = _rss_mib()
    start = time.perf_counter()
    call()
    seconds = time.perf_counter() - start
    # the kernel updates VmHWM from per-CPU counters it syncs lazily: on a busy machine it
    # can lag the resident size read before or after by a few pages, and a peak is at
    # least both of those
    peak = max(_peak_mib(), _rss_mib(), before)
    return {"seconds": seconds, "rss_before_mib": before, "peak_rss_mib": peak, "reset": reset}


# --------------------------------------------------------------------------- data
def resample(records: pd.DataFrame, size: int, seed: int) -> pd.DataFrame:
    """``size`` records drawn with replacement (seeded) from ``records``."""
    rows = np.random.default_rng(seed).integers(0, len(records), size=size)
    return records.iloc[rows].reset_index(drop=True)


def machine() -> dict[str, object]:
    """Cores, CPU, Python and numpy versions and the date of the run."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            names = [line.split(":", 1)[1].strip() for line in info if "model name" in line]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "date": dt.date.today().isoformat(),
    }


# --------------------------------------------------------------------------- run
def _release_call(name: str, data: dl.Dataset, reps: int):
    entry = REGISTRY[name]
    epsilon = EPSILON if entry.private else None
    own = entry.select(SETTINGS)  # the settings this mechanism takes
    return lambda: ex.release(entry, data, epsilon=epsilon, reps=reps, seed=2023, **own)


def run(sizes, reps: int, skip_over: float | None, seed: int) -> pd.DataFrame:
    """One row per (size, measurement): the histogram build and each registered mechanism."""
    source = dl.load_records("national2019")
    rows, last = [], {}
    for size in sizes:
        records = resample(source, size, seed)
        built: list[dl.Histogram] = []
        result = measure(partial(_build, records, built))
        rows.append({"size": size, "measurement": HISTOGRAM, "kind": "build", "reps": 1,
                     "status": "measured", **result})  # fmt: skip
        _print(rows[-1])
        data = dl.Dataset(f"national2019-resampled-{size}", records, built[0])
        for name, entry in REGISTRY.items():
            row = {"size": size, "measurement": name, "kind": entry.kind, "reps": reps}
            projected = _projection(last.get(name), size)
            if skip_over is not None and projected is not None and projected > skip_over:
                row.update(status="skipped", seconds=projected, rss_before_mib=np.nan,
                           peak_rss_mib=np.nan, reset=False)  # fmt: skip
            else:
                row.update(status="measured", **measure(_release_call(name, data, reps)))
                last[name] = (size, row["seconds"])
            rows.append(row)
            _print(row)
    return pd.DataFrame(rows).assign(**machine())


def _build(records: pd.DataFrame, out: list) -> None:
    out.append(dl.histogram_of(records))


def _projection(previous: tuple[int, float] | None, size: int) -> float | None:
    """Linear extrapolation of a measured time to ``size`` (for ``--skip-over``)."""
    if previous is None:
        return None
    return previous[1] * size / previous[0]


def _print(row: dict) -> None:
    seconds = f"{row['seconds']:9.2f}" + (" (projected)" if row["status"] == "skipped" else "")
    memory = "" if row["status"] == "skipped" else f"{row['peak_rss_mib']:9.0f} MiB peak"
    print(f"{row['size']:>10,d}  {row['measurement']:30s} {seconds} s  {memory}", flush=True)


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Seconds per (measurement, size), one column per size."""
    return frame.pivot_table(index="measurement", columns="size", values="seconds", sort=False)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2023, help="seed of the resampling")
    parser.add_argument(
        "--skip-over", type=float, default=None,
        help="skip a measurement whose linear projection from the previous size exceeds "
        "this many seconds (recorded as 'skipped' with the projection)",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    frame = run(sorted(args.sizes), args.reps, args.skip_over, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, index=False)
    with pd.option_context("display.width", 160, "display.float_format", "{:.3g}".format):
        print(summary(frame))
    print(f"machine: {machine()}; wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
