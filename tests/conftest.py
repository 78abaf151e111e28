"""Shared fixtures. Data come from $DADP_DATA_DIR (CI) or the user cache.

The book fixtures (``executed``, ``html``) build the book ONCE per session for every test
file that needs it (tests/test_book.py, tests/test_browser.py): chapters execute with the
quick profile in parallel, then the HTML is rendered in strict mode. The build goes into a
pytest temp folder, or into $DADP_TEST_BUILD_DIR when set (to keep and inspect it, e.g.
the browser screenshots in <build>/screenshots).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def root() -> Path:
    """The book's root folder."""
    return ROOT


@pytest.fixture(scope="session")
def ma_records():
    """Recoded MA records (verified)."""
    import dadp_lite as dl

    return dl.load_records("ma2019")


@pytest.fixture(scope="session")
def ma_histogram(ma_records):
    """The paper's five-feature histogram of MA (540 cells)."""
    import dadp_lite as dl

    return dl.histogram_of(ma_records)


# ------------------------------------------------------------- the book build
@pytest.fixture(scope="session")
def book_chapters() -> list[str]:
    """Chapter slugs of _toc.yml, in order."""
    from dadp_book.discovery import list_chapters

    return list_chapters(ROOT)


@pytest.fixture(scope="session")
def book_build_dir(tmp_path_factory) -> Path:
    """Build folder of the session's book ($DADP_TEST_BUILD_DIR or a pytest temp folder)."""
    chosen = os.environ.get("DADP_TEST_BUILD_DIR")
    if chosen:
        path = Path(chosen).resolve()
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("book")


@pytest.fixture(scope="session")
def executed(book_build_dir, book_chapters):
    """Execute all chapters and the executable pages (the errata) once.

    Returns ({slug: ChapterResult}, the build folder, the stage folder, the wall time,
    {page: ChapterResult} for the pages, e.g. ``"book/errata"``).
    """
    import time

    from dadp_book.build import FINDINGS_STORE, execute_book

    os.environ[FINDINGS_STORE] = str(book_build_dir / "findings")  # as dadp-book build does
    stage = book_build_dir / "stage"
    jobs = min(os.cpu_count() or 1, 2)
    start = time.perf_counter()
    chapters, pages = execute_book(ROOT, book_chapters, "quick", stage, jobs)
    wall = time.perf_counter() - start
    return {r.slug: r for r in chapters}, book_build_dir, stage, wall, {r.page: r for r in pages}


@pytest.fixture(scope="session")
def html(executed, book_chapters):
    """Render the HTML (strict) from the executed notebooks; failed chapters fail it first."""
    from dadp_book.render import render_html
    from dadp_book.stage import stage_book

    results, build_dir, stage, wall, pages = executed
    failed = [r.error for r in [*results.values(), *pages.values()] if r.error]
    if failed:
        pytest.fail("cannot render the book, execution failed:\n" + "\n".join(failed))
    jobs = min(os.cpu_count() or 1, 2)
    stage_book(
        ROOT, stage, book_chapters, list(results.values()), "quick", wall, jobs,
        pages=list(pages.values()),
    )  # fmt: skip
    return render_html(stage, build_dir)
