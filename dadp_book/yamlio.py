"""Strict YAML for everything the book machinery reads: profiles, ``-y`` files, grids, ``-p``.

PyYAML's ``safe_load`` reads YAML 1.1 loosely: a repeated key silently replaces the first
one, ``1e-3`` is text (YAML 1.1 wants ``1.0e-3``), ``yes``/``no``/``on``/``off`` are booleans,
``1:20`` is 80 and ``010`` is 8. Here:

- a repeated key is an error naming the key and both lines;
- numbers are read as a user means them: ``1e-3``, ``-1e-3``, ``2E5`` and ``1.`` are floats,
  integers are decimal (``010`` is 10.0, never octal), ``.inf``/``.nan`` are floats (the
  parameter checks refuse them unless a parameter's declaration allows them);
- only ``true``/``false`` are booleans, and dates stay text;
- a file that is not UTF-8 text (UTF-16, binary) gives a one-line error.
"""

from __future__ import annotations

import codecs
import json
import os
import re
from pathlib import Path

import yaml

from dadp_book.errors import BuildError

__all__ = ["StrictLoader", "dump_yaml", "load_yaml_file", "load_yaml_text", "read_text_file"]

_FLOAT = (
    r"^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_RESOLVERS = (
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^[-+]?(?:0|[1-9][0-9_]*)$", "-+0123456789"),
    ("tag:yaml.org,2002:float", _FLOAT, "-+0123456789."),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", "<"),
)


class DuplicateKeyError(yaml.YAMLError):
    """A mapping lists the same key twice."""


class StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with the resolvers above and duplicate keys refused."""

    yaml_implicit_resolvers: dict = {}

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        first_line: dict = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                earlier = first_line.setdefault(key, line)
            except TypeError:  # an unhashable key: the base class reports it
                continue
            if earlier != line:
                raise DuplicateKeyError(f"duplicate key {key!r} on lines {earlier} and {line}")
        return super().construct_mapping(node, deep)


for _tag, _pattern, _first in _RESOLVERS:
    StrictLoader.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))


def _one_line(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.MarkedYAMLError) and error.problem_mark is not None:
        mark = error.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}"
        return f"{error.problem} ({where})" if error.problem else where
    return " ".join(str(error).split())


def load_yaml_text(text: str, what: str) -> object:
    """Parse ``text`` strictly; ``what`` names it in the one-line error."""
    try:
        return yaml.load(text, Loader=StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as error:
        raise BuildError(f"{what} is not valid YAML: {_one_line(error)}") from error


def read_text_file(path: str | os.PathLike[str], what: str) -> str:
    """The UTF-8 text of ``path``, or a one-line error (missing, folder, UTF-16, binary)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError as error:
        raise BuildError(f"{what} {path} does not exist") from error
    except IsADirectoryError as error:
        raise BuildError(f"{what} {path} is a folder, not a file") from error
    except OSError as error:
        raise BuildError(f"cannot read {what} {path}: {error.strerror}") from error
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise BuildError(f"{what} {path} is UTF-16 text; save it as UTF-8")
    if b"\0" in data:
        raise BuildError(f"{what} {path} is a binary file, not UTF-8 text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BuildError(
            f"{what} {path} is not UTF-8 text (byte {error.start}); save it as UTF-8"
        ) from error


def load_yaml_file(path: str | os.PathLike[str], what: str) -> object:
    """Read and parse a YAML file strictly (see the module docstring)."""
    return load_yaml_text(read_text_file(path, what), f"{what} {path}")


def dump_yaml(content: object) -> str:
    """YAML without anchors or aliases (a JSON round trip unshares repeated lists)."""
    return yaml.safe_dump(json.loads(json.dumps(content, default=str)), sort_keys=False)
