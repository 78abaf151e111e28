"""The build cache, ``<build-dir>/cache``: a chapter or page executes again only when one
of its inputs changed (what it keys on, what an entry lists and checks, how entries are
evicted: ARCHITECTURE.md, "The book machinery").

An entry, ``<cache>/<page, / as -->/<key>-<hash of the files read>/``, holds the executed
notebook, the files the chapter wrote (``files/``) and ``entry.json`` (the record, the files
read, the ``dadp_lite`` files opened, each stored file's SHA-256, the execution time and a
SHA-256 of its own content); it is written in a temporary folder and renamed into place.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from dadp_book.execute import Execution
from dadp_book.outputs import (
    atomic_replace,
    clean_stale_temps,
    read_json,
    temp_folder,
    write_if_changed,
)
from dadp_book.provenance import (
    NUMERIC_PACKAGES,
    file_sha256,
    files_below,
    files_sha256,
    folder_hashes,
    record_id,
    science_files,
    science_folder,
    text_sha256,
    versions,
)

__all__ = [
    "CACHED_PACKAGES", "CACHE_FORMAT", "EXCERPT_PREFIX", "KEEP_COSTLY", "KEEP_RECENT",
    "BuildCache", "Lookup", "cache_key", "cache_record", "current_sha256", "listed_reads",
    "machinery_sha256", "package_sources", "merge_outputs", "timestamp",
]  # fmt: skip

#: Changes when the layout of an entry or the record changes (older entries are not used).
CACHE_FORMAT = 3
#: Entries kept per page and profile: the most recently used ...
KEEP_RECENT = 3
#: ... and, of the others, those that took longest to execute.
KEEP_COSTLY = 1
#: How a registered excerpt read by a kernel is listed among an entry's files read.
EXCERPT_PREFIX = "excerpt:"
ENTRY = "entry.json"
NOTEBOOK = "notebook.ipynb"
FILES = "files"
#: Packages whose versions are part of every key: those that compute numbers or draw.
CACHED_PACKAGES = (
    *NUMERIC_PACKAGES, "matplotlib", "matplotlib-inline", "altair", "vl-convert-python",
    "ipykernel", "ipython", "papermill", "nbformat",
)  # fmt: skip
#: Modules of the build machinery that shape what an execution returns (the kernel's
#: environment, the parameters cell, conversion, the record and the merge).
EXECUTION_MODULES = ("execute.py", "cache.py", "discovery.py")
_FIELDS = {
    "format": "cache format changed",
    "page": "another page",
    "kernel": "kernel changed",
    "machinery_sha256": "build machinery changed (dadp_book's execute, cache, discovery)",
    "datasets": "dataset file changed",
}


def _plain(value: object) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=str))


@lru_cache(maxsize=512)
def _hash_at(path: str, mtime_ns: int, size: int) -> str:  # the stat values key the cache
    return file_sha256(Path(path))


def current_sha256(path: str) -> str | None:
    """SHA-256 of a file (remembered while its time and size stay), None if it is gone."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return _hash_at(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=1)
def machinery_sha256() -> str:
    """One hash over the :data:`EXECUTION_MODULES` of ``dadp_book`` (path and bytes)."""
    import dadp_book

    machinery = Path(dadp_book.__file__).resolve().parent
    return files_sha256({f"dadp_book/{name}": machinery / name for name in EXECUTION_MODULES})


def package_sources() -> dict[str, str]:
    """``{"dadp_lite/<path>": SHA-256}`` of every file of the ``dadp_lite`` package: what
    an execution that kept no list of its imports counts as read."""
    science, files = science_folder().name, science_files().items()
    return {f"{science}/{name}": current_sha256(str(path)) or "" for name, path in files}


def cache_record(
    page: str,
    notebook: str,
    parameters: Mapping[str, object],
    profile: str | None,
    datasets: Mapping[str, str] | None = None,
) -> dict:
    """What a page's outputs depend on, before it runs (``notebook``: the converted source)."""
    content = json.loads(notebook)
    code = [
        text_sha256("".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"])
        for cell in content["cells"]
        if cell["cell_type"] == "code"
    ]
    return _plain({
        "format": CACHE_FORMAT,
        "page": page,
        "kernel": content.get("metadata", {}).get("kernelspec", {}).get("name"),
        "code": code,
        "parameters": dict(parameters),
        "profile": profile,
        "datasets": dict(datasets or {}),
        "machinery_sha256": machinery_sha256(),
        "versions": versions(CACHED_PACKAGES),
    })  # fmt: skip


def cache_key(record: Mapping) -> str:
    """The entry key of a record: SHA-256 of its JSON (key order does not matter)."""
    return record_id(_plain(record), 64)


def _signed(content: dict) -> dict:
    body = {k: v for k, v in content.items() if k != "sha256"}
    return {**body, "sha256": record_id(body, 64)}


def _changes(old: Mapping, new: Mapping) -> str:
    """Why ``new`` differs from an earlier record ``old`` of the same page, in words."""
    reasons = []
    if old.get("code") != new.get("code"):
        before, after = old.get("code") or [], new.get("code") or []
        if len(before) != len(after):
            reasons.append(f"code changed ({len(before)} -> {len(after)} code cells)")
        else:
            cells = [i + 1 for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
            shown = ", ".join(map(str, cells[:3])) + (", ..." if len(cells) > 3 else "")
            reasons.append(f"code changed (code cell {shown} of {len(after)})")
    if old.get("parameters") != new.get("parameters"):
        shown = _changed(old.get("parameters"), new.get("parameters"), missing="default")
        reasons.append(f"parameters changed ({shown})")
    if old.get("profile") != new.get("profile"):
        reasons.append(f"profile changed ({old.get('profile')} -> {new.get('profile')})")
    if old.get("versions") != new.get("versions"):
        shown = _changed(old.get("versions"), new.get("versions"), missing="None")
        reasons.append(f"package versions changed ({shown})")
    reasons += [text for field, text in _FIELDS.items() if old.get(field) != new.get(field)]
    return "; ".join(reasons)


def _changed(old: Mapping | None, new: Mapping | None, missing: str) -> str:
    """``"name old -> new, ..."`` for the names whose values differ (``missing`` where absent)."""
    a, b = old or {}, new or {}
    names = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return ", ".join(f"{k} {a.get(k, missing)} -> {b.get(k, missing)}" for k in names)


def _listed(prefix: str, changed: list[str]) -> str:
    """``prefix`` and the first two of ``changed`` ("and N more"), or "" if none."""
    if not changed:
        return ""
    more = f" and {len(changed) - 2} more" if len(changed) > 2 else ""
    return prefix + ", ".join(changed[:2]) + more


def listed_reads(reads: Mapping[str, str]) -> dict[str, str]:
    """The files a kernel read as an entry lists them: a file holding a registered excerpt
    (its name and its published bytes) as ``excerpt:<name>``, any other by its path."""
    from dadp_lite.data import DATASETS

    excerpts = {(info.filename, info.sha256): name for name, info in DATASETS.items()}
    listed = {}
    for path, digest in reads.items():
        name = excerpts.get((Path(path).name, digest))
        listed[f"{EXCERPT_PREFIX}{name}" if name else path] = digest
    return dict(sorted(listed.items()))


#: ``resolve(name)``: the SHA-256 of a registered excerpt where it would be read now.
Resolve = Callable[[str], str]


@dataclass(frozen=True)
class Lookup:
    """A usable entry (``entry`` set) or why the page must run (``reason``)."""

    entry: Path | None
    reason: str = ""


class BuildCache:
    """Executed chapters and pages stored by what they depend on. An entry's folder is named
    by its key and the files it read, so results of the same code computed from different
    files (a data file edited, then restored) are kept side by side."""

    def __init__(self, folder: Path, root: Path | None = None) -> None:
        self.folder = Path(folder)
        self.root = Path(root).resolve() if root is not None else None

    def _page_folder(self, page: str) -> Path:
        return self.folder / page.replace("/", "--")

    def entry_folder(
        self, record: Mapping, reads: Mapping[str, str], sources: Mapping[str, str] | None = None
    ) -> Path:
        """Where the entry of ``record`` computed from the files ``reads`` and the package
        files ``sources`` is stored."""
        files = record_id([sorted(reads.items()), sorted((sources or {}).items())], 12)
        return self._page_folder(str(record["page"])) / f"{cache_key(record)[:32]}-{files}"

    def _name(self, path: str) -> str:
        if self.root is not None and Path(path).is_relative_to(self.root):
            return Path(path).relative_to(self.root).as_posix()
        return path

    def _damage(self, folder: Path, record: Mapping) -> tuple[dict | None, str]:
        """The entry's content if it is intact and holds ``record``; else why not."""
        try:
            content = json.loads((folder / ENTRY).read_text())
        except (OSError, ValueError):
            return None, f"{ENTRY} is missing or unreadable"
        if not isinstance(content, dict) or _signed(content) != content:
            return None, f"{ENTRY} does not match its SHA-256 (changed or cut short)"
        if content.get("record") != _plain(record):
            return None, "its record is not the one its key stands for"
        stored = folder_hashes(folder, exclude=[ENTRY])
        expected = content.get("files") or {}
        for name in sorted(expected):
            if name not in stored:
                return None, f"{name} is missing"
            if stored[name] != expected[name]:
                return None, f"{name} does not match its SHA-256 (changed or cut short)"
        extra = sorted(set(stored) - set(expected))
        return (None, f"unexpected file {extra[0]}") if extra else (content, "")

    def _stale_reads(self, content: Mapping, resolve: Resolve | None) -> str:
        changed = []
        for path, digest in sorted((content.get("reads") or {}).items()):
            if path.startswith(EXCERPT_PREFIX):
                name = path.removeprefix(EXCERPT_PREFIX)
                now = resolve(name) if resolve is not None else None  # refuses a bad one
                shown = f"excerpt {name}"
            else:
                now, shown = current_sha256(path), self._name(path)
            if now != digest:
                changed.append(f"{shown} {'is gone' if now is None else 'changed'}")
        return _listed("file read ", changed)

    @staticmethod
    def _stale_sources(content: Mapping) -> str:
        """Which of the ``dadp_lite`` files the execution opened changed since."""
        changed = []
        for name, digest in sorted((content.get("sources") or {}).items()):
            now = current_sha256(str(science_folder() / name.partition("/")[2]))
            if now != digest:
                changed.append(f"{name} {'is gone' if now is None else 'changed'}")
        return _listed("", changed)

    def _entries(self, page: str) -> list[Path]:
        """The page's entries, the most recently used first."""
        folder = self._page_folder(page)
        if not folder.is_dir():
            return []
        found = [p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")]
        return sorted(found, key=_last_use, reverse=True)

    def _earlier_records(self, record: Mapping) -> list[dict]:
        """Readable records of the page's entries of other keys, newest first."""
        key = cache_key(record)[:32]
        found = []
        for entry in self._entries(str(record["page"])):
            if entry.name.startswith(key):
                continue
            content = read_json(entry / ENTRY)
            if isinstance(content.get("record"), dict):
                found.append(content["record"])
        return found

    def lookup(self, record: Mapping, resolve: Resolve | None = None) -> Lookup:
        """The entry to reuse for ``record`` (newest first; a damaged one removed), or why the
        page must run again. ``resolve(name)``: the SHA-256 of the registered excerpt where it
        would be read now, raising for a missing or altered one (without it, an entry that
        read an excerpt is not used)."""
        key = cache_key(record)[:32]
        variants = [p for p in self._entries(str(record["page"])) if p.name.startswith(key)]
        damaged, stale = [], ""
        for folder in variants:
            content, problem = self._damage(folder, record)
            if content is None:
                damaged.append(problem)
                shutil.rmtree(folder, ignore_errors=True)
                continue
            stale_reads = self._stale_reads(content, resolve)  # may refuse an excerpt: first
            changed = self._stale_sources(content) or stale_reads
            if changed:
                stale = stale or changed
                continue
            os.utime(folder / ENTRY)  # last use: what pruning keeps
            return Lookup(folder)
        if stale:
            return Lookup(None, stale)
        if damaged:
            return Lookup(None, f"cached result damaged ({damaged[0]}): rebuilt")
        earlier = self._earlier_records(record)
        if not earlier:
            return Lookup(None, "not in the cache")
        same_profile = [r for r in earlier if r.get("profile") == record.get("profile")]
        return Lookup(None, _changes((same_profile or earlier)[0], _plain(record)) or "new")

    def load(self, folder: Path) -> tuple[dict, bytes, dict[str, bytes]]:
        """An entry's ``entry.json`` content, notebook and files (checked by :meth:`lookup`)."""
        content = json.loads((folder / ENTRY).read_text())
        files = {name: path.read_bytes() for name, path in files_below(folder / FILES).items()}
        return content, (folder / NOTEBOOK).read_bytes(), files

    def store(self, record: Mapping, execution: Execution, executed_at: str) -> Path:
        """Store a successful execution under ``record`` (atomically); prune old entries."""
        sources = execution.sources if execution.sources is not None else package_sources()
        reads = listed_reads(execution.reads)
        folder = self.entry_folder(record, reads, sources)
        clean_stale_temps(folder.parent)
        with temp_folder(folder.parent, folder.name) as tmp:
            (tmp / NOTEBOOK).write_bytes(execution.notebook)
            for name, data in execution.files.items():
                write_if_changed(tmp / FILES / name, data)
            content = _signed({
                "record": _plain(record),
                "key": cache_key(record),
                "reads": reads,
                "sources": dict(sorted(sources.items())),
                "files": folder_hashes(tmp),
                "seconds": round(execution.seconds, 2),
                "executed_at": executed_at,
                "environment": _plain(execution.environment),
            })  # fmt: skip
            (tmp / ENTRY).write_text(json.dumps(content, indent=1, sort_keys=True) + "\n")
            atomic_replace(tmp, folder)
        self.prune(str(record["page"]))
        return folder

    def prune(self, page: str) -> list[Path]:
        """Remove the page's entries that eviction does not keep: per profile, the
        :data:`KEEP_RECENT` most recently used and the :data:`KEEP_COSTLY` slowest of the rest."""
        groups: dict[object, list[tuple[Path, float]]] = {}
        for folder in self._entries(page):  # newest first
            try:
                content = json.loads((folder / ENTRY).read_text())
                profile = content["record"].get("profile")
                seconds = float(content.get("seconds") or 0.0)
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                profile, seconds = None, 0.0  # unreadable: kept only as recent
            groups.setdefault(profile, []).append((folder, seconds))
        removed = []
        for entries in groups.values():
            rest = entries[KEEP_RECENT:]
            costly = sorted(rest, key=lambda item: item[1], reverse=True)[:KEEP_COSTLY]
            removed += [folder for folder, seconds in rest if (folder, seconds) not in costly]
        for folder in removed:
            shutil.rmtree(folder, ignore_errors=True)
        return removed

    @staticmethod
    def discard(entry: Path) -> None:
        """Remove an entry (one that turned out unusable)."""
        shutil.rmtree(entry, ignore_errors=True)


def _last_use(entry: Path) -> float:
    try:
        return (entry / ENTRY).stat().st_mtime
    except OSError:
        return 0.0


def merge_outputs(source: str, executed: bytes) -> bytes:
    """The current source (``.ipynb`` text) with the outputs of an execution of the same
    code (else ``ValueError``): code cells take, by position, the executed cell's outputs,
    count, source (the values used) and execution metadata; markdown and tags stay."""
    import nbformat

    current = nbformat.reads(source, as_version=4)
    done = nbformat.reads(executed.decode(), as_version=4)
    injected = [c for c in done.cells if "injected-parameters" in c.metadata.get("tags", [])]
    if injected:  # a source without a parameters cell: papermill's cell, on top, stays
        cell = nbformat.v4.new_code_cell(
            injected[0].source, metadata={"tags": ["injected-parameters"]}
        )
        current.cells.insert(0, cell)
    mine = [c for c in current.cells if c.cell_type == "code"]
    theirs = [c for c in done.cells if c.cell_type == "code"]
    if len(mine) != len(theirs):
        raise ValueError(f"{len(mine)} code cells in the source, {len(theirs)} executed")
    for cell, ran in zip(mine, theirs, strict=True):
        tags = ran.metadata.get("tags", [])
        if cell.source != ran.source and not {"parameters", "injected-parameters"} & set(tags):
            raise ValueError("the executed code is not the source's code")
        cell.source = ran.source
        cell.outputs = ran.outputs
        cell.execution_count = ran.get("execution_count")
        for key in ("papermill", "execution"):
            if key in ran.metadata:
                cell.metadata[key] = ran.metadata[key]
    for key in ("papermill", "language_info"):
        if key in done.metadata:
            current.metadata[key] = done.metadata[key]
    for index, cell in enumerate(current.cells):
        cell["id"] = f"cell-{index}"
    return nbformat.writes(current).encode()


def timestamp() -> str:
    """When a result was executed, as the status page shows it (minutes, local zone)."""
    return time.strftime("%Y-%m-%d %H:%M %Z")
