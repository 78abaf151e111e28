"""The one executor: kernel environment (one BLAS thread), written files, failure text, one
parameters cell with the values used, and the files a kernel read."""

from __future__ import annotations

import json

import nbformat
import pytest

from dadp_book.execute import (
    KERNEL_ENVIRONMENT,
    execute_notebook,
    show_parameters,
    show_used_parameters,
)
from dadp_book.provenance import file_sha256, package_sources_sha256

PROBE = """\
import json, os, pathlib
import numpy as np
from threadpoolctl import threadpool_info
np.ones((64, 64)) @ np.ones((64, 64))  # BLAS loaded and used
names = [*KEYS, "MPLBACKEND", "TQDM_DISABLE"]
report = {"env": {k: os.environ.get(k) for k in names},
          "pools": [p["num_threads"] for p in threadpool_info()]}
pathlib.Path("report.json").write_text(json.dumps(report))
pathlib.Path("sub").mkdir()
pathlib.Path("sub/inner.csv").write_text("a\\n1\\n")
pathlib.Path(".hidden").write_text("not reported")
"""


def _notebook(*sources: str, parameters: str = "KEYS = []") -> str:
    cells = [nbformat.v4.new_code_cell(parameters, metadata={"tags": ["parameters"]})]
    cells += [nbformat.v4.new_code_cell(source) for source in sources]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nbformat.writes(notebook)


@pytest.mark.book
def test_kernels_get_one_blas_thread_and_inline_figures_whatever_the_parent_has(
    tmp_path, monkeypatch
):
    threads = [k for k in KERNEL_ENVIRONMENT if k.endswith("_THREADS")]
    for key in threads:
        monkeypatch.setenv(key, "4")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    result = execute_notebook(_notebook(PROBE), "probe", {"KEYS": threads}, scratch=tmp_path)
    assert result.error is None, result.error
    report = json.loads(result.files["report.json"])
    assert report["env"] == KERNEL_ENVIRONMENT
    assert report["pools"] and set(report["pools"]) == {1}
    assert sorted(result.files) == ["report.json", "sub/inner.csv"]
    executed = json.loads(result.notebook)
    tagged = [c for c in executed["cells"] if c["metadata"].get("tags")]
    assert [c["metadata"]["tags"] for c in tagged] == [["parameters"]]  # one parameters cell
    assert "".join(tagged[0]["source"]).startswith('KEYS = ["OMP_NUM_THREADS"')
    assert [c["execution_count"] for c in executed["cells"]] == [1, 2]
    assert "input_path" not in executed["metadata"]["papermill"]  # no temporary path
    assert result.environment["dadp_lite_sources_sha256"] == package_sources_sha256()
    assert list(tmp_path.iterdir()) == []  # the kernel's working folder is gone


@pytest.mark.book
def test_a_failure_names_the_notebook_and_cell_and_keeps_the_traceback():
    result = execute_notebook(_notebook("x = 1", "raise ValueError('boom')"), "probe", {})
    assert result.error == "notebooks/probe.md failed in cell [3] (cell index 2): ValueError: boom"
    outputs = [o for c in json.loads(result.notebook)["cells"] for o in c.get("outputs", [])]
    assert any(o.get("ename") == "ValueError" for o in outputs)


@pytest.mark.book
def test_the_files_a_kernel_reads_are_reported_with_their_hashes_and_writes_are_not(tmp_path):
    data = tmp_path / "input.csv"
    data.write_text("a\n1\n")
    code = (
        f"import pandas as pd, pathlib\n"
        f"pd.read_csv({str(data)!r})\n"
        f"pathlib.Path({str(tmp_path / 'elsewhere.txt')!r}).write_text('w')\n"
        "pathlib.Path('mine.csv').write_text('b')\n"
        "pathlib.Path('mine.csv').read_text()\n"
    )
    result = execute_notebook(_notebook(code), "probe", {}, scratch=tmp_path / "scratch")
    assert result.error is None, result.error
    assert result.reads == {str(data): file_sha256(data)}  # not the written ones, no library
    assert sorted(result.files) == ["mine.csv"]


PARAMETERS = """\
REPS = 2000  # int in [2, 100000]; repetitions
EPSILONS = [
    0.5,
    1.0,
]  # list[float] in (0, inf)
DATASET = "ma2019"
TRIALS = 100_000"""


def test_the_parameters_cell_shows_new_values_in_place_with_their_comments():
    shown = show_parameters(PARAMETERS, {"REPS": "10000", "EPSILONS": "[2.0]", "SEED": "3"})
    assert shown.splitlines() == [
        "REPS = 10000  # int in [2, 100000]; repetitions",
        "EPSILONS = [2.0]  # list[float] in (0, inf)",
        'DATASET = "ma2019"',
        "TRIALS = 100_000",
        "SEED = 3",  # a value the cell does not assign is added
    ]
    assert show_parameters("A = 1; B = 2", {"A": "5"}) == "A = 1; B = 2\nA = 5"  # last wins


def _executed(parameters: dict, source: str = PARAMETERS) -> nbformat.NotebookNode:
    """What papermill returns: the parameters cell, the injected cell after it, one more."""
    cells = [
        nbformat.v4.new_code_cell(source, metadata={"tags": ["parameters"]}, execution_count=1),
        nbformat.v4.new_code_cell(
            "# Parameters\n" + "\n".join(f"{k} = {v!r}" for k, v in parameters.items()),
            metadata={"tags": ["injected-parameters"]},
            execution_count=2,
        ),
        nbformat.v4.new_code_cell(
            "REPS",
            execution_count=3,
            outputs=[
                nbformat.v4.new_output("execute_result", {"text/plain": "1"}, execution_count=3)
            ],
        ),
    ]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["papermill"] = {
        "parameters": parameters,
        "input_path": "/tmp/x/.source.ipynb",
    }
    return notebook


def test_one_parameters_cell_shows_the_values_used_and_the_injected_cell_goes():
    notebook = show_used_parameters(
        _executed({"REPS": 10000, "DATASET": "ma2019", "EPSILONS": [0.5, 1.0]})
    )
    assert [c.source.splitlines()[0] for c in notebook.cells] == [
        "REPS = 10000  # int in [2, 100000]; repetitions",
        "REPS",
    ]
    assert "EPSILONS = [\n    0.5," in notebook.cells[0].source  # unchanged values keep their text
    assert [c.execution_count for c in notebook.cells] == [1, 2]
    assert notebook.cells[1].outputs[0]["execution_count"] == 2
    assert [c["id"] for c in notebook.cells] == ["cell-0", "cell-1"]
    assert "input_path" not in notebook.metadata["papermill"]


def test_a_value_can_be_shown_as_a_reader_names_it_instead_of_the_build_path():
    source = 'BOOK_ROOT = "."  # the book\'s folder'
    notebook = show_used_parameters(
        _executed({"BOOK_ROOT": "/work/build/root"}, source), {"BOOK_ROOT": "."}
    )
    assert notebook.cells[0].source == source
    assert notebook.metadata["papermill"]["parameters"] == {"BOOK_ROOT": "."}
    assert "/work/build/root" not in nbformat.writes(notebook)
