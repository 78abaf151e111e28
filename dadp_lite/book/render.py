"""Jupyter Book 1.x HTML: the whole staged book, or one executed chapter on its own.

Rendering is incremental. Each render records the SHA-256 of every staged file and each
document's title (``<build>/jb/.dadp-<builder>-rendered.json``); when the stage is
unchanged since the last successful render of the same builder, nothing is rendered again.
Otherwise Jupyter Book runs with Sphinx's own environment cache, which the ``html`` and
``singlehtml`` builders share (Sphinx reads again only the documents changed since the
environment was built, recorded in ``.dadp-environment.json``), and the documents that
depend on a changed one are marked changed too: those that glue numbers from it, link to
it or refer to one of its labels (Sphinx would leave their glued values and link texts
stale). A change of a document's title, of the table of contents, of the configuration or
of the renderer (the Sphinx extension and the other :data:`RENDER_MODULES`, or a rendering
package's version) renders everything again, as does the render after a failed one (its
warnings must be seen again in strict mode).
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

from dadp_lite.book.errors import BuildError
from dadp_lite.book.outputs import temp_folder, write_atomic
from dadp_lite.book.provenance import file_sha256, versions
from dadp_lite.book.stage import copy_static, resolve_chapter_links

__all__ = ["render_html", "render_single_chapter", "staged_state"]

#: The staged state Sphinx's environment (shared by the builders) was last built from.
ENVIRONMENT = ".dadp-environment.json"
#: Packages that render: a new version renders everything again.
RENDER_PACKAGES = (
    "jupyter-book",
    "sphinx",
    "myst-nb",
    "myst-parser",
    "sphinx-book-theme",
    "pydata-sphinx-theme",
    "sphinx-proof",
    "sphinx-exercise",
    "sphinxcontrib-bibtex",
    "sphinx-mathjax-offline",
    "altair",
    "vl-convert-python",
)
#: The ``dadp_lite`` modules a render runs: the Sphinx extension, the chart assets it
#: writes, and this module (the Jupyter Book command).
RENDER_MODULES = ("book/sphinx_ext.py", "interactive.py", "book/render.py")
#: Files that force a render from scratch when they change.
_WHOLE_BOOK = ("_config.yml", "_toc.yml")
_LABELS = re.compile(r"^\(([^)\s]+)\)=\s*$|:label:\s*(\S+)|^\s*:?name:\s*(\S+)", re.M)
_TITLE = re.compile(r"^# (.+)$", re.M)


def _documents(stage: Path) -> list[Path]:
    return [
        path
        for path in sorted(stage.rglob("*"))
        if path.suffix in (".md", ".ipynb")
        and path.is_file()
        and not any(part.startswith((".", "_")) for part in path.relative_to(stage).parts)
        and path.relative_to(stage).parts[0] != "pages"
    ]


def _text(path: Path) -> str:
    """A document's text (a notebook's Markdown cells; outputs left out)."""
    if path.suffix != ".ipynb":
        return path.read_text()
    try:
        cells = json.loads(path.read_text())["cells"]
    except (ValueError, KeyError):
        return ""
    sources = [c.get("source", "") for c in cells if c.get("cell_type") == "markdown"]
    return "\n".join("".join(s) if isinstance(s, list) else s for s in sources)


def staged_state(stage: Path) -> dict:
    """What a render depends on: every staged file's SHA-256, each document's title, and
    the renderer (:data:`RENDER_MODULES` and the versions of the packages that render)."""
    files = {
        path.relative_to(stage).as_posix(): file_sha256(path)
        for path in sorted(stage.rglob("*"))
        if path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(stage).parts)
    }
    titles = {}
    for path in _documents(stage):
        found = _TITLE.search(_text(path))
        titles[path.relative_to(stage).with_suffix("").as_posix()] = found[1] if found else ""
    import dadp_lite

    package = Path(dadp_lite.__file__).resolve().parent
    modules = {name: file_sha256(package / name) for name in RENDER_MODULES}
    renderer = {"modules": modules, "versions": versions(RENDER_PACKAGES)}
    return {"files": files, "titles": titles, "renderer": renderer}


def _mark_dependents(stage: Path, changed: set[str]) -> list[str]:
    """Touch the documents that glue from, link to or refer to a changed document, so that
    Sphinx reads and writes them again; returns their names."""
    docs = {path.relative_to(stage).with_suffix("").as_posix(): path for path in _documents(stage)}
    changed_docs = {name for name in docs if any(f.startswith(name + ".") for f in changed)}
    if not changed_docs:
        return []
    texts = {name: _text(path) for name, path in docs.items()}
    labels = {
        label
        for name in changed_docs
        for groups in _LABELS.findall(texts[name])
        for label in groups
        if label
    }
    stems = {Path(name).name for name in changed_docs}
    marked = []
    for name, text in texts.items():
        if name in changed_docs:
            continue
        linked = any(f"/{stem}" in text or f"`{stem}" in text for stem in stems)
        if linked or any(f"`{label}" in text or f"<{label}>" in text for label in labels):
            os.utime(docs[name])
            marked.append(name)
    return marked


def render_html(stage: Path, build_dir: Path, strict: bool = True, builder: str = "html") -> Path:
    """Run Jupyter Book on ``stage`` (strict: warnings are errors); returns the HTML folder,
    ``<build_dir>/html`` (or ``<build_dir>/singlehtml`` with ``builder="singlehtml"``, the
    whole book as one page, sharing the Sphinx cache of the HTML build). Renders nothing
    when the stage is unchanged since the last render of ``builder`` (see the module)."""
    jb_out = build_dir / "jb"
    html = build_dir / builder
    record, environment = jb_out / f".dadp-{builder}-rendered.json", jb_out / ENVIRONMENT
    state = {**staged_state(stage), "strict": strict}
    if _load(record) == state and html.is_dir() and any(html.iterdir()):
        print(f"  {builder}: the staged book is unchanged since its last render", flush=True)
        return html
    previous = _load(environment)  # what Sphinx's environment was last built from
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
            ("strict mode changed", previous and previous.get("strict") != strict),
            ("a title changed", previous and previous.get("titles") != state["titles"]),
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
    if not fresh:
        marked = _mark_dependents(stage, changed)
        if marked:
            print(f"  {builder}: also rendered again (they depend on a changed page): "
                  + ", ".join(marked), flush=True)  # fmt: skip
    command = [
        sys.executable,
        "-c",
        "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
        "build",
        str(stage),
        "--path-output",
        str(jb_out),
        "--builder",
        builder,
    ]
    if strict:
        command += ["-n", "-W", "--keep-going"]
    if fresh:
        command += ["--all"]
    print(f"  rendering {builder}:", " ".join(command[2:]), flush=True)
    completed = subprocess.run(command, capture_output=True, text=True)
    log = completed.stdout + completed.stderr
    suffix = "" if builder == "html" else f"-{builder}"
    (build_dir / f"jupyter-book{suffix}.log").write_text(log)
    if completed.returncode != 0:
        problems = [ln for ln in log.splitlines() if "WARNING" in ln or "ERROR" in ln]
        shown = "\n".join(problems[:40]) or log[-3000:]
        raise BuildError(f"Jupyter Book reported problems (strict mode):\n{shown}")
    _mirror(jb_out / "_build" / builder, html)
    for path in (environment, record):
        write_atomic(path, lambda tmp: tmp.write_text(json.dumps(state, sort_keys=True)))
    return html


def _load(path: Path) -> dict:
    try:
        content = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return content if isinstance(content, dict) else {}


def _mirror(source: Path, target: Path) -> None:
    """Make ``target`` a copy of ``source``, copying only files whose size or time differ."""
    wanted = set()
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        wanted.add(relative)
        destination = target / relative
        if path.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
            continue
        stat = path.stat()
        try:
            there = destination.stat()
            same = there.st_size == stat.st_size and there.st_mtime_ns == stat.st_mtime_ns
        except OSError:
            same = False
        if not same:
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, destination)
    for path in sorted(target.rglob("*"), reverse=True):
        if path.relative_to(target) not in wanted:
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def _single_page_notebook(root: Path, slug: str, notebook: Path, destination: Path) -> None:
    """Copy the executed notebook, naming links to other chapters as plain text."""
    import nbformat

    content = nbformat.read(notebook, as_version=4)
    for cell in content.cells:
        if cell.cell_type == "markdown":
            cell.source = resolve_chapter_links(root, cell.source, [slug])[0]
    nbformat.write(content, destination)


def render_single_chapter(root: Path, slug: str, notebook: Path, destination: Path) -> Path:
    """One-chapter build into ``destination`` (non-strict: links to absent pages are text)."""
    with temp_folder(destination.parent, f"html-{slug}") as work:
        stage = work / "stage"
        (stage / "notebooks").mkdir(parents=True)
        (stage / "book").mkdir()
        shutil.copy2(root / "_config.yml", stage / "_config.yml")
        copy_static(root, stage)
        for name in ("references.md", "references.bib"):
            if (root / "book" / name).is_file():
                shutil.copy2(root / "book" / name, stage / "book" / name)
        toc = {"format": "jb-book", "root": f"notebooks/{slug}"}
        if (stage / "book" / "references.md").is_file():
            toc["chapters"] = [{"file": "book/references"}]
        (stage / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
        _single_page_notebook(root, slug, notebook, stage / "notebooks" / f"{slug}.ipynb")
        html = render_html(stage, work, strict=False)
        shutil.copytree(html, destination)
        shutil.copy2(work / "jupyter-book.log", destination / "jupyter-book.log")
    return destination / "index.html"
