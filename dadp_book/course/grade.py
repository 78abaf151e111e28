"""``dadp-book grade``: a folder of hand-ins -> scores, a gradebook and feedback for students.

Every file handed in is accounted for (a file that cannot be graded gets rows scoring 0 with
the reason); each notebook runs in the sandbox (:mod:`.sandbox`, :mod:`.runner`) and is
scored outside it (:mod:`.evaluate`). The submissions' layout and the outputs are described
in ``book/teaching.md`` ("The course kit").
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from tqdm import tqdm

from dadp_book.course import runner as runner_module
from dadp_book.course.evaluate import evaluate_question, read_bundle_tests
from dadp_book.course.kit import MANIFEST
from dadp_book.course.sandbox import UNPROTECTED, check_outside, check_sandbox, sandbox_command
from dadp_book.errors import BuildError
from dadp_book.outputs import interruptible

__all__ = ["COLUMNS", "MAX_TIMEOUT", "STATS", "Submission"]
__all__ += ["csv_cell", "find_submissions", "grade_submissions"]

COLUMNS = ("student", "chapter", "question", "score", "possible", "status", "note", "file")
#: The longest time limit per cell accepted (seconds): a day.
MAX_TIMEOUT = 86_400.0
#: Largest notebook accepted (bytes).
MAX_NOTEBOOK_BYTES = 50 * 2**20
#: Memory (address space) of the student's interpreter, bytes.
MEMORY_BYTES = 4 * 2**30
#: Largest file the student's code may write (bytes).
FILE_BYTES = 256 * 2**20
#: Processes the student's code may have at once.
PROCESSES = 256
#: Space kept free for the outputs before grading starts (bytes per hand-in, and at least).
RESERVE_PER_HANDIN, RESERVE_MIN = 256 * 2**10, 8 * 2**20
#: CPU seconds the sandboxes reported, and notebooks run, since the process started (for
#: ``benchmarks/bench_course.py``; the sandbox's processes are not the grader's children).
STATS = {"cpu": 0.0, "notebooks": 0}
_STATS_LOCK = threading.Lock()
_T = TypeVar("_T", list, dict)
_SPREADSHEET_ACTIVE = ("=", "+", "-", "@", "\t", "\r", "\n")
_OTTER_CELL = re.compile(
    r"^\s*(import otter\b.*|grader\s*=\s*otter\.Notebook\(.*\)|grader\.\w+\(.*\))\s*$"
)
_EXERCISE = re.compile(r"^#+\s*Exercise\s+\d+:\s*`(?P<label>[^`]+)`", re.M)


@dataclass
class Submission:
    """One hand-in: whose, which chapter (None if unknown), where, and how it went."""

    student: str
    chapter: str | None
    path: Path | None
    file: str = ""
    problem: str = ""  # why it cannot be graded (not a notebook, empty folder, ...)
    result: dict = field(default_factory=dict)


def csv_cell(value: object) -> str:
    """A CSV cell a spreadsheet shows as text: a leading ``= + - @`` (a formula) is quoted."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_SPREADSHEET_ACTIVE) else text


def _assignment_name(path: Path) -> str | None:
    try:
        metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
        return metadata.get("otter", {}).get("assignment_name")
    except (OSError, ValueError, AttributeError):
        return None


def _chapter_of(path: Path, slugs: list[str]) -> str | None:
    name = _assignment_name(path) if path.suffix == ".ipynb" else None
    if name in slugs:
        return name
    in_name = [s for s in slugs if s in path.stem]
    if len(in_name) == 1:
        return in_name[0]
    numbered = [s for s in slugs if re.search(rf"(^|[^0-9]){s[:2]}([^0-9]|$)", path.stem)]
    return numbered[0] if len(numbered) == 1 else None


def _student_of(path: Path, folder: Path, chapter: str | None) -> str:
    relative = path.relative_to(folder)
    if len(relative.parts) > 1:
        return relative.parts[0]
    stem = path.stem
    if chapter:
        stem = stem.replace(chapter, "")
        stem = re.sub(rf"(^|[-_. ]){chapter[:2]}($|[-_. ])", r"\1\2", stem)
    return stem.strip(" -_.") or path.stem


def find_submissions(folder: Path, slugs: list[str]) -> list[Submission]:
    """Every file below ``folder`` (checkpoints skipped) and every empty student folder."""
    found = []
    for path in sorted(Path(folder).rglob("*")):
        relative = path.relative_to(folder)
        if ".ipynb_checkpoints" in relative.parts:
            continue
        if path.is_dir():
            if len(relative.parts) == 1 and not any(path.iterdir()):
                empty = Submission(path.name, None, None, relative.as_posix() + "/")
                empty.problem = "the folder is empty"
                found.append(empty)
            continue
        chapter = _chapter_of(path, slugs)
        student = _student_of(path, folder, chapter)
        entry = Submission(student, chapter, path, relative.as_posix())
        if path.suffix != ".ipynb":
            entry.problem = f"not a notebook ({path.suffix or 'no extension'}): not graded"
        elif chapter is None:
            entry.problem = "a notebook of no chapter of this kit: not graded"
        found.append(entry)
    return found


# --------------------------------------------------------------------------- one notebook


def _cells(notebook: dict) -> list[dict]:
    """The notebook's code cells, each with the question whose heading precedes it."""
    cells, question = [], None
    for cell in notebook.get("cells", []):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if cell.get("cell_type") == "markdown" and (match := _EXERCISE.search(source)):
            question = match["label"]
        elif cell.get("cell_type") == "code":
            lines = [line.strip() for line in source.splitlines()]
            code = [line for line in lines if line and not line.startswith("#")]
            if code and all(_OTTER_CELL.match(line) for line in code):
                continue  # otter's own cells: the grader never runs the student's checks
            cells.append({"source": source, "question": question})
    return cells


def _read_notebook(path: Path) -> dict:
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"larger than {MAX_NOTEBOOK_BYTES // 2**20} MB")
    notebook = json.loads(path.read_bytes().decode("utf-8"))
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ValueError("no cells")
    return notebook


@dataclass
class _Grader:
    """Grades one notebook of a chapter whose grading spec and test files it holds."""

    limit: float
    sandboxed: bool
    work: Path
    specs: dict[str, dict]
    tests: dict[str, dict[str, str]]

    def run(self, job: Path, task: dict) -> dict | None:
        """Run the task in the sandbox; its report, or None if it ran out of time."""
        job.mkdir(mode=0o755)
        shutil.copy(runner_module.__file__, job / "runner.py")
        (job / "task.json").write_text(json.dumps(task))
        for child in job.iterdir():
            child.chmod(0o644)
        if self.sandboxed:
            command = sandbox_command(job)
        else:
            command = [sys.executable, str(job / "runner.py"), str(job / "task.json")]
        budget = self.limit * (2 * len(task["cells"]) + len(task["questions"]) + 2) + 120
        with tempfile.TemporaryFile() as out:
            try:  # a runner past its time is killed (bwrap --die-with-parent: all it started)
                subprocess.run(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.DEVNULL,
                    cwd=job,
                    start_new_session=True,
                    timeout=budget,
                )
            except subprocess.TimeoutExpired:
                return None
            out.seek(0)
            data = out.read(64 * runner_module.MAX_VALUE_CHARS)
        try:
            report = json.loads(data.decode("utf-8", "replace").strip().splitlines()[-1])
        except (ValueError, IndexError):
            report = None
        if not isinstance(report, dict):
            return {"cells": [], "questions": {}}
        cpu = report.get("cpu")
        with _STATS_LOCK:
            STATS["notebooks"] += 1
            STATS["cpu"] += float(cpu) if isinstance(cpu, int | float) else 0.0
        return report

    def grade(self, submission: Submission, index: int) -> dict:
        """``{"status", "note", "questions": {label: {...}}}`` for one notebook."""
        assert submission.path is not None and submission.chapter is not None
        try:
            notebook = _read_notebook(submission.path)
        except (OSError, ValueError, UnicodeDecodeError) as error:
            note = f"not a readable notebook ({type(error).__name__}: {str(error)[:200]})"
            return {"status": "failed", "note": note, "questions": {}}
        spec = self.specs[submission.chapter]
        cells = _cells(notebook)
        task = {
            "own_pid_namespace": self.sandboxed,
            "seconds": self.limit,
            "limits": {"RLIMIT_AS": MEMORY_BYTES, "RLIMIT_FSIZE": FILE_BYTES},
            "rlimits": {"RLIMIT_NPROC": _process_limit()},
            "cells": cells,
            "questions": [{"label": label, **q} for label, q in spec["questions"].items()],
        }
        report = self.run(self.work / f"job-{index}", task)
        if report is None:
            note = "still running far past its time limits: stopped, nothing graded"
            return {"status": "stopped", "note": note, "questions": {}}
        return _verdicts(report, cells, spec, self.tests[submission.chapter], self.limit)


def _process_limit() -> int:
    if os.geteuid() == 0:
        return PROCESSES  # the runner becomes nobody: its own count
    import psutil

    mine = sum(1 for p in psutil.process_iter(["uids"]) if p.info["uids"].real == os.getuid())
    return mine + PROCESSES


def _part(data: object, key: str, kind: type[_T]) -> _T:
    """``data[key]`` if ``data`` is a dict holding a ``kind`` there, else an empty ``kind``."""
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, kind) else kind()


def _cell_problems(report: dict, cells: list[dict], limit: float) -> dict[str | None, list]:
    """Per question (None: before the first exercise), ``(status, words)`` of its cells."""
    problems: dict[str | None, list] = {}
    outcomes = _part(report, "cells", list)
    for cell, outcome in zip(cells, outcomes, strict=False):
        status = outcome.get("status") if isinstance(outcome, dict) else None
        if status in (None, "ok"):
            continue
        first = next((line.strip() for line in cell["source"].splitlines() if line.strip()), "")
        where = f"the cell starting `{first[:50]}`"
        if status == "error":
            kind, message = (list(outcome.get("error") or []) + ["", ""])[:2]
            entry = ("cell error", f"{where} raised {str(kind)[:60]}: {str(message)[:200]}")
        elif status in ("time limit", "killed"):
            entry = ("time limit", f"{where} was still running after {limit:g} s and was stopped")
        else:
            entry = ("cell error", f"{where} stopped working when the cells were run again")
        problems.setdefault(cell["question"], []).append(entry)
    return problems


def _verdicts(report: dict, cells: list, spec: dict, tests: dict, limit: float) -> dict:
    problems = _cell_problems(report, cells, limit)
    captured = _part(report, "questions", dict)
    questions = {}
    for label in spec["questions"]:
        entry = _part(captured, label, dict)
        values, calls = _part(entry, "values", dict), _part(entry, "calls", dict)
        result = evaluate_question(tests[label], values, calls)
        own = list(problems.get(label, []))
        if entry.get("problem"):
            own.append(("time limit", str(entry["problem"])[:200]))
        questions[label] = {
            "score": result.score,
            "possible": result.possible,
            "status": own[0][0] if own else "ok",
            "failed": result.failed,
            "feedback": result.feedback,
            "problems": [words for _, words in own],
        }
    before = problems.get(None, [])
    note = "; ".join(words for _, words in before)
    return {"status": "cell error" if before else "ok", "note": note, "questions": questions}


# --------------------------------------------------------------------------- the batch


def _grade_all(grader: _Grader, tasks: list[Submission], jobs: int, progress: bool) -> None:
    """Grade ``tasks`` on ``jobs`` daemon threads (an interrupt leaves them to die with us)."""
    pending = list(enumerate(tasks))
    lock = threading.Lock()
    failures: list[BaseException] = []
    bar = tqdm(total=len(tasks), unit="notebook", disable=not progress, file=sys.stderr)

    def drain() -> None:
        try:
            while True:
                with lock:
                    if not pending:
                        return
                    index, submission = pending.pop(0)
                submission.result = grader.grade(submission, index)
                bar.update()
        except BaseException as error:  # surfaces in the caller's thread
            failures.append(error)

    threads = [threading.Thread(target=drain, daemon=True) for _ in range(min(jobs, len(tasks)))]
    try:
        with interruptible():
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        bar.close()
    if failures:
        raise failures[0]


def _rows(submission: Submission, questions: list[dict]) -> list[dict]:
    """One row of ``COLUMNS`` per question of the submission's chapter."""
    result = submission.result
    graded = result.get("questions", {})
    rows = []
    for question in questions:
        name = question["name"]
        if question["manual"]:
            score, status, note = "", "manual", "graded by hand"
        elif name in graded:
            mine = graded[name]
            parts = [result.get("note", ""), *mine["problems"], *mine["failed"]]
            score, note = f"{mine['score']:g}", "; ".join(p for p in parts if p)
            status = mine["status"] if mine["status"] != "ok" else result["status"]
        else:
            score, status = "0", result.get("status", "failed")
            note = result.get("note") or "not graded"
        possible = f"{question['points']:g}"
        values = (submission.student, submission.chapter, name, score, possible, status)
        rows.append(dict(zip(COLUMNS, (*values, note, submission.file), strict=True)))
    return rows


def _check_options(jobs: object, limit: object) -> float:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise BuildError(f"--jobs must be a whole number >= 1, not {jobs!r}")
    if isinstance(limit, bool) or not isinstance(limit, int | float):
        raise BuildError(f"--timeout must be a number of seconds, not {limit!r}")
    if not (math.isfinite(limit) and 0 < limit <= MAX_TIMEOUT):
        raise BuildError(
            f"--timeout must be a number of seconds > 0 and at most {MAX_TIMEOUT:g} "
            f"(a day), not {limit!r}"
        )
    return float(limit)


def _check_out(out: Path, kit: Path, submissions: Path, count: int) -> None:
    """Refuse an output that would overwrite the kit or a hand-in, or a disk too full."""
    if out.is_dir() or str(out).endswith(os.sep):
        raise BuildError(f"--out {out} is a directory: name a CSV file, e.g. {out}/scores.csv")
    real = Path(os.path.realpath(out))
    for what, folder in (("the kit", kit), ("the submissions folder", submissions)):
        if real.is_relative_to(os.path.realpath(folder)):
            raise BuildError(
                f"--out {out} is inside {what} ({folder}): grading never writes there; "
                "choose a path outside it"
            )
    if out.suffix.lower() != ".csv":
        raise BuildError(f"--out {out} must end in .csv")
    parent = real.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BuildError(f"--out {out}: cannot create its folder ({error.strerror})") from None
    need = max(RESERVE_MIN, RESERVE_PER_HANDIN * count)
    free = shutil.disk_usage(parent).free
    if free < need:
        raise BuildError(
            f"only {free / 2**20:.1f} MB free at {parent}: grading {count} hand-in(s) needs "
            f"about {need / 2**20:.0f} MB for its outputs; free some space first"
        )


def _csv_text(header: list[str], rows: list[list]) -> str:
    """CSV text with every cell through :func:`csv_cell`."""
    buffer = io.StringIO()
    csv.writer(buffer).writerows([[csv_cell(v) for v in row] for row in [header, *rows]])
    return buffer.getvalue()


def _gradebook(rows: list[dict], chapters: dict, slugs: list[str]) -> tuple[list, list]:
    students = list(dict.fromkeys(r["student"] for r in rows))
    header = ["Student", "SIS Login ID"]
    for slug in slugs:
        auto = sum(q["points"] for q in chapters[slug]["questions"] if not q["manual"])
        header.append(f"{slug} (autograded, {auto:g} points)")
    header.append("Total (autograded)")
    table = []
    for student in students:
        mine = [r for r in rows if r["student"] == student and r["score"] not in ("", None)]
        per = [sum(float(r["score"]) for r in mine if r["chapter"] == s) for s in slugs]
        table.append([student, student, *[f"{v:g}" for v in per], f"{sum(per):g}"])
    return header, table


def _feedback(student: str, rows: list[dict], graded: dict, chapters: dict) -> str:
    lines = [f"# Feedback for {student}", ""]
    for slug in dict.fromkeys(r["chapter"] for r in rows if r["chapter"]):
        mine = [r for r in rows if r["chapter"] == slug]
        auto = [r for r in mine if r["status"] != "manual"]
        got = sum(float(r["score"] or 0) for r in auto)
        possible = sum(float(r["possible"]) for r in auto)
        lines += [f"## {chapters[slug]['title']} ({slug})", ""]
        lines += [f"Autograded: **{got:g} of {possible:g} points**.", ""]
        numbers = {q["name"]: i for i, q in enumerate(chapters[slug]["questions"], start=1)}
        for row in mine:
            head = f"- **Exercise {numbers.get(row['question'], '?')}** (`{row['question']}`): "
            if row["status"] == "manual":
                unit = "point" if row["possible"] == "1" else "points"
                lines.append(head + f"graded by hand by your teacher ({row['possible']} {unit}).")
                continue
            lines.append(head + f"{row['score']} of {row['possible']} points.")
            detail = graded.get((student, slug), {}).get("questions", {}).get(row["question"])
            words = []
            if detail:
                words += detail["problems"] + detail["feedback"]
            elif row["status"] in ("missing", "failed", "stopped", "not graded"):
                words.append(row["note"])
            lines += [f"  - {word}" for word in dict.fromkeys(words)]
        lines.append("")
    lines.append(
        "Points of autograded questions come from hidden tests with the tolerance each "
        "question states; questions graded by hand are added by your teacher."
    )
    return "\n".join(lines) + "\n"


def _write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(_csv_text(header, rows), encoding="utf-8", newline="")
    os.replace(tmp, path)


def _write_outputs(out: Path, rows: list, book: tuple, feedback: dict, log: str) -> None:
    """``out`` (the scores), ``-gradebook.csv``, ``-feedback/<student>.md`` and ``.log``."""
    stem = out.with_suffix("")
    _write_csv(out, list(COLUMNS), [[r[c] for c in COLUMNS] for r in rows])
    _write_csv(stem.with_name(stem.name + "-gradebook.csv"), *book)
    folder = stem.with_name(stem.name + "-feedback")
    folder.mkdir(exist_ok=True)
    for student, text in feedback.items():
        name = re.sub(r"[^\w.-]", "_", student).lstrip(".") or "student"
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    out.with_suffix(".log").write_text(log, encoding="utf-8")


def _choose(found: list[Submission], lines: list[str]) -> dict[tuple, Submission]:
    """The notebook graded per student and chapter; the others get their problem and a line."""
    chosen: dict[tuple, Submission] = {}
    for submission in found:
        key = (submission.student, submission.chapter)
        if submission.problem:
            lines.append(f"{submission.file}: {submission.problem}")
        elif key in chosen:
            first = chosen[key].file
            submission.problem = f"a second notebook for this chapter ({first} is graded)"
            lines.append(f"{submission.file}: {submission.problem}; not graded")
        else:
            chosen[key] = submission
    return chosen


def _account(found: list, chosen: dict, chapters: dict, slugs: list, lines: list[str]) -> list:
    """Every student's rows for the chapters ``slugs``; a line per hand-in with trouble."""
    rows: list[dict] = []
    for student in dict.fromkeys(s.student for s in found):
        for slug in slugs:
            submission = chosen.get((student, slug))
            if submission is None:
                why = [s for s in found if s.problem and (s.student, s.chapter) == (student, slug)]
                note = why[0].problem if why else "no notebook handed in"
                status = "not graded" if why else "missing"
                result: dict = {"status": status, "note": note, "questions": {}}
                submission = Submission(student, slug, None, why[0].file if why else "", "", result)
            else:
                result = submission.result
                troubles = [q for q in result["questions"].values() if q["status"] != "ok"]
                if result["status"] != "ok" or troubles:
                    words = [result.get("note", "")] + [p for q in troubles for p in q["problems"]]
                    detail = "; ".join(w for w in words if w)
                    status = result["status"] if result["status"] != "ok" else troubles[0]["status"]
                    lines.append(f"{submission.file}: {status}: {detail}")
            rows += _rows(submission, chapters[slug]["questions"])
        for extra in (s for s in found if s.student == student and s.chapter is None):
            values = (student, "", "", "0", "0", "not graded", extra.problem, extra.file)
            rows.append(dict(zip(COLUMNS, values, strict=True)))
    return rows


def grade_submissions(
    kit: Path,
    submissions: Path,
    out: Path,
    *,
    jobs: int = 2,
    timeout: float = 60.0,
    progress: bool = False,
    sandbox: bool = True,
) -> tuple[list[dict], list[str]]:
    """Grade every hand-in in ``submissions`` against the kit; write the outputs beside ``out``.

    Returns the rows (one per student and question of every chapter handed in; a student
    who handed in nothing for such a chapter gets rows with status ``missing``) and one line
    per hand-in that did not run cleanly. ``timeout``: seconds per cell. ``sandbox=False``
    grades without isolation (the first line returned says what is unprotected).
    """
    limit = _check_options(jobs, timeout)
    kit, submissions, out = Path(kit), Path(submissions), Path(out)
    if not (kit / MANIFEST).is_file():
        raise BuildError(
            f"{kit} is not a course kit (no {MANIFEST}); build one with "
            "'dadp-book course --out DIR'"
        )
    if not submissions.is_dir():
        raise BuildError(f"submissions folder {submissions} does not exist")
    manifest = json.loads((kit / MANIFEST).read_text())
    if not (kit / "grading").is_dir():
        raise BuildError(f"{kit} was built by an older dadp-book: build the kit again")
    chapters = manifest["chapters"]
    found = find_submissions(submissions, list(chapters))
    if not found:
        raise BuildError(f"nothing handed in: {submissions} is empty")
    _check_out(out, kit, submissions, len(found))
    lines: list[str] = []
    if sandbox:
        check_outside({"the kit": kit, "the submissions folder": submissions, "--out": out})
        why = check_sandbox()
        if why:
            raise BuildError(
                f"cannot isolate the students' code: {why}. Install bubblewrap, or pass "
                "--no-sandbox to grade without isolation (read book/teaching.md first)"
            )
    else:
        lines.append("WARNING: " + UNPROTECTED)
    chosen = _choose(found, lines)
    slugs = {s.chapter for s in chosen.values() if s.chapter}
    specs = {s: json.loads((kit / "grading" / f"{s}.json").read_text()) for s in slugs}
    tests = {s: read_bundle_tests(kit / "autograder" / f"{s}.zip") for s in slugs}
    with tempfile.TemporaryDirectory(prefix="dadp-grade-") as work:
        grader = _Grader(limit, sandbox, Path(work), specs, tests)
        _grade_all(grader, list(chosen.values()), jobs, progress)
    submitted = [c for c in chapters if any(s.chapter == c for s in found)]
    rows = _account(found, chosen, chapters, submitted, lines)
    log = [f"{s.file or s.student}: {s.problem or s.result.get('status', '')}" for s in found]
    graded = {(s.student, s.chapter): s.result for s in chosen.values()}
    students = dict.fromkeys(s.student for s in found)
    feedback = {
        s: _feedback(s, [r for r in rows if r["student"] == s], graded, chapters) for s in students
    }
    book = _gradebook(rows, chapters, submitted)
    try:
        _write_outputs(out, rows, book, feedback, "\n".join(lines + log) + "\n")
    except OSError as error:
        sys.stdout.write(_csv_text(list(COLUMNS), [[r[c] for c in COLUMNS] for r in rows]))
        raise BuildError(
            f"could not write the scores to {out} ({error.strerror or error}): they are "
            "printed above; free some space and grade again"
        ) from None
    return rows, lines
