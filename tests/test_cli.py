"""``dadp-book run | sweep | params``: outputs, refusals before execution, sweeps that survive
failures and resume.

Runs of the real chapter 01 (fast) check the run directory and the one-page HTML; sweeps use
a toy book made here (one tiny chapter that writes a CSV and fails on purpose when X == 3),
so they cost a kernel start per point and no data.
"""

from __future__ import annotations

import json
import socket
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dadp_lite import pipeline
from dadp_lite.cli import main

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "01-setting-and-data"

TOY_CHAPTER = textwrap.dedent(
    """\
    ---
    jupytext:
      text_representation:
        extension: .md
        format_name: myst
        format_version: 0.13
    kernelspec:
      display_name: Python 3
      language: python
      name: python3
    ---

    # Toy chapter

    ```{code-cell} ipython3
    import pandas as pd
    ```

    ```{code-cell} ipython3
    :tags: [parameters]

    X = 1  # range: [0, 10] integer
    EPSILON = 1.0
    SEED = 0
    LABELS = ["a"]
    ```

    ```{code-cell} ipython3
    assert X != 3, "X == 3 fails on purpose"
    rows = [{"label": label, "value": X * EPSILON + SEED} for label in LABELS]
    pd.DataFrame(rows).to_csv("00-toy-values.csv", index=False)
    pd.DataFrame([{"x_squared": X * X}]).to_csv("00-toy-squares.csv", index=False)
    ```
    """
)


@pytest.fixture()
def toy_book(tmp_path) -> Path:
    root = tmp_path / "toy"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "00-toy.md").write_text(TOY_CHAPTER)
    (root / "_config.yml").write_text("title: toy\n")
    toc = {"format": "jb-book", "root": "intro", "chapters": [{"file": "notebooks/00-toy"}]}
    (root / "_toc.yml").write_text(yaml.safe_dump(toc))
    return root


def _write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def _entries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


# ------------------------------------------------------------------- params
def test_params_lists_names_defaults_and_allowed_values(capsys):
    assert main(["--root", str(ROOT), "params", CHAPTER]) == 0
    out = capsys.readouterr().out
    for parameter in pipeline.chapter_parameters(ROOT, CHAPTER):
        assert f"{parameter.name}:" in out
    assert "K_VALUES: [2, 6, 10, 20]  # each integer in [1, inf)" in out
    assert "ma2019" in out


def test_range_comment_in_the_parameters_cell_overrides_conventions(toy_book):
    declared = {p.name: p.allowed for p in pipeline.chapter_parameters(toy_book, "00-toy")}
    assert declared["X"] == pipeline.ValueRange(low=0, high=10, integer=True)
    assert declared["EPSILON"].violation(0) is not None
    assert declared["SEED"].violation(0) is None
    assert declared["LABELS"] is None


def test_prose_links_to_chapters_resolve_by_number_or_become_text():
    text = (
        "{doc}`../notebooks/01` and {doc}`the data <../notebooks/01-setting-and-data>`, "
        "{doc}`a future chapter <../notebooks/99>`, {ref}`ch-setting-and-data`, "
        "{numref}`Figure %s <fig-setting-count-distribution>`, {doc}`../notebooks/typo`"
    )
    built, notes = pipeline.resolve_chapter_links(ROOT, text, [CHAPTER])
    assert built.startswith(
        f"{{doc}}`../notebooks/{CHAPTER}` and {{doc}}`the data <../notebooks/{CHAPTER}>`, "
        "*a future chapter*, {ref}`ch-setting-and-data`"
    )
    assert built.endswith("{doc}`../notebooks/typo`")  # left for the strict build to report
    assert len(notes) == 1
    alone, notes = pipeline.resolve_chapter_links(ROOT, text, [])
    assert "{doc}" not in alone.replace("{doc}`../notebooks/typo`", "")
    assert "{ref}" not in alone and "{numref}" not in alone
    assert "*Setting and data: histograms, bias and fairness*" in alone
    assert len(notes) == 5


# ---------------------------------------------------------------------- run
@pytest.mark.book
def test_run_writes_notebook_html_and_params_echo(tmp_path, capsys):
    out = tmp_path / "my-run"
    code = main(
        [
            "--root",
            str(ROOT),
            "run",
            "01",
            "-p",
            "DATASETS",
            "ma2019",
            "-p",
            "K_VALUES",
            "[2, 5]",
            "--out",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert (out / f"{CHAPTER}.ipynb").is_file()
    notebook = json.loads((out / f"{CHAPTER}.ipynb").read_text())
    injected = [
        c for c in notebook["cells"] if "injected-parameters" in c["metadata"].get("tags", [])
    ]
    assert "K_VALUES = [2, 5]" in "".join(injected[0]["source"])
    page = out / "html" / "notebooks" / f"{CHAPTER}.html"
    assert page.is_file() and (out / "html" / "index.html").is_file()
    assert "_static/mathjax/tex-chtml.js" in page.read_text()
    assert (out / "html" / "_static" / "mathjax" / "tex-chtml.js").is_file()
    echo = yaml.safe_load((out / "params.yaml").read_text())
    assert echo["chapter"] == CHAPTER
    assert echo["overrides"] == {"DATASETS": ["ma2019"], "K_VALUES": [2, 5]}
    assert echo["parameters"]["ATTRIBUTES"][0] == "race"
    assert "seed" in echo and echo["versions"]["numpy"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_run_default_directory_is_named_after_slug_and_parameters(toy_book, capsys):
    assert main(["--root", str(toy_book), "run", "00", "-p", "X", "2", "--no-html"]) == 0
    runs = _entries(toy_book / "runs")
    assert len(runs) == 1 and runs[0].startswith("00-toy-")
    run = toy_book / "runs" / runs[0]
    assert {"00-toy.ipynb", "00-toy-values.csv", "00-toy-squares.csv", "params.yaml"} <= set(
        _entries(run)
    )
    assert pd.read_csv(run / "00-toy-squares.csv")["x_squared"].tolist() == [4]
    echo = yaml.safe_load((run / "params.yaml").read_text())
    assert echo["seed"] == 0 and echo["parameters"]["X"] == 2


def test_run_takes_values_from_a_yaml_file_and_p_overrides_it(toy_book, tmp_path):
    values = _write(tmp_path / "values.yaml", "X: 4\nLABELS: [a, b]\n")
    out = tmp_path / "run"
    args = ["--root", str(toy_book), "run", "00-toy", "-y", str(values), "-p", "X", "5"]
    assert main([*args, "--out", str(out), "--no-html"]) == 0
    frame = pd.read_csv(out / "00-toy-values.csv")
    assert frame["label"].tolist() == ["a", "b"] and frame["value"].tolist() == [5.0, 5.0]


# -------------------------------------------------- refusals before running
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "99-no-such-chapter"], "unknown chapter"),
        (["run", CHAPTER, "-p", "NO_SUCH", "1"], "has no parameter 'NO_SUCH'"),
        (["run", CHAPTER, "-p", "K_VALUES", "[two]"], "must look like its default"),
        (["run", CHAPTER, "-p", "K_VALUES", "[0, 2]"], "out of range"),
        (["run", CHAPTER, "-p", "DATASETS", "mars2019"], "out of range"),
        (["run", CHAPTER, "-p", "K_VALUES", "[2, 3"], "not valid YAML"),
        (["params", "nope"], "unknown chapter"),
    ],
)
def test_bad_input_is_refused_with_the_parameters_listed(tmp_path, capsys, args, message):
    out = tmp_path / "out"
    if args[0] == "run":
        args = [*args, "--out", str(out)]
    assert main(["--root", str(ROOT), *args]) == 1
    err = capsys.readouterr().err
    assert message in err
    if "parameter" in message or "range" in message or "default" in message:
        assert "DATASETS=[" in err and "K_VALUES=[2, 6, 10, 20]" in err
    assert _entries(tmp_path) == []


def test_out_of_range_values_by_convention_and_by_comment_are_refused(toy_book, capsys):
    for name, value in [("EPSILON", "0"), ("SEED", "-1"), ("X", "11"), ("X", "2.5")]:
        assert main(["--root", str(toy_book), "run", "00", "-p", name, value]) == 1
        assert name in capsys.readouterr().err
    assert _entries(toy_book / "runs") == []


def test_bad_yaml_file_and_non_mapping_are_refused(toy_book, tmp_path, capsys):
    broken = _write(tmp_path / "broken.yaml", "X: [1, 2\n")
    listing = _write(tmp_path / "list.yaml", "- 1\n- 2\n")
    for path, message in [(broken, "not valid YAML"), (listing, "must map")]:
        assert main(["--root", str(toy_book), "run", "00", "-y", str(path)]) == 1
        assert message in capsys.readouterr().err
    assert _entries(toy_book / "runs") == []


def test_a_chapter_that_fails_leaves_nothing_behind(toy_book, tmp_path, capsys):
    out = tmp_path / "runs" / "failing"
    assert main(["--root", str(toy_book), "run", "00", "-p", "X", "3", "--out", str(out)]) == 1
    assert "X == 3 fails on purpose" in capsys.readouterr().err
    assert _entries(tmp_path / "runs") == []


def test_run_refuses_to_overwrite_a_folder_it_did_not_write(toy_book, tmp_path, capsys):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert main(["--root", str(toy_book), "run", "00", "--out", str(out), "--no-html"]) == 1
    assert "not a dadp-book output" in capsys.readouterr().err
    assert _entries(out) == ["notes.txt"]


# -------------------------------------------------------------------- sweep
@pytest.mark.parametrize(
    "grid", ["{}\n", "X: []\n", "X: [1, 2\n", "- 1\n", "NOPE: [1]\n", "X: [1, 20]\n"]
)
def test_bad_grids_are_refused_before_anything_runs(toy_book, tmp_path, capsys, grid):
    path = _write(tmp_path / "grid.yaml", grid)
    out = tmp_path / "sweep"
    assert main(["--root", str(toy_book), "sweep", "00", "--grid", str(path), "--out", str(out)])
    err = capsys.readouterr().err
    assert any(
        m in err for m in ("no points", "not valid YAML", "has no parameter", "out of range")
    ), err
    assert not out.exists()


@pytest.mark.book
def test_sweep_collects_tagged_csvs_reports_failures_and_resumes(toy_book, tmp_path, capsys):
    grid = _write(tmp_path / "grid.yaml", "X: [1, 2, 3]\nEPSILON: [0.5]\nLABELS: [a]\n")
    out = tmp_path / "sweep"
    args = ["--root", str(toy_book), "sweep", "00", "--grid", str(grid), "--out", str(out)]
    assert main([*args, "--jobs", "2", "--no-progress"]) == 3  # one point fails
    captured = capsys.readouterr()
    assert "FAILED" in captured.out + captured.err and "X == 3" in captured.out + captured.err
    results = pd.read_csv(out / "results.csv")
    assert {"point", "csv", "X", "EPSILON", "LABELS", "label", "value", "x_squared"} <= set(
        results.columns
    )
    values = results[results["csv"] == "00-toy-values.csv"].sort_values("X")
    assert values["X"].tolist() == [1, 2] and values["value"].tolist() == [0.5, 1.0]
    assert values["LABELS"].tolist() == ["a", "a"]
    points = pd.read_csv(out / "points.csv")
    assert points["status"].tolist() == ["done", "done", "failed"]
    failed = yaml.safe_load((out / "failed.yaml").read_text())
    assert failed[0]["parameters"]["X"] == 3
    done = sorted(p.name for p in (out / "points").iterdir())
    assert len(done) == 2 and all((out / "points" / d / "done.json").is_file() for d in done)

    assert main([*args, "--no-progress"]) == 3  # rerun: done points skipped, failure retried
    assert "2 already done" in capsys.readouterr().out
    assert pd.read_csv(out / "points.csv")["status"].tolist() == ["skipped", "skipped", "failed"]
    assert len(pd.read_csv(out / "results.csv")) == len(results)


@pytest.mark.book
def test_sweep_runs_on_a_dask_local_cluster(toy_book, tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    grid = _write(tmp_path / "grid.yaml", "X: [4, 5]\n")
    out = tmp_path / "sweep"
    args = ["--root", str(toy_book), "sweep", "00", "--grid", str(grid), "--out", str(out)]
    assert main([*args, "--dask", "--jobs", "2", "--no-progress"]) == 0
    assert "Dask scheduler" in capsys.readouterr().out
    squares = pd.read_csv(out / "results.csv").dropna(subset=["x_squared"])
    assert sorted(squares["x_squared"].tolist()) == [16, 25]


def test_unreachable_dask_scheduler_is_an_error_and_writes_nothing(toy_book, tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    with socket.socket() as probe:  # a free port with nothing listening on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    grid = _write(tmp_path / "grid.yaml", "X: [1]\n")
    out = tmp_path / "sweep"
    args = ["--root", str(toy_book), "sweep", "00", "--grid", str(grid), "--out", str(out)]
    assert main([*args, "--dask", f"tcp://127.0.0.1:{port}", "--dask-timeout", "2"]) == 1
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err
    assert not out.exists()
