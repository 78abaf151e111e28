"""A partial build (``dadp-book build --chapters NN``) executes chapter NN only: the pages
that compute (errata, landing, performance) run when every chapter is built or with
``--with-pages``, and are otherwise staged as stubs naming the command that computes them;
links into chapters left out are counted in one summary line, not one line each.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_cache import USER_ROWS, _make_book

from dadp_book.build import ChapterResult, build_book
from dadp_book.stage import page_stub, stage_book

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """The cache tests' toy book: three chapters and one executable page (``book/reads``)."""
    folder = tmp_path_factory.mktemp("partial")
    data = folder / "data"
    data.mkdir()
    shutil.copy2(Path(os.environ["DADP_DATA_DIR"]) / "ma2019.csv", data / "ma2019.csv")
    (data / "mine.csv").write_text(USER_ROWS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DADP_DATA_DIR", str(data))
        yield _make_book(folder, data), folder


def _executed(build_dir: Path) -> list[str]:
    return sorted(json.loads((build_dir / "timings.json").read_text())["executed"])


@pytest.mark.book
def test_chapters_alone_run_no_page_unless_asked(toy):
    root, folder = toy
    build_book(root, "quick", ["02"], build_dir=folder / "b", jobs=1, html=False)
    assert _executed(folder / "b") == ["notebooks/02-data"]
    build_book(root, "quick", ["02"], folder / "c", jobs=1, html=False, with_pages=True)
    assert _executed(folder / "c") == ["book/reads", "notebooks/02-data"]
    build_book(root, "quick", None, folder / "d", jobs=1, html=False)  # all chapters: pages too
    assert "book/reads" in _executed(folder / "d")


def test_staging_a_partial_build_stubs_the_pages_and_prints_one_summary(toy, capsys):
    root, folder = toy
    stage = folder / "stage"
    result = ChapterResult("02-data", 1.0, stage / "notebooks" / "02-data.ipynb")
    stage_book(root, stage, ["02-data"], [result], "quick")
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "  2 link(s) into chapters not in this build named as text (book/summary)",
        "  not run (stubs; --with-pages runs them): book/reads",
    ]
    stub = (stage / "book" / "reads.md").read_text()
    assert stub.startswith("# Reads a committed file\n") and "code-cell" not in stub
    assert "`dadp-book build --chapters 02 --with-pages`" in stub


def test_a_stub_keeps_the_title_and_labelled_headings_and_drops_the_rest():
    text = (ROOT / "book" / "errata.md").read_text()
    stub = page_stub(text, "book/errata", ["03-laplace-and-discrete-gaussian"])
    assert stub.startswith("# Errata and findings\n\n```{note}\nThis page (book/errata)")
    assert "(errata-verdict)=\n## Does the paper's conclusion stand?\n" in stub
    assert "{glue" not in stub and "code-cell" not in stub and "(finding-" not in stub
    performance = page_stub((ROOT / "book" / "performance.md").read_text(), "book/p", ["01-x"])
    assert performance.startswith("(performance)=\n# Performance at scale\n")
