"""Interactive versions of the sweep figures: Vega-Lite charts (through Altair) for the HTML book.

A chapter draws its static matplotlib figure (for print and the PDF), then hands the same
tidy DataFrame to :func:`sweep_chart`, which returns an :class:`InteractiveChart`: one line
per series (a registry mechanism, in its registry colour and label, told apart by marker
shape), its interval as a band, dropdowns for the dimensions the figure varies (dataset,
epsilon, variant, mechanism...), dashed reference curves (exact values), crosses for the
paper's printed values, horizontal yardsticks, and tooltips giving each point's value and
interval. Rows with no value in a control's column (a traditional method has no epsilon)
are shown whatever the control says.

The chart reaches the page as an HTML ``<div>`` and an inline ``<script>`` that calls
``vegaEmbed``. Nothing is fetched from a CDN: the JavaScript (Vega, Vega-Lite, Vega-Embed)
is the self-contained bundle of ``vl-convert``, which :func:`write_bundle` writes as
``_static/dadp-vega.js`` when the book is rendered (``dadp_lite.book.sphinx_ext`` adds it
to the pages that hold a chart). A chapter executed elsewhere (Jupyter) shows a note in
place of the chart unless ``vegaEmbed`` is loaded; ``dadp-book run`` renders pages with the
bundle. :meth:`InteractiveChart.chart` gives the Altair object for any other renderer.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from dadp_lite.data import dataset_label
from dadp_lite.registry import REGISTRY

__all__ = [
    "BUNDLE_NAME",
    "CHART_CLASS",
    "STYLE_NAME",
    "InteractiveChart",
    "bundle_version",
    "sweep_chart",
    "write_bundle",
]

#: File name of the JavaScript bundle in the book's ``_static`` folder.
BUNDLE_NAME = "dadp-vega.js"
#: File name of the charts' style sheet in ``_static``.
STYLE_NAME = "dadp-charts.css"
#: CSS class of the ``<div>`` holding a chart (the Sphinx extension looks for it).
CHART_CLASS = "dadp-chart"
_STYLE = """/* dadp-book interactive charts: controls above the chart, a white card in dark mode */
.dadp-chart { margin: 0.5rem 0 1rem; overflow-x: auto; }
.dadp-chart.vega-embed { display: flex; flex-direction: column; align-items: flex-start; }
.dadp-chart .vega-bindings { order: -1; display: flex; flex-wrap: wrap; gap: 0.3rem 1.5rem;
  margin: 0 0 0.4rem; font-size: 0.9rem; }
.dadp-chart .vega-bind-name { margin-right: 0.4rem; font-weight: 600; }
.dadp-chart select { padding: 0.1rem 0.3rem; }
"""
_SHAPES = ["circle", "square", "triangle-up", "diamond", "triangle-down", "cross"]
_DASHES = [[1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [1, 3], [10, 4]]
_SIGNIFICANT = 5  # digits kept in the page's data (the tooltips show 4)
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
        """A ``<div>`` and an inline ``<script>`` embedding the chart; no external source."""
        spec = json.dumps(self.to_dict(), separators=(",", ":"), sort_keys=True)
        spec = spec.replace("</", "<\\/")  # never close the <script> early
        key = hashlib.sha1(spec.encode()).hexdigest()[:12]
        note = json.dumps(_MISSING_BUNDLE)
        return (
            f'<div class="{CHART_CLASS}" data-chart="{key}"></div>\n'
            "<script>\n(function () {\n"
            "  var el = document.currentScript.previousElementSibling;\n"
            f"  var spec = {spec};\n"
            "  function draw() {\n"
            f"    if (!window.vegaEmbed) {{ el.textContent = {note}; return; }}\n"
            '    vegaEmbed(el, spec, {actions: false, renderer: "svg"}).then(function (r) {\n'
            "      el.dadpView = r.view;\n"
            "    }).catch(function (e) { console.error(e); });\n"
            "  }\n"
            '  if (window.vegaEmbed || document.readyState === "complete") { draw(); }\n'
            '  else { window.addEventListener("load", draw); }\n'
            "})();\n</script>\n"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/html": self.to_html(), "text/plain": "<interactive chart (HTML)>"}


# ----------------------------------------------------------------------- building
def _round(values: pd.Series) -> pd.Series:
    """Floats to ``_SIGNIFICANT`` significant digits (smaller pages, same tooltips)."""

    def one(v: float) -> float:
        return float(f"{v:.{_SIGNIFICANT}g}") if math.isfinite(v) else float("nan")

    return values.astype(float).map(one)


def _label(column: str, value: Any) -> Any:
    """How a control or series value is shown: registry labels, dataset names, numbers."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if column == "mechanism":
        entry = REGISTRY.get(str(value))
        return entry.label if entry is not None else str(value)
    if column == "dataset":
        return dataset_label(str(value))
    if isinstance(value, np.generic):
        value = value.item()
    return value


def _check_columns(data: pd.DataFrame, needed: Sequence[str]) -> None:
    missing = [c for c in needed if c not in data.columns]
    if missing:
        raise ValueError(
            f"sweep_chart: data has no column {missing[0]!r} (missing: {missing}; "
            f"columns: {list(data.columns)})"
        )


def _frame(data: pd.DataFrame | Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    if isinstance(data, Mapping):
        parts = [
            part if "dataset" in part.columns else part.assign(dataset=name)
            for name, part in data.items()
        ]
        if not parts:
            raise ValueError("sweep_chart: data is an empty mapping")
        return pd.concat(parts, ignore_index=True)
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a DataFrame or a mapping of them, got {type(data)}")
    return data


def _scale(kind: str, **options: Any) -> alt.Scale:
    """An axis scale; linear and symlog ones do not force 0 into the domain."""
    return (
        alt.Scale(type=kind, **options)
        if kind == "log"
        else alt.Scale(type=kind, zero=False, **options)
    )


def _options(values: pd.Series) -> list:
    present = [v for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))]
    unique = list(dict.fromkeys(present))
    if unique and all(isinstance(v, int | float) for v in unique):
        return sorted(unique)
    return unique


def sweep_chart(
    data: pd.DataFrame | Mapping[str, pd.DataFrame],
    *,
    x: str,
    y: str,
    se: str | None = None,
    interval: tuple[str, str] | None = None,
    z: float = 1.0,
    series: str | Sequence[str] = "mechanism",
    controls: Sequence[str] = ("dataset",),
    all_option: Sequence[str] = (),
    references: Mapping[str, str] | None = None,
    printed: str | None = None,
    rules: Mapping[str, str] | None = None,
    colors: Mapping[str, str] | None = None,
    shapes: Mapping[str, str] | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    x_scale: str = "linear",
    y_scale: str = "linear",
    estimate_label: str = "ours",
    interval_label: str | None = None,
    width: int = 600,
    height: int = 300,
) -> InteractiveChart:
    """An interactive line chart of ``y`` against ``x``, one line per series.

    Parameters
    ----------
    data : a tidy DataFrame, or a mapping dataset name -> DataFrame (a ``dataset`` column
        is added where missing).
    x, y : columns of the horizontal axis and of the plotted value.
    se, interval : the value's uncertainty: a standard-error column (band ``y +- z se``) or
        a pair of (lower, upper) columns; at most one of them.
    series : column(s) naming a line; the first names a registry mechanism (its colour and
        label), the others are appended to the label (``"DP swapping, record"``).
    controls : columns each bound to a dropdown; ``all_option`` lists those that also offer
        "all". A row with no value in a control's column is shown at every setting.
    references : column -> legend label of reference curves (dashed, series colour).
    printed : column of the paper's printed values (crosses).
    rules : column -> label of horizontal yardsticks (grey lines, one value per setting).
    colors : mechanism -> colour, replacing the registry's (e.g. traditional methods in
        black where they share their DP version's colour, as in the static figure).
    shapes : a value of a ``series`` column -> Vega marker shape (``"circle"``,
        ``"square"``, ...), to match the static figure's markers; other series take the
        default shapes in turn.
    x_scale, y_scale : ``"linear"``, ``"log"`` or ``"symlog"``.

    Returns
    -------
    InteractiveChart, displayed as HTML (see the module docstring).
    """
    frame = _frame(data)
    series = [series] if isinstance(series, str) else list(series)
    references = dict(references or {})
    rules = dict(rules or {})
    if se is not None and interval is not None:
        raise ValueError("sweep_chart: give se or interval, not both")
    for name, scale in (("x_scale", x_scale), ("y_scale", y_scale)):
        if scale not in ("linear", "log", "symlog"):
            raise ValueError(f"{name} must be 'linear', 'log' or 'symlog', got {scale!r}")
    if not series:
        raise ValueError("sweep_chart: series names no column")
    unknown = [c for c in all_option if c not in controls]
    if unknown:
        raise ValueError(f"all_option names {unknown[0]!r}, which is not a control")
    bounds = list(interval) if interval is not None else ([se] if se is not None else [])
    extra = [printed] if printed else []
    needed = [x, y, *bounds, *series, *controls, *references, *extra, *rules]
    _check_columns(frame, needed)
    shapes = dict(shapes or {})
    bad_shapes = [v for v in shapes.values() if v not in _SHAPES]
    if bad_shapes:
        raise ValueError(f"shapes: {bad_shapes[0]!r} is not one of {_SHAPES}")
    if frame.empty:
        raise ValueError("sweep_chart: data has no rows")

    # The tidy table the page carries: only the columns drawn or shown.
    tidy = pd.DataFrame(index=frame.index)
    for column in dict.fromkeys([*series, *controls]):
        tidy[column] = [_label(column, v) for v in frame[column].astype(object)]
    labels = [
        ", ".join(str(p) for p in parts if p is not None and str(p) not in ("", "-"))
        for parts in zip(*(tidy[c] for c in series))
    ]
    tidy["series"] = labels
    for column in dict.fromkeys([x, y, *references, *extra, *rules]):
        tidy[column] = _round(frame[column])
    if se is not None:
        tidy["lower"] = _round(frame[y] - z * frame[se])
        tidy["upper"] = _round(frame[y] + z * frame[se])
        interval_label = interval_label or f"±{z:g} SE"
    elif interval is not None:
        tidy["lower"], tidy["upper"] = _round(frame[interval[0]]), _round(frame[interval[1]])
        interval_label = interval_label or "interval"
    if "lower" in tidy and y_scale == "log":  # a log axis cannot draw a band below 0
        tidy["lower"] = tidy["lower"].where(tidy["lower"] > 0)
    if x_scale == "log" or y_scale == "log":
        tidy = tidy[(tidy[x] > 0) if x_scale == "log" else tidy[x].notna()]
    choices = {column: _options(tidy[column]) for column in controls}  # the data's order
    tidy = tidy.sort_values([*dict.fromkeys(["series", *controls]), x], kind="stable")
    tidy = tidy.astype(object).where(tidy.notna(), None).reset_index(drop=True)

    # Series: registry colour, a marker shape per series.
    drawn = set(tidy["series"])
    domain = [label for label in dict.fromkeys(labels) if label in drawn]  # the data's order
    mechanism_of = dict(zip(labels, frame[series[0]].astype(str)))
    chosen = dict(colors or {})
    palette = []
    for label in domain:
        name = mechanism_of[label]
        entry = REGISTRY.get(name)
        palette.append(chosen.get(name) or (entry.color if entry is not None else "#555555"))
    color = alt.Color(
        "series:N",
        title=None,
        scale=alt.Scale(domain=domain, range=palette),
        legend=alt.Legend(
            orient="bottom", columns=2, symbolOpacity=1, symbolStrokeWidth=2, labelLimit=320
        ),
    )
    parts_of = dict(zip(labels, zip(*(frame[c].astype(str) for c in series))))
    unused = [m for m in _SHAPES if m not in shapes.values()] or _SHAPES
    free = iter(unused * len(domain))
    marks = [
        next((shapes[p] for p in parts_of[label] if p in shapes), None) or next(free)
        for label in domain
    ]
    shape = alt.Shape("series:N", title=None, scale=alt.Scale(domain=domain, range=marks))
    curves = [estimate_label, *references.values(), *rules.values()]
    dash = alt.StrokeDash(
        "curve:N",
        title=None,
        scale=alt.Scale(domain=curves, range=(_DASHES * len(curves))[: len(curves)]),
        legend=alt.Legend(orient="bottom", direction="horizontal") if len(curves) > 1 else None,
    )

    # Dropdowns, and the filter they drive.
    params, tests = [], []
    for column in controls:
        options = choices[column]
        if not options:
            raise ValueError(f"control {column!r} has no value in the data")
        shown = [f"{v:g}" if isinstance(v, float) else str(v) for v in options]
        if column in all_option:
            options, shown = [None, *options], ["all", *shown]
        name = "ctl_" + "".join(ch if ch.isalnum() else "_" for ch in column)
        binding = alt.binding_select(options=options, labels=shown, name=f"{column} ")
        params.append(alt.param(name=name, value=options[0], bind=binding))
        field = f"datum[{json.dumps(column)}]"
        tests.append(f"(!isValid({field}) || {name} === null || {field} === {name})")

    x_axis = alt.X(
        f"{x}:Q",
        title=x_title or x,
        scale=_scale(x_scale, nice=x_scale == "linear"),
        axis=alt.Axis(values=_options(tidy[x])) if x_scale == "log" else alt.Axis(),
    )
    y_axis_scale = _scale(y_scale)
    y_enc = alt.Y(f"{y}:Q", title=y_title or y, scale=y_axis_scale)
    tooltip = [
        alt.Tooltip("series:N", title="series"),
        *[alt.Tooltip(f"{c}:N", title=c) for c in controls if c not in series],
        alt.Tooltip(f"{x}:Q", title=x_title or x, format=".4~g"),
        alt.Tooltip(f"{y}:Q", title=y_title or y, format=".4~g"),
    ]
    if "lower" in tidy:
        tooltip.append(alt.Tooltip("interval_text:N", title=interval_label))
    tooltip += [alt.Tooltip(f"{c}:Q", title=t, format=".4~g") for c, t in references.items()]
    if printed:
        tooltip.append(alt.Tooltip(f"{printed}:Q", title="paper", format=".4~g"))
    detail = [alt.Detail(f"{c}:N") for c in controls]

    base = alt.Chart(tidy).transform_filter(" && ".join(tests) if tests else "true")
    layers = []
    if "lower" in tidy:
        layers.append(
            base.mark_area(opacity=0.2).encode(
                x=x_axis,
                y=alt.Y("lower:Q", scale=y_axis_scale),
                y2="upper:Q",
                color=color,
                detail=detail,
            )  # fmt: skip
        )
    line = base.transform_calculate(curve=json.dumps(estimate_label))
    layers.append(
        line.mark_line(strokeWidth=2).encode(
            x=x_axis, y=y_enc, color=color, strokeDash=dash, detail=detail
        )
    )
    points = line
    if "lower" in tidy:
        points = points.transform_calculate(
            interval_text="'[' + format(datum.lower, '.4~g') + ', ' + "
            "format(datum.upper, '.4~g') + ']'"
        )
    layers.append(
        points.mark_point(filled=True, size=60, opacity=1).encode(
            x=x_axis, y=y_enc, color=color, shape=shape, tooltip=tooltip
        )
    )
    if references:
        folded = base.transform_fold(list(references), as_=["reference", "reference_value"])
        folded = folded.transform_calculate(
            curve=f"{json.dumps({k: v for k, v in references.items()})}[datum.reference]"
        )
        layers.append(
            folded.mark_line(strokeWidth=1.2).encode(
                x=x_axis,
                y=alt.Y("reference_value:Q", scale=y_axis_scale),
                color=color,
                strokeDash=dash,
                detail=[*detail, alt.Detail("reference:N")],
            )  # fmt: skip
        )
    if printed:
        layers.append(
            base.mark_point(shape="cross", size=90, filled=True).encode(
                x=x_axis,
                y=alt.Y(f"{printed}:Q", scale=y_axis_scale),
                color=color,
                tooltip=tooltip,
            )  # fmt: skip
        )
    if rules:
        folded = base.transform_fold(list(rules), as_=["rule", "rule_value"])
        folded = folded.transform_calculate(
            curve=f"{json.dumps(dict(rules))}[datum.rule]"
        ).transform_aggregate(rule_value="mean(rule_value)", groupby=["curve"])
        layers.append(
            folded.mark_rule(color="#555555", strokeWidth=1.2).encode(
                y=alt.Y("rule_value:Q", scale=y_axis_scale),
                strokeDash=dash,
                tooltip=[
                    alt.Tooltip("curve:N", title="yardstick"),
                    alt.Tooltip("rule_value:Q", title="value", format=".4~g"),
                ],
            )  # fmt: skip
        )
    chart = (
        alt.layer(*layers)
        .add_params(*params)
        .properties(width=width, height=height)
        .resolve_scale(color="shared", strokeDash="shared")
        .configure(background="white", padding=8)
        .configure_view(stroke=None)
        .configure_axis(
            grid=True, gridOpacity=0.4, labelFontSize=12, titleFontSize=13, titleFontWeight="normal"
        )
        .configure_legend(labelFontSize=12, symbolSize=80)
    )
    return InteractiveChart(chart)


# ----------------------------------------------------------------------- JavaScript
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
    time) and :data:`STYLE_NAME` into ``folder``; a bundle of the same versions already
    there is kept. Returns the bundle's path."""
    import vl_convert

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / STYLE_NAME).write_text(_STYLE)
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
