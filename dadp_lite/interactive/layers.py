"""The layers of a sweep chart: the interval band, the lines, the points.

All three read rows that exist at every dropdown setting (the estimate's), so none is ever
empty: the lines hold the estimate, the reference curves and the yardsticks (told apart by
dash), the points hold the estimate's markers and the paper's crosses, each with its
finished tooltip.
"""

from __future__ import annotations

import altair as alt

from dadp_lite.interactive.encodings import Encodings

__all__ = ["band", "layers", "lines", "points"]


def _kind(*kinds: str) -> str:
    return " || ".join(f"datum.kind === '{k}'" for k in kinds)


def band(base: alt.Chart, enc: Encodings) -> alt.Chart:
    """The estimate's interval, a light band in the series' colour."""
    return (
        base.transform_filter(_kind("estimate"))
        .mark_area(opacity=0.2, aria=False)
        .encode(
            x=enc.x,
            y=alt.Y("lower:Q", scale=enc.y_scale),
            y2="upper:Q",
            color=enc.color,
            detail=enc.detail,
        )
    )


def lines(base: alt.Chart, enc: Encodings) -> alt.Chart:
    """The estimate (solid), the reference curves and the yardsticks (dashed); a yardstick
    says its name and value on hover."""
    channels = dict(
        x=enc.x,
        y=enc.y,
        color=enc.line_color(),
        strokeDash=enc.dash,
        detail=[*enc.detail, alt.Detail("curve:N")],
    )
    if enc.options.rules:
        channels["tooltip"] = enc.rule_tooltip()
    return (
        base.transform_filter(f"!({_kind('paper')})")
        .mark_line(strokeWidth=2, aria=False)
        .encode(**channels)
    )


def points(base: alt.Chart, enc: Encodings) -> alt.Chart:
    """The estimate's markers and the paper's crosses, with their tooltips."""
    return (
        base.transform_filter(_kind("estimate", "paper"))
        .mark_point(filled=True, size=60, opacity=1)
        .encode(
            x=enc.x,
            y=enc.y,
            color=enc.color,
            shape=enc.shape(),
            tooltip=enc.point_tooltip(),
        )
    )


def layers(base: alt.Chart, enc: Encodings, with_band: bool) -> list[alt.Chart]:
    """The layers, bottom first."""
    return [*([band(base, enc)] if with_band else []), lines(base, enc), points(base, enc)]
