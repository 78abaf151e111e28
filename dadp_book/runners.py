"""Where executions run: local processes, or a Dask cluster. Both call the one executor.

A runner is a context manager yielding ``run(tasks)``, which yields ``(index, outcome)`` as
tasks finish (an :class:`~dadp_book.execute.Execution` or the exception that stopped the
task). Leaving the block early stops the work: local workers are terminated (their kernels
exit with them), Dask futures cancelled.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import ExitStack, contextmanager
from pathlib import Path

from dadp_book.errors import BuildError
from dadp_book.execute import Execution, execute_notebook
from dadp_book.outputs import temp_folder

__all__ = [
    "Outcome", "Task", "check_dask_address", "check_jobs", "dask_runner", "die_with_parent",
    "local_runner",
]  # fmt: skip

#: ``(converted notebook text, slug, parameters)``: the arguments of ``execute_notebook``.
Task = tuple[str, str, dict]
Outcome = Execution | BaseException
Run = Callable[[Sequence[Task]], Iterator[tuple[int, Outcome]]]


def check_jobs(jobs: int | None, what: str = "--jobs") -> int:
    """``jobs`` if it is a positive integer (default: 2, or 1 on a one-core machine)."""
    if jobs is None:
        return min(os.cpu_count() or 1, 2)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise BuildError(f"{what} must be a positive integer, got {jobs!r}")
    return jobs


def _job(args: tuple[int, Task, Path | None]) -> tuple[int, Outcome]:
    index, task, scratch = args
    try:
        return index, execute_notebook(*task, scratch=scratch)
    except Exception as error:  # returned, not raised: one task never stops the others
        return index, RuntimeError(f"{type(error).__name__}: {error}")


def _worker_signals(parent: int | None = None) -> None:
    """A worker leaves Ctrl-C to the parent, dies at once on SIGTERM (a forked worker
    inherits the parent's handler, whose ``KeyboardInterrupt`` can leave the pool waiting
    forever), and dies with its parent (one killed outright runs no clean-up); its kernels
    exit when they see their parent gone (ipykernel's parent poller)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if parent is not None:
        die_with_parent(parent)


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """Make this process die when process ``parent`` (its parent) does: SIGKILL from Linux
    (``prctl(PR_SET_PDEATHSIG)``), elsewhere a thread that polls each second."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if not sys.platform.startswith("linux") or libc.prctl(
            _PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0
        ):
            raise OSError("prctl unavailable")
    except (OSError, AttributeError):
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # it died before the request took effect
        os._exit(1)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _in_pool(jobs: int, args: list) -> Generator[tuple[int, Outcome], None, None]:
    before = set(multiprocessing.active_children())
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(args)),
        mp_context=multiprocessing.get_context("fork"),
        initializer=_worker_signals,
        initargs=(os.getpid(),),
    )
    finished = False
    try:
        futures = {pool.submit(_job, a): a[0] for a in args}
        for future in as_completed(futures):
            try:
                yield future.result()
            except Exception as error:  # a worker process died (killed, out of memory)
                yield futures[future], RuntimeError(f"{type(error).__name__}: {error}")
        finished = True
    finally:
        pool.shutdown(wait=finished, cancel_futures=not finished)
        if not finished:  # terminate the workers (their kernels exit with them)
            for child in set(multiprocessing.active_children()) - before:
                child.terminate()
                child.join()
            pool.shutdown(wait=True)


@contextmanager
def local_runner(jobs: int, scratch_parent: Path | None = None) -> Iterator[Run]:
    """Run tasks in ``jobs`` local processes (in this process when one suffices); kernels
    work in a temporary folder in ``scratch_parent`` (default: the system's)."""
    with ExitStack() as cleanup:

        def run(tasks: Sequence[Task]) -> Iterator[tuple[int, Outcome]]:
            scratch = None
            if scratch_parent is not None:
                scratch = cleanup.enter_context(temp_folder(scratch_parent, "scratch"))
            args = [(i, task, scratch) for i, task in enumerate(tasks)]
            if jobs <= 1 or len(tasks) <= 1:
                yield from map(_job, args)
                return
            pool = _in_pool(jobs, args)
            cleanup.callback(pool.close)  # stops the workers however the block is left
            yield from pool

        yield run


def check_dask_address(address: str | None) -> None:
    """Refuse an address that is neither ``scheme://host:port`` nor a scheduler file."""
    if address and "://" not in address and not Path(address).is_file():
        raise BuildError(
            f"--dask takes a scheduler address (tcp://host:8786) or a scheduler file; "
            f"{address!r} is neither"
        )


def _connect(address: str, jobs: int, timeout: float):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as error:
        raise BuildError("--dask needs dask[distributed]: pip install -e '.[dask]'") from error
    cluster = None
    try:
        if address and "://" not in address:
            return Client(scheduler_file=address, timeout=timeout), None
        if address:
            return Client(address, timeout=timeout), None
        cluster = LocalCluster(
            n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
        )
        return Client(cluster, timeout=timeout), cluster
    except (OSError, TimeoutError) as error:
        if cluster is not None:
            cluster.close()
        where = address or "a local cluster"
        raise BuildError(f"cannot reach the Dask scheduler at {where}: {error}") from error


@contextmanager
def dask_runner(address: str, jobs: int, timeout: float) -> Iterator[Run]:
    """Run tasks on a Dask scheduler: ``address`` is ``tcp://host:port``, a scheduler file
    (``dask scheduler --scheduler-file``), or ``""`` for a LocalCluster of ``jobs`` workers."""
    from dask.distributed import as_completed

    client, cluster = _connect(address, jobs, timeout)
    print(f"  Dask scheduler: {client.scheduler.address}", flush=True)
    futures: list = []

    def run(tasks: Sequence[Task]) -> Iterator[tuple[int, Outcome]]:
        futures[:] = [client.submit(execute_notebook, *task, pure=False) for task in tasks]
        index = {future.key: i for i, future in enumerate(futures)}
        for future in as_completed(futures):
            try:
                outcome = future.result()
            except Exception as failure:  # a worker died or the task raised
                outcome = failure
            yield index[future.key], outcome

    try:
        yield run
    finally:
        if futures:
            client.cancel(futures)
        client.close()
        if cluster is not None:
            cluster.close()
