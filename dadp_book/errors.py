"""The one error type of the book machinery."""

from __future__ import annotations

__all__ = ["BuildError"]


class BuildError(RuntimeError):
    """Refused input, a failed chapter or a failed HTML build (the CLI prints it, exit 1)."""
