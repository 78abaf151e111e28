"""Records of swapping: DP swapping (per cell, per record) and traditional swapping."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dadp_lite.definitions import keep_probability
from dadp_lite.histogram import Histogram
from dadp_lite.mechanisms import dp_swapping, swapping, swapping_chunks
from dadp_lite.paper import PAPER_QI
from dadp_lite.registry._helpers import (
    ALL_ADJACENCIES,
    bound,
    constant,
    make_pair,
    profile_points,
    shaped_like,
)
from dadp_lite.registry.record import Mechanism, NeighbourPair, Parameter
from dadp_lite.theory import swapping as sw
from dadp_lite.theory.privacy import deterministic_worst_case_delta

__all__ = ["DP_SWAPPING", "DP_SWAPPING_RECORD", "RECORDS", "SWAPPING"]

_QI = Parameter("qi", PAPER_QI, "quasi-identifier(s) whose values are swapped", ((), ("planet",)))
_RATE = Parameter("rate", None, "fraction of records swapped, in [0, 1]", (-0.1, 1.5, "half"))
_COLOR = "#009E73"
_RULE = "1 - (1 - g^2)/(n_Q - 1) - ((1 - g)/(n_Q - 1))^2, n_Q = {n_q}"


# ------------------------------------------------------------------ DP swapping
def _bias(histogram: Histogram, *, epsilon: float, qi: Sequence[str]) -> np.ndarray:
    return sw.dp_swapping_expected_release(histogram, qi, epsilon) - histogram.counts


def _delta(unit: str, adjacency: str):
    def delta(histogram: Histogram, *, epsilon: float, qi: Sequence[str]) -> float:
        n_q = histogram.n_qi(qi)
        value = sw.dp_swapping_delta(
            epsilon, n_q, unit=unit, adjacency=adjacency, bound=bound(histogram)
        )
        return float(value)

    return delta


def _reference(unit: str):
    def reference(
        histogram: Histogram, *, epsilon: float, adjacency: str, qi: Sequence[str]
    ) -> float:
        n_q = histogram.n_qi(qi)
        return float(
            sw.dp_swapping_exact_delta(
                epsilon, n_q=n_q, n_groups=histogram.n_cells // n_q, bound=bound(histogram),
                unit=unit, adjacency=adjacency,
            )
        )  # fmt: skip

    return reference


def _printed(histogram: Histogram, *, epsilon: float, qi: Sequence[str]) -> float:
    return float(sw.dp_swapping_delta_as_printed(epsilon, histogram.n_qi(qi)))


def _groups(histogram: Histogram, qi: Sequence[str], x: Histogram, y: Histogram):
    """QI matrices of x and y restricted to the groups where they differ."""
    mx, my = histogram.to_qi_matrix(qi, x.counts), histogram.to_qi_matrix(qi, y.counts)
    rows = np.flatnonzero(np.any(mx != my, axis=1))
    return mx[rows], my[rows]


def _pair(unit: str):
    def pair(histogram: Histogram, *, epsilon=None, qi) -> NeighbourPair:
        if histogram.n_qi(qi) < 2:
            raise ValueError("the universe needs at least two QI values")
        if unit == "cell" and bound(histogram) >= 2:
            rows = ({0: 2}, {0: 1, 1: 1})
            reason = "a cell of count 2 against the same two records split (the privacy chapter)"
        else:
            rows = ({0: 1}, {1: 1})
            reason = "one record changes its QI value: randomized response with loss up to epsilon"
        cells = histogram.to_qi_matrix(qi, np.arange(histogram.n_cells))[0]  # group 0
        x_cells, y_cells = ({int(cells[j]): c for j, c in r.items()} for r in rows)
        return make_pair(histogram, x_cells, y_cells, "qi_replace", reason)

    return pair


def _pair_delta(unit: str):
    def pair_delta(x, x_prime, *, epsilon, qi, at=None):
        mx, my = _groups(x, qi, x, x_prime)
        if mx.size == 0:
            return shaped_like(profile_points(epsilon, at), 0.0)
        return sw.dp_swapping_pair_delta(mx, my, epsilon, unit, at=at)

    return pair_delta


def _dp_record(unit: str, **fields: object) -> Mechanism:
    """A DP swapping record: everything but the identity is the unit's."""
    return Mechanism(
        color=_COLOR,
        kind="dp",
        sampler=dp_swapping,
        takes="histogram",
        fixed={"unit": unit},
        calibration=keep_probability,
        parameters=(_QI,),
        exact_bias=_bias,
        exact_delta={a: _delta(unit, a) for a in ALL_ADJACENCIES},
        adjacency="qi_replace",
        printed_delta=_printed,
        printed_rule=_RULE,
        reference_delta=_reference(unit),
        worst_pair=_pair(unit),
        pair_delta=_pair_delta(unit),
        **fields,
    )


DP_SWAPPING = _dp_record(
    "cell",
    name="dp_swapping",
    label="DP swapping",
    source="main text",
    seed_key=3,
    exact_method="worst case over counts <= B = {bound} (closed form)",
    printed_reading=_printed,
    in_tables=True,
)
DP_SWAPPING_RECORD = _dp_record(
    "record",
    name="dp_swapping_record",
    label="DP swapping (per record)",
    source="appendix",
    seed_key=6,
    exact_method="k-ary randomized response per record",
)


# ----------------------------------------------------------- traditional swapping
def _non_qi_marginal_reference(
    histogram: Histogram, *, epsilon: float, adjacency: str, qi: Sequence[str], **_: object
) -> float:
    """Swapping exchanges QI values between records, so the non-QI marginal is released
    exactly; neighbours that change it (replace, add/remove) are told apart surely."""
    marginal = lambda x: histogram.to_qi_matrix(qi, x).sum(axis=-1)  # noqa: E731
    return deterministic_worst_case_delta(marginal, histogram.n_cells, bound(histogram), adjacency)


def _traditional_pair(histogram: Histogram, *, epsilon=None, qi, rate) -> NeighbourPair:
    cells = histogram.to_qi_matrix(qi, np.arange(histogram.n_cells))
    if cells.shape[0] < 2:
        raise ValueError("the universe needs two non-QI groups for a record to change group")
    reason = "one record changes a non-QI value: the non-QI marginal, released exactly, differs"
    return make_pair(histogram, {int(cells[0, 0]): 1}, {int(cells[1, 0]): 1}, "replace", reason)


def _traditional_pair_delta(x, x_prime, *, epsilon=None, at=None, qi, rate):
    mx, my = x.to_qi_matrix(qi, x.counts), x.to_qi_matrix(qi, x_prime.counts)
    differ = not np.array_equal(mx.sum(axis=1), my.sum(axis=1))
    where = profile_points(0.0 if epsilon is None else epsilon, at)
    return shaped_like(where, 1.0 if differ else np.nan)


SWAPPING = Mechanism(
    name="swapping",
    label="swapping",
    color=_COLOR,
    kind="traditional",
    source="appendix",
    seed_key=9,
    sampler=swapping,
    takes="histogram",
    scales_with="records",  # floor(rate N / 2) swap steps on N records
    run_chunks=swapping_chunks,  # the loop over swap steps runs once for all chunks
    parameters=(_QI, _RATE),
    exact_delta={"replace": constant(1.0), "add_remove": constant(1.0)},
    adjacency="replace",
    exact_method="the non-QI marginal is released exactly",
    reference_delta=_non_qi_marginal_reference,
    worst_pair=_traditional_pair,
    pair_delta=_traditional_pair_delta,
)

#: This family's records (the registry orders all records by ``seed_key``).
RECORDS: tuple[Mechanism, ...] = (DP_SWAPPING, DP_SWAPPING_RECORD, SWAPPING)
