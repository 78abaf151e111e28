"""Jupyter Book 1.x HTML: the whole staged book, or one executed chapter on its own.

Rendering is incremental (ARCHITECTURE.md, "The book machinery"). A render records the
staged state (``<build>/jb/.dadp-<builder>-rendered.json``), the state Sphinx's shared
environment was built from (``.dadp-environment.json``) and the SHA-256 of each output
file (``.dadp-<builder>-output.json``). The render after a failed one renders everything:
its warnings must be seen again in strict mode.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from dadp_book.errors import BuildError
from dadp_book.outputs import read_json, temp_folder, write_atomic
from dadp_book.provenance import (
    file_sha256,
    files_below,
    folder_hashes,
    record_id,
    science_folder,
    text_sha256,
    versions,
)
from dadp_book.stage import resolve_notebook_links, sync_folder

__all__ = ["render_html", "render_single_chapter", "staged_state"]

#: The staged state Sphinx's environment (shared by the builders) was last built from.
ENVIRONMENT = ".dadp-environment.json"
#: Packages that render: a new version renders everything again.
RENDER_PACKAGES = (
    "jupyter-book", "sphinx", "myst-nb", "myst-parser", "sphinx-book-theme",
    "pydata-sphinx-theme", "sphinx-proof", "sphinx-exercise", "sphinxcontrib-bibtex",
    "sphinx-mathjax-offline", "altair", "vl-convert-python",
)  # fmt: skip
#: The modules a render runs: the Sphinx extensions, the chart assets they write (a
#: package: every module in it), and this module (the Jupyter Book command).
RENDER_MODULES = (
    "dadp_book/sphinx_ext.py", "dadp_book/sphinx_api.py", "dadp_book/sphinx_glue.py",
    "dadp_lite/interactive", "dadp_book/render.py",
)  # fmt: skip
#: Files that force a render from scratch when they change.
_WHOLE_BOOK = ("_config.yml", "_toc.yml")
_LABELS = re.compile(
    r"^\(([^)\s]+)\)=\s*$|:label:\s*(\S+)|^\s*:?name:\s*(\S+)|\$\$\s*\((\S+)\)\s*$", re.M
)
_TITLE = re.compile(r"^# (.+)$", re.M)
_HEADINGS = re.compile(r"^#{1,6} .+$", re.M)


def _documents(stage: Path) -> dict[str, Path]:
    """``{name: path}`` of the staged documents (``pages/`` and ``_*`` folders left out)."""
    found = {}
    for name, path in files_below(stage, hidden=False).items():
        parts = Path(name).parts
        if path.suffix in (".md", ".ipynb") and parts[0] != "pages":
            if not any(part.startswith("_") for part in parts):
                found[Path(name).with_suffix("").as_posix()] = path
    return found


def _cells(path: Path) -> list[dict]:
    try:
        cells = json.loads(path.read_text())["cells"]
    except (ValueError, KeyError, TypeError):
        return []
    return cells if isinstance(cells, list) else []


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _text(path: Path) -> str:
    """A document's text (a notebook's Markdown cells; outputs left out)."""
    if path.suffix != ".ipynb":
        return path.read_text()
    return "\n".join(_source(c) for c in _cells(path) if c.get("cell_type") == "markdown")


def _document(path: Path) -> dict:
    """What other pages can see of a document: its title, its structure (headings and
    labelled targets: the texts and numbers of links to it), its labels, and (a notebook)
    the hash of its outputs (the numbers other pages glue from it)."""
    text = _text(path)
    title = _TITLE.search(text)
    labels = sorted({label for groups in _LABELS.findall(text) for label in groups if label})
    structure = _HEADINGS.findall(text) + [m.group(0) for m in _LABELS.finditer(text)]
    outputs = ""
    if path.suffix == ".ipynb":
        cells = [c.get("outputs", []) for c in _cells(path) if c.get("cell_type") == "code"]
        outputs = record_id(cells, 64)
    return {
        "title": title[1] if title else "",
        "structure": text_sha256("\n".join(structure)),
        "labels": labels,
        "outputs": outputs,
    }


def staged_state(stage: Path) -> dict:
    """What a render depends on: every staged file's SHA-256, what each document shows
    other pages (:func:`_document`), and the renderer (:data:`RENDER_MODULES` and the
    versions of the packages that render)."""
    staged = files_below(stage, hidden=False).items()
    files = {name: file_sha256(path) for name, path in staged}
    documents = {name: _document(path) for name, path in _documents(stage).items()}
    sources = science_folder().parent  # holds dadp_lite and dadp_book
    modules = {
        path.relative_to(sources).as_posix(): file_sha256(path)
        for name in RENDER_MODULES
        for path in (
            sorted((sources / name).rglob("*.py"))
            if (sources / name).is_dir()
            else [sources / name]
        )
    }
    renderer = {"modules": modules, "versions": versions(RENDER_PACKAGES)}
    return {"files": files, "documents": documents, "renderer": renderer}


def _titles(state: dict) -> dict:
    return {name: doc.get("title") for name, doc in (state.get("documents") or {}).items()}


def _mark_dependents(stage: Path, before: dict, after: dict) -> list[str]:
    """Touch (and name) the documents Sphinx would leave stale: those that glue from a
    document whose outputs changed, and those that link to one whose structure (headings
    and labels) changed, or refer to one of its labels, old or new."""
    old, new = before.get("documents") or {}, after.get("documents") or {}
    docs = _documents(stage)
    glued, referred = set(), set()
    for name, doc in new.items():
        earlier = old.get(name) or {}
        if doc.get("outputs") != earlier.get("outputs"):
            glued.add(name)
        if doc.get("structure") != earlier.get("structure"):
            referred.add(name)
    if not glued and not referred:
        return []
    stems = {Path(name).name for name in referred}
    labels = {
        label
        for name in referred
        for label in [*new[name]["labels"], *(old.get(name) or {}).get("labels", [])]
    }
    sources = {f"{Path(name).name}{suffix}::" for name in glued for suffix in (".ipynb", ".md")}
    marked = []
    for name, path in docs.items():
        if name in glued | referred:
            continue
        text = _text(path)
        hit = any(source in text for source in sources)
        hit = hit or any(f"/{stem}" in text or f"`{stem}" in text for stem in stems)
        if hit or any(f"`{label}" in text or f"<{label}>" in text for label in labels):
            os.utime(path)
            marked.append(name)
    return marked


def render_html(stage: Path, build_dir: Path, strict: bool = True, builder: str = "html") -> Path:
    """Run Jupyter Book on ``stage`` (strict: warnings are errors) unless it is unchanged
    since the last render of ``builder``; returns ``<build_dir>/<builder>``."""
    jb_out = build_dir / "jb"
    html = build_dir / builder
    record, environment = jb_out / f".dadp-{builder}-rendered.json", jb_out / ENVIRONMENT
    state = {**staged_state(stage), "strict": strict}
    outputs = jb_out / f".dadp-{builder}-output.json"
    damaged = ""
    if read_json(record) == state:
        damaged = _restore(jb_out / "_build" / builder, html, read_json(outputs))
        if not damaged:
            print(f"  {builder}: the staged book is unchanged since its last render", flush=True)
            return html
    previous = read_json(environment)  # what Sphinx's environment was last built from
    record.unlink(missing_ok=True)
    environment.unlink(missing_ok=True)  # a failed render is followed by a full one
    old_files = previous.get("files") or {}
    changed = {f for f in set(old_files) | set(state["files"])
               if old_files.get(f) != state["files"].get(f)}  # fmt: skip
    whole = [name for name in _WHOLE_BOOK if name in changed]
    why = [
        text
        for text, applies in (
            ("no earlier render", not previous),
            (damaged, bool(damaged)),
            ("strict mode changed", previous and previous.get("strict") != strict),
            ("a title changed", previous and _titles(previous) != _titles(state)),
            ("the renderer changed", previous and previous.get("renderer") != state["renderer"]),
            (f"{', '.join(whole)} changed", previous and whole),
        )
        if applies
    ]
    fresh = bool(why)
    if fresh:
        print(f"  {builder}: rendering everything ({'; '.join(why)})", flush=True)
    else:
        names = sorted(changed)
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        print(f"  {builder}: {len(names)} staged file(s) changed: {shown}", flush=True)
        marked = _mark_dependents(stage, previous, state)
        if marked:
            print(f"  {builder}: also rendered again (they depend on a changed page): "
                  + ", ".join(marked), flush=True)  # fmt: skip
    main = "import sys; from jupyter_book.cli.main import main; sys.exit(main())"
    command = [sys.executable, "-c", main, "build", str(stage), "--path-output", str(jb_out)]
    command += ["--builder", builder, *(["-n", "-W", "--keep-going"] if strict else [])]
    command += ["--all"] if fresh else []
    completed = subprocess.run(command, capture_output=True, text=True)
    log = completed.stdout + completed.stderr
    suffix = "" if builder == "html" else f"-{builder}"
    (build_dir / f"jupyter-book{suffix}.log").write_text(log)
    if completed.returncode != 0:
        problems = [ln for ln in log.splitlines() if "WARNING" in ln or "ERROR" in ln]
        shown = "\n".join(problems[:40]) or log[-3000:]
        raise BuildError(f"Jupyter Book reported problems (strict mode):\n{shown}")
    sync_folder(jb_out / "_build" / builder, html)
    hashes = folder_hashes(html)
    write_atomic(outputs, lambda tmp: tmp.write_text(json.dumps(hashes, sort_keys=True)))
    for path in (environment, record):
        write_atomic(path, lambda tmp: tmp.write_text(json.dumps(state, sort_keys=True)))
    return html


def _restore(rendered: Path, html: Path, expected: dict) -> str:
    """Check ``html`` against the hashes of the last render and copy back from Jupyter
    Book's tree ``rendered`` what is missing or damaged: "" if whole again, else why not."""
    if not expected:
        return "no record of the rendered output"
    present = folder_hashes(html) if html.is_dir() else {}
    wrong = sorted(name for name, digest in expected.items() if present.get(name) != digest)
    extra = sorted(set(present) - set(expected))
    if not wrong and not extra:
        return ""
    shown = ", ".join(wrong[:3]) + (f" and {len(wrong) - 3} more" if len(wrong) > 3 else "")
    source = folder_hashes(rendered) if rendered.is_dir() else {}
    if any(source.get(name) != expected[name] for name in wrong):
        return f"the rendered output is damaged ({shown or extra[0]}) and so is Jupyter Book's"
    for name in wrong:
        (html / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(rendered / name, html / name)
    for name in extra:
        (html / name).unlink()
    if wrong:
        print(f"  {html.name}: re-created {len(wrong)} page(s) missing or damaged in the "
              f"output: {shown}", flush=True)  # fmt: skip
    return ""


def render_single_chapter(root: Path, slug: str, notebook: Path, destination: Path) -> Path:
    """One-chapter build into ``destination`` (non-strict: links to absent pages are text),
    with the references and the glossary, so that citations and ``{term}`` links resolve."""
    with temp_folder(destination.parent, f"html-{slug}") as work:
        stage = work / "stage"
        (stage / "notebooks").mkdir(parents=True)
        (stage / "book").mkdir()
        shutil.copy2(root / "_config.yml", stage / "_config.yml")
        sync_folder(root / "_static", stage / "_static")
        for name in ("references.md", "references.bib", "glossary.md"):
            if (root / "book" / name).is_file():
                shutil.copy2(root / "book" / name, stage / "book" / name)
        toc: dict[str, object] = {"format": "jb-book", "root": f"notebooks/{slug}"}
        pages = [p for p in ("references", "glossary") if (stage / "book" / f"{p}.md").is_file()]
        if pages:
            toc["chapters"] = [{"file": f"book/{p}"} for p in pages]
        (stage / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
        content, _ = resolve_notebook_links(root, notebook.read_bytes(), [slug])  # others: text
        (stage / "notebooks" / f"{slug}.ipynb").write_bytes(content)
        html = render_html(stage, work, strict=False)
        shutil.copytree(html, destination)
        shutil.copy2(work / "jupyter-book.log", destination / "jupyter-book.log")
    return destination / "index.html"
