"""The one executor: kernel environment (one BLAS thread), written files, failure text."""

from __future__ import annotations

import json

import nbformat
import pytest

from dadp_lite.book.execute import KERNEL_ENVIRONMENT, execute_notebook
from dadp_lite.book.provenance import package_sources_sha256

pytestmark = pytest.mark.book

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
    injected = [c for c in executed["cells"] if "injected-parameters" in c["metadata"]["tags"]]
    assert "OMP_NUM_THREADS" in "".join(injected[0]["source"])
    assert result.environment["dadp_lite_sources_sha256"] == package_sources_sha256()
    assert list(tmp_path.iterdir()) == []  # the kernel's working folder is gone


def test_a_failure_names_the_notebook_and_cell_and_keeps_the_traceback():
    result = execute_notebook(_notebook("x = 1", "raise ValueError('boom')"), "probe", {})
    assert result.error == "notebooks/probe.md failed in cell [3] (cell index 2): ValueError: boom"
    outputs = [o for c in json.loads(result.notebook)["cells"] for o in c.get("outputs", [])]
    assert any(o.get("ename") == "ValueError" for o in outputs)
