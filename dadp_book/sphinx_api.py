"""Sphinx extension for the API reference (``book/api.md``, listed in ``_config.yml``).

The page documents each unit of ``dadp_lite`` (a module or a package) by its ``__all__``
with ``sphinx.ext.autodoc``. Packages re-export names from private modules; this extension
makes autodoc and the strict build handle that:

- a constant's documentation is its ``#:`` comment in the module that defines it, which
  autodoc looks for only in the package it documents: re-exported constants would be left
  out. Here a constant of ``__all__`` takes the comment of its defining module, and its
  value is shown when it fits on a line.
- a constant's comment is prose: napoleon's reading of a first line ``Name: text`` as a
  type and a description does not apply to it.
- a named tuple's fields get no entries of their own (they are in its signature), and a
  dataclass field with a default factory shows ``= ...`` in the signature.
- docstrings name objects where they are defined (``dadp_lite.theory.privacy.neighbours``,
  ``dadp_lite.laplace``, a short name inside its own module): such a reference links to the
  entry that documents the same object, and one to an internal name with no entry (a
  private module, a helper outside ``__all__``) is shown as code. A name that does not
  exist stays an error of the strict build.
"""

from __future__ import annotations

import importlib
import re
import sys
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import PycodeError
from sphinx.ext.autodoc import DataDocumenter, ModuleDocumenter
from sphinx.pycode import ModuleAnalyzer
from sphinx.util.inspect import object_description

__all__ = ["setup"]

PACKAGE = "dadp_lite"
_FIELD_ALIAS = re.compile(r"Alias for field number \d+")
MAX_VALUE = 100  # characters of a constant's value shown on its entry
_MISSING = object()


def _submodules(name: str) -> list[str]:
    return sorted(m for m in list(sys.modules) if m.startswith(name + "."))


def defining_comment(module: Any, name: str) -> list[str] | None:
    """The ``#:`` comment of ``module.name`` in the module that defines it: a submodule of
    ``module``, or another module of the package that holds the same object."""
    value = getattr(module, name, _MISSING)
    for modname in _submodules(module.__name__) + _submodules(PACKAGE):
        if getattr(sys.modules[modname], name, _MISSING) is not value:
            continue
        try:
            analyzer = ModuleAnalyzer.for_module(modname)
            analyzer.analyze()
        except PycodeError:
            continue
        if ("", name) in analyzer.attr_docs:
            return list(analyzer.attr_docs[("", name)])
    return None


class PackageModuleDocumenter(ModuleDocumenter):
    """A module's members, with the constants of its ``__all__`` documented elsewhere."""

    def filter_members(self, members, want_all):  # autodoc's signature
        kept = super().filter_members(members, want_all)
        names = {name for name, _, _ in kept}
        public = set(getattr(self, "__all__", None) or ())
        for member in members:
            name = member.__name__
            if name in public and name not in names and defining_comment(self.object, name):
                kept.append((name, member.object, True))
        return kept


class PackageDataDocumenter(DataDocumenter):
    """A constant, documented by its ``#:`` comment wherever it is defined; its value is
    shown when it fits on a line (a table of datasets or colours is described, not printed)."""

    def should_suppress_value_header(self) -> bool:
        shown = object_description(self.object)
        return len(shown) > MAX_VALUE or super().should_suppress_value_header()

    def get_module_comment(self, attrname: str) -> list[str] | None:
        comment = super().get_module_comment(attrname)
        if comment is None and self.modname in sys.modules:
            comment = defining_comment(sys.modules[self.modname], attrname)
        return comment


def _lookup(path: str) -> object:
    """The object at a dotted path (a module, then attributes), or ``_MISSING``."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            annotated = part in getattr(obj, "__annotations__", {})
            obj = getattr(obj, part, None if annotated else _MISSING)
            if obj is _MISSING:
                return _MISSING
        return obj
    return _MISSING


def _candidates(node: nodes.Element) -> list[str]:
    target = node["reftarget"].lstrip("~.")
    context = node.get("py:module") or ""
    names = [target]
    if context:
        names.append(f"{context}.{target}")
        names += [f"{sub}.{target}" for sub in _submodules(context)]
    return [*names, f"{PACKAGE}.{target}"]


def _documented(app: Sphinx) -> dict[int, str]:
    """``id(object) -> documented name`` of every object the Python domain holds (computed
    once per build, when the first reference is resolved: every page has been read)."""
    cache = getattr(app, "_dadp_api_objects", None)
    if cache is None:
        cache = {}
        for name in sorted(app.env.get_domain("py").objects):
            obj = _lookup(name)
            if obj is not _MISSING and obj is not None:
                cache.setdefault(id(obj), name)
        app._dadp_api_objects = cache
    return cache


def resolve_reference(app: Sphinx, env: Any, node: nodes.Element, contnode: nodes.Element):
    """``missing-reference``: link a ``dadp_lite`` name to the entry of the same object, or
    show an internal name as code; leave names that do not exist to the strict build."""
    if node.get("refdomain") != "py":
        return None
    for name in _candidates(node):
        if not name.startswith(PACKAGE + ".") and name != PACKAGE:
            continue
        obj = _lookup(name)
        if obj is _MISSING:
            continue
        documented = _documented(app).get(id(obj)) if obj is not None else None
        if documented is None:
            return contnode
        return _link(app, env, node, contnode, documented)
    target = node["reftarget"].lstrip("~.")
    if "." not in target:  # a short name: the one entry of that name, if there is one
        same = [n for n in env.get_domain("py").objects if n.endswith(f".{target}")]
        if len(same) == 1:
            return _link(app, env, node, contnode, same[0])
    return None


def _link(app: Sphinx, env: Any, node: nodes.Element, contnode: nodes.Element, name: str):
    domain = env.get_domain("py")
    found = domain.resolve_any_xref(env, node["refdoc"], app.builder, name, node, contnode)
    return found[0][1] if found else contnode


_PROSE_COMMENTS: dict[int, list[str]] = {}


def _keep_comment(app: Sphinx, what: str, name: str, obj: object, options: Any, lines: list):
    """Before napoleon: remember a constant's comment (napoleon would read a first line
    ``Edges: ...`` as ``type: description``)."""
    if what in ("data", "attribute"):
        _PROSE_COMMENTS[id(lines)] = list(lines)


def _restore_comment(app: Sphinx, what: str, name: str, obj: object, options: Any, lines: list):
    """After napoleon: a constant's comment is prose, shown as written."""
    if id(lines) in _PROSE_COMMENTS:
        lines[:] = _PROSE_COMMENTS.pop(id(lines))


def _skip_field_alias(app: Sphinx, what: str, name: str, obj: object, skip: bool, options: Any):
    """A named tuple's fields are in its signature; their generated docstrings ("Alias for
    field number 0") say nothing, so they get no entries."""
    if _FIELD_ALIAS.fullmatch(getattr(obj, "__doc__", None) or ""):
        return True
    return None


def _factory_defaults(
    app: Sphinx, what: str, name: str, obj: object, options: Any, signature, return_annotation
):
    """A dataclass field with a default factory shows ``= ...``: its ``<factory>`` is no
    Python, and Sphinx would print such a signature as raw text."""
    if signature and "<factory>" in signature:
        return signature.replace("<factory>", "..."), return_annotation
    return None


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx.ext.autodoc")
    app.add_autodocumenter(PackageModuleDocumenter, override=True)
    app.add_autodocumenter(PackageDataDocumenter, override=True)
    app.connect("missing-reference", resolve_reference)
    app.connect("autodoc-skip-member", _skip_field_alias)
    app.connect("autodoc-process-signature", _factory_defaults)
    app.connect("autodoc-process-docstring", _keep_comment, priority=100)
    app.connect("autodoc-process-docstring", _restore_comment, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
