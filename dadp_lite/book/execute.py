"""THE papermill executor: one converted chapter, one kernel, in a private working folder.

Build, run and sweep (local processes and Dask workers) all execute chapters through
:func:`execute_notebook`. It needs only ``dadp_lite``, the data and a ``python3`` kernel
where it runs, not the book's sources. Every kernel it starts gets
:data:`KERNEL_ENVIRONMENT` on top of the inherited environment: the inline matplotlib
backend (an inherited ``MPLBACKEND=Agg`` would drop every figure), no progress bars, and
one BLAS/OpenMP thread, because sums in threaded matrix products are grouped by thread
count and their last bits then depend on the machine (the same seed must give the same
bytes on 1 or N cores, locally or on Dask).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_client import AsyncKernelManager

from dadp_lite.book.outputs import remove_stale_sockets, temp_folder
from dadp_lite.book.provenance import environment

__all__ = ["KERNEL_ENVIRONMENT", "Execution", "describe_failure", "execute_notebook"]

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
KERNEL_ENVIRONMENT: dict[str, str] = {
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    "TQDM_DISABLE": "1",
    **dict.fromkeys(THREAD_VARIABLES, "1"),
}
SOURCE_NAME = ".source.ipynb"
OUTPUT_NAME = ".executed.ipynb"


class PinnedKernelManager(AsyncKernelManager):
    """Starts each kernel with :data:`KERNEL_ENVIRONMENT` over this process's environment,
    talking over Unix sockets of its own (``ipc`` transport) rather than TCP ports: kernels
    started at once cannot race for a free port (a lost race left a kernel that never
    answered, after a 60 s wait)."""

    async def start_kernel(self, **kw: object) -> None:
        kw["env"] = {**(kw.get("env") or os.environ), **KERNEL_ENVIRONMENT}
        remove_stale_sockets(Path(tempfile.gettempdir()), "dadp-kernel-")  # of killed kernels
        self.transport = "ipc"
        # a short, unique prefix (a Unix socket path holds at most 107 bytes); jupyter_client
        # removes the socket files when the kernel shuts down
        self.ip = os.path.join(tempfile.gettempdir(), f"dadp-kernel-{uuid.uuid4().hex[:12]}")
        # the kernel's own log (cell output goes through its channels) stays off our
        # terminal: "KeyboardInterrupt caught in kernel" at every shutdown, "Parent appears
        # to have exited" after an interrupted run
        kw.update(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await super().start_kernel(**kw)


@dataclass
class Execution:
    """One executed chapter: the notebook, the files it wrote, its time and its failure."""

    slug: str
    notebook: bytes
    files: dict[str, bytes]
    seconds: float
    error: str | None = None
    environment: dict = field(default_factory=dict)

    def save(self, folder: Path) -> Path:
        """Write the notebook (as ``<slug>.ipynb``) and the chapter's files into ``folder``."""
        notebook = folder / f"{self.slug}.ipynb"
        if self.notebook:
            notebook.write_bytes(self.notebook)
        for name, content in self.files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(content)
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


def _papermill(source: Path, output: Path, parameters: Mapping[str, object], cwd: Path) -> None:
    import papermill

    papermill.execute_notebook(
        str(source),
        str(output),
        parameters=dict(parameters),
        cwd=str(cwd),
        kernel_name="python3",
        progress_bar=False,
        log_output=False,
        kernel_manager_class=PinnedKernelManager,
    )


def _written(folder: Path) -> dict[str, bytes]:
    """Every file the chapter wrote (hidden files and folders excluded)."""
    files = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_file() and not any(part.startswith(".") for part in relative.parts):
            files[relative.as_posix()] = path.read_bytes()
    return files


def execute_notebook(
    notebook: str,
    slug: str,
    parameters: Mapping[str, object],
    scratch: Path | None = None,
) -> Execution:
    """Execute a converted chapter (``.ipynb`` text) with ``parameters`` injected by papermill.

    The kernel's working folder is a fresh temporary folder in ``scratch`` (default: the
    system's), removed afterwards. Never raises for a chapter's failure: the returned
    :class:`Execution` names the notebook and cell in ``error`` and still carries the
    executed notebook (with the traceback) when papermill wrote one.
    """
    start = time.perf_counter()
    error = None
    with temp_folder(scratch or Path(tempfile.gettempdir()), f"exec-{slug}") as work:
        (work / SOURCE_NAME).write_text(notebook)
        try:
            _papermill(work / SOURCE_NAME, work / OUTPUT_NAME, parameters, work)
        except Exception as failure:  # papermill wraps cell errors; report them as text
            error = describe_failure(slug, failure)
        output = work / OUTPUT_NAME
        executed = output.read_bytes() if output.is_file() else b""
        files = _written(work)
    seconds = time.perf_counter() - start
    return Execution(slug, executed, files, seconds, error, environment())
