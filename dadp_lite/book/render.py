"""Jupyter Book 1.x HTML: the whole staged book, or one executed chapter on its own."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from dadp_lite.book.errors import BuildError
from dadp_lite.book.outputs import temp_folder
from dadp_lite.book.stage import copy_static, resolve_chapter_links

__all__ = ["render_html", "render_single_chapter"]


def render_html(stage: Path, build_dir: Path, strict: bool = True, builder: str = "html") -> Path:
    """Run Jupyter Book on ``stage`` (strict: warnings are errors); returns the HTML folder,
    ``<build_dir>/html`` (or ``<build_dir>/singlehtml`` with ``builder="singlehtml"``, the
    whole book as one page, sharing the Sphinx cache of the HTML build)."""
    jb_out = build_dir / "jb"
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
    print(f"  rendering {builder}:", " ".join(command[2:]), flush=True)
    completed = subprocess.run(command, capture_output=True, text=True)
    log = completed.stdout + completed.stderr
    suffix = "" if builder == "html" else f"-{builder}"
    (build_dir / f"jupyter-book{suffix}.log").write_text(log)
    if completed.returncode != 0:
        problems = [ln for ln in log.splitlines() if "WARNING" in ln or "ERROR" in ln]
        shown = "\n".join(problems[:40]) or log[-3000:]
        raise BuildError(f"Jupyter Book reported problems (strict mode):\n{shown}")
    html = build_dir / builder
    if html.exists():
        shutil.rmtree(html)
    shutil.copytree(jb_out / "_build" / builder, html)
    return html


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
