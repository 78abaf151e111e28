"""Status words of the errata, and the rules that compute them.

A finding compares what the paper prints with what we compute, and its status word comes
from that comparison through one of the rules below, never from typed text. Chapters call
the same rules on their own numbers, so a chapter and the errata page cannot disagree
about a word unless their numbers do.

Vocabulary (:data:`STATUS_WORDS`):

``valid``
    The printed statement holds, and is tight: within a factor :data:`LOOSE_FACTOR` of the
    exact value (or equal to it, for a formula).
``loose``
    It holds, but is off by a factor :data:`LOOSE_FACTOR` or more.
``wrong``
    It fails: a printed bound below the exact value by more than round-off, a claimed
    identity or ordering that the numbers contradict.
``unclear``
    The paper uses two definitions of one thing, and they give different outputs.
``reproduced`` / ``not reproduced``
    A printed table number (or an empirical claim) agrees, or does not, with our
    computation at the stated setting, judged by the book's false-alarm standard. A claim
    that one method beats another (:func:`margin_status`) is reproduced only where the
    margins are shown, every interval above 0.

A :class:`Status` carries the word, the comparison it rests on (``basis``, with numbers),
the number that decided it (``measure``: a ratio, a z-score, a gap) and an optional short
``qualifier``. Every rule takes a number or a one-dimensional sequence of numbers (one per
setting compared) and reports the worst element.

Scales. A delta is a probability. Near 0 the relative size of ``delta`` matters; near 1
what matters is ``1 - delta``, the probability that the guarantee's "safe" event happens
(a printed 0.995 against an exact 0.9925 is off by a factor 1.65 on that scale, not by
0.3%). :func:`delta_status` therefore measures looseness on both scales and keeps the
larger factor.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from dadp_lite._validate import check_positive_int
from dadp_lite.verification import FALSE_FAILURE, t_limit, z_limit

__all__ = [
    "LOOSE_FACTOR",
    "QUALIFIER_LENGTH",
    "ROUND_OFF",
    "STATUS_WORDS",
    "VACUOUS_GAP",
    "Status",
    "bound_status",
    "claim_status",
    "delta_status",
    "digits_status",
    "formula_status",
    "margin_status",
    "reproduced_status",
    "unclear_status",
    "vacuous",
]

#: The status words, one vocabulary for the errata page and the chapters.
STATUS_WORDS: tuple[str, ...] = (
    "valid",
    "loose",
    "wrong",
    "unclear",
    "reproduced",
    "not reproduced",
)
#: A statement that holds is *loose* when it is off by this factor or more (a bound at
#: least twice the exact value; a delta whose ``delta`` or ``1 - delta`` is off by 2).
LOOSE_FACTOR = 2.0
#: Relative round-off allowed when two computed numbers are compared.
ROUND_OFF = 1e-9
#: A delta is *vacuous* when ``1 - delta`` is below this: the guarantee fails with
#: probability at least 0.999, no better than publishing the data.
VACUOUS_GAP = 1e-3
#: Longest qualifier (characters): a qualifier is a few words, the prose says the rest.
QUALIFIER_LENGTH = 48
_ATOL = 1e-12  # absolute round-off for quantities of order one


@dataclass(frozen=True)
class Status:
    """A status word, the comparison it rests on and an optional short qualifier."""

    word: str
    basis: str
    measure: float
    qualifier: str = ""

    def __post_init__(self) -> None:
        if self.word not in STATUS_WORDS:
            raise ValueError(f"word must be one of {STATUS_WORDS}, got {self.word!r}")
        if not isinstance(self.basis, str) or not self.basis:
            raise ValueError("basis must be a non-empty string")
        if not isinstance(self.qualifier, str) or len(self.qualifier) > QUALIFIER_LENGTH:
            raise ValueError(f"qualifier must be a string of at most {QUALIFIER_LENGTH} characters")

    @property
    def label(self) -> str:
        """``word`` or ``word; qualifier``."""
        return f"{self.word}; {self.qualifier}" if self.qualifier else self.word

    def qualified(self, qualifier: str) -> Status:
        """The same status with ``qualifier`` (replacing any previous one)."""
        return replace(self, qualifier=qualifier)


# ----------------------------------------------------------------------- inputs
def _numbers(value: object, name: str) -> np.ndarray:
    """A number or a non-empty 1-D sequence of finite real numbers, as a float array."""
    if isinstance(value, bool | str | bytes) or value is None:
        raise TypeError(f"{name} must be a number or a sequence of numbers, got {value!r}")
    try:
        array = np.atleast_1d(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or a sequence of numbers") from None
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a number or a non-empty 1-D sequence")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite, got {array}")
    return array


def _pair(a: object, b: object, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    x, y = _numbers(a, names[0]), _numbers(b, names[1])
    try:
        x, y = np.broadcast_arrays(x, y)
    except ValueError:
        raise ValueError(f"{names[0]} and {names[1]} have different lengths") from None
    return x, y


def _probabilities(value: object, name: str) -> np.ndarray:
    array = _numbers(value, name)
    if np.any((array < 0) | (array > 1)):
        raise ValueError(f"{name} must lie in [0, 1], got {array}")
    return array


def _non_negative(value: object, name: str) -> np.ndarray:
    array = _numbers(value, name)
    if np.any(array < 0):
        raise ValueError(f"{name} must be non-negative, got {array}")
    return array


def _tolerance(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    return float(value)


def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """``top / bottom`` with ``x / 0 = inf`` for x > 0 and ``0 / 0 = 1``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0),
                        np.where(top > 0, np.inf, 1.0))  # fmt: skip


def _is_loose(factor: float, loose_factor: float) -> bool:
    return factor >= loose_factor * (1 - ROUND_OFF)


def _g(value: float) -> str:
    return f"{value:.4g}"


# ------------------------------------------------------------------------ rules
def delta_status(printed: object, exact: object, *, tol: float = _ATOL) -> Status:
    """Status of a printed delta against the exact delta of the same mechanism.

    ``wrong`` if some printed delta is below the exact one by more than ``tol`` (round-off
    of the exact computation, e.g. ``dp_accounting``'s discretisation error; for a number
    printed to d decimals add half a unit of its last digit). Otherwise the looseness is
    ``max(printed / exact, (1 - exact) / (1 - printed))``, the factor on the ``delta``
    scale or on the ``1 - delta`` scale, whichever is larger (module docstring): ``loose``
    if it reaches :data:`LOOSE_FACTOR`, else ``valid``. ``measure`` is the gap
    ``printed - exact`` (wrong) or the looseness factor.
    """
    p, e = _pair(_probabilities(printed, "printed"), _probabilities(exact, "exact"),
                 ("printed", "exact"))  # fmt: skip
    tol = _tolerance(tol, "tol")
    gap = p - e
    if np.any(gap < -tol):
        i = int(np.argmin(gap))
        basis = f"printed delta {_g(p[i])} is below the exact {_g(e[i])}"
        return Status("wrong", basis, float(gap[i]))
    on_delta, on_safe = _ratio(p, e), _ratio(1 - e, 1 - p)
    factor = np.maximum(on_delta, on_safe)
    i = int(np.argmax(factor))
    scale = "delta" if on_delta[i] >= on_safe[i] else "1 - delta"  # where it is off most
    word = "loose" if _is_loose(float(factor[i]), LOOSE_FACTOR) else "valid"
    off = "an unbounded factor" if np.isinf(factor[i]) else f"a factor {_g(float(factor[i]))}"
    if scale == "delta":
        basis = f"printed delta {_g(p[i])} >= exact {_g(e[i])}, off by {off}"
    else:
        basis = (f"1 - delta = {_g(1 - p[i])} printed against {_g(1 - e[i])} exact, "
                 f"off by {off}")  # fmt: skip
    return Status(word, basis, float(factor[i]))


def bound_status(
    bound: object,
    exact: object,
    *,
    rtol: float = ROUND_OFF,
    loose_factor: float | None = LOOSE_FACTOR,
) -> Status:
    """Status of a printed upper bound (or one side of a claimed ordering) on a
    non-negative quantity.

    ``wrong`` if some bound is below the exact value by more than round-off
    (``rtol`` relative, plus 1e-12 absolute); otherwise ``loose`` if ``bound / exact``
    reaches ``loose_factor`` and ``valid`` if not. With ``loose_factor=None`` only
    ``valid`` and ``wrong`` are possible (an ordering "A <= B" has no tightness).
    ``measure`` is ``bound / exact`` at the worst element.
    """
    b, e = _pair(_non_negative(bound, "bound"), _non_negative(exact, "exact"),
                 ("bound", "exact"))  # fmt: skip
    rtol = _tolerance(rtol, "rtol")
    if loose_factor is not None and (
        isinstance(loose_factor, bool) or not isinstance(loose_factor, numbers.Real)
        or not loose_factor > 1
    ):  # fmt: skip
        raise ValueError(f"loose_factor must be a number > 1 or None, got {loose_factor!r}")
    ratio = _ratio(b, e)
    short = b < e * (1 - rtol) - _ATOL
    if np.any(short):
        i = int(np.argmin(np.where(short, ratio, np.inf)))
        basis = f"bound {_g(b[i])} is below the exact value {_g(e[i])}"
        return Status("wrong", basis, float(ratio[i]))
    i = int(np.argmax(ratio))
    loose = loose_factor is not None and _is_loose(float(ratio[i]), loose_factor)
    shown = "unbounded" if np.isinf(ratio[i]) else _g(float(ratio[i]))
    basis = f"bound {_g(b[i])} >= exact {_g(e[i])}, ratio {shown}"
    return Status("loose" if loose else "valid", basis, float(ratio[i]))


def formula_status(
    printed: object, exact: object, *, rtol: float = ROUND_OFF, atol: float = _ATOL
) -> Status:
    """Status of a printed formula claimed to *equal* an exact value: ``valid`` if every
    element agrees to round-off (``rtol`` relative, ``atol`` absolute), ``wrong``
    otherwise. ``measure`` is the largest absolute difference."""
    p, e = _pair(printed, exact, ("printed", "exact"))
    rtol, atol = _tolerance(rtol, "rtol"), _tolerance(atol, "atol")
    gap = np.abs(p - e)
    excess = gap - (atol + rtol * np.abs(e))
    i = int(np.argmax(excess))
    if excess[i] <= 0:
        return Status("valid", f"printed equals exact (largest gap {_g(gap.max())})", float(gap[i]))
    basis = f"printed {_g(p[i])} differs from the exact {_g(e[i])}"
    return Status("wrong", basis, float(gap[i]))


def reproduced_status(
    ours: object, paper: object, spread: object, *, n_tests: int | None = None
) -> Status:
    """Status of printed numbers against ours, given the Monte Carlo spread of the
    difference (``spread``: the standard deviation of ``ours - paper`` if both were draws
    of the same statistic; > 0).

    ``z = (ours - paper) / spread``. ``reproduced`` if every ``|z|`` is within
    :func:`dadp_lite.z_limit` ``(n_tests)`` (default: one test per element), the book's
    false-alarm standard (1e-6): a reproduction that is right is called ``not
    reproduced`` with probability at most 1e-6. ``measure`` is the ``z`` of largest size.
    """
    ours_, paper_ = _pair(ours, paper, ("ours", "paper"))
    spread_ = _numbers(spread, "spread")
    if spread_.size not in (1, ours_.size):
        raise ValueError("spread must be one number or one per element of ours")
    if np.any(spread_ <= 0):
        raise ValueError(f"spread must be > 0, got {spread_}")
    spread_ = np.broadcast_to(spread_, ours_.shape)
    n = ours_.size if n_tests is None else check_positive_int(n_tests, "n_tests")
    z = (ours_ - paper_) / spread_
    i = int(np.argmax(np.abs(z)))
    limit = z_limit(n)
    word = "reproduced" if abs(z[i]) <= limit else "not reproduced"
    basis = (f"largest |z| = {_g(abs(float(z[i])))} against the limit {limit:.2f} "
             f"({n} comparison{'s' if n > 1 else ''}, false alarm {FALSE_FAILURE:g})")  # fmt: skip
    return Status(word, basis, float(z[i]))


def margin_status(
    margins: object, se: object, *, n_tests: int | None = None, df: int | None = None
) -> Status:
    """Status of an empirical claim that some quantities are positive ("A beats B by a
    margin"), given each estimate's standard error.

    ``reproduced`` if every margin's lower limit ``margin - c se`` is above 0, with
    ``c =`` :func:`dadp_lite.z_limit` ``(n_tests)``, or ``t_limit(n_tests, df)`` when the
    standard errors are estimated from ``df + 1`` repetitions (default: one test per
    element): the claim is then shown in every setting at once at the book's false-alarm
    rate. Otherwise ``not reproduced``: somewhere the evidence does not show the margin (it
    may be negative, or too small to tell from the Monte Carlo error). A standard error of
    0 (every repetition gave the same value, so no spread could be estimated) shows
    nothing. ``measure`` is the smallest lower limit; the basis gives that margin with its
    interval.
    """
    m, s = _pair(margins, se, ("margins", "se"))
    if np.any(s < 0):
        raise ValueError(f"se must be >= 0, got {s}")
    n = m.size if n_tests is None else check_positive_int(n_tests, "n_tests")
    limit = z_limit(n) if df is None else t_limit(n, check_positive_int(df, "df"))
    lower = np.where(s > 0, m - limit * s, -np.inf)
    i = int(np.argmin(lower))
    word = "reproduced" if lower[i] > 0 else "not reproduced"
    if s[i] == 0:
        basis = f"margin {_g(float(m[i]))} with no spread to judge it by"
    else:
        basis = (f"smallest margin {_g(float(m[i]))}, interval {_g(float(lower[i]))} to "
                 f"{_g(float(m[i] + limit * s[i]))} ({n} comparison{'s' if n > 1 else ''}, "
                 f"false alarm {FALSE_FAILURE:g})")  # fmt: skip
    return Status(word, basis, float(lower[i]) if s[i] > 0 else -math.inf)


def digits_status(ours: object, printed: object, decimals: object) -> Status:
    """Status of printed numbers against exact values of ours, to the printed digits:
    ``reproduced`` if every one is within one unit of its last printed digit (which
    covers rounding and cutting alike), else ``not reproduced``. ``decimals`` is one
    integer or one per element; ``measure`` is the largest gap in units of the last digit.
    """
    ours_, printed_ = _pair(ours, printed, ("ours", "printed"))
    digits = np.atleast_1d(np.asarray(decimals))
    if digits.dtype.kind not in "iu" or digits.ndim != 1:
        raise TypeError(f"decimals must be an integer or integers, got {decimals!r}")
    if np.any(digits < 0):
        raise ValueError(f"decimals must be >= 0, got {decimals!r}")
    if digits.size not in (1, ours_.size):
        raise ValueError("decimals must be one integer or one per element")
    units = np.abs(ours_ - printed_) * 10.0 ** np.broadcast_to(digits, ours_.shape)
    i = int(np.argmax(units))
    word = "reproduced" if units[i] <= 1 + ROUND_OFF else "not reproduced"
    basis = f"largest gap {_g(float(units[i]))} units of the last printed digit"
    return Status(word, basis, float(units[i]))


def claim_status(holds: Sequence[bool]) -> Status:
    """Status of an empirical claim checked in several settings: ``reproduced`` if it holds
    in all of them, ``not reproduced`` otherwise. ``measure`` is the share that holds."""
    if isinstance(holds, str | bytes) or not isinstance(holds, Sequence | np.ndarray):
        raise TypeError("holds must be a sequence of booleans, one per setting")
    flags = list(holds)
    if not flags:
        raise ValueError("holds must name at least one setting")
    if not all(isinstance(f, bool | np.bool_) for f in flags):
        raise TypeError("holds must contain booleans only")
    n_true = int(sum(bool(f) for f in flags))
    word = "reproduced" if n_true == len(flags) else "not reproduced"
    return Status(word, f"holds in {n_true} of {len(flags)} cases", n_true / len(flags))


def unclear_status(
    first: object, second: object, *, rtol: float = ROUND_OFF, atol: float = _ATOL
) -> Status:
    """Status of a statement the paper makes with two definitions of one thing: ``unclear``
    if the two definitions give different outputs (``first`` and ``second``, computed
    under each), ``valid`` if they agree to round-off and the ambiguity is harmless.
    ``measure`` is the largest absolute difference."""
    a, b = _pair(first, second, ("first", "second"))
    rtol, atol = _tolerance(rtol, "rtol"), _tolerance(atol, "atol")
    gap = np.abs(a - b)
    i = int(np.argmax(gap))
    if np.all(gap <= atol + rtol * np.maximum(np.abs(a), np.abs(b))):
        return Status("valid", "the two definitions give the same output", float(gap[i]))
    basis = f"the two definitions give {_g(a[i])} and {_g(b[i])}"
    return Status("unclear", basis, float(gap[i]))


def vacuous(delta: object) -> bool:
    """True if some delta leaves ``1 - delta`` below :data:`VACUOUS_GAP`."""
    return bool(np.any(1 - _probabilities(delta, "delta") < VACUOUS_GAP))
