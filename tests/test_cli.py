"""``dadp-book run | sweep | params``: outputs, refusals before execution, sweeps that survive
failures and resume (provenance and damage checks: tests/test_sweep.py; the table of
refused inputs: tests/test_bad_inputs.py).

Runs of the real chapter 01 (fast) check the run directory and the one-page HTML; sweeps use
the toy book of tests/toybook.py (one tiny chapter that writes CSVs and fails on purpose
when X == 3), so they cost a kernel start per point and no data.
"""

from __future__ import annotations

import hashlib
import json
import socket
from pathlib import Path

import pandas as pd
import pytest
import yaml
from toybook import entries, make_toy_book, write

from dadp_book.cli import main
from dadp_book.parameters import chapter_parameters
from dadp_book.spec import Spec
from dadp_book.sphinx_ext import MATHJAX_PATH
from dadp_book.stage import resolve_chapter_links

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "01-setting-and-data"


@pytest.fixture()
def toy_book(tmp_path) -> Path:
    return make_toy_book(tmp_path)


# ------------------------------------------------------------------- params
def test_params_lists_names_defaults_and_allowed_values(capsys):
    assert main(["--root", str(ROOT), "params", CHAPTER]) == 0
    out = capsys.readouterr().out
    for parameter in chapter_parameters(ROOT, CHAPTER):
        assert f"\n{parameter.name}:" in out
    assert "K_VALUES: [2, 6, 10, 20]  # list[int] in [1, 1000], distinct; values of k" in out
    assert "DATASETS: [ma2019, tx2019, national2019]  # list[dataset], distinct;" in out


def test_declarations_in_the_parameters_cell_and_the_vocabulary_give_every_type(toy_book):
    declared = {p.name: p for p in chapter_parameters(toy_book, "00-toy")}
    assert declared["X"].spec == Spec("int", low=0, high=10, low_open=False, high_open=False)
    assert declared["X"].meaning == "the toy's input" and declared["X"].origin == "declared"
    assert declared["EPSILON"].spec.describe() == "float in [0.001, 100]"
    assert declared["SEED"].origin == "vocabulary" and declared["SEED"].spec.check(0) == 0
    assert declared["LABELS"].spec == Spec("str", is_list=True)


def test_prose_links_to_chapters_resolve_by_number_or_become_text():
    text = (
        "{doc}`../notebooks/01` and {doc}`the data <../notebooks/01-setting-and-data>`, "
        "{doc}`a future chapter <../notebooks/99>`, {ref}`ch-setting-and-data`, "
        "{numref}`Figure %s <fig-setting-count-distribution>`, {doc}`../notebooks/typo`"
    )
    built, notes = resolve_chapter_links(ROOT, text, [CHAPTER])
    assert built.startswith(
        f"{{doc}}`../notebooks/{CHAPTER}` and {{doc}}`the data <../notebooks/{CHAPTER}>`, "
        "*a future chapter*, {ref}`ch-setting-and-data`"
    )
    assert built.endswith("{doc}`../notebooks/typo`")  # left for the strict build to report
    assert len(notes) == 1
    alone, notes = resolve_chapter_links(ROOT, text, [])
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
    tagged = [c for c in notebook["cells"] if {"parameters", "injected-parameters"} & set(
        c["metadata"].get("tags", []))]  # fmt: skip
    assert len(tagged) == 1  # one parameters cell, with the values used
    assert "K_VALUES = [2, 5]" in "".join(tagged[0]["source"])
    page = out / "html" / "notebooks" / f"{CHAPTER}.html"
    assert page.is_file() and (out / "html" / "index.html").is_file()
    assert f"_static/{MATHJAX_PATH}" in page.read_text()  # offline MathJax, served beside
    assert (out / "html" / "_static" / MATHJAX_PATH).is_file()
    echo = yaml.safe_load((out / "params.yaml").read_text())
    assert echo["chapter"] == CHAPTER
    assert echo["overrides"] == {"DATASETS": ["ma2019"], "K_VALUES": [2, 5]}
    assert echo["parameters"]["ATTRIBUTES"][0] == "race"
    assert "seed" in echo and echo["versions"]["numpy"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_run_default_directory_is_named_after_slug_and_parameters(toy_book, capsys):
    assert main(["--root", str(toy_book), "run", "00", "-p", "X", "2", "--no-html"]) == 0
    runs = entries(toy_book / "runs")
    assert len(runs) == 1 and runs[0].startswith("00-toy-")
    run = toy_book / "runs" / runs[0]
    assert {"00-toy.ipynb", "00-toy-values.csv", "00-toy-squares.csv", "params.yaml"} <= set(
        entries(run)
    )
    assert pd.read_csv(run / "00-toy-squares.csv")["x_squared"].tolist() == [4]
    echo = yaml.safe_load((run / "params.yaml").read_text())
    assert echo["seed"] == 0 and echo["parameters"]["X"] == 2


def test_run_takes_values_from_a_yaml_file_and_p_overrides_it(toy_book, tmp_path):
    values = write(tmp_path / "values.yaml", "X: 4\nLABELS: [a, b]\n")
    out = tmp_path / "run"
    args = ["--root", str(toy_book), "run", "00-toy", "-y", str(values), "-p", "X", "5"]
    assert main([*args, "--out", str(out), "--no-html"]) == 0
    frame = pd.read_csv(out / "00-toy-values.csv")
    assert frame["label"].tolist() == ["a", "b"] and frame["value"].tolist() == [5.0, 5.0]


def test_run_records_a_dataset_file_with_its_sha256_and_rows(toy_book, tmp_path, monkeypatch):
    rows = "RAC1P,SEX,OWN_RENT,AGEP,PINCP\n1,1,1,30,60000\n2,2,0,9,N\n"
    data = write(tmp_path / "mine.csv", rows)
    monkeypatch.chdir(tmp_path)  # a relative path reaches the kernel as an absolute one
    out = tmp_path / "run"
    args = ["--root", str(toy_book), "run", "00", "-p", "DATASET", "mine.csv", "--no-html"]
    assert main([*args, "--out", str(out)]) == 0
    echo = yaml.safe_load((out / "params.yaml").read_text())
    assert echo["parameters"]["DATASET"] == str(data.resolve())
    assert echo["datasets"]["DATASET"] == {
        "name": "mine",
        "path": str(data.resolve()),
        "sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
        "bytes": data.stat().st_size,
        "rows": 2,
    }
    assert (
        echo["chapter_sha256"]
        == hashlib.sha256((toy_book / "notebooks" / "00-toy.md").read_bytes()).hexdigest()
    )


# -------------------------------------------------- refusals before running
def test_a_chapter_that_fails_leaves_nothing_behind(toy_book, tmp_path, capsys):
    out = tmp_path / "runs" / "failing"
    assert main(["--root", str(toy_book), "run", "00", "-p", "X", "3", "--out", str(out)]) == 1
    assert "X == 3 fails on purpose" in capsys.readouterr().err
    assert entries(tmp_path / "runs") == []


def test_run_refuses_to_overwrite_a_folder_it_did_notwrite(toy_book, tmp_path, capsys):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert main(["--root", str(toy_book), "run", "00", "--out", str(out), "--no-html"]) == 1
    assert "not a dadp-book output" in capsys.readouterr().err
    assert entries(out) == ["notes.txt"]


# -------------------------------------------------------------------- sweep
@pytest.mark.book
def test_sweep_collects_tagged_csvs_reports_failures_and_resumes(toy_book, tmp_path, capsys):
    grid = write(tmp_path / "grid.yaml", "X: [1, 2, 3]\nEPSILON: [0.5]\nLABELS: [a]\n")
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
    assert len(done) == 2 and all((out / "points" / d / "point.json").is_file() for d in done)

    assert main([*args, "--no-progress"]) == 3  # rerun: done points reused, failure retried
    assert "2 already done and verified" in capsys.readouterr().out
    assert pd.read_csv(out / "points.csv")["status"].tolist() == ["reused", "reused", "failed"]
    assert len(pd.read_csv(out / "results.csv")) == len(results)


@pytest.mark.book
def test_sweep_runs_on_a_dask_local_cluster(toy_book, tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    grid = write(tmp_path / "grid.yaml", "X: [4, 5]\n")
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
    grid = write(tmp_path / "grid.yaml", "X: [1]\n")
    out = tmp_path / "sweep"
    args = ["--root", str(toy_book), "sweep", "00", "--grid", str(grid), "--out", str(out)]
    assert main([*args, "--dask", f"tcp://127.0.0.1:{port}", "--dask-timeout", "2"]) == 1
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err
    assert not out.exists()
