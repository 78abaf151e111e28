# ruff: noqa: E501 - the case tables keep one case per line
"""Census of the careless-user cases of issue 26: run each case, classify it, count.

Every case is run in a fresh process (the command as ``python -m dadp_book.cli``, a
library call as ``python -c``) with a 4 GiB address-space limit and a time limit, in a
temporary folder. Each outcome falls in one class, as in the issue:

``clear``
    refused before anything ran: exit 1 with one line ``dadp-book: error: ...`` (or a
    ``ValueError``/``TypeError`` from the library) holding the fragments the case expects
    (the value and what is allowed), no kernel started, nothing written;
``handled``
    a valid input (or a fault injected) that gave the right result;
``late``
    refused in one clear line, but only after a kernel started; or still running at the
    time limit;
``unclear``
    a traceback, several lines, a message without the expected fragments, another
    exception type, or something written although the input was refused;
``silent``
    success reported for a wrong result (a bad input accepted, a dataset dropped, ...).

Usage (from the book's root; ``PYTHONPATH=<other checkout>`` counts another version, whose
folder is then the book root)::

    .venv/bin/python benchmarks/bad_input_census.py [--only cli|api] [--cases id1,id2]

It prints one line per case and the count table (about an hour on 2 busy cores; ``--json
out.json`` keeps the outcomes as it goes, ``--merge a.json b.json`` counts saved outcomes).
Cases of item 3 (misspelled library arguments) are counted but belong to the registry's
rewrite. A case still running at its time limit counts as late.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import psutil

import dadp_lite

ROOT = Path(dadp_lite.__file__).resolve().parents[1]
DATA = Path(os.environ.get("DADP_DATA_DIR", "/work/shared/data"))
MEMORY = 4 * 2**30
CLASSES = ("clear", "handled", "late", "unclear", "silent")
FAST = ["-p", "REPS", "20", "-p", "N_BOOT", "20", "--no-html"]  # chapter 12, small


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    os.setsid()  # its own process group: a timeout kills the kernels too


# ----------------------------------------------------------------------------- files
def _ma_lines() -> list[bytes]:
    return (DATA / "ma2019.csv").read_bytes().splitlines(keepends=True)


def _excerpt(rows: int = 800, columns: tuple[str, ...] | None = None) -> bytes:
    lines = _ma_lines()[: rows + 1]
    if columns is None:
        return b"".join(lines)
    header = lines[0].decode().strip().split(",")
    keep = [header.index(c) for c in columns]
    out = []
    for line in lines:
        fields = line.decode().strip().split(",")
        out.append(",".join(fields[i] for i in keep) + "\n")
    return "".join(out).encode()


SCHEMA = ("RAC1P", "SEX", "OWN_RENT", "AGEP", "PINCP")


def _small(rows: int = 40) -> str:
    return _excerpt(rows, SCHEMA).decode()


def _replace_field(column: str, value: str, row: int = 3) -> bytes:
    lines = _small().splitlines()
    header = lines[0].split(",")
    fields = lines[row].split(",")
    fields[header.index(column)] = value
    lines[row] = ",".join(fields)
    return ("\n".join(lines) + "\n").encode()


def _parquet_bytes() -> bytes:
    import io

    import pandas as pd

    buffer = io.BytesIO()
    pd.read_csv(io.StringIO(_small())).to_parquet(buffer, index=False)
    return buffer.getvalue()


def _bad_files() -> dict[str, bytes]:
    small = _small()
    return {
        "semicolon": small.replace(",", ";").encode(),
        "tab": small.replace(",", "\t").encode(),
        "lowercase-header": small.replace("RAC1P", "rac1p").encode(),
        "padded-header": small.replace("AGEP", " AGEP ").encode(),
        "pincp-n-lower": _replace_field("PINCP", "n"),
        "pincp-empty": _replace_field("PINCP", ""),
        "pincp-nan": _replace_field("PINCP", "nan"),
        "pincp-thousands": _replace_field("PINCP", '"50,000"'),
        "agep-negative": _replace_field("AGEP", "-3"),
        "agep-100": _replace_field("AGEP", "100"),
        "agep-120": _replace_field("AGEP", "120"),
        "header-only": (small.splitlines()[0] + "\n").encode(),
        "parquet-named-csv": _parquet_bytes(),
        "gzip-named-csv": gzip.compress(small.encode()),
        "latin1-byte": small.encode().replace(b"\n1,", b"\n1\xe9,", 1),
        "ragged-long": (small.replace("\n", "\n1,", 1)).encode()[:-1] + b",9\n",
        "ragged-short": _replace_field("PINCP", "").replace(b",\n", b"\n", 1),
        "one-record": ("\n".join(small.splitlines()[:2]) + "\n").encode(),
        "two-records": ("\n".join(small.splitlines()[:3]) + "\n").encode(),
        "duplicate-column": "".join(
            line + (",AGEP\n" if i == 0 else ",99\n") for i, line in enumerate(small.splitlines())
        ).encode(),
        "empty": b"",
        "race-10": _replace_field("RAC1P", "10"),
        "age-fraction": _replace_field("AGEP", "30.5"),
    }


# ----------------------------------------------------------------------------- cases
@dataclass
class Case:
    """One careless-user case."""

    id: str
    item: int
    kind: str  # "cli" or "api"
    expect: str  # "refuse", "valid" or "either"
    args: list[str] = field(default_factory=list)  # cli
    files: dict[str, bytes] = field(default_factory=dict)
    fragments: tuple[str, ...] = ()  # what a clear refusal names
    code: str = ""  # api: Python; sets ``ok`` for valid cases
    check: object = None  # cli valid: function(tmp) -> bool
    runner: object = None  # a custom runner (fault injection)
    timeout: float = 240.0


def _csvs(tmp: Path) -> list[Path]:
    return sorted((tmp / "out").glob("12-data-release-tables-*.csv"))


def _two_distinct_outputs(tmp: Path) -> bool:
    files = _csvs(tmp)
    return len(files) == 2 and files[0].read_bytes() != files[1].read_bytes()


def _no_paper_numbers(tmp: Path) -> bool:
    import pandas as pd

    files = _csvs(tmp)
    return bool(files) and all(pd.read_csv(f)["paper_bias_l1"].isna().all() for f in files)


def _paper_numbers(tmp: Path) -> bool:
    import pandas as pd

    files = _csvs(tmp)
    return bool(files) and all(pd.read_csv(f)["paper_bias_l1"].notna().any() for f in files)


def _both_chapters_kept(tmp: Path) -> bool:
    return (tmp / "out" / "params.yaml").is_file() and "01-setting" in (
        tmp / "out" / "params.yaml"
    ).read_text()


def cli_cases() -> list[Case]:
    ma = (DATA / "ma2019.csv").read_bytes()
    part = _excerpt(800)
    rows = _excerpt(1600).splitlines(keepends=True)
    other = b"".join(rows[:1] + rows[801:1601])  # another 800 rows
    run12 = ["run", "12", "--out", "{tmp}/out", *FAST]
    eps1 = ["-p", "EPSILONS", "[1]"]
    one = ["-p", "DATASETS", "[ma2019]"]
    cases = [
        Case(
            "stem-collision-registered",
            1,
            "cli",
            "either",
            [*run12, *eps1, "-p", "DATASETS", "[ma2019, {tmp}/other/ma2019.csv]"],
            {"other/ma2019.csv": part},
            ("ma2019",),
            check=_two_distinct_outputs,
        ),
        Case(
            "stem-collision-files",
            1,
            "cli",
            "either",
            [*run12, *eps1, "-p", "DATASETS", "[{tmp}/a/data.csv, {tmp}/b/data.csv]"],
            {"a/data.csv": part, "b/data.csv": other},
            ("data",),
            check=_two_distinct_outputs,
        ),
        Case(
            "user-file-named-ma2019",
            1,
            "cli",
            "valid",
            [*run12, *eps1, "-p", "DATASETS", "[{tmp}/ma2019.csv]"],
            {"ma2019.csv": part},
            check=_no_paper_numbers,
        ),
        Case(
            "copy-of-the-excerpt-is-the-excerpt",
            1,
            "cli",
            "valid",
            [*run12, *eps1, "-p", "DATASETS", "[{tmp}/copy/ma2019.csv]"],
            {"copy/ma2019.csv": ma},
            check=_paper_numbers,
        ),
    ]
    for value, expect in [("1e5", "either"), ("1e6", "either"), ("32", "either"),
                          ("64", "either"), ("100", "either"), ("1e3", "either"),
                          ("1e4", "either"), ("1e-5", "either"), ("1e308", "either"),
                          ("1e-300", "either")]:  # fmt: skip
        cases.append(Case(f"ch12-epsilon-{value}", 2, "cli", expect,
                          [*run12, *one, "-p", "EPSILONS", f"[{value}]"], {},
                          ("EPSILONS", "outside"), check=lambda tmp: bool(_csvs(tmp)),
                          timeout=150))  # fmt: skip
    cases.append(
        Case(
            "ch03-epsilon-1e-9",
            2,
            "cli",
            "either",
            [
                "run",
                "03",
                "--out",
                "{tmp}/out",
                "--no-html",
                "--profile",
                "quick",
                "-p",
                "EPSILONS",
                "[1e-9]",
            ],
            {},
            ("EPSILONS", "outside"),
            check=lambda tmp: (tmp / "out" / "params.yaml").is_file(),
            timeout=150,
        )
    )
    for name, content in _bad_files().items():
        fragments = {"semicolon": ("';'",), "tab": ("tab",), "lowercase-header": ("RAC1P",),
                     "padded-header": ("AGEP",), "duplicate-column": ("AGEP", "twice"),
                     "empty": ("empty",), "header-only": ("no records",),
                     "parquet-named-csv": ("Parquet",), "gzip-named-csv": ("gzip",),
                     "latin1-byte": ("UTF-8",), "one-record": ("record",),
                     "two-records": ("record",), "ragged-long": ("line",),
                     "ragged-short": ("line",)}.get(name, ("row",))  # fmt: skip
        item = 5 if name == "duplicate-column" else 10
        cases.append(Case(f"file-{name}", item, "cli", "refuse",
                          [*run12, *eps1, "-p", "DATASETS", "[{tmp}/mine.csv]"],
                          {"mine.csv": content}, fragments))  # fmt: skip
    good = _small(40)
    for name, content in {"crlf": good.replace("\n", "\r\n").encode(),
                          "bom": b"\xef\xbb\xbf" + good.encode(),
                          "extra-columns": _excerpt(40)}.items():  # fmt: skip
        cases.append(
            Case(
                f"file-{name}",
                10,
                "cli",
                "valid",
                [*run12, *eps1, "-p", "DATASETS", "[{tmp}/mine.csv]"],
                {"mine.csv": content},
                check=lambda tmp: bool(_csvs(tmp)),
            )
        )
    cases += [
        Case(
            "out-reused-across-chapters",
            6,
            "cli",
            "either",
            runner=_out_reused,
            fragments=("01-setting-and-data",),
            check=_both_chapters_kept,
            timeout=400,
        ),
        Case(
            "file-replaced-mid-run",
            7,
            "cli",
            "valid",
            runner=_replaced_mid_run,
            fragments=("changed",),
        ),
        Case(
            "too-many-epsilons",
            8,
            "cli",
            "refuse",
            ["run", "12", "--out", "{tmp}/out", "-y", "{tmp}/many.yaml"],
            {
                "many.yaml": (
                    "EPSILONS: [" + ", ".join(str(1 + i / 1e5) for i in range(100_000)) + "]\n"
                ).encode()
            },
            ("EPSILONS", "at most"),
        ),
        Case("kill-9-jobs-2-sweep", 9, "cli", "valid", runner=_kill_sweep, timeout=300),
        Case(
            "out-in-proc",
            11,
            "cli",
            "refuse",
            ["run", "01", "--out", "/proc/dadp-out"],
            {},
            ("/proc/dadp-out",),
        ),
        Case(
            "out-under-a-file",
            11,
            "cli",
            "refuse",
            ["run", "01", "--out", "{tmp}/f/sub"],
            {"f": b"x"},
            ("{tmp}/f",),
        ),
        Case(
            "build-dir-under-a-file",
            11,
            "cli",
            "refuse",
            ["build", "--chapters", "01", "--build-dir", "{tmp}/f/b"],
            {"f": b"x"},
            ("{tmp}/f",),
        ),
        Case(
            "csv-named-parquet",
            11,
            "cli",
            "refuse",
            [*run12, *eps1, "-p", "DATASETS", "[{tmp}/mine.parquet]"],
            {"mine.parquet": good.encode()},
            ("Parquet",),
        ),
        Case("sigterm-during-run", 11, "cli", "valid", runner=_sigterm_run, timeout=200),
        Case("clean-stderr-of-a-good-run", 11, "cli", "valid", runner=_clean_stderr, timeout=300),
        Case(
            "negative-epsilon-text",
            12,
            "cli",
            "refuse",
            ["run", "12", "--out", "{tmp}/out", "-p", "EPSILONS", "-1e-3"],
            {},
            ("EPSILONS", "outside"),
        ),
        Case(
            "negative-k-text",
            12,
            "cli",
            "refuse",
            ["run", "12", "--out", "{tmp}/out", "-p", "K", "-5e1"],
            {},
            ("K", "outside"),
        ),
        Case(
            "dataset-is-a-folder",
            12,
            "cli",
            "refuse",
            ["run", "03", "--out", "{tmp}/out", "-p", "DATASET", "{tmp}/folder.csv"],
            {"folder.csv/x": b""},
            ("is a folder",),
        ),
        Case(
            "dataset-is-a-fifo",
            12,
            "cli",
            "refuse",
            runner=_fifo_dataset,
            fragments=("regular file",),
        ),
        Case(
            "dataset-links-to-a-device",
            12,
            "cli",
            "refuse",
            runner=_device_dataset,
            fragments=("regular file",),
        ),
        Case(
            "ch05-one-row-file",
            12,
            "cli",
            "refuse",
            [
                "run",
                "05",
                "--out",
                "{tmp}/out",
                "--no-html",
                "--profile",
                "quick",
                "-p",
                "DATASET",
                "{tmp}/one.csv",
                "-p",
                "DATASETS",
                "[{tmp}/one.csv]",
            ],
            {"one.csv": ("\n".join(good.splitlines()[:2]) + "\n").encode()},
            ("record",),
        ),
        Case(
            "sweep-over-a-bad-file",
            12,
            "cli",
            "refuse",
            [
                "sweep",
                "12",
                "--grid",
                "{tmp}/grid.yaml",
                "--out",
                "{tmp}/out",
                "--no-progress",
                *eps1,
                "-p",
                "DATASETS",
                "[{tmp}/bad.csv]",
                "-p",
                "N_BOOT",
                "20",
            ],
            {"grid.yaml": b"REPS: [20, 30]\n", "bad.csv": good.replace(",", ";").encode()},
            ("';'",),
        ),
        Case(
            "repeated-p",
            13,
            "cli",
            "refuse",
            ["run", "12", "--out", "{tmp}/out", "-p", "REPS", "10", "-p", "REPS", "30"],
            {},
            ("REPS", "twice"),
        ),
        Case("failed-run-leaves-no-parent", 13, "cli", "valid", runner=_failed_parent),
    ]
    return cases + issue33_cases()


API = {
    # item 1
    "user-file-named-ma2019-vs-paper": (
        1,
        "valid",
        (),
        """
        from dadp_lite import experiments as ex
        lines = open(DATA / "ma2019.csv", "rb").read().splitlines(keepends=True)[:801]
        (TMP / "ma2019.csv").write_bytes(b"".join(lines))
        table = ex.compare_with_paper(ex.data_release_table(dl.Dataset.load(TMP / "ma2019.csv"),
            epsilons=[1.0], reps=3, seed=0, n_boot=10, mechanisms=["laplace"]))
        ok = bool(table["paper_bias_l1"].isna().all())""",
    ),
    "dataset-identity-has-a-hash": (
        1,
        "valid",
        (),
        """
        import hashlib
        d = dl.Dataset.load("ma2019")
        ok = getattr(d, "sha256", None) == hashlib.sha256(open(DATA / "ma2019.csv", "rb").read()).hexdigest()""",
    ),
    # item 2
    "dg-epsilon-1e308": (
        2,
        "refuse",
        ("epsilon",),
        "dl.discrete_gaussian(C, epsilon=1e308, rng=R, reps=2)",
    ),
    "dg-epsilon-1e-300": (
        2,
        "refuse",
        ("epsilon",),
        "dl.discrete_gaussian(C, epsilon=1e-300, rng=R, reps=2)",
    ),
    "dg-epsilon-1e-5": (
        2,
        "refuse",
        ("epsilon", "outside"),
        "dl.discrete_gaussian(C, epsilon=1e-5, rng=R, reps=2)",
    ),
    "dg-epsilon-17.3": (
        2,
        "valid",
        (),
        "ok = dl.discrete_gaussian(C, epsilon=17.3, rng=R, reps=2).shape == (2, 4)",
    ),
    "laplace-epsilon-array": (
        12,
        "refuse",
        ("epsilon", "one number"),
        "dl.laplace(C, epsilon=np.array([1.0, 2.0]), rng=R, reps=2)",
    ),
    # item 3 (registry rewrite; counted, not in this branch's scope)
    "release-misspelled-K": (
        3,
        "refuse",
        ("K",),
        "dl.release('dp_cell_suppression', 'ma2019', epsilon=1, reps=3, seed=0, K=50)",
    ),
    "release-misspelled-q1": (
        3,
        "refuse",
        ("q1",),
        "dl.release('dp_swapping', 'ma2019', epsilon=1, reps=3, seed=0, q1=('sex',))",
    ),
    "release-laplace-qi": (
        3,
        "refuse",
        ("qi",),
        "dl.release('laplace', 'ma2019', epsilon=1, reps=3, seed=0, qi='planet')",
    ),
    # item 4
    "audit-nan-half": (
        4,
        "refuse",
        ("NaN",),
        """
        def m(counts, rng):
            return np.array([np.nan]) if rng.random() < 0.5 else np.array([float(counts[0])])
        dl.audit.audit(m, np.array([1]), np.array([0]), epsilons=[1.0], trials=2000, seed=0)""",
    ),
    "audit-all-nan": (
        4,
        "refuse",
        ("NaN",),
        """
        def m(counts, rng, reps):
            return np.full((reps, 1), np.nan)
        dl.audit.audit(m, np.array([1]), np.array([0]), epsilons=[1.0], trials=2000, seed=0)""",
    ),
    "audit-inf": (
        4,
        "refuse",
        ("inf",),
        """
        def m(counts, rng, reps):
            return np.where(rng.random((reps, 1)) < 0.5, np.inf, counts[0])
        dl.audit.audit(m, np.array([1]), np.array([0]), epsilons=[1.0], trials=2000, seed=0)""",
    ),
    "audit-samples-nan": (
        4,
        "refuse",
        ("NaN",),
        """
        a = np.ones((100, 1)); a[3] = np.nan
        dl.audit.audit_samples(a, np.zeros((100, 1)), epsilons=[1.0])""",
    ),
    # item 5
    "duplicate-column": (
        5,
        "refuse",
        ("AGEP", "twice"),
        """
        (TMP / "d.csv").write_text("RAC1P,SEX,OWN_RENT,AGEP,PINCP,AGEP\\n1,1,1,30,0,70\\n")
        dl.Dataset.load(TMP / "d.csv")""",
    ),
    # item 8
    "release-reps-1e9": (
        8,
        "refuse",
        ("reps", "GiB"),
        "dl.release('laplace', 'ma2019', epsilon=1, reps=10**9, seed=0)",
    ),
    "simulate-reps-1e9": (
        8,
        "refuse",
        ("reps",),
        "dl.simulate(dl.laplace, C, reps=10**9, seed=0, epsilon=1.0)",
    ),
    "audit-trials-1e9": (
        8,
        "refuse",
        ("trials",),
        "dl.audit.audit('laplace', dl.Histogram(np.array([3, 1]), ('a',), ((0, 1),)), dl.Histogram(np.array([2, 2]), ('a',), ((0, 1),)), settings={'epsilon': 1.0}, epsilons=[1.0], trials=10**9)",
    ),
    "laplace-reps-1e9": (8, "refuse", ("reps", "GiB"), "dl.laplace(C, epsilon=1, rng=R, reps=1e9)"),
    "simulate-slow-chunks": (
        8,
        "refuse",
        ("allow_long",),
        """
        import time
        def slow(counts, rng, reps):
            time.sleep(0.5); return np.zeros((reps, 1))
        dl.simulate(slow, C, reps=10**6, seed=0, chunk_size=50)""",
    ),
    # item 12
    "audit-confidence-1": (
        12,
        "refuse",
        ("confidence", "(0, 1)"),
        "dl.audit.audit('laplace', dl.Histogram(np.array([3, 1]), ('a',), ((0, 1),)), dl.Histogram(np.array([2, 2]), ('a',), ((0, 1),)), settings={'epsilon': 1.0}, epsilons=[1.0], trials=1000, confidence=1.0)",
    ),
    "audit-release-none": (
        12,
        "refuse",
        ("release", "None"),
        "dl.audit.audit(lambda c, rng: None, np.array([1]), np.array([0]), epsilons=[1.0], trials=100)",
    ),
    "audit-release-str": (
        12,
        "refuse",
        ("release", "str"),
        "dl.audit.audit(lambda c, rng: 'x', np.array([1]), np.array([0]), epsilons=[1.0], trials=100)",
    ),
    "audit-release-dict": (
        12,
        "refuse",
        ("release", "dict"),
        "dl.audit.audit(lambda c, rng: {'a': 1}, np.array([1]), np.array([0]), epsilons=[1.0], trials=100)",
    ),
    "audit-release-shape-varies": (
        12,
        "refuse",
        ("release", "shape"),
        "dl.audit.audit(lambda c, rng: np.zeros(rng.integers(1, 3)), np.array([1]), np.array([0]), epsilons=[1.0], trials=100)",
    ),
    "audit-seed-negative": (
        12,
        "refuse",
        ("seed", "-1"),
        "dl.audit.audit(lambda c, rng: c + rng.laplace(), np.array([1]), np.array([0]), epsilons=[1.0], trials=100, seed=-1)",
    ),
    "audit-seed-text": (
        12,
        "refuse",
        ("seed", "'a'"),
        "dl.audit.audit(lambda c, rng: c + rng.laplace(), np.array([1]), np.array([0]), epsilons=[1.0], trials=100, seed='a')",
    ),
    # item 13
    "cell-suppression-k-true": (13, "refuse", ("k", "bool"), "dl.cell_suppression(C, k=True)"),
    "laplace-reps-true": (
        13,
        "refuse",
        ("reps", "True"),
        "dl.laplace(C, epsilon=1, rng=R, reps=True)",
    ),
    "timedelta-counts": (
        13,
        "refuse",
        ("counts", "timedelta64"),
        "dl.laplace(np.array([1, 2], dtype='timedelta64[s]'), epsilon=1, rng=R, reps=1)",
    ),
    "histogram-domain-repeats": (
        13,
        "refuse",
        ("domain", "twice"),
        "dl.Histogram(np.array([1, 2]), ('a',), ((0, 0),))",
    ),
    "audit-2d-x": (
        13,
        "refuse",
        ("x", "shape"),
        "dl.audit.audit(lambda c, rng: c + rng.laplace(size=c.shape), np.ones((2, 2)), np.zeros((2, 2)), epsilons=[1.0], trials=100)",
    ),
}


API_33 = {
    # issue 33, item 4: library calls refused (or done) before allocating
    "i33-release-epsilon-1e308": (
        334,
        "valid",
        (),
        "ok = dl.release('laplace', 'ma2019', epsilon=1e308, reps=2, seed=0).shape == (2, 540)",
    ),
    "i33-release-epsilon-inf": (
        334,
        "refuse",
        ("epsilon",),
        "dl.release('laplace', 'ma2019', epsilon=float('inf'), reps=2, seed=0)",
    ),
    "i33-release-reps-1e9-float": (
        334,
        "refuse",
        ("reps", "GiB"),
        "dl.release('laplace', 'ma2019', epsilon=1, reps=1e9, seed=0)",
    ),
    "i33-swapping-exact-delta-one-epsilon": (
        334,
        "valid",
        (),
        "ok = dl.theory.dp_swapping_exact_delta(np.array([0.5]), n_q=2, n_groups=1, bound=2, unit='cell', adjacency='qi_replace').shape == (1,)",
    ),
    "i33-dg-delta-epsilon-0.001": (
        333,
        "valid",
        (),
        "ok = 0 < dl.theory.discrete_gaussian_delta_enumerated(0.001, sigma=2000.0, adjacency='replace') < 1",
    ),
    "i33-load-age-3_5": (
        335,
        "refuse",
        ("AGEP", "3_5"),
        """
        (TMP / "d.csv").write_text("RAC1P,SEX,OWN_RENT,AGEP,PINCP\\n1,1,1,3_5,0\\n")
        dl.load_records(TMP / "d.csv")""",
    ),
}


def api_cases() -> list[Case]:
    return [Case(name, item, "api", expect, fragments=fragments, code=textwrap.dedent(code))
            for name, (item, expect, fragments, code) in {**API, **API_33}.items()]  # fmt: skip


# ---------------------------------------------------------------------------- running
@dataclass
class Outcome:
    """What a case did."""

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    written: bool = False
    kernel: bool = False
    valid_ok: bool | None = None
    note: str = ""
    own_tree: bool = False  # the runner judged "written" itself
    verdict: str | None = None  # the runner's own verdict (issue 33's fault injections)


def _write_files(tmp: Path, files: dict[str, bytes]) -> None:
    for name, content in files.items():
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_bytes(content)


def _tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")} if folder.exists() else set()


def _command(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "dadp_book.cli", "--root", str(ROOT), *args]


def _run(command: list[str], tmp: Path, timeout: float, **kw) -> Outcome:
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, errors="backslashreplace", preexec_fn=_limits, **kw)  # fmt: skip
    try:
        out, err = process.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        timed_out = True
    return Outcome(process.returncode, out, err, time.perf_counter() - start, timed_out)


def run_cli(case: Case, tmp: Path) -> Outcome:
    _write_files(tmp, case.files)
    before = _tree(tmp), _tree(ROOT / "runs"), _tree(ROOT / "sweeps")
    if case.runner is not None:
        outcome = case.runner(case, tmp)
    else:
        args = [a.replace("{tmp}", str(tmp)) for a in case.args]
        outcome = _run(_command(args), tmp, case.timeout)
        if case.check is not None and outcome.returncode == 0:
            outcome.valid_ok = bool(case.check(tmp))
    outcome.kernel = outcome.kernel or any(
        line.startswith(("Running ", "Sweep of ")) for line in outcome.stdout.splitlines()
    )
    after = _tree(tmp), _tree(ROOT / "runs"), _tree(ROOT / "sweeps")
    if not outcome.own_tree:
        outcome.written = outcome.written or after != before
    return outcome


PRELUDE = """
import json, sys, traceback
from pathlib import Path
import numpy as np
import dadp_lite as dl
TMP = Path(sys.argv[1]); DATA = Path(sys.argv[2])
C = np.array([3, 0, 5, 1]); R = np.random.default_rng(0)
ok = None
try:
{body}
    print(json.dumps({{"raised": None, "ok": ok}}))
except Exception as error:
    print(json.dumps({{"raised": type(error).__name__, "mro": [c.__name__ for c in type(error).__mro__],
                      "message": str(error)}}))
"""


def run_api(case: Case, tmp: Path) -> Outcome:
    code = PRELUDE.format(body=textwrap.indent(case.code.strip(), "    "))
    return _run([sys.executable, "-c", code, str(tmp), str(DATA)], tmp, case.timeout)


# ------------------------------------------------------------------- fault injection
def _out_reused(case: Case, tmp: Path) -> Outcome:
    first = _run(_command(["run", "01", "--out", str(tmp / "out"), "--no-html", "--profile",
                           "quick"]), tmp, case.timeout)  # fmt: skip
    if first.returncode != 0:
        first.note = "chapter 01 failed"
        return first
    before = _tree(tmp)
    second = _run(_command(["run", "12", "--out", str(tmp / "out"), *FAST, "-p", "EPSILONS",
                            "[1]", "-p", "DATASETS", "[ma2019]"]), tmp, case.timeout)  # fmt: skip
    second.own_tree = True
    second.written = _tree(tmp) != before
    if second.returncode == 0:
        second.valid_ok = _both_chapters_kept(tmp)
    second.kernel = any(line.startswith("Running ") for line in second.stdout.splitlines())
    return second


INJECT = """
import shutil, sys
from pathlib import Path
import dadp_book.run as run
original = run.execute_notebook
def replaced(*args, **kw):
    Path(sys.argv[1]).write_bytes(Path(sys.argv[2]).read_bytes())  # after the pre-kernel hash
    return original(*args, **kw)
run.execute_notebook = replaced
from dadp_book.cli import main
sys.exit(main(sys.argv[3:]))
"""


def _replaced_mid_run(case: Case, tmp: Path) -> Outcome:
    import hashlib

    import yaml

    _write_files(tmp, {"mine.csv": _excerpt(800), "new.csv": _excerpt(300)})
    args = ["--root", str(ROOT), "run", "12", "--out", str(tmp / "out"), *FAST, "-p",
            "EPSILONS", "[1]", "-p", "DATASETS", f"[{tmp / 'mine.csv'}]"]  # fmt: skip
    outcome = _run([sys.executable, "-c", INJECT, str(tmp / "mine.csv"), str(tmp / "new.csv"),
                    *args], tmp, case.timeout)  # fmt: skip
    if outcome.returncode == 0:  # right only if the recorded hash is that of the bytes used
        record = yaml.safe_load((tmp / "out" / "params.yaml").read_text())
        recorded = record["datasets"]["DATASETS"][0]["sha256"]
        used = hashlib.sha256((tmp / "new.csv").read_bytes()).hexdigest()
        outcome.valid_ok = recorded == used
    else:  # or refused, saying so, with nothing written
        lines = outcome.stderr.strip().splitlines()
        outcome.valid_ok = (len(lines) == 1 and "changed" in lines[0]
                            and not (tmp / "out").exists())  # fmt: skip
    return outcome


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` now (none if it is gone)."""
    try:
        return {child.pid for child in psutil.Process(pid).children(recursive=True)}
    except psutil.Error:
        return set()


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _kill_sweep(case: Case, tmp: Path) -> Outcome:
    _write_files(tmp, {"grid.yaml": b"REPS: [20, 30, 40]\n"})
    args = ["sweep", "12", "--grid", str(tmp / "grid.yaml"), "--out", str(tmp / "out"),
            "--jobs", "2", "--no-progress", "-p", "EPSILONS", "[1]", "-p", "DATASETS",
            "[ma2019]", "-p", "N_BOOT", "20"]  # fmt: skip
    process = subprocess.Popen(
        _command(args),
        cwd=tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limits,
    )
    start = time.perf_counter()
    workers: set[int] = set()
    while time.perf_counter() - start < 120 and process.poll() is None:
        workers = _descendants(process.pid)
        if len(workers) >= 4:  # two workers and their kernels
            break
        time.sleep(0.5)
    time.sleep(2)
    workers = _descendants(process.pid)  # pool workers and their kernels
    process.kill()
    process.wait()
    time.sleep(6)  # a kernel polls for its parent once a second
    left = {pid for pid in workers if _alive(pid)}
    for pid in left:  # never leave them behind
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    out, err = process.communicate()
    outcome = Outcome(0, out, err, time.perf_counter() - start, kernel=True)
    outcome.valid_ok = bool(workers) and not left
    outcome.note = f"{len(workers)} descendants before, {len(left)} left after kill -9"
    outcome.written = True
    return outcome


def _sigterm_run(case: Case, tmp: Path) -> Outcome:
    args = ["run", "12", "--out", str(tmp / "out"), *FAST, "-p", "EPSILONS", "[1]"]
    process = subprocess.Popen(
        _command(args),
        cwd=tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limits,
    )
    start = time.perf_counter()
    while time.perf_counter() - start < 60 and len(_descendants(process.pid)) < 1:
        time.sleep(0.5)
    time.sleep(8)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=case.timeout)
    lines = err.strip().splitlines()
    outcome = Outcome(0, out, err, time.perf_counter() - start, kernel=True)
    outcome.valid_ok = process.returncode == 130 and len(lines) == 1 and "interrupted" in err
    outcome.note = f"exit {process.returncode}, {len(lines)} stderr line(s)"
    return outcome


def _clean_stderr(case: Case, tmp: Path) -> Outcome:
    args = ["run", "12", "--out", str(tmp / "out"), *FAST, "-p", "EPSILONS", "[1]", "-p",
            "DATASETS", "[ma2019]"]  # fmt: skip
    outcome = _run(_command(args), tmp, case.timeout)
    outcome.valid_ok = outcome.returncode == 0 and not outcome.stderr.strip()
    outcome.note = outcome.stderr.strip()[:120]
    return outcome


def _special_dataset(case: Case, tmp: Path, make) -> Outcome:
    make(tmp / "special.csv")
    before = _tree(tmp)
    args = ["run", "03", "--out", str(tmp / "out"), "-p", "DATASET", str(tmp / "special.csv")]
    outcome = _run(_command(args), tmp, 60)
    outcome.own_tree, outcome.written = True, _tree(tmp) != before
    return outcome


def _fifo_dataset(case: Case, tmp: Path) -> Outcome:
    return _special_dataset(case, tmp, os.mkfifo)


def _device_dataset(case: Case, tmp: Path) -> Outcome:
    return _special_dataset(case, tmp, lambda p: os.symlink("/dev/zero", p))


def _failed_parent(case: Case, tmp: Path) -> Outcome:
    args = ["run", "12", "--out", str(tmp / "new" / "deeper" / "out"), *FAST, "-p",
            "EPSILONS", "[1]", "-p", "DATASETS", f"[{tmp / 'bad.csv'}]"]  # fmt: skip
    (tmp / "bad.csv").write_bytes(_replace_field("AGEP", "-3"))
    outcome = _run(_command(args), tmp, case.timeout)
    outcome.valid_ok = outcome.returncode == 1 and not (tmp / "new").exists()
    outcome.written = False
    return outcome


# ------------------------------------------------------------ issue 33 (items 1 to 8)
def _bomb() -> str:
    """A flow list of nine lists, each nine aliases of the one before ("billion laughs"):
    nine lines of YAML that stand for 9**9 ones once written out."""
    names = "abcdefgh"
    levels = ["&a [" + ", ".join(["1"] * 9) + "]"]
    levels += [f"&{n} [" + ", ".join([f"*{p}"] * 9) + "]" for p, n in zip(names, names[1:])]
    return "[" + ", ".join([*levels, "[" + ", ".join(["*h"] * 9) + "]"]) + "]"


BOMB = _bomb()
DEEP = "[" * 50_000 + "]" * 50_000
NOT_UTF8 = os.fsdecode(b"\xff")


def _one_line_refusal(outcome: Outcome, fragments: tuple[str, ...], tmp: Path) -> str:
    """``clear`` for exit 1, one error line holding ``fragments``, no kernel, nothing
    written; ``late`` if a kernel had started; else ``unclear``."""
    lines = outcome.stderr.strip().splitlines()
    if outcome.timed_out:
        return "late"
    if outcome.returncode != 1 or len(lines) != 1 or not lines[0].startswith("dadp-book: error"):
        return "unclear"
    if not _has(lines[0], fragments, tmp):
        return "unclear"
    if outcome.kernel:
        return "late"
    return "unclear" if outcome.written else "clear"


_BUILT: dict[str, Path] = {}


def _built_once() -> Path:
    """A build folder of chapter 01 (quick, no HTML) from a copy of the data, made once per
    census and copied by each cache case."""
    if "folder" not in _BUILT:
        folder = Path(tempfile.mkdtemp(prefix="census-cache-"))
        shutil.copytree(DATA, folder / "data")
        args = ["build", "--chapters", "01", "--no-html", "--build-dir", str(folder / "b")]
        env = {**os.environ, "DADP_DATA_DIR": str(folder / "data")}
        first = _run(_command(args), folder, 1800, env=env)
        if first.returncode != 0:
            raise RuntimeError(f"the census's first build failed: {first.stderr[-500:]}")
        _BUILT["folder"] = folder
    return _BUILT["folder"]


def _cache_case(kind: str):
    def runner(case: Case, tmp: Path) -> Outcome:
        built = _built_once()
        shutil.copytree(built / "b", tmp / "b")
        data = tmp / "data"
        if kind != "missing":
            data.mkdir()
        if kind in ("one-byte", "same-bytes"):
            for path in (built / "data").iterdir():
                shutil.copy2(path, data / path.name)
        if kind == "one-byte":
            content = bytearray((data / "ma2019.csv").read_bytes())
            content[-2] = ord("0") if content[-2] != ord("0") else ord("1")
            (data / "ma2019.csv").write_bytes(bytes(content))
        before = (tmp / "b" / "timings.json").read_bytes()
        args = ["build", "--chapters", "01", "--no-html", "--build-dir", str(tmp / "b")]
        outcome = _run(
            _command(args), tmp, case.timeout, env={**os.environ, "DADP_DATA_DIR": str(data)}
        )
        outcome.own_tree = True
        outcome.written = (tmp / "b" / "timings.json").read_bytes() != before
        if kind == "same-bytes":
            reused = "reused from the build cache, 0 executed" in outcome.stdout
            outcome.verdict = "handled" if outcome.returncode == 0 and reused else "unclear"
        elif outcome.returncode == 0:
            outcome.verdict = "silent"  # results reused (or computed) from the wrong data
        else:
            outcome.verdict = _one_line_refusal(outcome, ("ma2019.csv", "DADP_DATA_DIR"), tmp)
        outcome.note = (outcome.stderr.strip().splitlines() or [""])[-1][:150] or "exit 0"
        return outcome

    return runner


def _concurrent_out(case: Case, tmp: Path) -> Outcome:
    """``run 01`` and ``run 12`` started at once into one ``--out``."""
    out = tmp / "out"
    first = ["run", "01", "--out", str(out), "--no-html", "--profile", "quick"]
    second = [
        "run",
        "12",
        "--out",
        str(out),
        *FAST,
        "-p",
        "EPSILONS",
        "[1]",
        "-p",
        "DATASETS",
        "[ma2019]",
    ]
    start = time.perf_counter()
    processes = [subprocess.Popen(_command(a), cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, preexec_fn=_limits) for a in (first, second)]  # fmt: skip
    results = [p.communicate(timeout=case.timeout) for p in processes]
    codes = sorted(p.returncode for p in processes)
    errors = " ".join(err for _, err in results)
    outcome = Outcome(codes[-1], results[0][0] + results[1][0], errors, time.perf_counter() - start)
    if codes == [0, 0]:
        outcome.verdict = "silent"  # both report success; one replaced the other
    elif codes == [0, 1] and "is being written by another dadp-book run" in errors:
        outcome.verdict = "handled"
    else:
        outcome.verdict = "unclear"
    outcome.note = f"exit codes {codes}"
    return outcome


SWAP = """
import sys
from pathlib import Path
import dadp_book.run as run
original = run.execute_notebook
def swapped(*args, **kw):
    data, other = Path(sys.argv[1]), Path(sys.argv[2])
    good = data.read_bytes()
    data.write_bytes(other.read_bytes())  # the other file while the kernel reads ...
    try:
        return original(*args, **kw)
    finally:
        data.write_bytes(good)  # ... put back before the file is hashed again
run.execute_notebook = swapped
from dadp_book.cli import main
sys.exit(main(sys.argv[3:]))
"""


def _swapped_and_restored(case: Case, tmp: Path) -> Outcome:
    import yaml

    _write_files(tmp, {"mine.csv": _excerpt(800), "new.csv": _excerpt(300)})
    args = ["--root", str(ROOT), "run", "12", "--out", str(tmp / "out"), *FAST, "-p",
            "EPSILONS", "[1]", "-p", "DATASETS", f"[{tmp / 'mine.csv'}]"]  # fmt: skip
    outcome = _run([sys.executable, "-c", SWAP, str(tmp / "mine.csv"), str(tmp / "new.csv"),
                    *args], tmp, case.timeout)  # fmt: skip
    if outcome.returncode == 0:
        record = yaml.safe_load((tmp / "out" / "params.yaml").read_text())
        rows = record["datasets"]["DATASETS"][0]["rows"]
        outcome.verdict = "silent"  # the results came from new.csv, the record names mine.csv
        outcome.note = f"exit 0; params.yaml names the file of {rows} rows, the kernel read 300"
    else:
        lines = outcome.stderr.strip().splitlines()
        good = len(lines) == 1 and "changed" in lines[0] and not (tmp / "out").exists()
        outcome.verdict = "handled" if good else "unclear"
    return outcome


FULL = """
import errno, shutil, sys, collections
from pathlib import Path
usage = collections.namedtuple("usage", "total used free")
shutil.disk_usage = lambda path: usage(10**10, 10**10 - 2**20, 2**20)  # 1 MiB free
out = Path(sys.argv[1])
for name in ("write_bytes", "write_text"):
    original = getattr(Path, name)
    def full(self, *args, _original=original, **kw):
        if out.parent in self.parents:
            raise OSError(errno.ENOSPC, "No space left on device")
        return _original(self, *args, **kw)
    setattr(Path, name, full)
from dadp_book.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _full_disk(case: Case, tmp: Path) -> Outcome:
    out = tmp / "results" / "out"
    args = ["--root", str(ROOT), "run", "12", "--out", str(out), *FAST, "-p", "EPSILONS",
            "[1]", "-p", "DATASETS", "[ma2019]"]  # fmt: skip
    outcome = _run([sys.executable, "-c", FULL, str(out), *args], tmp, case.timeout)
    outcome.kernel = any(line.startswith("Running ") for line in outcome.stdout.splitlines())
    outcome.verdict = _one_line_refusal(outcome, (str(tmp / "results"), "free"), tmp)
    return outcome


def _fifo_yaml(case: Case, tmp: Path) -> Outcome:
    os.mkfifo(tmp / "pipe.yaml")
    before = _tree(tmp)
    outcome = _run(
        _command(["run", "12", "--out", str(tmp / "out"), "-y", str(tmp / "pipe.yaml")]), tmp, 60
    )
    outcome.own_tree, outcome.written = True, _tree(tmp) != before
    outcome.verdict = _one_line_refusal(outcome, ("pipe.yaml", "FIFO"), tmp)
    return outcome


def _not_utf8_dataset(case: Case, tmp: Path) -> Outcome:
    path = tmp / f"{NOT_UTF8}.csv"
    path.write_bytes(_small(40).encode())
    before = _tree(tmp)
    args = ["run", "03", "--out", str(tmp / "out"), "--no-html", "--profile", "quick", "-p",
            "DATASET", str(path)]  # fmt: skip
    outcome = _run(_command(args), tmp, case.timeout)
    outcome.own_tree, outcome.written = True, _tree(tmp) != before
    outcome.kernel = any(line.startswith("Running ") for line in outcome.stdout.splitlines())
    if outcome.returncode == 0:
        outcome.verdict = "handled"  # run on it, recorded: fine too
    else:
        outcome.verdict = _one_line_refusal(outcome, ("UTF-8",), tmp)
    return outcome


def _ran(tmp: Path) -> bool:
    return (tmp / "out" / "params.yaml").is_file()


def issue33_cases() -> list[Case]:
    """The cases of issue 33 outside the course kit (items 1-5, 7): ids start ``i33-``."""
    run12 = ["run", "12", "--out", "{tmp}/out", "--no-html", "-p", "EPSILONS", "[1]", "-p",
             "DATASETS", "[ma2019]", "-p", "N_BOOT", "20"]  # fmt: skip
    quick = ["--no-html", "--profile", "quick"]
    cases = [Case(f"i33-cache-{kind}", 331, "cli", "refuse" if kind != "same-bytes" else "valid",
                  runner=_cache_case(kind), timeout=1800)
             for kind in ("one-byte", "empty", "missing", "same-bytes")]  # fmt: skip
    for chapter in ("03", "06", "12", "14"):  # the documented range at both ends
        cases.append(Case(f"i33-ch{chapter}-epsilon-ends", 333, "cli", "either",
                          ["run", chapter, "--out", "{tmp}/out", *quick, "-p", "EPSILONS", "[0.001, 100]"],
                          fragments=("EPSILONS", "outside"), check=_ran, timeout=1200))  # fmt: skip
    cases += [
        Case("i33-epsilons-1-and-1.0", 333, "cli", "refuse", ["run", "12", "--out", "{tmp}/out", *FAST, "-p", "EPSILONS", "[1, 1.0]"],
             fragments=("EPSILONS", "more than once")),
        Case("i33-ch11-own-defaults", 334, "cli", "valid", ["run", "11", "--out", "{tmp}/out", "--no-html"],
             check=_ran, timeout=1200),
        Case("i33-ch06-scalar-epsilon", 334, "cli", "valid",
             ["run", "06", "--out", "{tmp}/out", *quick, "-p", "EPSILONS", "0.5"], check=_ran, timeout=600),
        Case("i33-ch08-scalar-epsilon", 334, "cli", "valid",
             ["run", "08", "--out", "{tmp}/out", *quick, "-p", "EPSILONS", "0.5"], check=_ran, timeout=600),
        Case("i33-y-twice", 335, "cli", "refuse", [*run12, "-y", "{tmp}/a.yaml", "-y", "{tmp}/b.yaml"],
             {"a.yaml": b"REPS: 20\n", "b.yaml": b"N_BOOT: 20\n"}, ("-y", "twice")),
        Case("i33-grid-twice", 335, "cli", "refuse",
             ["sweep", "12", "--out", "{tmp}/out", "--grid", "{tmp}/a.yaml", "--grid", "{tmp}/b.yaml"],
             {"a.yaml": b"REPS: [20]\n", "b.yaml": b"N_BOOT: [20]\n"}, ("--grid", "twice")),
        Case("i33-two-merge-keys", 335, "cli", "refuse", [*run12, "-y", "{tmp}/m.yaml"],
             {"m.yaml": b"<<: {REPS: 20}\n<<: {REPS: 30}\n"}, ("merge key",)),
        Case("i33-p-3_5", 335, "cli", "refuse", [*run12, "-p", "REPS", "3_5"], {}, ("REPS", "3_5")),
        Case("i33-csv-age-3_5", 335, "cli", "refuse", ["run", "12", "--out", "{tmp}/out", *FAST, "-p", "EPSILONS", "[1]", "-p", "DATASETS", "[{tmp}/mine.csv]"],
             {"mine.csv": _replace_field("AGEP", "3_5")}, ("AGEP", "3_5")),
        Case("i33-two-runs-one-out", 335, "cli", "refuse", runner=_concurrent_out, timeout=900),
        Case("i33-file-swapped-and-restored", 335, "cli", "refuse", runner=_swapped_and_restored, timeout=600),
        Case("i33-y-bomb", 337, "cli", "refuse", [*run12, "-y", "{tmp}/bomb.yaml"],
             {"bomb.yaml": f"K: {BOMB}\n".encode()}, ("bomb.yaml", "alias"), timeout=120),
        Case("i33-p-bomb", 337, "cli", "refuse", [*run12, "-p", "K", BOMB], {}, ("K", "alias"),
             timeout=120),
        Case("i33-grid-bomb", 337, "cli", "refuse", ["sweep", "12", "--out", "{tmp}/out", "--grid", "{tmp}/g.yaml"],
             {"g.yaml": f"K: [{BOMB}]\n".encode()}, ("g.yaml", "alias"), timeout=120),
        Case("i33-y-dev-zero", 337, "cli", "refuse", [*run12, "-y", "/dev/zero"], {}, ("/dev/zero", "device"),
             timeout=120),
        Case("i33-y-fifo", 337, "cli", "refuse", runner=_fifo_yaml),
        Case("i33-y-nested", 337, "cli", "refuse", [*run12, "-y", "{tmp}/deep.yaml"],
             {"deep.yaml": DEEP.encode()}, ("deep.yaml", "nests")),
        Case("i33-p-nested", 337, "cli", "refuse", [*run12, "-p", "REPS", DEEP], {}, ("REPS", "nests")),
        Case("i33-y-too-large", 337, "cli", "either", [*run12, "-y", "{tmp}/big.yaml"],
             {"big.yaml": ("REPS: 20\n" + "# padding\n" * 200_000).encode()}, ("big.yaml", "MiB"),
             check=_ran),  # valid YAML: running it is no wrong result, refusing it in a line fine
        Case("i33-out-not-utf8", 337, "cli", "refuse", ["run", "01", "--out", "{tmp}/" + NOT_UTF8, *quick],
             fragments=("UTF-8",), timeout=600),
        Case("i33-dataset-not-utf8", 337, "cli", "either", runner=_not_utf8_dataset, timeout=600),
        Case("i33-empty-argument", 337, "cli", "refuse", ["run", "01", "--out", "{tmp}/out", ""], {},
             ("''",)),
        Case("i33-full-disk", 337, "cli", "refuse", runner=_full_disk, timeout=600),
    ]  # fmt: skip
    return cases


# --------------------------------------------------------------------------- judging
def _has(text: str, fragments: tuple[str, ...], tmp: Path) -> bool:
    low = text.lower()
    return all(f.replace("{tmp}", str(tmp)).lower() in low for f in fragments)


def judge(case: Case, outcome: Outcome, tmp: Path) -> str:
    if outcome.verdict is not None:
        return outcome.verdict
    if outcome.timed_out:
        return "late"
    if case.kind == "api":
        lines = [line for line in outcome.stdout.splitlines() if line.startswith("{")]
        if outcome.returncode != 0 or not lines:
            return "unclear"  # crashed (killed by the memory limit, a signal, ...)
        result = json.loads(lines[-1])
        if result["raised"] is None:
            if case.expect == "refuse":
                return "silent"
            return "handled" if result["ok"] else "silent"
        proper = {"ValueError", "TypeError"} & set(result["mro"])
        if case.expect == "valid":
            return "unclear"
        clear = proper and _has(result["message"], case.fragments, tmp) and "\n" not in (
            result["message"].strip())  # fmt: skip
        return "clear" if clear else "unclear"
    if case.runner in (_kill_sweep, _sigterm_run, _clean_stderr, _failed_parent,
                       _replaced_mid_run):  # fmt: skip
        return "handled" if outcome.valid_ok else "silent" if outcome.returncode == 0 else "unclear"
    lines = outcome.stderr.strip().splitlines()
    one_line = len(lines) == 1 and lines[0].startswith("dadp-book: error: ")
    if outcome.returncode == 0:
        if case.expect == "refuse":
            return "silent"
        return "handled" if outcome.valid_ok else "silent"
    if case.expect == "valid" or not one_line:
        return "unclear"
    if case.expect == "either" and not case.fragments:
        return "unclear"
    if not _has(lines[0], case.fragments, tmp):
        return "unclear"
    return "late" if outcome.kernel else ("unclear" if outcome.written else "clear")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("cli", "api"), default=None)
    parser.add_argument("--cases", default=None, help="comma-separated case ids")
    parser.add_argument("--prefix", default=None, help="only the cases whose id starts so (i33-)")
    parser.add_argument("--json", type=Path, default=None, help="also write the outcomes here")
    parser.add_argument("--merge", type=Path, nargs="+", default=None,
                        help="only count the outcomes of earlier --json files (later wins)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.merge:
        merged = {r["id"]: r for path in args.merge for r in json.loads(path.read_text())}
        _table({kind: Counter(r["verdict"] for r in merged.values() if r["kind"] == kind)
                for kind in ("cli", "api")})  # fmt: skip
        return 0
    cases = [c for c in [*cli_cases(), *api_cases()] if args.only in (None, c.kind)]
    if args.cases:
        wanted = set(args.cases.split(","))
        cases = [c for c in cases if c.id in wanted]
    if args.prefix:
        cases = [c for c in cases if c.id.startswith(args.prefix)]
    counts: dict[str, Counter] = {"cli": Counter(), "api": Counter()}
    records = []
    print(f"book root: {ROOT}", flush=True)
    for case in cases:
        with tempfile.TemporaryDirectory(prefix="census-") as folder:
            tmp = Path(folder)
            outcome = run_cli(case, tmp) if case.kind == "cli" else run_api(case, tmp)
            verdict = judge(case, outcome, tmp)
        counts[case.kind][verdict] += 1
        message = (outcome.stderr.strip().splitlines() or [""])[-1] if case.kind == "cli" else (
            outcome.stdout.strip().splitlines() or [""])[-1]  # fmt: skip
        if case.kind == "cli" and outcome.returncode == 0:
            message = outcome.note or "exit 0"
        print(f"{case.kind} item {case.item:>2} {case.id:<38} {verdict:<8} "
              f"{outcome.seconds:6.1f}s  {message[:150]}", flush=True)  # fmt: skip
        records.append({"id": case.id, "kind": case.kind, "item": case.item,
                        "verdict": verdict, "seconds": round(outcome.seconds, 1),
                        "message": message[:400]})  # fmt: skip
        if args.json:  # kept up to date: a long census can be stopped and resumed
            args.json.write_text(json.dumps(records, indent=1))
    _table(counts)
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 0


def _table(counts: dict[str, Counter]) -> None:
    print("\n| | " + " | ".join(CLASSES) + " | total |")
    print("|---" * (len(CLASSES) + 2) + "|")
    for kind, label in (("cli", "command"), ("api", "library")):
        row = [counts[kind][c] for c in CLASSES]
        print(f"| {label} | " + " | ".join(str(v) for v in row) + f" | {sum(row)} |")


if __name__ == "__main__":
    sys.exit(main())
