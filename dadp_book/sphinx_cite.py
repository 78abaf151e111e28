"""How to cite the book, in every page's footer (set up by :mod:`dadp_book.sphinx_ext`).

A folded block, "How to cite this book", in the theme's footer (the ``extra_footer`` of
sphinx-book-theme, shown on every page, the indexes and the search page included): the
reference as plain text and as BibTeX, with the version of the package and the build's
date, the licence, and a link to the repository only where ``_config.yml`` names one.

The date is the day the book's results were computed (``stage_book`` writes it into
:data:`BUILD_INFO`), so an unchanged book renders the same footer; without that file
(a book built by Jupyter Book alone) it is the day of the build.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import re
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["BUILD_INFO", "CITE_CLASS", "add_citation", "bibtex", "citation_html", "plain"]

#: The file beside the staged config that holds the build's date and profile.
BUILD_INFO = "_dadp_build.json"
#: The class of the block (tests/test_browser.py looks for it on every page).
CITE_CLASS = "dadp-cite"
#: The distribution whose version and licence the block states.
DISTRIBUTION = "dadp-lite"


def _package(field: str, default: str) -> str:
    try:
        if field == "Version":
            return metadata.version(DISTRIBUTION)
        return metadata.metadata(DISTRIBUTION).get(field) or default
    except metadata.PackageNotFoundError:
        return default


def plain(info: dict) -> str:
    """The reference as one line of text."""
    text = f"{info['author']} ({info['year']}). {info['title']}. Version {info['version']}"
    text += f", built {info['date']}"
    if info.get("profile"):
        text += f" (profile {info['profile']})"
    return text + (f". {info['url']}" if info.get("url") else ".")


def bibtex(info: dict) -> str:
    """The reference as a BibTeX ``@book`` entry."""
    note = f"Version {info['version']}, built {info['date']}"
    if info.get("profile"):
        note += f", profile {info['profile']}"
    fields = [
        ("title", "{" + info["title"] + "}"),
        ("author", "{" + info["author"] + "}"),
        ("year", info["year"]),
        ("version", info["version"]),
        ("note", note),
    ]
    if info.get("url"):
        fields.append(("url", info["url"]))
    body = ",\n".join(f"  {name:<7} = {{{value}}}" for name, value in fields)
    return f"@book{{dadp_book_{info['year']},\n{body}\n}}"


def citation_html(info: dict) -> str:
    """The footer block: a ``<details>`` holding the plain reference, the BibTeX entry,
    the licence and (where configured) the repository."""
    esc = html.escape
    parts = [
        f'<details class="{CITE_CLASS}"><summary>How to cite this book</summary>',
        f'<p class="{CITE_CLASS}-text">{esc(plain(info))}</p>',
        f'<pre class="{CITE_CLASS}-bibtex" tabindex="0" aria-label="BibTeX entry">'
        f"{esc(bibtex(info))}</pre>",
        f"<p>Licence: {esc(info['licence'])}.",
    ]
    if info.get("url"):
        url = esc(info["url"], quote=True)
        parts.append(f' Source: <a href="{url}">{esc(info["url"])}</a>.')
    parts.append("</p></details>")
    return "".join(parts)


def _build_info(srcdir: Path) -> dict:
    path = srcdir / BUILD_INFO
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _repository(srcdir: Path) -> str:
    """The repository ``_config.yml`` names (``repository: url:``), or "" where it names
    none (Jupyter Book then fills in its own repository, which is not the book's)."""
    import yaml

    try:
        config = yaml.safe_load((srcdir / "_config.yml").read_text()) or {}
    except (OSError, yaml.YAMLError):
        return ""
    url = str((config.get("repository") or {}).get("url") or "").strip()
    return url if re.match(r"https?://\S+$", url) else ""


#: What Sphinx calls a project whose configuration names none.
_NO_NAME = "Project name not set"


def add_citation(app: Any, config: Any) -> None:
    """Put :func:`citation_html` into the theme's ``extra_footer`` (after what the book's
    config puts there)."""
    built = _build_info(Path(app.srcdir))
    date = str(built.get("date") or _dt.date.today().isoformat())[:10]
    info = {
        "title": next(
            (str(t) for t in (config.html_title, config.project) if t and str(t) != _NO_NAME),
            "dadp-book",
        ),
        "author": str(config.author or "dadp-book contributors"),
        "year": date[:4],
        "version": _package("Version", str(config.release or config.version or "")),
        "date": date,
        "profile": built.get("profile") or "",
        "licence": _package("License", "see the repository"),
        "url": _repository(Path(app.srcdir)),
    }
    options = dict(config.html_theme_options or {})
    options["extra_footer"] = str(options.get("extra_footer") or "") + citation_html(info)
    config.html_theme_options = options


def setup(app: Any) -> dict:
    app.connect("config-inited", add_citation)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
