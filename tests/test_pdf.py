"""The PDF edition (``dadp-book build --pdf``): the session's book, printed by Chromium.

Reuses the session build of conftest.py (``html``: chapters executed once with the quick
profile, rendered in strict mode), so no notebook is executed again: only the single-page
render and the print are timed here. Text is read back with pypdf.
"""

from __future__ import annotations

import logging
import re
import time
import unicodedata
from pathlib import Path

import pytest
import yaml
from test_browser import RAW_TEX  # the same raw-TeX pattern as the browser test

from dadp_book.discovery import chapter_title, list_chapters

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = list_chapters(ROOT)

pytestmark = pytest.mark.book


def _plain(text: str) -> str:
    """Ligatures and typographic quotes undone, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(text.split())


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture(scope="module")
def pdf(html):
    """(path, page texts, seconds, pypdf's warnings) of the PDF printed from the session's
    build."""
    from test_browser import _require_browser

    _require_browser()
    from pypdf import PdfReader

    from dadp_book.pdf import build_pdf

    records = _Records()
    logging.getLogger("pypdf").addHandler(records)
    try:
        start = time.perf_counter()
        path = build_pdf(ROOT, html.parent)
        seconds = time.perf_counter() - start
        pages = [_plain(page.extract_text() or "") for page in PdfReader(path).pages]
    finally:
        logging.getLogger("pypdf").removeHandler(records)
    return path, pages, seconds, records.messages


def test_pdf_build_prints_no_pypdf_warning_and_the_file_reads_strictly(pdf):
    """No "Object count ... exceeds defined trailer size" at every build (dadp_book.pdf
    explains why that one is dropped): the file written has a consistent trailer."""
    from pypdf import PdfReader

    path, _pages, _seconds, warnings = pdf
    assert warnings == []
    reader = PdfReader(path, strict=True)
    assert len(reader.pages) > 0 and int(reader.trailer["/Size"]) > 0


def test_pdf_exists_with_a_page_per_chapter_at_least(pdf):
    path, pages, seconds, _ = pdf
    assert path.is_file() and path.stat().st_size > 100_000
    assert len(pages) >= len(CHAPTERS) + 2, len(pages)  # + title page and contents
    print(f"PDF: {len(pages)} pages, {path.stat().st_size / 1e6:.1f} MB, {seconds:.0f} s")


def test_pdf_opens_with_a_title_page_and_a_table_of_contents(pdf):
    _, pages, _, _ = pdf
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert _plain(config["title"]) in pages[0]
    assert "Privacy and Bias Analysis of Disclosure Avoidance Systems" in pages[0]
    assert "IJCAI" in pages[0] and re.search(r"\b20\d\d\b", pages[0])
    contents = " ".join(pages[1:3])
    assert "Contents" in contents
    for slug in CHAPTERS:
        title = _plain(chapter_title(ROOT, slug))
        entry = re.search(re.escape(title) + r" (\d+)", contents)
        assert entry, f"{title!r} has no page number in the contents"
        first = int(entry.group(1))
        assert title in pages[first - 1], f"{title!r} does not start on page {first}"


@pytest.mark.parametrize("slug", CHAPTERS)
def test_pdf_holds_every_chapter(pdf, slug):
    _, pages, _, _ = pdf
    title = _plain(chapter_title(ROOT, slug))
    assert sum(title in page for page in pages[3:]) >= 1, f"{title!r} not in the PDF body"


def test_pdf_math_is_rendered_not_raw_tex(pdf):
    """No TeX delimiter survives; a ``$...$`` is allowed only where the printed code has it
    (matplotlib labels in a figure's code), as the browser test skips code blocks."""
    from bs4 import BeautifulSoup

    from dadp_book.pdf import SINGLE_PAGE

    path, pages, _, _ = pdf
    single = path.parent.parent / "singlehtml" / SINGLE_PAGE
    soup = BeautifulSoup(single.read_text(), "html.parser")
    code = _plain(" ".join(pre.get_text() for pre in soup.find_all("pre")))
    leftovers = [
        (i + 1, m)
        for i, page in enumerate(pages)
        for m in RAW_TEX.findall(page)
        if not (m.startswith("$") and m in code)
    ]
    assert not leftovers, f"raw TeX in the PDF (page, text): {leftovers[:5]}"


def test_pdf_prints_static_figures_not_the_interactive_charts(pdf):
    """Print keeps the matplotlib figures and drops each interactive chart with the sentence
    that introduces it (the paragraph right before the chart's cell)."""
    _, pages, _, _ = pdf
    body = " ".join(pages[3:])
    assert "interactive version" not in body
    assert "The same controls" not in body
    assert len(re.findall(r"\bFig\. \d+ ", body)) >= len(CHAPTERS)


def _tree(outline: list) -> list[tuple[str, object, list]]:
    """pypdf's outline (an item, then a list of its children) as (title, item, children)."""
    nodes: list[tuple[str, object, list]] = []
    for entry in outline:
        if isinstance(entry, list):
            nodes[-1] = (nodes[-1][0], nodes[-1][1], _tree(entry))
        else:
            nodes.append((_plain(str(entry.title)), entry, []))
    return nodes


def test_pdf_has_bookmarks_for_every_part_chapter_and_section(pdf):
    """The outline: the contents, each part of _toc.yml, each chapter under its part at its
    first page, and each chapter's sections under it."""
    from pypdf import PdfReader

    path, pages, _, _ = pdf
    reader = PdfReader(path)
    tree = _tree(reader.outline)
    assert tree[0][0] == "Contents"
    parts = [p["caption"] for p in yaml.safe_load((ROOT / "_toc.yml").read_text())["parts"]]
    assert [title for title, _, _ in tree if title in parts] == parts, [n[0] for n in tree]
    chapters = {title: (item, children) for _, _, kids in tree for title, item, children in kids}
    for slug in CHAPTERS:
        title = _plain(chapter_title(ROOT, slug))
        assert title in chapters, f"no bookmark for {title!r}"
        item, sections = chapters[title]
        page = reader.get_destination_page_number(item)
        assert title in pages[page], f"{title!r}: the bookmark points at page {page + 1}"
        names = [name for name, _, _ in sections]
        assert len(names) >= 3 and "Overview" in names, f"{title!r}: sections {names}"
