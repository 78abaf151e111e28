"""``dadp-book grade``: a folder of hand-ins -> scores, a gradebook and feedback for students.

Every file handed in is accounted for. A notebook is copied into a job folder of its own
and run in the grading sandbox (:mod:`.sandbox`, :mod:`.runner`), ``jobs`` at a time: each
cell has ``timeout`` seconds (a runaway cell costs its own question; the others still run),
and what comes back is data, the values the notebook produced. The verdicts are computed
here, outside the sandbox, by the kit's tests (:mod:`.evaluate`). A file that is not a
notebook, an empty folder or an unreadable notebook gets rows scoring 0 with the reason,
and a line in the output.

Submissions: ``SUBMISSIONS/<student>/<notebook>.ipynb`` (the student is the folder), or
``SUBMISSIONS/<name>.ipynb`` (the student is the file name without the chapter's slug or
number). The chapter is read from the notebook (otter's ``assignment_name``), else from
its file name.

Outputs, beside ``--out`` (``scores.csv``): ``scores.csv`` (one row per student and
question, for the teacher: failed tests in detail), ``scores-gradebook.csv`` (one row per
student: each chapter's autograded points and the total, for Canvas or Moodle),
``scores-feedback/<student>.md`` (for the student: points and what is wrong, in words, no
test code and no expected value) and ``scores.log`` (one line per hand-in).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from dadp_book.course import runner as runner_module
from dadp_book.course.evaluate import evaluate_question, read_bundle_tests
from dadp_book.course.kit import MANIFEST
from dadp_book.course.sandbox import UNPROTECTED, check_outside, check_sandbox, sandbox_command
from dadp_book.errors import BuildError
from dadp_book.outputs import interruptible

__all__ = [
    "COLUMNS",
    "STATS",
    "MAX_TIMEOUT",
    "Submission",
    "csv_cell",
    "find_submissions",
    "grade_submissions",
]

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
    if text.startswith(_SPREADSHEET_ACTIVE):
        return "'" + text
    return text


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
                found.append(
                    Submission(
                        path.name, None, None, relative.as_posix() + "/", "the folder is empty"
                    )
                )
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
        if cell.get("cell_type") == "markdown":
            match = _EXERCISE.search(source)
            if match:
                question = match["label"]
        elif cell.get("cell_type") == "code":
            lines = [
                line
                for line in source.splitlines()
                if line.strip() and not line.strip().startswith("#")
            ]
            if lines and all(_OTTER_CELL.match(line) for line in lines):
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
    kit: Path
    limit: float
    sandboxed: bool
    work: Path
    specs: dict[str, dict] = field(default_factory=dict)
    tests: dict[str, dict[str, str]] = field(default_factory=dict)

    def load(self, slugs: set[str]) -> None:
        """Read the chapters' grading specs and test files (before any thread starts)."""
        for slug in slugs:
            self.specs[slug] = json.loads((self.kit / "grading" / f"{slug}.json").read_text())
            self.tests[slug] = read_bundle_tests(self.kit / "autograder" / f"{slug}.zip")

    def chapter(self, slug: str) -> tuple[dict, dict[str, str]]:
        return self.specs[slug], self.tests[slug]

    def task(self, cells: list[dict], spec: dict) -> dict:
        questions = [{"label": label, **q} for label, q in spec["questions"].items()]
        return {
            "own_pid_namespace": self.sandboxed,
            "seconds": self.limit,
            "memory": MEMORY_BYTES,
            "file_size": FILE_BYTES,
            "rlimits": {"RLIMIT_NPROC": _process_limit(self.sandboxed)},
            "cells": cells,
            "questions": questions,
        }

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
        cells, questions = len(task["cells"]), len(task["questions"])
        budget = self.limit * (2 * cells + questions + 2) + 120
        with tempfile.TemporaryFile() as out:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.DEVNULL,
                cwd=job,
                start_new_session=True,
            )
            try:
                process.wait(timeout=budget)
            except subprocess.TimeoutExpired:
                return None
            finally:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            out.seek(0)
            data = out.read(64 * runner_module.MAX_VALUE_CHARS)
        try:
            report = json.loads(data.decode("utf-8", "replace").strip().splitlines()[-1])
        except (ValueError, IndexError):
            return {"cells": [], "questions": {}, "broken": True}
        if not isinstance(report, dict):
            return {"cells": [], "questions": {}}
        cpu = report.get("cpu")
        with _STATS_LOCK:
            STATS["notebooks"] += 1
            STATS["cpu"] += float(cpu) if isinstance(cpu, int | float) else 0.0
        return report

    def grade(self, submission: Submission, index: int) -> dict:
        """``{"status", "note", "questions": {label: {...}}}`` for one notebook."""
        try:
            notebook = _read_notebook(submission.path)
        except (OSError, ValueError, UnicodeDecodeError) as error:
            note = f"not a readable notebook ({type(error).__name__}: {str(error)[:200]})"
            return {"status": "failed", "note": note, "questions": {}}
        spec, tests = self.chapter(submission.chapter)
        cells = _cells(notebook)
        task = self.task(cells, spec)
        report = self.run(self.work / f"job-{index}", task)
        if report is None:
            note = "still running far past its time limits: stopped, nothing graded"
            return {"status": "stopped", "note": note, "questions": {}}
        return _verdicts(report, cells, spec, tests, self.limit)


def _process_limit(sandboxed: bool) -> int:
    if os.geteuid() == 0:
        return PROCESSES  # the runner becomes nobody: its own count
    import psutil

    mine = sum(1 for p in psutil.process_iter(["uids"]) if p.info["uids"].real == os.getuid())
    return mine + PROCESSES


def _cell_problems(report: dict, cells: list[dict], limit: float) -> dict[str | None, list]:
    """Per question (None: before the first exercise), ``(status, words)`` of its cells."""
    problems: dict[str | None, list] = {}
    outcomes = report.get("cells") if isinstance(report.get("cells"), list) else []
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
    captured = report.get("questions") if isinstance(report.get("questions"), dict) else {}
    questions = {}
    for label in spec["questions"]:
        entry = captured.get(label) if isinstance(captured.get(label), dict) else {}
        values = entry.get("values") if isinstance(entry.get("values"), dict) else {}
        calls = entry.get("calls") if isinstance(entry.get("calls"), dict) else {}
        result = evaluate_question(tests[label], values, calls)
        own = list(problems.get(label, []))
        if entry.get("problem"):
            own.append(("time limit", str(entry["problem"])[:200]))
        status = own[0][0] if own else "ok"
        questions[label] = {
            "score": result.score,
            "possible": result.possible,
            "status": status,
            "failed": result.failed,
            "feedback": result.feedback,
            "problems": [words for _, words in own],
        }
    before = problems.get(None, [])
    note = "; ".join(words for _, words in before)
    return {"status": "cell error" if before else "ok", "note": note, "questions": questions}


# --------------------------------------------------------------------------- the batch


def _grade_all(grader: _Grader, tasks: list[Submission], jobs: int, progress: bool) -> None:
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
    result = submission.result
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
            mine = graded[name]
            parts = [result.get("note", ""), *mine["problems"], *mine["failed"]]
            row.update(
                score=f"{mine['score']:g}",
                status=mine["status"] if mine["status"] != "ok" else result["status"],
                note="; ".join(p for p in parts if p),
            )
        else:
            row.update(
                score="0",
                status=result.get("status", "failed"),
                note=result.get("note") or "not graded",
            )
        rows.append(row)
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


def _outputs(out: Path) -> dict[str, Path]:
    stem = out.with_suffix("")
    return {
        "scores": out,
        "gradebook": stem.with_name(stem.name + "-gradebook.csv"),
        "feedback": stem.with_name(stem.name + "-feedback"),
        "log": out.with_suffix(".log"),
    }


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


def _write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([csv_cell(h) for h in header])
        writer.writerows([[csv_cell(v) for v in row] for row in rows])
    os.replace(tmp, path)


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
        lines += [
            f"## {chapters[slug]['title']} ({slug})",
            "",
            f"Autograded: **{got:g} of {possible:g} points**.",
            "",
        ]
        numbers = {q["name"]: i for i, q in enumerate(chapters[slug]["questions"], start=1)}
        for row in mine:
            head = f"- **Exercise {numbers.get(row['question'], '?')}** (`{row['question']}`): "
            if row["status"] == "manual":
                unit = "point" if row["possible"] == "1" else "points"
                lines.append(head + f"graded by hand by your teacher ({row['possible']} {unit}).")
                continue
            lines.append(head + f"{row['score']} of {row['possible']} points.")
            result = graded.get((student, slug), {})
            detail = result.get("questions", {}).get(row["question"])
            words = []
            if detail:
                words += detail["problems"] + detail["feedback"]
            elif row["status"] in ("missing", "failed", "stopped", "not graded"):
                words.append(row["note"])
            for word in dict.fromkeys(words):
                lines.append(f"  - {word}")
        lines.append("")
    lines.append(
        "Points of autograded questions come from hidden tests with the tolerance each "
        "question states; questions graded by hand are added by your teacher."
    )
    return "\n".join(lines) + "\n"


def _safe_name(student: str) -> str:
    return re.sub(r"[^\w.-]", "_", student).lstrip(".") or "student"


def _write_outputs(paths: dict, rows: list, book: tuple, feedback: dict, log: str) -> None:
    _write_csv(paths["scores"], list(COLUMNS), [[r[c] for c in COLUMNS] for r in rows])
    _write_csv(paths["gradebook"], *book)
    folder = paths["feedback"]
    folder.mkdir(exist_ok=True)
    for student, text in feedback.items():
        (folder / f"{_safe_name(student)}.md").write_text(text, encoding="utf-8")
    paths["log"].write_text(log, encoding="utf-8")


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
    """Grade every hand-in in ``submissions`` against the kit; write the outputs (see the
    module's docstring) beside ``out``.

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
    slugs = list(chapters)
    found = find_submissions(submissions, slugs)
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
    chosen: dict[tuple[str, str], Submission] = {}
    unreadable: list[Submission] = []
    for submission in found:
        if submission.problem:
            unreadable.append(submission)
            lines.append(f"{submission.file}: {submission.problem}")
        elif (submission.student, submission.chapter) in chosen:
            first = chosen[submission.student, submission.chapter].file
            submission.problem = f"a second notebook for this chapter ({first} is graded)"
            unreadable.append(submission)
            lines.append(f"{submission.file}: {submission.problem}; not graded")
        else:
            chosen[submission.student, submission.chapter] = submission
    with tempfile.TemporaryDirectory(prefix="dadp-grade-") as work:
        grader = _Grader(kit, limit, sandbox, Path(work))
        grader.load({s.chapter for s in chosen.values()})
        _grade_all(grader, list(chosen.values()), jobs, progress)
    students = list(dict.fromkeys(s.student for s in found))
    submitted = [c for c in slugs if any(s.chapter == c for s in found)]
    rows: list[dict] = []
    log = []
    for student in students:
        for slug in submitted:
            submission = chosen.get((student, slug))
            if submission is None:
                why = [s for s in unreadable if s.student == student and s.chapter == slug]
                note = why[0].problem if why else "no notebook handed in"
                status = "not graded" if why else "missing"
                result = {"status": status, "note": note, "questions": {}}
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
        for extra in (s for s in unreadable if s.student == student and s.chapter is None):
            rows.append(
                {
                    "student": student,
                    "chapter": "",
                    "question": "",
                    "score": "0",
                    "possible": "0",
                    "status": "not graded",
                    "note": extra.problem,
                    "file": extra.file,
                }
            )
    for submission in found:
        log.append(
            f"{submission.file or submission.student}: "
            f"{submission.problem or submission.result.get('status', '')}"
        )
    graded = {(s.student, s.chapter): s.result for s in chosen.values()}
    feedback = {
        s: _feedback(s, [r for r in rows if r["student"] == s], graded, chapters) for s in students
    }
    book = _gradebook(rows, chapters, submitted)
    try:
        _write_outputs(_outputs(out), rows, book, feedback, "\n".join(lines + log) + "\n")
    except OSError as error:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(COLUMNS)
        writer.writerows([[csv_cell(r[c]) for c in COLUMNS] for r in rows])
        sys.stdout.write(buffer.getvalue())
        raise BuildError(
            f"could not write the scores to {out} ({error.strerror or error}): they are "
            "printed above; free some space and grade again"
        ) from None
    return rows, lines
