"""``dadp-book build``: execute the chapters of a profile, stage the book, render the HTML.

Layout of a build folder (default ``_build``)::

    _build/stage/              the book as Jupyter Book sees it (config, toc, book/ with its
                               executed pages, executed notebooks/*.ipynb and the files
                               each chapter wrote)
    _build/stage/pages/        executable pages (e.g. the errata) as they were executed
    _build/jb/                 Jupyter Book's own output tree
    _build/html/               the rendered book
    _build/timings.json        per-chapter execution times of the last build

Each chapter executes in a private working folder; its notebook and the files it wrote are
then copied to ``stage/notebooks``. Nothing is written next to the sources.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dadp_lite.book.discovery import (
    convert_chapter,
    convert_page,
    list_chapters,
    list_pages,
    resolve_chapter,
)
from dadp_lite.book.errors import BuildError
from dadp_lite.book.execute import Execution
from dadp_lite.book.outputs import clean_stale_temps
from dadp_lite.book.parameters import load_profile, profile_values, validate_parameters
from dadp_lite.book.render import render_html
from dadp_lite.book.runners import check_jobs, local_runner
from dadp_lite.book.stage import stage_book

__all__ = [
    "ChapterResult",
    "build_book",
    "execute_book",
    "execute_chapters",
    "select_chapters",
]


@dataclass
class ChapterResult:
    """Outcome of executing one chapter (or executable page) of a build.

    ``page`` is the page's path without suffix relative to the book (``notebooks/<slug>``
    or ``book/errata``).
    """

    slug: str
    seconds: float
    output: Path
    error: str | None = None
    parameters: dict = field(default_factory=dict)
    page: str = ""

    def __post_init__(self) -> None:
        self.page = self.page or f"notebooks/{self.slug}"


def select_chapters(root: Path, chapters: Sequence[str] | None) -> list[str]:
    """Slugs of the named chapters (all of ``_toc.yml`` if none); naming one twice is refused."""
    if chapters is None:
        return list_chapters(root)
    slugs = [resolve_chapter(root, c) for c in chapters]
    if not slugs:
        raise BuildError("--chapters names no chapter")
    twice = sorted({s for s in slugs if slugs.count(s) > 1})
    if twice:
        raise BuildError(f"--chapters names {', '.join(twice)} more than once")
    return slugs


def _profile_values(root: Path, slugs: Sequence[str], profile: str) -> dict[str, dict]:
    params = load_profile(root, profile)
    unknown = sorted(set(params) - set(list_chapters(root)))
    if unknown:
        raise BuildError(f"profiles/{profile}.yml names chapters not in _toc.yml: {unknown}")
    return {
        slug: validate_parameters(root, slug, profile_values(root, slug, profile)) for slug in slugs
    }


def _store(execution: Execution, workdir: Path, values: dict) -> ChapterResult:
    output = execution.save(workdir)
    return ChapterResult(execution.slug, execution.seconds, output, execution.error, values)


def _page_parameters(root: Path, page: str) -> dict:
    """A page gets the book's root as ``BOOK_ROOT`` when its parameters cell asks for it
    (a page runs in a private folder, so it reads repository files through it)."""
    import jupytext

    notebook = jupytext.read(root / f"{page}.md")
    tagged = [c for c in notebook.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    wants_root = any("BOOK_ROOT" in cell.source for cell in tagged)
    return {"BOOK_ROOT": str(root.resolve())} if wants_root else {}


def execute_book(
    root: Path, slugs: Sequence[str], profile: str, stage: Path, jobs: int
) -> tuple[list[ChapterResult], list[ChapterResult]]:
    """Execute chapters (with a profile's values) and the executable pages, in one pool.

    Chapters are saved in ``stage/notebooks``, pages in ``stage/pages``. Every chapter's
    values are checked before the first kernel starts. Returns (chapters, pages), in order.
    """
    values = _profile_values(root, slugs, profile)
    jobs = check_jobs(jobs)
    pages = list_pages(root)
    tasks = [(convert_chapter(root, slug), slug, values[slug]) for slug in slugs]
    tasks += [(convert_page(root, page), Path(page).name, _page_parameters(root, page))
              for page in pages]  # fmt: skip
    folders = [stage / "notebooks"] * len(slugs) + [stage / "pages"] * len(pages)
    names = [f"notebooks/{slug}" for slug in slugs] + pages
    for folder in set(folders):
        folder.mkdir(parents=True, exist_ok=True)
    clean_stale_temps(stage)
    results: dict[int, ChapterResult] = {}
    with local_runner(jobs, stage) as run:
        for i, outcome in run(tasks):
            if isinstance(outcome, BaseException):
                outcome = Execution(tasks[i][1], b"", {}, 0.0, f"{names[i]}.md: {outcome}")
            result = _store(outcome, folders[i], tasks[i][2])
            result.page = names[i]
            results[i] = result
    ordered = [results[i] for i in range(len(tasks))]
    for result in ordered:
        state = "FAILED" if result.error else "ok"
        print(f"  {result.page:55s} {result.seconds:7.1f} s  {state}", flush=True)
    return ordered[: len(slugs)], ordered[len(slugs) :]


def execute_chapters(
    root: Path, slugs: Sequence[str], profile: str, workdir: Path, jobs: int
) -> list[ChapterResult]:
    """Execute chapters with a profile's values in parallel processes; results in order.

    Every chapter's values are checked before the first kernel starts.
    """
    values = _profile_values(root, slugs, profile)
    jobs = check_jobs(jobs)
    tasks = [(convert_chapter(root, slug), slug, values[slug]) for slug in slugs]
    workdir.mkdir(parents=True, exist_ok=True)
    clean_stale_temps(workdir.parent)
    results: dict[int, ChapterResult] = {}
    with local_runner(jobs, workdir.parent) as run:
        for i, outcome in run(tasks):
            if isinstance(outcome, BaseException):
                outcome = Execution(slugs[i], b"", {}, 0.0, f"notebooks/{slugs[i]}.md: {outcome}")
            results[i] = _store(outcome, workdir, values[slugs[i]])
    ordered = [results[i] for i in range(len(slugs))]
    for result in ordered:
        state = "FAILED" if result.error else "ok"
        print(f"  {result.slug:45s} {result.seconds:7.1f} s  {state}", flush=True)
    return ordered


def build_book(
    root: Path,
    profile: str = "quick",
    chapters: Sequence[str] | None = None,
    build_dir: Path | None = None,
    jobs: int | None = None,
    html: bool = True,
) -> Path:
    """Execute the chapters of a profile and render the book; returns the HTML folder."""
    slugs = select_chapters(root, chapters)
    jobs = check_jobs(jobs)
    _profile_values(root, slugs, profile)  # refuse bad values before anything is written
    build_dir = Path(build_dir or root / "_build").resolve()
    stage = build_dir / "stage"
    print(f"Executing {len(slugs)} chapter(s) with profile '{profile}' ({jobs} worker(s))")
    start = time.perf_counter()
    results, pages = execute_book(root, slugs, profile, stage, jobs)
    wall = time.perf_counter() - start
    timings = {
        "profile": profile,
        "wall_seconds": wall,
        "chapters": {r.slug: r.seconds for r in results},
        "pages": {r.page: r.seconds for r in pages},
    }
    (build_dir / "timings.json").write_text(json.dumps(timings, indent=2))
    failures = [r.error for r in results + pages if r.error]
    if failures:
        raise BuildError("execution failed:\n" + "\n".join(failures))
    if not html:
        return stage / "notebooks"
    stage_book(root, stage, slugs, results, profile, wall, jobs, pages=pages)
    out = render_html(stage, build_dir)
    print(f"Book built in {time.perf_counter() - start:.0f} s: {out / 'index.html'}")
    return out
