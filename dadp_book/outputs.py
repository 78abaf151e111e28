"""Outputs that appear atomically, temporary folders that never outlive their owner, one
writer per output folder (:func:`output_lock`) and a full disk named early.

Outputs are written in a temporary folder beside their destination and moved into place
when complete. A temporary folder is named ``.tmp-<what>-<host>-<pid>-<random>``: the next
run removes those whose owning process (on this host) is gone, and SIGTERM becomes
``KeyboardInterrupt`` (:func:`interruptible`) so that ``finally`` blocks remove them at once.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

from dadp_book.errors import BuildError

__all__ = [
    "MIN_FREE_BYTES", "atomic_replace", "check_free_space", "check_replaceable",
    "clean_stale_temps", "disk_full", "exclusive_output", "interruptible", "output_lock",
    "output_parent", "read_json", "remove_stale_sockets", "temp_folder", "temp_prefix",
    "write_atomic", "write_if_changed",
]  # fmt: skip

TEMP_PREFIX = ".tmp-"
#: Free space below which a run, sweep or build does not start (or stops between results):
#: an executed chapter, its files and its page take a few MB, a whole book some hundreds.
MIN_FREE_BYTES = 200 * 2**20
_REPLACE_ATTEMPTS = 20
#: What a rename sees when another process moves the same folder at the same moment.
_RACE_ERRORS = (errno.ENOENT, errno.EEXIST, errno.ENOTEMPTY)
_OWNER = re.compile(r"-(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-[^-]+$")


def _host() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def temp_prefix(what: str, pid: int | None = None) -> str:
    """Name prefix of this host's temporary folders for ``what`` owned by ``pid`` (or us)."""
    return f"{TEMP_PREFIX}{what}-{_host()}-{pid or os.getpid()}-"


def _make_temp(parent: Path, what: str) -> Path:
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=temp_prefix(what), dir=parent))


@contextmanager
def temp_folder(parent: Path, what: str) -> Iterator[Path]:
    """A fresh temporary folder in ``parent``, removed when the block ends (whatever happens)."""
    folder = _make_temp(parent, what)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def clean_stale_temps(parent: Path) -> list[str]:
    """Remove the temporary folders in ``parent`` whose owner is gone; returns their names."""
    removed: list[str] = []
    if not parent.is_dir():
        return removed
    for path in sorted(parent.glob(f"{TEMP_PREFIX}*")):
        owner = _OWNER.search(path.name)
        # another machine's run on a shared disk is not ours to judge
        if owner and (owner["host"] != _host() or psutil.pid_exists(int(owner["pid"]))):
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path.name)
    return removed


def atomic_replace(tmp: Path, out: Path) -> None:
    """Move the finished folder ``tmp`` to ``out``, replacing an earlier output there."""
    tmp.chmod(0o755)  # temporary folders are private (0700); outputs are not
    for _attempt in range(_REPLACE_ATTEMPTS):  # another process may be replacing it too
        old = None
        try:
            if out.exists():
                old = _make_temp(out.parent, f"old-{out.name}")
                old.rmdir()
                out.rename(old)
            tmp.rename(out)
            return
        except OSError as error:
            if error.errno not in _RACE_ERRORS:
                raise
        finally:
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
    raise BuildError(
        f"{out} was replaced by another process {_REPLACE_ATTEMPTS} times while this one "
        "tried to write it; run again when the other process has finished"
    )


def write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    """``write(tmp)`` then rename ``tmp`` to ``path`` (readers never see half a file)."""
    tmp = path.with_name(f"{temp_prefix(path.name)}w")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_if_changed(path: Path, content: bytes) -> bool:
    """Write ``content`` unless the file already holds it (its time then stays, so that
    Sphinx sees no change); returns whether it wrote."""
    with contextlib.suppress(OSError):
        if path.stat().st_size == len(content) and path.read_bytes() == content:
            return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return True


def read_json(path: Path) -> dict:
    """A JSON object written earlier; {} if it is missing, unreadable or not an object."""
    try:
        content = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return content if isinstance(content, dict) else {}


def check_replaceable(out: Path, marker: str) -> None:
    """Refuse to replace a folder that dadp-book did not write (no ``marker`` file in it)."""
    if out.exists() and not out.is_dir():
        raise BuildError(f"{out} exists and is a file; choose another --out")
    if out.exists() and any(out.iterdir()) and not (out / marker).is_file():
        raise BuildError(
            f"{out} exists and is not a dadp-book output (no {marker}); "
            "choose another --out or remove it"
        )


@contextmanager
def output_parent(out: Path) -> Iterator[None]:
    """Create the folder that will hold ``out``, and remove the folders it created if the
    block fails (a refused or failed run leaves no empty folders); a path that cannot be
    written is a one-line :class:`BuildError` naming it."""
    parent = out.parent
    missing = [p for p in (parent, *parent.parents) if not p.exists()]
    try:
        parent.mkdir(parents=True, exist_ok=True)
        Path(tempfile.mkdtemp(prefix=temp_prefix("probe"), dir=parent)).rmdir()  # writable?
    except OSError as error:
        _remove_empty(missing)
        blocker = next((p for p in (parent, *parent.parents) if _is_file(p)), None)
        reason = f"{error.strerror or type(error).__name__} in {parent}"
        why = f"{blocker} is a file" if blocker else reason
        raise BuildError(f"cannot write the output {out}: {why}") from None
    try:
        yield
    except BaseException:
        _remove_empty(missing)
        raise


def _is_file(path: Path) -> bool:
    try:
        return path.exists() and not path.is_dir()
    except OSError:
        return False


def _remove_empty(folders: list[Path]) -> None:
    for folder in folders:  # deepest first
        with contextlib.suppress(OSError):
            folder.rmdir()


def remove_stale_sockets(folder: Path, prefix: str, min_age: float = 60.0) -> list[str]:
    """Remove the Unix sockets ``folder/prefix*`` that refuse a connection (a killed
    kernel's) and are older than ``min_age`` seconds (not one being set up); their names."""
    removed = []
    now = time.time()
    for path in sorted(Path(folder).glob(f"{prefix}*")):
        try:
            info = path.lstat()
            if not stat.S_ISSOCK(info.st_mode) or now - info.st_mtime < min_age:
                continue
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(0.5)
                probe.connect(str(path))
        except ConnectionRefusedError:
            path.unlink(missing_ok=True)
            removed.append(path.name)
        except OSError:
            continue
    return removed


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


@contextmanager
def interruptible() -> Iterator[None]:
    """While the block runs, SIGTERM raises ``KeyboardInterrupt`` (as SIGINT does)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def output_lock(out: Path) -> Iterator[None]:
    """Hold ``out`` for this process while the block runs (its parent must exist): an
    ``flock`` on ``.<name>.lock`` beside it (a killed process leaves the file, not the lock);
    a second process is refused at once, naming the folder and the holder."""
    path = out.parent / f".{out.name}.lock"
    while True:
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(handle, 64).decode(errors="replace").strip()
            os.close(handle)
            who = f" (process {holder})" if holder.isdigit() else ""
            raise BuildError(
                f"{out} is being written by another dadp-book run{who}; wait for it to "
                "finish, or choose another output folder"
            ) from None
        try:
            same = os.fstat(handle).st_ino == os.stat(path).st_ino
        except FileNotFoundError:  # removed by its last holder meanwhile: take a new one
            same = False
        if same:
            break
        os.close(handle)
    try:
        os.ftruncate(handle, 0)
        os.write(handle, str(os.getpid()).encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(handle)


def _free(path: Path) -> int | None:
    """Free bytes on the disk that holds (or will hold) ``path``; None where unknown (a
    pseudo file system such as /proc reports a size of 0)."""
    for folder in (path, *path.parents):
        if folder.exists():
            try:
                usage = shutil.disk_usage(folder)
            except OSError:
                return None
            return usage.free if usage.total > 0 else None
    return None


def check_free_space(out: Path, what: str, need: int = MIN_FREE_BYTES) -> None:
    """Refuse to start (or go on) writing ``out`` when its disk has less than ``need``
    bytes free."""
    free = _free(out)
    if free is not None and free < need:
        raise BuildError(
            f"the disk holding {out} has {free / 2**20:.0f} MiB free; {what} needs at least "
            f"{need / 2**20:.0f} MiB: free some space and run again"
        )


@contextmanager
def exclusive_output(out: Path, what: str) -> Iterator[None]:
    """Write ``out`` alone (:func:`check_free_space` for ``what``, then
    :func:`interruptible`, :func:`output_parent`, :func:`output_lock` and :func:`disk_full`)."""
    check_free_space(out, what)
    with interruptible(), output_parent(out), output_lock(out), disk_full(out):
        yield


@contextmanager
def disk_full(out: Path) -> Iterator[None]:
    """A write that failed for want of space (ENOSPC, EDQUOT) as one line naming ``out``."""
    try:
        yield
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        where = f" ({error.filename})" if error.filename else ""
        raise BuildError(
            f"the disk holding {out} is full{where}: {error.strerror}; free some space and "
            "run again (finished results are kept)"
        ) from None
