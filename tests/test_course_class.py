"""A simulated class graded through ``dadp-book grade``, against a table of fair scores.

Written before grading (the table below): per student and autograded question, the score
a fair grader gives. Chapters 03 and 05 are handed in by thirteen students each (correct,
blank, wrong formula, rounded answers, one value of two right, an infinite loop in one
question and one that ignores interrupts, builtins tampering, a patched check helper, a
notebook that looks for the hidden tests, the kit and the other hand-ins, one that writes
outside its folder, one that leaves a background process, one that hands in a ``.py`` and
a ``.pdf``, and an honest notebook in the flat layout ``alice-03-....ipynb``); the
instructor's and the blank notebooks of every chapter are handed in too. Afterwards the
kit and every hand-in are unchanged, no process is left, and no student-facing file holds
a hidden test's code or an expected value. About 2-3 minutes on an idle 2-core machine.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
from pathlib import Path

import nbformat
import psutil
import pytest

from dadp_book.cli import main
from dadp_book.course.questions import load_chapter
from dadp_book.course.sandbox import check_sandbox
from dadp_book.discovery import list_chapters

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = [c for c in (load_chapter(ROOT, s) for s in list_chapters(ROOT)) if c.questions]
L03, L05 = "03-laplace-and-discrete-gaussian", "05-cell-suppression-bias"
Q4, Q5 = "ex-laplace-and-discrete-gaussian-4", "ex-laplace-and-discrete-gaussian-5"
Q3, QL1 = "ex-cs-bias-3", "ex-cs-bias-4"
MARKER = "dadp-course-test-background-7f3a"
#: Seconds per cell while grading the class (a runaway cell costs this, plus a few).
TIMEOUT = 20

#: student -> (chapter 03 scores (Q4 of 2, Q5 of 3), chapter 05 scores (Q3 of 3, QL1 of 2))
FAIR = {
    "correct": ((2, 3), (3, 2)),
    "blank": ((0, 0), (0, 0)),
    "wrongformula": ((0, 3), (0, 2)),  # scale 1/eps instead of 2/eps; a missing 1/2
    "rounded": ((2, 3), (3, 2)),  # every answer rounded to four significant digits
    "onevalue": ((2, 0), (3, 1)),  # 03: bias without its 1/2; 05: the bound wrong
    "loop": ((2, 0), (3, 0)),  # 03: a loop before the function; 05: a loop that ignores SIGINT
    "tamper": ((0, 0), (0, 0)),  # all wrong, builtins.abs patched to return 0
    "checkpatch": ((0, 3), (0, 2)),  # grader.check and otter patched to always pass
    "reader": ((2, 3), (3, 2)),  # right only if it cannot see the kit or the other hand-ins
    "writer": ((2, 3), (3, 2)),  # writes into the kit, another hand-in and a host folder
    "daemon": ((2, 3), (3, 2)),  # leaves a background process behind
    "files": ((0, 0), (0, 0)),  # a .py and a .pdf: not notebooks
}

pytestmark = [
    pytest.mark.book,
    pytest.mark.skipif(  # CI installs bubblewrap (.ci/run): there a missing sandbox fails
        check_sandbox() is not None and not os.environ.get("CI"),
        reason=f"no sandbox: {check_sandbox()}",
    ),
]


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("course") / "kit"
    assert main(["--root", str(ROOT), "course", "--out", str(out), "--no-pdf"]) == 0
    return out


def _edit(source: Path, target: Path, *changes: tuple[str, str]) -> None:
    notebook = nbformat.read(source, as_version=4)
    for old, new in changes:
        hits = [c for c in notebook.cells if c.cell_type == "code" and old in c.source]
        assert len(hits) == 1, old
        hits[0].source = hits[0].source.replace(old, new)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)


SETUP = "import numpy as np"
SCALE = "scale_replace = 2 / 0.5  # SOLUTION"
BIAS = "return b / 2 * np.exp(-x / b)"
CS = "gap = (k - x) * epsilon / 2\n    p = np"
L1B = "l1_bound = float(np.linalg.norm(k / 2 - x) * np.linalg.norm(p))"
L1E = "l1_exact = float(np.sum(np.abs(k / 2 - x) * p))"


def _class(kit: Path, subs: Path, host: Path) -> None:
    ins = {c: kit / "instructor" / f"{c}.ipynb" for c in (L03, L05)}
    r4 = "\n    return np.array([float(f'{v:.4g}') for v in np.ravel(out)]).reshape(np.shape(out))"
    targets = [kit, kit / "autograder" / f"{L03}.zip", subs, subs / "correct", host]
    spy = (
        "import glob, os\n"
        f"seen = [p for p in {[str(t) for t in targets]!r} if os.path.exists(p)]\n"
        "seen += glob.glob('/job/**/*.zip', recursive=True) + glob.glob('/tmp/**/*.zip', "
        "recursive=True) + glob.glob('/*/grading/*.json')\n"
    )
    victims = [kit / "course.json", subs / "correct" / f"{L03}.ipynb", host / "escaped.txt"]
    write = (
        "import pathlib\n"
        f"for target in {[str(v) for v in victims]!r}:\n"
        "    try:\n        pathlib.Path(target).write_text('overwritten')\n"
        "    except OSError:\n        pass\n"
    )
    daemon = (
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time\\nwhile True: time.sleep(0.2)', "
        f"{MARKER!r}], start_new_session=True, stdin=subprocess.DEVNULL)\n"
    )
    for chapter in (L03, L05):
        name = f"{chapter}.ipynb"
        _edit(ins[chapter], subs / "correct" / name)
        _edit(kit / "student" / name, subs / "blank" / name)
        _edit(ins[chapter], subs / "daemon" / name, (SETUP, SETUP + "\n" + daemon))
        _edit(ins[chapter], subs / "writer" / name, (SETUP, SETUP + "\n" + write))
    _edit(ins[L03], subs / "wrongformula" / f"{L03}.ipynb", (SCALE, "scale_replace = 1 / 0.5"))
    _edit(
        ins[L05],
        subs / "wrongformula" / f"{L05}.ipynb",
        (CS, "gap = (k - x) * epsilon\n    p = np"),
    )
    _edit(
        ins[L03],
        subs / "rounded" / f"{L03}.ipynb",
        (SCALE, "scale_replace = 4.000"),
        (BIAS, "out = b / 2 * np.exp(-x / b)" + r4),
    )
    _edit(
        ins[L05],
        subs / "rounded" / f"{L05}.ipynb",
        ("return (k / 2 - x) * p", "out = (k / 2 - x) * p" + r4),
        (L1B, L1B + "\nl1_bound, l1_exact = float(f'{l1_bound:.4g}'), float(f'{l1_exact:.4g}')"),
    )
    _edit(ins[L03], subs / "onevalue" / f"{L03}.ipynb", (BIAS, "return b * np.exp(-x / b)"))
    _edit(ins[L05], subs / "onevalue" / f"{L05}.ipynb", (L1B, "l1_bound = 2 * l1_exact"))
    _edit(
        ins[L03],
        subs / "loop" / f"{L03}.ipynb",
        ("def projected_bias", "while True:\n    pass\n\n\ndef projected_bias"),
    )
    _edit(
        ins[L05],
        subs / "loop" / f"{L05}.ipynb",
        (
            L1E,
            "import signal\nsignal.signal("
            "signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n" + L1E,
        ),
    )
    tamper = "import builtins\nbuiltins.abs = lambda v: 0\nnp.abs = lambda v: 0 * v"
    _edit(
        ins[L03],
        subs / "tamper" / f"{L03}.ipynb",
        (SETUP, SETUP + "\n" + tamper),
        (SCALE, "scale_replace = 7.0"),
        (BIAS, "return 0 * x"),
    )
    _edit(
        ins[L05],
        subs / "tamper" / f"{L05}.ipynb",
        (SETUP, SETUP + "\n" + tamper),
        ("return (k / 2 - x) * p", "return x"),
        (L1B, "l1_bound = l1_exact = 0.0"),
    )
    patch = (
        "import otter\notter.Notebook.check = lambda *a, **k: True\n"
        "grader.check = lambda *a, **k: True\n"
    )
    _edit(ins[L03], subs / "checkpatch" / f"{L03}.ipynb", (SCALE, patch + "scale_replace = 1.0"))
    _edit(
        ins[L05],
        subs / "checkpatch" / f"{L05}.ipynb",
        ("x = np.asarray(x, dtype=float)\n    gap", "return x\n    gap"),
    )
    _edit(
        ins[L03],
        subs / "reader" / f"{L03}.ipynb",
        (SCALE, spy + "scale_replace = 4.0 if not seen else 99.0"),
    )
    _edit(
        ins[L05],
        subs / "reader" / f"{L05}.ipynb",
        (L1B, L1B + "\n" + spy + "l1_bound = l1_bound if not seen else 99.0"),
    )
    (subs / "files").mkdir()
    (subs / "files" / f"{L03}.py").write_text("scale_replace = 4.0\n")
    (subs / "files" / f"{L05}.pdf").write_bytes(b"%PDF-1.4\n")
    _edit(ins[L03], subs / f"alice-{L03}.ipynb")  # the flat layout, an honest notebook
    for chapter in CHAPTERS:
        name = f"{chapter.slug}.ipynb"
        _edit(kit / "instructor" / name, subs / "teacher" / name)
        _edit(kit / "student" / name, subs / "nobody" / name)


def _tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def graded(kit, tmp_path_factory):
    base = tmp_path_factory.mktemp("class")
    subs, host = base / "submissions", base / "host"
    host.mkdir()
    _class(kit, subs, host)
    kit_before, subs_before = _tree(kit), _tree(subs)
    out = base / "out" / "scores.csv"
    args = ["grade", str(kit), str(subs), "--out", str(out), "--timeout", str(TIMEOUT)]
    assert main(args) == 0
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {
        "rows": rows,
        "by": {(r["student"], r["question"]): r for r in rows},
        "out": out,
        "kit_same": _tree(kit) == kit_before,
        "subs_same": _tree(subs) == subs_before,
        "host": host,
        "feedback": out.parent / "scores-feedback",
        "gradebook": out.parent / "scores-gradebook.csv",
    }


def test_every_student_gets_the_fair_score(graded):
    by = graded["by"]
    for student, ((s4, s5), (s3, sl1)) in FAIR.items():
        got = {q: by[student, q]["score"] for q in (Q4, Q5, Q3, QL1)}
        assert got == {Q4: f"{s4:g}", Q5: f"{s5:g}", Q3: f"{s3:g}", QL1: f"{sl1:g}"}, (
            student,
            {q: by[student, q]["note"] for q in (Q4, Q5, Q3, QL1)},
        )
    alice = [by["alice", q] for q in (Q4, Q5)]
    assert [(r["score"], r["status"]) for r in alice] == [("2", "ok"), ("3", "ok")]


def test_instructor_notebooks_score_full_marks_and_blank_ones_zero(graded):
    by = graded["by"]
    for chapter in CHAPTERS:
        for question in chapter.autograded:
            teacher = by["teacher", question.label]
            assert (teacher["score"], teacher["status"]) == (f"{question.points:g}", "ok"), teacher
            assert by["nobody", question.label]["score"] == "0"


def test_a_runaway_answer_costs_its_question_and_the_report_says_which(graded):
    by = graded["by"]
    for question in (Q5, QL1):
        row = by["loop", question]
        assert row["status"] == "time limit" and f"after {TIMEOUT:g} s" in row["note"], row
    assert by["loop", Q4]["status"] == "ok" and by["loop", Q3]["status"] == "ok"


def test_the_kit_and_every_hand_in_are_unchanged_and_no_process_is_left(graded):
    assert graded["kit_same"] and graded["subs_same"]
    assert not (graded["host"] / "escaped.txt").exists()
    left = [
        p.info["pid"]
        for p in psutil.process_iter(["pid", "cmdline"])
        if MARKER in " ".join(p.info["cmdline"] or [])
    ]
    assert not left
    grading = [  # the sandboxes and their runners (other tests' children are not ours)
        p for p in psutil.Process().children(recursive=True)
        if any("bwrap" in part or part.startswith("/job/") for part in p.cmdline())
    ]  # fmt: skip
    assert not grading


def test_every_hand_in_is_accounted_for(graded):
    rows = graded["rows"]
    files = [r for r in rows if r["student"] == "files" and r["chapter"] in (L03, L05)]
    files = [r for r in files if r["status"] != "manual"]
    assert len(files) == 4 and all(
        r["score"] == "0" and "not a notebook" in r["note"] for r in files
    )
    assert {r["file"] for r in files} == {f"files/{L03}.py", f"files/{L05}.pdf"}


def test_gradebook_has_one_row_per_student_with_chapter_totals(graded):
    with open(graded["gradebook"], newline="") as handle:
        rows = list(csv.DictReader(handle))
    by = {r["Student"]: r for r in rows}
    assert set(by) == {*FAIR, "alice", "teacher", "nobody"}
    column = next(c for c in rows[0] if c.startswith(L03))
    for student, ((s4, s5), (s3, sl1)) in FAIR.items():
        assert float(by[student][column]) == s4 + s5
        assert float(by[student]["Total (autograded)"]) == s4 + s5 + s3 + sl1
    total = sum(q.points for c in CHAPTERS for q in c.autograded)
    assert float(by["teacher"]["Total (autograded)"]) == total


def _secrets(chapter) -> list[str]:
    """Hidden tests' distinctive lines and the solutions' values to four digits."""
    import numpy as np

    found = []
    for question in chapter.autograded:
        for test in question.hidden:
            found += [line.strip() for line in test.splitlines() if len(line.strip()) >= 25]
        env: dict = {}
        exec(chapter.setup, env)
        exec(question.code, env)
        for name in {n for t in question.hidden for n in _names(t)}:
            value = env.get(name)
            if isinstance(value, float | np.floating) and len(f"{abs(value):.4g}") >= 4:
                found.append(f"{value:.4g}")
    return found


def _names(test: str) -> list[str]:
    from dadp_book.course.evaluate import test_arguments

    return test_arguments(test)


def test_no_student_facing_file_holds_a_hidden_test_or_an_expected_value(kit, graded):
    texts = {p: p.read_text() for p in (kit / "student").iterdir()}
    texts.update({p: p.read_text() for p in graded["feedback"].iterdir()})
    for chapter in CHAPTERS:
        for secret in _secrets(chapter):
            for path, text in texts.items():
                if path.suffix == ".ipynb" and chapter.slug not in path.name:
                    continue
                assert secret not in text, (secret, path)
    feedback = texts[graded["feedback"] / "wrongformula.md"]
    assert "sensitivity under replace-one adjacency" in feedback and "assert" not in feedback
    scores = graded["out"].read_text()
    assert "assert" in scores  # the teacher's file keeps the detail


def test_identifiers_from_file_names_cannot_be_formulas(kit, tmp_path):
    subs = tmp_path / "subs"
    _edit(kit / "student" / f"{L03}.ipynb", subs / f"=HYPERLINK(1)-{L03}.ipynb")
    out = tmp_path / "scores.csv"
    assert main(["grade", str(kit), str(subs), "--out", str(out), "--timeout", "30"]) == 0
    for path in (out, tmp_path / "scores-gradebook.csv"):
        rows = list(csv.reader(path.open(newline="")))
        assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
        assert any(cell == "'=HYPERLINK(1)" for row in rows for cell in row)
    assert json.loads((kit / "course.json").read_text())["chapters"]


def test_without_the_sandbox_grading_says_what_is_unprotected(kit, tmp_path, capsys):
    subs = tmp_path / "subs"
    _edit(kit / "instructor" / f"{L03}.ipynb", subs / "teacher" / f"{L03}.ipynb")
    out = tmp_path / "scores.csv"
    assert main(["grade", str(kit), str(subs), "--out", str(out), "--no-sandbox"]) == 0
    assert "WARNING: grading WITHOUT a sandbox" in capsys.readouterr().out
    rows = [r for r in csv.DictReader(out.open(newline="")) if r["status"] != "manual"]
    assert [(r["score"], r["status"]) for r in rows] == [("2", "ok"), ("3", "ok")]
