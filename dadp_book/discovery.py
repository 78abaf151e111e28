"""The book's root, its chapters (``_toc.yml`` order) and how a user names one."""

from __future__ import annotations

import contextlib
import io
import os
import re
import tokenize
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from dadp_book.errors import BuildError
from dadp_book.yamlio import load_yaml_file

__all__ = ["book_root", "chapter_path", "chapter_title", "list_chapters", "list_pages",
           "resolve_chapter", "toc_entries", "unlisted_chapters", "unlisted_message",
           "convert_chapter", "convert_page", "line_comments", "parameters_cell"]  # fmt: skip


def book_root(start: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding ``_toc.yml`` and ``_config.yml`` (searching up from ``start``)."""
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file() and (folder / "_config.yml").is_file():
            return folder
    raise BuildError(f"no _toc.yml/_config.yml found in {here} or its parents; run from the book")


def _toc_files(node: object) -> Iterable[str]:
    if isinstance(node, Mapping):
        if "root" in node:
            yield str(node["root"])
        if "file" in node:
            yield str(node["file"])
        for key in ("parts", "chapters", "sections"):
            if key in node:
                yield from _toc_files(node[key])
    elif isinstance(node, list):
        for item in node:
            yield from _toc_files(item)


def toc_entries(root: Path) -> list[tuple[str, int]]:
    """``(slug, line)`` of every ``notebooks/`` entry of ``_toc.yml``, in order."""
    found = []
    for number, line in enumerate((root / "_toc.yml").read_text().splitlines(), start=1):
        match = re.match(
            r"^\s*-?\s*file:\s*notebooks/([^\s#]+?)(?:\.md|\.ipynb)?\s*(?:#.*)?$", line
        )
        if match:
            found.append((match.group(1), number))
    return found


def unlisted_chapters(root: Path) -> list[str]:
    """Chapter files in ``notebooks/`` that ``_toc.yml`` does not list (``_*`` excluded)."""
    listed = {slug for slug, _ in toc_entries(root)}
    files = sorted((root / "notebooks").glob("*.md")) if (root / "notebooks").is_dir() else []
    return [p.stem for p in files if not p.name.startswith("_") and p.stem not in listed]


def unlisted_message(root: Path, slug: str) -> str:
    """Why a chapter file outside ``_toc.yml`` fails, and the line to add."""
    entries = toc_entries(root)
    where = f" (e.g. after line {entries[-1][1]}, notebooks/{entries[-1][0]})" if entries else ""
    return (
        f"notebooks/{slug}.md is not in the book: add '- file: notebooks/{slug}' to a part's "
        f"'chapters:' in _toc.yml{where}, or rename it notebooks/_{slug}.md to keep it out"
    )


def list_chapters(root: Path) -> list[str]:
    """Chapter slugs (``notebooks/<slug>.md``) in ``_toc.yml`` order; a chapter file that
    ``_toc.yml`` does not list is an error (``_*`` files, such as the template, stay out)."""
    unlisted = unlisted_chapters(root)
    if unlisted:
        raise BuildError(unlisted_message(root, unlisted[0]))
    slugs = []
    for entry in _toc_files(load_yaml_file(root / "_toc.yml", "table of contents")):
        if entry.startswith("notebooks/"):
            slug = Path(entry).name.removesuffix(".md").removesuffix(".ipynb")
            if not chapter_path(root, slug).is_file():
                raise BuildError(f"_toc.yml lists {entry} but notebooks/{slug}.md does not exist")
            slugs.append(slug)
    return slugs


def _is_notebook(path: Path) -> bool:
    """A MyST page is an executable notebook when its front matter names a kernel."""
    text = path.read_text()
    return text.startswith("---\n") and "\nkernelspec:" in text.split("\n---", 1)[0]


def list_pages(root: Path) -> list[str]:
    """Executable pages outside ``notebooks/`` (e.g. ``book/errata``), in ``_toc.yml`` order:
    MyST notebooks (their front matter names a kernel), run at every build, no profile."""
    toc = load_yaml_file(root / "_toc.yml", "table of contents")
    pages = []
    for entry in _toc_files(toc):
        name = entry.removesuffix(".md")
        path = root / f"{name}.md"
        if not entry.startswith("notebooks/") and path.is_file() and _is_notebook(path):
            pages.append(name)
    return pages


def resolve_chapter(root: Path, name: str) -> str:
    """A slug, a unique prefix (``"03"``), the slug without its number, or a path -> slug."""
    slugs = list_chapters(root)
    candidate = Path(name).name.removesuffix(".md").removesuffix(".ipynb")
    if candidate in slugs:
        return candidate
    matches = [s for s in slugs if s.split("-", 1)[-1] == candidate]
    matches = matches or [s for s in slugs if candidate and s.startswith(candidate)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise BuildError(f"chapter {name!r} is ambiguous: it could be {', '.join(matches)}")
    raise BuildError(f"unknown chapter {name!r}; the chapters are {', '.join(slugs)}")


def chapter_path(root: Path, slug: str) -> Path:
    """The MyST source of a chapter."""
    return root / "notebooks" / f"{slug}.md"


def chapter_title(root: Path, slug: str) -> str:
    """The chapter's ``# `` heading (its slug if it has none)."""
    for line in chapter_path(root, slug).read_text().splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return slug


@lru_cache(maxsize=64)
def _read(path: str, mtime_ns: int, size: int):  # the stat values key the cache
    import jupytext

    return jupytext.read(path)


def _notebook(path: Path):
    """The MyST file as a notebook (shared: copy it before changing it)."""
    stat = path.stat()
    return _read(str(path), stat.st_mtime_ns, stat.st_size)


def parameters_cell(root: Path, slug: str) -> str:
    """Source of the chapter's one cell tagged ``parameters``."""
    cells = [
        cell
        for cell in _notebook(chapter_path(root, slug)).cells
        if "parameters" in cell.get("metadata", {}).get("tags", [])
    ]
    if len(cells) != 1:
        raise BuildError(
            f"notebooks/{slug}.md: expected exactly one cell tagged 'parameters', "
            f"found {len(cells)}"
        )
    return cells[0].source


def convert_chapter(root: Path, slug: str) -> str:
    """The chapter as an unexecuted ``.ipynb`` (JSON text) for the ``python3`` kernel."""
    return _convert(chapter_path(root, slug))


def convert_page(root: Path, page: str) -> str:
    """An executable page (``book/errata``) as an unexecuted ``.ipynb`` (JSON text)."""
    return _convert(root / f"{page}.md")


def _convert(path: Path) -> str:
    import copy

    import nbformat

    notebook = copy.deepcopy(_notebook(path))
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nbformat.writes(notebook)


def line_comments(source: str) -> dict[int, str]:
    """Line number -> the comment on that line (``# ...``) of a cell's ``source``."""
    found: dict[int, str] = {}
    with contextlib.suppress(tokenize.TokenError, IndentationError, SyntaxError):
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = token.string
    return found
