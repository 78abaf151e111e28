"""The solutions of a chapter as a PDF for the teacher: the instructor notebook, printed.

nbconvert renders the instructor notebook to HTML (code, solution text, every test with
its feedback); MathJax 3 from the locked ``sphinx-mathjax-offline`` package typesets the
math offline; headless Chromium (Debian's, through Playwright, as for the book's PDF)
prints it to A4. Every request that is not a local file is refused.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from dadp_book.errors import BuildError

__all__ = ["print_solutions", "solutions_unavailable"]

_MATHJAX_BLOCK = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.S)
_MATHJAX_CONFIG = """<script>
window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']],
                        displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']], processEscapes: true},
                  options: {enableMenu: false}};
</script>
<script src="mathjax/tex-chtml.js"></script>"""


def _mathjax_folder() -> Path | None:
    import site
    import sys

    for base in [*site.getsitepackages(), *sys.path]:
        folder = Path(base) / "sphinx-mathjax-offline" / "static" / "mathjax"
        if (folder / "tex-chtml.js").is_file():
            return folder
    return None


def solutions_unavailable() -> str | None:
    """None if solution PDFs can be printed here; otherwise why not."""
    from dadp_book.pdf import CHROMIUM

    if not Path(CHROMIUM).is_file():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed"
    if _mathjax_folder() is None:
        return "MathJax (sphinx-mathjax-offline) is not installed"
    return None


def print_solutions(notebooks: list[Path], folder: Path) -> list[Path]:
    """Print each instructor notebook to ``folder/<name>.pdf``; the PDFs written."""
    from nbconvert import HTMLExporter
    from playwright.sync_api import sync_playwright

    from dadp_book.pdf import CHROMIUM, CHROMIUM_FLAGS

    exporter = HTMLExporter(template_name="lab")
    written = []
    with tempfile.TemporaryDirectory(prefix="dadp-solutions-") as tmp:
        site = Path(tmp)
        shutil.copytree(_mathjax_folder(), site / "mathjax")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            try:
                page = browser.new_page()
                page.route(
                    "**/*",
                    lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort(),
                )
                for notebook in notebooks:
                    body, _ = exporter.from_filename(str(notebook))
                    body = _MATHJAX_BLOCK.sub(lambda _: _MATHJAX_CONFIG, body, count=1)
                    html = site / f"{notebook.stem}.html"
                    html.write_text(body, encoding="utf-8")
                    page.goto(html.as_uri(), wait_until="load", timeout=120_000)
                    page.evaluate("() => MathJax.startup.promise")
                    pdf = folder / f"{notebook.stem}.pdf"
                    page.pdf(
                        path=str(pdf),
                        format="A4",
                        print_background=True,
                        margin={"top": "14mm", "bottom": "14mm", "left": "12mm", "right": "12mm"},
                    )
                    written.append(pdf)
            finally:
                browser.close()
    if len(written) != len(notebooks):
        raise BuildError("the solutions were not all printed")
    return written
