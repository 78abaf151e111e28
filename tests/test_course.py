"""The course kit (``dadp-book course``) and its grader (``dadp-book grade``).

Fast tests run every sidecar's solution against its own tests in this process (also
rounded to four significant digits), check that the student's starter code fails the
hidden tests, refuse malformed sidecars and bad options, and check the codec and the CSV
escaping. The tests marked ``book`` build the kit of every chapter once and grade a class
through the CLI (``test_course_class.py``), and check that no student-facing file holds a
hidden test or an expected value.
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
from dadp_book.course.grade import csv_cell
from dadp_book.course.kit import autograder_requirements
from dadp_book.course.markdown import standalone_markdown, to_jupyter_markdown
from dadp_book.course.questions import Question, load_chapter, solution_lines
from dadp_book.course.solutions import solutions_unavailable
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
    missing = sorted(set(list_chapters(ROOT)) - {c.slug for c in CHAPTERS})
    assert not missing, f"no course/<slug>.yml for {missing} (python -m dadp_book.manifest)"
    for chapter in CHAPTERS:
        assert len(chapter.autograded) >= 2, (
            f"course/{chapter.slug}.yml: {len(chapter.autograded)} autograded exercise(s), "
            "at least 2 needed (python -m dadp_book.manifest)"
        )
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
        tolerance: Graded exactly.
        code: |
          one = 1  # SOLUTION
        tests:
          - |
            def test_number(one):
                assert isinstance(one, int)
        hidden:
          - test: |
              def test_value(one):
                  assert one == 1
            feedback: store the number one
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
        (("def test_value(one):", "x = 1\n" + " " * 14 + "def test_value(one):"), "one 'def test_"),
        (("        feedback: store the number one\n", ""), "keys 'test' and 'feedback'"),
        (("        tolerance: Graded exactly.\n", ""), "must state its tolerance"),
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
        "By the chapter's theorem, the chapter's equation, the lemma, "
        "$e^x$, *(the value computed in the chapter)*."
    )


def test_references_are_quoted_under_the_question():
    chapter = textwrap.dedent("""\
        (sec-a)=
        ## Adjacency

        $$
        b = 2/\\epsilon
        $$ (eq-scale)

        ```{prf:definition} Fairness
        :label: def-fair

        A mechanism is fair if {math}`\\alpha = 0`.
        ```
        """)
    text = "Use {eq}`eq-scale` and {prf:ref}`def-fair`, as in {ref}`sec-a`; {eq}`eq-scale` again."
    out = standalone_markdown(text, chapter)
    assert "equation [1] (quoted below)" in out and "definition [2] (quoted below)" in out
    assert "the chapter's section *Adjacency*" in out
    assert "> b = 2/\\epsilon" in out and "> A mechanism is fair if $\\alpha = 0$." in out
    assert "**[2] Definition (Fairness), from the chapter.**" in out and "[3]" not in out


def test_no_question_points_at_an_internal_label():
    for chapter in CHAPTERS:
        for question in chapter.questions:
            text = standalone_markdown(question.text, chapter.text)
            assert "`eq-" not in text and "`thm-" not in text, question.label
            assert "dadp-book run" not in text and "dl." not in text, question.label


def _round4(value):
    """``value`` with every float rounded to four significant digits (functions: outputs)."""
    import numpy as np

    if callable(value):
        return lambda *a, **k: _round4(value(*a, **k))
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return np.array([float(f"{v:.4g}") for v in value.ravel()]).reshape(value.shape)
    if isinstance(value, float):
        return float(f"{value:.4g}")
    if isinstance(value, tuple):
        return tuple(_round4(v) for v in value)
    return value


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.slug)
def test_answers_rounded_to_four_significant_digits_pass(chapter):
    for question in chapter.autograded:
        env = _run(chapter.setup, question.code)
        rounded = {k: _round4(v) for k, v in env.items() if not k.startswith("__")}
        for function in _test_functions(question, "hidden"):
            _call(function, rounded)
        assert question.tolerance and len(question.feedback) == len(question.hidden)


def test_autograder_environment_names_every_import_pinned_as_locked():
    locked = (ROOT / "requirements.lock").read_text().splitlines()
    for chapter in CHAPTERS:
        lines = autograder_requirements(ROOT, chapter)
        assert any(line.startswith("otter-grader[grading]==") for line in lines)
        for line in lines:
            assert line.replace("[grading]", "") in locked, line
        uses_scipy = any("scipy" in t for q in chapter.autograded for t in q.hidden + (q.code,))
        assert any(line.startswith("scipy==") for line in lines) == uses_scipy, chapter.slug


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ('=HYPERLINK("x")', '\'=HYPERLINK("x")'),
        ("+1+1", "'+1+1"),
        ("-2", "'-2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("alice", "alice"),
        ("\tx", "'\tx"),
        ("", ""),
    ],
)
def test_spreadsheet_formulas_are_escaped(value, shown):
    assert csv_cell(value) == shown


@pytest.mark.parametrize("timeout", [float("inf"), 1e300, float("nan"), 0, -1])
def test_a_timeout_out_of_range_is_refused_in_one_line(tmp_path, timeout, capsys):
    (tmp_path / "kit").mkdir()
    (tmp_path / "subs").mkdir()
    args = ["grade", str(tmp_path / "kit"), str(tmp_path / "subs"), "--timeout", str(timeout)]
    assert main(args) == 1
    assert "--timeout must be a number of seconds" in capsys.readouterr().err
    assert not list(tmp_path.rglob("*.csv"))


def test_the_codec_carries_values_and_nothing_else():
    import numpy as np

    from dadp_book.course.runner import Opaque, decode, encode

    values = [
        1,
        2.5,
        float("nan"),
        10**30,
        1 + 2j,
        "s",
        None,
        True,
        [1, (2, 3)],
        {"a"},
        {"k": np.float64(0.1)},
        np.arange(6.0).reshape(2, 3),
        np.array([True, False]),
        np.int32(7),
    ]
    for value in values:
        back = decode(json.loads(json.dumps(encode(value))))
        if isinstance(value, np.ndarray):
            assert back.dtype == value.dtype and np.array_equal(back, value)
        elif isinstance(value, float) and value != value:
            assert back != back
        else:
            assert back == value and type(back) is type(value)
    assert isinstance(decode(encode(len)), Opaque) and isinstance(decode(encode(object())), Opaque)
    with pytest.raises(ValueError, match="not carried"):
        decode({"a": ["|O", [1], "AAAAAAAAAAA="]})
    with pytest.raises(ValueError):
        decode({"pickle": "..."})


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
        assert (kit / "grading" / f"{chapter.slug}.json").is_file()
    assert "otter-grader" in (kit / "student" / "requirements.txt").read_text()
    assert "pip install -r requirements.txt" in (kit / "student" / "README.md").read_text()
    if solutions_unavailable() is None:  # Chromium is there: every solution is printed
        from pypdf import PdfReader

        for chapter in CHAPTERS:
            pdf = PdfReader(kit / "instructor" / f"{chapter.slug}.pdf")
            text = " ".join(page.extract_text() for page in pdf.pages)
            assert chapter.autograded[0].label in text and "Solution" in text
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
        if question.manual:  # the book's solution prose is quoted under no student question
            secrets = [s for s in secrets if s not in question.text]
        assert secrets, question.label
        for line in secrets:
            assert line not in student, f"{question.label}: {line!r} in the student notebook"
        hidden = [line for test in question.hidden for line in _distinctive(test)]
        for line in prose + solution_lines(question.code) + hidden:
            assert line in instructor, f"{question.label}: {line!r} not in the instructor's"
        if not question.manual:
            assert f'grader.check("{question.label}")' in student
            assert all(test.splitlines()[0] in student for test in question.tests)


@pytest.mark.book
def test_a_kit_is_never_replaced_without_force(kit, tmp_path, capsys):
    before = {p: p.read_bytes() for p in kit.rglob("*") if p.is_file()}
    assert main(["--root", str(ROOT), "course", "01", "--out", str(kit)]) == 1
    assert "--force" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in kit.rglob("*") if p.is_file()} == before
    small = tmp_path / "small"
    assert main(["--root", str(ROOT), "course", "01", "--out", str(small), "--no-pdf"]) == 0
    args = ["course", "02", "--out", str(small), "--force", "--no-pdf"]
    assert main(["--root", str(ROOT), *args]) == 0
    assert list(json.loads((small / "course.json").read_text())["chapters"]) == [
        "02-sufficient-condition-lemma"
    ]


@pytest.mark.book
@pytest.mark.parametrize("where", ["directory", "manifest", "in kit", "in submissions", "not csv"])
def test_grade_out_is_checked_before_grading(kit, tmp_path, where, capsys):
    subs = tmp_path / "subs"
    (subs / "alice").mkdir(parents=True)
    (subs / "alice" / "01-setting-and-data.ipynb").write_bytes(
        (kit / "student" / "01-setting-and-data.ipynb").read_bytes()
    )
    out = {
        "directory": tmp_path,
        "manifest": kit / "course.json",
        "in kit": kit / "student" / "scores.csv",
        "in submissions": subs / "scores.csv",
        "not csv": tmp_path / "scores.txt",
    }[where]
    manifest = (kit / "course.json").read_bytes()
    assert main(["grade", str(kit), str(subs), "--out", str(out)]) == 1
    assert "--out" in capsys.readouterr().err
    assert (kit / "course.json").read_bytes() == manifest
    assert not (kit / "student" / "scores.csv").exists() and not (subs / "scores.csv").exists()


@pytest.mark.book
def test_a_disk_too_full_for_the_outputs_is_refused_before_grading(kit, tmp_path, monkeypatch):
    import shutil
    from collections import namedtuple

    from dadp_book.course import grade

    subs = tmp_path / "subs" / "alice"
    subs.mkdir(parents=True)
    (subs / "01-setting-and-data.ipynb").write_bytes(
        (kit / "student" / "01-setting-and-data.ipynb").read_bytes()
    )
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(grade.shutil, "disk_usage", lambda path: usage(10**9, 10**9, 10**5))
    monkeypatch.setattr(grade, "_grade_all", lambda *a: pytest.fail("graded on a full disk"))
    with pytest.raises(BuildError, match="only 0.1 MB free"):
        grade.grade_submissions(kit, tmp_path / "subs", tmp_path / "out" / "scores.csv")
    assert not list((tmp_path / "out").glob("*")) if (tmp_path / "out").exists() else True
    assert shutil.disk_usage  # the real one is back after the test
