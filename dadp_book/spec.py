"""Parameter types and ranges: the declaration grammar and the checks.

A declaration is the trailing comment of a parameter's line in a chapter's ``parameters``
cell (or an entry of the vocabulary in :mod:`dadp_book.parameters`)::

    declaration := TYPE [" in " INTERVAL | " one of " CHOICE {", " CHOICE}] {", " FLAG}
                   ["; " MEANING]
    TYPE        := int | float | str | bool | dataset | list[int] | list[float] | list[str]
                   | list[dataset]
    INTERVAL    := ("[" | "(") NUMBER ", " NUMBER ("]" | ")")     NUMBER: 0.5, 1e-6, inf, -inf
    FLAG        := distinct | non-empty | "at most " INTEGER
                   | INTEGER " bytes each" [" per record"]

Examples: ``# int in [1, 64]``, ``# float in (0, 1); chance of a zero``,
``# list[float] in [0, inf)``, ``# list[str] one of race, sex, tenure, distinct``,
``# int in [1000, 10000000], 1024 bytes each; repetitions of a 4-cell release``.

``N bytes each`` says what one unit of a count holds in memory at once (``per record``:
times the records of the largest dataset of the run); the memory check before a run
(:func:`dadp_book.parameters.memory_estimate`) multiplies it by the value. Repetition
counts without it (``REPS``, ``*_REPS``) are taken to hold releases of the whole
histogram universe.

Rules: a list is never empty (``non-empty`` may be written for clarity) and a single value
given for a list becomes a one-element list; ``distinct`` refuses repeated elements; a list
holds at most :data:`MAX_ITEMS` values unless its declaration says ``at most N``. An
integer is a whole number (``1e3`` is 1000, ``2.5`` and ``true`` are refused); a float
accepts integers; NaN is never accepted and an infinite value only when the interval closes
on it (``[0, inf]``). A ``dataset`` is a registered excerpt (``ma2019``, ``tx2019``,
``national2019``) or the path of an existing ``.csv`` or ``.parquet`` file; a path is
passed on as an absolute path. Datasets of a ``distinct`` list must also have distinct
names (a file is named after its stem, :func:`dadp_lite.data.dataset_name`): a chapter
keys its results by name, so two files called ``data.csv`` would overwrite each other.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MAX_ITEMS",
    "DeclarationError",
    "Spec",
    "SpecError",
    "check_dataset",
    "parse_declaration",
]

KINDS = ("int", "float", "str", "bool", "dataset")
FLAGS = ("distinct", "non-empty")
_BYTES_EACH = re.compile(r"^(\d+) bytes each( per record)?$")
#: Values a list may hold unless its declaration allows more (``at most N``): each value of
#: a list is usually one more pass of the chapter's experiments.
MAX_ITEMS = 100
_AT_MOST = re.compile(r"^at most (\d+)$")
DATASET_SUFFIXES = (".csv", ".parquet")

_TYPE = re.compile(r"^(?:list\[(\w+)\]|(\w+))\s*")
_INTERVAL = re.compile(r"^in\s*([\[(])\s*([^,\s]+)\s*,\s*([^\])\s]+)\s*([\])])\s*")


class DeclarationError(ValueError):
    """A declaration that does not follow the grammar."""


class SpecError(ValueError):
    """A value that its declaration refuses (the message says why)."""


@dataclass(frozen=True)
class Spec:
    """Type and allowed values of one parameter (each element, for a list)."""

    kind: str
    is_list: bool = False
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = True
    high_open: bool = True
    choices: tuple[str, ...] | None = None
    distinct: bool = False
    max_items: int = MAX_ITEMS
    bytes_each: int | None = None
    per_record: bool = False

    def describe(self) -> str:
        """The declaration, in the grammar above (without the meaning)."""
        text = f"list[{self.kind}]" if self.is_list else self.kind
        if self.choices is not None:
            text += " one of " + ", ".join(self.choices)
        elif self.kind in ("int", "float"):
            left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
            text += f" in {left}{_number(self.low)}, {_number(self.high)}{right}"
        text += ", distinct" if self.distinct else ""
        text += f", at most {self.max_items}" if self.max_items != MAX_ITEMS else ""
        if self.bytes_each is not None:
            text += f", {self.bytes_each} bytes each" + (" per record" if self.per_record else "")
        return text

    def check(self, value: object) -> object:
        """The value as it will be passed to the chapter, or :class:`SpecError`."""
        if not self.is_list:
            if isinstance(value, list | tuple):
                raise SpecError(f"takes one {self.kind}, not a list ({_show(value)})")
            return self._check_one(value)
        items = list(value) if isinstance(value, list | tuple) else [value]
        if not items:
            raise SpecError("is an empty list; give at least one value")
        if len(items) > self.max_items:
            raise SpecError(
                f"has {len(items)} values; at most {self.max_items} (each value is one more "
                "pass of the chapter: split a longer list into several runs or a sweep)"
            )
        checked = [self._check_one(item) for item in items]
        if self.distinct:
            repeated = sorted({str(v) for v in checked if checked.count(v) > 1})
            if repeated:
                raise SpecError(f"lists {', '.join(repeated)} more than once")
            if self.kind == "dataset":
                _distinct_names(checked)
        return checked

    def _check_one(self, value: object) -> object:
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise SpecError(f"must be true or false, got {_show(value)}")
            return value
        if self.kind in ("str", "dataset"):
            if not isinstance(value, str):
                raise SpecError(f"must be text, got {_show(value)}")
            if self.kind == "dataset":
                return check_dataset(value)
            if self.choices is not None and value not in self.choices:
                raise SpecError(f"{value!r} is not one of {', '.join(self.choices)}")
            return value
        return self._check_range(self._number(value))

    def _number(self, value: object) -> int | float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SpecError(f"must be {'an integer' if self.kind == 'int' else 'a number'}, "
                            f"got {_show(value)}")  # fmt: skip
        if math.isnan(value):
            raise SpecError("is NaN; give a number")
        if self.kind == "float":
            return float(value)
        if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
            raise SpecError(f"must be an integer, got {_show(value)}")
        return int(value)

    def _check_range(self, value: int | float) -> int | float:
        low_ok = value > self.low if self.low_open else value >= self.low
        high_ok = value < self.high if self.high_open else value <= self.high
        if not (low_ok and high_ok):
            left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
            interval = f"{left}{_number(self.low)}, {_number(self.high)}{right}"
            raise SpecError(f"{_show(value)} is outside {interval}")
        return value


def _number(value: float) -> str:
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if float(value).is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(float(value))


def _show(value: object) -> str:
    if isinstance(value, float):
        return _number(value) if not math.isnan(value) else "nan"
    return repr(value) if isinstance(value, str) else str(value)


def _bound(text: str) -> float:
    try:
        return float(text.replace("_", ""))
    except ValueError as error:
        raise DeclarationError(f"{text!r} is not a number") from error


def parse_declaration(text: str) -> tuple[Spec, str]:
    """``(spec, meaning)`` of a declaration such as ``int in [1, 64]; workers``."""
    body, _, meaning = text.partition(";")
    body = body.strip()
    match = _TYPE.match(body)
    kind = match and (match.group(1) or match.group(2))
    if kind not in KINDS:
        raise DeclarationError(f"{body!r} does not start with a type ({', '.join(KINDS)})")
    fields: dict = {"kind": kind, "is_list": bool(match.group(1))}
    rest = body[match.end() :]
    interval = _INTERVAL.match(rest)
    if interval:
        if kind not in ("int", "float"):
            raise DeclarationError(f"an interval needs a numeric type, not {kind}")
        left, low, high, right = interval.groups()
        fields.update(low=_bound(low), high=_bound(high), low_open=left == "(")
        fields["high_open"] = right == ")"
        rest = rest[interval.end() :]
    elif rest.startswith("one of "):
        words = [w.strip() for w in rest[len("one of ") :].split(",")]
        flag = [w in FLAGS or bool(_AT_MOST.match(w) or _BYTES_EACH.match(w)) for w in words]
        fields["choices"] = tuple(w for w, f in zip(words, flag, strict=True) if not f)
        rest = ", ".join(w for w, f in zip(words, flag, strict=True) if f)
    flags = [f.strip() for f in rest.split(",") if f.strip()]
    known = (_AT_MOST, _BYTES_EACH)
    unknown = [f for f in flags if f not in FLAGS and not any(r.match(f) for r in known)]
    if unknown:
        raise DeclarationError(f"unknown words {unknown} in {body!r}")
    fields["distinct"] = "distinct" in flags
    for flag in flags:
        each = _BYTES_EACH.match(flag)
        if each:
            if kind != "int":
                raise DeclarationError(f"'bytes each' applies to a count (int), not to {kind}")
            fields.update(bytes_each=int(each.group(1)), per_record=bool(each.group(2)))
    for flag in flags:
        if _AT_MOST.match(flag):
            if not fields["is_list"]:
                raise DeclarationError(f"'at most' applies to a list, not to {kind}")
            fields["max_items"] = int(_AT_MOST.match(flag).group(1))
    return Spec(**fields), meaning.strip()


def check_dataset(value: str) -> str:
    """A registered dataset name, or the absolute path of an existing .csv/.parquet file."""
    from dadp_lite.data import DATASETS, DataError, source_path

    if value in DATASETS:
        return value
    path = Path(value).expanduser()
    if path.suffix.lower() not in DATASET_SUFFIXES:
        names = ", ".join(DATASETS)
        raise SpecError(
            f"{value!r} is neither a registered dataset ({names}) nor a .csv or .parquet file"
        )
    if not path.exists():
        raise SpecError(f"dataset file {value} does not exist")
    try:
        source_path(path)  # a folder, a FIFO or a device is refused by what it is
    except DataError as error:
        raise SpecError(str(error)) from None
    return str(path.resolve())


def _distinct_names(values: list[str]) -> None:
    """Refuse two datasets that would carry one name (a chapter keys results by name)."""
    from dadp_lite.data import DataError, dataset_name

    seen: dict[str, str] = {}
    for value in values:
        try:
            name = dataset_name(value)
        except (DataError, OSError) as error:
            raise SpecError(str(error)) from None
        if name in seen:
            raise SpecError(
                f"lists {seen[name]} and {value}, which would both be named {name!r} (a file "
                "is named after its file name, and the chapter keys its results by name); "
                "rename one of the files"
            )
        seen[name] = value
