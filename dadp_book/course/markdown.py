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
_REFERENCES = {"eq", "numref", "prf:ref", "ref", "doc"}
#: A label's prefix names what it labels (``thm-...``, ``eq-...``); other labels say "item".
_KINDS = {
    "eq": "equation",
    "fig": "figure",
    "sec": "section",
    "ch": "chapter",
    "thm": "theorem",
    "def": "definition",
    "lem": "lemma",
    "prop": "proposition",
    "rem": "remark",
    "ex": "exercise",
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
    if role in _REFERENCES:
        target = (explicit["target"] if explicit else body).strip()
        kind = _KINDS.get(target.split("-", 1)[0], "item")
        return f"[{kind} `{target}` in the chapter]"
    return body


def to_jupyter_markdown(text: str) -> str:
    """``text`` with every MyST role replaced by something plain Jupyter renders."""
    return _ROLE.sub(_role, text)
