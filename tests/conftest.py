"""Shared fixtures and the test tiers. Data come from $DADP_DATA_DIR (CI) or the user cache.

Tiers (markers registered in pyproject.toml): unmarked tests are the unit tier (``make
unit``); ``book`` tests execute chapters or read the session's quick book; ``slow`` tests
(course grading, Dask, the PDF, full-size comparisons ...) and ``seed_sweep`` run only in
``make check``. ``make test`` is the unit and book tiers on two workers (pytest-xdist).

The book fixtures (``executed``, ``html``) build the quick book ONCE per session for every
test that needs it, however many workers run: the first worker to ask builds it under a
file lock (chapters execute with the quick profile in parallel, then the HTML is rendered
in strict mode) and leaves what it built for the others. The build goes into a pytest
temp folder shared by the session's workers, or into $DADP_TEST_BUILD_DIR when set (to
keep and inspect it, e.g. the browser screenshots in <build>/screenshots); its build
cache (<build>/cache) then serves the next session: only chapters whose inputs changed
execute again.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# ------------------------------------------------------------------ the tiers
#: The slow tier (marker ``slow``: ``make check`` only), one table: test file -> the test
#: names in it that are slow (``"*"``: the whole file), each with why (times measured with
#: ``pytest --durations=40`` on 2 cores, idle to load 8). An entry that names no test fails
#: the collection: a renamed slow test must not slip into ``make test``.
SLOW: dict[str, dict[str, str]] = {
    "test_pdf.py": {"*": "renders the single-page book and prints it with Chromium (2-8 min)"},
    "test_range_ends.py": {
        "test_a_chapter_runs_at_the_ends_of_its_epsilon_range": "executes every chapter at "
        "both ends of its epsilon ranges (2-6 min)",
    },
    "test_course_class.py": {"*": "builds the course kit and grades a class in a sandbox"},
    "test_course_gradescope.py": {"*": "builds a Gradescope autograder's environment with uv"},
    "test_course.py": {
        name: "builds the course kit of every chapter"
        for name in (
            "test_the_kit_has_three_views_of_every_chapter",
            "test_student_notebooks_hold_no_solution_and_no_hidden_test",
            "test_a_kit_is_never_replaced_without_force",
            "test_grade_out_is_checked_before_grading",
            "test_a_disk_too_full_for_the_outputs_is_refused_before_grading",
        )
    },
    "test_sweep.py": {
        "test_a_sweep_on_a_dask_local_cluster_equals_the_local_sweep_byte_for_byte": "Dask",
    },
    "test_cli.py": {"test_sweep_runs_on_a_dask_local_cluster": "Dask"},
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark the :data:`SLOW` tests ``slow``; keep each module's tests on one pytest-xdist
    worker (its module fixtures then run once), except :data:`SPREAD` modules."""
    seen: set[tuple[str, str]] = set()
    files = set()
    for item in items:
        name = Path(str(item.fspath)).name
        files.add(name)
        table = SLOW.get(name, {})
        test = item.originalname if hasattr(item, "originalname") else item.name
        for key in ("*", test):
            if key in table:
                seen.add((name, key))
                item.add_marker(pytest.mark.slow)
        if name not in SPREAD:
            item.add_marker(pytest.mark.xdist_group(name))
    missing = [f"{f}::{t}" for f, tests in SLOW.items() if f in files
               for t in tests if (f, t) not in seen]  # fmt: skip
    if missing:
        raise pytest.UsageError(f"tests/conftest.py SLOW names tests that do not exist: {missing}")


_BOOK_IN_SESSION = pytest.StashKey[bool]()


def pytest_collection_finish(session):
    """Remember whether this session builds the quick book (a selected test needs it)."""
    needs = {"executed", "html"}
    wanted = any(needs & set(getattr(item, "fixturenames", ())) for item in session.items)
    session.config.stash[_BOOK_IN_SESSION] = wanted


@pytest.fixture(scope="session")
def findings_store(request) -> Path | None:
    """The quick build's findings store (``DADP_FINDINGS_STORE``, set for the rest of the
    session) when this session builds the book anyway, else None: a test then reads each
    finding the build's chapters computed (same settings, same sources) instead of
    computing it again; without the book, it computes them."""
    if not request.config.stash.get(_BOOK_IN_SESSION, False):
        return None
    return request.getfixturevalue("executed")[1] / "findings"


#: Modules whose tests pytest-xdist spreads over the workers (cheap module fixtures, long
#: tests): the browser crawl, one test per page and width.
SPREAD = {"test_browser.py"}


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
    """Build folder of the session's book ($DADP_TEST_BUILD_DIR, or a pytest temp folder
    that every worker of the session shares)."""
    chosen = os.environ.get("DADP_TEST_BUILD_DIR")
    if chosen:
        path = Path(chosen).resolve()
    elif _worker() == "master":  # one process: its own temp folder
        path = tmp_path_factory.getbasetemp() / "book"
    else:  # the workers' temp folders are side by side in the session's
        path = tmp_path_factory.getbasetemp().parent / "book"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _worker() -> str:
    """This process's pytest-xdist worker (``gw0``, ...), ``master`` without workers."""
    return os.environ.get("PYTEST_XDIST_WORKER", "master")


def _session_id() -> str:
    """One name for the whole session, the same in every worker."""
    return os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"solo-{os.getpid()}"


@pytest.fixture(scope="session")
def executed(book_build_dir, book_chapters):
    """Execute all chapters and the executable pages (the errata) once per session.

    Returns ({slug: ChapterResult}, the build folder, the stage folder, the wall time,
    {page: ChapterResult} for the pages, e.g. ``"book/errata"``). Unchanged chapters are
    reused from the build folder's cache (a kept $DADP_TEST_BUILD_DIR).
    """
    import time

    from filelock import FileLock

    from dadp_book.build import FINDINGS_STORE, execute_book
    from dadp_book.cache import BuildCache

    os.environ[FINDINGS_STORE] = str(book_build_dir / "findings")  # as dadp-book build does
    stage = book_build_dir / "stage"
    done = book_build_dir / f".executed-{_session_id()}.pickle"
    with FileLock(str(book_build_dir / ".executed.lock")):
        if done.is_file():  # another worker of this session built it
            chapters, pages, wall = pickle.loads(done.read_bytes())
        else:
            for old in book_build_dir.glob(".executed-*.pickle"):  # earlier sessions'
                old.unlink()
            jobs = min(os.cpu_count() or 1, 2)
            start = time.perf_counter()
            cache = BuildCache(book_build_dir / "cache", ROOT)
            chapters, pages = execute_book(ROOT, book_chapters, "quick", stage, jobs, cache)
            wall = time.perf_counter() - start
            done.write_bytes(pickle.dumps((chapters, pages, wall)))
    return {r.slug: r for r in chapters}, book_build_dir, stage, wall, {r.page: r for r in pages}


@pytest.fixture(scope="session")
def html(executed, book_chapters):
    """Render the HTML (strict) from the executed notebooks, once per session (a worker
    that comes second finds it rendered); failed chapters fail it first."""
    from filelock import FileLock

    from dadp_book.render import render_html
    from dadp_book.stage import stage_book

    results, build_dir, stage, wall, pages = executed
    failed = [r.error for r in [*results.values(), *pages.values()] if r.error]
    if failed:
        pytest.fail("cannot render the book, execution failed:\n" + "\n".join(failed))
    jobs = min(os.cpu_count() or 1, 2)
    done = build_dir / f".html-{_session_id()}"
    with FileLock(str(build_dir / ".executed.lock")):
        if done.is_file():  # another worker of this session rendered it
            return Path(done.read_text())
        for old in build_dir.glob(".html-*"):  # earlier sessions'
            old.unlink()
        stage_book(
            ROOT, stage, book_chapters, list(results.values()), "quick", wall, jobs,
            pages=list(pages.values()),
        )  # fmt: skip
        out = render_html(stage, build_dir)
        done.write_text(str(out))
        return out
