"""Hover and tap previews, offline (set up by :mod:`dadp_book.sphinx_ext`).

sphinx-tippy collects, at build time, the HTML of every target a page links to (glossary
terms, theorems and definitions, equations, figures, tables, citations, sections) and
writes one small script per page; tippy.js shows it as a preview. Nothing is fetched: the
extension's Wikipedia and DOI look-ups are off, and tippy.js and Popper are served from the
book (``dadp_book/static/vendor``, copied into ``_static/vendor``), never from a CDN.

On a screen without hover (a phone), ``dadp-tips.js`` makes the first tap on a link with a
preview show the preview instead of following the link; a second tap follows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["STATIC", "TIPPY_JS", "TIPS_SCRIPT", "configure_tips", "setup"]

#: Files served from the book: ``dadp-tips.js`` and the vendored tippy.js and Popper.
STATIC = Path(__file__).with_name("static")
#: The vendored scripts, in load order (Popper first), relative to ``_static``.
TIPPY_JS = ("vendor/popper-2.11.8.min.js", "vendor/tippy-6.3.7.min.js")
#: The script that gives previews to taps on a touch screen.
TIPS_SCRIPT = "dadp-tips.js"
#: What a preview may show: sphinx-tippy's defaults and bibliography entries.
TIP_SELECTOR = (
    "figure, table, img, p, aside, div.admonition, div.literal-block-wrapper, div.citation"
)
#: sphinx-tippy's settings for the book: no network, previews only inside the article,
#: maths typeset in the preview.
SETTINGS = {
    "tippy_js": list(TIPPY_JS),
    "tippy_enable_wikitips": False,
    "tippy_enable_doitips": False,
    "tippy_rtd_urls": [],
    "tippy_enable_mathjax": True,
    "tippy_anchor_parent_selector": "article.bd-article",
    "tippy_tip_selector": TIP_SELECTOR,
    "tippy_props": {"placement": "auto-start", "maxWidth": 420, "delay": [150, 80]},
    "tippy_add_class": "dadp-has-tip",
}


def configure_tips(app: Any, config: Any) -> None:
    """Serve :data:`STATIC`; give sphinx-tippy each of :data:`SETTINGS` that the book's
    config does not set itself. A ``tippy_js`` that loads from another host is refused."""
    if str(STATIC) not in config.html_static_path:
        config.html_static_path.append(str(STATIC))
    for name, value in SETTINGS.items():
        if name not in config._raw_config:
            config[name] = value
    remote = [js for js in config.tippy_js if "//" in str(js)]
    if remote:
        from sphinx.errors import ConfigError

        raise ConfigError(f"tippy_js must be served from the book, not {remote}")


def glossary_tips(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """A glossary term's preview holds its definition also when synonyms share it.

    sphinx-tippy previews a ``<dt>`` with the ``<dd>`` right after it, so of the terms
    that share one definition (several ``<dt>`` before one ``<dd>``) only the last had it.
    Runs after sphinx-tippy collected the page (priority 460 > 450)."""
    pages = getattr(app.env, "tippy_data", {}).get("pages", {})
    tips = pages.get(pagename, {}).get("id_to_html")
    body = context.get("body") or ""
    if tips is None or "glossary" not in body:
        return
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(body, "html.parser")
    for listing in soup.select("dl.glossary"):
        group: list = []
        for item in listing.find_all(["dt", "dd"], recursive=False):
            if item.name == "dt":
                group.append(item)
                continue
            for term in group:
                if term.get("id"):
                    heads = "".join(str(_bare(t)) for t in group)
                    tips[str(term["id"])] = heads + str(_bare(item))
            group = []


def _bare(tag: Any) -> Any:
    """A copy without its ids (the page holds them already) and permalinks."""
    copy = tag.__copy__()
    for link in copy.select("a.headerlink"):
        link.decompose()
    for node in [copy, *copy.find_all(id=True)]:
        node.attrs.pop("id", None)
    return copy


def add_tips_script(app: Any) -> None:
    """Every HTML page loads :data:`TIPS_SCRIPT` (after tippy.js, deferred)."""
    if getattr(app.builder, "format", None) == "html":
        app.add_js_file(TIPS_SCRIPT, loading_method="defer")


def setup(app: Any) -> dict:
    app.setup_extension("sphinx_tippy")
    app.connect("config-inited", configure_tips)
    app.connect("builder-inited", add_tips_script)
    app.connect("html-page-context", glossary_tips, priority=460)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
