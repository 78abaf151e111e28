"""One finding as a record: what it is about, which claim of the paper it belongs to, the
chapter that shows it, how its setting comes from that chapter's parameters, and the
function that computes its numbers and status."""

from __future__ import annotations

import functools
import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dadp_lite.dataset import Dataset
from dadp_lite.errata.show import number
from dadp_lite.errata.status import NOT_JUDGED, Status

__all__ = ["Claim", "Finding", "Result", "Value", "dataset", "plain", "shown"]

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_CHAPTER = re.compile(r"^\d\d-[a-z0-9]+(-[a-z0-9]+)*$")
_PARAMETER = re.compile(r"^[A-Z][A-Z0-9_]*$")


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
class Value:
    """A value a finding shows: the number (None for words) and its text, formatted once so
    that every page shows the same text."""

    number: float | int | None
    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text:
            raise ValueError("a value's text must be a non-empty string")


def shown(value: object, digits: int = 4) -> Value:
    """``value`` as a :class:`Value`: a number with ``digits`` significant digits
    (:func:`~dadp_lite.errata.show.number`; integers exactly), or a string as it is."""
    if isinstance(value, Value):
        return value
    if isinstance(value, str):
        return Value(None, value)
    raw = plain(value)
    return Value(raw, number(raw, digits))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Result:
    """What a finding computes at one setting: its status and named values.

    ``status`` is None when the setting leaves nothing of the paper to compare (an epsilon
    the paper prints nothing for): the finding is then *not judged* there, with ``reason``,
    and is never counted. Value names are lowercase words joined by hyphens; plain numbers
    and strings are turned into :class:`Value` with four significant digits (pass
    :func:`shown` with other digits where a digit matters).
    """

    status: Status | None
    #: Given as numbers, strings or :class:`Value`; always :class:`Value` once built.
    values: Mapping[str, Any] = field(default_factory=dict)
    reason: str = ""

    def __post_init__(self) -> None:
        if self.status is not None and not isinstance(self.status, Status):
            raise TypeError(f"status must be a Status or None, got {type(self.status).__name__}")
        if self.status is None and not self.reason:
            raise ValueError("a result that is not judged needs a reason")
        for name in self.values:
            if not isinstance(name, str) or not _ID.match(name):
                raise ValueError(f"value name {name!r} must be lowercase words joined by '-'")
        object.__setattr__(self, "values", {k: shown(v) for k, v in self.values.items()})

    @property
    def judged(self) -> bool:
        """False where the setting leaves nothing to compare."""
        return self.status is not None

    @property
    def word(self) -> str:
        """The status word, or :data:`~dadp_lite.errata.status.NOT_JUDGED`."""
        return self.status.word if self.status is not None else NOT_JUDGED

    def number(self, name: str) -> float | int:
        """The number behind value ``name`` (a KeyError names the known ones)."""
        value = self.values.get(name)
        if value is None or value.number is None:
            known = [k for k, v in self.values.items() if v.number is not None]
            raise KeyError(f"no number {name!r}; numbers: {known}")
        return value.number


@dataclass(frozen=True)
class Claim:
    """A claim of the paper, counted once: a theorem with the table column printed from it,
    a definition, a remark, an experiment. ``where`` names its place in the paper."""

    id: str
    title: str
    where: str

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(f"claim id {self.id!r} must be lowercase words joined by '-'")
        if not self.title or not self.where:
            raise ValueError(f"claim {self.id}: title and where must be non-empty")


@dataclass(frozen=True, eq=False)
class Finding:
    """One finding about one claim of the paper.

    ``id`` is stable (glue names use it: ``status-<id>``, ``<id>.<value>``); ``chapter`` is
    the slug of the one chapter that shows it; ``claim`` the id of the paper's claim it is
    about. The computation's keyword arguments come from ``fixed`` (the paper's settings)
    and from ``parameters``, which maps an argument to the name of a parameter of the
    chapter (``{"reps": "REPS"}``): the chapter, the errata page and the landing page pass
    the same chapter values and get the same result.
    """

    id: str
    title: str
    chapter: str
    claim: str
    compute: Callable[..., Result]
    parameters: Mapping[str, str] = field(default_factory=dict)
    fixed: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(f"id {self.id!r} must be lowercase words joined by '-'")
        if not isinstance(self.chapter, str) or not _CHAPTER.match(self.chapter):
            raise ValueError(f"chapter {self.chapter!r} must be a slug 'NN-words'")
        if not isinstance(self.title, str) or not self.title:
            raise ValueError("title must be a non-empty string")
        if not isinstance(self.claim, str) or not _ID.match(self.claim):
            raise ValueError(f"{self.id}: claim {self.claim!r} must be a claim id")
        if not callable(self.compute):
            raise TypeError("compute must be callable")
        for name, parameter in self.parameters.items():
            if not _PARAMETER.match(parameter):
                raise ValueError(f"{self.id}: {name} maps to {parameter!r}, not a parameter name")
        twice = set(self.parameters) & set(self.fixed)
        if twice:
            raise ValueError(f"{self.id}: {sorted(twice)} both fixed and taken from the chapter")

    def settings(self, values: Mapping[str, object]) -> dict[str, object]:
        """The computation's keyword arguments: ``fixed``, and each of ``parameters`` read
        from the chapter's ``values`` (lists become tuples). A missing parameter raises a
        ValueError naming it."""
        missing = [p for p in self.parameters.values() if p not in values]
        if missing:
            raise ValueError(
                f"finding {self.id} needs the chapter parameter(s) {', '.join(missing)} "
                f"of {self.chapter}"
            )
        out: dict[str, object] = dict(self.fixed)
        for name, parameter in self.parameters.items():
            out[name] = _frozen(values[parameter])
        return out

    def evaluate(self, settings: Mapping[str, object]) -> Result:
        """Compute the finding at ``settings`` (no caching; see
        :func:`dadp_lite.errata.evaluate`)."""
        result = self.compute(**settings)
        if not isinstance(result, Result):
            raise TypeError(f"{self.id}: compute returned {type(result).__name__}, not Result")
        return result


def _frozen(value: object) -> object:
    """Lists (and nested lists) as tuples, so that a setting can key a cache."""
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


@functools.cache
def dataset(name: str) -> Dataset:
    """A named excerpt (or a file path), loaded once per process (records and histogram)."""
    return Dataset.load(name)
