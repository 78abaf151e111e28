"""``dadp-book grade``: a folder of submitted notebooks -> one row per student and question.

Each notebook is graded by otter-grader in a grading process (:mod:`.worker`), ``jobs`` at
a time. Nothing a notebook does stops the batch: a cell that raises costs the questions it
prevents (the other cells still run), a notebook that overruns its time limit has its
running cell interrupted (what it answered before still counts), a notebook that is still
running ``HARD_MARGIN`` seconds later, or whose kernel dies, or that is not a notebook at
all, scores 0 with a line saying why; its grading process is replaced.

Submissions: ``SUBMISSIONS/<student>/<notebook>.ipynb`` (the student is the folder), or
``SUBMISSIONS/<name>.ipynb`` (the student is the file name without the chapter's slug).
The chapter is read from the notebook (otter's ``assignment_name``), else from its file name.
"""

from __future__ import annotations

import csv
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from dadp_book.course.kit import MANIFEST
from dadp_book.errors import BuildError
from dadp_book.outputs import interruptible

__all__ = ["COLUMNS", "HARD_MARGIN", "Submission", "find_submissions", "grade_submissions"]

COLUMNS = ("student", "chapter", "question", "score", "possible", "status", "note", "file")
#: Seconds past its time limit after which a notebook's grading is stopped outright.
HARD_MARGIN = 60.0


@dataclass
class Submission:
    """One submitted notebook: whose, which chapter (None if unknown), where."""

    student: str
    chapter: str | None
    path: Path | None
    file: str = ""
    result: dict = field(default_factory=dict)


def _assignment_name(path: Path) -> str | None:
    try:
        metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
        return metadata.get("otter", {}).get("assignment_name")
    except (OSError, ValueError, AttributeError):
        return None


def _chapter_of(path: Path, slugs: list[str]) -> str | None:
    name = _assignment_name(path)
    if name in slugs:
        return name
    in_name = [s for s in slugs if s in path.stem]
    if len(in_name) == 1:
        return in_name[0]
    numbered = [s for s in slugs if re.search(rf"(^|[^0-9]){s[:2]}-", path.stem)]
    return numbered[0] if len(numbered) == 1 else None


def _student_of(path: Path, folder: Path, chapter: str | None) -> str:
    relative = path.relative_to(folder)
    if len(relative.parts) > 1:
        return relative.parts[0]
    stem = path.stem.replace(chapter, "") if chapter else path.stem
    return stem.strip(" -_.") or path.stem


def find_submissions(folder: Path, slugs: list[str]) -> list[Submission]:
    """Every ``.ipynb`` below ``folder`` (checkpoints skipped), with its student and chapter."""
    found = []
    for path in sorted(Path(folder).rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        chapter = _chapter_of(path, slugs)
        student = _student_of(path, folder, chapter)
        found.append(Submission(student, chapter, path, path.relative_to(folder).as_posix()))
    return found


class _GradingProcess:
    """A worker process of :mod:`.worker`, replaced whenever it has to be stopped."""

    def __init__(self, log_path: Path) -> None:
        self._log = str(log_path)
        self._start()

    def _start(self) -> None:
        command = [sys.executable, "-m", "dadp_book.course.worker", self._log]
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self._messages: queue.Queue = queue.Queue()
        stdout, messages = self._process.stdout, self._messages

        def read() -> None:
            for line in stdout:
                messages.put(json.loads(line))
            messages.put(None)

        threading.Thread(target=read, daemon=True).start()
        self._kernel: int | None = None

    def stop(self) -> None:
        """Stop the process and its kernel at once (an interrupted batch)."""
        if self._process.poll() is None:
            self._kill()

    def _kill(self) -> None:
        for group in (self._kernel, self._process.pid):
            if group:
                try:
                    os.killpg(group, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        self._process.wait(timeout=30)
        for stream in (self._process.stdin, self._process.stdout):
            stream.close()

    def grade(self, notebook: Path, bundle: Path, limit: float) -> dict:
        task = {"notebook": str(notebook), "bundle": str(bundle), "limit": limit}
        deadline = time.monotonic() + limit + HARD_MARGIN
        try:
            self._process.stdin.write(json.dumps(task) + "\n")
            self._process.stdin.flush()
        except OSError:
            pass  # a dead process: reported below
        while True:
            try:
                message = self._messages.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                outcome = {
                    "status": "stopped",
                    "note": f"still running {limit + HARD_MARGIN:g} s after it started "
                    f"(time limit {limit:g} s): stopped, nothing graded",
                }
                break
            if message is None:
                outcome = {"status": "failed", "note": "its grading process died"}
                break
            if "kernel" in message:
                self._kernel = message["kernel"]
                continue
            self._kernel = None
            return message["result"]
        self._kill()
        self._start()
        return {**outcome, "questions": {}}

    def close(self) -> None:
        try:
            self._process.stdin.close()
            self._process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self._kill()


def _grade_all(
    tasks: list[tuple[Submission, Path]],
    jobs: int,
    limit: float,
    log_path: Path,
    progress: bool,
) -> None:
    pending: queue.SimpleQueue = queue.SimpleQueue()
    for task in tasks:
        pending.put(task)
    failures: list[BaseException] = []
    processes: list[_GradingProcess] = []
    bar = tqdm(total=len(tasks), unit="notebook", disable=not progress, file=sys.stderr)

    def drain() -> None:
        try:
            process = _GradingProcess(log_path)
            processes.append(process)
            while True:
                try:
                    submission, bundle = pending.get_nowait()
                except queue.Empty:
                    break
                submission.result = process.grade(submission.path, bundle, limit)
                bar.update()
            process.close()
        except BaseException as error:  # surfaces in the caller's thread
            failures.append(error)

    threads = [threading.Thread(target=drain, daemon=True) for _ in range(min(jobs, len(tasks)))]
    try:
        with interruptible():
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    except BaseException:  # interrupted: stop every grading process and its kernel
        for process in processes:
            process.stop()
        raise
    finally:
        bar.close()
    if failures:
        raise failures[0]


def _rows(submission: Submission, questions: list[dict]) -> list[dict]:
    result = submission.result
    status, note = result.get("status", "failed"), result.get("note", "")
    graded = result.get("questions", {})
    rows = []
    for question in questions:
        name, possible = question["name"], question["points"]
        row = {
            "student": submission.student,
            "chapter": submission.chapter,
            "question": name,
            "possible": f"{possible:g}",
            "file": submission.file,
        }
        if question["manual"]:
            row.update(score="", status="manual", note="graded by hand")
        elif name in graded:
            failures = "; ".join(graded[name]["failures"])
            row.update(
                score=f"{graded[name]['score']:g}",
                status=status,
                note="; ".join(part for part in (note, failures) if part),
            )
        else:
            row.update(score="0", status=status, note=note or "not graded")
        rows.append(row)
    return rows


def _check_options(jobs: object, limit: object) -> None:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise BuildError(f"--jobs must be a whole number >= 1, not {jobs!r}")
    if isinstance(limit, bool) or not isinstance(limit, int | float) or not limit > 0:
        raise BuildError(f"--timeout must be a number of seconds > 0, not {limit!r}")


def grade_submissions(
    kit: Path,
    submissions: Path,
    out: Path,
    *,
    jobs: int = 2,
    timeout: float = 120.0,
    progress: bool = False,
) -> tuple[list[dict], list[str]]:
    """Grade every notebook in ``submissions`` against the kit; write ``out`` (CSV).

    Returns the rows (one per student and question of every chapter submitted; a student
    who submitted nothing for such a chapter gets rows with status ``missing``) and one
    line per notebook that did not run cleanly. The grading log is ``out`` with suffix
    ``.log``; ``progress`` shows a progress bar on stderr.
    """
    _check_options(jobs, timeout)
    kit, submissions, out = Path(kit), Path(submissions), Path(out)
    if not (kit / MANIFEST).is_file():
        raise BuildError(
            f"{kit} is not a course kit (no {MANIFEST}); build one with "
            "'dadp-book course --out DIR'"
        )
    if not submissions.is_dir():
        raise BuildError(f"submissions folder {submissions} does not exist")
    chapters = json.loads((kit / MANIFEST).read_text())["chapters"]
    slugs = list(chapters)
    found = find_submissions(submissions, slugs)
    if not found:
        raise BuildError(f"no .ipynb files found in {submissions}")
    out.parent.mkdir(parents=True, exist_ok=True)
    log_path = out.with_suffix(".log")
    log_path.write_text("")
    lines: list[str] = []
    chosen: dict[tuple[str, str], Submission] = {}
    for submission in found:
        name = submission.file
        if submission.chapter is None:
            lines.append(f"{name}: not a notebook of this kit's chapters; not graded")
        elif (submission.student, submission.chapter) in chosen:
            lines.append(
                f"{name}: a second notebook of {submission.student} for "
                f"{submission.chapter}; not graded (the first one in name order is)"
            )
        else:
            chosen[submission.student, submission.chapter] = submission
    tasks = [(s, kit / "autograder" / f"{s.chapter}.zip") for s in chosen.values()]
    _grade_all(tasks, jobs, float(timeout), log_path, progress)
    students = sorted({s.student for s in found})
    submitted = [c for c in slugs if any(s.chapter == c for s in chosen.values())]
    rows = []
    for student in students:
        for chapter in submitted:
            submission = chosen.get((student, chapter))
            if submission is None:
                missing = {"status": "missing", "note": "no notebook submitted", "questions": {}}
                submission = Submission(student, chapter, None, "", missing)
            elif submission.result["status"] != "ok":
                result = submission.result
                lines.append(f"{submission.file}: {result['status']}: {result['note']}")
            rows += _rows(submission, chapters[chapter]["questions"])
    with open(out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return rows, lines
