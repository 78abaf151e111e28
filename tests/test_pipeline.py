"""The book machinery: chapter discovery, build execution, failure reporting, links, glue."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dadp_book import build, discovery, execute, glue, parameters, runners, stage
from dadp_book.cli import main
from dadp_book.errors import BuildError

ROOT = Path(__file__).resolve().parents[1]

CHAPTER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A tiny chapter

```{{code-cell}} ipython3
:tags: [parameters]

REPS = 3  # int in [1, 10]
NAMES = ["a", "b"]  # list[str]
```

```{{code-cell}} ipython3
total = REPS * len(NAMES)
```

```{{code-cell}} ipython3
assert total < {limit}, f"total {{total}} too large"
```

```{{code-cell}} ipython3
from myst_nb import glue
glue("total", total, display=False)
glue("names", NAMES, display=False)
```
"""


def make_book(tmp_path: Path, limit: int) -> Path:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "profiles").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "_config.yml").write_text("title: t\n")
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n  - file: notebooks/99-tiny\n"
    )
    (tmp_path / "notebooks" / "99-tiny.md").write_text(CHAPTER.format(limit=limit))
    (tmp_path / "profiles" / "quick.yml").write_text("chapters:\n  99-tiny:\n    REPS: 4\n")
    return tmp_path


def test_chapters_are_listed_in_toc_order():
    chapters = discovery.list_chapters(ROOT)
    assert chapters[0] == "01-setting-and-data"
    assert all((ROOT / "notebooks" / f"{slug}.md").is_file() for slug in chapters)


def test_chapter_parameters_are_read_from_the_parameters_cell(tmp_path):
    root = make_book(tmp_path, limit=100)
    params = {p.name: p.default for p in parameters.chapter_parameters(root, "99-tiny")}
    assert params == {"REPS": 3, "NAMES": ["a", "b"]}


def test_chapter_names_resolve_by_prefix_and_unknown_ones_are_listed():
    assert discovery.resolve_chapter(ROOT, "01") == "01-setting-and-data"
    with pytest.raises(BuildError, match="01-setting-and-data"):
        discovery.resolve_chapter(ROOT, "no-such-chapter")


def test_unknown_parameter_is_refused_with_the_list_of_parameters(tmp_path):
    root = make_book(tmp_path, limit=100)
    with pytest.raises(BuildError, match="its parameters are REPS, NAMES"):
        parameters.validate_parameters(root, "99-tiny", {"EPSILON": 1.0})


def test_wrongly_typed_parameter_is_refused(tmp_path):
    root = make_book(tmp_path, limit=100)
    with pytest.raises(BuildError, match="REPS"):
        parameters.validate_parameters(root, "99-tiny", {"REPS": "many"})
    with pytest.raises(BuildError, match="NAMES"):
        parameters.validate_parameters(root, "99-tiny", {"NAMES": [1, 2]})


def test_unknown_profile_is_refused(tmp_path):
    root = make_book(tmp_path, limit=100)
    with pytest.raises(BuildError, match="profile"):
        parameters.load_profile(root, "fast")


def test_profile_parameters_reach_the_notebook(tmp_path):
    root = make_book(tmp_path, limit=100)
    [result] = build.execute_chapters(root, ["99-tiny"], "quick", tmp_path / "out", jobs=1)
    assert result.error is None
    assert result.parameters == {"REPS": 4}
    assert "REPS = 4" in result.output.read_text()


def test_a_failing_cell_names_the_notebook_and_the_cell(tmp_path):
    root = make_book(tmp_path, limit=5)
    [result] = build.execute_chapters(root, ["99-tiny"], "quick", tmp_path / "out", jobs=1)
    assert result.error is not None
    assert "notebooks/99-tiny.md" in result.error
    assert "cell" in result.error and "AssertionError" in result.error
    assert "total 8 too large" in result.error


def test_build_raises_when_a_chapter_fails_and_nothing_is_written_beside_sources(tmp_path):
    root = make_book(tmp_path, limit=5)
    before = sorted(p.name for p in (root / "notebooks").iterdir())
    with pytest.raises(BuildError, match="99-tiny"):
        build.build_book(root, "quick", build_dir=tmp_path / "_build", jobs=1)
    assert sorted(p.name for p in (root / "notebooks").iterdir()) == before
    shutil.rmtree(tmp_path / "_build")


def test_kernels_talk_over_their_own_unix_sockets_and_remove_them(tmp_path):
    """No TCP port to race for when kernels start at once: each kernel uses the ipc
    transport with a unique socket prefix, and its socket files are gone after the run."""
    import ast
    import json

    import nbformat

    probe = (
        "import glob\n"
        "from ipykernel.kernelapp import IPKernelApp\n"
        "app = IPKernelApp.instance()\n"
        "print(app.transport, sorted(glob.glob(app.ip + '-*')))"
    )
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(probe, metadata={"tags": ["parameters"]})]
    results = [execute.execute_notebook(nbformat.writes(notebook), "probe", {}) for _ in "ab"]
    reports = []
    for result in results:
        assert result.error is None, result.error
        text = "".join(json.loads(result.notebook)["cells"][-1]["outputs"][0]["text"])
        transport, sockets = text.split(" ", 1)
        reports.append((transport, ast.literal_eval(sockets)))
    assert [t for t, _ in reports] == ["ipc", "ipc"]
    first, second = (set(s) for _, s in reports)
    assert first and second and not first & second, "two kernels shared a socket prefix"
    assert not [p for p in first | second if Path(p).exists()], "socket files left behind"


def test_an_ambiguous_chapter_prefix_lists_the_candidates():
    with pytest.raises(BuildError, match="ambiguous: it could be .*10-alpha"):
        discovery.resolve_chapter(ROOT, "1")
    assert discovery.resolve_chapter(ROOT, "setting-and-data") == "01-setting-and-data"
    assert discovery.resolve_chapter(ROOT, "notebooks/02-sufficient-condition-lemma.md") == (
        "02-sufficient-condition-lemma"
    )


def test_a_chapter_named_twice_in_a_build_is_refused():
    with pytest.raises(BuildError, match="06-swapping-privacy more than once"):
        build.select_chapters(ROOT, ["06", "06-swapping-privacy"])
    assert build.select_chapters(ROOT, ["02", "01"]) == [
        "02-sufficient-condition-lemma",
        "01-setting-and-data",
    ]


@pytest.mark.parametrize("jobs", [0, -2, 1.5, True])
def test_build_jobs_must_be_a_positive_integer(jobs):
    with pytest.raises(BuildError, match="--jobs must be a positive integer"):
        runners.check_jobs(jobs)


def test_glue_lists_every_glued_value_of_a_build_sorted(tmp_path, capsys):
    root = make_book(tmp_path, limit=100)
    stage_dir = tmp_path / "_build" / "stage"
    build.execute_chapters(root, ["99-tiny"], "quick", stage_dir / "notebooks", jobs=1)
    capsys.readouterr()
    assert main(["glue", str(tmp_path / "_build")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "99-tiny\tnames\t['a', 'b']",
        "99-tiny\ttotal\t8",
    ]
    assert glue.glue_lines(stage_dir / "notebooks") == glue.glue_lines(tmp_path / "_build")
    assert main(["glue", str(tmp_path / "nowhere")]) == 1
    assert "is not a folder" in capsys.readouterr().err


def test_numbers_glued_from_chapters_left_out_of_a_partial_build_become_text():
    text = (
        "B is {glue:text}`../notebooks/04-cell-suppression-privacy.ipynb::cs-priv-ma-B:d` "
        "and n is {glue:text}`../notebooks/01-setting-and-data.ipynb::n_cells:d`."
    )
    resolved, notes = stage.resolve_chapter_links(ROOT, text, ["01-setting-and-data"])
    assert "cs-priv-ma-B" not in resolved
    assert "[computed in *DP cell suppression" in resolved
    assert "{glue:text}`../notebooks/01-setting-and-data.ipynb::n_cells:d`" in resolved
    assert len(notes) == 1
    full, _ = stage.resolve_chapter_links(ROOT, text, discovery.list_chapters(ROOT))
    assert full == text
