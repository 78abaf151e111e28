"""THE papermill executor: one converted chapter, one kernel, in a private working folder.

Build, run and sweep (local processes and Dask workers) execute chapters through
:func:`execute_notebook`, which needs only ``dadp_lite``, the data and a ``python3`` kernel
where it runs. What it returns (ARCHITECTURE.md, "The book machinery") is what a reader
sees: one parameters cell showing the values used, stable cell ids, no temporary paths;
and what the build cache checks: the files the kernel read, the bytes ``dadp_lite`` read
of each dataset file, and the ``dadp_lite`` files it imported or opened. Files that
compiled libraries read on their own (a Parquet file through pyarrow) are not seen, which
is why dataset parameters are hashed separately.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client import AsyncKernelManager

import dadp_lite
from dadp_book.discovery import line_comments
from dadp_book.outputs import remove_stale_sockets, temp_folder, write_if_changed
from dadp_book.provenance import environment, file_sha256, files_below, science_folder
from dadp_lite.data import ENV_READS_LOG

__all__ = [
    "KERNEL_ENVIRONMENT", "Execution", "changed_while_read", "describe_failure",
    "science_folder", "execute_notebook", "show_parameters", "show_used_parameters",
    "show_values",
]  # fmt: skip

THREAD_VARIABLES = (
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)  # fmt: skip
#: On top of the inherited environment: inline figures (an inherited ``MPLBACKEND=Agg``
#: would drop them), no progress bars, and one BLAS/OpenMP thread, because threaded sums
#: are grouped by thread count (the same seed must give the same bytes on 1 or N cores).
KERNEL_ENVIRONMENT: dict[str, str] = {
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    "TQDM_DISABLE": "1",
    **dict.fromkeys(THREAD_VARIABLES, "1"),
}
SOURCE_NAME = ".source.ipynb"
OUTPUT_NAME = ".executed.ipynb"
#: The kernel's list of the files it opened for reading (hidden: not a written file).
READS_NAME = ".reads"
#: The kernel's list of the dataset files ``dadp_lite`` read, with the hash of the bytes.
DATA_READS_NAME = ".datasets-read"
#: The kernel's list of the files of the ``dadp_lite`` package it opened (imports included).
SOURCES_NAME = ".sources"

#: Run in the kernel when it starts, in a namespace of its own; never raises into the
#: chapter. An audit hook logs each file opened for reading outside the excluded folders,
#: and the package's data files; after each cell, the ``dadp_lite`` modules in
#: ``sys.modules`` (not the files opened: the library hashes its own files for the
#: findings store, which is no import). No sources log without the callback: the cache
#: then counts the whole package.
_READS_HOOK = """
import os, sys
def _install(log_path, excluded, package, sources_path):
    log = open(log_path, "a", buffering=1, encoding="utf-8")
    seen, listed, sources = set(), set(), []
    def source(path):
        if path not in listed and sources:
            listed.add(path)
            sources[0].write(path + "\\n")
    def hook(event, args):
        if event != "open":
            return
        try:
            path, mode, flags = (tuple(args) + (None, None))[:3]
            if isinstance(path, int) or path is None:
                return
            if isinstance(mode, str):
                if "r" not in mode and "+" not in mode:
                    return
            elif isinstance(flags, int) and flags & os.O_ACCMODE == os.O_WRONLY:
                return
            path = os.path.abspath(os.fsdecode(path))
            if path in seen:
                return
            seen.add(path)
            if path.startswith(package):
                if not path.endswith((".py", ".pyc")):  # the package's data, not its code
                    source(path)
            elif not path.startswith(excluded):
                log.write(path + "\\n")
        except Exception:
            pass
    def imported(*_):
        try:
            for module in list(sys.modules.values()):
                path = getattr(module, "__file__", None)
                if isinstance(path, str) and path.startswith(package):
                    source(path)
        except Exception:
            pass
    sys.addaudithook(hook)
    try:
        from IPython import get_ipython
        get_ipython().events.register("post_run_cell", imported)
    except Exception:
        return
    sources.append(open(sources_path, "a", buffering=1, encoding="utf-8"))
"""


class PinnedKernelManager(AsyncKernelManager):
    """Starts each kernel with :data:`KERNEL_ENVIRONMENT` and the read logs, on Unix sockets
    of its own (``ipc``) rather than TCP ports: kernels started at once cannot race for a
    free port (a lost race left a kernel that never answered, after a 60 s wait)."""

    async def start_kernel(self, **kw: Any) -> None:
        kw["env"] = {**(kw.get("env") or os.environ), **KERNEL_ENVIRONMENT}
        remove_stale_sockets(Path(tempfile.gettempdir()), "dadp-kernel-")  # of killed kernels
        # papermill runs the kernel in its working folder by changing ours (``cwd``)
        work = Path(str(kw.get("cwd") or os.getcwd()))
        kw["env"][ENV_READS_LOG] = str(work / DATA_READS_NAME)
        watch = _watch_reads(work)
        kw["extra_arguments"] = [*(kw.get("extra_arguments") or []), watch]
        self.transport = "ipc"
        # a short, unique prefix (a Unix socket path holds at most 107 bytes); jupyter_client
        # removes the socket files when the kernel shuts down
        self.ip = os.path.join(tempfile.gettempdir(), f"dadp-kernel-{uuid.uuid4().hex[:12]}")
        # the kernel's own log (cell output goes through its channels) stays off our
        # terminal: "KeyboardInterrupt caught in kernel" at every shutdown, "Parent appears
        # to have exited" after an interrupted run
        kw.update(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await super().start_kernel(**kw)


def _untracked_folders(work: Path) -> tuple[str, ...]:
    """Folders whose files are no chapter's inputs: Python, the kernel's working folder, the
    system, and the configuration and caches of Jupyter, IPython and matplotlib."""
    from jupyter_core.paths import jupyter_config_dir, jupyter_data_dir, jupyter_runtime_dir

    home = Path.home()
    folders = [sys.prefix, sys.base_prefix, sys.exec_prefix, work]
    folders += ["/proc", "/sys", "/dev", "/etc", "/usr", "/lib", "/lib64", "/run", "/var"]
    folders += [jupyter_config_dir(), jupyter_data_dir(), jupyter_runtime_dir()]
    folders += [os.environ.get(k, "") for k in ("MPLCONFIGDIR", "IPYTHONDIR")]
    folders += [home / ".ipython", home / ".matplotlib", home / ".config" / "matplotlib"]
    folders += [Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "matplotlib"]
    named = [str(f) for f in folders if str(f)]
    both = {os.path.join(os.path.realpath(f), "") for f in named}
    return tuple(sorted(both | {os.path.join(os.path.abspath(f), "") for f in named}))


def _watch_reads(work: Path) -> str:
    """The kernel option that installs :data:`_READS_HOOK`, logging into ``work``."""
    folder = os.path.dirname(os.path.abspath(dadp_lite.__file__))
    package = tuple({os.path.join(f, "") for f in (folder, os.path.realpath(folder))})
    call = (
        f"_install({str(work / READS_NAME)!r}, {_untracked_folders(work)!r}, "
        f"{package!r}, {str(work / SOURCES_NAME)!r})"
    )
    code = _READS_HOOK + call
    return f"--IPKernelApp.exec_lines=exec({code!r}, {{}})"


def _reads(work: Path, loaded: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    """``{path: SHA-256}`` of the files the kernel logged that still exist; a dataset file
    ``dadp_lite`` read (``loaded``) with the hash of the bytes it read."""
    log = work / READS_NAME
    found = {}
    if log.is_file():
        for line in sorted(set(log.read_text(encoding="utf-8").splitlines())):
            path = Path(line)
            if line and path.is_file() and work not in path.parents:
                found[line] = file_sha256(path)
    for name, digests in loaded.items():
        if work not in Path(name).parents:
            found[name] = digests[0]
    return dict(sorted(found.items()))


def _sources(work: Path, package: Path) -> dict[str, str] | None:
    """``{"dadp_lite/<path>": SHA-256}`` of the package's files the kernel opened that still
    exist (a compiled file stands for its source), None without the kernel's log."""
    log = work / SOURCES_NAME
    if not log.is_file():
        return None
    found = {}
    for line in set(log.read_text(encoding="utf-8", errors="surrogateescape").splitlines()):
        with contextlib.suppress(ValueError):  # not a file of a __pycache__ folder
            line = importlib.util.source_from_cache(line) if "__pycache__" in line else line
        path = Path(line).resolve()
        if line and path.is_file() and package in path.parents:
            found[f"{package.name}/{path.relative_to(package).as_posix()}"] = file_sha256(path)
    return dict(sorted(found.items()))


def _loaded(work: Path) -> dict[str, tuple[str, ...]]:
    """``{real path: distinct SHA-256s of the bytes read, in order}`` of the dataset files
    ``dadp_lite`` read in the kernel (:data:`DATA_READS_NAME`)."""
    log = work / DATA_READS_NAME
    found: dict[str, tuple[str, ...]] = {}
    if log.is_file():
        text = log.read_text(encoding="utf-8", errors="surrogateescape")
        for line in text.splitlines():
            digest, _, path = line.partition(" ")
            if path and digest not in found.get(path, ()):
                found[path] = (*found.get(path, ()), digest)
    return found


def changed_while_read(loaded: Mapping[str, tuple[str, ...]]) -> str | None:
    """The error of an execution that read one dataset file with different bytes."""
    for path, digests in sorted(loaded.items()):
        if len(digests) > 1:
            shown = ", ".join(f"{d[:12]}..." for d in digests)
            return (
                f"dataset file {path} changed while the chapter ran (read {len(digests)} "
                f"times with different bytes: SHA-256 {shown}); run again on a file that "
                "stays put"
            )
    return None


@dataclass
class Execution:
    """One executed chapter: the notebook, the files it wrote, its time and its failure;
    ``reads``, ``loaded`` and ``sources`` as from :func:`_reads`, :func:`_loaded` and
    :func:`_sources`."""

    slug: str
    notebook: bytes
    files: dict[str, bytes]
    seconds: float
    error: str | None = None
    environment: dict = field(default_factory=dict)
    reads: dict[str, str] = field(default_factory=dict)
    loaded: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sources: dict[str, str] | None = None

    def save(self, folder: Path) -> Path:
        """Write the notebook (``<slug>.ipynb``) and the files into ``folder`` if changed."""
        notebook = folder / f"{self.slug}.ipynb"
        if self.notebook:
            write_if_changed(notebook, self.notebook)
        for name, content in self.files.items():
            write_if_changed(folder / name, content)
        return notebook


def describe_failure(slug: str, error: BaseException) -> str:
    """``notebooks/<slug>.md failed in cell [n] (cell index i): Name: message``."""
    ename = getattr(error, "ename", type(error).__name__)
    evalue = getattr(error, "evalue", str(error))
    cell = getattr(error, "exec_count", None)
    index = getattr(error, "cell_index", None)
    where = f"cell [{cell}]" if cell is not None else "a cell"
    if index is not None:
        where += f" (cell index {index})"
    return f"notebooks/{slug}.md failed in {where}: {ename}: {evalue}"


def show_parameters(source: str, texts: Mapping[str, str]) -> str:
    """``source`` (a parameters cell) with ``NAME = <texts[NAME]>`` for each named
    assignment, keeping the comment of its line; names it does not assign are added at the
    end. An assignment that shares a line with other code is left alone and the new value
    is added at the end (the last assignment wins, as when papermill injects it)."""
    if not texts:
        return source
    lines = source.splitlines()
    try:
        body = ast.parse(source).body
    except SyntaxError:
        body = []
    comments = line_comments(source)
    spans = [(n.lineno, n.end_lineno or n.lineno) for n in body]
    done, replace = set(), []
    for node in body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if not isinstance(target, ast.Name) or target.id not in texts:
            continue
        first, last = node.lineno, node.end_lineno or node.lineno
        shared = sum(1 for a, b in spans if a <= last and b >= first) > 1
        if shared or node.col_offset != 0:
            continue
        comment = next((comments[i] for i in range(last, first - 1, -1) if i in comments), "")
        line = f"{target.id} = {texts[target.id]}" + (f"  {comment}" if comment else "")
        replace.append((first, last, line))
        done.add(target.id)
    for first, last, line in reversed(replace):  # the later lines first: numbers stay
        lines[first - 1 : last] = [line]
    lines += [f"{name} = {text}" for name, text in texts.items() if name not in done]
    return "\n".join(lines)


def _same(a: object, b: object) -> bool:
    """Equal values of the same types (``1`` and ``1.0`` differ), lists item by item."""
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _defaults(source: str) -> dict[str, object]:
    """Literal defaults of a parameters cell (names whose value is not a literal left out)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return {}
    found = {}
    for node in body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    found[target.id] = ast.literal_eval(node.value)
                except ValueError:
                    found.pop(target.id, None)
    return found


def _tagged(notebook, tag: str) -> int:
    cells = notebook.cells
    return next((i for i, c in enumerate(cells) if tag in c.metadata.get("tags", [])), -1)


def show_used_parameters(notebook, shown: Mapping[str, object] | None = None):
    """The notebook, changed in place: the cell tagged ``parameters`` shows each injected
    value (one equal to the default keeps the author's text), or the one in ``shown``
    (``{"BOOK_ROOT": "."}``: as a reader names it); the injected cell and papermill's
    temporary paths go, execution counts are renumbered, cell ids follow the position."""
    from papermill.translators import PythonTranslator

    shown = dict(shown or {})
    meta = notebook.metadata.get("papermill", {})
    values = dict(meta.get("parameters") or {})
    injected, tagged = _tagged(notebook, "injected-parameters"), _tagged(notebook, "parameters")
    if tagged >= 0 and (injected >= 0 or shown):  # again on a finished notebook: ``shown``
        cell = notebook.cells[tagged]
        defaults = _defaults(cell.source) if injected >= 0 else {}
        texts = {
            name: PythonTranslator.translate(value)
            for name, value in ({**values, **shown} if injected >= 0 else shown).items()
            if not (name in defaults and _same(defaults[name], value))
        }
        cell.source = show_parameters(cell.source, texts)
        if injected >= 0:
            del notebook.cells[injected]
    if shown and "parameters" in meta:
        meta["parameters"] = {**values, **{k: v for k, v in shown.items() if k in values}}
    for key in ("input_path", "output_path"):
        meta.pop(key, None)
    count = 0
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{index}"
        if cell.cell_type == "code" and cell.get("execution_count") is not None:
            count += 1
            cell.execution_count = count
            for output in cell.outputs:
                if "execution_count" in output:
                    output["execution_count"] = count
    return notebook


def show_values(executed: bytes, shown: Mapping[str, object] | None = None) -> bytes:
    """:func:`show_used_parameters` on an executed notebook's bytes."""
    import nbformat

    notebook = nbformat.reads(executed.decode(), as_version=4)
    return nbformat.writes(show_used_parameters(notebook, shown)).encode()


def execute_notebook(
    notebook: str,
    slug: str,
    parameters: Mapping[str, object],
    scratch: Path | None = None,
    shown: Mapping[str, object] | None = None,
) -> Execution:
    """Execute a converted chapter (``.ipynb`` text) with ``parameters``, the kernel in a
    temporary folder in ``scratch``. A failing cell is not raised: ``error`` names it, and
    the notebook is papermill's, traceback included (``shown``: :func:`show_used_parameters`)."""
    import papermill

    start = time.perf_counter()
    error = None
    with temp_folder(scratch or Path(tempfile.gettempdir()), f"exec-{slug}") as work:
        (work / SOURCE_NAME).write_text(notebook)
        output = work / OUTPUT_NAME
        try:
            papermill.execute_notebook(
                str(work / SOURCE_NAME), str(output), parameters=dict(parameters),
                cwd=str(work), kernel_name="python3", progress_bar=False, log_output=False,
                kernel_manager_class=PinnedKernelManager,
            )  # fmt: skip
        except Exception as failure:  # papermill wraps cell errors; report them as text
            error = describe_failure(slug, failure)
        executed = output.read_bytes() if output.is_file() else b""
        if executed and error is None:
            executed = show_values(executed, shown)
        files = {name: p.read_bytes() for name, p in files_below(work, hidden=False).items()}
        loaded = _loaded(work)
        reads = _reads(work, loaded)
        sources = _sources(work, science_folder())
    error = error or changed_while_read(loaded)
    seconds = time.perf_counter() - start
    return Execution(slug, executed, files, seconds, error, environment(), reads, loaded, sources)
