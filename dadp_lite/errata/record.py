"""One erratum as a record: what it is about, where it is shown, the setting it is stated
at, and the function that computes its numbers and status at that setting."""

from __future__ import annotations

import functools
import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from dadp_lite.dataset import Dataset
from dadp_lite.errata.status import Status

__all__ = ["Finding", "Result", "dataset", "plain"]

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_CHAPTER = re.compile(r"^\d\d-[a-z0-9]+(-[a-z0-9]+)*$")


def plain(value: object) -> float | int | str:
    """``value`` as a plain Python ``float``, ``int`` or ``str`` (what glue can format).

    numpy scalars are converted; booleans, containers and non-finite numbers are refused.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real | str):
        raise TypeError(f"a glued value must be a number or a string, got {value!r}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        if not math.isfinite(value):
            raise ValueError(f"a glued number must be finite, got {value!r}")
        return float(value)
    return value


@dataclass(frozen=True)
class Result:
    """What a finding computes: its status and named values (plain numbers or strings).

    Value names are lowercase words joined by hyphens (``exact-eps05``); the errata page
    glues them as ``<finding id>.<name>``.
    """

    status: Status
    values: Mapping[str, float | int | str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.status, Status):
            raise TypeError(f"status must be a Status, got {type(self.status).__name__}")
        for name in self.values:
            if not isinstance(name, str) or not _ID.match(name):
                raise ValueError(f"value name {name!r} must be lowercase words joined by '-'")
        object.__setattr__(self, "values", {k: plain(v) for k, v in self.values.items()})


@dataclass(frozen=True, eq=False)
class Finding:
    """One erratum.

    ``id`` is stable (lowercase words joined by hyphens: the page's glue names and the
    chapters' ``status-<id>`` keys use it); ``chapter`` is the slug of the chapter that
    shows it; ``setting`` holds the keyword arguments of ``compute``, the setting the
    erratum is stated at (the paper's, or the chapter's seed and repetitions for a
    simulated number).
    """

    id: str
    title: str
    chapter: str
    setting: Mapping[str, object]
    compute: Callable[..., Result]

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(f"id {self.id!r} must be lowercase words joined by '-'")
        if not isinstance(self.chapter, str) or not _CHAPTER.match(self.chapter):
            raise ValueError(f"chapter {self.chapter!r} must be a slug 'NN-words'")
        if not isinstance(self.title, str) or not self.title:
            raise ValueError("title must be a non-empty string")
        if not isinstance(self.setting, Mapping):
            raise TypeError(f"setting must be a mapping, got {type(self.setting).__name__}")
        if not callable(self.compute):
            raise TypeError("compute must be callable")

    def evaluate(self) -> Result:
        """Compute the finding at its setting (no caching; see :func:`dadp_lite.errata.result`)."""
        result = self.compute(**self.setting)
        if not isinstance(result, Result):
            raise TypeError(f"{self.id}: compute returned {type(result).__name__}, not Result")
        return result

    def setting_text(self) -> str:
        """The setting as ``name = value`` pairs, for tables."""

        def show(value: object) -> str:
            if isinstance(value, tuple | list):
                return "(" + ", ".join(show(v) for v in value) + ")"
            return f"{value:g}" if isinstance(value, float) else str(value)

        return ", ".join(f"{name} = {show(value)}" for name, value in self.setting.items())


@functools.cache
def dataset(name: str) -> Dataset:
    """A named excerpt, loaded once per process (records and histogram)."""
    return Dataset.load(name)
