"""Status words of the errata, and the rules that compute them.

A finding compares what the paper prints with what we compute, and its status word comes
from that comparison through one of the rules below, never from typed text. The words
(:data:`STATUS_WORDS`, meanings in :data:`MEANINGS`, shown on the Notation and errata pages):

``holds``
    Holds as printed.
``typo``
    Holds once an evident typo is corrected (:func:`typo_status`: the printed form fails,
    the corrected one holds).
``proof gap``
    The result holds, but a step of its proof fails (:func:`proof_status`).
``loose``
    Holds, but overstates the exact value by a factor of :data:`LOOSE_FACTOR` times the
    margin :data:`LOOSE_MARGIN` or more (2.5): a factor measured near 2 cannot flip the word
    on rounding. The factor is always reported.
``false``
    False as stated: a counterexample, or an exact value on the wrong side, under every
    reading tried. A ``false`` status records the charitable readings that were tried
    (:attr:`Status.readings`): other adjacencies, the noise the experiments imply,
    truncation against rounding, the data's own sizes.
``ambiguous``
    The paper allows two readings with different verdicts (:func:`readings_status`); each
    is recorded with its word, and the one the paper's own numbers support is marked.
``reproduced`` / ``not reproduced``
    An experiment's printed number or claim agrees, or not, with our recomputation within
    its Monte Carlo error, at the book's false-alarm rate (1e-6).

A :class:`Status` carries the word, the comparison it rests on (``basis``, in words and
numbers a reader can read), the number that decided it (``measure``), an optional short
``qualifier`` and the ``readings`` tried. Every rule takes a number or a one-dimensional
sequence of numbers (one per setting compared) and reports the worst element.

Scales. A delta is a probability. Near 0 the relative size of ``delta`` matters; near 1
what matters is ``1 - delta``, the probability that the guarantee's "safe" event happens.
:func:`delta_status` therefore measures looseness on both scales and keeps the larger.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from dadp_lite._validate import check_positive_int
from dadp_lite.errata.show import number
from dadp_lite.verification import t_limit, z_limit

__all__ = [
    "CLAIM_ORDER",
    "LOOSE_FACTOR",
    "LOOSE_MARGIN",
    "MEANINGS",
    "MUCH_FACTOR",
    "NOT_JUDGED",
    "QUALIFIER_LENGTH",
    "ROUND_OFF",
    "STATUS_WORDS",
    "VACUOUS_GAP",
    "Reading",
    "Status",
    "bound_status",
    "claim_status",
    "delta_status",
    "digits_status",
    "formula_status",
    "margin_status",
    "proof_status",
    "readings_status",
    "reproduced_status",
    "typo_status",
    "vacuous",
]

#: The status words, one vocabulary for every page.
STATUS_WORDS: tuple[str, ...] = (
    "holds",
    "typo",
    "proof gap",
    "loose",
    "false",
    "ambiguous",
    "reproduced",
    "not reproduced",
)
#: A statement "overstates" when it is off by this factor (a bound twice the exact value;
#: a delta whose ``delta`` or ``1 - delta`` is off by 2) ...
LOOSE_FACTOR = 2.0
#: ... and it is called *loose* only beyond this margin on that factor (2 x 1.25 = 2.5), so
#: that a factor measured at 2.00 or 2.01 reads the same either way.
LOOSE_MARGIN = 1.25
#: The book's reading of the paper's "much" ("much higher accuracy", "much closer"): at
#: least this factor.
MUCH_FACTOR = 2.0
#: What each word means, in one line: the Notation and errata pages show these.
MEANINGS: dict[str, str] = {
    "holds": "holds as printed",
    "typo": "holds once an evident typo is corrected",
    "proof gap": "the result holds, but a step of its proof fails",
    "loose": (
        f"holds, but overstates the exact value by a factor of "
        f"{number(LOOSE_FACTOR * LOOSE_MARGIN)} or more (the factor is given)"
    ),
    "false": (
        "false as stated: a counterexample or an exact value on the wrong side, under every "
        "reading tried"
    ),
    "ambiguous": (
        "two readings of the paper give different verdicts: both are given, with the one "
        "the paper's own numbers support"
    ),
    "reproduced": (
        "an experiment's printed number or claim agrees with ours within its Monte Carlo error"
    ),
    "not reproduced": "it disagrees with ours beyond its Monte Carlo error",
}
#: How a claim of several findings is classed: the first of these words among them.
CLAIM_ORDER: tuple[str, ...] = (
    "false",
    "ambiguous",
    "not reproduced",
    "typo",
    "proof gap",
    "loose",
    "holds",
    "reproduced",
)
#: The word shown where a chapter's parameters leave nothing of the paper to compare
#: (e.g. an epsilon the paper prints no table for). Not a status: never counted.
NOT_JUDGED = "not judged at these settings"
#: Relative round-off allowed when two computed numbers are compared.
ROUND_OFF = 1e-9
#: A delta is *vacuous* when ``1 - delta`` is below this: the guarantee fails with
#: probability at least 0.999, no better than publishing the data.
VACUOUS_GAP = 1e-3
#: Longest qualifier (characters): a qualifier is a few words, the prose says the rest.
QUALIFIER_LENGTH = 60
_ATOL = 1e-12  # absolute round-off for quantities of order one


@dataclass(frozen=True)
class Reading:
    """One reading of an ambiguous or false statement: what is assumed (``name``, a few
    words), the verdict under it (a status word) and the numbers behind it; ``supported``
    marks the reading the paper's own numbers support."""

    name: str
    word: str
    basis: str = ""
    supported: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("a reading needs a name")
        if self.word not in STATUS_WORDS:
            raise ValueError(f"word must be one of {STATUS_WORDS}, got {self.word!r}")


@dataclass(frozen=True)
class Status:
    """A status word, the comparison it rests on, an optional short qualifier and the
    readings tried."""

    word: str
    basis: str
    measure: float
    qualifier: str = ""
    readings: tuple[Reading, ...] = ()

    def __post_init__(self) -> None:
        if self.word not in STATUS_WORDS:
            raise ValueError(f"word must be one of {STATUS_WORDS}, got {self.word!r}")
        if not isinstance(self.basis, str) or not self.basis:
            raise ValueError("basis must be a non-empty string")
        if not isinstance(self.qualifier, str) or len(self.qualifier) > QUALIFIER_LENGTH:
            raise ValueError(f"qualifier must be a string of at most {QUALIFIER_LENGTH} characters")
        if not all(isinstance(r, Reading) for r in self.readings):
            raise TypeError("readings must be Reading records")
        object.__setattr__(self, "readings", tuple(self.readings))

    @property
    def label(self) -> str:
        """``word`` or ``word; qualifier``."""
        return f"{self.word}; {self.qualifier}" if self.qualifier else self.word

    def qualified(self, qualifier: str) -> Status:
        """The same status with ``qualifier`` (replacing any previous one)."""
        return replace(self, qualifier=qualifier)

    def tried(self, *readings: Reading) -> Status:
        """The same status with ``readings`` recorded (appended)."""
        return replace(self, readings=self.readings + tuple(readings))

    def as_reading(self, name: str, *, supported: bool = False) -> Reading:
        """This status as one reading of a statement."""
        return Reading(name, self.word, self.basis, supported)


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
    return factor >= loose_factor * LOOSE_MARGIN * (1 - ROUND_OFF)


def _factor(value: float) -> str:
    return "an unbounded factor" if math.isinf(value) else f"a factor {number(value, 3)}"


def _times(value: float) -> str:
    return "unboundedly many times" if math.isinf(value) else f"{number(value, 3)} times"


def _word(status: Status, word: str) -> Status:
    return replace(status, word=word)


# ------------------------------------------------------------------------ rules
def delta_status(printed: object, exact: object, *, tol: float = _ATOL) -> Status:
    """Status of a printed delta against the exact delta of the same mechanism.

    ``false`` if some printed delta is below the exact one by more than ``tol`` (round-off
    of the exact computation; for a number printed to d decimals, one unit of its last digit
    covers rounding and cutting alike). Otherwise the looseness is ``max(printed / exact,
    (1 - exact) / (1 - printed))``, the factor on the ``delta`` scale or on the
    ``1 - delta`` scale, whichever is larger: ``loose`` beyond the margin, else ``holds``.
    ``measure`` is the gap ``printed - exact`` (false) or the looseness factor.
    """
    p, e = _pair(_probabilities(printed, "printed"), _probabilities(exact, "exact"),
                 ("printed", "exact"))  # fmt: skip
    tol = _tolerance(tol, "tol")
    gap = p - e
    if np.any(gap < -tol):
        i = int(np.argmin(gap))
        basis = f"printed δ {number(p[i])} is below the exact {number(e[i])}"
        return Status("false", basis, float(gap[i]))
    on_delta, on_safe = _ratio(p, e), _ratio(1 - e, 1 - p)
    factor = np.maximum(on_delta, on_safe)
    i = int(np.argmax(factor))
    word = "loose" if _is_loose(float(factor[i]), LOOSE_FACTOR) else "holds"
    if p[i] == e[i]:
        basis = f"printed δ equals the exact {number(e[i])}"
    elif on_delta[i] >= on_safe[i]:
        basis = (f"printed δ {number(p[i])} is at least the exact {number(e[i])}, "
                 f"off by {_factor(float(factor[i]))}")  # fmt: skip
    else:
        basis = (f"printed 1 − δ = {number(1 - p[i])} against {number(1 - e[i])} exact, "
                 f"off by {_factor(float(factor[i]))}")  # fmt: skip
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

    ``false`` if some bound is below the exact value by more than round-off (``rtol``
    relative, plus 1e-12 absolute); otherwise ``loose`` if ``bound / exact`` reaches
    ``loose_factor`` beyond the margin :data:`LOOSE_MARGIN`, and ``holds`` if not. With
    ``loose_factor=None`` only ``holds`` and ``false`` are possible (an ordering "A <= B"
    has no tightness). ``measure`` is ``bound / exact`` at the worst element.
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
        basis = f"the bound {number(b[i])} is below the exact value {number(e[i])}"
        return Status("false", basis, float(ratio[i]))
    i = int(np.argmax(ratio))
    loose = loose_factor is not None and _is_loose(float(ratio[i]), loose_factor)
    if loose_factor is None:
        basis = f"{number(b[i])} is at least {number(e[i])}"
    else:
        basis = f"the bound {number(b[i])} is {_times(float(ratio[i]))} the exact {number(e[i])}"
    return Status("loose" if loose else "holds", basis, float(ratio[i]))


def formula_status(
    printed: object, exact: object, *, rtol: float = ROUND_OFF, atol: float = _ATOL
) -> Status:
    """Status of a printed formula claimed to *equal* an exact value: ``holds`` if every
    element agrees to round-off (``rtol`` relative, ``atol`` absolute), ``false``
    otherwise. ``measure`` is the largest absolute difference."""
    p, e = _pair(printed, exact, ("printed", "exact"))
    rtol, atol = _tolerance(rtol, "rtol"), _tolerance(atol, "atol")
    gap = np.abs(p - e)
    excess = gap - (atol + rtol * np.abs(e))
    i = int(np.argmax(excess))
    if excess[i] <= 0:
        return Status("holds", "the formula equals the exact value", float(gap[i]))
    basis = f"the formula gives {number(p[i])} where the exact value is {number(e[i])}"
    return Status("false", basis, float(gap[i]))


def typo_status(printed: Status, corrected: Status, *, typo: str) -> Status:
    """A statement with an evident typo (``typo``: what is corrected, a few words):
    ``typo`` if the printed form fails and the corrected one holds (or is loose);
    otherwise the printed form's status. The corrected form's verdict is kept as a
    reading."""
    if printed.word == "false" and corrected.word in ("holds", "loose"):
        basis = f"as printed: {printed.basis}; with the {typo} corrected: {corrected.basis}"
        readings = (printed.as_reading("as printed"),
                    corrected.as_reading(f"with the {typo} corrected", supported=True))  # fmt: skip
        return Status("typo", basis, corrected.measure, readings=readings)
    return printed


def proof_status(step: Status, result: Status, *, step_name: str) -> Status:
    """A proof whose step ``step_name`` is judged by ``step`` and whose result is judged by
    ``result``: ``proof gap`` if the step fails and the result holds (or is loose);
    ``false`` if the result fails; else ``holds``."""
    if result.word == "false":
        return result
    if step.word == "false":
        basis = f"{step_name}: {step.basis}; the result: {result.basis}"
        return Status("proof gap", basis, step.measure)
    return _word(step, "holds")


def readings_status(readings: Sequence[Reading]) -> Status:
    """A statement that the paper lets one read in several ways: ``ambiguous`` if the
    readings' verdicts differ, else their common word. At most one reading may be marked
    ``supported``; the basis names every reading with its word."""
    readings = tuple(readings)
    if len(readings) < 2 or not all(isinstance(r, Reading) for r in readings):
        raise ValueError("readings_status needs at least two Reading records")
    if sum(r.supported for r in readings) > 1:
        raise ValueError("at most one reading can be the one the paper's numbers support")
    words = {r.word for r in readings}
    parts = [f"{r.name}: {r.word}" + (" (the paper's numbers support it)" if r.supported else "")
             for r in readings]  # fmt: skip
    word = "ambiguous" if len(words) > 1 else readings[0].word
    return Status(word, "; ".join(parts), float(len(words)), readings=readings)


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
    plural = "s" if n > 1 else ""
    basis = (f"largest difference {number(abs(float(z[i])), 3)} standard errors, against a "
             f"limit of {number(limit, 3)} for {number(n)} comparison{plural}")  # fmt: skip
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
    rate. Otherwise ``not reproduced``. A standard error of 0 (every repetition gave the
    same value, so no spread could be estimated) shows nothing. ``measure`` is the
    smallest lower limit.
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
        basis = f"margin {number(float(m[i]), 3)} with no spread to judge it by"
    else:
        basis = (f"smallest margin {number(float(m[i]), 3)}, interval "
                 f"{number(float(lower[i]), 3)} to {number(float(m[i] + limit * s[i]), 3)} "
                 f"({number(n)} comparison{'s' if n > 1 else ''} at once)")  # fmt: skip
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
    basis = f"largest gap {number(float(units[i]), 3)} units of the last printed digit"
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
    return Status(word, f"holds in {number(n_true)} of {number(len(flags))} settings",
                  n_true / len(flags))  # fmt: skip


def vacuous(delta: object) -> bool:
    """True if some delta leaves ``1 - delta`` below :data:`VACUOUS_GAP`."""
    return bool(np.any(1 - _probabilities(delta, "delta") < VACUOUS_GAP))
