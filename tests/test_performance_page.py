"""The scale benchmark and the performance page that reads its CSV."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bench_scale():
    spec = importlib.util.spec_from_file_location("bench_scale", ROOT / "benchmarks/bench_scale.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def small_scale_csv(tmp_path_factory) -> Path:
    """A real benchmark run on tiny sizes (seconds, not a measurement worth keeping)."""
    out = tmp_path_factory.mktemp("scale") / "scale.csv"
    _bench_scale().main(["--sizes", "3000", "1000", "--reps", "2", "--out", str(out)])
    return out


def test_benchmark_writes_one_row_per_size_and_measurement(small_scale_csv):
    from dadp_lite.registry import REGISTRY

    frame = pd.read_csv(small_scale_csv)
    assert sorted(frame["size"].unique()) == [1000, 3000]
    expected = {"histogram", *REGISTRY}
    for _, rows in frame.groupby("size"):
        assert set(rows["measurement"]) == expected
    assert (frame["status"] == "measured").all()
    assert (frame["seconds"] > 0).all()
    assert (frame["peak_rss_mib"] >= frame["rss_before_mib"]).all()
    assert {"cores", "cpu", "python", "numpy", "date"} <= set(frame.columns)


def test_skip_over_projects_linearly_instead_of_running():
    bench = _bench_scale()
    assert bench._projection(None, 100) is None
    assert bench._projection((1000, 2.0), 10_000) == pytest.approx(20.0)


def test_committed_results_name_registered_mechanisms_at_four_sizes():
    from dadp_lite.registry import REGISTRY

    frame = pd.read_csv(ROOT / "benchmarks/results/scale.csv")
    assert "histogram" in set(frame["measurement"])
    assert set(frame["measurement"]) <= {"histogram", *REGISTRY}
    assert sorted(frame["size"].unique()) == [10_000, 100_000, 1_000_000, 10_000_000]


@pytest.mark.book
def test_performance_page_executes_and_glues_slopes(small_scale_csv, tmp_path):
    import jupytext
    import nbformat

    from dadp_book.execute import execute_notebook
    from dadp_lite.registry import REGISTRY

    # The book's executor (inline matplotlib backend even under an inherited MPLBACKEND=Agg,
    # one BLAS thread): the page is tested the way the build runs it.
    notebook = nbformat.writes(jupytext.read(ROOT / "book/performance.md"))
    run = execute_notebook(notebook, "performance", {"SCALE_CSV": str(small_scale_csv)}, tmp_path)
    assert run.error is None, run.error
    cells = json.loads(run.notebook)["cells"]
    glued = {}
    for cell in cells:
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {}).get("scrapbook")
            if meta:
                glued[meta["name"]] = out["data"]["application/papermill.record/text/plain"]
    for name in ("histogram", *REGISTRY):
        assert f"slope_{name}" in glued
    for key in ("build", "reps", "memory"):
        assert glued[f"target_{key}_met"] in ("'met'", "'missed'")
    assert glued["scale_largest"] == "3000"
    figures = [o for c in cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(figures) == 1
