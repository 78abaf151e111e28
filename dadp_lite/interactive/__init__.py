"""Interactive versions of the sweep figures: Vega-Lite charts (through Altair) for the HTML book.

A chapter draws its static matplotlib figure (for print and the PDF), then hands the same
tidy DataFrame to :func:`sweep_chart`, which returns an :class:`InteractiveChart`: one line
per series (a registry mechanism, in its registry colour and label, told apart by marker
shape as well), its interval as a band, dropdowns for the dimensions the figure varies
(dataset, epsilon, variant, mechanism...), dashed reference curves (exact values), crosses
for the paper's printed values, grey yardsticks, and a tooltip on every point giving its
value, interval, references and the paper's value (a missing value is left out, or said in
words). Rows with no value in a control's column (a traditional method has no epsilon) are
shown whatever the control says. The chart fills its column (``width="container"``), its
legends fold to one column on a phone, and it has a title and a description for screen
readers.

The chart reaches the page as an HTML ``<div>`` and an inline ``<script>`` that calls
``vegaEmbed``. Nothing is fetched from a CDN: the JavaScript (Vega, Vega-Lite, Vega-Embed)
is the self-contained bundle of ``vl-convert``, which :func:`write_bundle` writes as
``_static/dadp-vega.js`` when the book is rendered (``dadp_book.sphinx_ext`` adds it,
and the style sheet ``_static/dadp-charts.css``, to the pages that hold a chart). A chapter
executed elsewhere (Jupyter) shows a note in place of the chart unless ``vegaEmbed`` is
loaded. :attr:`InteractiveChart.chart` gives the Altair object for any other renderer.

:func:`epsilon_explorable` (:mod:`.explorable`) is the other kind: an epsilon slider over a
table of exact values, for the argument of chapter 12.

The work is split by job: :mod:`.options` (the settings, checked), :mod:`.data` (the rows
the page carries and their tooltips), :mod:`.encodings`, :mod:`.controls`, :mod:`.layers`
and :mod:`.embed` (the HTML and the bundle).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping
from typing import Any

import altair as alt
import pandas as pd

from dadp_lite.interactive.controls import controls
from dadp_lite.interactive.data import ChartData, chart_data, frame_of
from dadp_lite.interactive.embed import (
    BUNDLE_NAME,
    CHART_CLASS,
    STYLE_NAME,
    InteractiveChart,
    bundle_version,
    write_bundle,
)
from dadp_lite.interactive.encodings import NARROW, encodings
from dadp_lite.interactive.explorable import EXPLORABLE_CLASS, Explorable, epsilon_explorable
from dadp_lite.interactive.layers import layers
from dadp_lite.interactive.options import SweepOptions

__all__ = [
    "BUNDLE_NAME",
    "CHART_CLASS",
    "EXPLORABLE_CLASS",
    "FONT_PX",
    "STYLE_NAME",
    "Explorable",
    "epsilon_explorable",
    "InteractiveChart",
    "SweepOptions",
    "bundle_version",
    "sweep_chart",
    "write_bundle",
]

#: Characters per line of a chart's title on a phone (fits 390 px).
TITLE_WIDTH = 40
#: The size in px of every text of a chart (title, subtitle, axis labels and titles,
#: legend): the body text's. A chart fills its column and is never scaled down.
FONT_PX = 16


def sweep_chart(
    data: pd.DataFrame | Mapping[str, pd.DataFrame], **settings: Any
) -> InteractiveChart:
    """An interactive line chart of ``y`` against ``x``, one line per series.

    ``data`` is a tidy DataFrame, or a mapping dataset name -> DataFrame (a ``dataset``
    column is added where missing). ``settings`` are the fields of :class:`SweepOptions`
    (``x`` and ``y`` required; ``se`` or ``interval``, ``series``, ``controls``,
    ``references``, ``printed``, ``rules``, titles, scales...). Bad settings raise
    ``ValueError`` (``TypeError`` for a name that is not a setting).
    """
    options = SweepOptions(**settings)
    rows = chart_data(frame_of(data), options)
    enc = encodings(rows, options)
    ctl = controls(rows, options)
    base = alt.Chart(alt.InlineData(values=rows.rows)).transform_filter(ctl.filter)
    chart = alt.layer(*layers(base, enc, options.has_interval)).add_params(*ctl.params)
    return InteractiveChart(_dressed(chart, rows, options))


def _wrapped(text: str) -> alt.ExprRef:
    """``text`` on one line, or on lines of :data:`TITLE_WIDTH` characters on a phone."""
    lines = json.dumps(textwrap.wrap(text, TITLE_WIDTH))
    return alt.ExprRef(f"width < {NARROW} ? {lines} : {json.dumps(text)}")


def _title(options: SweepOptions) -> alt.TitleParams:
    text = options.title or f"{options.y_label} against {options.x_label}"
    notes = "crosses: the paper's printed values" if options.printed else ""
    return alt.TitleParams(
        text=_wrapped(text),
        subtitle=notes or alt.Undefined,  # short: fits a phone
        anchor="start",
        fontSize=FONT_PX,
        fontWeight="normal",
        subtitleFontSize=FONT_PX,
    )


def describe(rows: ChartData, options: SweepOptions) -> str:
    """The sentence a screen reader says for the chart (unless ``description`` is given)."""
    if options.description:
        return options.description
    scales = [f"{a} on a log scale" for a, s in (("x", options.x_scale), ("y", options.y_scale))
              if s == "log"]  # fmt: skip
    parts = [
        f"Interactive line chart of {options.y_label} against {options.x_label}"
        + (f" ({', '.join(scales)})" if scales else ""),
        f"one line per series: {', '.join(rows.series)}",
    ]
    if options.has_interval:
        parts.append(f"a shaded band gives the {options.band_label}")
    if options.references or options.rules:
        dashed = [*options.references.values(), *options.rules.values()]
        parts.append(f"dashed lines: {', '.join(dashed)}")
    if options.printed:
        parts.append("crosses: the paper's printed values")
    if options.controls:
        parts.append(f"dropdowns choose the {', '.join(options.controls)}")
    return "; ".join(parts) + ". Hover or focus a point for its values."


def _dressed(chart: alt.LayerChart, rows: ChartData, options: SweepOptions) -> alt.LayerChart:
    """Size, title, description and the book's look."""
    return (
        chart.properties(
            width=options.width,
            height=options.height,
            title=_title(options),
            description=describe(rows, options),
            autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
        )
        .resolve_scale(color="shared", strokeDash="shared", shape="shared")
        .configure(background="white", padding=8)
        .configure_view(stroke=None)
        .configure_axis(
            grid=True,
            gridOpacity=0.4,
            labelFontSize=FONT_PX,
            titleFontSize=FONT_PX,
            titleFontWeight="normal",
        )  # fmt: skip
        .configure_legend(labelFontSize=FONT_PX, titleFontSize=FONT_PX)
    )
