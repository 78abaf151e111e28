"""The course kit (``dadp-book course``) and its grader (``dadp-book grade``).

Fast tests run every sidecar's solution against its own tests in this process, check that
the student's starter code fails the hidden tests, and refuse malformed sidecars. The tests
marked ``book`` build the kit of every chapter once and grade one class through the CLI:
the instructor notebooks score full marks, the unmodified student notebooks score 0, one
wrong answer costs exactly its question, a notebook that raises early still gets its rows
(and the questions it could still reach), and no student notebook holds a solution line,
a solution sentence or a hidden test.
"""

from __future__ import annotations

import csv
import inspect
import json
import textwrap
from pathlib import Path

import nbformat
import pytest

from dadp_book.cli import main
from dadp_book.course import grade as grade_module
from dadp_book.course.markdown import to_jupyter_markdown
from dadp_book.course.questions import Question, load_chapter, solution_lines
from dadp_book.discovery import list_chapters
from dadp_book.errors import BuildError

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = [c for c in (load_chapter(ROOT, s) for s in list_chapters(ROOT)) if c.questions]


def _test_functions(question: Question, which: str):
    for source in getattr(question, which):
        namespace: dict = {}
        exec(source, namespace)
        (function,) = [v for k, v in namespace.items() if k.startswith("test")]
        yield function


def _call(function, env: dict) -> None:
    function(**{name: env.get(name) for name in inspect.signature(function).parameters})


def _run(setup: str, code: str) -> dict:
    env: dict = {}
    exec(setup, env)
    exec(code, env)
    return env


def test_every_chapter_with_exercises_has_two_autograded_questions():
    assert len(CHAPTERS) == len(list_chapters(ROOT))
    for chapter in CHAPTERS:
        assert len(chapter.autograded) >= 2, chapter.slug
        assert all(q.points > 0 and q.hidden and q.tests for q in chapter.autograded)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.slug)
def test_solutions_pass_every_test_and_starters_fail_a_hidden_one(chapter):
    from otter.assign.solutions import replace_solutions

    for question in chapter.autograded:
        env = _run(chapter.setup, question.code)
        for function in (*_test_functions(question, "tests"), *_test_functions(question, "hidden")):
            _call(function, env)
        starter = "\n".join(replace_solutions(question.code.splitlines(), "python"))
        assert not set(solution_lines(question.code)) & set(starter.splitlines())
        env = _run(chapter.setup, starter)
        failed = 0
        for function in _test_functions(question, "hidden"):
            try:
                _call(function, env)
            except Exception:
                failed += 1
        assert failed, f"{question.label}: the unanswered starter passes every hidden test"


def test_solutions_agree_with_the_package():
    """Where the package computes the same thing, the answer keys agree with it."""
    import numpy as np

    import dadp_lite.theory as th
    from dadp_lite.theory.privacy import hockey_stick

    answers = {}
    for chapter in CHAPTERS:
        for question in chapter.autograded:
            answers[question.label] = _run(chapter.setup, question.code)
    swap = answers["ex-swapping-privacy-4"]["gap"]
    assert swap == pytest.approx(
        th.dp_swapping_cell_delta(1.0, 9) - th.dp_swapping_delta_as_printed(1.0, 9), abs=1e-12
    )
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    key = answers["ex-sufficient-condition-lemma-3"]["hockey_stick"]
    assert key(p, q, 0.4) == pytest.approx(hockey_stick(p, q, 0.4), abs=1e-12)


def _toy_root(tmp_path: Path, sidecar: str) -> Path:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "course").mkdir()
    (tmp_path / "_config.yml").write_text("title: toy\n")
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n  - file: notebooks/01-toy\n"
    )
    (tmp_path / "notebooks" / "01-toy.md").write_text(
        textwrap.dedent("""\
        # Toy

        ## Exercises

        ```{exercise}
        :label: ex-toy-1

        Store one as `one`.
        ```

        ```{solution} ex-toy-1
        :class: dropdown

        One.
        ```

        ## References
        """)
    )
    (tmp_path / "course" / "01-toy.yml").write_text(textwrap.dedent(sidecar))
    return tmp_path


GOOD = """\
    questions:
      ex-toy-1:
        points: 1
        code: |
          one = 1  # SOLUTION
        tests:
          - |
            def test_number(one):
                assert isinstance(one, int)
        hidden:
          - |
            def test_value(one):
                assert one == 1
    """


def test_a_toy_sidecar_loads(tmp_path):
    (question,) = load_chapter(_toy_root(tmp_path, GOOD), "01-toy").questions
    assert (question.label, question.points, question.manual) == ("ex-toy-1", 1.0, False)
    assert question.text == "Store one as `one`." and question.solution == "One."


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("ex-toy-1:", "ex-toy-9:"), "no exercise labelled ex-toy-9"),
        (("one = 1  # SOLUTION", "one = 1"), "marks no solution"),
        (("points: 1", "points: 0"), "points must be a positive number"),
        (("        hidden:\n", "        hidden: []\n        unused:\n"), "takes only the keys"),
        (("def test_value(one):", "x = 1\n" + " " * 12 + "def test_value(one):"), "one 'def test_"),
    ],
)
def test_malformed_sidecars_are_refused_with_the_file_named(tmp_path, change, message):
    root = _toy_root(tmp_path, GOOD.replace(*change))
    with pytest.raises(BuildError, match=message) as error:
        load_chapter(root, "01-toy")
    assert "course/01-toy.yml" in str(error.value)


def test_myst_roles_become_plain_markdown():
    text = "By {prf:ref}`thm-a`, {eq}`eq-x`, {prf:ref}`the lemma <lem-a>`, {math}`e^x`, "
    text += "{glue:text}`v:.2f`."
    assert to_jupyter_markdown(text) == (
        "By [theorem `thm-a` in the chapter], [equation `eq-x` in the chapter], the lemma, "
        "$e^x$, *(the value computed in the chapter)*."
    )


# --------------------------------------------------------------------------- the kit


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("course") / "kit"
    assert main(["--root", str(ROOT), "course", "--out", str(out)]) == 0
    return out


def _sources(path: Path) -> str:
    notebook = nbformat.read(path, as_version=4)
    return "\n".join([c.source for c in notebook.cells] + [json.dumps(notebook.metadata)])


def _distinctive(text: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if len(line) >= 25]


@pytest.mark.book
def test_the_kit_has_three_views_of_every_chapter(kit):
    manifest = json.loads((kit / "course.json").read_text())
    assert list(manifest["chapters"]) == [c.slug for c in CHAPTERS]
    for chapter in CHAPTERS:
        for part in ("student", "instructor"):
            assert (kit / part / f"{chapter.slug}.ipynb").is_file()
        assert (kit / "autograder" / f"{chapter.slug}.zip").is_file()
    assert "otter-grader" in (kit / "student" / "requirements.txt").read_text()
    with open(kit / "questions.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == sum(len(c.questions) for c in CHAPTERS)


@pytest.mark.book
@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.slug)
def test_student_notebooks_hold_no_solution_and_no_hidden_test(kit, chapter):
    student = _sources(kit / "student" / f"{chapter.slug}.ipynb")
    instructor = _sources(kit / "instructor" / f"{chapter.slug}.ipynb")
    for question in chapter.questions:
        prose = _distinctive(to_jupyter_markdown(question.solution))
        secrets = prose + _distinctive(question.solution) + solution_lines(question.code)
        for test in question.hidden:
            secrets += _distinctive(test) + [test.splitlines()[0]]
        assert secrets, question.label
        for line in secrets:
            assert line not in student, f"{question.label}: {line!r} in the student notebook"
        hidden = [line for test in question.hidden for line in _distinctive(test)]
        for line in prose + solution_lines(question.code) + hidden:
            assert line in instructor, f"{question.label}: {line!r} not in the instructor's"
        if not question.manual:
            assert f'grader.check("{question.label}")' in student
            assert all(test.splitlines()[0] in student for test in question.tests)


# --------------------------------------------------------------------------- grading


def _copy_with(source: Path, target: Path, edit) -> None:
    notebook = nbformat.read(source, as_version=4)
    edit(notebook)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)


def _replace(old: str, new: str):
    def edit(notebook):
        hits = [c for c in notebook.cells if old in c.source]
        assert len(hits) == 1
        hits[0].source = hits[0].source.replace(old, new)

    return edit


@pytest.fixture(scope="module")
def graded(kit, tmp_path_factory):
    subs = tmp_path_factory.mktemp("submissions")
    for chapter in CHAPTERS:
        name = f"{chapter.slug}.ipynb"
        _copy_with(kit / "instructor" / name, subs / "teacher" / name, lambda nb: None)
        _copy_with(kit / "student" / name, subs / "blank" / name, lambda nb: None)
    laplace = "03-laplace-and-discrete-gaussian.ipynb"
    # a Laplace scale calibrated for sensitivity 1 on the sensitivity-2 histogram query
    wrong = _replace("scale_replace = 2 / 0.5  # SOLUTION", "scale_replace = 1 / 0.5")
    _copy_with(kit / "instructor" / laplace, subs / "wrong" / laplace, wrong)
    setting = "01-setting-and-data.ipynb"
    # the second cell (the set-up cell, after otter's init cell) raises
    raises = _replace("import math\n\nimport numpy as np", "1 / 0")
    _copy_with(kit / "instructor" / setting, subs / "raises" / setting, raises)
    (subs / "garbage").mkdir()
    (subs / "garbage" / setting).write_text("this is not a notebook")
    out = subs / "scores.csv"
    assert main(["grade", str(kit), str(subs), "--out", str(out), "--jobs", "2"]) == 0
    with open(out) as handle:
        rows = list(csv.DictReader(handle))
    return {(r["student"], r["question"]): r for r in rows}, rows


def _possible(question: Question) -> str:
    return f"{question.points:g}"


@pytest.mark.book
def test_one_row_per_student_and_question(graded):
    _, rows = graded
    students = {"teacher", "blank", "wrong", "raises", "garbage"}
    assert {r["student"] for r in rows} == students
    assert len(rows) == len(students) * sum(len(c.questions) for c in CHAPTERS)
    assert all(
        r["status"] == "manual" and r["score"] == ""
        for r in rows
        if r["question"] in {q.label for c in CHAPTERS for q in c.questions if q.manual}
    )


@pytest.mark.book
def test_instructor_notebooks_score_full_marks_and_student_notebooks_zero(graded):
    by_key, _ = graded
    for chapter in CHAPTERS:
        for question in chapter.autograded:
            teacher = by_key["teacher", question.label]
            assert (teacher["score"], teacher["status"]) == (_possible(question), "ok"), teacher
            blank = by_key["blank", question.label]
            assert (blank["score"], blank["status"]) == ("0", "ok"), blank


@pytest.mark.book
def test_one_wrong_answer_costs_exactly_its_question(graded):
    by_key, _ = graded
    (chapter,) = [c for c in CHAPTERS if c.slug.startswith("03-")]
    for question in chapter.autograded:
        row = by_key["wrong", question.label]
        lost = question.label == "ex-laplace-and-discrete-gaussian-4"
        assert row["score"] == ("0" if lost else _possible(question)), row
    assert "hidden test failed" in by_key["wrong", "ex-laplace-and-discrete-gaussian-4"]["note"]
    others = [r for (student, _), r in by_key.items() if student == "wrong"]
    elsewhere = {r["status"] for r in others if r["chapter"] != chapter.slug}
    assert elsewhere == {"missing", "manual"}


@pytest.mark.book
def test_a_notebook_that_raises_early_gets_its_rows_and_what_it_still_reaches(graded):
    by_key, _ = graded
    needs_numpy = by_key["raises", "ex-setting-4"]
    assert (needs_numpy["score"], needs_numpy["status"]) == ("0", "cell error")
    assert "ZeroDivisionError" in needs_numpy["note"]
    assert by_key["raises", "ex-setting-5"]["score"] == "2"  # a set of letters needs no numpy


@pytest.mark.book
def test_a_file_that_is_no_notebook_scores_zero_with_a_reason(graded):
    by_key, _ = graded
    row = by_key["garbage", "ex-setting-4"]
    assert (row["score"], row["status"]) == ("0", "failed")
    assert "could not run it" in row["note"]


@pytest.mark.book
def test_time_limit_interrupts_the_running_cell_and_grades_the_rest(kit, tmp_path):
    name = "06-swapping-privacy.ipynb"
    answer = "gamma = math.e / (math.e + 8)"
    loop = _replace(answer, "while True:\n    pass\n" + answer)
    _copy_with(kit / "instructor" / name, tmp_path / "subs" / "slow" / name, loop)
    rows, lines = grade_module.grade_submissions(
        kit, tmp_path / "subs", tmp_path / "scores.csv", jobs=1, timeout=20
    )
    by_question = {r["question"]: r for r in rows}
    assert by_question["ex-swapping-privacy-3"]["score"] == "2"  # answered before the loop
    assert by_question["ex-swapping-privacy-3"]["status"] == "time limit"
    assert by_question["ex-swapping-privacy-4"]["score"] == "0"  # its cell was interrupted
    assert any("time limit" in line for line in lines)


@pytest.mark.book
def test_a_notebook_far_past_its_limit_is_stopped_and_the_batch_goes_on(kit, tmp_path, monkeypatch):
    monkeypatch.setattr(grade_module, "HARD_MARGIN", 1.0)
    name = "13-classification.ipynb"
    for student in ("first", "second"):
        _copy_with(kit / "student" / name, tmp_path / "subs" / student / name, lambda nb: None)
    rows, lines = grade_module.grade_submissions(
        kit, tmp_path / "subs", tmp_path / "scores.csv", jobs=1, timeout=0.5
    )
    assert {r["status"] for r in rows if r["status"] != "manual"} == {"stopped"}
    assert len(lines) == 2 and all("stopped" in line for line in lines)
