"""One manifest per chapter (:mod:`dadp_book.manifest`): ``_toc.yml`` declares the chapters,
and the profiles, the course sidecars, the range table, the teaching guide's week table and
ARCHITECTURE.md's table are checked against it, each problem naming the file and the line
to edit. A scratch copy of the book gets a new chapter (the template copied) and each step
that is missing is reported where to make it; made as reported, the manifest holds.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import test_course
from crawl import build_word_findings, glossary_findings, glossary_terms

from dadp_book import manifest
from dadp_book.course.markdown import standalone_markdown
from dadp_book.course.questions import load_chapter
from dadp_book.discovery import convert_chapter, list_chapters
from dadp_book.errors import BuildError
from dadp_book.execute import execute_notebook
from dadp_book.parameters import chapter_parameters, declaration_problems

ROOT = Path(__file__).resolve().parents[1]
CHECKS = {
    "toc": manifest.toc_problems,
    "profiles": manifest.profile_problems,
    "course": manifest.course_problems,
    "ranges": manifest.range_table_problems,
    "teaching": manifest.teaching_problems,
    "architecture": manifest.architecture_problems,
}
CHAPTERS = list_chapters(ROOT)
LAST = CHAPTERS[-1]
NUMBER = f"{int(LAST[:2]) + 1:02d}"
#: The chapter a scratch book adds: the next number after the book's last chapter.
NEW = f"{NUMBER}-new-result"
#: The files the manifest reads (a scratch book holds these, and the chapters).
FILES = ["_toc.yml", "_config.yml", "ARCHITECTURE.md", "book/reproducibility.md",
         "book/teaching.md"]  # fmt: skip
LOCATED = re.compile(r"^(?P<path>[\w./-]+):(?P<line>\d+): ")


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_the_books_manifest_holds_together(check):
    problems = CHECKS[check](ROOT)
    assert not problems, "\n".join(map(str, problems))


@pytest.mark.parametrize(
    "rule",
    [
        test_course.test_solutions_pass_every_test_and_starters_fail_a_hidden_one,
        test_course.test_answers_rounded_to_four_significant_digits_pass,
    ],
    ids=lambda rule: rule.__name__,
)
def test_the_template_sidecar_meets_the_course_rules(rule):
    chapter = load_chapter(ROOT, manifest.TEMPLATE)
    assert len(chapter.autograded) >= 2
    rule(chapter)
    for question in chapter.questions:  # as test_no_question_points_at_an_internal_label
        text = standalone_markdown(question.text, chapter.text)
        assert "`eq-" not in text and "`thm-" not in text, question.label
        assert "dadp-book run" not in text and "dl." not in text, question.label


def test_the_template_meets_the_readers_word_rules():
    """The crawler's rules on what a reader sees (``tests/test_browser.py`` checks them on
    the rendered chapters; the template is not rendered): no API, constant or parameter
    name in the prose, no glossary term unlinked in the main-result box."""
    text = (ROOT / "notebooks" / f"{manifest.TEMPLATE}.md").read_text()
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"^```\{code-cell\}.*?^```\s*$", "", text, flags=re.S | re.M)
    cut = text.index("## Exercises")
    assert not build_word_findings(text[:cut], text[cut:])
    box = re.search(r"```\{admonition\} Main result\n:class: main-result\n(.*?)\n```", text, re.S)
    assert box, "no main-result box"
    unlinked = re.sub(r"\{term\}`[^`]*`", " ", box.group(1))
    assert not glossary_findings([{"text": unlinked, "links": []}], glossary_terms(), {})


def test_the_template_declares_its_parameters():
    params = chapter_parameters(ROOT, manifest.TEMPLATE)
    assert params and declaration_problems(params) == []
    assert all(p.has_default for p in params)


@pytest.mark.book
def test_the_template_runs(tmp_path):
    """The template is a small working chapter: it executes, its checks hold, at its own
    defaults with fewer repetitions (what a quick-profile entry would give it)."""
    notebook = convert_chapter(ROOT, manifest.TEMPLATE)
    outcome = execute_notebook(notebook, manifest.TEMPLATE, {"REPS": 50}, scratch=tmp_path)
    assert outcome.error is None, outcome.error


# ------------------------------------------------------------------ a scratch book
@pytest.fixture
def scratch(tmp_path) -> Path:
    """A copy of what the manifest reads, with the template copied to a new last chapter
    (skipped while the book's own manifest has problems: they are reported above)."""
    if manifest.check(ROOT):
        pytest.skip("the book's manifest has problems (test_the_books_manifest_holds_together)")
    root = tmp_path / "book"
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, root / name)
    for folder in ("notebooks", "course", "profiles"):
        shutil.copytree(ROOT / folder, root / folder)
    shutil.copy(root / "notebooks" / "_template.md", root / "notebooks" / f"{NEW}.md")
    return root


def _line(root: Path, problem: manifest.Problem) -> str:
    return (root / problem.path).read_text().splitlines()[problem.line - 1]


def _insert_after(path: Path, line: int, text: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([*lines[:line], text, *lines[line:]]))


def test_a_chapter_file_missing_from_the_toc_fails_naming_the_line_to_add(scratch):
    with pytest.raises(BuildError, match=f"notebooks/{NEW}.md is not in the book: add "):
        list_chapters(scratch)
    (problem,) = manifest.check(scratch)
    assert problem.path == "_toc.yml" and _line(scratch, problem).endswith(LAST)
    assert f"add '- file: notebooks/{NEW}'" in str(problem)
    assert str(problem).startswith(f"_toc.yml:{problem.line}: ")
    shutil.move(scratch / "notebooks" / f"{NEW}.md", scratch / "notebooks" / f"_{NEW}.md")
    assert not manifest.toc_problems(scratch)  # a name starting with _ stays out


def test_each_missing_step_of_a_new_chapter_names_its_file_and_line(scratch):
    _insert_after(scratch / "_toc.yml", manifest.toc_problems(scratch)[0].line,
                  f"      - file: notebooks/{NEW}\n")  # fmt: skip
    problems = manifest.check(scratch)
    by_file = {p.path: p for p in problems}
    assert sorted(by_file) == sorted([
        "profiles/quick.yml", "profiles/full.yml", f"course/{NEW}.yml",
        "book/reproducibility.md", "book/teaching.md", "ARCHITECTURE.md",
    ]), "\n".join(map(str, problems))  # fmt: skip
    for problem in problems:  # a located problem points into its file
        if problem.line:
            assert LOCATED.match(str(problem)), problem
            assert 0 < problem.line <= len((scratch / problem.path).read_text().splitlines())
    for profile in ("quick", "full"):
        problem = by_file[f"profiles/{profile}.yml"]
        entry = _line(scratch, problem)  # the last line of the last chapter's entry
        assert entry.startswith("    ") and ":" in entry, entry
        assert f"add '  {NEW}:' after line {problem.line} (the end of {LAST})" in (problem.message)
        _insert_after(scratch / problem.path, problem.line, f"  {NEW}:\n    REPS: 20\n")
    ranges = by_file["book/reproducibility.md"]
    row = f"| {NUMBER} | `EPSILONS` in [0.001, 100] | `REPS` in [2, 100000] |"
    assert f"no row for chapter {NUMBER}: add '{row}' after line {ranges.line}" in ranges.message
    assert _line(scratch, ranges).startswith(f"| {LAST[:2]} |")
    assert manifest.write_range_table(scratch)
    assert "missing" in by_file[f"course/{NEW}.yml"].message
    shutil.copy(scratch / "course" / "_template.yml", scratch / "course" / f"{NEW}.yml")
    teaching = by_file["book/teaching.md"]
    assert f"names no chapter {NUMBER}: add {{doc}}`Chapter title" in teaching.message
    row = f"| 9 | {{doc}}`the new result <../notebooks/{NUMBER}>` | a theme | epsilon |\n"
    _insert_after(scratch / teaching.path, teaching.line, row)
    architecture = by_file["ARCHITECTURE.md"]
    assert f"no row for `{NEW}`" in architecture.message
    _insert_after(scratch / architecture.path, architecture.line, f"| a result | | | `{NEW}` |\n")
    assert not manifest.check(scratch), "\n".join(map(str, manifest.check(scratch)))


def test_a_declaration_out_of_step_with_the_range_table_names_the_row(scratch):
    (scratch / "notebooks" / f"{NEW}.md").unlink()
    path = scratch / "notebooks" / "13-classification.md"
    path.write_text(path.read_text().replace("\nREPS = 200\n", "\nREPS = 200  # int in [2, 500]\n"))
    (problem,) = manifest.range_table_problems(scratch)
    assert _line(scratch, problem).startswith("| 13 |")
    assert "'| 13 | `EPSILONS` in [0.001, 100] | `REPS` in [2, 500] |'" in problem.message
    assert manifest.write_range_table(scratch) and not manifest.range_table_problems(scratch)


def test_profiles_in_another_order_or_naming_no_chapter_are_located(scratch):
    (scratch / "notebooks" / f"{NEW}.md").unlink()
    quick = scratch / "profiles" / "quick.yml"
    text = quick.read_text()
    first = text.index("  02-sufficient-condition-lemma:")
    second = text.index("  03-laplace-and-discrete-gaussian:")
    block = text[first:second]
    quick.write_text(text[:first] + text[second:] + block.replace("02-suff", "99-suff"))
    problems = [str(p) for p in manifest.profile_problems(scratch)]
    assert any("'99-sufficient-condition-lemma' is not a chapter of _toc.yml" in p
               for p in problems), problems  # fmt: skip
    assert any("no entry for chapter 02-sufficient-condition-lemma: add" in p for p in problems)


def test_numbers_out_of_order_and_orphan_sidecars_are_named(scratch):
    (scratch / "notebooks" / f"{NEW}.md").unlink()
    shutil.copy(scratch / "course" / "_template.yml", scratch / "course" / "16-gone.yml")
    (problem,) = manifest.course_problems(scratch)
    assert str(problem).startswith("course/16-gone.yml: no chapter notebooks/16-gone")
    toc = scratch / "_toc.yml"
    toc.write_text(toc.read_text().replace("notebooks/13-classification",
                                           "notebooks/13-classification-x"))  # fmt: skip
    shutil.move(scratch / "notebooks" / "13-classification.md",
                scratch / "notebooks" / "13-classification-x.md")  # fmt: skip
    text = toc.read_text()
    a, b = (
        "      - file: notebooks/12-data-release-tables\n",
        "      - file: notebooks/13-classification-x\n",
    )
    toc.write_text(text.replace(a + b, b + a))
    (problem,) = manifest.toc_problems(scratch)
    assert "notebooks/12-data-release-tables comes after notebooks/13-classification-x" in str(
        problem
    )
