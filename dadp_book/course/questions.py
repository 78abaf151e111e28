"""A chapter's exercises as course questions: the chapter's text plus its sidecar file.

The chapter holds every exercise's text and solution prose as the book shows them; the
sidecar ``course/<slug>.yml`` holds, by exercise label, what the book does not show (its
format: ``book/teaching.md``, "Writing or changing an autograded exercise").
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dadp_book.discovery import chapter_path, chapter_title
from dadp_book.errors import BuildError
from dadp_book.yamlio import load_yaml_file

__all__ = ["Chapter", "Question", "load_chapter", "sidecar_path", "solution_lines"]

DEFAULT_SETUP = "import math\n\nimport numpy as np"
_FENCE = re.compile(r"^(?P<fence>`{3,})\{(?P<kind>exercise|solution)\}\s*(?P<arg>\S*)\s*$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
_SIDECAR_KEYS = {"points", "code", "tests", "hidden", "manual", "tolerance", "text", "rubric"}
_HIDDEN_KEYS = {"test", "feedback"}


@dataclass(frozen=True)
class Question:
    """One exercise of a chapter, as the course kit grades it."""

    label: str
    number: int
    text: str
    solution: str
    points: float
    manual: bool
    code: str = ""
    tests: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    feedback: tuple[str, ...] = ()  # one sentence per hidden test, for the student
    tolerance: str = ""
    rubric: str = ""


@dataclass(frozen=True)
class Chapter:
    """A chapter's exercises in the book's order, and the code that opens its notebook."""

    slug: str
    title: str
    setup: str
    questions: tuple[Question, ...]
    text: str = ""  # the chapter's MyST source (what a question's references quote)

    @property
    def autograded(self) -> tuple[Question, ...]:
        return tuple(q for q in self.questions if not q.manual)


def sidecar_path(root: Path, slug: str) -> Path:
    """``course/<slug>.yml``: solutions and tests of the chapter's autograded exercises."""
    return root / "course" / f"{slug}.yml"


def _exercises_section(text: str, where: str) -> list[str]:
    lines = text.splitlines()
    try:
        start = lines.index("## Exercises")
    except ValueError:
        return []
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), None)
    if end is None:
        raise BuildError(f"{where}: the Exercises section has no following '## ' heading")
    return lines[start + 1 : end]


def _blocks(lines: list[str], where: str) -> tuple[dict[str, str], dict[str, str]]:
    """Exercise texts (in the chapter's order) and solution texts, by label."""
    exercises: dict[str, str] = {}
    solutions: dict[str, str] = {}
    rest = iter(lines)
    for line in rest:
        match = _FENCE.match(line)
        if not match:
            continue
        fence, kind, label = match["fence"], match["kind"], match["arg"]
        body: list[str] = []
        for inner in rest:
            if inner.rstrip() == fence:
                break
            option = _OPTION.match(inner) if not body else None
            if option and option["key"] == "label":
                label = option["value"].strip()
            elif not option:
                body.append(inner)
        else:
            raise BuildError(f"{where}: unclosed {{{kind}}} block {label!r}")
        text = "\n".join(body).strip()
        if kind == "solution":
            solutions[label] = text
        elif not label or label in exercises:
            raise BuildError(f"{where}: exercise without a unique :label: ({label!r})")
        else:
            exercises[label] = text
    return exercises, solutions


def _check_test(source: str, label: str, where: str) -> str:
    source = source.strip("\n")
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise BuildError(f"{where}: a test of {label} is not valid Python: {error}") from None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        raise BuildError(f"{where}: each test of {label} must be one 'def test_...(...)' function")
    return source


def _hidden(items: object, label: str, where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The hidden tests of ``label`` and the feedback sentence of each."""
    tests, words = [], []
    for item in items or ():
        if not isinstance(item, dict) or set(item) != _HIDDEN_KEYS:
            raise BuildError(
                f"{where}: each hidden test of {label} is a mapping with the keys 'test' "
                "and 'feedback' (what a student reads when it fails)"
            )
        feedback = str(item["feedback"]).strip()
        if not feedback:
            raise BuildError(f"{where}: a hidden test of {label} has empty feedback")
        tests.append(_check_test(str(item["test"]), label, where))
        words.append(feedback)
    return tuple(tests), tuple(words)


def _number(value: object, what: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise BuildError(f"{where}: {what} must be a positive number, not {value!r}")
    return float(value)


def _sidecar(root: Path, slug: str) -> dict:
    path = sidecar_path(root, slug)
    if not path.is_file():
        return {}
    content = load_yaml_file(path, "course sidecar") or {}
    if not isinstance(content, dict) or not set(content) <= {"setup", "questions"}:
        raise BuildError(f"{path}: expected the keys 'setup' and 'questions' only")
    return content


def load_chapter(root: Path, slug: str) -> Chapter:
    """The chapter's exercises joined with ``course/<slug>.yml``, checked for consistency."""
    where = f"notebooks/{slug}.md"
    text = chapter_path(root, slug).read_text()
    exercises, solutions = _blocks(_exercises_section(text, where), where)
    sidecar = _sidecar(root, slug)
    specs = sidecar.get("questions") or {}
    side = f"course/{slug}.yml"
    if not isinstance(specs, dict):
        raise BuildError(f"{side}: 'questions' must map exercise labels to their specs")
    unknown = sorted(set(specs) - set(exercises))
    if unknown:
        raise BuildError(f"{side}: no exercise labelled {', '.join(unknown)} in {where}")
    questions = []
    for number, label in enumerate(exercises, start=1):
        spec = specs.get(label) or {}
        if not isinstance(spec, dict) or not set(spec) <= _SIDECAR_KEYS:
            raise BuildError(f"{side}: {label} takes only the keys {sorted(_SIDECAR_KEYS)}")
        wording = str(spec.get("text") or exercises[label]).strip()
        solution = solutions.get(label, "")
        common: dict[str, Any] = dict(label=label, number=number, text=wording, solution=solution)
        if "code" not in spec:
            points = _number(spec.get("manual", 1), f"{label}: manual", side)
            rubric = str(spec.get("rubric") or "").strip()
            questions.append(Question(**common, points=points, manual=True, rubric=rubric))
            continue
        code = str(spec["code"]).strip("\n")
        if not solution_lines(code):
            raise BuildError(f"{side}: the code of {label} marks no solution (# SOLUTION)")
        hidden, feedback = _hidden(spec.get("hidden"), label, side)
        if not hidden:
            raise BuildError(f"{side}: {label} needs at least one hidden test")
        tests = tuple(_check_test(t, label, side) for t in spec.get("tests") or ())
        if not tests:
            raise BuildError(f"{side}: {label} needs a visible test for the student's check")
        points = _number(spec.get("points"), f"{label}: points", side)
        tolerance = str(spec.get("tolerance") or "").strip()
        if not tolerance:
            raise BuildError(f"{side}: {label} must state its tolerance (the key 'tolerance')")
        common.update(code=code, tests=tests, hidden=hidden, feedback=feedback, tolerance=tolerance)
        questions.append(Question(**common, points=points, manual=False))
    setup = str(sidecar.get("setup") or DEFAULT_SETUP).strip("\n")
    return Chapter(slug, chapter_title(root, slug), setup, tuple(questions), text)


def solution_lines(code: str) -> list[str]:
    """The lines of an answer cell that otter-grader removes from the student's copy."""
    found, inside = [], False
    for line in code.splitlines():
        stripped = line.strip()
        if re.match(r"#\s*BEGIN SOLUTION", stripped):
            inside = True
        elif stripped.endswith("# END SOLUTION"):
            inside = False
        elif inside or re.search(r"#\s?SOLUTION$", stripped):
            found.append(re.sub(r"\s*#\s?SOLUTION$", "", stripped))
    return [line for line in found if line]
