"""The built book in a real browser, offline, as a reader sees it at 1,280 and 390 px.

Uses the session build of conftest.py (the same one test_book.py checks), served from
127.0.0.1 on a random port, and headless Chromium (Debian's ``chromium`` package) driven by
Playwright with ``executable_path=/usr/bin/chromium`` (never ``playwright install``). Every
request that leaves 127.0.0.1 is blocked and reported, so a CDN dependency fails the test
even on a machine with internet access. Screenshots go to ``<build>/screenshots`` (the
full-page ones only for a kept build, ``DADP_TEST_BUILD_DIR``: they cost time, and nobody
sees a temporary folder's).

The crawler opens every page of the book at 1,280 px (light) and at 390 px (a phone, dark
mode) and runs the checks of ``tests/crawl.py``: notebook debris (DataFrame and Series
reprs, stderr, cut cells), parameter names and doubled status words in the prose, chart
tooltips at every dropdown setting, sideways overflow, alt texts, axe-core (serious and
critical violations, axe's default rules), the console, tables a person would not print,
build vocabulary in a chapter's prose, formulas wider than their column, glossary terms of
a main-result box without their definition's link, and the citation block. Findings that
come from a chapter's content and wait for that chapter's rewrite are listed in
:data:`KNOWN_CHAPTER_DEBRIS`, the one allow-list: a page may show at most that many
findings of that check, and an entry whose page has become clean fails the test until it
is removed, so the list only shrinks.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml
from crawl import (
    CHECKS,
    CONTENT_JS,
    OVERFLOW_JS,
    TOOLTIP_JS,
    WIDE_EQUATION_JS,
    alt_findings,
    axe_findings,
    build_word_findings,
    citation_findings,
    figure_text_findings,
    glossary_findings,
    glossary_terms,
    parameter_findings,
    status_findings,
    table_findings,
)

from dadp_book.discovery import list_chapters
from dadp_book.pdf import CHROMIUM, CHROMIUM_FLAGS  # the one browser set-up
from dadp_lite.plotting import MIN_TEXT_PT  # the style's smallest text, from dadp.mplstyle

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = list_chapters(ROOT)


def _toc_pages() -> list[str]:
    """Every document of _toc.yml, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [toc["root"]]
    for part in toc.get("parts", []):
        pages += [entry["file"] for entry in part.get("chapters", [])]
    return pages


#: Every page of the built site: the book's documents and Sphinx's generated pages.
PAGES = [*_toc_pages(), "genindex", "py-modindex", "prf-prf", "search"]
# TeX left in the text after MathJax ran: \( \) \[ \] $$, or $...$ holding TeX syntax.
RAW_TEX = re.compile(r"\\[()\[\]]|\$\$|\$[^$\n]*[\\^_{}][^$\n]*\$")
#: A chapter's key figure (the first image of its page) starts within this many screens of
#: the top at 1,280 x 900 px: right under the main result (``{glue:figure}``, issue 30).
KEY_FIGURE_SCREENS = 2.0
# Top of the page's first figure image, in screens (window heights) from the page's top.
FIRST_FIGURE_JS = """() => { const img = document.querySelector("main img[src*='_images/']");
    return img ? (img.getBoundingClientRect().top + window.scrollY) / window.innerHeight
               : null; }"""

# ---------------------------------------------------------------- the one allow-list
#: Findings of the crawler that come from a chapter's content (not from the site's
#: machinery) and wait for that chapter's rewrite: page -> {check: most findings allowed}.
#: Remove an entry when its chapter is done; an entry whose page shows no such finding any
#: more fails the test ("clean now"), so this list can only shrink. Never add to it.
KNOWN_CHAPTER_DEBRIS: dict[str, dict[str, int]] = {
    # "overflow": inline formulas wider than a phone's column, cut by the theme's
    # span.math {overflow: hidden}: make them display formulas (or split them)
}  # fmt: skip

pytestmark = pytest.mark.book


def _require_browser():
    """Skip without Chromium/Playwright on a developer machine; fail in CI (CI=true)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "the playwright package (pip install -e '.[test]')"
    else:
        missing = None if shutil.which(CHROMIUM) or Path(CHROMIUM).is_file() else CHROMIUM
        if missing:
            missing += " (apt-get install -y chromium)"
    if missing:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"browser test needs {missing}")
        pytest.skip(f"browser test needs {missing}")


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        pass


@pytest.fixture(scope="module")
def site(html):
    """Base URL of the built HTML served on 127.0.0.1 (random free port)."""
    handler = functools.partial(_QuietHandler, directory=str(html))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def screenshots(html):
    folder = html.parent / "screenshots"
    folder.mkdir(exist_ok=True)
    return folder


#: The longest a wait may last before the test calls it a hang (milliseconds). Every wait
#: ends when its event happens (a page loaded, the formulas typeset, a chart drawn or
#: redrawn, a tooltip shown), so this is no speed target: it is far beyond what any
#: machine needs, at load 8 too (a load average, scaled or not, lags a sudden rush).
HANG_MS = 600_000


def _open(browser, url: str, width: int = 1280, dark: bool = False):
    """Open ``url`` (a ``width`` px wide window, light or dark); return the page and the
    console errors and warnings, page errors, failed and blocked requests seen. A wait
    fails only after :data:`HANG_MS`."""
    page = browser.new_page(
        viewport={"width": width, "height": 900 if width > 500 else 844},
        color_scheme="dark" if dark else "light",
    )
    page.set_default_timeout(HANG_MS)
    problems: list[str] = []
    page.on(
        "console",
        lambda msg: (
            problems.append(f"console {msg.type}: {msg.text}")
            if msg.type in ("error", "warning")
            else None
        ),
    )
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on(
        "requestfailed",
        lambda request: problems.append(f"request failed: {request.url} {request.failure}"),
    )

    def only_localhost(route):
        if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            problems.append(f"external request blocked: {route.request.url}")
            route.abort()

    page.route("**/*", only_localhost)
    response = page.goto(url, wait_until="load")
    assert response is not None and response.ok, f"{url}: HTTP {response and response.status}"
    return page, problems


def _wait_for_math(page) -> dict:
    """Wait until MathJax (if the page loads it) has typeset; return counts and raw text."""
    return page.evaluate(
        """async (HANG_MS) => {
            const hasMathJax = !!document.querySelector('script[src*="mathjax"]');
            if (hasMathJax) {
                for (let i = 0; i < HANG_MS / 50 && !(window.MathJax && MathJax.startup
                     && MathJax.startup.promise); i++) {
                    await new Promise(r => setTimeout(r, 50));
                }
                await MathJax.startup.promise;
            }
            await document.fonts.ready;
            // transitions (a theme's colours fading in) end before anything is measured
            await Promise.all(document.getAnimations()
                .filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
                .map(a => a.finished.catch(() => null)));
            const main = document.querySelector('main') || document.body;
            const clone = main.cloneNode(true);
            clone.querySelectorAll('pre, code, script, style, mjx-container, .cell_input')
                 .forEach(e => e.remove());
            return {
                hasMathJax: hasMathJax,
                mathJaxLoaded: !!(window.MathJax && MathJax.version),
                source: document.querySelectorAll('.math').length,
                rendered: document.querySelectorAll('mjx-container').length,
                errors: document.querySelectorAll('mjx-merror').length,
                text: clone.textContent,
            };
        }""",
        HANG_MS,
    )


def _broken_images(page) -> list[str]:
    return page.evaluate(
        """() => Array.from(document.images)
              .filter(img => !(img.complete && img.naturalWidth > 0))
              .map(img => img.getAttribute('src'))"""
    )


def _judge(page_name: str, findings: dict[str, list[str]]) -> None:
    """Fail on every finding beyond :data:`KNOWN_CHAPTER_DEBRIS`, and on an allow-list
    entry whose page is clean of it now (the list must shrink)."""
    allowed = KNOWN_CHAPTER_DEBRIS.get(page_name, {})
    unknown = [check for check in allowed if check not in CHECKS]
    assert not unknown, f"KNOWN_CHAPTER_DEBRIS[{page_name!r}] names unknown checks {unknown}"
    failures = []
    for check, items in findings.items():
        limit = allowed.get(check, 0)
        if len(items) > limit:
            shown = "\n      ".join(items[:8])
            failures.append(f"{check}: {len(items)} finding(s), {limit} allowed:\n      {shown}")
        elif limit and not items:
            failures.append(
                f"{check}: clean now; remove it from KNOWN_CHAPTER_DEBRIS[{page_name!r}]"
            )
    assert not failures, f"{page_name}:\n  " + "\n  ".join(failures)


@functools.cache
def _glossary_anchors(html: Path) -> dict[str, str]:
    """Each term of the built glossary page -> the id of its definition."""
    from bs4 import BeautifulSoup

    page = html / "book" / "glossary.html"
    if not page.is_file():
        return {}
    soup = BeautifulSoup(page.read_text(), "html.parser")
    for link in soup.select("dl.glossary dt a.headerlink"):  # the theme's "#" (or "¶")
        link.decompose()
    return {
        dt.get_text(" ", strip=True).rstrip("¶# "): dt["id"]
        for dt in soup.select("dl.glossary dt[id]")
    }


def _shot(page, screenshots: Path, page_name: str, suffix: str) -> None:
    name = page_name.replace("/", "--")
    page.screenshot(path=str(screenshots / f"{name}{suffix}.png"))


@pytest.mark.parametrize("page_name", PAGES)
def test_page_at_1280_px(browser, site, html, screenshots, page_name):
    """Math typeset, figures loaded and described, a chapter's first figure within
    :data:`KEY_FIGURE_SCREENS` screens, no notebook debris, every chart tooltip
    defined, tables a person would print, no build vocabulary in a chapter, no formula
    wider than its column, glossary terms linked in the main result, the citation block,
    no axe-core serious or critical violation (default rules), a quiet console, and on a
    chapter no figure text smaller than the body text at the width shown."""
    page, problems = _open(browser, f"{site}/{page_name}.html")
    try:
        math = _wait_for_math(page)
        broken = _broken_images(page)
        figures = page.locator("main img[src*='_images/']").count()
        first_figure = page.evaluate(FIRST_FIGURE_JS)
        content = page.evaluate(CONTENT_JS)
        tooltips = page.evaluate(TOOLTIP_JS)
        wide = page.evaluate(WIDE_EQUATION_JS)
        axe = axe_findings(page)
        _shot(page, screenshots, page_name, "")
        if os.environ.get("DADP_TEST_BUILD_DIR"):  # a kept build: someone will look at them
            page.screenshot(  # bounded by the page's size: no wall-clock limit
                path=str(screenshots / f"{page_name.replace('/', '--')}-full.png"),
                full_page=True,
                timeout=0,
            )
    finally:
        page.close()
    if math["source"]:
        assert math["hasMathJax"], f"{page_name}: math on the page but no MathJax script"
        assert math["mathJaxLoaded"], f"{page_name}: MathJax did not load"
        assert math["rendered"] >= math["source"], f"{page_name}: {math} not all typeset"
        assert math["errors"] == 0, f"{page_name}: {math['errors']} MathJax error(s)"
    leftovers = RAW_TEX.findall(math["text"])
    assert not leftovers, f"{page_name}: raw TeX left in the page: {leftovers[:5]}"
    assert not broken, f"{page_name}: images that did not load: {broken}"
    if page_name.startswith("notebooks/"):
        assert figures > 0, f"{page_name}: no figure image"
        assert first_figure <= KEY_FIGURE_SCREENS, (
            f"{page_name}: the first figure starts {first_figure:.1f} screens down, more than "
            f"{KEY_FIGURE_SCREENS:g}: show the key figure under the main result"
        )
    _judge(
        page_name,
        {
            "dataframe": content["dataframe"],
            "series": content["series"],
            "stderr": content["stderr"],
            "truncated": content["truncated"],
            "parameter_name": parameter_findings(content["prose"]),
            "status_twice": status_findings(content["prose"]),
            "tooltip": tooltips,
            "alt_text": alt_findings(content["images"]),
            "axe": axe,
            "console": problems,
            "table": table_findings(content["tables"]),
            "build_words": (
                build_word_findings(content["reading"], content["exercises"])
                if page_name.startswith("notebooks/")
                else []
            ),
            "wide_equation": wide,
            "glossary": glossary_findings(
                content["boxes"], glossary_terms(), _glossary_anchors(html)
            ),
            "citation": citation_findings(content["citation"]),
            "figure_text": (
                figure_text_findings(
                    content["images"], content["body_px"], html / f"{page_name}.html", MIN_TEXT_PT
                )
                if page_name.startswith("notebooks/")
                else []
            ),
        },
    )


@pytest.mark.parametrize("page_name", PAGES)
def test_page_at_390_px_in_dark_mode(browser, site, screenshots, page_name):
    """A phone: nothing wider than the screen or cut inside its box (charts included), no
    axe-core serious or critical violation in dark mode, a quiet console."""
    page, problems = _open(browser, f"{site}/{page_name}.html", width=390, dark=True)
    try:
        _wait_for_math(page)
        page.evaluate(
            """async (HANG_MS) => { for (const c of document.querySelectorAll('.dadp-chart')) {
                 for (let t = 0; t < HANG_MS / 100 && !c.dadpView && window.vegaEmbed; t++)
                   await new Promise(r => setTimeout(r, 100)); } }""",
            HANG_MS,
        )
        overflow = page.evaluate(OVERFLOW_JS)
        axe = axe_findings(page)
        _shot(page, screenshots, page_name, "-390")
    finally:
        page.close()
    _judge(page_name, {"overflow": overflow, "axe_phone_dark": axe, "console": problems})


def test_every_page_of_the_site_is_crawled(html):
    built = {
        str(p.relative_to(html).with_suffix(""))
        for p in html.rglob("*.html")
        if p.relative_to(html).parts[0] not in ("_static", "_sources", "_images")
        and 'http-equiv="refresh"' not in p.read_text()[:2000].lower()  # a redirect
    }
    assert built <= set(PAGES), f"pages the crawler misses: {sorted(built - set(PAGES))}"
    stale = [page for page in KNOWN_CHAPTER_DEBRIS if page not in PAGES]
    assert not stale, f"KNOWN_CHAPTER_DEBRIS names pages that do not exist: {stale}"


@pytest.mark.parametrize("slug", CHAPTERS)
def test_every_csv_a_chapter_writes_is_linked_from_its_page_and_reproducibility(html, slug):
    """The CSV files a chapter wrote (staged beside its notebook) are served in ``_data``,
    linked from the chapter's page and listed on the Reproducibility page."""
    from bs4 import BeautifulSoup

    written = sorted(p.name for p in (html.parent / "stage" / "notebooks").glob(f"{slug}-*.csv"))
    page = BeautifulSoup((html / "notebooks" / f"{slug}.html").read_text(), "html.parser")
    linked = {a["href"].rsplit("/", 1)[-1] for a in page.select("main a[href$='.csv']")}
    missing = [name for name in written if name not in linked]
    assert not missing, f"{slug}: no link to {missing}"
    for name in written:
        assert (html / "_data" / name).is_file(), f"{name} is not served"
    listing = BeautifulSoup((html / "book" / "reproducibility.html").read_text(), "html.parser")
    listed = {a["href"].rsplit("/", 1)[-1] for a in listing.select("main a[href$='.csv']")}
    assert set(written) <= listed, f"not on the Reproducibility page: {set(written) - listed}"


def test_math_is_served_from_the_local_mathjax_copy(html):
    for page in ["book/intro", *[f"notebooks/{s}" for s in CHAPTERS]]:
        text = (html / f"{page}.html").read_text()
        scripts = re.findall(r'<script[^>]*src="([^"]*mathjax[^"]*)"', text)
        assert scripts, f"{page}: no MathJax script"
        for src in scripts:
            assert not src.startswith(("http:", "https:", "//")), f"{page}: CDN MathJax {src}"
            local = (html / page).parent.joinpath(src.split("?")[0]).resolve()
            assert local.is_file(), f"{page}: {src} is not in the build"


def test_status_page_lists_every_chapter_with_its_time_and_the_versions(html):
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((html / "book" / "status.html").read_text(), "html.parser")
    text = " ".join(soup.get_text(" ").split())
    assert "profile quick" in text and "wall-clock execution time" in text
    timed = {}
    for row in soup.select("table tr"):
        cells = row.find_all("td")
        link = row.find("a", href=True)
        if link and len(cells) >= 2:
            timed[link["href"].split("#")[0]] = float(cells[1].get_text())
    for slug in CHAPTERS:
        seconds = timed.get(f"../notebooks/{slug}.html")
        assert seconds is not None and seconds > 0, f"{slug} missing from the status table"
    assert "numpy" in text and "jupyter-book" in text


def _launch_configured() -> bool:
    """Does _config.yml name a repository and an execution service for launch buttons?"""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    repository = (config.get("repository") or {}).get("url")
    launch = config.get("launch_buttons") or {}
    services = [launch.get(k) for k in ("binderhub_url", "colab_url", "jupyterhub_url")]
    return bool(repository and any(services))


@pytest.mark.parametrize("slug", CHAPTERS)
def test_chapter_page_offers_its_notebook_and_launch_buttons_only_if_configured(html, slug):
    """The download button gives the executed notebook; launch buttons (Binder, Colab) and
    repository links appear only when _config.yml names a repository and a service."""
    from bs4 import BeautifulSoup

    page = html / "notebooks" / f"{slug}.html"
    soup = BeautifulSoup(page.read_text(), "html.parser")
    downloads = [a["href"] for a in soup.select("a.btn-download-source-button")]
    assert downloads == [f"../_sources/notebooks/{slug}.ipynb"], downloads
    notebook = (page.parent / downloads[0]).resolve()
    assert notebook.is_file(), f"{notebook} missing"
    assert '"outputs"' in notebook.read_text()
    links = [a["href"] for a in soup.find_all("a", href=True)]
    launch = [h for h in links if re.search(r"mybinder|colab\.research|github\.com", h)]
    if _launch_configured():
        assert any("mybinder.org" in h for h in launch), "no Binder button"
        assert any("colab.research.google.com" in h for h in launch), "no Colab button"
    else:
        assert not launch, f"launch or repository links to nothing configured: {launch}"
        assert not soup.select(".dropdown-launch-buttons, .btn-launch-buttons"), slug


def test_one_search_box_and_indexes_that_list_titles(browser, site, html):
    """Desktop pages show one search box; the general index lists the theorems and
    definitions; the proof index names them by title, not by label."""
    from bs4 import BeautifulSoup

    page, problems = _open(browser, f"{site}/notebooks/{CHAPTERS[0]}.html")
    try:
        boxes = page.evaluate(
            """() => [...document.querySelectorAll(
                   '.search-button-field, input[type=search], .bd-search')
                   ].filter(e => { const r = e.getBoundingClientRect();
                   return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility
                   !== 'hidden'; }).length"""
        )
    finally:
        page.close()
    assert boxes == 1, f"{boxes} search boxes on a desktop page"
    index = BeautifulSoup((html / "genindex.html").read_text(), "html.parser")
    entries = index.select("table.indextable a[href]")
    assert len(entries) >= 10, f"the general index lists {len(entries)} entries"
    proofs = BeautifulSoup((html / "prf-prf.html").read_text(), "html.parser")
    names = [a.get_text(" ", strip=True) for a in proofs.select("table.indextable a[href]")]
    assert names, "the proof index is empty"
    labels = [n for n in names if re.fullmatch(r"(thm|def|lem|prop|rem|cor)-[\w-]+", n)]
    assert not labels, f"the proof index shows raw labels: {labels[:5]}"
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------- interactive charts
#: The chapter whose interactive chart the tests drive and photograph (1,000 px wide).
CHART_PAGE = "notebooks/12-data-release-tables"


def _chart_marks(page, index: int = 0) -> str:
    """The rendered chart's marks: every SVG path and symbol position, as one string."""
    return page.evaluate(
        """(index) => {
            const chart = document.querySelectorAll('.dadp-chart')[index];
            return Array.from(chart.querySelectorAll('svg .mark-line path, svg .mark-symbol path'))
                .map(p => (p.getAttribute('d') || '') + '@' + (p.getAttribute('transform') || ''))
                .join('|');
        }""",
        index,
    )


def test_chart_pages_load_the_local_vega_bundle_and_no_cdn(html):
    """Every chapter page with a chart loads _static/dadp-vega.js from the build; no page
    references a Vega script elsewhere, and pages without a chart do not load it."""
    with_charts = 0
    for slug in CHAPTERS:
        text = (html / "notebooks" / f"{slug}.html").read_text()
        scripts = re.findall(r'<script[^>]*src="([^"]*)"', text)
        assert not [s for s in scripts if "vega" in s and "dadp-vega.js" not in s], slug
        local = [s for s in scripts if "dadp-vega.js" in s]
        if 'class="dadp-chart"' in text:
            with_charts += 1
            assert len(local) == 1 and not local[0].startswith(("http:", "https:", "//"))
            bundle = (html / "notebooks").joinpath(local[0].split("?")[0]).resolve()
            assert bundle.is_file() and "window.vegaEmbed" in bundle.read_text()
        else:
            assert not local, f"{slug} loads the Vega bundle without a chart"
    assert with_charts >= 5


def _marks_after(page, settled) -> str:
    """The chart's marks once ``settled(marks)`` holds (a redraw takes its time on a busy
    machine), or as they are after :data:`HANG_MS`."""
    import time

    deadline = time.monotonic() + HANG_MS / 1000
    marks = _chart_marks(page)
    while not settled(marks) and time.monotonic() < deadline:
        page.wait_for_timeout(100)
        marks = _chart_marks(page)
    return marks


def test_moving_a_control_redraws_the_interactive_chart(browser, site, screenshots):
    """Chapter 12: the chart renders an SVG, shows a tooltip on hover, and choosing another
    dataset or one mechanism changes the drawn marks; nothing leaves 127.0.0.1."""
    page, problems = _open(browser, f"{site}/{CHART_PAGE}.html")
    try:
        page.set_viewport_size({"width": 1000, "height": 900})
        chart = page.locator(".dadp-chart").first
        chart.locator("svg .mark-line path").first.wait_for(timeout=HANG_MS)
        before = _chart_marks(page)
        assert before
        selects = chart.locator(".vega-bindings select")
        assert selects.count() == 2  # dataset, mechanism
        datasets = selects.nth(0).locator("option").all_inner_texts()
        if len(datasets) > 1:
            selects.nth(0).select_option(index=1)
            after = _marks_after(page, lambda marks: marks and marks != before)
            assert after and after != before, "choosing another dataset changed nothing"
            selects.nth(0).select_option(index=0)
            assert _marks_after(page, lambda marks: marks == before) == before
        selects.nth(1).select_option(index=1)  # one mechanism instead of all
        one = _marks_after(page, lambda marks: marks and marks != before)
        assert one and one != before and len(one) < len(before)
        selects.nth(1).select_option(index=0)
        _marks_after(page, lambda marks: marks == before)
        point = chart.locator("svg .mark-symbol path").first
        point.hover(force=True)
        tooltip = page.locator("#vg-tooltip-element")
        tooltip.wait_for(state="visible", timeout=HANG_MS)
        assert "interval" in tooltip.inner_text()
        page.mouse.move(0, 0)
        # the chart with its sentence and code toggle above it, below the sticky header
        page.evaluate(
            "() => window.scrollBy(0, document.querySelector('.dadp-chart')"
            ".getBoundingClientRect().top - 250)"
        )
        page.wait_for_timeout(200)
        shot = screenshots / "ch12-chart-1000px.png"
        page.screenshot(path=str(shot))
        _keep_shot(shot)
    finally:
        page.close()
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------- the reader's edition
READER_SHOTS = Path(os.environ.get("DADP_READER_SHOTS", "/work/reader-shots"))
TABLES_PAGE = "notebooks/12-data-release-tables"


def _keep_shot(path: Path) -> None:
    """Copy a screenshot where the lead can see it (skipped when that folder cannot exist)."""
    try:
        READER_SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, READER_SHOTS / path.name)
    except OSError:
        pass


def test_table_1_fits_a_1000_px_page_and_code_wraps(browser, site, screenshots):
    """Chapter 12's Table 1 in the paper's layout fits the page at 1,000 px: no scrollbar of
    its own, its right edge inside the window, the page not wider than the window; intervals
    on one line; no code line runs off the page."""
    page, problems = _open(browser, f"{site}/{TABLES_PAGE}.html", width=1000)
    try:
        _wait_for_math(page)
        table = page.locator("table.dadp-table").first
        table.scroll_into_view_if_needed()
        table.screenshot(path=str(screenshots / "ch12-table1-1000px.png"))
        page.screenshot(path=str(screenshots / "ch12-table1-1000px-page.png"))
        fit = table.evaluate(
            """t => {
                const box = t.closest('.output') || t.parentElement;
                const cells = Array.from(t.querySelectorAll('td.dadp-num'));
                return {scroll: t.scrollWidth, width: box.clientWidth,
                        boxScroll: box.scrollWidth,
                        right: t.getBoundingClientRect().right, window: window.innerWidth,
                        page: document.documentElement.scrollWidth,
                        caption: t.caption ? t.caption.textContent : '',
                        index: t.querySelectorAll('th.row_heading, th.index_name').length,
                        wrapped: cells.filter(c => {
                            const r = document.createRange();
                            r.selectNodeContents(c);
                            return new Set(Array.from(r.getClientRects(),
                                                      b => Math.round(b.top))).size > 1;
                        }).length};
            }"""
        )
        code = page.evaluate(
            """() => Array.from(document.querySelectorAll('div.cell_input pre'))
                  .filter(p => p.scrollWidth > p.clientWidth + 1).length"""
        )
    finally:
        page.close()
    for name in ("ch12-table1-1000px.png", "ch12-table1-1000px-page.png"):
        _keep_shot(screenshots / name)
    assert fit["caption"].startswith("Table 1"), fit["caption"]
    assert fit["index"] == 0, "the table shows an index column"
    assert fit["scroll"] <= fit["width"], f"table wider than its column: {fit}"
    assert fit["boxScroll"] <= fit["width"], f"the table's box scrolls: {fit}"
    assert fit["right"] <= fit["window"], f"table runs off the window: {fit}"
    assert fit["page"] <= fit["window"], f"the page scrolls sideways: {fit}"
    assert fit["wrapped"] == 0, f"{fit['wrapped']} number cell(s) wrap over lines"
    assert code == 0, f"{code} code block(s) scroll sideways at 1,000 px"
    assert not problems, "\n".join(problems)


def test_hidden_code_is_one_click_away(browser, site, screenshots):
    """Every code cell of a chapter is folded, the checks' too; one click shows a cell's
    code, another hides it again."""
    page, problems = _open(browser, f"{site}/{TABLES_PAGE}.html", width=1000)
    try:
        toggle = page.locator("div.cell details.hide.above-input").first
        code = toggle.locator("div.cell_input pre").first
        summary = toggle.locator("summary").first
        summary.scroll_into_view_if_needed()
        hidden_before = not code.is_visible()
        summary.click()
        code.wait_for(state="visible", timeout=HANG_MS)
        shown = code.is_visible() and "import" in code.inner_text()
        toggle.screenshot(path=str(screenshots / "ch12-toggle-open-1000px.png"))
        summary.click()
        code.wait_for(state="hidden", timeout=HANG_MS)
        hidden_after = not code.is_visible()
        unfolded = page.locator("div.cell:not(:has(details.hide)) div.cell_input").count()
        check = page.locator("div.cell details.hide", has_text="assert ").first
        check.locator("summary").first.click()
        visible_checks = check.locator("div.cell_input pre").first.is_visible()
    finally:
        page.close()
    _keep_shot(screenshots / "ch12-toggle-open-1000px.png")
    assert hidden_before, "the setup cell's code is shown before any click"
    assert shown, "clicking the toggle did not show the code"
    assert hidden_after, "clicking the toggle again did not hide the code"
    assert unfolded == 0, f"{unfolded} code cell(s) shown unfolded"
    assert visible_checks, "one click does not show a check's code"
    assert not problems, "\n".join(problems)
