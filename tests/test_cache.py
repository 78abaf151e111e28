"""The build cache: exactly the chapters whose inputs changed run again, never a stale or
damaged result; the HTML is rendered again only when the staged book changed.

A toy book (three tiny chapters and one executable page; no kernel imports more than the
standard library and myst_nb, so each costs a kernel start) is built once per module; each
test then changes one input, builds, checks which pages ran (``timings.json`` lists the
pages executed, with the reason, and those reused), and restores the input: the next build
reuses the earlier entries. Chapters: ``01-plain`` (no data), ``02-data`` (reads the
excerpt ma2019 in a copy of the data folder named by ``DADP_DATA_DIR``), ``03-user`` (a
user's CSV file named by its ``DATASET`` parameter); the page ``book/reads`` reads a
committed file through ``BOOK_ROOT``, like the performance page.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import nbformat
import pytest
import yaml

from dadp_book import cache as cache_module
from dadp_book.build import build_book
from dadp_book.errors import BuildError

pytestmark = pytest.mark.book

FRONT = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""
CHAPTERS = {
    "01-plain": """
        # Plain chapter

        Some prose.

        ```{code-cell} ipython3
        :tags: [parameters]

        N = 2  # int in [1, 10]; how many
        ```

        ```{code-cell} ipython3
        from myst_nb import glue

        glue("plain-total", N * 10, display=False)
        print(N * 10)
        ```
        """,
    "02-data": """
        # Registered data

        ```{code-cell} ipython3
        :tags: [parameters]

        DATASET = "ma2019"
        ```

        ```{code-cell} ipython3
        import os
        from pathlib import Path

        from myst_nb import glue

        excerpt = Path(os.environ["DADP_DATA_DIR"]) / f"{DATASET}.csv"  # where dadp_lite looks
        glue("data-rows", len(excerpt.read_text().splitlines()) - 1, display=False)
        ```
        """,
    "03-user": """
        # A user's data

        ```{code-cell} ipython3
        :tags: [parameters]

        DATASET = "ma2019"
        ```

        ```{code-cell} ipython3
        from pathlib import Path

        from myst_nb import glue

        glue("user-rows", len(Path(DATASET).read_text().splitlines()) - 1, display=False)
        ```
        """,
}
PAGE = """
    # Reads a committed file

    ```{code-cell} ipython3
    :tags: [parameters]

    BOOK_ROOT = "."  # the book's folder (the build passes it)
    ```

    ```{code-cell} ipython3
    from pathlib import Path

    from myst_nb import glue

    numbers = (Path(BOOK_ROOT) / "results" / "numbers.csv").read_text().split()
    glue("numbers-count", len(numbers), display=False)
    ```
    """
USER_ROWS = "RAC1P,SEX,OWN_RENT,AGEP,PINCP\n1,1,1,30,60000\n2,2,0,9,N\n"
ALL = ["notebooks/01-plain", "notebooks/02-data", "notebooks/03-user", "book/reads"]


def _make_book(folder: Path, data: Path) -> Path:
    root = folder / "book-root"
    for name in ("notebooks", "book", "profiles", "results"):
        (root / name).mkdir(parents=True)
    (root / "_config.yml").write_text(
        'title: toy\nonly_build_toc_files: true\nexecute:\n  execute_notebooks: "off"\n'
    )
    toc = {
        "format": "jb-book",
        "root": "book/intro",
        "chapters": [{"file": f"notebooks/{slug}"} for slug in CHAPTERS]
        + [{"file": f"book/{name}"} for name in ("reads", "summary", "status")],
    }
    (root / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
    for slug, text in CHAPTERS.items():
        (root / "notebooks" / f"{slug}.md").write_text(FRONT + textwrap.dedent(text))
    (root / "book" / "reads.md").write_text(FRONT + textwrap.dedent(PAGE))
    (root / "book" / "intro.md").write_text("# Toy book\n\nChapters and a summary.\n")
    (root / "book" / "summary.md").write_text(  # not the root: Sphinx rewrites the root anyway
        "# Summary\n\nThe plain chapter glues "
        "{glue}`../notebooks/01-plain.ipynb::plain-total`; see "
        "{doc}`../notebooks/01-plain`.\n"
    )
    (root / "book" / "status.md").write_text("# Execution status\n\nGenerated below.\n")
    (root / "results" / "numbers.csv").write_text("1\n2\n3\n")
    chapters = {"01-plain": {"N": 3}, "02-data": {}, "03-user": {"DATASET": str(data / "mine.csv")}}
    profile = {"chapters": chapters}  # every chapter has an entry (an empty one: defaults)
    (root / "profiles" / "quick.yml").write_text(yaml.safe_dump(profile))
    return root


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """The toy book, built once (cold), with its own copy of the data folder."""
    folder = tmp_path_factory.mktemp("cache")
    data = folder / "data"
    data.mkdir()
    shutil.copy2(Path(os.environ["DADP_DATA_DIR"]) / "ma2019.csv", data / "ma2019.csv")
    (data / "mine.csv").write_text(USER_ROWS)
    root = _make_book(folder, data)
    build_dir = folder / "_build"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DADP_DATA_DIR", str(data))
        build(root, build_dir)
        assert executed(build_dir) == {page: "not in the cache" for page in ALL}
        yield root, build_dir, data


def build(root: Path, build_dir: Path, **options) -> Path:
    options = {"jobs": 2, "html": False, **options}
    return build_book(root, "quick", build_dir=build_dir, **options)


def executed(build_dir: Path) -> dict[str, str]:
    """Pages executed by the last build, with the reason it gave."""
    return json.loads((build_dir / "timings.json").read_text())["executed"]


def rebuild(toy, **options) -> dict[str, str]:
    root, build_dir, data = toy
    os.environ["DADP_DATA_DIR"] = str(data)
    build(root, build_dir, **options)
    return executed(build_dir)


def staged(build_dir: Path, slug: str) -> nbformat.NotebookNode:
    return nbformat.read(build_dir / "stage" / "notebooks" / f"{slug}.ipynb", as_version=4)


def parameters_cells(notebook) -> list[str]:
    tags = ("parameters", "injected-parameters")
    return [c.source for c in notebook.cells if set(c.metadata.get("tags", [])) & set(tags)]


def _times(build_dir: Path) -> tuple[dict, dict]:
    timings = json.loads((build_dir / "timings.json").read_text())
    return timings["chapters"], timings["pages"]


def test_force_executes_everything_and_an_unchanged_book_nothing_reused_page_by_page(toy, capsys):
    _, build_dir, _ = toy
    assert rebuild(toy, force=True) == {page: "--force" for page in ALL}
    executed_times = _times(build_dir)  # times of an execution, as the status page shows them
    assert rebuild(toy) == {}
    assert _times(build_dir) == executed_times  # reused: the same times, to the digit
    out = capsys.readouterr().out
    for page in ALL:
        assert f"  {page}" in out and "reused (executed " in out
    assert "4 reused from the build cache, 0 executed" in out


def test_a_prose_edit_executes_nothing_and_the_staged_page_has_the_new_prose(toy):
    root, build_dir, _ = toy
    source = root / "notebooks" / "01-plain.md"
    original = source.read_text()
    source.write_text(original.replace("Some prose.", "Some new prose."))
    try:
        assert rebuild(toy) == {}
        notebook = staged(build_dir, "01-plain")
        assert "Some new prose." in notebook.cells[0].source
        assert notebook.cells[-1].outputs[-1]["text"] == "30\n"  # outputs of N = 3, merged
    finally:
        source.write_text(original)


def test_a_code_edit_runs_that_chapter_and_no_other(toy):
    root, build_dir, _ = toy
    source = root / "notebooks" / "01-plain.md"
    original = source.read_text()
    source.write_text(original.replace("print(N * 10)", "print(N * 100)"))
    try:
        assert rebuild(toy) == {"notebooks/01-plain": "code changed (code cell 2 of 2)"}
        assert staged(build_dir, "01-plain").cells[-1].outputs[-1]["text"] == "300\n"
    finally:
        source.write_text(original)
    assert rebuild(toy) == {}  # the earlier result is still in the cache
    assert staged(build_dir, "01-plain").cells[-1].outputs[-1]["text"] == "30\n"


def test_a_parameter_change_runs_that_chapter_and_its_cell_shows_the_value_used(toy):
    root, build_dir, _ = toy
    profile = root / "profiles" / "quick.yml"
    original = profile.read_text()
    profile.write_text(original.replace("N: 3", "N: 4"))
    try:
        assert rebuild(toy) == {"notebooks/01-plain": "parameters changed (N 3 -> 4)"}
        assert parameters_cells(staged(build_dir, "01-plain")) == [
            "N = 4  # int in [1, 10]; how many"
        ]
    finally:
        profile.write_text(original)
    assert rebuild(toy) == {}
    assert parameters_cells(staged(build_dir, "01-plain")) == ["N = 3  # int in [1, 10]; how many"]


def test_an_edit_of_the_executor_runs_every_chapter_and_page(toy, monkeypatch):
    edited = cache_module.machinery_sha256() + "-edited"
    monkeypatch.setattr(cache_module, "machinery_sha256", lambda: edited)
    reason = "build machinery changed (dadp_book's execute, cache, discovery)"
    assert rebuild(toy) == {page: reason for page in ALL}
    monkeypatch.undo()
    assert rebuild(toy) == {}


def test_an_edit_of_a_science_module_runs_exactly_the_chapters_that_imported_it(
    tmp_path, monkeypatch
):
    """Issue 32: an edit of a helper only chapter 09 used executed all 17 pages. Two toy
    chapters import one module each of a scratch ``dadp_lite`` package (on the kernels'
    ``PYTHONPATH``, and where the cache looks: ``dadp_lite.__file__``); editing one module
    executes its chapter alone, an unimported module nothing, the package's ``__init__``
    both."""
    import dadp_lite

    package = tmp_path / "science" / "dadp_lite"
    package.mkdir(parents=True)
    for name, text in {"__init__.py": "", "alpha.py": "VALUE = 1\n", "beta.py": "VALUE = 2\n",
                       "unused.py": "VALUE = 3\n"}.items():  # fmt: skip
        (package / name).write_text(text)
    root = tmp_path / "book-root"
    for folder in ("notebooks", "book", "profiles"):
        (root / folder).mkdir(parents=True)
    (root / "_config.yml").write_text('title: toy\nexecute:\n  execute_notebooks: "off"\n')
    slugs = {"01-alpha": "alpha", "02-beta": "beta"}
    toc = {"format": "jb-book", "root": "book/intro",
           "chapters": [{"file": f"notebooks/{slug}"} for slug in slugs]}  # fmt: skip
    (root / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
    (root / "book" / "intro.md").write_text("# Toy book\n")
    for slug, module in slugs.items():
        cells = (
            "```{code-cell} ipython3\n:tags: [parameters]\n\nN = 1  # int in [1, 2]; unused\n"
            "```\n\n"
            f"```{{code-cell}} ipython3\nfrom dadp_lite.{module} import VALUE\n\nVALUE\n```\n"
        )
        (root / "notebooks" / f"{slug}.md").write_text(f"{FRONT}# {module}\n\n{cells}")
    (root / "profiles" / "quick.yml").write_text(
        yaml.safe_dump({"chapters": {s: {} for s in slugs}})
    )
    monkeypatch.setenv("PYTHONPATH", str(package.parent))
    monkeypatch.setattr(dadp_lite, "__file__", str(package / "__init__.py"))
    build_dir = tmp_path / "_build"

    def edit(name: str, text: str) -> dict[str, str]:
        with (package / name).open("a") as file:  # longer: a new size, whatever the clock
            file.write(text)
        build(root, build_dir)
        return executed(build_dir)

    build(root, build_dir)
    assert executed(build_dir) == {f"notebooks/{s}": "not in the cache" for s in slugs}
    entry = json.loads((_entry(build_dir, "notebooks/02-beta") / "entry.json").read_text())
    assert sorted(entry["sources"]) == ["dadp_lite/__init__.py", "dadp_lite/beta.py"]
    assert edit("beta.py", "OTHER = 4\n") == {"notebooks/02-beta": "dadp_lite/beta.py changed"}
    assert edit("unused.py", "OTHER = 5\n") == {}
    changed = "dadp_lite/__init__.py changed"
    assert edit("__init__.py", "# edited\n") == {f"notebooks/{s}": changed for s in slugs}


def test_data_edits_run_exactly_the_pages_that_read_the_file(toy):
    root, build_dir, data = toy
    excerpt, mine, numbers = (
        data / "ma2019.csv",
        data / "mine.csv",
        root / "results" / "numbers.csv",
    )
    os.utime(excerpt)  # a new time, the same bytes: nothing to do
    assert rebuild(toy) == {}
    mine.write_text(USER_ROWS + "3,1,1,40,N\n")
    assert rebuild(toy) == {"notebooks/03-user": "dataset file changed"}
    numbers.write_text("1\n2\n3\n4\n")
    assert rebuild(toy) == {"book/reads": "file read results/numbers.csv changed"}
    mine.write_text(USER_ROWS)
    numbers.write_text("1\n2\n3\n")
    assert rebuild(toy) == {}


def _snapshot(build_dir: Path) -> dict[str, bytes]:
    """Every file of a build folder but the cache (whose entries record their last use)."""
    return {
        str(path.relative_to(build_dir)): path.read_bytes()
        for path in sorted(build_dir.rglob("*"))
        if path.is_file() and path.relative_to(build_dir).parts[0] != "cache"
    }


def _one_error_line(capsys) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dadp-book: error: "), lines
    return lines[0]


@pytest.mark.parametrize("folder", ["one-byte-changed", "empty", "missing"])
def test_the_data_in_force_is_checked_before_anything_is_reused(toy, tmp_path, capsys, folder):
    """Issue 33, item 1: with ``DADP_DATA_DIR`` at an altered copy of the excerpts, an
    empty folder or none, ``make book`` reused every page and exited 0. Now the build (and
    ``make pdf``) refuses at once with the line ``dadp-book run`` gives, and writes,
    reuses and renders nothing."""
    from dadp_book.cli import main

    root, build_dir, data = toy
    rebuild(toy, html=True)
    copy = tmp_path / "data"
    if folder != "missing":
        copy.mkdir()
    if folder == "one-byte-changed":
        shutil.copy2(data / "mine.csv", copy / "mine.csv")
        content = bytearray((data / "ma2019.csv").read_bytes())
        content[-2] = ord("0") if content[-2] != ord("0") else ord("1")  # one digit
        (copy / "ma2019.csv").write_bytes(bytes(content))
    before = _snapshot(build_dir)
    os.environ["DADP_DATA_DIR"] = str(copy)
    try:
        assert main(["--root", str(root), "run", "02", "--out", str(tmp_path / "run")]) == 1
        run_line = _one_error_line(capsys)
        for extra in ([], ["--pdf"]):
            args = ["--root", str(root), "build", "--build-dir", str(build_dir), *extra]
            assert main(args) == 1
            assert _one_error_line(capsys) == run_line  # the same message as run's
        with pytest.raises(BuildError):
            build_book(root, "quick", build_dir=build_dir, html=False)
    finally:
        os.environ["DADP_DATA_DIR"] = str(data)
    expected = {
        "one-byte-changed": "does not match the published SHA-256 of ma2019.csv",
        "empty": "ma2019.csv not found in",
        "missing": "ma2019.csv not found in",
    }
    assert expected[folder] in run_line and "DADP_DATA_DIR" in run_line
    assert _snapshot(build_dir) == before  # nothing reused, staged or rendered
    assert not (tmp_path / "run").exists()


def test_a_copy_of_the_data_with_the_same_bytes_elsewhere_is_reused(toy, tmp_path):
    """The cache lists an excerpt a page read by name (``excerpt:ma2019``) and checks it
    where it would be read now: another folder holding the same bytes serves."""
    root, build_dir, data = toy
    rebuild(toy)
    entry = _entry(build_dir, "notebooks/02-data") / "entry.json"
    reads = json.loads(entry.read_text())["reads"]
    assert list(reads) == ["excerpt:ma2019"], reads  # not the path it had
    copy = tmp_path / "elsewhere"
    shutil.copytree(data, copy)
    os.environ["DADP_DATA_DIR"] = str(copy)
    try:
        build(root, build_dir)
        assert executed(build_dir) == {}
    finally:
        os.environ["DADP_DATA_DIR"] = str(data)


def test_quick_edits_never_evict_the_full_profiles_results(tmp_path):
    """Issue 33, item 2: four entries per page were kept, so four quick-profile edits
    evicted the full profile's result (hours to recompute). Eviction is per profile: the
    most recent and the most expensive of each profile stay."""
    from dadp_book.execute import Execution

    cache = cache_module.BuildCache(tmp_path / "cache")
    notebook = _notebook(nbformat.v4.new_code_cell("x = 1"))

    def store(profile: str, n: int, seconds: float) -> Path:
        record = cache_module.cache_record("notebooks/01-x", notebook, {"N": n}, profile)
        return cache.store(record, Execution("01-x", b"{}", {}, seconds), "now")

    full = store("full", 1, 3600.0)
    slow_quick = store("quick", 0, 60.0)
    quick = [store("quick", n, 2.0) for n in range(1, 11)]  # ten quick-profile edits
    kept = {p for p in (tmp_path / "cache" / "notebooks--01-x").iterdir()}
    assert full in kept, "a quick-profile edit evicted the full profile's entry"
    assert slow_quick in kept  # the most expensive of the quick entries
    assert set(quick[-cache_module.KEEP_RECENT :]) <= kept  # and the most recent
    assert len(kept) == 1 + cache_module.KEEP_RECENT + cache_module.KEEP_COSTLY


def test_a_page_deleted_or_damaged_in_the_output_is_rendered_again(toy, capsys):
    """Issue 33: ``make book`` kept a deleted or half-truncated HTML page ("unchanged since
    its last render"). The output is checked against the hashes of the last render."""
    _, build_dir, _ = toy
    rebuild(toy, html=True)
    html = build_dir / "html"
    page, other = html / "notebooks" / "01-plain.html", html / "book" / "summary.html"
    good = page.read_bytes(), other.read_bytes()
    page.unlink()
    other.write_bytes(good[1][: len(good[1]) // 2])
    capsys.readouterr()
    rebuild(toy, html=True)
    out = capsys.readouterr().out
    assert "re-created 2 page(s) missing or damaged in the output" in out
    assert (page.read_bytes(), other.read_bytes()) == good
    jupyter_book_copy = build_dir / "jb" / "_build" / "html" / "notebooks" / "01-plain.html"
    jupyter_book_copy.write_text("damaged")
    page.write_text("damaged")
    rebuild(toy, html=True)
    out = capsys.readouterr().out
    assert "rendering everything (the rendered output is damaged" in out
    assert "jupyter_book" not in out and "--path-output" not in out  # no internal command line
    assert page.read_text().rstrip().endswith("</html>") and "damaged" not in page.read_text()
    rebuild(toy, html=True)  # whole again: the next build renders nothing
    assert "the staged book is unchanged since its last render" in capsys.readouterr().out


def _entry(build_dir: Path, page: str) -> Path:
    [entry] = sorted(
        (build_dir / "cache" / page.replace("/", "--")).glob("*/entry.json"),
        key=lambda path: path.stat().st_mtime,
    )[-1:]
    return entry.parent


def test_a_damaged_or_half_written_entry_is_detected_and_rebuilt(toy):
    _, build_dir, _ = toy
    notebook = _entry(build_dir, "notebooks/01-plain") / "notebook.ipynb"
    notebook.write_bytes(notebook.read_bytes()[:-200])  # cut short
    reason = rebuild(toy)["notebooks/01-plain"]
    assert reason == (
        "cached result damaged (notebook.ipynb does not match its SHA-256 (changed or cut "
        "short)): rebuilt"
    )
    entry = _entry(build_dir, "notebooks/01-plain") / "entry.json"
    content = json.loads(entry.read_text())
    content["seconds"] += 1  # valid JSON, altered
    entry.write_text(json.dumps(content))
    assert "entry.json does not match its SHA-256" in rebuild(toy)["notebooks/01-plain"]
    (_entry(build_dir, "notebooks/01-plain") / "entry.json").unlink()  # never finished
    assert rebuild(toy) == {
        "notebooks/01-plain": "cached result damaged (entry.json is missing or unreadable): rebuilt"
    }
    assert rebuild(toy) == {}


def test_the_html_is_rendered_only_when_the_staged_book_changed(toy, capsys):
    root, build_dir, _ = toy
    rebuild(toy, html=True)
    html = build_dir / "html"
    page = html / "notebooks" / "01-plain.html"
    stamp = page.stat().st_mtime_ns
    capsys.readouterr()
    rebuild(toy, html=True)
    assert "the staged book is unchanged since its last render" in capsys.readouterr().out
    assert page.stat().st_mtime_ns == stamp
    reads = (html / "book" / "reads.html").read_text()
    assignment = '<span class="n">BOOK_ROOT</span> <span class="o">=</span> '
    assert reads.count(assignment) == 1  # one parameters cell
    assert f'{assignment}<span class="s2">"."</span>' in reads  # the book's folder, as "."
    assert str(root) not in reads  # not the build's absolute path
    summary = html / "book" / "summary.html"
    assert '<span class="pre">30</span>' in summary.read_text()  # glued from 01
    source = root / "notebooks" / "01-plain.md"
    original = source.read_text()
    source.write_text(original.replace("Some prose.", "Some rendered prose."))
    try:
        assert rebuild(toy, html=True) == {}
        out = capsys.readouterr().out
        assert "html: 1 staged file(s) changed: notebooks/01-plain.ipynb" in out
        assert "depend on a changed page" not in out  # the same outputs and headings
        assert "Some rendered prose." in page.read_text()
        source.write_text(original.replace("N * 10, display", "N * 1000, display"))
        assert rebuild(toy, html=True) == {"notebooks/01-plain": "code changed (code cell 2 of 2)"}
        assert "depend on a changed page): book/summary" in capsys.readouterr().out  # it glues
        assert '<span class="pre">3000</span>' in summary.read_text()  # not Sphinx's stale 30
    finally:
        source.write_text(original)


def _notebook(*cells) -> str:
    return nbformat.writes(nbformat.v4.new_notebook(cells=list(cells)))


def test_merged_outputs_go_to_the_current_source_by_position():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    out = nbformat.v4.new_output("stream", text="2\n")
    ran = _notebook(
        code("N = 2", metadata={"tags": ["parameters"]}, execution_count=1),
        md("Old prose."),
        code("print(N)", execution_count=2, outputs=[out]),
    )
    source = _notebook(
        md("# Title"),
        code("N = 1", metadata={"tags": ["parameters"]}),
        md("New prose."),
        code("print(N)", metadata={"tags": ["hide-input"]}),
    )
    merged = nbformat.reads(cache_module.merge_outputs(source, ran.encode()).decode(), 4)
    assert [c.source for c in merged.cells] == ["# Title", "N = 2", "New prose.", "print(N)"]
    assert merged.cells[3].outputs == [out] and merged.cells[3].execution_count == 2
    assert merged.cells[3].metadata["tags"] == ["hide-input"]  # tags are the source's
    assert [c["id"] for c in merged.cells] == ["cell-0", "cell-1", "cell-2", "cell-3"]
    again = cache_module.merge_outputs(source, ran.encode())
    assert again == cache_module.merge_outputs(source, ran.encode())  # same bytes
    with pytest.raises(ValueError, match="not the source's code"):
        cache_module.merge_outputs(source.replace("print(N)", "print(N + 1)"), ran.encode())
    with pytest.raises(ValueError, match="code cells"):
        cache_module.merge_outputs(_notebook(code("x = 1")), ran.encode())
