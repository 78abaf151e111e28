"""One manifest per chapter: ``_toc.yml`` declares the book's chapters; the rest follows.

The profiles, the course sidecars, the range table of book/reproducibility.md (generated
from each chapter's parameters cell: ``--write`` rewrites it), the week table of
book/teaching.md and ARCHITECTURE.md's "Which module serves which result" are checked
against ``_toc.yml``'s chapters (ARCHITECTURE.md, "Adding a chapter"); every problem names
the file and the line to edit (:class:`Problem`). ``python -m dadp_book.manifest`` prints
them (exit status 1 if any); ``tests/test_manifest.py`` runs the same checks.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from dadp_book.discovery import (
    book_root,
    chapter_path,
    chapter_title,
    list_chapters,
    toc_entries,
    unlisted_chapters,
    unlisted_message,
)
from dadp_book.errors import BuildError
from dadp_book.parameters import PROFILES, chapter_parameters

__all__ = ["TEMPLATE", "Problem", "check", "range_rows", "write_range_table"]
__all__ += ["architecture_problems", "course_problems", "profile_problems"]
__all__ += ["range_table_problems", "teaching_problems", "toc_problems"]

#: The chapter template (``notebooks/_template.md``, ``course/_template.yml``): held to every
#: chapter rule, never in the book.
TEMPLATE = "_template"
_SETTING = {"quick": "small values that run in seconds", "full": "the paper's setting"}
_RANGES_START = "<!-- chapter-ranges:"
_RANGES_END = "<!-- end chapter-ranges -->"
_RANGES_HEADER = ["| chapter | epsilon | repetitions |", "|---|---|---|"]
_WRITE = "python -m dadp_book.manifest --write rewrites the table"


@dataclass(frozen=True)
class Problem:
    """What to fix, where: ``path`` relative to the book, ``line`` 1-based (0: no line)."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


def _lines(root: Path, name: str) -> list[str]:
    return (root / name).read_text().splitlines()


def _find(lines: Sequence[str], pattern: str) -> int:
    """1-based number of the first line matching ``pattern`` (0 if none)."""
    for number, line in enumerate(lines, start=1):
        if re.search(pattern, line):
            return number
    return 0


def _table(
    lines: Sequence[str], heading: str, stop: str, skip: tuple[str, ...] = ()
) -> tuple[int, list[tuple[int, str]]]:
    """The line of ``heading`` (0 if none) and the ``|`` rows below it, ``(line, text)``,
    up to a line starting with ``stop`` (rows starting with a ``skip`` prefix left out)."""
    start = _find(lines, heading)
    rows = []
    for number, line in enumerate(lines[start:], start=start + 1) if start else ():
        if line.startswith(stop):
            break
        if line.startswith("|") and not line.startswith(skip):
            rows.append((number, line))
    return start, rows


def _number(slug: str) -> str:
    return slug.split("-", 1)[0]


# ------------------------------------------------------------------------ the toc
def toc_problems(root: Path) -> list[Problem]:
    """Chapter files missing from ``_toc.yml``, entries without a file, numbers out of order."""
    problems = []
    entries = toc_entries(root)
    for slug in unlisted_chapters(root):
        line = entries[-1][1] if entries else 0
        problems.append(Problem("_toc.yml", line, unlisted_message(root, slug)))
    previous: tuple[str, int] | None = None
    for slug, line in entries:
        if not chapter_path(root, slug).is_file():
            problems.append(Problem("_toc.yml", line, f"notebooks/{slug}.md does not exist"))
        number = _number(slug)
        if not (number.isdigit() and len(number) == 2):
            problems.append(Problem("_toc.yml", line, f"{slug}: a chapter file is NN-slug.md"))
        elif previous and _number(previous[0]).isdigit() and number <= _number(previous[0]):
            problems.append(Problem(
                "_toc.yml", line,
                f"notebooks/{slug} comes after notebooks/{previous[0]} (line {previous[1]}) but "
                f"its number is not higher: file numbers follow the book's order (rename it)",
            ))  # fmt: skip
        previous = (slug, line)
    return problems


# ------------------------------------------------------------------- the profiles
def _profile_entries(root: Path, profile: str) -> list[tuple[str, int, int]]:
    """``(slug, first line, last line)`` of each entry under ``chapters:`` (1-based)."""
    path = root / "profiles" / f"{profile}.yml"
    text = path.read_text()
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    chapters = None
    if isinstance(node, yaml.MappingNode):
        chapters = next((v for k, v in node.value if k.value == "chapters"), None)
    if not isinstance(chapters, yaml.MappingNode):
        raise BuildError(f"profiles/{profile}.yml: expected 'chapters:' mapping slugs to values")
    lines = text.splitlines()
    starts = [k.start_mark.line + 1 for k, _ in chapters.value]
    ends = [*[s - 1 for s in starts[1:]], len(lines)]
    entries = []
    for (key, _), start, end in zip(chapters.value, starts, ends, strict=True):
        while end > start and (
            not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")
        ):
            end -= 1
        entries.append((str(key.value), start, end))
    return entries


def profile_problems(root: Path) -> list[Problem]:
    """One entry per chapter in each profile, in the book's order, and nothing else."""
    chapters = list_chapters(root)
    problems = []
    for profile in PROFILES:
        name = f"profiles/{profile}.yml"
        try:
            entries = _profile_entries(root, profile)
        except (OSError, yaml.YAMLError, BuildError) as error:
            problems.append(Problem(name, 0, str(error)))
            continue
        where = {slug: (start, end) for slug, start, end in entries}
        for slug, start, _ in entries:
            if slug not in chapters:
                problems.append(Problem(
                    name, start, f"'{slug}' is not a chapter of _toc.yml: remove its entry"
                ))  # fmt: skip
        for i, slug in enumerate(chapters):
            if slug in where:
                continue
            before = [s for s in chapters[:i] if s in where]
            line = where[before[-1]][1] if before else _find(_lines(root, name), r"^chapters:")
            after = f"after line {line}" + (f" (the end of {before[-1]})" if before else "")
            problems.append(Problem(
                name, line,
                f"no entry for chapter {slug}: add '  {slug}:' {after}, with its parameter "
                f"values indented below it ({_SETTING[profile]}; an empty entry runs the "
                "chapter's defaults)",
            ))  # fmt: skip
        listed = [slug for slug, _, _ in entries if slug in chapters]
        for i, slug in enumerate(listed):
            later = [s for s in listed[:i] if chapters.index(s) > chapters.index(slug)]
            if later:
                first, last = where[slug]
                problems.append(Problem(
                    name, first,
                    f"'{slug}' comes after '{later[0]}' (line {where[later[0]][0]}): the "
                    f"entries follow _toc.yml's order; move lines {first}-{last} above line "
                    f"{where[later[0]][0]}",
                ))  # fmt: skip
    return problems


# ----------------------------------------------------------------- the course kit
def course_problems(root: Path) -> list[Problem]:
    """Every chapter (and the template) has a sidecar with at least two autograded
    exercises that loads; every sidecar has its chapter."""
    from dadp_book.course.questions import load_chapter, sidecar_path

    chapters = list_chapters(root)
    problems = []
    for slug in [*chapters, TEMPLATE]:
        side = sidecar_path(root, slug).relative_to(root).as_posix()
        if slug == TEMPLATE and not chapter_path(root, slug).is_file():
            continue
        if not sidecar_path(root, slug).is_file():
            problems.append(Problem(
                side, 0,
                f"missing: notebooks/{slug}.md needs at least two autograded exercises; copy "
                f"course/{TEMPLATE}.yml to {side}, replace 'template' by the slug in its "
                "labels, and give two of the chapter's exercises a 'code:' answer (its "
                "'# SOLUTION' line), 'tests:' and 'hidden:' tests (format: book/teaching.md, "
                "'The course kit')",
            ))  # fmt: skip
            continue
        try:
            graded = [q.label for q in load_chapter(root, slug).autograded]
        except BuildError as error:
            problems.append(Problem(side, 0, str(error).removeprefix(f"{side}: ")))
            continue
        if len(graded) < 2:
            line = _find(_lines(root, side), r"^questions:")
            problems.append(Problem(
                side, line,
                f"{len(graded)} autograded exercise(s) ({', '.join(graded) or 'none'}); a "
                "chapter needs at least 2: give another exercise of "
                f"notebooks/{slug}.md a 'code:' answer with 'tests:' and 'hidden:' tests "
                "under 'questions:' (format: book/teaching.md, 'The course kit')",
            ))  # fmt: skip
    for path in sorted((root / "course").glob("*.yml")) if (root / "course").is_dir() else []:
        if path.stem not in chapters and path.stem != TEMPLATE:
            problems.append(Problem(
                f"course/{path.name}", 0,
                f"no chapter notebooks/{path.stem} in _toc.yml: remove the file or list "
                "the chapter",
            ))  # fmt: skip
    return problems


# ---------------------------------------------------------------- the range table
def _column(groups: dict[str, list[str]]) -> str:
    return ", ".join(
        ", ".join(f"`{n}`" for n in names) + f" in {interval}" for interval, names in groups.items()
    )


def range_rows(root: Path) -> list[str]:
    """The rows of "Ranges each chapter supports", one per chapter: the chapter's epsilon
    parameters (names holding ``EPSILON``) and its repetition counts (``REPS``, ``*_REPS``,
    ``N_BOOT``, ``TRIALS``, ``*_TRIALS``) with the intervals its parameters cell declares,
    names of one interval together, in the cell's order."""
    rows = []
    for slug in list_chapters(root):
        epsilon: dict[str, list[str]] = {}
        reps: dict[str, list[str]] = {}
        for parameter in chapter_parameters(root, slug):
            spec, name = parameter.spec, parameter.name
            if spec is None or spec.kind not in ("int", "float"):
                continue
            if "EPSILON" in name:
                epsilon.setdefault(spec.interval(), []).append(name)
            elif name.endswith(("REPS", "TRIALS")) or name == "N_BOOT":
                reps.setdefault(spec.interval(), []).append(name)
        cells = [_column(epsilon), _column(reps)]
        rows.append(
            f"| {_number(slug)} | " + "".join(f"{c} | " if c else "| " for c in cells).rstrip()
        )
    return rows


def _range_table(root: Path) -> tuple[list[str], int, int]:
    """The page's lines and the 1-based lines of the table's two markers."""
    lines = _lines(root, "book/reproducibility.md")
    start = _find(lines, "^" + re.escape(_RANGES_START))
    end = _find(lines, "^" + re.escape(_RANGES_END))
    return lines, start, end


def range_table_problems(root: Path) -> list[Problem]:
    """Each row of the page's range table against the one generated from its chapter."""
    page = "book/reproducibility.md"
    lines, start, end = _range_table(root)
    if not start or end <= start:
        return [Problem(page, 0, f"no table between '{_RANGES_START} ...' and '{_RANGES_END}'")]
    body = [line for line in lines[start : end - 1] if line.strip()]
    first = next(i for i in range(start, end) if lines[i].strip())  # 0-based: the header
    if body[: len(_RANGES_HEADER)] != _RANGES_HEADER:
        return [Problem(page, start + 1, f"the table starts with {' / '.join(_RANGES_HEADER)}")]
    shown = {row.split("|")[1].strip(): (first + len(_RANGES_HEADER) + i + 1, row)
             for i, row in enumerate(body[len(_RANGES_HEADER):])}  # fmt: skip
    problems = []
    last = first + len(_RANGES_HEADER)
    for row in range_rows(root):
        number = row.split("|")[1].strip()
        if number not in shown:
            problems.append(Problem(
                page, last, f"no row for chapter {number}: add '{row}' after line {last} ({_WRITE})"
            ))  # fmt: skip
            continue
        line, text = shown.pop(number)
        last = line
        if text.strip() != row:
            problems.append(Problem(
                page, line,
                f"chapter {number}'s row is not what its parameters cell declares: "
                f"'{row}' ({_WRITE})",
            ))  # fmt: skip
    for number, (line, _) in shown.items():
        problems.append(Problem(page, line, f"row {number} names no chapter: remove it ({_WRITE})"))
    return problems


def write_range_table(root: Path) -> bool:
    """Rewrite the page's range table from the chapters; True if the page changed."""
    path = root / "book" / "reproducibility.md"
    lines, start, end = _range_table(root)
    if not start or end <= start:
        raise BuildError(f"{path}: no table between '{_RANGES_START} ...' and '{_RANGES_END}'")
    new = [*lines[:start], "", *_RANGES_HEADER, *range_rows(root), "", *lines[end - 1 :]]
    text = "\n".join(new) + "\n"
    if text == path.read_text():
        return False
    path.write_text(text)
    return True


# --------------------------------------------------------------- the teaching guide
def teaching_problems(root: Path) -> list[Problem]:
    """The week table of ``book/teaching.md`` names every chapter exactly once."""
    page = "book/teaching.md"
    heading, rows = _table(
        _lines(root, page), r"^## The module, week by week", "## ", ("| week", "|---")
    )
    if not rows:
        return [Problem(page, heading, "no week table under '## The module, week by week'")]
    named: dict[str, list[int]] = {}
    for number, line in rows:
        for target in re.findall(r"\.\./notebooks/([\w-]+)>?`", line):
            named.setdefault(_number(target), []).append(number)
    problems = []
    for slug in list_chapters(root):
        found = named.pop(_number(slug), [])
        if not found:
            title = chapter_title(root, slug)
            problems.append(Problem(
                page, rows[-1][0],
                f"the week table names no chapter {_number(slug)}: add "
                f"{{doc}}`{title} <../notebooks/{_number(slug)}>` to the chapters of a week "
                f"(lines {rows[0][0]}-{rows[-1][0]}) or a row of its own, with its theme and "
                "what students should vary",
            ))  # fmt: skip
        elif len(found) > 1:
            problems.append(Problem(
                page, found[1], f"chapter {_number(slug)} is in the week table twice (lines "
                f"{', '.join(map(str, found))}): keep one",
            ))  # fmt: skip
    for extra, found in named.items():
        problems.append(Problem(page, found[0], f"chapter {extra} is not in _toc.yml: remove it"))
    return problems


# ------------------------------------------------------------------ the architecture
def architecture_problems(root: Path) -> list[Problem]:
    """The table "Which module serves which result" of ``ARCHITECTURE.md``: a row per chapter."""
    page = "ARCHITECTURE.md"
    if not (root / page).is_file():
        return []
    heading, rows = _table(_lines(root, page), r"^## Which module serves which result", "#")
    if not rows:
        return [Problem(page, heading, "no table under '## Which module serves which result'")]
    problems = []
    for slug in list_chapters(root):
        if not any(f"`{slug}`" in line for _, line in rows):
            problems.append(Problem(
                page, rows[-1][0],
                f"the table 'Which module serves which result' has no row for `{slug}`: add "
                f"'| <paper result> | <theory module> | <sampler> | `{slug}` |' after line "
                f"{rows[-1][0]}",
            ))  # fmt: skip
    return problems


def check(root: Path) -> list[Problem]:
    """Every problem of the book's chapter manifest (empty when it holds together)."""
    problems = toc_problems(root)
    if problems:  # the other checks read the chapter list
        return problems
    for find in (profile_problems, course_problems, range_table_problems, teaching_problems,
                 architecture_problems):  # fmt: skip
        problems += find(root)
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dadp_book.manifest [--write] [--root DIR]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=None, help="the book (default: here)")
    parser.add_argument("--write", action="store_true", help="rewrite the generated range table")
    args = parser.parse_args(argv)
    root = book_root(args.root)
    try:
        if args.write and not toc_problems(root) and write_range_table(root):
            print("rewrote the range table of book/reproducibility.md")
        problems = check(root)
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{len(list_chapters(root))} chapters: the manifest holds together")
    return int(bool(problems))


if __name__ == "__main__":
    sys.exit(main())
