"""How a chart reaches the page: a ``<div>`` and an inline ``<script>`` calling the book's
local ``vegaEmbed`` (no external source), and the Vega bundle the book serves."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import altair as alt

__all__ = [
    "BUNDLE_NAME",
    "CHART_CLASS",
    "STYLE_NAME",
    "InteractiveChart",
    "bundle_version",
    "write_bundle",
]

#: File name of the JavaScript bundle in the book's ``_static`` folder.
BUNDLE_NAME = "dadp-vega.js"
#: File name of the charts' style sheet, ``_static/dadp-charts.css`` in the book's sources.
STYLE_NAME = "dadp-charts.css"
#: CSS class of the ``<div>`` holding a chart (the Sphinx extension looks for it).
CHART_CLASS = "dadp-chart"
_MISSING_BUNDLE = (
    "This interactive chart needs the Vega bundle the book serves (_static/dadp-vega.js); "
    "pages built by dadp-book build or dadp-book run load it. The static figure above "
    "shows the same numbers."
)


@dataclass(frozen=True)
class InteractiveChart:
    """A Vega-Lite chart displayed as HTML that uses the book's local ``vegaEmbed``."""

    chart: alt.TopLevelMixin

    def to_dict(self) -> dict:
        """The Vega-Lite specification (data inline)."""
        return self.chart.to_dict()

    def to_html(self) -> str:
        """A ``<div>`` and an inline ``<script>`` embedding the chart; no external source.

        Vega gives the ``<div>`` the role ``graphics-document`` and the chart's
        ``description`` as its accessible name. A tap on a touch screen shows the tooltip
        of the point under the finger (a phone has no hover)."""
        # keys in the spec's own order: a tooltip lists its fields as written (the plotted
        # value first), not alphabetically
        code = json.dumps(self.to_dict(), separators=(",", ":"))
        code = code.replace("</", "<\\/")  # never close the <script> early
        key = hashlib.sha1(code.encode()).hexdigest()[:12]
        note = json.dumps(_MISSING_BUNDLE)
        return (
            f'<div class="{CHART_CLASS}" data-chart="{key}"></div>\n'
            "<script>\n(function () {\n"
            "  var el = document.currentScript.previousElementSibling;\n"
            f"  var spec = {code};\n"
            "  el.dadpSpec = spec;\n"
            "  function draw() {\n"
            f"    if (!window.vegaEmbed) {{ el.textContent = {note}; return; }}\n"
            '    vegaEmbed(el, spec, {actions: false, renderer: "svg"}).then(function (r) {\n'
            "      el.dadpView = r.view;\n"
            "    }).catch(function (e) { console.error(e); });\n"
            "    // a tap on a phone shows the point's tooltip, as hovering does\n"
            '    el.addEventListener("pointerup", function (e) {\n'
            '      if (e.pointerType !== "touch") return;\n'
            "      var at = {clientX: e.clientX, clientY: e.clientY, bubbles: true,\n"
            "                view: window};\n"
            '      e.target.dispatchEvent(new PointerEvent("pointermove",\n'
            '        Object.assign({pointerType: "mouse"}, at)));\n'
            '      e.target.dispatchEvent(new MouseEvent("mousemove", at));\n'
            "    });\n"
            "  }\n"
            '  if (window.vegaEmbed || document.readyState === "complete") { draw(); }\n'
            '  else { window.addEventListener("load", draw); }\n'
            "})();\n</script>\n"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/html": self.to_html(), "text/plain": "<interactive chart (HTML)>"}


def bundle_version() -> str:
    """The Vega-Lite version of the bundle: the newest that vl-convert offers for Altair's
    major version (Altair's schema ``v6.4.1`` -> ``"6.4"``)."""
    import vl_convert

    major, minor = (int(p) for p in alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    offered = [tuple(int(p) for p in v.split(".")) for v in vl_convert.get_vegalite_versions()]
    fitting = [v for v in offered if v[0] == major and v[1] <= minor] or [
        v for v in offered if v[0] == major
    ]
    if not fitting:
        raise RuntimeError(f"vl-convert offers no Vega-Lite {major}.x (Altair {alt.__version__})")
    return "{}.{}".format(*max(fitting))


def write_bundle(folder: Path) -> Path:
    """Write :data:`BUNDLE_NAME` (Vega, Vega-Lite, Vega-Embed; no network access at run
    time) into ``folder``; a bundle of the same versions already there is kept. Returns
    the bundle's path. (The charts' style sheet is a source file: ``_static/``.)"""
    import vl_convert

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / BUNDLE_NAME
    version = bundle_version()
    stamp = f"/* dadp-book: vl-convert {vl_convert.__version__}, Vega-Lite {version} */\n"
    if target.is_file():
        with target.open() as handle:
            if handle.readline() == stamp:
                return target
    code = vl_convert.javascript_bundle(vl_version=f"v{version}")
    # One function scope: the bundle's top-level names must not clash with other scripts.
    text = stamp + "(function () {\n" + code + "\n})();\n"
    partial = target.with_suffix(".tmp")
    partial.write_text(text)
    partial.replace(target)
    return target
