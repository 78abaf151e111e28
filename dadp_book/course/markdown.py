"""MyST text of an exercise -> Markdown that plain Jupyter renders, standing alone.

Jupyter shows ``$...$`` math but not MyST roles, and a student notebook has no chapter
beside it: a reference to an equation or statement of the chapter points to a quotation of
it under the exercise (:func:`labelled_blocks`), a section becomes its title, ``{math}``
becomes ``$...$`` and a glued number a pointer to the chapter.
"""

from __future__ import annotations

import re

__all__ = ["labelled_blocks", "standalone_markdown", "to_jupyter_markdown"]

_ROLE = re.compile(r"\{(?P<role>[a-z:]+)\}`(?P<body>[^`]*)`")
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
_REFERENCES = {"eq", "numref", "prf:ref", "ref", "doc"}
#: A label's prefix names what it labels (``thm-...``, ``eq-...``); other labels say "item".
_KINDS = {"eq": "equation", "fig": "figure", "sec": "section", "ch": "chapter", "ex": "exercise"}
_KINDS |= {"thm": "theorem", "def": "definition", "lem": "lemma", "prop": "proposition"}
_KINDS["rem"] = "remark"
_QUOTED = {"eq", "def", "thm", "prop", "lem"}
_DISPLAY = re.compile(r"^\$\$\s*\n(?P<body>.*?)\n\$\$\s*\((?P<label>[\w-]+)\)\s*$", re.S | re.M)
_DIRECTIVE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{prf:(?P<kind>\w+)\}[ \t]*(?P<title>[^\n]*)\n"
    r"(?P<options>(?::[\w-]+:[^\n]*\n)*)(?P<body>.*?)^(?P=fence)\s*$",
    re.S | re.M,
)
_SECTION = re.compile(r"^\((?P<label>[\w-]+)\)=\s*\n#+\s+(?P<title>[^\n]+)$", re.M)


def labelled_blocks(chapter_text: str) -> dict[str, tuple[str, str]]:
    """``{label: (heading, Markdown)}`` for the chapter's labelled equations and statements."""
    blocks: dict[str, tuple[str, str]] = {}
    for match in _DISPLAY.finditer(chapter_text):
        blocks[match["label"]] = ("Equation", f"$$\n{match['body'].strip()}\n$$")
    for match in _DIRECTIVE.finditer(chapter_text):
        label = re.search(r"^:label:\s*(\S+)", match["options"], re.M)
        if label:
            title = match["title"].strip()
            heading = match["kind"].capitalize() + (f" ({title})" if title else "")
            body = to_jupyter_markdown(match["body"].strip())
            blocks[label[1]] = (heading, body)
    for match in _SECTION.finditer(chapter_text):
        blocks.setdefault(match["label"], ("Section", match["title"].strip()))
    return blocks


def _role(match: re.Match[str], blocks: dict, quoted: list[str]) -> str:
    role, body = match["role"], match["body"]
    if role == "math":
        return f"${body}$"
    if role.startswith("glue"):
        return "*(the value computed in the chapter)*"
    if role.startswith("cite"):
        return "(see the chapter's references)"
    explicit = _EXPLICIT.match(body)
    target = (explicit["target"] if explicit else body).strip()
    prefix = target.split("-", 1)[0]
    if role in _REFERENCES and prefix in _QUOTED and target in blocks:
        if target not in quoted:
            quoted.append(target)
        number = quoted.index(target) + 1
        words = explicit["text"] if explicit and explicit["text"] else _KINDS[prefix]
        return f"{words} [{number}] (quoted below)"
    if explicit and explicit["text"]:
        return explicit["text"]
    if role in _REFERENCES:
        kind = _KINDS.get(prefix, "item")
        if target in blocks and prefix == "sec":
            return f"the chapter's section *{blocks[target][1]}*"
        return f"the chapter's {kind}"
    return body


def to_jupyter_markdown(text: str) -> str:
    """``text`` with every MyST role replaced by something plain Jupyter renders."""
    return _ROLE.sub(lambda m: _role(m, {}, []), text)


def standalone_markdown(text: str, chapter_text: str) -> str:
    """``text`` for a notebook without its chapter: what it cites is quoted under it."""
    blocks = labelled_blocks(chapter_text)
    quoted: list[str] = []
    converted = _ROLE.sub(lambda m: _role(m, blocks, quoted), text)
    for number, label in enumerate(quoted, start=1):
        heading, body = blocks[label]
        lines = [f"**[{number}] {heading}, from the chapter.**", "", *body.splitlines()]
        converted += "\n\n" + "\n".join(f"> {line}" if line else ">" for line in lines)
    return converted
