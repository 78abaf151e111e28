"""The PDF edition: the staged, executed book as one HTML page, printed by headless Chromium.

Rendered with Jupyter Book's ``singlehtml`` builder, served on 127.0.0.1 (every other request
refused), opened in Debian's Chromium through Playwright once MathJax and the images are
done, printed to A4 with a title page, a table of contents and bookmarks; collapsed cells,
sidebars and buttons are not printed. The contents' page numbers come from a first, hidden
print's named destinations and are read back from the final print until they agree; each
print is the first of a freshly loaded page, because Chromium paginates a page's second
print differently from its first.
"""

from __future__ import annotations

import datetime as _dt
import functools
import html
import logging
import os
import re
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import yaml

from dadp_book.errors import BuildError
from dadp_book.render import render_html

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = ["CHROMIUM", "PDF_NAME", "add_outline", "build_pdf", "print_pdf"]

#: The browser that prints (Debian's ``chromium``; never a Playwright download).
CHROMIUM = os.environ.get("DADP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: File name of the edition inside ``<build>/pdf``.
PDF_NAME = "dadp-book.pdf"

#: The single page, copied to the top of the site: ``singlehtml`` writes the root document
#: at ``book/intro.html`` but links its assets as if it stood at the top (``_static/...``).
SINGLE_PAGE = "dadp-book.html"

#: Print-only rules: the page as a paper (no navigation, no toggles, full width).
PRINT_CSS = """
html, body { background: white !important; }
#jb-print-docs-body, .bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-footer,
.bd-footer-article, .bd-footer-content, .bd-header-article, .header-article, .prev-next-area,
.prev-next-footer,
#pst-back-to-top, .headerlink, .toggle-button, button.toggle-button, .sbt-scroll-pixel-helper,
div.cell details.hide.above-input, .bd-search, .search-button, .theme-switch-button,
.dropdown-toggle, .article-header-buttons, .skip-link, #pst-skip-link { display: none !important; }
.bd-main, .bd-main .bd-content, .bd-article-container, .bd-page-width, .bd-container,
.bd-container__inner, .bd-main .bd-content .bd-article-container {
  max-width: none !important; width: 100% !important; padding: 0 !important; margin: 0 !important;
}
.bd-article { padding: 0 !important; }
.bd-main .bd-content .bd-article h1:first-of-type { display: block !important; }
body { font-size: 10pt; }
section.dadp-document { break-before: page; }
.dadp-title-page { break-after: page; display: flex; flex-direction: column;
  justify-content: center; min-height: 240mm; text-align: center; }
.dadp-title-page h1.dadp-title { font-size: 24pt; margin-bottom: 12mm; border: none; }
.dadp-title-page p { font-size: 12pt; margin: 2mm 0; }
.dadp-title-page p.dadp-reference { font-size: 10.5pt; margin-top: 14mm; font-style: italic; }
.dadp-toc { break-after: page; }
.dadp-toc h1 { font-size: 18pt; }
.dadp-toc ol { list-style: none; padding: 0; }
.dadp-toc li { display: flex; align-items: baseline; margin: 1.2mm 0; font-size: 10.5pt; }
.dadp-toc li a { color: inherit; text-decoration: none; }
.dadp-toc li .dadp-dots { flex: 1; border-bottom: 1px dotted #888; margin: 0 2mm; }
.dadp-toc li.dadp-part { font-weight: 600; margin-top: 3mm; }
figure, img, .math-wrapper, mjx-container[display="true"] { break-inside: avoid; }
h1, h2, h3 { break-after: avoid; }
"""

#: In the page: mark every document of the single page, collect their titles and print
#: CSS, after MathJax has typeset and every image has loaded.
_PREPARE_JS = """async ([css, front]) => {
    const hasMathJax = !!document.querySelector('script[src*="mathjax"]');
    if (hasMathJax) {
        for (let i = 0; i < 400 && !(window.MathJax && MathJax.startup
             && MathJax.startup.promise); i++) {
            await new Promise(r => setTimeout(r, 50));
        }
        await MathJax.startup.promise;
    }
    await Promise.all(Array.from(document.images).map(img => img.complete ? null :
        new Promise(r => { img.onload = img.onerror = r; })));
    await document.fonts.ready;
    const style = document.createElement('style');
    style.textContent = css;
    document.head.appendChild(style);
    const documents = [];
    const article = document.querySelector('article.bd-article') || document.body;
    const home = article.querySelector(':scope > section');
    if (home) {
        home.classList.add('dadp-document');
        home.insertAdjacentHTML('afterbegin', '<span id="dadp-doc-home"></span>');
        const first = home.querySelector('h1, h2');
        const clone = first ? first.cloneNode(true) : document.createElement('span');
        clone.querySelectorAll('.headerlink').forEach(e => e.remove());
        documents.push({id: 'dadp-doc-home', doc: '', title: clone.textContent.trim()});
    }
    document.querySelectorAll('span[id^="document-"]').forEach((marker, i) => {
        let section = marker.nextElementSibling;
        while (section && section.tagName !== 'SECTION') section = section.nextElementSibling;
        if (!section) return;
        const heading = section.querySelector('h1, h2, h3');
        if (!heading) return;
        const anchor = 'dadp-doc-' + i;  // section ids repeat across pages ("references")
        section.classList.add('dadp-document');
        section.insertAdjacentHTML('afterbegin', '<span id="' + anchor + '"></span>');
        const clone = heading.cloneNode(true);
        clone.querySelectorAll('.headerlink').forEach(e => e.remove());
        documents.push({id: anchor, doc: marker.id.slice('document-'.length),
                        title: clone.textContent.trim()});
    });
    const holder = document.createElement('div');
    holder.id = 'dadp-front-matter';
    holder.innerHTML = front;
    article.insertBefore(holder, article.firstChild);
    return {documents: documents, mathjax: hasMathJax,
            typeset: document.querySelectorAll('mjx-container').length,
            errors: document.querySelectorAll('mjx-merror').length};
}"""

#: Every heading the print shows, in order: (level, text). Chromium's heading outline lists
#: the same headings in the same order, but its titles lose the spaces where a heading
#: wraps, repeat some, and drop the maths; the outline takes the text from here.
_HEADINGS_JS = """() => Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6'))
    .filter(h => h.getClientRects().length > 0 && getComputedStyle(h).visibility !== 'hidden')
    .map(h => {
        const clone = h.cloneNode(true);
        clone.querySelectorAll('.headerlink').forEach(e => e.remove());
        return [Number(h.tagName[1]), clone.textContent.replace(/\\s+/g, ' ').trim()];
    })"""

#: Hides (``true``) or shows again (``false``) everything, keeping every box: the same pages.
_HIDE_JS = """([hide]) => {
    const old = document.getElementById('dadp-hidden');
    if (old) old.remove();
    if (hide) {
        const style = document.createElement('style');
        style.id = 'dadp-hidden';
        style.textContent = '* { visibility: hidden !important; }';
        document.head.appendChild(style);
    }
}"""

_FILL_TOC_JS = """([front]) => {
    document.getElementById('dadp-front-matter').innerHTML = front;
}"""


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        pass


@contextmanager
def _serve(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (a free port); yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _root_page(root: Path) -> str:
    """Where ``singlehtml`` writes the book: the root document's page (``book/intro.html``)."""
    toc = yaml.safe_load((root / "_toc.yml").read_text()) or {}
    return f"{toc.get('root', 'index')}.html"


def _paper_reference(root: Path) -> str:
    """The paper this book reproduces, from ``book/references.bib`` (``zhu2023privacy``)."""
    bib = root / "book" / "references.bib"
    text = bib.read_text() if bib.is_file() else ""
    entry = re.search(r"@\w+\{zhu2023privacy,(.*?)\n\}", text, re.S)
    if not entry:
        return ""
    fields = dict(re.findall(r"(\w+)\s*=\s*\{(.*?)\},?\s*$", entry.group(1), re.M))
    authors = [a.strip() for a in fields.get("author", "").split(" and ") if a.strip()]
    names = ", ".join(authors[:-1]) + (" and " if len(authors) > 1 else "") + authors[-1]
    venue = re.sub(r"[{}]", "", fields.get("booktitle", ""))
    return f"{names}. {fields.get('title', '')}. {venue}, {fields.get('year', '')}."


def _toc_parts(root: Path) -> list[tuple[str, list[str]]]:
    """``_toc.yml`` as (part caption, documents): the root alone first, caption ""."""
    toc = yaml.safe_load((root / "_toc.yml").read_text()) or {}
    parts = [("", [str(toc.get("root", ""))])]
    for part in toc.get("parts", []):
        parts.append((str(part.get("caption", "")), [str(c["file"]) for c in part["chapters"]]))
    return parts


def _front_matter(root: Path, documents: list[dict], pages: dict[str, int] | None) -> str:
    """Title page and table of contents (with first pages, when known), as HTML."""
    config = yaml.safe_load((root / "_config.yml").read_text()) or {}
    title = html.escape(str(config.get("title", "dadp-book")))
    author = html.escape(str(config.get("author", "")))
    reference = html.escape(_paper_reference(root))
    today = _dt.date.today().strftime("%d %B %Y").lstrip("0")
    by_doc = {d["doc"] or _toc_parts(root)[0][1][0]: d for d in documents}
    rows = []
    for caption, files in _toc_parts(root):
        if caption:
            rows.append(f'<li class="dadp-part">{html.escape(caption)}</li>')
        for file in files:
            doc = by_doc.get(file.removesuffix(".md").removesuffix(".ipynb"))
            if doc is None:
                continue
            page = "" if pages is None else str(pages.get(doc["id"], ""))
            name = doc["title"] if doc["doc"] else "Introduction"
            rows.append(
                f'<li><a href="#{html.escape(doc["id"])}">{html.escape(name)}</a>'
                f'<span class="dadp-dots"></span><span class="dadp-page">{page}</span></li>'
            )
    return (
        '<div class="dadp-title-page">'
        f'<h1 class="dadp-title">{title}</h1>'
        f"<p>{author}</p><p>{today}</p>"
        + (f'<p class="dadp-reference">A computational companion to: {reference}</p>'
           if reference else "")
        + '</div><div class="dadp-toc"><h1>Contents</h1><ol>'
        + "".join(rows)
        + "</ol></div>"
    )  # fmt: skip


def _anchor_pages(pdf: bytes, ids: list[str]) -> dict[str, int]:
    """First page (1-based) of each element id, from the PDF's named destinations (Chromium
    names one per link target, so each entry of the table of contents has one)."""
    import io

    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    found: dict[str, int] = {}
    for name, destination in reader.named_destinations.items():
        key = str(name).removeprefix("/")
        number = reader.get_destination_page_number(destination)
        if key in ids and number is not None:
            found[key] = number + 1
    return found


def _key(text: str) -> str:
    """What two spellings of one heading share: its first letters and digits."""
    return re.sub(r"\W+", "", text).lower()[:12]


def _headings(reader, shown: list | None = None) -> list[tuple[int, str, int]]:
    """Chromium's outline of a PDF (one item per heading of the page), flattened in reading
    order as (level, title, page index), level 1 for the top. ``shown``, the page's
    headings as (level, text) from :data:`_HEADINGS_JS` in the same order, gives the levels
    and titles of the items it matches (same first letters)."""
    flat: list[tuple[int, str, int]] = []

    def walk(items: list, depth: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                title = " ".join(str(item.title or "").split()).rstrip("#¶ ")
                flat.append((depth + 1, title, reader.get_destination_page_number(item)))

    walk(reader.outline, 0)
    shown = [(int(level), str(text)) for level, text in (shown or [])]
    aligned, j = [], 0
    for level, title, page in flat:
        key = _key(title)
        for k in range(j, min(j + 5, len(shown))):  # Chromium may skip a heading or two
            other = _key(shown[k][1])
            if key and other and (key.startswith(other) or other.startswith(key)):
                level, title, j = shown[k][0], shown[k][1], k + 1
                break
        aligned.append((level, title, page))
    return aligned


def _sections(
    headings: list[tuple[int, str, int]], title: str, page: int, starts: set[tuple[str, int]]
) -> list:
    """The headings under the document heading ``title`` on page index ``page``, up to the
    next document's heading (``starts``: every document's (title, page index)): its
    sections, each with its subsections, as [(title, page, [(title, page), ...]), ...]."""
    name = " ".join(title.split())
    start = next((i for i, (_, t, p) in enumerate(headings) if t == name and p == page), None)
    if start is None:
        return []
    depth = headings[start][0]
    sections: list = []
    for level, text, where in headings[start + 1 :]:
        if level <= depth or (text, where) in starts:
            break
        if level == depth + 1:
            sections.append((text, where, []))
        elif level == depth + 2 and sections:
            sections[-1][2].append((text, where))
    return sections


def add_outline(pdf: bytes, root: Path, documents: list[dict], shown: list | None = None) -> bytes:
    """The PDF with bookmarks (an outline) for the book: the contents, each part of
    ``_toc.yml`` with its documents, each document with its sections and subsections.

    The documents' first pages come from the PDF's named destinations; the sections' pages
    from the heading outline Chromium embeds (``page.pdf(outline=True)``), which this
    replaces (there every chapter hangs under the introduction's heading; Chromium writes
    it for a tagged PDF only); their titles from ``shown`` (see :func:`_headings`)."""
    import io

    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(io.BytesIO(pdf))
    headings = _headings(reader, shown)
    pages = _anchor_pages(pdf, [d["id"] for d in documents])
    home = _toc_parts(root)[0][1][0]
    by_doc = {d["doc"] or home: d for d in documents}
    starts = {(" ".join(d["title"].split()), pages[d["id"]] - 1) for d in documents
              if d["id"] in pages}  # fmt: skip
    with _quiet_clone_count():
        writer = PdfWriter(clone_from=reader)
    writer.root_object.pop("/Outlines", None)
    if len(reader.pages) > 1:
        writer.add_outline_item(title="Contents", page_number=1)
    for caption, files in _toc_parts(root):
        chosen = [by_doc[f] for f in files if f in by_doc and by_doc[f]["id"] in pages]
        if not chosen:
            continue
        parent = (
            writer.add_outline_item(title=caption, page_number=pages[chosen[0]["id"]] - 1)
            if caption
            else None
        )
        for doc in chosen:
            page = pages[doc["id"]] - 1
            label = doc["title"] if doc["doc"] else "Introduction"  # as in the contents
            item = writer.add_outline_item(title=label, page_number=page, parent=parent)
            for title, where, subsections in _sections(headings, doc["title"], page, starts):
                section = writer.add_outline_item(title=title, page_number=where, parent=item)
                for sub, sub_page in subsections:
                    writer.add_outline_item(title=sub, page_number=sub_page, parent=section)
    writer.page_mode = "/UseOutlines"
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


class _CloneCountFilter(logging.Filter):
    """Drops pypdf's "Object count N exceeds defined trailer size M" (see below)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "exceeds defined trailer size" not in record.getMessage()


@contextmanager
def _quiet_clone_count() -> Iterator[None]:
    """Cloning Chromium's tagged PDF into a writer gives a few more objects than the trailer
    ``/Size`` of Chromium's file (pypdf numbers the objects it clones itself, and clones a
    few objects Chromium shares), and pypdf warns about it at every build. The check means
    something only for an incremental update of the same file; here the writer writes a
    new file with its own cross-reference table and ``/Size``, which pypdf reads back
    without a warning (``tests/test_pdf.py`` reads it in strict mode). So the warning is
    dropped, for the clone only."""
    logger = logging.getLogger("pypdf._writer")
    quiet = _CloneCountFilter()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


def print_pdf(site: Path, root: Path, output: Path) -> dict:
    """Print the single-page book in ``site`` (its root document's page) to ``output``.

    Returns what was printed: documents (id, title, first page), pages, seconds.
    """
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        raise BuildError("the PDF needs playwright (pip install -e '.[pdf]')") from error
    if not Path(CHROMIUM).is_file():
        raise BuildError(f"the PDF needs Chromium at {CHROMIUM} (apt-get install -y chromium)")
    start = time.perf_counter()
    blocked: list[str] = []

    def only_localhost(route) -> None:
        if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    options: dict[str, Any] = dict(
        format="A4",
        print_background=True,
        display_header_footer=True,
        header_template="<span></span>",
        footer_template=(
            '<div style="font-size:8pt;width:100%;text-align:center;color:#666">'
            '<span class="pageNumber"></span></div>'
        ),
        margin={"top": "16mm", "bottom": "18mm", "left": "16mm", "right": "16mm"},
    )
    with _serve(site) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:

            def fresh_print(pages: dict[str, int] | None, tagged: bool) -> tuple[bytes, list, Page]:
                """The book loaded in a new page, its contents filled with ``pages``, printed
                once (hidden when no page number is known yet: only the breaks matter)."""
                page = browser.new_page(viewport={"width": 1000, "height": 1400})
                page.route("**/*", only_localhost)
                # a local file served on 127.0.0.1: bounded by its size, no wall-clock limit
                page.goto(f"{url}/{SINGLE_PAGE}", wait_until="load", timeout=0)
                page.emulate_media(media="print")
                state = page.evaluate(_PREPARE_JS, [PRINT_CSS, _front_matter(root, [], None)])
                documents = state["documents"]
                if not documents:
                    raise BuildError("the single-page book holds no document to print")
                if state["errors"]:
                    raise BuildError(f"MathJax reported {state['errors']} error(s) in the book")
                page.evaluate(_FILL_TOC_JS, [_front_matter(root, documents, pages)])
                page.evaluate(_HIDE_JS, [pages is None])
                printed = page.pdf(**options, outline=tagged, tagged=tagged)
                return printed, documents, page

            first, documents, page = fresh_print(None, tagged=False)
            page.close()
            loaded = time.perf_counter() - start
            ids = [d["id"] for d in documents]
            by_id = _anchor_pages(first, ids)
            for _ in range(3):  # a wider page number may wrap a title: reprint until agreed
                # a tagged PDF (accessible structure), whose heading outline gives the sections
                final, documents, page = fresh_print(by_id, tagged=True)
                shown = page.evaluate(_HEADINGS_JS)
                page.close()
                found = _anchor_pages(final, ids)
                if found == by_id:
                    break
                by_id = found
            else:
                moved = {k: (by_id[k], found.get(k)) for k in by_id if found.get(k) != by_id[k]}
                raise BuildError(f"the contents' page numbers do not settle: {moved}")
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_bytes(add_outline(final, root, documents, shown))
        finally:
            browser.close()
    if blocked:
        raise BuildError("the book asked for outside resources while printing: " + ", ".join(
            blocked[:5]))  # fmt: skip
    from pypdf import PdfReader

    count = len(PdfReader(output).pages)
    for doc in documents:
        doc["page"] = by_id.get(doc["id"])
    seconds = time.perf_counter() - start
    return {"documents": documents, "pages": count, "seconds": seconds, "load_seconds": loaded}


def render_singlehtml(root: Path, stage: Path, build_dir: Path) -> Path:
    """The staged book as one HTML page (Jupyter Book's ``singlehtml`` builder, strict),
    sharing the HTML build's Sphinx cache; returns its folder, the page at its top as
    :data:`SINGLE_PAGE`."""
    site = render_html(stage, build_dir, builder="singlehtml")
    shutil.copy2(site / _root_page(root), site / SINGLE_PAGE)
    return site


def build_pdf(root: Path, build_dir: Path) -> Path:
    """The PDF edition of the book staged in ``build_dir`` (after ``dadp-book build``)."""
    stage = build_dir / "stage"
    if not (stage / "_toc.yml").is_file():
        raise BuildError(f"no staged book in {stage}: run 'dadp-book build' first")
    start = time.perf_counter()
    site = render_singlehtml(root, stage, build_dir)
    rendered = time.perf_counter() - start
    output = build_dir / "pdf" / PDF_NAME
    report = print_pdf(site, root, output)
    size = output.stat().st_size / 1e6
    print(
        f"PDF: {output} ({report['pages']} pages, {size:.1f} MB; single page "
        f"{rendered:.0f} s, printing {report['seconds']:.0f} s)",
        flush=True,
    )
    return output
