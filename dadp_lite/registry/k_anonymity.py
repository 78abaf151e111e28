"""Records of k-anonymity (Mondrian with reconstruction): DP and traditional."""

from __future__ import annotations

import numpy as np

from dadp_lite.data import ATTRIBUTES
from dadp_lite.definitions import sampling_probability
from dadp_lite.histogram import Histogram
from dadp_lite.mechanisms import dp_k_anonymity, k_anonymity
from dadp_lite.paper import PAPER_K
from dadp_lite.registry._helpers import (
    bound,
    constant,
    make_pair,
    need_cells,
    profile_points,
    shaped_like,
)
from dadp_lite.registry.record import Mechanism, NeighbourPair, Parameter
from dadp_lite.theory import k_anonymity as ka
from dadp_lite.theory.privacy import deterministic_worst_case_delta

__all__ = ["DP_K_ANONYMITY", "K_ANONYMITY", "RECORDS"]

_K_CLASS = Parameter("k", PAPER_K, "minimum class size of Mondrian", (0, 1.5, "6"))
_KA_QI = Parameter(
    "ka_qi", ATTRIBUTES, "quasi-identifiers of Mondrian", ((), ("planet",)), argument="qi"
)
_COLOR = "#CC79A7"


# ------------------------------------------------------------------ DP k-anonymity
def _delta(histogram: Histogram, *, epsilon: float, **_: object) -> float:
    """beta = 1 - e^-eps for every bound >= 1 (the pair (1, 0) -> (0, 1) attains it and a
    coupling caps the total variation there); Mondrian and reconstruction are
    post-processing."""
    return float(sampling_probability(epsilon))


def _reference(histogram: Histogram, *, epsilon: float, adjacency: str, **_: object) -> float:
    beta = sampling_probability(epsilon)
    return float(ka.subsampling_delta(beta, epsilon, bound(histogram), adjacency))


def _printed(histogram: Histogram, *, epsilon: float, k: int, **_: object) -> float:
    with np.errstate(invalid="ignore", over="ignore"):  # huge binomial coefficients, w ~ B
        return ka.d_as_printed(k, sampling_probability(epsilon), epsilon, bound(histogram))


def _reading(histogram: Histogram, *, epsilon: float, k: int, **_: object) -> float:
    return ka.d_corrected(k, sampling_probability(epsilon), epsilon, bound(histogram))


def _pair(histogram: Histogram, *, epsilon=None, **_) -> NeighbourPair:
    need_cells(histogram, 2)
    reason = "a lone record (k = 1): released exactly when sampled (the privacy chapter)"
    return make_pair(histogram, {0: 1}, {1: 1}, "replace", reason, k=1)


def _pair_delta(x, x_prime, *, epsilon, at=None, **_):
    """Exact for the Bernoulli subsample; the whole mechanism is post-processing of it, so
    this bounds the pair's delta from above, with equality for a lone record and k = 1."""
    beta = sampling_probability(epsilon)
    where = profile_points(epsilon, at)
    return ka.subsampling_pair_delta(tuple(x.counts), tuple(x_prime.counts), beta, where)


DP_K_ANONYMITY = Mechanism(
    name="dp_k_anonymity",
    label="DP k-anonymity",
    color=_COLOR,
    kind="dp",
    source="main text",
    seed_key=4,
    sampler=dp_k_anonymity,
    takes="records",
    scales_with="records",  # the reconstruction draws one value per record
    calibration=sampling_probability,
    parameters=(_K_CLASS, _KA_QI),
    exact_delta={a: _delta for a in ("replace", "add_remove")},
    adjacency="replace",
    exact_method="Bernoulli subsampling: beta for every B",
    printed_delta=_printed,
    printed_rule="d(k, beta, eps) as printed, beta = 1 - e^-eps, B = {bound}",
    printed_reading=_reading,
    reference_delta=_reference,
    in_tables=True,
    worst_pair=_pair,
    pair_delta=_pair_delta,
)


# ----------------------------------------------------------- traditional k-anonymity
def _total_reference(histogram: Histogram, *, epsilon: float, adjacency: str, **_) -> float:
    """k-anonymity with reconstruction releases exactly as many records as it got, so
    add/remove neighbours are told apart surely."""
    return deterministic_worst_case_delta(lambda x: x.sum(), 2, bound(histogram), adjacency)


def _traditional_pair(histogram: Histogram, *, epsilon=None, k, ka_qi) -> NeighbourPair:
    b = bound(histogram)
    if histogram.n_cells * b < k + 1:
        raise ValueError(f"the universe cannot hold k + 1 = {k + 1} records with counts <= {b}")
    full, rest = divmod(int(k), b)
    x_cells = {i: b for i in range(full)} | ({full: rest} if rest else {})
    y_cells = dict(x_cells)
    y_cells[full] = y_cells.get(full, 0) + 1
    reason = "k records against k + 1: the number of records is released exactly"
    return make_pair(histogram, x_cells, y_cells, "add_remove", reason)


def _total_pair_delta(x, x_prime, *, epsilon=None, at=None, **_):
    differ = x.total != x_prime.total
    where = profile_points(0.0 if epsilon is None else epsilon, at)
    return shaped_like(where, 1.0 if differ else np.nan)


K_ANONYMITY = Mechanism(
    name="k_anonymity",
    label="k-anonymity",
    color=_COLOR,
    kind="traditional",
    source="appendix",
    seed_key=10,
    sampler=k_anonymity,
    takes="records",
    scales_with="records",  # the reconstruction draws one value per record
    parameters=(_K_CLASS, _KA_QI),
    exact_delta={"add_remove": constant(1.0)},
    adjacency="add_remove",
    exact_method="the number of records is released exactly",
    reference_delta=_total_reference,
    worst_pair=_traditional_pair,
    pair_delta=_total_pair_delta,
)

#: This family's records (the registry orders all records by ``seed_key``).
RECORDS: tuple[Mechanism, ...] = (DP_K_ANONYMITY, K_ANONYMITY)
