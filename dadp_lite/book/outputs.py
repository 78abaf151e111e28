"""Outputs that appear atomically, and temporary folders that never outlive their owner.

Everything is written into a temporary folder beside its destination and moved into place
when complete. A temporary folder is named ``.tmp-<what>-<host>-<pid>-<random>``: the next
run removes those whose owning process (on this host) is gone, and a SIGTERM or SIGINT is
turned into ``KeyboardInterrupt`` so that ``finally`` blocks remove them at once.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from dadp_lite.book.errors import BuildError

__all__ = [
    "atomic_replace",
    "check_replaceable",
    "clean_stale_temps",
    "interruptible",
    "temp_folder",
    "temp_prefix",
    "write_atomic",
]

TEMP_PREFIX = ".tmp-"
_OWNER = re.compile(r"-(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-[^-]+$")


def _host() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
    removed = []
    if not parent.is_dir():
        return removed
    for path in sorted(parent.glob(f"{TEMP_PREFIX}*")):
        owner = _OWNER.search(path.name)
        if owner and owner["host"] == _host() and _alive(int(owner["pid"])):
            continue
        if owner and owner["host"] != _host():
            continue  # another machine's run on a shared disk: not ours to judge
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path.name)
    return removed


def atomic_replace(tmp: Path, out: Path) -> None:
    """Move the finished folder ``tmp`` to ``out``, replacing an earlier output there."""
    tmp.chmod(0o755)  # temporary folders are private (0700); outputs are not
    if not out.exists():
        tmp.rename(out)
        return
    old = _make_temp(out.parent, f"old-{out.name}")
    old.rmdir()
    out.rename(old)
    tmp.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """``write(tmp)`` then rename ``tmp`` to ``path`` (readers never see half a file)."""
    tmp = path.with_name(f"{temp_prefix(path.name)}w")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def check_replaceable(out: Path, marker: str) -> None:
    """Refuse to replace a folder that dadp-book did not write (no ``marker`` file in it)."""
    if out.exists() and not out.is_dir():
        raise BuildError(f"{out} exists and is a file; choose another --out")
    if out.exists() and any(out.iterdir()) and not (out / marker).is_file():
        raise BuildError(
            f"{out} exists and is not a dadp-book output (no {marker}); "
            "choose another --out or remove it"
        )


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
