"""Execute every chapter of _toc.yml with the quick profile, then build and check the HTML.

One session-scoped build (fixtures ``executed`` and ``html`` in conftest.py, shared with
test_browser.py) serves all tests: chapters run once (in parallel), each chapter is a
separate test result, and the HTML is rendered from those executed notebooks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dadp_book.discovery import list_chapters

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = list_chapters(ROOT)

pytestmark = pytest.mark.book


def _error_outputs(notebook_path: Path) -> list[str]:
    notebook = json.loads(notebook_path.read_text())
    return [
        f"{out.get('ename')}: {out.get('evalue')}"
        for cell in notebook["cells"]
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]


@pytest.mark.parametrize("slug", CHAPTERS)
def test_chapter_executes_with_the_quick_profile(executed, slug):
    results = executed[0]
    result = results[slug]
    assert result.error is None, result.error
    assert _error_outputs(result.output) == []


@pytest.mark.parametrize("slug", CHAPTERS)
def test_chapter_has_a_parameters_cell_and_a_verification_section(slug):
    source = (ROOT / "notebooks" / f"{slug}.md").read_text()
    assert ":tags: [parameters]" in source
    assert "assert " in source, f"{slug} has no asserting verification"
    assert "## Exercises" in source


@pytest.mark.parametrize("slug", CHAPTERS)
def test_chapter_page_holds_a_figure_and_no_error_output(html, slug):
    from bs4 import BeautifulSoup

    page = html / "notebooks" / f"{slug}.html"
    assert page.is_file(), f"{page} was not built"
    soup = BeautifulSoup(page.read_text(), "html.parser")
    main = soup.find("main") or soup
    figures = [img for img in main.find_all("img") if "_images/" in img.get("src", "")]
    assert figures, f"{slug}: no figure image on the page"
    for img in figures:
        assert (page.parent / img["src"]).resolve().is_file(), f"missing image {img['src']}"
    text = main.get_text()
    assert "Traceback (most recent call last)" not in text
    assert not main.select(".output.error, .output.traceback")


def test_book_index_and_back_matter_exist(html):
    assert (html / "index.html").is_file()
    for page in ("errata", "reproducibility", "teaching", "status", "references"):
        assert (html / "book" / f"{page}.html").is_file(), page
