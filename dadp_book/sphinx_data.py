"""The CSV files each chapter writes, downloadable from its page (set up by
:mod:`dadp_book.sphinx_ext`).

A chapter writes its results as ``<slug>-<what>.csv`` into its working folder; the build
stages them beside the executed notebook (``notebooks/``). Here each one is copied into the
site's ``_data/`` folder, the chapter gets a section "Data" (before its References) linking
its files, and a page that holds a section labelled ``data-files`` (the Reproducibility
page) gets the list of every chapter's files.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from docutils import nodes

__all__ = ["DATA_FOLDER", "LIST_LABEL", "add_data_links", "chapter_files", "copy_data_files"]

#: The folder of the site that serves the files.
DATA_FOLDER = "_data"
#: The label of the section that lists every chapter's files (book/reproducibility.md).
LIST_LABEL = "data-files"


def chapter_files(srcdir: Path, docname: str) -> list[Path]:
    """The CSV files the chapter ``notebooks/<slug>`` wrote, by name."""
    folder, _, slug = docname.rpartition("/")
    if folder != "notebooks" or not slug:
        return []
    return sorted((srcdir / folder).glob(f"{slug}-*.csv"))


def _all_files(srcdir: Path) -> list[Path]:
    return sorted((srcdir / "notebooks").glob("[0-9][0-9]-*.csv"))


def _size(path: Path) -> str:
    size = path.stat().st_size
    return f"{size / 1024:.0f} kB" if size >= 1024 else f"{size} bytes"


def _link(path: Path, docname: str) -> nodes.paragraph:
    depth = docname.count("/")
    uri = "../" * depth + f"{DATA_FOLDER}/{path.name}"
    reference = nodes.reference("", path.name, refuri=uri, classes=["dadp-data-link"])
    return nodes.paragraph("", "", reference, nodes.Text(f" (CSV, {_size(path)})"))


def _items(paths: list[Path], docname: str) -> nodes.bullet_list:
    listing = nodes.bullet_list(classes=["dadp-data-files"])
    for path in paths:
        listing += nodes.list_item("", _link(path, docname))
    return listing


def _data_section(paths: list[Path], docname: str) -> nodes.section:
    section = nodes.section(ids=["data"], names=["data"])
    section += nodes.title("", "Data")
    section += nodes.paragraph(
        "",
        "The results of this chapter as tables, one row per setting, as this build "
        "computed them (comma-separated values):",
    )
    section += _items(paths, docname)
    return section


def add_data_links(app: Any, doctree: nodes.document, docname: str) -> None:
    """A chapter that wrote CSV files gets its section "Data" before "References"; the
    section labelled :data:`LIST_LABEL` gets every chapter's files."""
    if getattr(app.builder, "format", None) != "html":
        return
    srcdir = Path(app.srcdir)
    files = chapter_files(srcdir, docname)
    if files:
        top = next(iter(doctree.findall(nodes.section)), None)
        if top is not None:
            sections = [c for c in top.children if isinstance(c, nodes.section)]
            last = sections[-1] if sections else None
            title = last.next_node(nodes.title) if last is not None else None
            new = _data_section(files, docname)
            if title is not None and title.astext().strip() == "References":
                top.insert(top.index(last), new)
            else:
                top += new
    for section in doctree.findall(nodes.section):
        if LIST_LABEL in section["ids"] or LIST_LABEL in section["names"]:
            everything = _all_files(srcdir)
            if everything:
                section += _items(everything, docname)
            else:
                section += nodes.paragraph("", "This build wrote no data files.")


def copy_data_files(app: Any, exception: Exception | None) -> None:
    """After an HTML build: every chapter's CSV files into the site's :data:`DATA_FOLDER`."""
    if exception is not None or getattr(app.builder, "format", None) != "html":
        return
    target = Path(app.outdir) / DATA_FOLDER
    target.mkdir(exist_ok=True)
    wanted = {path.name: path for path in _all_files(Path(app.srcdir))}
    for name, path in wanted.items():
        copy = target / name
        if not copy.is_file() or copy.read_bytes() != path.read_bytes():
            shutil.copyfile(path, copy)
    for old in target.glob("*.csv"):
        if old.name not in wanted:
            old.unlink()


def setup(app: Any) -> dict:
    app.connect("doctree-resolved", add_data_links)
    app.connect("build-finished", copy_data_files)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
