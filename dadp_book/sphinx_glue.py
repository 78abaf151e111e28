"""Sphinx extension: every glued text carries its glue key in the HTML.

``{glue:text}`key``` renders as ``<span class="pasted-text glued glue-key-<key>">``, so a
test of the built book can find, on every page, the text each key shows: a finding's
numbers must read the same on its chapter, the errata page and the landing page
(``tests/test_errata.py``). Listed in ``_config.yml`` after ``myst_nb``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GLUE_CLASS", "key_class", "setup"]

#: Class of every glued text.
GLUE_CLASS = "glued"


def key_class(key: str) -> str:
    """The class that names a glue key in the HTML (``glue-key-`` and the key)."""
    return f"glue-key-{key}"


def _keyed_role() -> Any:
    from myst_nb.ext.glue.roles import PasteTextRole

    class KeyedPasteTextRole(PasteTextRole):
        """myst-nb's ``glue:text`` role, with the key added to the node's classes."""

        def run(self):  # type: ignore[no-untyped-def]
            nodes, messages = super().run()
            key = self.text.split(":", 1)[0].split("::")[-1]
            for node in nodes:
                if "pasted-text" in node.get("classes", []):
                    node["classes"] += [GLUE_CLASS, key_class(key)]
            return nodes, messages

    return KeyedPasteTextRole()


def setup(app: Any) -> dict:
    """Replace the ``glue:text`` role of myst-nb's ``glue`` domain."""
    app.add_role_to_domain("glue", "text", _keyed_role(), override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
