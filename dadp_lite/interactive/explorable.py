"""An epsilon slider over a table: one mechanism's privacy, accuracy and fairness together.

:func:`epsilon_explorable` turns the frame of
:func:`dadp_lite.experiments.exact_profile` into a small HTML explorable: a slider picks
epsilon on the profile's grid (and a dropdown the dataset, when there are several), and the
table under it shows, for every mechanism, its exact delta, the l1 norm of its exact bias
and its alpha at that epsilon, each with a bar (delta on a linear scale from 0 to 1, bias
and alpha on a log scale shared by every epsilon, so a bar's movement is the number's).
Every value is formatted here, once (:func:`dadp_lite.words.number`); the page's script
only swaps prepared strings, so it computes nothing. Without JavaScript (a PDF, a notebook
viewer) the table shows the starting epsilon and the controls are hidden. Nothing is
fetched: the script is inline.
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dadp_lite._validate import check_frame
from dadp_lite.data import dataset_label
from dadp_lite.experiments.epsilon_profile import PROFILE_COLUMNS
from dadp_lite.registry import get
from dadp_lite.words import MISSING, number

__all__ = ["EXPLORABLE_CLASS", "Explorable", "epsilon_explorable"]

#: CSS class of the explorable's ``<figure>`` (``_static/dadp.css`` styles it).
EXPLORABLE_CLASS = "dadp-explorable"
#: The table's columns: profile column -> (header, scale of its bar).
_COLUMNS = {
    "delta_exact": ("exact \u03b4", "linear"),
    "bias_l1_exact": ("\u2113\u2081 bias (records)", "log"),
    "alpha_exact": ("\u03b1 (records)", "log"),
}
#: Shortest bar (a fraction of the cell), so the smallest value still shows one.
_MIN_BAR = 0.03
#: Below this a value is round-off of an exact 0 (Laplace's delta, 1e-15): "< 10^-12".
_ROUND_OFF = 1e-12


@dataclass(frozen=True)
class Explorable:
    """The explorable's HTML (``<figure>`` and inline ``<script>``), shown by Jupyter."""

    html: str

    def _repr_html_(self) -> str:
        return self.html


def _bar_scales(frame: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """Per column, the (low, high) its bars span: 0 to 1 for delta, the log10 range of the
    positive values over every epsilon and dataset for bias and alpha."""
    scales = {}
    for column, (_, scale) in _COLUMNS.items():
        values = frame[column].to_numpy(float)
        positive = values[np.isfinite(values) & (values > 0)]
        if scale == "linear" or not positive.size:
            scales[column] = (0.0, 1.0)
        else:
            scales[column] = (math.log10(positive.min()), math.log10(positive.max()))
    return scales


def _bar(value: float, column: str, scales: dict[str, tuple[float, float]]) -> float:
    """The bar's length for ``value`` as a fraction of the cell (0 for a missing value)."""
    if not math.isfinite(value) or value <= 0:
        return 0.0
    low, high = scales[column]
    if _COLUMNS[column][1] == "linear":
        return max(_MIN_BAR, min(1.0, value))
    share = (math.log10(value) - low) / (high - low) if high > low else 1.0
    return _MIN_BAR + (1 - _MIN_BAR) * share


def _cell(value: float, column: str, scales: dict[str, tuple[float, float]]) -> tuple[str, float]:
    """A table cell: the value as a reader reads it and its bar's length."""
    if not math.isfinite(value):
        return MISSING, 0.0
    if 0 <= value < _ROUND_OFF:
        return "< 10\u207b\u00b9\u00b2", 0.0
    return number(value, 3), round(_bar(value, column, scales), 4)


def _check(frame: pd.DataFrame, start: float) -> list[float]:
    check_frame(frame, "profile", PROFILE_COLUMNS, made_by="exact_profile")
    grid = sorted({float(e) for e in frame["epsilon"]})
    if not any(math.isclose(start, e) for e in grid):
        raise ValueError(f"start must be one of the profile's epsilons, got {start!r}")
    return grid


def epsilon_explorable(profile: pd.DataFrame, *, start: float, key: str) -> Explorable:
    """The explorable of ``profile`` (a frame of ``exact_profile``), opened at epsilon
    ``start`` (one of its epsilons). ``key`` names it in the page (unique per page, letters,
    digits and hyphens). Raises ``ValueError`` for a frame that is not a profile, a
    ``start`` off its grid or a bad ``key``."""
    grid = _check(profile, start)
    if not key or not all(c.isalnum() or c == "-" for c in key):
        raise ValueError(f"key must be letters, digits and hyphens, got {key!r}")
    datasets = list(dict.fromkeys(profile["dataset"]))
    mechanisms = list(dict.fromkeys(profile["mechanism"]))
    scales = _bar_scales(profile)
    first = next(i for i, e in enumerate(grid) if math.isclose(start, e))
    cells: dict[str, list[list[list[tuple[str, float]]]]] = {}
    for name in datasets:
        rows = profile[profile["dataset"] == name].set_index(["epsilon", "mechanism"])
        cells[name] = [
            [
                [_cell(float(rows.loc[(e, m), c]), c, scales) for c in _COLUMNS]
                for m in mechanisms
            ]
            for e in grid
        ]  # fmt: skip
    labels = [get(m).label for m in mechanisms]
    colours = [get(m).color for m in mechanisms]
    return Explorable(_html(key, grid, first, datasets, labels, colours, cells))


def _row(label: str, colour: str, values: list[tuple[str, float]]) -> str:
    tds = "".join(
        f'<td><span class="dadp-explorable-value">{html.escape(text)}</span>'
        f'<span class="dadp-explorable-bar" aria-hidden="true" '
        f'style="width:{100 * share:.1f}%;background:{colour}"></span></td>'
        for text, share in values
    )
    swatch = f'<span class="dadp-explorable-swatch" style="background:{colour}"></span>'
    return f'<tr><th scope="row">{swatch}{html.escape(label)}</th>{tds}</tr>'


def _html(
    key: str,
    grid: list[float],
    first: int,
    datasets: list[str],
    labels: list[str],
    colours: list[str],
    cells: dict[str, list[list[list[tuple[str, float]]]]],
) -> str:
    shown = datasets[0]
    eps = [number(e, 3) for e in grid]
    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for h, _ in _COLUMNS.values())
    body = "".join(
        _row(label, colour, cells[shown][first][i])
        for i, (label, colour) in enumerate(zip(labels, colours, strict=True))
    )
    choose = ""
    if len(datasets) > 1:
        options = "".join(
            f'<option value="{html.escape(d)}">{html.escape(dataset_label(d))}</option>'
            for d in datasets
        )
        choose = (
            f'<label for="{key}-dataset">Dataset</label>'
            f'<select id="{key}-dataset">{options}</select>'
        )
    caption = (
        f'At \u03b5 = <span class="dadp-explorable-eps">{eps[first]}</span> on '
        f'<span class="dadp-explorable-dataset">{html.escape(dataset_label(shown))}</span>: '
        "each private mechanism's exact \u03b4, the \u2113\u2081 norm of its exact bias and "
        "its \u03b1 (the largest minus the smallest exact bias over cells), in records. "
        "Bars: \u03b4 from 0 to 1; bias and \u03b1 on a log scale shared by every \u03b5. "
        f"{MISSING}: no closed-form bias."
    )
    data = json.dumps({"eps": eps, "cells": cells}, separators=(",", ":"))
    data = data.replace("</", "<\\/")
    return (
        f'<figure class="{EXPLORABLE_CLASS}" id="{key}">\n'
        f'<div class="dadp-explorable-controls" hidden>'
        f'<label for="{key}-eps">\u03b5</label>'
        f'<input type="range" id="{key}-eps" min="0" max="{len(grid) - 1}" step="1" '
        f'value="{first}" aria-valuetext="\u03b5 = {eps[first]}">'
        f'<output for="{key}-eps">\u03b5 = {eps[first]}</output>{choose}</div>\n'
        f'<table class="dadp-table"><caption>{caption}</caption>'
        f'<thead><tr><th scope="col">Mechanism</th>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>\n</figure>\n"
        f"<script>\n(function () {{\n"
        f'  var box = document.getElementById("{key}"), data = {data};\n'
        '  var slider = box.querySelector("input[type=range]"),\n'
        '      pick = box.querySelector("select"), out = box.querySelector("output");\n'
        "  function show() {\n"
        "    var i = Number(slider.value), name = pick ? pick.value : "
        f"{json.dumps(shown)};\n"
        '    var text = "\\u03b5 = " + data.eps[i];\n'
        '    out.textContent = text; slider.setAttribute("aria-valuetext", text);\n'
        '    box.querySelector(".dadp-explorable-eps").textContent = data.eps[i];\n'
        '    if (pick) box.querySelector(".dadp-explorable-dataset").textContent =\n'
        "      pick.options[pick.selectedIndex].text;\n"
        '    box.querySelectorAll("tbody tr").forEach(function (tr, m) {\n'
        '      tr.querySelectorAll("td").forEach(function (td, c) {\n'
        "        var cell = data.cells[name][i][m][c];\n"
        '        td.querySelector(".dadp-explorable-value").textContent = cell[0];\n'
        '        td.querySelector(".dadp-explorable-bar").style.width = (100 * cell[1]) + "%";\n'
        "      });\n"
        "    });\n"
        "  }\n"
        '  slider.addEventListener("input", show);\n'
        '  if (pick) pick.addEventListener("change", show);\n'
        '  box.querySelector(".dadp-explorable-controls").hidden = false;\n'
        "})();\n</script>\n"
    )
