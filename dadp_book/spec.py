"""Parameter types and ranges: the declaration grammar, checked through pydantic.

A declaration is the trailing comment of a parameter's line in a chapter's ``parameters``
cell, or a vocabulary entry (:mod:`dadp_book.parameters`): ``# int in [1, 64]; workers``.
Its grammar and rules are book/reproducibility.md's ("Parameter types and ranges"). Each
declaration becomes a pydantic type (:func:`_adapter`: strict types, the interval as
bounds, the choices as a ``Literal``, a list's length), whose first error is said in the
words of those rules (:meth:`Spec.check`).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, Strict, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from dadp_lite.data import DATASETS, DataError, dataset_name, source_path

__all__ = ["MAX_ITEMS", "DeclarationError", "Spec", "SpecError", "check_dataset",
           "parse_declaration"]  # fmt: skip

KINDS = ("int", "float", "str", "bool", "dataset")
#: Values a list may hold unless its declaration allows more (``at most N``): each value of
#: a list is usually one more pass of the chapter's experiments.
MAX_ITEMS = 100
DATASET_SUFFIXES = (".csv", ".parquet")
#: The grammar (choices end where the flags begin).
_GRAMMAR = re.compile(
    r"""^(?:list\[(?P<item>\w+)\]|(?P<kind>\w+))
    (?:\s+in\s*(?P<left>[\[(])\s*(?P<low>[^,\s]+)\s*,\s*(?P<high>[^\])\s]+)\s*(?P<right>[\])])
      |\s+one\ of\s+(?P<choices>[^,]+?(?:,[^,]+?)*?))?
    (?P<flags>(?:\s*,\s*(?:distinct|non-empty|at\ most\ \d+|\d+\ bytes\ each(?:\ per\ record)?))*)
    \s*$""",
    re.VERBOSE,
)


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
        """The declaration, in its grammar (without the meaning)."""
        text = f"list[{self.kind}]" if self.is_list else self.kind
        if self.choices is not None:
            text += " one of " + ", ".join(self.choices)
        elif self.kind in ("int", "float"):
            text += f" in {self.interval()}"
        text += ", distinct" if self.distinct else ""
        text += f", at most {self.max_items}" if self.max_items != MAX_ITEMS else ""
        if self.bytes_each is not None:
            text += f", {self.bytes_each} bytes each" + (" per record" if self.per_record else "")
        return text

    def interval(self) -> str:
        """The allowed numbers, as declared: ``[0.001, 100]``, ``(0, inf)``."""
        left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
        return f"{left}{_number(self.low)}, {_number(self.high)}{right}"

    def check(self, value: object) -> object:
        """The value as it will be passed to the chapter, or :class:`SpecError` saying why."""
        if not self.is_list and isinstance(value, list | tuple):
            raise SpecError(f"takes one {self.kind}, not a list ({_show(value)})")
        try:
            return _adapter(self).validate_python(value)
        except ValidationError as error:
            raise SpecError(self._message(error.errors()[0])) from None

    def _message(self, error: ErrorDetails) -> str:
        kind, value = error["type"], error["input"]
        if isinstance(value, float) and math.isnan(value):
            return "is NaN; give a number"
        if kind == "too_short":
            return "is an empty list; give at least one value"
        if kind == "too_long":
            return (
                f"has {len(value)} values; at most {self.max_items} (each value is one more "
                "pass of the chapter: split a longer list into several runs or a sweep)"
            )
        if kind == "value_error":  # check_dataset, _distinct_names, _distinct
            return str(error.get("ctx", {})["error"])
        if kind == "literal_error" and isinstance(value, str):
            return f"{value!r} is not one of {', '.join(self.choices or ())}"
        if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
            return f"{_show(value)} is outside {self.interval()}"
        wanted = {"int": "an integer", "float": "a number", "bool": "true or false"}
        return f"must be {wanted.get(self.kind, 'text')}, got {_show(value)}"


def _whole(value: object) -> object:
    """A float that is a whole number, as an int (YAML reads ``1e3`` as 1000.0)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _as_list(value: object) -> object:
    """A single value given for a list is a one-element list."""
    return list(value) if isinstance(value, list | tuple) else [value]


def _distinct(values: list) -> list:
    repeated = sorted({str(v) for v in values if values.count(v) > 1})
    if repeated:
        raise SpecError(f"lists {', '.join(repeated)} more than once")
    return values


@functools.cache
def _adapter(spec: Spec) -> TypeAdapter:
    """The pydantic type of a declaration: strict types (no text for numbers, no booleans
    for integers), the interval, the choices, a list's length and distinct elements."""
    item: Any
    if spec.kind in ("int", "float"):
        bounds: dict[str, Any] = {"gt" if spec.low_open else "ge": spec.low}
        bounds["lt" if spec.high_open else "le"] = spec.high
        if spec.kind == "int":  # whole numbers: an infinite end bounds nothing
            bounds = {k: v for k, v in bounds.items() if math.isfinite(v)}
            item = Annotated[int, Strict(), Field(**bounds), BeforeValidator(_whole)]
        else:  # an infinite value passes only where the interval closes on it
            item = Annotated[float, Strict(), Field(allow_inf_nan=True, **bounds)]
    elif spec.choices is not None:
        item = Literal[spec.choices]
    else:
        checked = [AfterValidator(check_dataset)] if spec.kind == "dataset" else []
        item = Annotated[bool if spec.kind == "bool" else str, Strict(), *checked]
    if spec.is_list:
        after = [AfterValidator(_distinct)] if spec.distinct else []
        if spec.distinct and spec.kind == "dataset":
            after.append(AfterValidator(_distinct_names))
        length = Field(min_length=1, max_length=spec.max_items)
        item = Annotated[list[item], length, BeforeValidator(_as_list), *after]
    return TypeAdapter(item)


def _number(value: float) -> str:
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if float(value).is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(float(value))


def _show(value: object) -> str:
    if isinstance(value, float):
        return _number(value)  # nan too
    return repr(value) if isinstance(value, str) else str(value)


def _bound(text: str) -> float:
    try:
        return float(text.replace("_", ""))
    except ValueError as error:
        raise DeclarationError(f"{text!r} is not a number") from error


def parse_declaration(text: str) -> tuple[Spec, str]:
    """``(spec, meaning)`` of a declaration such as ``int in [1, 64]; workers``."""
    body, _, meaning = text.partition(";")
    found = _GRAMMAR.match(body.strip())
    kind = found and (found["item"] or found["kind"])
    if not found or kind not in KINDS:
        raise DeclarationError(
            f"{body.strip()!r} does not follow the grammar of {__name__}: a type "
            f"({', '.join(KINDS)}, list[...]), then 'in [a, b]' or 'one of x, y', then flags"
        )
    flags = [f.strip() for f in found["flags"].split(",") if f.strip()]
    fields: dict = {"kind": kind, "is_list": bool(found["item"]), "distinct": "distinct" in flags}
    if found["left"]:
        fields.update(low=_bound(found["low"]), high=_bound(found["high"]))
        fields.update(low_open=found["left"] == "(", high_open=found["right"] == ")")
    if found["choices"]:
        fields["choices"] = tuple(word.strip() for word in found["choices"].split(","))
    for flag in flags:
        if flag.startswith("at most "):
            fields["max_items"] = int(flag.split()[-1])
        elif "bytes each" in flag:
            fields.update(bytes_each=int(flag.split()[0]), per_record=flag.endswith("record"))
    misplaced = [
        ("an interval", "a numeric type", found["left"] and kind not in ("int", "float")),
        ("'one of'", "text (str)", found["choices"] and kind != "str"),
        ("'bytes each'", "a count (int)", "bytes_each" in fields and kind != "int"),
        ("'at most'", "a list", "max_items" in fields and not fields["is_list"]),
    ]
    for what, needs, wrong in misplaced:
        if wrong:
            raise DeclarationError(f"{what} applies to {needs}, not to {kind}")
    return Spec(**fields), meaning.strip()


def check_dataset(value: str) -> str:
    """A registered dataset name, or the absolute path of an existing .csv/.parquet file."""
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


def _distinct_names(values: list[str]) -> list[str]:
    """Refuse two datasets that would carry one name (a chapter keys results by name)."""
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
    return values
