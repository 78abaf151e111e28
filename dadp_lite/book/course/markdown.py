"""MyST text of an exercise -> Markdown that plain Jupyter renders.

Jupyter shows ``$...$`` math and Markdown but not MyST roles. Cross-references become
plain words that name what the book links to (the chapter is beside the notebook in the
book), ``{math}`` becomes ``$...$``, and a glued number becomes a pointer to the chapter,
where it is computed.
"""

from __future__ import annotations

import re

__all__ = ["to_jupyter_markdown"]

_ROLE = re.compile(r"\{(?P<role>[a-z:]+)\}`(?P<body>[^`]*)`")
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
_NAMES = {
    "eq": "equation",
    "numref": "figure",
    "prf:ref": "result",
    "ref": "section",
    "doc": "page",
}


def _role(match: re.Match[str]) -> str:
    role, body = match["role"], match["body"]
    if role == "math":
        return f"${body}$"
    if role.startswith("glue"):
        return "*(the value computed in the chapter)*"
    if role.startswith("cite"):
        return "(see the chapter's references)"
    explicit = _EXPLICIT.match(body)
    if explicit and explicit["text"]:
        return explicit["text"]
    if role in _NAMES:
        target = explicit["target"] if explicit else body
        return f"({_NAMES[role]} `{target}` in the chapter)"
    return body


def to_jupyter_markdown(text: str) -> str:
    """``text`` with every MyST role replaced by something plain Jupyter renders."""
    return _ROLE.sub(_role, text)
