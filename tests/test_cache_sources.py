"""The build cache's dependence on code, without a kernel: an entry lists the ``dadp_lite``
files its execution opened (``sources``) and is used only while each is unchanged; the
key holds the build machinery's execution modules, not the renderer or the command line.

A scratch ``dadp_lite`` folder stands in for the package (``dadp_lite.__file__`` points
into it, as it is where the cache looks); tests/test_cache.py builds toy chapters that
import it.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from dadp_book import cache as cache_module
from dadp_book.execute import SOURCES_NAME, Execution, _sources, science_folder


@pytest.fixture()
def science(tmp_path, monkeypatch) -> Path:
    """A scratch ``dadp_lite`` package where the cache looks for the package's files."""
    import dadp_lite

    package = tmp_path / "dadp_lite"
    (package / "summaries").mkdir(parents=True)
    for name in ("__init__.py", "theory.py", "summaries/__init__.py", "summaries/nine.py"):
        (package / name).write_text(f"# {name}\n")
    monkeypatch.setattr(dadp_lite, "__file__", str(package / "__init__.py"))
    return package


def _record(page: str = "notebooks/09-x") -> dict:
    notebook = nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]))
    return cache_module.cache_record(page, notebook, {"N": 1}, "quick")


def _edit(path: Path) -> None:
    with path.open("a") as file:  # a new size: seen whatever the clock's resolution
        file.write("# edited\n")


def _digest(path: Path) -> str:
    return cache_module.current_sha256(str(path)) or ""


def test_an_entry_is_used_until_a_source_it_lists_changes(science, tmp_path):
    cache = cache_module.BuildCache(tmp_path / "cache")
    listed = ["dadp_lite/__init__.py", "dadp_lite/summaries/nine.py"]
    sources = {name: _digest(science.parent / name) for name in listed}
    record = _record()
    stored = cache.store(record, Execution("09-x", b"{}", {}, 1.0, sources=sources), "now")
    assert cache.lookup(record).entry == stored
    _edit(science / "theory.py")  # not imported by this page
    assert cache.lookup(record).entry == stored
    _edit(science / "summaries" / "nine.py")
    assert cache.lookup(record) == cache_module.Lookup(None, "dadp_lite/summaries/nine.py changed")
    (science / "summaries" / "nine.py").unlink()
    assert cache.lookup(record).reason == "dadp_lite/summaries/nine.py is gone"


def test_the_same_code_computed_from_other_sources_is_kept_side_by_side(science, tmp_path):
    """An edit, an execution, the edit undone: the first entry serves again."""
    cache = cache_module.BuildCache(tmp_path / "cache")
    record, nine = _record(), science / "summaries" / "nine.py"
    original = nine.read_text()

    def store() -> Path:
        sources = {"dadp_lite/summaries/nine.py": _digest(nine)}
        return cache.store(record, Execution("09-x", b"{}", {}, 1.0, sources=sources), "now")

    first = store()
    _edit(nine)
    second = store()
    assert second != first and cache.lookup(record).entry == second
    nine.write_text(original)
    assert cache.lookup(record).entry == first


def test_an_execution_without_a_list_of_sources_counts_the_whole_package(science, tmp_path):
    cache = cache_module.BuildCache(tmp_path / "cache")
    record = _record()
    cache.store(record, Execution("09-x", b"{}", {}, 1.0), "now")  # sources None
    (science / "__pycache__").mkdir()
    (science / "__pycache__" / "theory.cpython-311.pyc").write_bytes(b"compiled")
    _edit(science / "theory.py")
    assert cache.lookup(record).reason == "dadp_lite/theory.py changed"


def test_the_kernels_log_maps_compiled_files_to_their_sources(science, tmp_path):
    """What the kernel's hook logged (opened files inside the package) becomes
    ``{"dadp_lite/<path>": SHA-256}``: a ``__pycache__`` file stands for its source."""
    assert science_folder() == science.resolve()
    work = tmp_path / "work"
    work.mkdir()
    assert _sources(work, science) is None  # no log: no hook, nothing known
    compiled = science / "summaries" / "__pycache__" / "nine.cpython-311.pyc"
    lines = [str(compiled), str(science / "theory.py"), str(tmp_path / "elsewhere.py")]
    (work / SOURCES_NAME).write_text("\n".join(lines) + "\n")
    assert _sources(work, science.resolve()) == {
        "dadp_lite/summaries/nine.py": _digest(science / "summaries" / "nine.py"),
        "dadp_lite/theory.py": _digest(science / "theory.py"),
    }


def test_the_key_holds_the_executor_but_not_the_renderer(tmp_path, monkeypatch):
    """Editing the renderer or the command line re-renders (render.py) but executes nothing;
    editing the executor executes every page again; dadp_lite is not in the key at all
    (its files are checked per entry)."""
    import dadp_book

    for name in ("__init__.py", "render.py", "execute.py", "cache.py", "discovery.py"):
        (tmp_path / "dadp_book" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "dadp_book" / name).write_text(f"# {name}\n")
    monkeypatch.setattr(dadp_book, "__file__", str(tmp_path / "dadp_book" / "__init__.py"))

    def digest() -> str:
        cache_module.machinery_sha256.cache_clear()
        return cache_module.machinery_sha256()

    try:
        first = digest()
        (tmp_path / "dadp_book" / "render.py").write_text("# edited\n")
        assert digest() == first
        (tmp_path / "dadp_book" / "execute.py").write_text("# edited\n")
        assert digest() != first
    finally:
        cache_module.machinery_sha256.cache_clear()
    assert not any("dadp_lite" in str(key) for key in _record())
