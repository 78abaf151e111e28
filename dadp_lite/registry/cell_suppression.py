"""Records of cell suppression: DP (both variants) and traditional (both forms)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dadp_lite.definitions import laplace_scale
from dadp_lite.histogram import Histogram
from dadp_lite.mechanisms import (
    cell_suppression,
    cell_suppression_main_text,
    dp_cell_suppression,
)
from dadp_lite.paper import PAPER_K
from dadp_lite.registry._helpers import (
    bound,
    make_pair,
    need_cells,
    profile_points,
    shaped_like,
)
from dadp_lite.registry.record import Mechanism, NeighbourPair, Parameter
from dadp_lite.theory import cell_suppression as cs
from dadp_lite.theory.privacy import (
    deterministic_worst_case_delta,
    distinguishing_pair,
    worst_case_delta,
)

__all__ = [
    "CELL_SUPPRESSION",
    "CELL_SUPPRESSION_MAIN_TEXT",
    "DP_CELL_SUPPRESSION",
    "DP_CELL_SUPPRESSION_THRESHOLD",
    "RECORDS",
]

_K = Parameter("k", PAPER_K, "suppression threshold", (0, -1, float("nan"), float("inf"), "6"))
_RULE = "1 - exp(-eps (B - k)) / 4, B = max count = {bound}"
_WORST_CLOSED = "worst case over counts <= B = {bound} (closed form)"
_DETERMINISTIC = "deterministic: 1 if neighbours' outputs differ"
_BOTH = ("replace", "add_remove")


# ------------------------------------------------------------------- DP, both variants
def _bias(variant: str):
    def bias(histogram: Histogram, *, epsilon: float, k: float) -> np.ndarray:
        return cs.dp_cell_suppression_bias(histogram.counts, k=k, epsilon=epsilon, variant=variant)

    return bias


def _delta(variant: str, adjacency: str):
    """Our closed form where it applies (k below the largest count), else enumeration."""

    def delta(histogram: Histogram, *, epsilon: float, k: float) -> float:
        b = bound(histogram)
        closed = k <= b - 1 if (variant, adjacency) == ("per_cell", "replace") else k < b
        kwargs = {"k": k, "bound": b, "adjacency": adjacency, "variant": variant}
        if closed:
            return float(cs.dp_cell_suppression_delta_closed_form(epsilon, **kwargs))
        return float(cs.dp_cell_suppression_exact_delta(epsilon, **kwargs))

    return delta


def _reference(variant: str):
    law = {
        "per_cell": cs.per_cell_output_distribution,
        "noisy_threshold": cs.noisy_threshold_output_distribution,
    }[variant]

    def reference(histogram: Histogram, *, epsilon: float, adjacency: str, k: float) -> float:
        b = bound(histogram)
        return float(
            worst_case_delta(
                lambda x: law(x, k=k, epsilon=epsilon, bound=b), 2, b, adjacency, epsilon
            )
        )

    return reference


def _printed(histogram: Histogram, *, epsilon: float, k: float) -> float:
    return float(cs.dp_cell_suppression_delta_as_printed(epsilon, k, bound(histogram)))


def _pair(variant: str):
    """The pair of the privacy chapter's closed form where it applies (checked against
    the enumeration by the contract test), else the enumeration's worst pair."""

    def pair(histogram: Histogram, *, epsilon, k) -> NeighbourPair:
        n = 2 if variant == "per_cell" else min(3, histogram.n_cells)
        need_cells(histogram, n)
        b = bound(histogram)
        if variant == "per_cell" and k <= b - 1:
            cells = ({0: b, 1: b - 1}, {0: b - 1, 1: b})
            reason = "the count at the bound leaves while its neighbour reaches it (closed form)"
        elif variant == "noisy_threshold" and k < b and n == 3:
            cells = ({2: b}, {0: 1, 2: b - 1})
            reason = "a record leaves the count at the bound for an empty cell (closed form)"
        else:
            worst = cs.dp_cell_suppression_worst_case(
                epsilon, k=k, bound=b, variant=variant, n_cells=max(n, 2)
            )
            cells = (dict(enumerate(worst.x)), dict(enumerate(worst.x_prime)))
            reason = "the worst pair found by enumerating every neighbouring pair (counts <= B)"
        return make_pair(histogram, *cells, "replace", reason)

    return pair


def _pair_delta(variant: str):
    def pair_delta(x, x_prime, *, epsilon, k, at=None):
        return cs.dp_cell_suppression_pair_delta(
            x.counts, x_prime.counts, k=k, epsilon=epsilon, variant=variant, at=at
        )

    return pair_delta


def _dp_record(variant: str, **fields: object) -> Mechanism:
    """A DP cell suppression record: everything but the identity is the variant's."""
    return Mechanism(
        color="#D55E00",
        kind="dp",
        sampler=dp_cell_suppression,
        fixed={"variant": variant},
        calibration=laplace_scale,
        parameters=(_K,),
        exact_bias=_bias(variant),
        exact_delta={a: _delta(variant, a) for a in _BOTH},
        adjacency="replace",
        exact_method=_WORST_CLOSED,
        printed_delta=_printed,
        printed_rule=_RULE,
        reference_delta=_reference(variant),
        worst_pair=_pair(variant),
        pair_delta=_pair_delta(variant),
        **fields,
    )


DP_CELL_SUPPRESSION = _dp_record(
    "per_cell",
    name="dp_cell_suppression",
    label="DP cell suppression",
    source="main text",
    seed_key=2,
    in_tables=True,
)
DP_CELL_SUPPRESSION_THRESHOLD = _dp_record(
    "noisy_threshold",
    name="dp_cell_suppression_threshold",
    label="DP cell suppression (noisy threshold)",
    source="appendix",
    seed_key=5,
)


# ---------------------------------------------------------- traditional, both forms
def _traditional_bias(form: str):
    def bias(histogram: Histogram, *, k: float) -> np.ndarray:
        return cs.cell_suppression_bias(histogram.counts, k=k, form=form)

    return bias


def _deterministic_delta(function) -> Callable[..., float]:
    """Exact delta of a deterministic cell-wise mechanism over counts up to the data's
    largest count: 1 if some count and its neighbour get different outputs, else 0."""

    def delta(histogram: Histogram, *, epsilon: float | None = None, **params: object) -> float:
        outputs = function(np.arange(bound(histogram) + 1), **params)
        return 1.0 if np.any(np.diff(outputs) != 0) else 0.0

    return delta


def _deterministic_reference(function) -> Callable[..., float]:
    def reference(histogram: Histogram, *, epsilon: float, adjacency: str, **params) -> float:
        release = lambda x: function(x, **params)  # noqa: E731
        return deterministic_worst_case_delta(release, 2, bound(histogram), adjacency)

    return reference


def _deterministic_pair(function):
    def pair(histogram: Histogram, *, epsilon=None, **params) -> NeighbourPair:
        need_cells(histogram, 2)
        release = lambda c: function(c, **params)  # noqa: E731
        found = distinguishing_pair(release, 2, bound(histogram), "replace")
        if found is None:
            raise ValueError("no replace-one pair with counts up to the bound changes the output")
        reason = "a deterministic release: the first pair whose outputs differ"
        x_cells, y_cells = (dict(enumerate(int(v) for v in h)) for h in found)
        return make_pair(histogram, x_cells, y_cells, "replace", reason)

    return pair


def _deterministic_pair_delta(function):
    def pair_delta(x, x_prime, *, epsilon=None, at=None, **params):
        outputs = (function(h.counts, **params) for h in (x, x_prime))
        differ = not np.array_equal(*outputs)
        where = profile_points(0.0 if epsilon is None else epsilon, at)
        return shaped_like(where, 1.0 if differ else 0.0)

    return pair_delta


def _traditional_record(function, form: str, **fields: object) -> Mechanism:
    """A traditional cell suppression record: deterministic, delta 1 or 0 exactly."""
    return Mechanism(
        color="#D55E00",
        kind="traditional",
        sampler=function,
        deterministic=True,
        parameters=(_K,),
        exact_bias=_traditional_bias(form),
        exact_delta={a: _deterministic_delta(function) for a in _BOTH},
        adjacency="replace",
        exact_method=_DETERMINISTIC,
        reference_delta=_deterministic_reference(function),
        worst_pair=_deterministic_pair(function),
        pair_delta=_deterministic_pair_delta(function),
        **fields,
    )


CELL_SUPPRESSION = _traditional_record(
    cell_suppression,
    "appendix",
    name="cell_suppression",
    label="cell suppression",
    source="appendix",
    seed_key=7,
)
CELL_SUPPRESSION_MAIN_TEXT = _traditional_record(
    cell_suppression_main_text,
    "main_text",
    name="cell_suppression_main_text",
    label="cell suppression (main text)",
    source="main text",
    seed_key=8,
)

#: This family's records (the registry orders all records by ``seed_key``).
RECORDS: tuple[Mechanism, ...] = (
    DP_CELL_SUPPRESSION,
    DP_CELL_SUPPRESSION_THRESHOLD,
    CELL_SUPPRESSION,
    CELL_SUPPRESSION_MAIN_TEXT,
)
