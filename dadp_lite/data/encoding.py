"""How an excerpt's columns become the paper's five features: the :class:`Encoding`.

The paper names its features with IPUMS names (RACE, SEX, OWNERSHP, AGE, INCTOT) and says
only that income is cut at 50,000 dollars and that ages "may be discretized into groups
... depending upon the experiment". Everything else is a choice, and the choice moves the
numbers of every mechanism whose bias comes from small or empty cells. An
:class:`Encoding` makes the choices explicit:

``age_rule``
    ``"fixed"``: brackets ``[e_0, e_1), [e_1, e_2), ...`` by ``age_edges`` (default five
    brackets of 20 years, 0-99); ``"equal_width"``: ``pandas.cut(AGEP, age_bins)``,
    ``age_bins`` brackets of equal width over the ages observed in the data;
    ``"quantile"``: ``pandas.qcut(AGEP, age_bins)``, brackets of (about) equal frequency
    (fewer when quantiles tie).
``income_threshold``, ``income_rule``
    ``income_over_50k`` is 1 when PINCP ``>`` (or ``>=``) the threshold (default 50,000).
``no_income``
    What PINCP ``N`` (no income, under 15) becomes: ``"zero"`` (0, below the cut; our
    default) or ``"ipums_code"``: IPUMS codes a missing INCTOT as 9,999,999, so a plain
    threshold test puts everyone under 15 *above* the cut.
``universe``
    Which cells the histogram counts: ``"full"`` (every combination of every feature's
    full domain, empty cells included; our default, 540 cells), ``"observed_values"`` (every
    combination of the values observed in the data, e.g. 480 cells for MA, which has no
    record of race 4) or ``"observed_cells"`` (only the non-empty cells).

Race and tenure are kept as coded: OWN_RENT has IPUMS OWNERSHP's codes (0 N/A, 1 owned,
2 rented), and IPUMS RACE's nine general codes (which split Asian alone into three and
"two or more" into two) cannot be derived from RAC1P's nine.

The default :data:`DEFAULT_ENCODING` is the book's reading, so every number of the book
is unchanged by default. Rules other than ``"fixed"`` and universes other than
``"full"`` look at the data to choose the cells: they are not part of a DP release's
privacy accounting (the paper's tables do not account for them either).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from dadp_lite._validate import check_choice, check_positive_int
from dadp_lite.data.files import load_raw
from dadp_lite.data.schema import (
    AGE_EDGES,
    ATTRIBUTES,
    FEATURES,
    INCOME_THRESHOLD,
    DataError,
    ParsedExcerpt,
    parse_excerpt,
    row_error,
)

__all__ = [
    "AGE_RULES",
    "DEFAULT_ENCODING",
    "INCOME_RULES",
    "IPUMS_NA_INCOME",
    "NO_INCOME_RULES",
    "UNIVERSES",
    "EncodedRecords",
    "Encoding",
    "age_bracket_labels",
    "encode",
    "feature_domains",
    "load_records",
    "recode",
    "resolve_encoding",
    "universe_domains",
]

#: The choices of ``Encoding.age_rule`` (how ages become brackets; see the module docstring).
AGE_RULES: tuple[str, ...] = ("fixed", "equal_width", "quantile")
#: The choices of ``Encoding.income_rule``: income above, or at least, the threshold.
INCOME_RULES: tuple[str, ...] = (">", ">=")
#: The choices of ``Encoding.no_income`` (what PINCP ``N``, no income, becomes).
NO_INCOME_RULES: tuple[str, ...] = ("zero", "ipums_code")
#: The choices of ``Encoding.universe`` (which cells the histogram counts).
UNIVERSES: tuple[str, ...] = ("full", "observed_values", "observed_cells")
#: IPUMS's code for a missing INCTOT (persons under 15).
IPUMS_NA_INCOME = 9_999_999


def _check_edges(age_edges: object) -> tuple[int, ...]:
    if isinstance(age_edges, (str, bytes)) or not isinstance(age_edges, Sequence | np.ndarray):
        raise TypeError(f"age_edges must be a sequence of whole numbers, got {age_edges!r}")
    edges = np.asarray(age_edges)
    if edges.ndim != 1 or edges.size < 2 or not np.issubdtype(edges.dtype, np.number):
        raise ValueError(f"age_edges must hold at least 2 numbers, got {age_edges!r}")
    if np.any(edges != np.round(edges)) or np.any(np.diff(edges) <= 0):
        raise ValueError(
            f"age_edges must be strictly increasing whole numbers, got {tuple(age_edges)}"
        )
    return tuple(int(e) for e in edges)


@dataclass(frozen=True)
class Encoding:
    """How raw excerpt columns become the five features, and which cells are counted.

    See the module docstring for each field. ``age_edges`` applies to the ``"fixed"``
    rule only and ``age_bins`` to the other two.
    """

    age_rule: str = "fixed"
    age_edges: tuple[int, ...] = AGE_EDGES
    age_bins: int = 5
    income_threshold: float = INCOME_THRESHOLD
    income_rule: str = ">"
    no_income: str = "zero"
    universe: str = "full"

    def __post_init__(self) -> None:
        check_choice(self.age_rule, "age_rule", AGE_RULES)
        object.__setattr__(self, "age_edges", _check_edges(self.age_edges))
        object.__setattr__(self, "age_bins", check_positive_int(self.age_bins, "age_bins"))
        threshold = self.income_threshold
        if isinstance(threshold, bool) or not isinstance(threshold, int | float | np.number):
            raise TypeError(f"income_threshold must be a number, got {threshold!r}")
        if not math.isfinite(threshold):
            raise ValueError(f"income_threshold must be finite, got {threshold!r}")
        check_choice(self.income_rule, "income_rule", INCOME_RULES)
        check_choice(self.no_income, "no_income", NO_INCOME_RULES)
        check_choice(self.universe, "universe", UNIVERSES)

    @property
    def label(self) -> str:
        """A short description, e.g. ``"fixed 0-20-40-60-80-100 | > 50000, N = 0 | full"``."""
        if self.age_rule == "fixed":
            age = "fixed " + "-".join(str(e) for e in self.age_edges)
        else:
            age = f"{self.age_rule} {self.age_bins}"
        none = "N = 0" if self.no_income == "zero" else f"N = {IPUMS_NA_INCOME}"
        income = f"{self.income_rule} {self.income_threshold:g}, {none}"
        return f"{age} | {income} | {self.universe}"

    @classmethod
    def from_label(cls, label: str) -> Encoding:
        """The encoding whose :attr:`label` is ``label`` (ValueError for any other text)."""
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {type(label).__name__}")
        parts = label.split(" | ")
        income = parts[1].split(", N = ") if len(parts) == 3 else []
        age = parts[0].split(" ", 1) if parts else []
        if len(parts) != 3 or len(income) != 2 or len(age) != 2:
            raise ValueError(f"label is no encoding's label: {label!r}")
        rule, threshold = income[0].split(" ", 1)
        fixed = age[0] == "fixed"
        encoding = cls(
            age_rule=age[0],
            age_edges=tuple(int(e) for e in age[1].split("-")) if fixed else AGE_EDGES,
            age_bins=5 if fixed else int(age[1]),
            income_rule=rule,
            income_threshold=float(threshold),
            no_income="zero" if income[1] == "0" else "ipums_code",
            universe=parts[2],
        )
        if encoding.label != label:
            raise ValueError(f"label is no encoding's label: {label!r}")
        return encoding

    @property
    def words(self) -> str:
        """The encoding as a reader reads it, e.g. "20-year age groups from 0 to 100;
        income over 50,000, no income counted as 0; every cell"."""
        if self.age_rule == "fixed":
            steps = set(np.diff(self.age_edges).tolist())
            edges = self.age_edges
            age = (
                f"{steps.pop()}-year age groups from {edges[0]} to {edges[-1]}"
                if len(steps) == 1
                else "age groups at " + ", ".join(str(e) for e in edges)
            )
        elif self.age_rule == "equal_width":
            age = f"{self.age_bins} age groups of equal width"
        else:
            age = f"{self.age_bins} age groups of equal size"
        over = "over" if self.income_rule == ">" else "at least"
        none = "0" if self.no_income == "zero" else f"{IPUMS_NA_INCOME:,} (the IPUMS code)"
        cells = {"full": "every cell", "observed_values": "observed values only",
                 "observed_cells": "observed cells only"}[self.universe]  # fmt: skip
        return (
            f"{age}; income {over} {self.income_threshold:,.0f}, no income counted as "
            f"{none}; {cells}"
        )

    def age_brackets(self, age: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Bracket index (0-based) of each age, and the bracket edges used.

        ``"fixed"`` brackets are ``[lo, hi)``; the pandas rules give ``(lo, hi]`` with the
        lowest edge just below the smallest age. Ages outside fixed edges get index -1.
        """
        age = np.asarray(age)
        if self.age_rule == "fixed":
            edges = np.asarray(self.age_edges)
            index = np.searchsorted(edges, age, side="right") - 1
            index[(age < edges[0]) | (age >= edges[-1])] = -1
            return index.astype(np.int64), edges.astype(float)
        if self.age_rule == "equal_width":
            codes, edges = pd.cut(age, self.age_bins, labels=False, retbins=True)
        else:
            if np.unique(age).size < 2:
                raise DataError(f"quantile age brackets need two distinct ages, got only {age[0]}")
            codes, edges = pd.qcut(age, self.age_bins, labels=False, retbins=True,
                                   duplicates="drop")  # fmt: skip
        return np.asarray(codes, dtype=np.int64), np.asarray(edges, dtype=float)

    def income_over(self, income: np.ndarray) -> np.ndarray:
        """1 where income is over the cut (NaN = no income, read per ``no_income``), else 0."""
        income = np.asarray(income, dtype=float)
        none_value = 0.0 if self.no_income == "zero" else float(IPUMS_NA_INCOME)
        value = np.where(np.isnan(income), none_value, income)
        over = value >= self.income_threshold if self.income_rule == ">=" else (
            value > self.income_threshold)  # fmt: skip
        return over.astype(np.int64)


#: The book's reading: fixed 20-year brackets, income > 50,000 with N = 0, full universe.
DEFAULT_ENCODING = Encoding()


class EncodedRecords(NamedTuple):
    """Recoded records, the domain of each feature under the encoding's universe, and the
    age-bracket edges used."""

    records: pd.DataFrame
    domains: dict[str, tuple]
    age_edges: np.ndarray


def resolve_encoding(
    age_edges: Sequence[int] = AGE_EDGES, encoding: Encoding | None = None
) -> Encoding:
    """``encoding``, or the default encoding with ``age_edges``; giving both is an error
    (unless ``age_edges`` is the default)."""
    if encoding is None:
        return Encoding(age_edges=_check_edges(age_edges))
    if not isinstance(encoding, Encoding):
        raise TypeError(f"encoding must be a dadp_lite.data.Encoding, got {encoding!r}")
    if _check_edges(age_edges) != AGE_EDGES:
        raise ValueError("give age_edges or encoding, not both (set Encoding.age_edges)")
    return encoding


def feature_domains(age_edges: Sequence[int] = AGE_EDGES) -> dict[str, tuple[int, ...]]:
    """Full domain (all possible values, not only observed ones) of each feature."""
    edges = _check_edges(age_edges)
    domains = {feature: domain for feature, (domain, _labels) in FEATURES.items()}
    domains["age_bracket"] = tuple(range(len(edges) - 1))
    domains["age"] = tuple(range(edges[0], edges[-1]))
    return domains


def universe_domains(
    records: pd.DataFrame, n_brackets: int, universe: str = "full"
) -> dict[str, tuple]:
    """Domain of each of the five features under ``universe``: the full domain (with
    ``n_brackets`` age brackets), or for ``"observed_values"`` the values ``records`` hold.
    (``"observed_cells"`` counts the full universe; :class:`~dadp_lite.dataset.Dataset`
    then drops the empty cells.)"""
    check_choice(universe, "universe", UNIVERSES)
    domains = {feature: domain for feature, (domain, _labels) in FEATURES.items()}
    domains["age_bracket"] = tuple(range(n_brackets))
    if universe == "observed_values":
        seen = {f: set(np.unique(records[f].to_numpy()).tolist()) for f in domains
                if f in records.columns}  # fmt: skip
        domains = {f: tuple(v for v in d if f not in seen or v in seen[f]) for f, d in
                   domains.items()}  # fmt: skip
    return {feature: domains[feature] for feature in ATTRIBUTES}


def encode(
    raw: pd.DataFrame | ParsedExcerpt, encoding: Encoding = DEFAULT_ENCODING
) -> EncodedRecords:
    """Validate raw excerpt columns (:func:`~dadp_lite.data.schema.parse_excerpt`) and
    recode them to the five features under ``encoding``. ``raw`` may also be a parsed
    excerpt, to recode one file under many encodings without parsing it again.

    Records have integer columns ``race``, ``sex``, ``tenure``, ``age_bracket`` (0-based),
    ``income_over_50k`` (over the encoding's income cut, whatever its threshold) and
    ``age`` (the raw AGEP). An age outside fixed edges raises DataError naming its row.
    """
    if not isinstance(encoding, Encoding):
        raise TypeError(f"encoding must be a dadp_lite.data.Encoding, got {encoding!r}")
    parsed = raw if isinstance(raw, ParsedExcerpt) else parse_excerpt(raw)
    bracket, edges = encoding.age_brackets(parsed.age)
    outside = bracket < 0
    if outside.any():
        span = f"[{encoding.age_edges[0]}, {encoding.age_edges[-1]})"
        raise row_error(parsed.raw, "AGEP", outside, f"is outside the age brackets {span}")
    records = pd.DataFrame(
        {
            "race": parsed.race,
            "sex": parsed.sex,
            "tenure": parsed.tenure,
            "age_bracket": bracket,
            "income_over_50k": encoding.income_over(parsed.income),
            "age": parsed.age,
        }
    )
    domains = universe_domains(records, edges.size - 1, encoding.universe)
    return EncodedRecords(records, domains, edges)


def recode(
    raw: pd.DataFrame,
    age_edges: Sequence[int] = AGE_EDGES,
    *,
    encoding: Encoding | None = None,
) -> pd.DataFrame:
    """Recode raw excerpt columns to the paper's features; one row per person (see
    :func:`encode`). ``age_edges`` is a shortcut for ``Encoding(age_edges=...)``."""
    return encode(raw, resolve_encoding(age_edges, encoding)).records


def load_records(
    dataset: str | os.PathLike[str],
    age_edges: Sequence[int] = AGE_EDGES,
    data_dir: str | os.PathLike[str] | None = None,
    *,
    encoding: Encoding | None = None,
) -> pd.DataFrame:
    """Load and recode a dataset, a registered name (verified) or a file path; one row per
    person."""
    encoding = resolve_encoding(age_edges, encoding)
    return encode(load_raw(dataset, data_dir), encoding).records


def age_bracket_labels(age_edges: Sequence[int] = AGE_EDGES) -> tuple[str, ...]:
    """Labels such as ``"20-39"`` for fixed brackets [20, 40)."""
    edges = _check_edges(age_edges)
    return tuple(f"{lo}-{hi - 1}" for lo, hi in zip(edges[:-1], edges[1:], strict=True))
