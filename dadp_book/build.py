"""``dadp-book build``: execute the chapters of a profile, stage the book, render the HTML.

Layout of a build folder (default ``_build``; nothing is written next to the sources)::

    stage/            the book as Jupyter Book sees it (config, toc, book/ with its executed
                      pages, executed notebooks/*.ipynb and the files each chapter wrote)
    stage/pages/      executable pages (e.g. the errata) as they were executed
    cache/            the build cache (:mod:`dadp_book.cache`)
    jb/, html/        Jupyter Book's own output tree, the rendered book
    timings.json      per-chapter execution times of the last build
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dadp_book.cache import (
    BuildCache,
    Lookup,
    cache_key,
    cache_record,
    current_sha256,
    merge_outputs,
    timestamp,
)
from dadp_book.discovery import (
    convert_chapter,
    convert_page,
    list_chapters,
    list_pages,
    resolve_chapter,
)
from dadp_book.errors import BuildError
from dadp_book.execute import Execution, show_values
from dadp_book.outputs import (
    check_free_space,
    clean_stale_temps,
    exclusive_output,
    read_json,
    write_atomic,
)
from dadp_book.parameters import (
    chapter_parameters,
    effective_parameters,
    load_profile,
    profile_values,
    validate_parameters,
)
from dadp_book.provenance import check_datasets, dataset_record
from dadp_book.render import render_html
from dadp_book.runners import check_jobs, local_runner
from dadp_book.stage import resolve_notebook_links, stage_book

__all__ = [
    "FINDINGS_STORE", "ChapterResult", "chapter_values", "build_book", "execute_book",
    "execute_chapters", "select_chapters",
]  # fmt: skip

#: The environment variable that names the folder where the kernels of a build share the
#: findings they computed (``dadp_lite.errata.STORE_VARIABLE``): a chapter computes its
#: findings once, and the errata and landing pages, which run after the chapters, read them.
FINDINGS_STORE = "DADP_FINDINGS_STORE"


@dataclass
class ChapterResult:
    """Outcome of one chapter (or executable page, ``page`` as ``book/errata``) of a build:
    ``reused`` from the cache (``seconds`` and ``executed_at`` of the execution that made
    it), or why it ran (``reason``); ``notes``: links to chapters left out, made text."""

    slug: str
    seconds: float
    output: Path
    error: str | None = None
    parameters: dict = field(default_factory=dict)
    page: str = ""
    reused: bool = False
    reason: str = ""
    executed_at: str = ""
    key: str = ""
    notes: list[str] = field(default_factory=list)

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


def _page_parameters(root: Path, notebook: str, profile: str) -> tuple[dict, dict]:
    """(values passed, values shown) for what a page's parameters cell asks for:
    ``BOOK_ROOT``, the book's root (shown as ``"."``, the folder as a reader names it), to
    read repository files from its private folder; ``CHAPTER_VALUES``, :func:`chapter_values`,
    so that a finding is evaluated at the values its chapter runs with."""
    cells = json.loads(notebook)["cells"]
    tagged = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    source = "\n".join("".join(cell["source"]) for cell in tagged)
    passed: dict = {}
    shown: dict = {}
    if "BOOK_ROOT" in source:
        passed["BOOK_ROOT"], shown["BOOK_ROOT"] = str(root.resolve()), "."
    if "CHAPTER_VALUES" in source:
        passed["CHAPTER_VALUES"] = chapter_values(root, profile)
    return passed, shown


def chapter_values(root: Path, profile: str) -> dict[str, dict]:
    """``{slug: {NAME: value}}``: what each chapter runs with in a build of ``profile``."""
    values = _profile_values(root, list_chapters(root), profile)
    return {slug: effective_parameters(root, slug, v) for slug, v in values.items()}


def _dataset_files(root: Path, slug: str, values: dict) -> dict[str, str]:
    """SHA-256 of each dataset file a chapter's dataset parameters name (registered
    excerpts are tracked as files read)."""
    from dadp_lite.data import DATASETS

    effective = effective_parameters(root, slug, values)
    found = {}
    for parameter in chapter_parameters(root, slug):
        if parameter.spec is None or parameter.spec.kind != "dataset":
            continue
        value = effective.get(parameter.name)
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            if isinstance(item, str) and item not in DATASETS:
                name = parameter.name if len(items) == 1 else f"{parameter.name}[{i}]"
                found[name] = current_sha256(str(Path(item).resolve())) or "missing"
    return found


@dataclass
class _Job:
    """One chapter or page of a build: its source, values and where its result goes."""

    root: Path
    page: str
    name: str
    notebook: str
    parameters: dict
    shown: dict
    folder: Path
    record: dict = field(default_factory=dict)
    entry: Path | None = None  # of the cache, to reuse
    reason: str = ""


class DataInForce:
    """The datasets this build would read now, each located, read, hashed and validated
    once, as ``dadp-book run`` does (a bad one is a :class:`BuildError` with run's message)."""

    def __init__(self) -> None:
        self.known: dict[str, dict] = {}

    def excerpt_sha256(self, name: str) -> str:
        """The SHA-256 of the registered excerpt ``name`` where it would be read now."""
        if name not in self.known:
            self.known[name] = dataset_record(name, locate=True)
        return str(self.known[name]["sha256"])


def _plan(
    root: Path, slugs: Sequence[str], profile: str, stage: Path, with_pages: bool, folder: Path
) -> list[_Job]:
    values = _profile_values(root, slugs, profile)
    jobs = []
    for slug in slugs:
        notebook = convert_chapter(root, slug)
        jobs.append(_Job(root, f"notebooks/{slug}", slug, notebook, values[slug], {}, folder))
    for page in list_pages(root) if with_pages else ():
        notebook = convert_page(root, page)
        passed, shown = _page_parameters(root, notebook, profile)
        jobs.append(_Job(root, page, Path(page).name, notebook, passed, shown, stage / "pages"))
    return jobs


def _record(root: Path, job: _Job, profile: str) -> dict:
    if job.page.startswith("notebooks/"):
        datasets = _dataset_files(root, job.name, job.parameters)
        return cache_record(job.page, job.notebook, job.parameters, profile, datasets)
    return cache_record(job.page, job.notebook, job.parameters, None)  # no profile values


def _staged(job: _Job, built: Sequence[str] | None, run: Execution, **result: Any) -> ChapterResult:
    """Stage a result: its outputs merged into the current source; in a partial build
    (``built`` given), links to chapters left out become text (one note each)."""
    merged = merge_outputs(job.notebook, run.notebook)
    found: list[str] = []
    if built is not None:
        merged, found = resolve_notebook_links(job.root, merged, built)
    output = Execution(job.name, merged, run.files, run.seconds).save(job.folder)
    notes = [f"{job.page}: {note}" for note in found]
    return ChapterResult(
        job.name, run.seconds, output, None, job.parameters, job.page, notes=notes, **result
    )


def _reuse(cache: BuildCache, entry: Path, job: _Job, built: Sequence[str] | None) -> ChapterResult:
    """Stage a cached result."""
    content, notebook, files = cache.load(entry)
    run = Execution(job.name, notebook, files, content["seconds"])
    at, key = content["executed_at"], content["key"]
    return _staged(job, built, run, reused=True, executed_at=at, key=key)


def _finished(
    cache: BuildCache | None, job: _Job, outcome: Execution, built: Sequence[str] | None
) -> ChapterResult:
    """Stage (and cache) a page that ran: one parameters cell, outputs in the source."""
    executed_at = timestamp()
    outcome.seconds = round(outcome.seconds, 2)  # as stored: a reuse shows the same status
    if outcome.error or not outcome.notebook:
        output = outcome.save(job.folder)  # as papermill wrote it, traceback included
        return ChapterResult(
            job.name, outcome.seconds, output, outcome.error, job.parameters, job.page,
            reason=job.reason, executed_at=executed_at,
        )  # fmt: skip
    if job.shown:
        outcome.notebook = show_values(outcome.notebook, job.shown)
    if cache is not None:
        cache.store(job.record, outcome, executed_at)
    key = cache_key(job.record) if cache is not None else ""
    return _staged(job, built, outcome, reason=job.reason, executed_at=executed_at, key=key)


def _report(results: Sequence[ChapterResult], cached: bool) -> None:
    for result in results:
        if result.error:
            state = "FAILED" + (f" (ran: {result.reason})" if result.reason else "")
        elif result.reused:
            state = f"reused (executed {result.executed_at})"
        else:
            state = f"ran: {result.reason}" if result.reason else "ok"
        print(f"  {result.page:50s} {result.seconds:7.1f} s  {state}", flush=True)
    if cached:
        reused = sum(r.reused for r in results)
        print(f"  {reused} reused from the build cache, {len(results) - reused} executed")


def execute_book(
    root: Path,
    slugs: Sequence[str],
    profile: str,
    stage: Path,
    jobs: int,
    cache: BuildCache | None = None,
    force: bool = False,
    with_pages: bool | None = None,
    notebooks: Path | None = None,
) -> tuple[list[ChapterResult], list[ChapterResult]]:
    """Execute chapters (with a profile's values, into ``notebooks``, default
    ``stage/notebooks``) and then, if every chapter is built or ``with_pages`` asks, the
    executable pages (into ``stage/pages``); returns (chapters, pages). Values and datasets
    are checked first; with a ``cache``, unchanged pages are reused unless ``force``."""
    jobs = check_jobs(jobs)
    built = None if set(slugs) == set(list_chapters(root)) else list(slugs)
    pages = built is None if with_pages is None else with_pages
    plan = _plan(root, slugs, profile, stage, pages, notebooks or stage / "notebooks")
    data = DataInForce()
    for job in plan:  # the data in force, before anything is written, reused or executed
        if job.page.startswith("notebooks/"):
            check_datasets(root, job.name, job.parameters, True, data.known)
    for job in plan:  # every lookup first: an excerpt refused reuses nothing
        if cache is not None:
            job.record = _record(root, job, profile)
            found = (
                Lookup(None, "--force") if force else cache.lookup(job.record, data.excerpt_sha256)
            )
            job.entry, job.reason = found.entry, found.reason
    for folder in {job.folder for job in plan}:
        folder.mkdir(parents=True, exist_ok=True)
    clean_stale_temps(stage)
    results: dict[int, ChapterResult] = {}
    for i, job in enumerate(plan):
        if cache is not None and job.entry is not None:
            try:
                results[i] = _reuse(cache, job.entry, job, built)
            except (OSError, ValueError, KeyError) as error:  # does not fit: run it again
                cache.discard(job.entry)
                job.reason = f"cached result unusable ({error}): rebuilt"
    todo = [i for i in range(len(plan)) if i not in results]
    chapters = [i for i in todo if i < len(slugs)]
    for phase in (chapters, [i for i in todo if i >= len(slugs)]):  # pages read the chapters'
        if not phase:
            continue
        tasks = [(plan[i].notebook, plan[i].name, plan[i].parameters) for i in phase]
        with local_runner(jobs, stage) as run:
            for k, outcome in run(tasks):
                job = plan[phase[k]]
                if isinstance(outcome, BaseException):
                    outcome = Execution(job.name, b"", {}, 0.0, f"{job.page}.md: {outcome}")
                results[phase[k]] = _finished(cache, job, outcome, built)
                check_free_space(stage, "the rest of the build")  # stop now, not at the end
    ordered = [results[i] for i in range(len(plan))]
    _report(ordered, cache is not None)
    return ordered[: len(slugs)], ordered[len(slugs) :]


def execute_chapters(
    root: Path, slugs: Sequence[str], profile: str, workdir: Path, jobs: int
) -> list[ChapterResult]:
    """Execute chapters with a profile's values (no cache, no page) into ``workdir``."""
    chapters, _ = execute_book(
        root, slugs, profile, workdir.parent, jobs, with_pages=False, notebooks=workdir
    )
    return chapters


def build_book(
    root: Path,
    profile: str = "quick",
    chapters: Sequence[str] | None = None,
    build_dir: Path | None = None,
    jobs: int | None = None,
    html: bool = True,
    force: bool = False,
    with_pages: bool = False,
) -> Path:
    """Execute the chapters of a profile (:func:`execute_book`), stage the book (a page not
    run as a stub: :func:`dadp_book.stage.stage_book`) and render it if it changed
    (:func:`dadp_book.render.render_html`); returns the HTML folder."""
    slugs = select_chapters(root, chapters)
    with_pages = with_pages or set(slugs) == set(list_chapters(root))
    jobs = check_jobs(jobs)
    _profile_values(root, slugs, profile)  # refuse bad values before anything is written
    build_dir = Path(build_dir or root / "_build").resolve()
    stage = build_dir / "stage"
    cache = BuildCache(build_dir / "cache", root)
    os.environ[FINDINGS_STORE] = str(build_dir / "findings")  # the kernels share results
    print(
        f"Executing {len(slugs)} chapter(s)"
        + ("" if with_pages else " and no page")
        + f" with profile '{profile}' ({jobs} worker(s)); "
        + ("--force: nothing reused" if force else f"reusing unchanged results from {cache.folder}")
    )
    start = time.perf_counter()
    with exclusive_output(build_dir, "a build"):  # SIGTERM stops the workers and kernels
        results, pages = execute_book(
            root, slugs, profile, stage, jobs, cache=cache, force=force, with_pages=with_pages
        )
        wall = time.perf_counter() - start
        timings = _timings(build_dir, profile, wall, results + pages)
        write_atomic(
            build_dir / "timings.json", lambda p: p.write_text(json.dumps(timings, indent=2))
        )
        failures = [r.error for r in results + pages if r.error]
        if failures:
            raise BuildError("execution failed:\n" + "\n".join(failures))
        if not html:
            return stage / "notebooks"
        stage_book(root, stage, slugs, results, profile, timings["book_wall_seconds"], jobs, pages)
        out = render_html(stage, build_dir)
    print(f"Book built in {time.perf_counter() - start:.1f} s: {out / 'index.html'}")
    return out


def _timings(build_dir: Path, profile: str, wall: float, results: Sequence[ChapterResult]) -> dict:
    """``timings.json``: this build's times, and the wall-clock time of executing every
    result shown (this build's, or the earlier build's for the same results, else none)."""
    keys = {r.page: r.key for r in results}
    book_wall: float | None = wall if not any(r.reused for r in results) else None
    previous = read_json(build_dir / "timings.json")
    if book_wall is None and previous.get("keys") == keys:
        book_wall = previous.get("book_wall_seconds")
    return {
        "profile": profile,
        "wall_seconds": wall,
        "book_wall_seconds": book_wall,
        "chapters": {r.slug: r.seconds for r in results if r.page.startswith("notebooks/")},
        "pages": {r.page: r.seconds for r in results if not r.page.startswith("notebooks/")},
        "reused": [r.page for r in results if r.reused],
        "executed": {r.page: r.reason for r in results if not r.reused},
        "keys": keys,
    }
