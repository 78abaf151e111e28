"""Numbers and lists as a reader reads them, for tables, captions and verdicts.

:func:`number` writes a number with a few significant digits (whole numbers as integers,
powers of ten for very small or large magnitudes); :func:`listing` joins items as prose
("MA, TX and Outlier"); :func:`datasets` and :func:`values` list datasets by their labels
and numbers through :func:`number`. A chapter glues what these return where its prose
states a setting, so the text says the values, never a parameter's name.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Integral, Real

from dadp_lite.data import dataset_label

__all__ = ["FEATURE_WORDS", "MISSING", "datasets", "features", "integer", "listing", "number",
           "values"]  # fmt: skip

#: How a missing number is written (a dash).
MISSING = "\u2014"
_SUPERSCRIPT = str.maketrans(
    "-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
)


#: How prose names the five features (``dadp_lite.data.ATTRIBUTES``).
FEATURE_WORDS = {
    "race": "race",
    "sex": "sex",
    "tenure": "tenure",
    "age_bracket": "age bracket",
    "income_over_50k": "income over 50,000",
}


def integer(value: int) -> str:
    """A whole number, with thousands separators from 10,000 on (``2019``, ``12,750``)."""
    return f"{value:,}" if abs(value) >= 10_000 else str(value)


def number(value: float, digits: int = 3) -> str:
    """``value`` as a reader reads it: ``digits`` significant digits without trailing
    zeros (a number of ``digits`` or more figures as the whole number, ``12,750``:
    separators from 10,000 on), and powers of ten for very small or very large magnitudes
    (``2.8 \u00d7 10\u207b\u2078``). NaN is a dash.

    Raises ``ValueError`` for ``digits`` below 1 and ``TypeError`` for a value that is no
    real number.
    """
    if isinstance(digits, bool) or not isinstance(digits, Integral) or digits < 1:
        raise ValueError(f"digits must be an int >= 1, got {digits!r}")
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"value must be a real number, got {type(value).__name__}")
    x = float(value)
    if math.isnan(x):
        return MISSING
    if math.isinf(x):
        return "\u221e" if x > 0 else "\u2212\u221e"
    if x == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(x)))
    if magnitude < -3 or magnitude >= 9:
        mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        power = str(int(exponent)).translate(_SUPERSCRIPT)
        return ("" if mantissa == "1" else f"{mantissa} \u00d7 ") + f"10{power}"
    if magnitude >= digits - 1:  # no decimals left: the whole number
        return integer(round(x))
    text = f"{round(x, digits - 1 - magnitude):.{digits - 1 - magnitude}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def listing(items: Iterable[object]) -> str:
    """Items joined as prose: ``a``, ``a and b``, ``a, b and c``."""
    words = [str(item) for item in items]
    if not words:
        raise ValueError("items must not be empty")
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def values(numbers: Iterable[float], digits: int = 3) -> str:
    """Numbers through :func:`number`, joined by :func:`listing` (``0.5, 1, 2 and 4``)."""
    return listing(number(x, digits) for x in numbers)


def datasets(names: Iterable[str]) -> str:
    """Datasets by their labels, joined by :func:`listing` (``MA, TX and Outlier``)."""
    return listing(dataset_label(name) for name in names)


def features(names: Iterable[str]) -> str:
    """Features in words, joined by :func:`listing` (``race, sex and age bracket``)."""
    return listing(FEATURE_WORDS.get(name, str(name).replace("_", " ")) for name in names)
