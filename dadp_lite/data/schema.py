"""The excerpt schema: the columns a file must hold and the values each may take.

A file in the schema of the SDNist v2 Diverse Communities excerpts holds at least the
columns :data:`RAW_COLUMNS` (extra columns are allowed and ignored):

``RAC1P``
    race, an integer code 1-9;
``SEX``
    1 (male) or 2 (female);
``OWN_RENT``
    tenure, 0 (group quarters), 1 (owned) or 2 (rented);
``AGEP``
    age in years, a non-negative integer (the excerpts hold 0-99);
``PINCP``
    total income in dollars, any number (negative incomes exist), or ``N`` for people
    without income (under 15 in the excerpts).

:func:`parse_excerpt` checks every value and returns them as numbers. A value that breaks
the schema raises :class:`DataError` naming the column, the first offending data row
(1-based) and, for a CSV file, its line in the file, with the number of offending rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = [
    "AGE_EDGES",
    "ATTRIBUTES",
    "FEATURES",
    "INCOME_THRESHOLD",
    "NO_INCOME",
    "RAW_COLUMNS",
    "DataError",
    "ParsedExcerpt",
    "check_columns",
    "parse_excerpt",
    "row_error",
]


class DataError(ValueError):
    """A dataset could not be found, verified or parsed."""


#: Columns every excerpt file must hold (SDNist v2 names; the paper's IPUMS names are
#: RACE, SEX, OWNERSHP, AGE, INCTOT).
RAW_COLUMNS: tuple[str, ...] = ("RAC1P", "SEX", "OWN_RENT", "AGEP", "PINCP")
#: The paper's five features, in the order of every histogram of the book.
ATTRIBUTES: tuple[str, ...] = ("race", "sex", "tenure", "age_bracket", "income_over_50k")
#: Edges of the book's age brackets: five brackets of 20 years, [0, 20), ..., [80, 100).
AGE_EDGES: tuple[int, ...] = (0, 20, 40, 60, 80, 100)
#: The paper's income cut: income above 50,000 dollars a year.
INCOME_THRESHOLD = 50_000
#: The PINCP value of people without income.
NO_INCOME = "N"

#: Feature name -> (domain values, human-readable labels).
FEATURES: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "race": (
        tuple(range(1, 10)),
        (
            "White",
            "Black",
            "American Indian",
            "Alaska Native",
            "AIAN tribes",
            "Asian",
            "NHPI",
            "Other",
            "Two or more",
        ),
    ),
    "sex": ((1, 2), ("male", "female")),
    "tenure": ((0, 1, 2), ("group quarters", "owned", "rented")),
    "income_over_50k": ((0, 1), ("<= 50k", "> 50k")),
}
#: Raw column -> the feature whose domain it must lie in.
_CODED = {"RAC1P": "race", "SEX": "sex", "OWN_RENT": "tenure"}


@dataclass(frozen=True, eq=False)
class ParsedExcerpt:
    """The schema's columns of an excerpt as validated numbers, one entry per record.

    ``income`` is NaN where PINCP is ``N`` (no income); ``raw`` is the frame they were
    parsed from (for error messages that name a row).
    """

    race: np.ndarray
    sex: np.ndarray
    tenure: np.ndarray
    age: np.ndarray
    income: np.ndarray
    raw: pd.DataFrame = field(repr=False)

    @property
    def has_income(self) -> np.ndarray:
        """True where PINCP holds a number, False where it is ``N``."""
        return ~np.isnan(self.income)


def row_error(
    raw: pd.DataFrame, column: str, bad: np.ndarray, problem: str, *, show_value: bool = True
) -> DataError:
    """An error naming the source, the column, the first bad row (and line) and the count."""
    source = raw.attrs.get("source")
    position = int(np.flatnonzero(bad)[0])
    value = f"{raw[column].iloc[position]!r} " if show_value else ""
    where = f"row {position + 1}"
    first_line = raw.attrs.get("first_line")  # file line of data row 1 (CSV files)
    if first_line is not None:
        line = position + first_line
        for blank in sorted(raw.attrs.get("blank_lines", ())):  # skipped blank lines
            line += blank <= line
        where += f" (line {line} of the file)"
    count = int(bad.sum())
    more = f"; {count} rows in all" if count > 1 else ""
    prefix = f"{source}: " if source else ""
    return DataError(f"{prefix}column {column}, {where}: {value}{problem}{more}")


def _text(raw: pd.DataFrame, column: str) -> pd.Series:
    return raw[column].astype(str).str.strip()


def _fast_numbers(raw: pd.DataFrame, column: str) -> np.ndarray | None:
    """The column as float64 if every value parses (numpy's C parser), else None."""
    try:
        return raw[column].to_numpy().astype(np.float64)
    except (TypeError, ValueError):
        return None


#: A number as CSV tools write it: ASCII digits, an optional sign, decimal point and
#: exponent. Python's and numpy's parsers also take ``3_5`` (35) and non-ASCII digits.
_PLAIN_NUMBER = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"


def _not_plain(text: pd.Series, skip: np.ndarray | None = None) -> np.ndarray:
    """True where a value is not :data:`_PLAIN_NUMBER` (values where ``skip`` is True pass)."""
    plain = text.str.fullmatch(_PLAIN_NUMBER).fillna(False).to_numpy(dtype=bool)
    return ~plain if skip is None else ~(plain | skip)


def _integers(raw: pd.DataFrame, column: str) -> np.ndarray:
    values = _fast_numbers(raw, column)
    text = _text(raw, column)
    if values is None:
        empty = (text == "").to_numpy()
        if empty.any():
            raise row_error(raw, column, empty, "is empty (every record needs a value)")
        values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
    odd = _not_plain(text) & np.isfinite(values)  # read, but not as a CSV tool would
    if odd.any():
        raise row_error(raw, column, odd, "is not a plain decimal number (digits 0-9, no '_')")
    missing = ~np.isfinite(values)
    if missing.any():
        raise row_error(raw, column, missing, "is not a number")
    fractional = values != np.round(values)
    if fractional.any():
        raise row_error(raw, column, fractional, "is not a whole number")
    return values.astype(np.int64)


def _income(raw: pd.DataFrame) -> np.ndarray:
    column = raw["PINCP"].to_numpy(dtype=object)
    none = column == NO_INCOME
    try:  # fast path: numpy's C parser; the slow one below finds and names a bad value
        values = np.where(none, "0", column).astype(np.float64)
    except (TypeError, ValueError):
        text = _text(raw, "PINCP")
        none = (text == NO_INCOME).to_numpy()
        values = pd.to_numeric(text.where(~none, "0"), errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    odd = _not_plain(_text(raw, "PINCP"), skip=none) & ~bad
    if odd.any():
        raise row_error(raw, "PINCP", odd, "is not a plain decimal number (digits 0-9, no '_')")
    if bad.any():
        first = str(raw["PINCP"].iloc[int(np.flatnonzero(bad)[0])]).strip()
        hint = ""
        if "," in first:
            hint = "; write numbers without thousands separators (50000)"
        elif first == NO_INCOME.lower():
            hint = f"; no income is written {NO_INCOME} (upper case)"
        raise row_error(
            raw, "PINCP", bad, f"is neither a number nor {NO_INCOME!r} (no income){hint}"
        )
    return np.where(none, np.nan, values)


def check_columns(raw: pd.DataFrame) -> pd.DataFrame:
    """Check ``raw`` holds the columns :data:`RAW_COLUMNS` and at least one record."""
    if not isinstance(raw, pd.DataFrame):
        raise TypeError(f"raw must be a pandas DataFrame, got {type(raw).__name__}")
    source = raw.attrs.get("source")
    prefix = f"{source}: " if source else ""
    missing = [column for column in RAW_COLUMNS if column not in raw.columns]
    if missing:
        lower = {str(c).strip().lower(): str(c) for c in raw.columns}
        hints = []
        for name in missing:
            found = lower.get(name.lower())
            if found is not None and found.strip() != found:
                hints.append(f"{found!r} (remove the spaces around the name)")
            elif found is not None:
                hints.append(f"{found!r} (names are case-sensitive)")
        hint = f"; found {', '.join(hints)}" if hints else ""
        raise DataError(
            f"{prefix}the header lacks the column(s) {', '.join(missing)} of the excerpt schema "
            f"(needs {', '.join(RAW_COLUMNS)}; extra columns are allowed){hint}"
        )
    if raw.empty:
        raise DataError(f"{prefix}holds no records (a header and no data rows)")
    return raw


def parse_excerpt(raw: pd.DataFrame) -> ParsedExcerpt:
    """Validate the schema's columns of ``raw`` and return them as numbers.

    ``raw`` holds the columns as text (as the readers of :mod:`dadp_lite.data.files` return
    them; numbers are accepted too). Checks, in order: every column of
    :data:`RAW_COLUMNS` is present, there is at least one record, RAC1P, SEX, OWN_RENT and
    AGEP are whole numbers, RAC1P, SEX and OWN_RENT lie in their domains, AGEP is not
    negative, and PINCP is a number or ``N``. Raises :class:`DataError` naming the column
    and the first offending row.
    """
    check_columns(raw)
    parsed = {column: _integers(raw, column) for column in (*_CODED, "AGEP")}
    for column, feature in _CODED.items():
        domain = FEATURES[feature][0]
        outside = ~np.isin(parsed[column], domain)
        if outside.any():
            raise row_error(raw, column, outside, f"is outside the {feature} codes {domain}")
    negative = parsed["AGEP"] < 0
    if negative.any():
        raise row_error(raw, "AGEP", negative, "is a negative age")
    return ParsedExcerpt(
        race=parsed["RAC1P"],
        sex=parsed["SEX"],
        tenure=parsed["OWN_RENT"],
        age=parsed["AGEP"],
        income=_income(raw),
        raw=raw,
    )
