"""The dropdowns of a chart and the filter they drive.

Each control column becomes a Vega-Lite parameter bound to a ``<select>`` labelled with the
column's name; ``all_option`` controls also offer "all" (the value ``null``). A row passes
when, for every control, it has no value in that column (a traditional method has no
epsilon), "all" is chosen, or its value is the chosen one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import altair as alt

from dadp_lite.interactive.data import ChartData, number_text
from dadp_lite.interactive.options import SweepOptions

__all__ = ["Controls", "controls"]


@dataclass(frozen=True)
class Controls:
    """The dropdowns' parameters and the filter expression they drive."""

    params: list
    filter: str


def _param_name(column: str) -> str:
    return "ctl_" + "".join(ch if ch.isalnum() else "_" for ch in column)


def controls(data: ChartData, options: SweepOptions) -> Controls:
    """One dropdown per control column (see the module docstring)."""
    params, tests = [], []
    for column in options.controls:
        values = list(data.choices[column])
        shown = [number_text(v) if isinstance(v, float) else str(v) for v in values]
        if column in options.all_option:
            values, shown = [None, *values], ["all", *shown]
        name = _param_name(column)
        binding = alt.binding_select(options=values, labels=shown, name=f"{column} ")
        params.append(alt.param(name=name, value=values[0], bind=binding))
        field = f"datum[{json.dumps(column)}]"
        tests.append(f"(!isValid({field}) || {name} === null || {field} === {name})")
    return Controls(params, " && ".join(tests) if tests else "true")
