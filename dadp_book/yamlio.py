"""Strict YAML for everything the book machinery reads: profiles, ``-y`` files, grids, ``-p``.

PyYAML's ``safe_load`` reads YAML 1.1 loosely (a repeated key replaces the first one,
``1e-3`` is text, ``yes`` is true, ``1:20`` is 80, ``010`` is 8). :class:`StrictLoader`
reads them as a user means them, and input is bounded before it is parsed; the rules are
book/reproducibility.md's ("YAML"). Each refusal is one line naming the file (or value)
and what to do.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat

import yaml

from dadp_book.errors import BuildError

__all__ = ["MAX_BYTES", "MAX_DEPTH", "StrictLoader", "dump_yaml", "load_yaml_file",
           "load_yaml_text", "read_text_file"]  # fmt: skip

#: Largest YAML text read (a profile, a ``-y`` file, a grid, a ``-p`` value): 1 MiB, parsed
#: in a few seconds; a list may hold at most 100 values anyway (:mod:`dadp_book.spec`).
MAX_BYTES = 1 << 20
#: Deepest nesting of lists and mappings (a parameter value nests two levels, a grid three).
MAX_DEPTH = 20

_FLOAT = (
    r"^(?:[-+]?(?:[0-9]+)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.[0-9]+(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_RESOLVERS = (
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^[-+]?(?:0|[1-9][0-9]*)$", "-+0123456789"),
    ("tag:yaml.org,2002:float", _FLOAT, "-+0123456789."),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", "<"),
)


class BoundError(yaml.YAMLError):
    """YAML that the bounds refuse (an alias, a merge key, deep nesting)."""


class StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with the resolvers above, duplicate keys, aliases and merge
    keys refused, and nesting bounded by :data:`MAX_DEPTH`."""

    yaml_implicit_resolvers: dict = {}

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            line = event.start_mark.line + 1
            raise BoundError(
                f"an alias (*{event.anchor}) on line {line}: aliases are not accepted "
                "(they can expand to gigabytes); write the value out"
            )
        if self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent):
            if self._depth >= MAX_DEPTH:
                line = self.peek_event().start_mark.line + 1
                raise BoundError(f"nests deeper than {MAX_DEPTH} levels (line {line})")
            self._depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1
        return super().compose_node(parent, index)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        first_line: dict = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                line = key_node.start_mark.line + 1
                raise BoundError(
                    f"a merge key (<<) on line {line}: merge keys are not accepted; "
                    "write the keys out"
                )
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                earlier = first_line.setdefault(key, line)
            except TypeError:  # an unhashable key: the base class reports it
                continue
            if earlier != line:
                raise yaml.YAMLError(f"duplicate key {key!r} on lines {earlier} and {line}")
        return super().construct_mapping(node, deep)


for _tag, _pattern, _first in _RESOLVERS:
    StrictLoader.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))


def _one_line(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.MarkedYAMLError) and error.problem_mark is not None:
        mark = error.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}"
        return f"{error.problem} ({where})" if error.problem else where
    return " ".join(str(error).split())


def _size(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB" if size >= 1 << 20 else f"{size:,} bytes"


def load_yaml_text(text: str, what: str) -> object:
    """Parse ``text`` strictly; ``what`` names it in the one-line error."""
    size = len(text.encode("utf-8", "surrogateescape"))
    if size > MAX_BYTES:
        raise BuildError(
            f"{what} is {_size(size)}; YAML input is at most {_size(MAX_BYTES)} (split it, "
            "or run a sweep)"
        )
    try:
        return yaml.load(text, Loader=StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except BoundError as error:
        raise BuildError(f"{what} is refused: {error}") from None
    except yaml.YAMLError as error:
        raise BuildError(f"{what} is not valid YAML: {_one_line(error)}") from error
    except RecursionError:  # bounded above; kept so that no traceback can escape
        raise BuildError(f"{what} nests too deeply") from None


#: What a file that is not a regular file is, by its mode.
_SPECIAL = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def read_text_file(path: str | os.PathLike[str], what: str) -> str:
    """The UTF-8 text of ``path``, or a one-line error (missing, folder, special file, too
    large, UTF-16, binary). A file that is not a regular file is never opened."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError as error:
        raise BuildError(f"{what} {path} does not exist") from error
    except OSError as error:
        raise BuildError(f"cannot read {what} {path}: {error.strerror}") from error
    if stat.S_ISDIR(mode):
        raise BuildError(f"{what} {path} is a folder, not a file")
    if not stat.S_ISREG(mode):
        kind = next((k for test, k in _SPECIAL if test(mode)), "not a regular file")
        raise BuildError(f"{what} {path} is {kind}, not a regular file; give a YAML file")
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        raise BuildError(f"cannot read {what} {path}: {error.strerror}") from error
    if len(data) > MAX_BYTES:
        size = max(os.stat(path).st_size, len(data))
        raise BuildError(
            f"{what} {path} is {_size(size)}; a YAML file is at most {_size(MAX_BYTES)} "
            "(split it, or run a sweep)"
        )
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
