"""The staged book: config, filtered toc and prose pages beside the executed notebooks.

Partial builds (``--chapters``) stay strict-clean: links, references and glued numbers that
point into chapters left out become plain text naming the chapter.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from dadp_lite.book.discovery import chapter_path, chapter_title, list_chapters
from dadp_lite.book.provenance import versions

__all__ = ["copy_static", "resolve_chapter_links", "stage_book", "status_table"]

_DOC_ROLE = re.compile(r"\{doc\}`(?:([^`<]*?)\s*<)?\.\./notebooks/([^`<>]+?)>?`")
_REF_ROLE = re.compile(r"\{(ref|numref|prf:ref|eq)\}`(?:([^`<]*?)\s*<)?([^`<>]+?)>?`")
_GLUE_ROLE = re.compile(r"\{glue(?::text)?\}`\.\./notebooks/([^`:]+?)(?:\.ipynb|\.md)?::[^`]*`")
_LABEL_LINE = re.compile(r"^\(([^)\s]+)\)=\s*$|^:label:\s*(\S+)|^\s*name:\s*(fig-\S+)", re.M)


def copy_static(root: Path, stage: Path) -> None:
    """The book's ``_static`` folder (its CSS) beside the staged config, fresh each time."""
    if (stage / "_static").exists():
        shutil.rmtree(stage / "_static")
    if (root / "_static").is_dir():
        shutil.copytree(root / "_static", stage / "_static")


def _filtered_toc(toc: object, keep: set[str]) -> object:
    if not isinstance(toc, Mapping):
        return toc
    out = {}
    for key, value in toc.items():
        if key in ("parts", "chapters", "sections"):
            kept = [item for item in (_filtered_toc(i, keep) for i in value) if item is not None]
            if kept:
                out[key] = kept
        else:
            out[key] = value
    file = out.get("file")
    if file and str(file).startswith("notebooks/") and Path(file).name not in keep:
        return None
    if "caption" in out and "chapters" not in out:
        return None
    return out


def _labels_outside(root: Path, built: Sequence[str], known: Sequence[str]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for slug in known:
        if slug not in built:
            for groups in _LABEL_LINE.findall(chapter_path(root, slug).read_text()):
                labels[next(g for g in groups if g)] = chapter_title(root, slug)
    return labels


def resolve_chapter_links(root: Path, text: str, built: Sequence[str]) -> tuple[str, list[str]]:
    """Make a page's links to chapters fit the chapters being built.

    - ``{doc}`../notebooks/NN``` (a bare two-digit number) links to the chapter whose slug
      starts with ``NN-``.
    - Links to chapters not in ``built``, or numbers with no chapter yet, become plain text
      (the chapter's title), as do ``{ref}``/``{numref}``/``{prf:ref}`` to labels defined
      in such chapters. Unknown targets are left for the strict build to report.
    - Cross-document glue from a chapter not built becomes a short text naming it.

    Returns the new text and one note per link turned into text.
    """
    built, known, notes = list(built), list_chapters(root), []
    missing_labels = _labels_outside(root, built, known)

    def doc(match: re.Match) -> str:
        label, target = (match.group(1) or "").strip(), match.group(2).strip()
        numbered = [s for s in known if s.split("-", 1)[0] == target]
        slug = (numbered[0] if len(numbered) == 1 else None) if target.isdigit() else target
        if slug in built:
            return (
                "{doc}`"
                + (f"{label} <../notebooks/{slug}>" if label else f"../notebooks/{slug}")
                + "`"
            )
        if slug is None and target.isdigit():
            notes.append(f"chapter {target} does not exist yet; named as text")
            return f"*{label or f'chapter {int(target)}'}*"
        if slug in known:
            notes.append(f"{slug} is not in this build; named as text")
            return f"*{label or chapter_title(root, slug)}*"
        return match.group(0)

    def ref(match: re.Match) -> str:
        label, target = (match.group(2) or "").strip(), match.group(3).strip()
        if target not in missing_labels:
            return match.group(0)
        notes.append(f"{match.group(1)} to {target} (chapter not in this build) named as text")
        title = missing_labels[target]
        if "%s" in label:
            return f"{label.replace('%s', '').strip()} in *{title}*"
        return f"*{label or title}*"

    def glued(match: re.Match) -> str:
        slug = match.group(1).strip()
        if slug in built or slug not in known:
            return match.group(0)
        notes.append(f"number glued from {slug} (chapter not in this build) named as text")
        return f"[computed in *{chapter_title(root, slug)}*]"

    text = _GLUE_ROLE.sub(glued, _REF_ROLE.sub(ref, _DOC_ROLE.sub(doc, text)))
    return text, notes


def status_table(results: Sequence, profile: str, wall: float | None, jobs: int | None) -> str:
    """The generated part of ``book/status.md``: timings, parameters, versions."""
    lines = ["", f"## Last build: profile `{profile}`", ""]
    setting = f"Built {time.strftime('%Y-%m-%d %H:%M %Z')} on {os.cpu_count() or 1} core(s)"
    if jobs:
        setting += f", {jobs} chapter(s) executed in parallel"
    if wall is not None:
        setting += f"; wall-clock execution time of all chapters: **{wall:.1f} s**"
    lines += [setting + ".", "", "| chapter | execution time (s) | parameters |", "|---|---:|---|"]
    for r in results:
        shown = {k: v for k, v in r.parameters.items() if k != "BOOK_ROOT"}
        params = ", ".join(f"`{k}={v}`" for k, v in shown.items()) or "defaults"
        page = getattr(r, "page", "") or f"notebooks/{r.slug}"
        lines.append(f"| {{doc}}`../{page}` | {r.seconds:.1f} | {params} |")
    total = sum(r.seconds for r in results)
    lines += [f"| **sum over chapters** | **{total:.1f}** | |", ""]
    lines += ["## Software versions", "", "| package | version |", "|---|---|"]
    lines += [f"| {name} | {version} |" for name, version in versions().items()]
    return "\n".join(lines) + "\n"


def _resolve_notebook_links(root: Path, path: Path, built: Sequence[str]) -> None:
    """Partial builds: links from an executed chapter to chapters left out become text."""
    import nbformat

    if not path.is_file():
        return
    notebook = nbformat.read(path, as_version=4)
    changed = False
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            resolved, notes = resolve_chapter_links(root, cell.source, built)
            if resolved != cell.source:
                cell.source, changed = resolved, True
                for note in notes:
                    print(f"  notebooks/{path.stem}: {note}", flush=True)
    if changed:
        nbformat.write(notebook, path)


def _place_pages(stage: Path, pages: Sequence) -> None:
    """An executed page replaces its MyST source (Jupyter Book would prefer the ``.md``)."""
    for result in pages:
        target = stage / f"{result.page}.ipynb"
        shutil.copy2(result.output, target)
        target.with_suffix(".md").unlink(missing_ok=True)


def stage_book(
    root: Path,
    stage: Path,
    slugs: Sequence[str],
    results: Sequence,
    profile: str,
    wall_seconds: float | None = None,
    jobs: int | None = None,
    pages: Sequence = (),
) -> None:
    """Copy config, toc (filtered to ``slugs``) and prose pages next to executed notebooks.

    Executed ``pages`` (results of :func:`dadp_lite.book.build.execute_book`) replace their
    sources; ``book/status.md`` gets :func:`status_table` appended.
    """
    shutil.copy2(root / "_config.yml", stage / "_config.yml")
    copy_static(root, stage)
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    keep = set(slugs) | {f"{s}.md" for s in slugs}
    (stage / "_toc.yml").write_text(yaml.safe_dump(_filtered_toc(toc, keep), sort_keys=False))
    if (stage / "book").exists():
        shutil.rmtree(stage / "book")
    shutil.copytree(root / "book", stage / "book")
    for page in sorted((stage / "book").glob("*.md")):
        text = page.read_text()
        resolved, notes = resolve_chapter_links(root, text, slugs)
        if resolved != text:
            page.write_text(resolved)
        for note in notes:
            print(f"  book/{page.name}: {note}", flush=True)
    _place_pages(stage, pages)
    if set(slugs) != set(list_chapters(root)):
        for slug in slugs:
            _resolve_notebook_links(root, stage / "notebooks" / f"{slug}.ipynb", slugs)
        for result in pages:
            _resolve_notebook_links(root, stage / f"{result.page}.ipynb", slugs)
    status = stage / "book" / "status.md"
    if status.exists():
        table = status_table([*results, *pages], profile, wall_seconds, jobs)
        status.write_text(status.read_text() + table)
