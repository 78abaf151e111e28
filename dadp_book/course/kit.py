"""``dadp-book course``: the course kit, built with otter-grader's ``otter assign``.

Per chapter, an otter *master notebook* (the exercises, the sidecar's answer cells and tests)
goes through ``otter assign``; the kit's folders are listed in ``book/teaching.md`` ("The
course kit"). A kit is never replaced without ``force`` (``dadp-book course --force``).
"""

from __future__ import annotations

import ast
import contextlib
import csv
import io
import json
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import nbformat

from dadp_book.course.evaluate import discover_probes, test_arguments
from dadp_book.course.markdown import standalone_markdown, to_jupyter_markdown
from dadp_book.course.questions import Chapter, Question, load_chapter
from dadp_book.course.solutions import print_solutions, solutions_unavailable
from dadp_book.discovery import list_chapters, resolve_chapter
from dadp_book.errors import BuildError
from dadp_book.outputs import atomic_replace, check_replaceable, temp_folder
from dadp_book.yamlio import dump_yaml

__all__ = ["STUDENT_REQUIREMENTS", "autograder_requirements", "build_kit", "master_notebook"]

#: What a student installs (``pip install -r requirements.txt``): the student notebooks
#: import numpy and, through their first cell, otter-grader; Jupyter opens them.
STUDENT_REQUIREMENTS = ("otter-grader>=7,<8", "numpy>=1.26", "scipy>=1.11", "jupyterlab>=4")
MANIFEST = "course.json"
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
#: The Python of the autograder's environment (requirements.lock is compiled for 3.11).
AUTOGRADER_PYTHON = "3.11"
#: The distribution that provides each importable top-level module the tests may use.
DISTRIBUTIONS = {"numpy": "numpy", "scipy": "scipy", "otter": "otter-grader"}


def _locked(root: Path) -> dict[str, list[str]]:
    """``requirements.lock``'s pinned lines (with their markers), by distribution name."""
    lines: dict[str, list[str]] = {}
    for line in (root / "requirements.lock").read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==", line)
        if match:
            lines.setdefault(match[1].lower(), []).append(line.strip())
    return lines


def _imports(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def autograder_requirements(root: Path, chapter: Chapter) -> list[str]:
    """The autograder environment's packages: otter-grader and every package the chapter's
    set-up, answers and tests import, each pinned as in ``requirements.lock``."""
    sources = [chapter.setup]
    for question in chapter.autograded:
        sources += [question.code, *question.tests, *question.hidden]
    modules = {"otter"}.union(*map(_imports, sources)) - set(sys.stdlib_module_names)
    unknown = sorted(modules - set(DISTRIBUTIONS))
    if unknown:
        raise BuildError(
            f"course/{chapter.slug}.yml imports {', '.join(unknown)}: add the package that "
            "provides it to DISTRIBUTIONS in dadp_book/course/kit.py (and to pyproject.toml)"
        )
    locked = _locked(root)
    lines = []
    for module in sorted(modules):
        name = DISTRIBUTIONS[module]
        pinned = locked.get(name)
        if not pinned:
            raise BuildError(f"{name} is not pinned in requirements.lock (run 'make lock')")
        if name == "otter-grader":
            pinned = [p.replace("otter-grader==", "otter-grader[grading]==") for p in pinned]
        lines += pinned
    return lines


def _config(slug: str, requirements: list[str]) -> str:
    config = {"name": slug, "init_cell": True, "check_all_cell": True, "export_cell": False}
    config |= {"run_tests": False, "python_version": AUTOGRADER_PYTHON}
    config |= {"overwrite_requirements": True, "requirements": requirements, "generate": True}
    config["tests"] = {"files": False, "ok_format": False}
    return "# ASSIGNMENT CONFIG\n" + dump_yaml(config)


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
        "Each autograded question states how close your answer must be. The grader runs "
        "each question's cells with a time limit: an answer that runs too long costs that "
        "question only.\n\n"
        "Run the notebook from top to bottom (*Restart Kernel and Run All Cells*) before you "
        "hand it in, keep its file name, and do not delete or edit the locked cells."
    )


def _heading(question: Question) -> str:
    how = "manually graded" if question.manual else "autograded"
    points = f"{question.points:g} point" + ("" if question.points == 1 else "s")
    return f"### Exercise {question.number}: `{question.label}` ({how}, {points})\n\n"


def _test_cell(source: str, hidden: bool, feedback: str = "") -> nbformat.NotebookNode:
    config = "hidden: true" if hidden else "points: 0"
    if feedback:
        config += f"\nfailure_message: {json.dumps(feedback)}"
    header = f'""" # BEGIN TEST CONFIG\n{config}\n""" # END TEST CONFIG\n'
    return nbformat.v4.new_code_cell(header + source)


def _question_text(question: Question, chapter_text: str) -> str:
    text = _heading(question) + standalone_markdown(question.text, chapter_text)
    if question.manual:
        rubric = question.rubric or (
            "Write your answer in the cell below (a few sentences, and any short "
            "computation). Your teacher judges the reasoning, not only the conclusion."
        )
        text += f"\n\n*Graded by hand.* {to_jupyter_markdown(rubric)}"
    else:
        text += f"\n\n*Autograded.* {question.tolerance}"
    return text


def _question_cells(question: Question, chapter_text: str = "") -> list[nbformat.NotebookNode]:
    new_raw, new_md = nbformat.v4.new_raw_cell, nbformat.v4.new_markdown_cell
    manual = "true" if question.manual else "false"
    cells = [
        new_raw(
            f"# BEGIN QUESTION\nname: {question.label}\npoints: {question.points:g}\n"
            f"manual: {manual}"
        ),
        new_md(_question_text(question, chapter_text)),
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
        cells += [
            _test_cell(t, hidden=True, feedback=f)
            for t, f in zip(question.hidden, question.feedback, strict=True)
        ]
        cells.append(new_raw("# END TESTS"))
    cells.append(new_raw("# END QUESTION"))
    return cells


def master_notebook(chapter: Chapter, requirements: Sequence[str] = ()) -> nbformat.NotebookNode:
    """The chapter's exercises as an otter-grader master notebook."""
    cells = [
        nbformat.v4.new_raw_cell(_config(chapter.slug, list(requirements))),
        nbformat.v4.new_markdown_cell(_intro(chapter)),
        nbformat.v4.new_code_cell(chapter.setup),
    ]
    for question in chapter.questions:
        cells += _question_cells(question, chapter.text)
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": KERNELSPEC})


def _tests_listing(question: Question) -> str:
    parts = [
        f"**Tests of `{question.label}`** (the grader runs all of them; students see "
        "only the visible ones, worth no points; the hidden ones share the points)."
    ]
    parts += [f"visible:\n\n```python\n{test}\n```" for test in question.tests]
    for test, words in zip(question.hidden, question.feedback, strict=True):
        parts.append(f"hidden (feedback when it fails: *{words}*):\n\n```python\n{test}\n```")
    return "\n\n".join(parts)


def _annotate_instructor(path: Path, chapter: Chapter) -> None:
    """Show every test under its question's check cell (the tests live in the metadata)."""
    notebook = nbformat.read(path, as_version=4)
    listings = {f'grader.check("{q.label}")': _tests_listing(q) for q in chapter.autograded}
    cells = []
    for cell in notebook.cells:
        cells.append(cell)
        if cell.cell_type == "code" and cell.source.strip() in listings:
            cells.append(nbformat.v4.new_markdown_cell(listings[cell.source.strip()]))
    notebook.cells = cells
    nbformat.write(notebook, path)


def _assign(root: Path, chapter: Chapter, work: Path) -> Path:
    """Run ``otter assign`` on the chapter's master notebook; its output folder."""
    from otter.assign import main as otter_assign

    work.mkdir(parents=True, exist_ok=True)
    master = work / f"{chapter.slug}.ipynb"
    nbformat.write(master_notebook(chapter, autograder_requirements(root, chapter)), master)
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
    listed = {}
    for c in chapters:
        questions = [{"name": q.label, "points": q.points, "manual": q.manual} for q in c.questions]
        listed[c.slug] = {"title": c.title, "questions": questions}
    manifest = {"format": 1, "grader": "otter-grader", "chapters": listed}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    with open(out / "questions.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["chapter", "question", "number in chapter", "points", "graded"])
        for c in chapters:
            for q in c.questions:
                how = "manually" if q.manual else "autograded"
                writer.writerow([c.slug, q.label, q.number, f"{q.points:g}", how])
    (out / "student" / "requirements.txt").write_text("\n".join(STUDENT_REQUIREMENTS) + "\n")


def grading_spec(chapter: Chapter) -> dict:
    """Per question, the names its tests take and the inputs at which they call a function
    answer (every test run on the solution, here: the solutions are the kit's own code)."""
    questions = {}
    for question in chapter.autograded:
        tests = [*question.tests, *question.hidden]
        names = list(dict.fromkeys(n for t in tests for n in test_arguments(t)))
        env: dict = {}
        exec(chapter.setup, env)
        exec(question.code, env)
        try:
            probes = discover_probes(env, tests)
        except Exception as error:
            raise BuildError(
                f"course/{chapter.slug}.yml: a test of {question.label} fails on the "
                f"solution: {type(error).__name__}: {error}"
            ) from error
        questions[question.label] = {"names": names, "probes": probes}
    return {"format": 1, "chapter": chapter.slug, "questions": questions}


STUDENT_README = """\
# Exercises of dadp-book: how to work on them and hand them in

Each notebook here, `<chapter>.ipynb`, holds the exercises of one chapter of the book
*dadp-book* (privacy and bias of disclosure avoidance systems). You need Python 3.11 or
newer and nothing else: no repository, no data.

1. **Install** (once), in a terminal, in this folder:

   ```bash
   python -m pip install -r requirements.txt
   ```

2. **Open** the notebook of the week: `jupyter lab <chapter>.ipynb`. Run the first cell.

3. **Answer.** Under each autograded question, replace every `...` in the answer cell and
   run it, then run the `grader.check("...")` cell under it. The check runs the *visible*
   tests: they check the form of your answer (a number, an array of the right shape, a
   function that can be called). Passing them does not mean the answer is right: your
   teacher's grader also runs hidden tests on its value, with the tolerance the question
   states. Questions graded by hand say what to write and how it is judged; answer them in
   the Markdown cell below the question.

4. **Before you hand in**: *Kernel > Restart Kernel and Run All Cells*, check that every
   cell runs, and save. Do not rename the file or delete the locked cells. An answer that
   runs for a long time (more than a minute) is stopped by the grader and scores 0; the
   other questions are not affected.

5. **Hand in** the `.ipynb` file as your teacher asks (for example as
   `<your name>-<chapter>.ipynb`, or in a folder named after you).

Your teacher sends back, for each question, your points and what was wrong, in words.
"""


def build_kit(
    root: Path,
    chapters: Sequence[str] | None,
    out: Path,
    *,
    force: bool = False,
    solutions_pdf: bool = True,
) -> Path:
    """Write the course kit of ``chapters`` (default: every chapter with exercises) to ``out``.

    Built aside and moved into place when complete; an earlier kit is replaced only with
    ``force``, any other non-empty folder refused. ``solutions_pdf``: print each instructor
    notebook (``instructor/<slug>.pdf``) where Chromium is installed, else say why not.
    """
    slugs = [resolve_chapter(root, c) for c in chapters] if chapters else list_chapters(root)
    loaded = [load_chapter(root, slug) for slug in dict.fromkeys(slugs)]
    loaded = [c for c in loaded if c.questions]
    if not loaded:
        raise BuildError("none of these chapters has exercises: no course kit to build")
    out = Path(out).resolve()
    check_replaceable(out, MANIFEST)
    if out.is_dir() and (out / MANIFEST).is_file() and not force:
        raise BuildError(
            f"{out} already holds a course kit: pass --force to replace it, or choose "
            "another --out (grading uses the kit: replace it only between terms)"
        )
    with temp_folder(out.parent, "course") as staging:
        kit = staging / "kit"
        for part in ("student", "instructor", "autograder", "grading"):
            (kit / part).mkdir(parents=True)
        for chapter in loaded:
            dist = _assign(root, chapter, staging / chapter.slug)
            shutil.copy(dist / "student" / f"{chapter.slug}.ipynb", kit / "student")
            instructor = kit / "instructor" / f"{chapter.slug}.ipynb"
            shutil.copy(dist / "autograder" / f"{chapter.slug}.ipynb", instructor)
            _annotate_instructor(instructor, chapter)
            (bundle,) = (dist / "autograder").glob("*.zip")
            shutil.copy(bundle, kit / "autograder" / f"{chapter.slug}.zip")
            spec = json.dumps(grading_spec(chapter), indent=1)
            (kit / "grading" / f"{chapter.slug}.json").write_text(spec + "\n")
        _write_tables(kit, loaded)
        (kit / "student" / "README.md").write_text(STUDENT_README)
        if solutions_pdf:
            why = solutions_unavailable()
            if why:
                print(f"dadp-book: solutions PDF not printed: {why}", file=sys.stderr)
            else:
                notebooks = [kit / "instructor" / f"{c.slug}.ipynb" for c in loaded]
                print_solutions(notebooks, kit / "instructor")
        atomic_replace(kit, out)
    return out
