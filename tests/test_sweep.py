"""Sweeps that cannot go stale: provenance, damage, byte-identical results, temp folders.

Toy sweeps (tests/toybook.py) cost one kernel start per point; the last test runs a small
grid of a real chapter (09, whose bootstrap columns come from matrix products) once in
local processes and once on a Dask LocalCluster of two workers and compares the two
``results.csv`` byte for byte.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import psutil
import pytest
import yaml
from toybook import entries, make_toy_book, write

from dadp_book.cli import main
from dadp_book.outputs import temp_prefix
from dadp_book.provenance import package_sources_sha256

pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[1]


def _sweep(root: Path, grid: Path, out: Path, jobs: int = 2) -> list[str]:
    return ["--root", str(root), "sweep", "00", "--grid", str(grid), "--out", str(out),
            "--jobs", str(jobs), "--no-progress"]  # fmt: skip


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A toy book and a finished 2-point sweep of it (run once; tests work on copies)."""
    base = tmp_path_factory.mktemp("finished")
    root = make_toy_book(base)
    grid = write(base / "grid.yaml", "X: [1, 2]\nLABELS: [[a, b]]\n")
    assert main(_sweep(root, grid, base / "sweep")) == 0
    return base


@pytest.fixture()
def toy(finished, tmp_path, capsys):
    """A copy of the finished sweep: toy book root, sweep folder, the sweep command."""
    shutil.copytree(finished, tmp_path / "case")
    base = tmp_path / "case"
    capsys.readouterr()
    return base / "toy", base / "sweep", _sweep(base / "toy", base / "grid.yaml", base / "sweep")


def _points(out: Path) -> list[Path]:
    return sorted(p for p in (out / "points").iterdir() if not p.name.startswith("."))


def test_results_say_where_each_row_came_from_and_are_byte_identical_on_rerun(
    toy, tmp_path, capsys
):
    root, out, args = toy
    grid = yaml.safe_load((out / "grid.yaml").read_text())
    results = pd.read_csv(out / "results.csv")
    assert list(results.columns[:4]) == ["point", "provenance", "csv", "X"]
    assert set(results["provenance"]) == {grid["provenance_id"]}
    assert sorted(set(results["point"])) == [p.name for p in _points(out)]
    provenance = grid["provenance"]
    assert provenance["dadp_lite_sources_sha256"] == package_sources_sha256()
    assert provenance["versions"]["numpy"] and provenance["profile"] is None
    record = json.loads((_points(out)[0] / "point.json").read_text())
    assert record["record"]["datasets"]["DATASET"]["name"] == "ma2019"
    assert set(record["files"]) == {"00-toy.ipynb", "00-toy-values.csv", "00-toy-squares.csv"}
    other = tmp_path / "again"
    assert main(_sweep(root, out.parent / "grid.yaml", other, jobs=1)) == 0
    assert (other / "results.csv").read_bytes() == (out / "results.csv").read_bytes()
    before = (out / "results.csv").read_bytes()
    assert main(args) == 0  # every point reused: the same bytes again
    assert (out / "results.csv").read_bytes() == before
    assert "seconds" in pd.read_csv(out / "points.csv").columns


def test_a_changed_chapter_makes_every_point_stale_and_recomputed(toy, capsys):
    root, out, args = toy
    chapter = root / "notebooks" / "00-toy.md"
    chapter.write_text(chapter.read_text().replace('"value": X', '"extra": 1, "value": X'))
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "0 already done and verified, 2 stale" in printed
    assert printed.count("stale (chapter source changed): recomputing") == 2
    values = pd.read_csv(out / "results.csv").query("csv == '00-toy-values.csv'")
    assert values["extra"].tolist() == [1, 1, 1, 1]  # no row of the old chapter is left
    statuses = pd.read_csv(out / "points.csv")
    assert statuses["reason"].tolist() == ["stale: chapter source changed"] * 2


def test_damaged_points_are_recomputed_and_results_are_whole_again(toy, capsys):
    root, out, args = toy
    original = (out / "results.csv").read_bytes()
    first, second = _points(out)
    csv = first / "00-toy-values.csv"
    csv.write_bytes(csv.read_bytes()[:-3])  # cut short
    (second / "00-toy-squares.csv").unlink()
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "00-toy-values.csv does not match its recorded SHA-256" in printed
    assert "damaged (00-toy-squares.csv is missing)" in printed
    assert (out / "results.csv").read_bytes() == original
    (first / "notes.txt").write_text("added by hand")
    assert main(args) == 0
    assert "damaged (unexpected file notes.txt)" in capsys.readouterr().out
    assert (out / "results.csv").read_bytes() == original


def test_verified_points_are_reused_and_an_old_marker_counts_as_stale(toy, capsys):
    root, out, args = toy
    first = _points(out)[0]
    (first / "point.json").rename(first / "done.json")
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "1 already done and verified, 1 stale" in printed
    assert "without a provenance record" in printed
    assert sorted(pd.read_csv(out / "points.csv")["status"]) == ["done", "reused"]


def test_stale_temporary_folders_are_removed_at_the_next_start(toy, tmp_path):
    root, out, args = toy
    dead = max(psutil.pids()) + 1000
    for folder in (out, out / "points"):
        (folder / f"{temp_prefix('scratch', dead)}abc").mkdir()
        (folder / f"{temp_prefix('scratch')}live").mkdir()  # its owner (this process) lives
    assert main(args) == 0
    for folder in (out, out / "points"):
        assert [e for e in entries(folder) if e.startswith(".tmp")] == [
            f"{temp_prefix('scratch')}live"
        ]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("command", ["sweep", "run"])
def test_a_terminated_run_or_sweep_leaves_no_temporary_folder(tmp_path, command):
    root = make_toy_book(tmp_path)
    grid = write(tmp_path / "grid.yaml", "X: [7, 1]\n")  # X == 7: the chapter sends SIGTERM
    out = tmp_path / "results" / "out"
    args = ["--root", str(root), command, "00", "--out", str(out)]
    args += ["--grid", str(grid), "--jobs", "2", "--no-progress"] if command == "sweep" else []
    args += ["-p", "X", "7", "--no-html"] if command == "run" else []
    completed = subprocess.run(
        [sys.executable, "-m", "dadp_book.cli", *args], capture_output=True, text=True
    )
    assert completed.returncode == 130, completed.stderr
    assert completed.stderr.strip().splitlines() == [
        "dadp-book: interrupted; temporary folders removed"
    ], completed.stderr  # one line, no traceback beside it (issue 26, item 11)
    leftovers = [p for p in (tmp_path / "results").rglob(".tmp-*")]
    assert leftovers == []


GRID_09 = """\
N_BOOT: [5, 8]
REPS: 5
EPSILONS: [[1.0]]
K_VALUES: [[2, 6]]
THEOREM_REPS: 20
THEOREM_K_VALUES: [[2]]
DATASETS: [[ma2019]]
"""


def test_a_sweep_on_a_dask_local_cluster_equals_the_local_sweep_byte_for_byte(tmp_path):
    pytest.importorskip("dask.distributed")
    grid = write(tmp_path / "grid.yaml", GRID_09)  # k-anonymity bias with bootstrap columns
    base = ["--root", str(ROOT), "sweep", "09", "--grid", str(grid), "--no-progress"]
    assert main([*base, "--out", str(tmp_path / "local"), "--jobs", "2"]) == 0
    assert main([*base, "--out", str(tmp_path / "dask"), "--dask", "--jobs", "2"]) == 0
    local = (tmp_path / "local" / "results.csv").read_bytes()
    assert local == (tmp_path / "dask" / "results.csv").read_bytes()
    table = pd.read_csv(tmp_path / "local" / "results.csv")
    assert table["point"].nunique() == 2 and "bias_l1_se" in table.columns
