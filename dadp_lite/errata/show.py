"""Numbers as a reader sees them: a few significant digits, no machine notation.

Every number a finding shows goes through :func:`number` once, in the finding, so every
page that shows it shows the same text (the chapter, the errata page and the landing page
glue the same string).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["SUPERSCRIPTS", "fraction", "listing", "number", "one_minus_power", "percent"]

#: Unicode superscript digits and signs, for powers of ten in running text.
SUPERSCRIPTS = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")


def _real(value: object, name: str) -> float:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    return float(value)


def _power(mantissa: str, exponent: int) -> str:
    power = f"10{str(exponent).translate(SUPERSCRIPTS)}"
    return power if mantissa in ("1", "") else f"{mantissa} × {power}"


def number(value: object, digits: int = 4) -> str:
    """``value`` with ``digits`` significant digits (trailing zeros dropped), thousands
    separators from 10,000 on, and a power of ten (``2.81 × 10⁻⁸``) below 0.001.

    Integers are shown exactly, with separators (``139,590``). ``digits`` is at least 1.
    """
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise ValueError(f"digits must be an integer >= 1, got {digits!r}")
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return f"{int(value):,}"
    x = _real(value, "value")
    if not math.isfinite(x):
        return "unbounded" if x > 0 else ("−unbounded" if x < 0 else "undefined")
    if x == 0:
        return "0"
    if abs(x) >= 10 ** max(digits, 4):
        return f"{round(x):,}"
    if abs(x) < 1e-3:
        mantissa, exponent = f"{x:.{max(digits - 1, 0)}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return _power(mantissa, int(exponent)).replace("-", "−", 1)
    text = f"{x:.{digits}g}"
    if "e" in text:  # e.g. 1.235e+03 at digits = 4: write it out
        text = f"{x:.{max(digits - 1 - int(math.floor(math.log10(abs(x)))), 0)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if abs(x) >= 1000 and "." not in text:
        text = f"{int(text):,}"
    return text.replace("-", "−")


def one_minus_power(log10_gap: object) -> str:
    """``1 − 10^x`` for a ``log10_gap`` x far below zero, e.g. ``1 − 10⁻¹²⁵``: a probability
    too close to 1 for a float, shown exactly as what it is."""
    x = _real(log10_gap, "log10_gap")
    if not math.isfinite(x) or x >= 0:
        raise ValueError(f"log10_gap must be a finite negative number, got {x!r}")
    return f"1 − {_power('', round(x))}"


def percent(value: object, digits: int = 2) -> str:
    """A share (0-1) as a percentage with ``digits`` significant digits: ``3.1%``."""
    return f"{number(100 * _real(value, 'value'), digits)}%"


def fraction(part: int, whole: int) -> str:
    """``"48 of 72"``."""
    return f"{number(int(part))} of {number(int(whole))}"


def listing(items: object, conjunction: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c`` (empty: ``none``)."""
    words = [str(i) for i in items]  # type: ignore[attr-defined]
    if not words:
        return "none"
    if len(words) == 1:
        return words[0]
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"
