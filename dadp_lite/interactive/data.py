"""The table a chart carries: one row per drawn value, tooltips written out in words.

A sweep's tidy frame becomes long rows of four kinds (:data:`KINDS`): the estimate (a point,
its line and its interval band), a reference curve's value (a dashed line), the paper's
printed value (a cross) and a yardstick (a grey line). Only values that exist become rows,
so the page never carries ``NaN``; every point's tooltip is a finished ``{label: text}``
object in which a missing value is either left out or said in words ("not printed").
Every layer reads rows that exist at each dropdown setting (the estimate's), so no layer is
ever empty and Vega never meets an empty extent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dadp_lite.data import dataset_label
from dadp_lite.interactive.options import SweepOptions
from dadp_lite.registry import REGISTRY

__all__ = ["KINDS", "ChartData", "chart_data", "frame_of", "number_text"]

#: The kinds of rows: the estimate, a reference curve, the paper's value, a yardstick.
KINDS = ("estimate", "reference", "paper", "rule")
_SIGNIFICANT = 5  # digits kept in the page's data (the tooltips show 4)
#: What a tooltip says where the paper prints no value.
NOT_PRINTED = "not printed"


@dataclass(frozen=True)
class ChartData:
    """The rows a chart carries and what its encodings need to know about them."""

    rows: list[dict[str, Any]]
    series: list[str]  # the series labels, in the data's order
    mechanism_of: dict[str, str]  # series label -> the registry name it starts with
    parts_of: dict[str, tuple[str, ...]]  # series label -> the raw values of its columns
    choices: dict[str, list]  # control column -> its options, in the data's order
    x_values: list[float]  # the distinct x values (ticks of a log axis)


def frame_of(data: pd.DataFrame | Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """A DataFrame, or a mapping dataset name -> DataFrame given a ``dataset`` column."""
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


def _missing(value: Any) -> bool:
    if value is None or value is pd.NA:
        return True
    try:
        return bool(isinstance(value, float | np.floating) and math.isnan(value))
    except TypeError:
        return False


def _finite(value: Any) -> float | None:
    """``value`` as a float rounded to the page's digits, or None if it is not a number."""
    if _missing(value):
        return None
    number = float(value)
    return float(f"{number:.{_SIGNIFICANT}g}") if math.isfinite(number) else None


_SUPERSCRIPT = str.maketrans(
    "-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
)


def number_text(value: float) -> str:
    """How a tooltip writes a number: 4 significant digits, thousands grouped, no ``e``."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    size = abs(value)
    if size >= 1000:
        return f"{value:,.0f}"
    if size >= 1e-3:
        return f"{value:.4g}"
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{float(mantissa):g} \u00d7 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def label_of(column: str, value: Any) -> Any:
    """How a control or series value is shown: registry labels, dataset names, numbers."""
    if _missing(value):
        return None
    if column == "mechanism":
        entry = REGISTRY.get(str(value))
        return entry.label if entry is not None else str(value)
    if column == "dataset":
        return dataset_label(str(value))
    if isinstance(value, np.generic):
        value = value.item()
    return value


def _shown(value: Any) -> str:
    return number_text(value) if isinstance(value, float) else str(value)


def _options(values: list) -> list:
    unique = list(dict.fromkeys(v for v in values if v is not None))
    if unique and all(isinstance(v, int | float) for v in unique):
        return sorted(unique)
    return unique


def _tooltip(row: pd.Series, labels: dict[str, Any], options: SweepOptions) -> dict[str, str]:
    """A point's tooltip, in the order a reader asks: the plotted value, its interval, the
    exact (reference) values and the paper's, then which series, settings and x it is."""
    tip = {options.y_label: number_text(float(row[options.y]))}
    low, high = _bounds(row, options)
    if low is not None and high is not None:
        tip.setdefault(options.band_label, f"[{number_text(low)}, {number_text(high)}]")
    for column, label in options.references.items():
        if not _missing(row[column]):
            tip.setdefault(label, number_text(float(row[column])))
    if options.printed:
        value = row[options.printed]
        tip.setdefault("paper", NOT_PRINTED if _missing(value) else number_text(float(value)))
    tip.setdefault(", ".join(options.series), labels["series"])
    for column in options.controls:
        if column not in options.series and labels[column] is not None:
            tip.setdefault(column, _shown(labels[column]))
    tip.setdefault(options.x_label, number_text(float(row[options.x])))
    return tip


def _bounds(row: pd.Series, options: SweepOptions) -> tuple[float | None, float | None]:
    """The interval of a row's estimate, (None, None) where it has none."""
    if options.se is not None:
        if _missing(row[options.se]) or _missing(row[options.y]):
            return None, None
        half = options.z * float(row[options.se])
        return float(row[options.y]) - half, float(row[options.y]) + half
    if options.interval is not None:
        low, high = (row[c] for c in options.interval)
        if _missing(low) or _missing(high):
            return None, None
        return float(low), float(high)
    return None, None


def _drawable(value: float | None, log: bool) -> bool:
    return value is not None and (value > 0 or not log)


def _row_labels(row: pd.Series, options: SweepOptions) -> dict[str, Any]:
    """The shown values of a row's series and control columns, and its series label."""
    columns = dict.fromkeys([*options.series, *options.controls])
    labels = {c: label_of(c, row[c]) for c in columns}
    parts = [labels[c] for c in options.series]
    labels["series"] = ", ".join(str(p) for p in parts if p is not None and str(p) not in ("", "-"))
    return labels


def _rows_of(row: pd.Series, labels: dict[str, Any], options: SweepOptions) -> list[dict]:
    """The long rows of one input row: its estimate, references, printed value, rules."""
    y_log = options.y_scale == "log"
    common = {"series": labels["series"], "x": _finite(row[options.x])}
    common |= {c: labels[c] for c in options.controls if labels[c] is not None}
    tip = _tooltip(row, labels, options)
    out = []
    value = _finite(row[options.y])
    if _drawable(value, y_log):
        estimate = {**common, "kind": "estimate", "curve": options.estimate_label}
        estimate |= {"value": value, "tip": tip}
        if options.has_interval:
            low, high = (_finite(b) for b in _bounds(row, options))
            estimate |= {"lower": low, "upper": high}
        out.append(estimate)
    for column, label in options.references.items():
        ref = _finite(row[column])
        if _drawable(ref, y_log):
            out.append({**common, "kind": "reference", "curve": label, "value": ref})
    printed = _finite(row[options.printed]) if options.printed else None
    if _drawable(printed, y_log):
        out.append({**common, "kind": "paper", "curve": "paper", "value": printed, "tip": tip})
    for column, label in options.rules.items():
        rule = _finite(row[column])
        if _drawable(rule, y_log):
            tip_rule = {"yardstick": label, "value": number_text(rule)}
            out.append(
                {**common, "series": "", "kind": "rule", "curve": label, "value": rule}
                | {"tip": tip_rule}
            )
    return out


def chart_data(frame: pd.DataFrame, options: SweepOptions) -> ChartData:
    """The long rows of ``frame`` for ``options`` (see the module docstring)."""
    missing = [c for c in options.columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"sweep_chart: data has no column {missing[0]!r} (missing: {missing}; "
            f"columns: {list(frame.columns)})"
        )
    if frame.empty:
        raise ValueError("sweep_chart: data has no rows")
    rows: list[dict[str, Any]] = []
    parts_of: dict[str, tuple[str, ...]] = {}
    mechanism_of: dict[str, str] = {}
    for _, row in frame.iterrows():
        if not _drawable(_finite(row[options.x]), options.x_scale == "log"):
            continue
        labels = _row_labels(row, options)
        parts_of.setdefault(labels["series"], tuple(str(row[c]) for c in options.series))
        mechanism_of.setdefault(labels["series"], str(row[options.series[0]]))
        rows += _rows_of(row, labels, options)
    if not rows:
        raise ValueError("sweep_chart: no row has a value that the axes can draw")
    _close_bands(rows, options.y_scale == "log")
    drawn = list(dict.fromkeys(r["series"] for r in rows if r["kind"] != "rule"))
    choices = {
        c: _options([label_of(c, v) for v in frame[c].astype(object)]) for c in options.controls
    }
    for column, found in choices.items():
        if not found:
            raise ValueError(f"control {column!r} has no value in the data")
    rows = _deduplicated(rows)
    return ChartData(rows, drawn, mechanism_of, parts_of, choices, sorted({r["x"] for r in rows}))


def _close_bands(rows: list[dict[str, Any]], log: bool) -> None:
    """A band for every estimate row: no interval -> zero width at the value; on a log axis
    an interval reaching 0 or below runs to the lowest value the chart draws."""
    lowers = [r["lower"] for r in rows if r.get("lower") is not None and r["lower"] > 0]
    floor = min([r["value"] for r in rows] + lowers)
    for row in rows:
        if row["kind"] != "estimate" or "lower" not in row:
            continue
        if row["lower"] is None or row["upper"] is None:
            row["lower"] = row["upper"] = row["value"]
        elif log and row["lower"] <= 0:
            row["lower"] = min(floor, row["value"])


def _deduplicated(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop repeated yardstick rows (the same line drawn once per setting is enough)."""
    seen, kept = set(), []
    for row in rows:
        if row["kind"] == "rule":
            key = tuple(sorted((k, str(v)) for k, v in row.items() if k != "tip"))
            if key in seen:
                continue
            seen.add(key)
        kept.append(row)
    return kept
