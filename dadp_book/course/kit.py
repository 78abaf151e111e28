"""``dadp-book course``: the course kit, built with otter-grader's ``otter assign``.

For each chapter, :func:`master_notebook` writes an otter *master notebook* (the chapter's
exercise texts and solution prose, the sidecar's answer cells and tests, in otter's
``# BEGIN QUESTION`` ... ``# END QUESTION`` format); ``otter assign`` turns it into the
student notebook (solutions and hidden tests removed, a check cell under every answer and a
"check all" cell at the end), the instructor notebook (solutions, every test) and the
autograder bundle (a zip of every test). The kit folder:

- ``student/<slug>.ipynb`` and ``student/requirements.txt``: what students receive;
- ``instructor/<slug>.ipynb``: solutions and every test, shown under each question;
- ``autograder/<slug>.zip``: what ``dadp-book grade`` grades against;
- ``course.json`` and ``questions.csv``: every question, its points and how it is graded.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import nbformat

from dadp_book.course.markdown import to_jupyter_markdown
from dadp_book.course.questions import Chapter, Question, load_chapter
from dadp_book.discovery import list_chapters, resolve_chapter
from dadp_book.errors import BuildError
from dadp_book.outputs import atomic_replace, check_replaceable, temp_folder

__all__ = ["STUDENT_REQUIREMENTS", "build_kit", "master_notebook"]

#: What a student installs (``pip install -r requirements.txt``): the student notebooks
#: import numpy and, through their first cell, otter-grader; Jupyter opens them.
STUDENT_REQUIREMENTS = ("otter-grader>=7,<8", "numpy>=1.26", "scipy>=1.11", "jupyterlab>=4")
MANIFEST = "course.json"
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def _config(slug: str) -> str:
    return "\n".join(
        [
            "# ASSIGNMENT CONFIG",
            f"name: {slug}",
            "init_cell: true",
            "check_all_cell: true",
            "export_cell: false",
            "run_tests: false",
            "generate: true",
            "tests:",
            "  files: false",
            "  ok_format: false",
        ]
    )


def _intro(chapter: Chapter) -> str:
    auto = sum(q.points for q in chapter.autograded)
    manual = sum(q.points for q in chapter.questions) - auto
    return (
        f"# Exercises: {chapter.title}\n\n"
        f"The exercises of the chapter *{chapter.title}* of dadp-book, in the book's order. "
        f"Autograded questions ({auto:g} points) are marked as such: write your answer in the "
        "cell below the question, replacing each `...`, and run the `grader.check` cell under "
        "it. That cell runs the visible tests, which check the form of your answer (a number, "
        "an array of the right shape, a function); your teacher's grader also runs hidden "
        "tests, which check its value. Passing the visible tests does not mean the answer is "
        f"right. Manually graded questions ({manual:g} points) are read by your teacher: "
        "answer them in the Markdown cell provided.\n\n"
        "Run the notebook from top to bottom (*Restart Kernel and Run All Cells*) before you "
        "hand it in, keep its file name, and do not delete or edit the locked cells."
    )


def _heading(question: Question) -> str:
    how = "manually graded" if question.manual else "autograded"
    points = f"{question.points:g} point" + ("" if question.points == 1 else "s")
    return f"### Exercise {question.number}: `{question.label}` ({how}, {points})\n\n"


def _test_cell(source: str, hidden: bool) -> nbformat.NotebookNode:
    config = "hidden: true" if hidden else "points: 0"
    header = f'""" # BEGIN TEST CONFIG\n{config}\n""" # END TEST CONFIG\n'
    return nbformat.v4.new_code_cell(header + source)


def _question_cells(question: Question) -> list[nbformat.NotebookNode]:
    new_raw, new_md = nbformat.v4.new_raw_cell, nbformat.v4.new_markdown_cell
    manual = "true" if question.manual else "false"
    cells = [
        new_raw(
            f"# BEGIN QUESTION\nname: {question.label}\npoints: {question.points:g}\n"
            f"manual: {manual}"
        ),
        new_md(_heading(question) + to_jupyter_markdown(question.text)),
        new_raw("# BEGIN SOLUTION"),
    ]
    if not question.manual:
        cells.append(nbformat.v4.new_code_cell(question.code))
    if question.solution:
        cells.append(new_md("**Solution.** " + to_jupyter_markdown(question.solution)))
    cells.append(new_raw("# END SOLUTION"))
    if not question.manual:
        cells.append(new_raw("# BEGIN TESTS"))
        cells += [_test_cell(t, hidden=False) for t in question.tests]
        cells += [_test_cell(t, hidden=True) for t in question.hidden]
        cells.append(new_raw("# END TESTS"))
    cells.append(new_raw("# END QUESTION"))
    return cells


def master_notebook(chapter: Chapter) -> nbformat.NotebookNode:
    """The chapter's exercises as an otter-grader master notebook."""
    cells = [
        nbformat.v4.new_raw_cell(_config(chapter.slug)),
        nbformat.v4.new_markdown_cell(_intro(chapter)),
        nbformat.v4.new_code_cell(chapter.setup),
    ]
    for question in chapter.questions:
        cells += _question_cells(question)
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": KERNELSPEC})


def _tests_listing(question: Question) -> str:
    parts = [
        f"**Tests of `{question.label}`** (the grader runs all of them; students see "
        "only the visible ones, worth no points; the hidden ones share the points)."
    ]
    for kind, tests in (("visible", question.tests), ("hidden", question.hidden)):
        for test in tests:
            parts.append(f"{kind}:\n\n```python\n{test}\n```")
    return "\n\n".join(parts)


def _annotate_instructor(path: Path, chapter: Chapter) -> None:
    """Show every test under its question's check cell (the tests live in the metadata)."""
    notebook = nbformat.read(path, as_version=4)
    by_label = {q.label: q for q in chapter.autograded}
    cells = []
    for cell in notebook.cells:
        cells.append(cell)
        source = cell.source if cell.cell_type == "code" else ""
        for label, question in by_label.items():
            if source.strip() == f'grader.check("{label}")':
                cells.append(nbformat.v4.new_markdown_cell(_tests_listing(question)))
    notebook.cells = cells
    nbformat.write(notebook, path)


def _assign(chapter: Chapter, work: Path) -> Path:
    """Run ``otter assign`` on the chapter's master notebook; its output folder."""
    from otter.assign import main as otter_assign

    work.mkdir(parents=True, exist_ok=True)
    master = work / f"{chapter.slug}.ipynb"
    nbformat.write(master_notebook(chapter), master)
    log = io.StringIO()
    try:
        with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            otter_assign(str(master), str(work / "dist"), no_pdfs=True, no_run_tests=True)
    except Exception as error:
        raise BuildError(
            f"otter assign failed on the exercises of {chapter.slug}: {error}\n{log.getvalue()}"
        ) from error
    return work / "dist"


def _write_tables(out: Path, chapters: Sequence[Chapter]) -> None:
    manifest = {
        "format": 1,
        "grader": "otter-grader",
        "chapters": {
            c.slug: {
                "title": c.title,
                "questions": [
                    {"name": q.label, "points": q.points, "manual": q.manual} for q in c.questions
                ],
            }
            for c in chapters
        },
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    with open(out / "questions.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["chapter", "question", "number in chapter", "points", "graded"])
        for c in chapters:
            for q in c.questions:
                how = "manually" if q.manual else "autograded"
                writer.writerow([c.slug, q.label, q.number, f"{q.points:g}", how])
    (out / "student" / "requirements.txt").write_text("\n".join(STUDENT_REQUIREMENTS) + "\n")


def build_kit(root: Path, chapters: Sequence[str] | None, out: Path) -> Path:
    """Write the course kit of ``chapters`` (default: every chapter with exercises) to ``out``.

    The folder is built aside and moved into place when complete; an earlier kit at ``out``
    is replaced, any other non-empty folder is refused.
    """
    slugs = [resolve_chapter(root, c) for c in chapters] if chapters else list_chapters(root)
    loaded = [load_chapter(root, slug) for slug in dict.fromkeys(slugs)]
    loaded = [c for c in loaded if c.questions]
    if not loaded:
        raise BuildError("none of these chapters has exercises: no course kit to build")
    out = Path(out).resolve()
    check_replaceable(out, MANIFEST)
    with temp_folder(out.parent, "course") as staging:
        kit = staging / "kit"
        for part in ("student", "instructor", "autograder"):
            (kit / part).mkdir(parents=True)
        for chapter in loaded:
            dist = _assign(chapter, staging / chapter.slug)
            shutil.copy(dist / "student" / f"{chapter.slug}.ipynb", kit / "student")
            instructor = kit / "instructor" / f"{chapter.slug}.ipynb"
            shutil.copy(dist / "autograder" / f"{chapter.slug}.ipynb", instructor)
            _annotate_instructor(instructor, chapter)
            (bundle,) = (dist / "autograder").glob("*.zip")
            shutil.copy(bundle, kit / "autograder" / f"{chapter.slug}.zip")
        _write_tables(kit, loaded)
        atomic_replace(kit, out)
    return out
