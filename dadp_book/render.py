"""Jupyter Book 1.x HTML: the whole staged book, or one executed chapter on its own.

Rendering is incremental. Each render records the SHA-256 of every staged file and what
each document shows other pages (``<build>/jb/.dadp-<builder>-rendered.json``); when the
stage is unchanged since the last successful render of the same builder, nothing is
rendered again. Otherwise Jupyter Book runs with Sphinx's own environment cache, which the
``html`` and ``singlehtml`` builders share (Sphinx reads again only the documents changed
since the environment was built, recorded in ``.dadp-environment.json``), and the
documents that depend on a changed one are marked changed too, since Sphinx would leave
them stale: those that glue numbers from a notebook whose outputs changed, and those that
link to a document or refer to its labels when its headings or labels changed. A prose
edit that keeps the headings renders that page alone. A change of a document's title, of
the table of contents, of the configuration or of the renderer (the Sphinx extension and
the other :data:`RENDER_MODULES`, or a rendering package's version) renders everything
again, as does the render after a failed one (its warnings must be seen again in strict
mode).

A render also records the SHA-256 of every file of its output folder
(``.dadp-<builder>-output.json``). When the stage is unchanged, the output is checked
against it: a page deleted, cut short or edited in the output is copied again from Jupyter
Book's own tree when that tree is intact, and otherwise the whole book is rendered again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from dadp_book.errors import BuildError
from dadp_book.outputs import temp_folder, write_atomic
from dadp_book.provenance import file_sha256, folder_hashes, versions
from dadp_book.stage import copy_static, resolve_chapter_links

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
#: The ``dadp_lite`` modules a render runs: the Sphinx extensions, the chart assets they
#: write (a package: every module in it), and this module (the Jupyter Book command).
RENDER_MODULES = (
    "dadp_book/sphinx_ext.py",
    "dadp_book/sphinx_api.py",
    "dadp_book/sphinx_glue.py",
    "dadp_lite/interactive",
    "dadp_book/render.py",
)
#: Files that force a render from scratch when they change.
_WHOLE_BOOK = ("_config.yml", "_toc.yml")
_LABELS = re.compile(
    r"^\(([^)\s]+)\)=\s*$|:label:\s*(\S+)|^\s*:?name:\s*(\S+)|\$\$\s*\((\S+)\)\s*$", re.M
)
_TITLE = re.compile(r"^# (.+)$", re.M)
_HEADINGS = re.compile(r"^#{1,6} .+$", re.M)


def _documents(stage: Path) -> list[Path]:
    return [
        path
        for path in sorted(stage.rglob("*"))
        if path.suffix in (".md", ".ipynb")
        and path.is_file()
        and not any(part.startswith((".", "_")) for part in path.relative_to(stage).parts)
        and path.relative_to(stage).parts[0] != "pages"
    ]


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
        outputs = hashlib.sha256(json.dumps(cells, sort_keys=True).encode()).hexdigest()
    return {
        "title": title[1] if title else "",
        "structure": hashlib.sha256("\n".join(structure).encode()).hexdigest(),
        "labels": labels,
        "outputs": outputs,
    }


def staged_state(stage: Path) -> dict:
    """What a render depends on: every staged file's SHA-256, what each document shows
    other pages (:func:`_document`), and the renderer (:data:`RENDER_MODULES` and the
    versions of the packages that render)."""
    files = {
        path.relative_to(stage).as_posix(): file_sha256(path)
        for path in sorted(stage.rglob("*"))
        if path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(stage).parts)
    }
    documents = {
        path.relative_to(stage).with_suffix("").as_posix(): _document(path)
        for path in _documents(stage)
    }
    import dadp_lite

    sources = Path(dadp_lite.__file__).resolve().parents[1]  # holds dadp_lite and dadp_book
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
    """Touch the documents that depend on a changed one, so that Sphinx reads and writes
    them again (it would not: their glued numbers and link texts would stay stale); returns
    their names. A document whose outputs changed: those that glue from it. One whose
    structure changed (a heading or label added, removed or renamed): those that link to
    it or refer to one of its labels, old or new."""
    old, new = before.get("documents") or {}, after.get("documents") or {}
    docs = {path.relative_to(stage).with_suffix("").as_posix(): path for path in _documents(stage)}
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
    """Run Jupyter Book on ``stage`` (strict: warnings are errors); returns the HTML folder,
    ``<build_dir>/html`` (or ``<build_dir>/singlehtml`` with ``builder="singlehtml"``, the
    whole book as one page, sharing the Sphinx cache of the HTML build). Renders nothing
    when the stage is unchanged since the last render of ``builder`` (see the module)."""
    jb_out = build_dir / "jb"
    html = build_dir / builder
    record, environment = jb_out / f".dadp-{builder}-rendered.json", jb_out / ENVIRONMENT
    state = {**staged_state(stage), "strict": strict}
    outputs = jb_out / f".dadp-{builder}-output.json"
    damaged = ""
    if _load(record) == state:
        damaged = _restore(jb_out / "_build" / builder, html, _load(outputs))
        if not damaged:
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
    if not fresh:
        marked = _mark_dependents(stage, previous, state)
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
    completed = subprocess.run(command, capture_output=True, text=True)
    log = completed.stdout + completed.stderr
    suffix = "" if builder == "html" else f"-{builder}"
    (build_dir / f"jupyter-book{suffix}.log").write_text(log)
    if completed.returncode != 0:
        problems = [ln for ln in log.splitlines() if "WARNING" in ln or "ERROR" in ln]
        shown = "\n".join(problems[:40]) or log[-3000:]
        raise BuildError(f"Jupyter Book reported problems (strict mode):\n{shown}")
    _mirror(jb_out / "_build" / builder, html)
    hashes = folder_hashes(html)
    write_atomic(outputs, lambda tmp: tmp.write_text(json.dumps(hashes, sort_keys=True)))
    for path in (environment, record):
        write_atomic(path, lambda tmp: tmp.write_text(json.dumps(state, sort_keys=True)))
    return html


def _restore(rendered: Path, html: Path, expected: dict) -> str:
    """Check the output folder ``html`` against the hashes of the last render; copy back
    from Jupyter Book's tree ``rendered`` what is missing or damaged. Returns "" when the
    output is whole (again), else why everything must be rendered again."""
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
    """One-chapter build into ``destination`` (non-strict: links to absent pages are text),
    with the references and the glossary, so that citations and ``{term}`` links resolve."""
    with temp_folder(destination.parent, f"html-{slug}") as work:
        stage = work / "stage"
        (stage / "notebooks").mkdir(parents=True)
        (stage / "book").mkdir()
        shutil.copy2(root / "_config.yml", stage / "_config.yml")
        copy_static(root, stage)
        for name in ("references.md", "references.bib", "glossary.md"):
            if (root / "book" / name).is_file():
                shutil.copy2(root / "book" / name, stage / "book" / name)
        toc = {"format": "jb-book", "root": f"notebooks/{slug}"}
        pages = [p for p in ("references", "glossary") if (stage / "book" / f"{p}.md").is_file()]
        if pages:
            toc["chapters"] = [{"file": f"book/{p}"} for p in pages]
        (stage / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
        _single_page_notebook(root, slug, notebook, stage / "notebooks" / f"{slug}.ipynb")
        html = render_html(stage, work, strict=False)
        shutil.copytree(html, destination)
        shutil.copy2(work / "jupyter-book.log", destination / "jupyter-book.log")
    return destination / "index.html"
