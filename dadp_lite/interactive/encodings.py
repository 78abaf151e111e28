"""How rows become marks: the axes, a colour and a marker per series, a dash per curve.

Series take the registry's colour (or the chart's override) and a marker shape each, so
no two series are told apart by colour alone; curves (the estimate, each reference, each
yardstick) take a dash pattern each; the paper's printed values are crosses. Legends sit
below the chart and fold into one column when the chart is narrow (a phone).
"""

from __future__ import annotations

from itertools import cycle

import altair as alt

from dadp_lite.interactive.data import ChartData
from dadp_lite.interactive.options import SHAPES, SweepOptions
from dadp_lite.registry import REGISTRY

__all__ = ["Encodings", "encodings"]

#: Dash patterns of the curves: the estimate solid, then clearly different dashes.
DASHES = ([1, 0], [7, 4], [2, 3], [10, 3, 2, 3], [4, 2, 1, 2], [12, 6])
#: Colour of a series the registry does not know, and of the yardsticks.
NEUTRAL = "#555555"
#: Below this plot width (px) a legend takes one column: a phone.
NARROW = 420


def _scale(kind: str, **options) -> alt.Scale:
    """An axis scale; linear and symlog ones do not force 0 into the domain."""
    if kind == "log":
        return alt.Scale(type=kind, **options)
    return alt.Scale(type=kind, zero=False, **options)


def _legend(**options) -> alt.Legend:
    """A legend below the chart: two columns, one on a narrow chart; labels never cut."""
    return alt.Legend(
        orient="bottom",
        columns=alt.ExprRef(f"width < {NARROW} ? 1 : 2"),
        labelLimit=alt.ExprRef("max(120, width - 40)"),
        symbolOpacity=1,
        **options,
    )


class Encodings:
    """The encodings of one chart (built by :func:`encodings`)."""

    def __init__(self, data: ChartData, options: SweepOptions) -> None:
        self.options = options
        self.x = alt.X(
            "x:Q",
            title=options.x_label,
            scale=_scale(options.x_scale, nice=options.x_scale == "linear"),
            axis=alt.Axis(values=data.x_values) if options.x_scale == "log" else alt.Axis(),
        )
        self.y_scale = _scale(options.y_scale)
        self.y = alt.Y("value:Q", title=options.y_label, scale=self.y_scale)
        self.detail = [alt.Detail(f"{c}:N") for c in options.controls]
        self._series(data)
        self._curves(data)

    def _series(self, data: ChartData) -> None:
        options = self.options
        palette = []
        for label in data.series:
            name = data.mechanism_of[label]
            entry = REGISTRY.get(name)
            palette.append(options.colors.get(name) or (entry.color if entry else NEUTRAL))
        self.color_scale = alt.Scale(domain=data.series, range=palette)
        fixed = set(options.shapes.values())
        free = cycle([s for s in SHAPES if s != "cross" and s not in fixed] or SHAPES[:-1])
        self.marks = [
            next((options.shapes[p] for p in data.parts_of[label] if p in options.shapes), None)
            or next(free)
            for label in data.series
        ]
        legend = _legend(symbolStrokeWidth=2, symbolSize=90)
        self.color = alt.Color("series:N", title=None, scale=self.color_scale, legend=legend)

    def _curves(self, data: ChartData) -> None:
        options = self.options
        curves = [options.estimate_label, *options.references.values(), *options.rules.values()]
        self.curves = list(dict.fromkeys(curves))
        dashes = [list(d) for d, _ in zip(cycle(DASHES), self.curves)]
        legend = (
            _legend(symbolType="stroke", symbolSize=500, symbolStrokeWidth=2.5)
            if len(self.curves) > 1
            else None
        )
        self.dash = alt.StrokeDash(
            "curve:N", title=None, scale=alt.Scale(domain=self.curves, range=dashes),
            legend=legend,
        )  # fmt: skip

    def line_color(self) -> dict:
        """The series' colour; yardsticks grey."""
        color = self.color.to_dict()
        color["condition"] = {"test": "datum.kind === 'rule'", "value": NEUTRAL}
        return color

    def shape(self) -> dict:
        """A marker per series; the paper's printed values crosses."""
        return {
            "field": "series",
            "type": "nominal",
            "title": None,
            "scale": {"domain": self.color_scale.domain, "range": self.marks},
            "condition": {"test": "datum.kind === 'paper'", "value": "cross"},
        }

    def point_tooltip(self) -> dict:
        """The finished tooltip of each point (an object: label -> text)."""
        return {"field": "tip", "type": "nominal"}

    def rule_tooltip(self) -> dict:
        """Yardsticks say their name and value; other lines have no tooltip."""
        return {"condition": {"test": "datum.kind === 'rule'", "field": "tip"}, "value": None}


def encodings(data: ChartData, options: SweepOptions) -> Encodings:
    """The encodings of a chart of ``data``."""
    return Encodings(data, options)
