"""Sphinx extension for dadp-book's HTML (listed in ``_config.yml`` extra_extensions).

Inline scripts registered twice (sphinx-thebe's configuration ``<script>`` is added once
with filename ``None`` and once with ``""``, which Sphinx does not recognise as the same
asset) make the browser throw "Identifier 'THEBE_JS_URL' has already been declared" on
every page. This extension drops such duplicates from each page's script list, so the
built pages load without console errors (checked by tests/test_browser.py).

It also serves the interactive charts of :mod:`dadp_lite.interactive` offline: when an
HTML build starts it writes vl-convert's self-contained Vega bundle (``dadp-vega.js``) and
the charts' style sheet into a static folder of the build (never committed, never fetched
from a CDN), and each page that holds a chart loads them.

The single-page build of the PDF edition (builder ``singlehtml``) gets every node visitor
registered for ``html`` that it lacks: Sphinx looks up a builder's own visitors first and
falls back to its format's only when it has none, so one extension that registers a
``singlehtml`` visitor hides the ``html`` ones of all others (myst-nb's collapsed cells
would otherwise be "unknown node type").
"""

from __future__ import annotations

from pathlib import Path
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


def write_chart_assets(app: Any) -> None:
    """HTML builds: write the Vega bundle and chart styles into a folder of
    ``html_static_path`` (kept between builds while the versions match)."""
    if getattr(app.builder, "format", None) != "html":
        return
    from dadp_lite.interactive import write_bundle

    folder = Path(app.outdir).parent / "dadp-static"
    write_bundle(folder)
    if str(folder) not in app.config.html_static_path:
        app.config.html_static_path.append(str(folder))


def load_chart_assets(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    """Pages holding an interactive chart load the Vega bundle and the chart styles."""
    from dadp_lite.interactive import BUNDLE_NAME, CHART_CLASS, STYLE_NAME

    if f'class="{CHART_CLASS}"' in (context.get("body") or ""):
        app.add_js_file(BUNDLE_NAME, defer="defer")
        app.add_css_file(STYLE_NAME)


def share_html_visitors(app: Any) -> None:
    """Give an HTML-format builder other than ``html`` the ``html`` visitors it lacks."""
    builder = app.builder
    if builder.name == "html" or builder.format != "html":
        return
    handlers = app.registry.translation_handlers
    own = handlers.setdefault(builder.name, {})
    for node, pair in handlers.get("html", {}).items():
        own.setdefault(node, pair)


def setup(app: Any) -> dict:
    """Register :func:`dedupe_scripts` (late, after every extension added its scripts) and
    the chart assets and :func:`share_html_visitors`."""
    app.connect("builder-inited", write_chart_assets)
    app.connect("html-page-context", load_chart_assets)
    app.connect("html-page-context", dedupe_scripts, priority=900)
    app.connect("builder-inited", share_html_visitors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
