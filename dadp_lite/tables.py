"""One look for every table a reader is meant to read, like the one figure style.

:func:`show` turns a data frame (or a Series) into a pandas ``Styler`` a person would
print: no index column (a named index becomes ordinary columns, row numbers are dropped),
headers in words (:data:`HEADERS`, never ``snake_case``; registry and dataset names as
their labels), numbers to a stated rounding (3 significant digits unless told otherwise;
a column of whole numbers as integers, never ``540.000``), ``yes``/``no`` for booleans,
missing values as a dash explained in the caption (never ``NaN``), and the CSS class
``dadp-table`` that ``_static/dadp.css`` styles (compact font, headers that wrap, numbers on
one line, right-aligned). :func:`release_table` lays out a data-release table the way the
paper prints Tables 1-3: one row per mechanism and epsilon, and for delta, l1 bias and
alpha our value (with its bootstrap 95% interval) beside the paper's printed value.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from numbers import Integral, Real

import pandas as pd
from pandas.io.formats.style import Styler

from dadp_lite._validate import check_frame
from dadp_lite.data import dataset_label, is_registered
from dadp_lite.registry import REGISTRY, get
from dadp_lite.words import integer as _integer
from dadp_lite.words import number

__all__ = ["CSS_CLASS", "HEADERS", "header", "readable", "release_table", "show"]

#: The class every reader table carries (styled by ``_static/dadp.css``).
CSS_CLASS = "dadp-table"
#: What a missing value is shown as (e.g. a number the paper does not print).
MISSING = "\u2014"

Digits = int | str | Mapping[object, int | str]

#: How a reader's table heads the columns of the package's tidy tables (units in
#: parentheses). A name not listed here is read word by word (:data:`WORDS`).
HEADERS = {
    "dataset": "dataset",
    "mechanism": "mechanism",
    "epsilon": "\u03b5",
    "delta": "\u03b4",
    "delta_exact": "exact \u03b4",
    "paper_delta": "paper's \u03b4",
    "printed_delta": "printed \u03b4",
    "bias_l1": "\u2113\u2081 bias (records)",
    "bias_l1_exact": "exact \u2113\u2081 bias (records)",
    "paper_bias_l1": "paper's \u2113\u2081 bias (records)",
    "l1_bias": "\u2113\u2081 bias (records)",
    "l1_error": "\u2113\u2081 error (records)",
    "l1_error_se": "standard error of the \u2113\u2081 error (records)",
    "alpha": "\u03b1 (records)",
    "alpha_exact": "exact \u03b1 (records)",
    "paper_alpha": "paper's \u03b1 (records)",
    "alpha_se": "standard error of \u03b1 (records)",
    "n_q": "QI values per group (n<sub>Q</sub>)",
    "n_cells": "cells",
    "reps": "releases",
    "qi": "QI",
    "k": "k",
    "x_1": "x<sub>1</sub>",
    "x_n": "x<sub>n</sub>",
    "adjacency": "adjacency",
    "variant": "variant",
    "unit": "unit",
}
#: Words of a column name not in :data:`HEADERS`, read one by one (``max_abs_z`` ->
#: "largest absolute z").
WORDS = {
    "l1": "\u2113\u2081", "alpha": "\u03b1", "epsilon": "\u03b5", "eps": "\u03b5",
    "delta": "\u03b4", "se": "standard error", "lo": "low", "hi": "high", "abs": "absolute",
    "max": "largest", "min": "smallest", "var": "variance", "qi": "QI", "dp": "DP",
    "n": "number of", "pct": "%", "lap": "Laplace", "avg": "average",
}  # fmt: skip
#: How a cell names an adjacency (the values of ``dadp_lite.definitions.ADJACENCIES``).
ADJACENCY_WORDS = {
    "replace": "replace one record",
    "add_remove": "add or remove one record",
    "qi_replace": "change one record's QI",
}
_SNAKE = re.compile(r"[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)+")


def header(column: object, name: object = None) -> str:
    """A column label as a reader's table heads it: :data:`HEADERS`, a mechanism's or a
    dataset's label for a registry or dataset name, a number without trailing zeros
    (``0.5``; ``\u03b5 = 0.5`` when the columns are named ``epsilon``), any other
    ``snake_case`` name word by word (:data:`WORDS`)."""
    if isinstance(column, tuple):
        names = name if isinstance(name, list | tuple) else [name] * len(column)
        return " ".join(h for h in (header(c, n) for c, n in zip(column, names)) if h)
    if isinstance(column, bool):
        return "yes" if column else "no"
    if isinstance(column, Real):
        shown = number(float(column), 6)
        return f"{header(name)} = {shown}" if name is not None else shown
    text = str(column)
    if text in HEADERS:
        return HEADERS[text]
    if text in REGISTRY:
        return get(text).label
    if is_registered(text):
        return dataset_label(text)
    if _SNAKE.fullmatch(text):
        return " ".join(WORDS.get(word.lower(), word) for word in text.split("_") if word)
    return text


def _cell_text(value: object) -> object:
    """Booleans as words, an adjacency as words, other ``snake_case`` words spaced."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "yes" if value else "no"
    if isinstance(value, str):
        if value in ADJACENCY_WORDS:
            return ADJACENCY_WORDS[value]
        if _SNAKE.fullmatch(value):
            return value.replace("_", " ")
    return value


def _spec(digits: int | str, where: str) -> str:
    """A format spec from ``digits``: an int is decimals (``.3f``), a str a spec (``.3g``)."""
    if isinstance(digits, bool) or not isinstance(digits, Integral | str):
        raise TypeError(f"{where} must be an int (decimals) or a format spec such as '.3g'")
    if isinstance(digits, Integral):
        if digits < 0:
            raise ValueError(f"{where} must be >= 0 decimals, got {digits}")
        return f".{int(digits)}f"
    try:
        format(1.5, digits)
    except ValueError as error:
        raise ValueError(f"{where}: {digits!r} is not a number format spec") from error
    return digits


def _describe(spec: str) -> str:
    """``.2f`` -> '2 decimals', ``.3g`` -> '3 significant digits'."""
    kind, n = spec[-1], spec.removeprefix(".").rstrip("fgeE%")
    if kind == "f" and n.isdigit():
        return f"{n} decimal{'s' if n != '1' else ''}"
    if kind == "g" and n.isdigit():
        return f"{n} significant digits"
    return f"format {spec}"


def _label(column: object) -> str:
    return header(column)


def _is_missing(value: object) -> bool:
    """None, NaN, ``pd.NA``, ``NaT``: a value the table shows as :data:`MISSING`."""
    if isinstance(value, list | tuple | dict | set):
        return False
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _format_number(spec: str):
    """A cell formatter for ``spec``: ``.Nf`` decimals, ``.Ng`` (or ``g``: 6) significant
    digits through :func:`number`, ``int`` for whole numbers; text as it is."""
    significant = spec.endswith("g") and spec.removeprefix(".").rstrip("g").isdigit()
    sig = int(spec.removeprefix(".").rstrip("g") or 6) if spec.endswith("g") else 0

    def fmt(value: object) -> str:
        if _is_missing(value):
            return MISSING
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            return "yes" if value else "no"
        if not isinstance(value, Real):
            return str(value)
        if not math.isfinite(float(value)):
            return number(float(value))  # ∞ (e.g. trials needed when none suffice)
        if isinstance(value, Integral) or spec == "int":
            return _integer(int(round(float(value))))
        if significant or spec == "g":
            return number(float(value), sig)
        text = format(float(value), spec)
        if abs(float(value)) >= 10 and re.fullmatch(r"-?\d+\.0+", text):
            return _integer(round(float(value)))  # 541, not 541.00
        return text

    return fmt


def _numeric(column: pd.Series) -> bool:
    """Numbers, or text that reads as numbers (intervals, ranges): right-aligned, one line."""
    if pd.api.types.is_bool_dtype(column):
        return False
    if pd.api.types.is_numeric_dtype(column):
        return True
    text = column.dropna().astype(str)
    return bool(len(text)) and bool(text.str.match(r"^\s*([-\u2212\u2014+]|\d|\.\d|nan$)").all())


def _as_frame(frame: pd.DataFrame | pd.Series) -> pd.DataFrame:
    """The data a table shows: a Series becomes one column; a named index becomes leading
    columns, row numbers (an unnamed integer index, gappy after a filter) are dropped and
    other unnamed row labels become a first column without a header; the columns must
    be unique."""
    if isinstance(frame, pd.Series):
        frame = frame.to_frame(name=frame.name if frame.name is not None else "value")
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame or Series, got {type(frame).__name__}")
    if not frame.columns.is_unique:
        twice = list(frame.columns[frame.columns.duplicated()])
        raise ValueError(f"frame has duplicate columns: {twice}")
    named = any(name is not None for name in frame.index.names)
    numbers = isinstance(frame.index, pd.RangeIndex) or pd.api.types.is_integer_dtype(
        frame.index.dtype
    )
    if named or not numbers:
        if not named:
            frame = frame.rename_axis("")  # row labels: a first column headed by nothing
        return frame.reset_index()
    return frame.reset_index(drop=True)


def _formats(data: pd.DataFrame, digits: Digits) -> tuple[str, dict]:
    """(the default spec, column -> spec) from ``digits``; every float column gets one."""
    if isinstance(digits, Mapping):
        unknown = [c for c in digits if c not in data.columns]
        if unknown:
            raise ValueError(f"digits names columns not in the frame: {unknown}")
        default, specs = ".3g", {c: _spec(d, f"digits[{c!r}]") for c, d in digits.items()}
    else:
        default, specs = _spec(digits, "digits"), {}
    floats = [c for c in data.columns if pd.api.types.is_float_dtype(data[c])]
    used = {c: specs.get(c, default) for c in floats} | specs
    for column in floats:  # whole numbers (counts, 540.0) are shown as integers
        values = data[column].dropna().to_numpy(dtype=float)
        if len(values) and (values == values.round()).all() and abs(values).max() >= 2:
            used[column] = "int"
    return default, used


def _rounding(used: dict) -> str:
    """The caption's sentence on rounding, e.g. "Numbers to 2 decimals."."""
    used = {c: s for c, s in used.items() if s != "int"}
    kinds = sorted({_describe(s) for s in used.values()})
    if not used:
        return ""
    if len(kinds) == 1:
        return f"Numbers to {kinds[0]}."
    parts = [
        f"{_describe(s)} ({', '.join(_label(c) for c, t in used.items() if t == s)})"
        for s in dict.fromkeys(used.values())
    ]
    return "Numbers to " + "; ".join(parts) + "."


def _cells(data: pd.DataFrame, group_by: object | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the values shown, the cells' CSS classes): datasets and mechanisms by their labels,
    booleans and names as words (:func:`_cell_text`), numbers right-aligned, a group's
    repeated label blanked and a rule above each new group."""
    classes = pd.DataFrame("", index=data.index, columns=data.columns)
    for column in data.columns:
        classes[column] = "dadp-num" if _numeric(data[column]) else "dadp-text"
    shown = data.copy()
    for column in data.columns:
        if column == "dataset" or (isinstance(column, tuple) and column[-1] == "dataset"):
            shown[column] = shown[column].map(
                lambda v: dataset_label(v) if isinstance(v, str) and is_registered(v) else v
            )
        elif column == "mechanism" or (isinstance(column, tuple) and column[-1] == "mechanism"):
            shown[column] = shown[column].map(
                lambda v: get(v).label if isinstance(v, str) and v in REGISTRY else v
            )
        kind = shown[column].dtype
        types = pd.api.types
        if types.is_object_dtype(kind) or types.is_string_dtype(kind) or types.is_bool_dtype(kind):
            shown[column] = shown[column].map(_cell_text).astype(object)
    if group_by is not None:
        starts = shown[group_by].ne(shown[group_by].shift())
        shown[group_by] = shown[group_by].where(starts, "")
        for column in data.columns:
            classes.loc[starts & (shown.index > 0), column] += " dadp-group-start"
    return shown, classes


def _headed(data: pd.DataFrame, used: dict, group_by: object | None):
    """``data`` with the headers a reader reads (:func:`header`), the formats and the
    grouping column carried over to them."""
    names = list(data.columns.names)
    labels: list[object]
    if isinstance(data.columns, pd.MultiIndex):
        labels = [
            tuple(header(part, name) for part, name in zip(column, names))
            for column in data.columns
        ]
    else:
        labels = [header(column, names[0]) for column in data.columns]
    if len(set(labels)) != len(labels):
        twice = sorted({str(x) for x in labels if labels.count(x) > 1})
        raise ValueError(f"columns read the same once headed for a reader: {twice}")
    relabel = dict(zip(data.columns, labels))
    headed = data.copy()
    headed.columns = (
        pd.MultiIndex.from_tuples(labels) if isinstance(data.columns, pd.MultiIndex) else labels
    )
    return (
        headed,
        {relabel[c]: spec for c, spec in used.items()},
        None if group_by is None else relabel[group_by],
    )


def _footnote(data: pd.DataFrame, missing: str | None) -> str:
    """What the dash means, when the table shows one."""
    if not data.map(_is_missing).to_numpy().any():
        return ""
    reason = (missing or "no value for this row").strip().rstrip(".")
    return f"{MISSING}: {reason}."


def show(
    frame: pd.DataFrame | pd.Series,
    *,
    caption: str,
    digits: Digits = ".3g",
    rounding: str | None = None,
    group_by: object | None = None,
    missing: str | None = None,
) -> Styler:
    """The book's table look for ``frame``: a Styler with no index column and a caption.

    Parameters
    ----------
    frame : a data frame (or a Series: one column); a named index becomes leading columns,
        row numbers are dropped. Columns are headed by :func:`header`; a ``dataset`` or
        ``mechanism`` column shows labels, booleans show as yes or no.
    caption : what the table shows and its units (required, non-empty).
    digits : decimals for every float column (int), a format spec (``".3g"``: 3
        significant digits, through :func:`number`), or a mapping column -> decimals or
        spec for some columns (the others get 3 significant digits). A float column of
        whole numbers is shown as integers, as are integer columns; text is shown as it
        is.
    rounding : the sentence on rounding appended to the caption (default: derived from
        ``digits``, e.g. "Numbers to 2 decimals.").
    group_by : a column whose repeated values are blanked after the first of each run, with
        a rule above each new group (the paper's "mechanism" rows).
    missing : why a value is missing (e.g. "not printed in the paper"). Missing values
        (NaN, None, ``pd.NA``) are shown as a dash, never ``NaN``, and the caption ends
        with "— : <missing>." (default "no value for this row").

    Raises ``TypeError`` for a non-frame or a bad ``digits`` value, ``ValueError`` for an
    empty caption, negative decimals, a column that is not in the frame, or two columns
    whose headers would read the same.
    """
    data = _as_frame(frame)
    if not isinstance(caption, str) or not caption.strip():
        raise ValueError("caption must be a non-empty sentence saying what the table shows")
    if group_by is not None and group_by not in data.columns:
        raise ValueError(f"group_by names a column not in the frame: {group_by!r}")
    default, used = _formats(data, digits)
    rounding = _rounding(used) if rounding is None else rounding
    notes = " ".join(n for n in (rounding, _footnote(data, missing)) if n)
    text = caption.strip() + (" " + notes if notes else "")
    data, used, group_by = _headed(data, used, group_by)
    shown, classes = _cells(data, group_by)
    uuid = hashlib.sha1((text + "|".join(map(str, data.columns))).encode()).hexdigest()[:10]
    styler = shown.style
    for column in data.columns:
        styler = styler.format(_format_number(used.get(column, default)), subset=[column])
    return (
        styler.hide(axis="index")
        .set_caption(text)
        .set_td_classes(classes)
        .set_table_attributes(f'class="{CSS_CLASS}"')
        .set_uuid(uuid)
    )


def _interval(table: pd.DataFrame, stat: str, digits: int) -> pd.Series:
    """``value ± half-width`` of the 95% interval (``value [low, high]`` if it is not
    symmetric about the value)."""

    def fmt(value: float, low: float, high: float) -> str:
        if pd.isna(value):
            return MISSING
        if pd.isna(low) or pd.isna(high):
            return f"{value:.{digits}f}"
        half = (high - low) / 2
        if abs(value - (low + high) / 2) <= 1e-9 * max(1.0, abs(value)):
            return f"{value:.{digits}f} \u00b1 {half:.{digits}f}"
        return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"

    return pd.Series(
        [fmt(*v) for v in zip(table[stat], table[f"{stat}_lo"], table[f"{stat}_hi"])],
        index=table.index,
    )


#: Columns of a :func:`dadp_lite.experiments.compare_with_paper` table that
#: :func:`release_table` reads.
RELEASE_COLUMNS = (
    "dataset",
    "mechanism",
    "epsilon",
    "delta_exact",
    "delta_adjacency",
    "paper_delta",
    "bias_l1",
    "bias_l1_lo",
    "bias_l1_hi",
    "bias_l1_exact",
    "paper_bias_l1",
    "alpha",
    "alpha_lo",
    "alpha_hi",
    "alpha_exact",
    "paper_alpha",
    "reps",
    "table",
)


def release_table(table: pd.DataFrame, *, label: str | None = None) -> Styler:
    """A data-release table (:func:`dadp_lite.experiments.compare_with_paper`, one dataset)
    laid out as the paper's Tables 1-3.

    Rows: mechanism x epsilon. Column groups: delta (our exact delta, the paper's), l1 bias
    and alpha (ours with its bootstrap 95% interval, the exact value where a closed form
    exists, the paper's); ours is shown as ``value ± half-width`` of the 95% interval.
    ``label`` names the dataset in the caption (default: the paper's
    name for it, :func:`dadp_lite.data.dataset_label`).
    """
    check_frame(table, "table", RELEASE_COLUMNS, made_by="ex.compare_with_paper")
    datasets = list(dict.fromkeys(table["dataset"]))
    if len(datasets) != 1:
        raise ValueError(f"table holds several datasets {datasets}: pass one at a time")
    rows = table.reset_index(drop=True)
    columns = {
        ("", "mechanism"): rows["mechanism"].map(lambda name: get(name).label),
        ("", "\u03b5"): rows["epsilon"],
        ("\u03b4", "ours (exact)"): rows["delta_exact"].round(4),
        ("\u03b4", "paper"): rows["paper_delta"].round(4),
        ("\u2113\u2081 bias (records)", "ours \u00b1 95% CI"): _interval(rows, "bias_l1", 1),
        ("\u2113\u2081 bias (records)", "exact"): rows["bias_l1_exact"],
        ("\u2113\u2081 bias (records)", "paper"): rows["paper_bias_l1"],
        ("\u03b1 (records)", "ours \u00b1 95% CI"): _interval(rows, "alpha", 2),
        ("\u03b1 (records)", "exact"): rows["alpha_exact"],
        ("\u03b1 (records)", "paper"): rows["paper_alpha"],
    }
    frame = pd.DataFrame(columns)
    frame.columns = pd.MultiIndex.from_tuples(frame.columns)
    for column in frame.columns:
        if frame[column].dtype == object and column[1] in ("ours (exact)", "paper", "exact"):
            frame[column] = pd.to_numeric(frame[column])

    name = label or dataset_label(datasets[0])
    number = rows["table"].dropna()
    title = f"Table {int(number.iloc[0])}, {name}" if len(number) else f"Data release, {name}"
    by_adjacency: dict[str, list[str]] = {}
    for mech, adj in dict.fromkeys(zip(rows["mechanism"], rows["delta_adjacency"])):
        by_adjacency.setdefault(str(adj), []).append(get(mech).label)
    adjacency = "; ".join(
        f"{ADJACENCY_WORDS.get(adj, adj)}: {', '.join(m)}" for adj, m in by_adjacency.items()
    )
    caption = (
        f"{title}: ours ({int(rows['reps'].iloc[0])} releases per row, \u00b1 the half-width "
        "of the bootstrap 95% interval) beside the paper's printed values. "
        "\u03b4 is the exact \u03b4 at the adjacency of each "
        f"proof ({adjacency}). \u2113\u2081 bias and \u03b1 are in records."
    )
    digits: dict[object, int | str] = {
        ("", "\u03b5"): "g",
        ("\u03b4", "ours (exact)"): ".4g",
        ("\u03b4", "paper"): ".4g",
        ("\u2113\u2081 bias (records)", "exact"): 1,
        ("\u2113\u2081 bias (records)", "paper"): 1,
        ("\u03b1 (records)", "exact"): 2,
        ("\u03b1 (records)", "paper"): 2,
    }
    rounding = (
        "Rounding: \u03b4 to 4 decimals, \u2113\u2081 bias to 1 decimal, \u03b1 to 2 decimals."
    )
    return show(
        frame,
        caption=caption,
        digits=digits,
        rounding=rounding,
        group_by=("", "mechanism"),
        missing="not printed in the paper, or no closed form",
    )


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` for a reader: a ``dataset`` column shows the datasets' labels
    (:func:`dadp_lite.data.dataset_label`: "MA", not "ma2019") and a ``mechanism`` column
    the mechanisms' labels ("DP swapping", not "dp_swapping")."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a DataFrame, got {type(frame).__name__}")
    out = frame.copy()
    if "dataset" in out.columns:
        out["dataset"] = out["dataset"].map(dataset_label)
    if "mechanism" in out.columns:
        out["mechanism"] = out["mechanism"].map(lambda name: get(name).label)
    return out
