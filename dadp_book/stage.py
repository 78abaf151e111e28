"""The staged book: config, filtered toc and prose pages beside the executed notebooks.

A partial build stays strict-clean (ARCHITECTURE.md, "The book machinery"): links into
chapters left out become text (:func:`resolve_chapter_links`), a page not run a stub
(:func:`page_stub`). A file is written only when its content changes, so an unchanged book
leaves the stage untouched and Jupyter Book has nothing to render again.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import yaml

from dadp_book.discovery import chapter_path, chapter_title, list_chapters, list_pages
from dadp_book.outputs import write_if_changed
from dadp_book.provenance import files_below, versions
from dadp_book.sphinx_cite import BUILD_INFO

__all__ = [
    "build_info", "page_stub", "resolve_chapter_links",
    "resolve_notebook_links", "stage_book", "status_table", "sync_folder",
]  # fmt: skip

_DOC_ROLE = re.compile(r"\{doc\}`(?:([^`<]*?)\s*<)?\.\./notebooks/([^`<>]+?)>?`")
_REF_ROLE = re.compile(r"\{(ref|numref|prf:ref|eq)\}`(?:([^`<]*?)\s*<)?([^`<>]+?)>?`")
_GLUE_ROLE = re.compile(r"\{glue(?::text)?\}`\.\./notebooks/([^`:]+?)(?:\.ipynb|\.md)?::[^`]*`")
_LABEL_LINE = re.compile(r"^\(([^)\s]+)\)=\s*$|^:label:\s*(\S+)|^\s*:?name:\s*(fig-\S+)", re.M)


def sync_folder(
    source: Path, target: Path, text: Callable[[Path, str], str] | None = None, skip=()
) -> None:
    """Make ``target`` hold ``source``'s files, writing only the files that change and
    removing the others; ``text(path, content)`` may rewrite Markdown files on the way.
    ``skip``: relative paths neither copied nor removed (staged by someone else)."""
    wanted = {name: path for name, path in files_below(source).items() if name not in skip}
    for relative, path in wanted.items():
        content = path.read_bytes()
        if text is not None and path.suffix == ".md":
            content = text(path, content.decode()).encode()
        write_if_changed(target / relative, content)
    for path in sorted(target.rglob("*"), reverse=True):
        relative = path.relative_to(target).as_posix()
        if path.is_file() and relative not in wanted and relative not in skip:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def _filtered_toc(toc: object, keep: set[str]) -> object:
    if not isinstance(toc, Mapping):
        return toc
    out: dict = {}
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
    """A page's text with its links fit to the chapters ``built``, and one note per link
    made text: ``{doc}`../notebooks/NN``` links to the chapter ``NN-...``; a link, reference
    or glued number into a chapter not built (or a number with no chapter yet) becomes
    text naming it; unknown targets are left for the strict build to report."""
    built, known, notes = list(built), list_chapters(root), []
    missing_labels = _labels_outside(root, built, known)

    def doc(match: re.Match) -> str:
        label, target = (match.group(1) or "").strip(), match.group(2).strip()
        numbered = [s for s in known if s.split("-", 1)[0] == target]
        slug = (numbered[0] if len(numbered) == 1 else None) if target.isdigit() else target
        if slug in built:
            link = f"{label} <../notebooks/{slug}>" if label else f"../notebooks/{slug}"
            return f"{{doc}}`{link}`"
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
    """The generated part of ``book/status.md``: timings, parameters, versions. ``wall``:
    the wall-clock time of executing all these results (None: they come from several
    builds). A function of the results only, so an unchanged book stages the same page."""
    lines = ["", f"## Last build: profile `{profile}`", ""]
    days = sorted({d[:10] for d in (getattr(r, "executed_at", "") for r in results) if d})
    when = f" on {days[0]}" if len(days) == 1 else ""
    if len(days) > 1:
        when = f" between {days[0]} and {days[-1]}"
    setting = f"Executed{when} on {os.cpu_count() or 1} core(s)"
    if jobs:
        setting += f", {jobs} chapter(s) at a time"
    total = sum(r.seconds for r in results)
    if wall is not None:
        setting += f"; wall-clock execution time of all chapters: **{wall:.1f} s**"
    else:
        setting += (
            "; the results come from more than one build (the build cache reused the "
            "chapters that had not changed), so there is no wall-clock time of the whole"
        )
    lines += [setting + ".", "", "| chapter | execution time (s) | parameters |", "|---|---:|---|"]
    for r in results:
        shown = {k: v for k, v in r.parameters.items() if k != "BOOK_ROOT"}
        params = ", ".join(f"`{k}={v}`" for k, v in shown.items()) or "defaults"
        page = getattr(r, "page", "") or f"notebooks/{r.slug}"
        lines.append(f"| {{doc}}`../{page}` | {r.seconds:.1f} | {params} |")
    lines += [f"| **sum over chapters** | **{total:.1f}** | |", ""]
    lines += ["## Software versions", "", "| package | version |", "|---|---|"]
    lines += [f"| {name} | {version} |" for name, version in versions().items()]
    return "\n".join(lines) + "\n"


def build_info(results: Sequence, profile: str) -> str:
    """The footer citation's JSON (:mod:`dadp_book.sphinx_cite`): the day the newest result
    was computed and the profile (a function of the results, like :func:`status_table`)."""
    days = sorted(d[:10] for d in (getattr(r, "executed_at", "") for r in results) if d)
    return json.dumps({"date": days[-1] if days else "", "profile": profile}, sort_keys=True)


def resolve_notebook_links(root: Path, content: bytes, built: Sequence[str]) -> tuple[bytes, list]:
    """An executed notebook (bytes) whose links to chapters left out are text (partial
    builds); returns the new bytes (the same when nothing changed) and the notes."""
    import nbformat

    notebook = nbformat.reads(content.decode(), as_version=4)
    changed, notes = False, []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            resolved, found = resolve_chapter_links(root, cell.source, built)
            if resolved != cell.source:
                cell.source, changed = resolved, True
                notes += found
    return (nbformat.writes(notebook).encode() if changed else content), notes


_HEADING = re.compile(r"^#{1,6} \S")
_GLUED = re.compile(r"\{glue(?::\w+)?\}`[^`]*`")


def page_stub(text: str, page: str, built: Sequence[str]) -> str:
    """What a partial build stages for an executable page (``page``, e.g. ``book/errata``) it
    did not run: its title, a note naming the command that computes it, and its labelled
    headings (so that links into the page resolve); front matter, code and prose go."""
    lines = text.split("\n")
    if lines and lines[0] == "---":
        lines = lines[lines.index("---", 1) + 1 :]
    numbers = ",".join(slug.split("-", 1)[0] for slug in built)
    note = [
        "```{note}",
        f"This page ({page}) computes its content in a full build. The partial build that "
        f"made this copy of the book (`dadp-book build --chapters {numbers}`) did not run it: "
        f"`dadp-book build` builds everything, and `dadp-book build --chapters {numbers} "
        "--with-pages` runs it after those chapters.",
        "```",
        "",
    ]
    kept: list[str] = []
    fenced = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
            continue
        label = lines[i - 1] if i and lines[i - 1].startswith("(") else ""
        if fenced or not _HEADING.match(line) or not (label or line.startswith("# ")):
            continue
        if label and _LABEL_LINE.match(label):
            kept.append(label)
        title = line.startswith("# ") and not any(k.startswith("# ") for k in kept)
        heading = _GLUED.sub("…", line.lstrip("#").strip())
        kept += [("# " if title else "## ") + heading, "", *(note if title else [])]
    return "\n".join(kept).rstrip() + "\n"


def _summary(notes: Sequence[str], stubs: Sequence[str]) -> None:
    """One line for a partial build's links turned into text and pages not run."""
    if notes:
        pages = sorted({note.split(":", 1)[0] for note in notes})
        where = ", ".join(pages) if len(pages) <= 3 else f"{len(pages)} pages"
        print(f"  {len(notes)} link(s) into chapters not in this build named as text ({where})",
              flush=True)  # fmt: skip
    if stubs:
        print(f"  not run (stubs; --with-pages runs them): {', '.join(stubs)}", flush=True)


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
    """Copy config, toc (filtered to ``slugs``) and prose pages next to the executed
    notebooks (whose links :func:`dadp_book.build.execute_book` resolved); executed
    ``pages`` replace their sources; ``book/status.md`` gets :func:`status_table`."""
    write_if_changed(stage / "_config.yml", (root / "_config.yml").read_bytes())
    write_if_changed(stage / BUILD_INFO, build_info([*results, *pages], profile).encode())
    sync_folder(root / "_static", stage / "_static")
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    keep = set(slugs) | {f"{s}.md" for s in slugs}
    filtered = yaml.safe_dump(_filtered_toc(toc, keep), sort_keys=False)
    write_if_changed(stage / "_toc.yml", filtered.encode())
    status = root / "book" / "status.md"
    table = status_table([*results, *pages], profile, wall_seconds, jobs)
    notes = [note for r in [*results, *pages] for note in getattr(r, "notes", [])]
    stubs = [p for p in list_pages(root) if p not in {r.page for r in pages}]

    def prose(path: Path, text: str) -> str:
        page = path.relative_to(root).with_suffix("").as_posix()
        if page in stubs:
            return page_stub(text, page, slugs)
        resolved, found = resolve_chapter_links(root, text, slugs)
        notes.extend(f"{page}: {note}" for note in found)
        return resolved + (table if path == status else "")

    executed = {f"{Path(r.page).relative_to('book').as_posix()}.md" for r in pages}
    executed |= {name.removesuffix(".md") + ".ipynb" for name in executed}
    sync_folder(root / "book", stage / "book", prose, skip=executed)
    for result in pages:  # the executed page replaces its source (Jupyter Book prefers .md)
        write_if_changed(stage / f"{result.page}.ipynb", result.output.read_bytes())
        (stage / f"{result.page}.md").unlink(missing_ok=True)
    _summary(notes, stubs)
