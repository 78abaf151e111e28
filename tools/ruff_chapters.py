"""Ruff on the chapters: ``ruff check`` and ``ruff format`` on the code cells of MyST notebooks.

Ruff reads Python files and Jupyter notebooks, not MyST Markdown. This script copies the
code cells of each chapter (``notebooks/*.md``, the template included) into a notebook in a
temporary folder, one cell per cell, and runs ruff there with the project's configuration;
ruff treats each cell as the notebooks' idioms allow (a bare expression ends a cell). The
rules are the package's, less E402 (imports below the parameters cell) and B018 (a bare
expression that a cell displays), as in ``tests/test_notebook_hygiene.py``.

    python tools/ruff_chapters.py            # check and format --check (exit 1 on a problem)
    python tools/ruff_chapters.py --format   # rewrite the chapters' code cells formatted

``--format`` changes only the code of the cells: their metadata (tags, figure captions) and
the Markdown around them stay byte for byte.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "pyproject.toml"
#: Chapter idioms the package's rules do not allow (see the module docstring).
IGNORE = "E402,B018"
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", type=Path, help="default: notebooks/*.md")
    parser.add_argument("--format", action="store_true", help="rewrite the code cells")
    args = parser.parse_args(argv)
    chapters = args.chapters or sorted((ROOT / "notebooks").glob("*.md"))
    ruff, settings = _ruff(), ["--config", str(CONFIG)]
    with tempfile.TemporaryDirectory() as tmp:
        notebooks = {_write_notebook(c, Path(tmp)): c for c in chapters}
        paths = [str(p) for p in notebooks]
        if args.format:
            subprocess.run([ruff, "format", "--quiet", *settings, *paths], check=True)
            for notebook, chapter in notebooks.items():
                cells = nbformat.read(notebook, as_version=4).cells
                text = chapter.read_text()
                formatted = with_code(text, [c.source for c in cells])
                if formatted != text:
                    chapter.write_text(formatted)
                    print(f"formatted {chapter}")
            return 0
        print(f"ruff on the code cells of {len(chapters)} chapter(s) (cells numbered from 1)")
        check = [ruff, "check", "--no-fix", *settings, "--ignore", IGNORE, *paths]
        form = [ruff, "format", "--check", "--diff", *settings, *paths]
        failed = [subprocess.run(command).returncode != 0 for command in (check, form)]
        if failed[1]:
            print("reformat the chapters' code cells with: make format", file=sys.stderr)
        return int(any(failed))


if __name__ == "__main__":
    sys.exit(main())
