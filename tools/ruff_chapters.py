"""Ruff on the chapters: ``ruff check`` and ``ruff format`` on the code cells of MyST notebooks,
and ruff's line length on their prose, every message at its line of the ``.md`` file.

Ruff reads Python files and Jupyter notebooks, not MyST Markdown. This script copies the
code cells of each chapter (``notebooks/*.md``, the template included) into a notebook in a
temporary folder, one cell per cell, runs ruff there with the project's configuration
(ruff treats each cell as the notebooks' idioms allow: a bare expression ends a cell) and
reports each problem at its line of the chapter: ``notebooks/NN-slug.md:LINE:COL: CODE
message``. The rules are the package's, less E402 (imports below the parameters cell) and
B018 (a bare expression that a cell displays). A line of prose (outside code cells) is at
most ruff's ``line-length`` (a line of one word, or ending with a URL, excepted).

    python tools/ruff_chapters.py            # check and format --check (exit 1 on a problem)
    python tools/ruff_chapters.py --format   # rewrite the chapters' code cells formatted

``--format`` changes only the code of the cells: their metadata (tags, figure captions) and
the Markdown around them stay byte for byte. ``lint(paths)`` returns the messages (the
hygiene test calls it).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "pyproject.toml"
#: Chapter idioms the package's rules do not allow (see the module docstring).
IGNORE = "E402,B018"
#: The longest line of prose: ruff's line length.
LINE_LENGTH = int(tomllib.loads(CONFIG.read_text())["tool"]["ruff"]["line-length"])
CODE_CELL = re.compile(r"^(```\{code-cell\}[^\n]*\n)(.*?)^(```[ \t]*)$", re.S | re.M)


def _split(body: str) -> tuple[str, str]:
    """A cell's body -> (its metadata: a ``---`` block or ``:key:`` lines, its code)."""
    if body.startswith("---\n"):
        end = body.index("\n---\n") + len("\n---\n")
        return body[:end], body[end:]
    lines = body.splitlines(keepends=True)
    n = 0
    while n < len(lines) and lines[n].startswith(":"):
        n += 1
    if n and n < len(lines) and not lines[n].strip():
        n += 1  # the blank line after the options
    return "".join(lines[:n]), "".join(lines[n:])


def code_cells(text: str) -> list[str]:
    """The code of every code cell of a MyST notebook, in order (without its last newline,
    as a notebook cell holds it)."""
    return [_split(m.group(2))[1].removesuffix("\n") for m in CODE_CELL.finditer(text)]


def code_lines(text: str) -> list[int]:
    """The 1-based line of the chapter on which each code cell's code starts."""
    starts = []
    for match in CODE_CELL.finditer(text):
        header, _ = _split(match.group(2))
        starts.append(text.count("\n", 0, match.start(2)) + header.count("\n") + 1)
    return starts


def prose_problems(chapter: Path, name: str) -> list[str]:
    """Lines of prose (outside code cells and the front matter) longer than ruff's limit."""
    text = chapter.read_text()
    inside: set[int] = set()
    for match in CODE_CELL.finditer(text):
        first = text.count("\n", 0, match.start()) + 1
        inside |= set(range(first, text.count("\n", 0, match.end()) + 2))
    if text.startswith("---\n"):
        inside |= set(range(1, text.count("\n", 0, text.index("\n---\n", 4) + 5) + 1))
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if number in inside or len(line) <= LINE_LENGTH or " " not in line.strip():
            continue
        last = line.split()[-1]
        if "://" in last and line.rindex(last) < LINE_LENGTH:
            continue  # as ruff: a line ending with a URL that starts before the limit
        found.append(
            f"{name}:{number}:{LINE_LENGTH + 1}: E501 Line too long ({len(line)} > "
            f"{LINE_LENGTH}): prose, wrap it"
        )
    return found


def with_code(text: str, codes: list[str]) -> str:
    """``text`` with the code of its code cells replaced by ``codes`` (one per cell)."""
    replacement = iter(codes)

    def swap(match: re.Match) -> str:
        header, _ = _split(match.group(2))
        code = next(replacement).rstrip("\n")
        return match.group(1) + header + (code + "\n" if code else "") + match.group(3)

    return CODE_CELL.sub(swap, text)


def _ruff() -> str:
    local = Path(sys.executable).parent / "ruff"
    found = str(local) if local.is_file() else shutil.which("ruff")
    if not found:
        sys.exit("ruff not found: install the project's dev extra (make .venv/.installed)")
    return found


def _write_notebook(chapter: Path, folder: Path) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["language_info"] = {"name": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(c) for c in code_cells(chapter.read_text())]
    path = folder / f"{chapter.stem}.ipynb"
    nbformat.write(notebook, path)
    return path


def _name(chapter: Path) -> str:
    try:
        return chapter.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(chapter)


def _check(ruff: str, notebooks: dict[Path, Path]) -> list[str]:
    """``ruff check`` on the notebooks, each message at its line of the chapter."""
    command = [ruff, "check", "--no-fix", "--config", str(CONFIG), "--ignore", IGNORE,
               "--output-format", "json", *map(str, notebooks)]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode not in (0, 1):
        sys.exit(f"ruff failed: {result.stderr.strip()}")
    starts = {path: code_lines(chapter.read_text()) for path, chapter in notebooks.items()}
    found = []
    for item in json.loads(result.stdout or "[]"):
        path = Path(item["filename"])
        cell, row = item.get("cell") or 1, item["location"]["row"]
        line = starts[path][cell - 1] + row - 1 if starts[path] else row
        found.append(
            f"{_name(notebooks[path])}:{line}:{item['location']['column']}: "
            f"{item['code']} {item['message']} (code cell {cell})"
        )
    return found


def _format_check(ruff: str, notebooks: dict[Path, Path], folder: Path) -> list[str]:
    """Cells that ``ruff format`` would change, at the first line it changes."""
    copies = {}
    for path in notebooks:
        copies[path] = folder / "formatted" / path.name
        copies[path].parent.mkdir(exist_ok=True)
        shutil.copy(path, copies[path])
    command = [ruff, "format", "--quiet", "--config", str(CONFIG), *map(str, copies.values())]
    subprocess.run(command, check=True)
    found = []
    for path, chapter in notebooks.items():
        before = [c.source for c in nbformat.read(path, as_version=4).cells]
        after = [c.source for c in nbformat.read(copies[path], as_version=4).cells]
        starts = code_lines(chapter.read_text())
        for cell, (old, new) in enumerate(zip(before, after, strict=True), start=1):
            if old.rstrip("\n") == new.rstrip("\n"):
                continue
            matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines())
            first = next(op for op in matcher.get_opcodes() if op[0] != "equal")
            wanted = "\n".join(new.splitlines()[first[3] : first[4]]) or "(nothing)"
            found.append(
                f"{_name(chapter)}:{starts[cell - 1] + first[1]}: code cell {cell} is not as "
                f"ruff format writes it; from this line it wants:\n{wanted}\n(make format "
                "rewrites it)"
            )
    return found


def lint(chapters: list[Path]) -> list[str]:
    """Every ruff message (check, format, prose line length) on the chapters, each at its
    line of the chapter (``notebooks/NN-slug.md:LINE:COL: ...``)."""
    ruff = _ruff()
    with tempfile.TemporaryDirectory() as tmp:
        notebooks = {_write_notebook(c, Path(tmp)): c for c in chapters}
        found = _check(ruff, notebooks) + _format_check(ruff, notebooks, Path(tmp))
    for chapter in chapters:
        found += prose_problems(chapter, _name(chapter))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", type=Path, help="default: notebooks/*.md")
    parser.add_argument("--format", action="store_true", help="rewrite the code cells")
    args = parser.parse_args(argv)
    chapters = args.chapters or sorted((ROOT / "notebooks").glob("*.md"))
    if not args.format:
        print(f"ruff on the code cells and prose of {len(chapters)} chapter(s)")
        found = lint(chapters)
        for message in found:
            print(message)
        return int(bool(found))
    ruff, settings = _ruff(), ["--config", str(CONFIG)]
    with tempfile.TemporaryDirectory() as tmp:
        notebooks = {_write_notebook(c, Path(tmp)): c for c in chapters}
        paths = [str(p) for p in notebooks]
        subprocess.run([ruff, "format", "--quiet", *settings, *paths], check=True)
        for notebook, chapter in notebooks.items():
            cells = nbformat.read(notebook, as_version=4).cells
            text = chapter.read_text()
            formatted = with_code(text, [c.source for c in cells])
            if formatted != text:
                chapter.write_text(formatted)
                print(f"formatted {chapter}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
