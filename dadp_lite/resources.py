"""Will a request fit in memory, and will it finish in reasonable time? Checked before it runs.

A request whose memory estimate exceeds :func:`memory_limit` is refused with a
:class:`ResourceError` naming the estimate and the limit; one whose time estimate exceeds
:data:`LONG_SECONDS` (an hour) is refused unless the caller allows it explicitly
(``allow_long=True``, or the environment variable ``DADP_ALLOW_LONG=1``, which
``dadp-book run/sweep --allow-long`` sets for the chapters' kernels).

The memory limit is the memory the system reports available now (psutil's
``virtual_memory().available``: ``MemAvailable`` on Linux; half the physical memory where
that is unknown), lowered to the
process's address-space limit if one is set, or the value of ``DADP_MEMORY_LIMIT``
(``8GiB``, ``500MB``, or bytes).
"""

from __future__ import annotations

import os
import re
import resource

__all__ = [
    "LONG_SECONDS",
    "ResourceError",
    "check_duration",
    "check_memory",
    "format_bytes",
    "format_seconds",
    "long_allowed",
    "memory_limit",
]

#: Longer than this (seconds) needs an explicit ``allow_long``.
LONG_SECONDS = 3600.0
MEMORY_ENV = "DADP_MEMORY_LIMIT"
LONG_ENV = "DADP_ALLOW_LONG"
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}  # fmt: skip


class ResourceError(ValueError):
    """A request that cannot fit in memory, or that would run for hours unasked."""


def format_bytes(size: float) -> str:
    """``31999999999`` -> ``"29.8 GiB"``."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size:.0f} bytes"


def format_seconds(seconds: float) -> str:
    """``7300`` -> ``"2.0 hours"``."""
    if seconds >= 86400:
        return f"{seconds / 86400:.1f} days"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} hours"
    if seconds >= 60:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds:.0f} seconds"


def _parse_size(text: str) -> int:
    match = re.fullmatch(r"\s*([0-9.]+)\s*([a-zA-Z]*)\s*", text)
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"{MEMORY_ENV} must be a size such as 8GiB or 500MB, got {text!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def _available() -> int:
    import psutil

    try:
        return int(psutil.virtual_memory().available)
    except (OSError, RuntimeError):  # pragma: no cover - a system psutil cannot read
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError):  # pragma: no cover - no way to know
        return 2**33


def memory_limit() -> int:
    """Bytes a request may use (module docstring)."""
    if os.environ.get(MEMORY_ENV):
        return _parse_size(os.environ[MEMORY_ENV])
    limit = _available()
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, soft)
    return limit


def check_memory(size: float, what: str) -> None:
    """Refuse ``what`` if it needs more than :func:`memory_limit` bytes (``size``)."""
    limit = memory_limit()
    if size > limit:
        raise ResourceError(
            f"{what} needs about {format_bytes(size)} of memory, more than the "
            f"{format_bytes(limit)} available; ask for less (or set {MEMORY_ENV})"
        )


def long_allowed(allow_long: bool | None = None) -> bool:
    """``allow_long`` if given, else whether ``DADP_ALLOW_LONG`` is set to 1."""
    if allow_long is not None:
        if not isinstance(allow_long, bool):
            raise TypeError(f"allow_long must be True, False or None, got {allow_long!r}")
        return allow_long
    return os.environ.get(LONG_ENV, "") == "1"


def check_duration(seconds: float, what: str, allow_long: bool | None = None) -> None:
    """Refuse ``what`` if it would take longer than :data:`LONG_SECONDS` unless allowed."""
    if seconds > LONG_SECONDS and not long_allowed(allow_long):
        raise ResourceError(
            f"{what} would take about {format_seconds(seconds)}; pass allow_long=True "
            f"(dadp-book: --allow-long) to run it anyway, or ask for less"
        )
