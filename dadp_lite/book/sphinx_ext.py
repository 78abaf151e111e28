"""Sphinx extension for dadp-book's HTML (listed in ``_config.yml`` extra_extensions).

Inline scripts registered twice (sphinx-thebe's configuration ``<script>`` is added once
with filename ``None`` and once with ``""``, which Sphinx does not recognise as the same
asset) make the browser throw "Identifier 'THEBE_JS_URL' has already been declared" on
every page. This extension drops such duplicates from each page's script list, so the
built pages load without console errors (checked by tests/test_browser.py).
"""

from __future__ import annotations

from typing import Any

__all__ = ["setup"]


def _asset_key(script: Any) -> tuple:
    filename = getattr(script, "filename", script) or ""
    attributes = getattr(script, "attributes", {}) or {}
    return str(filename), tuple(sorted((str(k), str(v)) for k, v in attributes.items()))


def dedupe_scripts(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """Keep the first of identical ``<script>`` assets (same file, same attributes)."""
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    seen: set[tuple] = set()
    unique = []
    for script in scripts:
        key = _asset_key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    scripts[:] = unique


def setup(app: Any) -> dict:
    """Register :func:`dedupe_scripts` (late, after every extension added its scripts)."""
    app.connect("html-page-context", dedupe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
