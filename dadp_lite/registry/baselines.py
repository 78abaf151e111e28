"""Records of the classical baselines: Laplace and the discrete Gaussian (projected >= 0)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dadp_lite.definitions import discrete_gaussian_sigma, laplace_scale
from dadp_lite.histogram import Histogram
from dadp_lite.mechanisms import discrete_gaussian, laplace
from dadp_lite.registry._helpers import (
    ALL_ADJACENCIES,
    bound,
    constant,
    make_pair,
    need_cells,
    profile_points,
)
from dadp_lite.registry.record import Mechanism, NeighbourPair
from dadp_lite.theory import accounting, baselines

__all__ = ["DISCRETE_GAUSSIAN", "LAPLACE", "RECORDS"]


def _shift_adjacency(x: Histogram, x_prime: Histogram) -> str:
    """``add_remove`` for a unit change of one cell, ``replace`` for +1/-1 in two cells."""
    d = x_prime.counts - x.counts
    changed = d[d != 0]
    if changed.size == 1 and abs(changed[0]) == 1:
        return "add_remove"
    if changed.size == 2 and sorted(changed) == [-1, 1]:
        return "replace"
    raise ValueError("x and x_prime are not neighbours (one cell +-1, or one record moved)")


def _shift_pair(histogram: Histogram, *, epsilon=None, **_) -> NeighbourPair:
    need_cells(histogram, 2)
    b = bound(histogram)
    reason = (
        "every replace-one pair has the same exact delta; counts at the bound keep the "
        "projection onto counts >= 0 (post-processing) out of the way"
    )
    return make_pair(histogram, {0: b, 1: b - 1}, {0: b - 1, 1: b}, "replace", reason)


# ------------------------------------------------------------------ Laplace
def _laplace_bias(histogram: Histogram, *, epsilon: float) -> np.ndarray:
    return baselines.projected_laplace_bias(histogram.counts, epsilon=epsilon)


def _laplace_delta(adjacency: str) -> Callable[..., float]:
    def delta(histogram: Histogram, *, epsilon: float) -> float:
        scale = laplace_scale(epsilon)
        return float(accounting.laplace_histogram_delta(epsilon, scale=scale, adjacency=adjacency))

    return delta


def _laplace_reference(histogram: Histogram, *, epsilon: float, adjacency: str) -> float:
    scale = laplace_scale(epsilon)
    return float(accounting.laplace_delta_closed_form(epsilon, scale=scale, adjacency=adjacency))


def _laplace_pair_delta(x, x_prime, *, epsilon, at=None):
    """Closed form for unprojected Laplace (projection can only lower it)."""
    adjacency = _shift_adjacency(x, x_prime)
    scale = laplace_scale(epsilon)
    where = profile_points(epsilon, at)
    return accounting.laplace_delta_closed_form(where, scale=scale, adjacency=adjacency)


LAPLACE = Mechanism(
    name="laplace",
    label="Laplace",
    color="#0072B2",
    kind="baseline",
    source="main text",
    seed_key=0,
    sampler=laplace,
    fixed={"project": True},
    calibration=laplace_scale,
    exact_bias=_laplace_bias,
    exact_delta={a: _laplace_delta(a) for a in ALL_ADJACENCIES},
    adjacency="replace",
    exact_method="dp_accounting PLD, two unit shifts",
    printed_delta=constant(0.0),
    printed_rule="stated (epsilon, 0)-DP",
    reference_delta=_laplace_reference,
    reference_tolerance=accounting.pld_error_bound("replace"),
    in_tables=True,
    worst_pair=_shift_pair,
    pair_delta=_laplace_pair_delta,
)


# --------------------------------------------------------- discrete Gaussian
def _dg_bias(histogram: Histogram, *, epsilon: float) -> np.ndarray:
    sigma = discrete_gaussian_sigma(epsilon)
    return baselines.projected_discrete_gaussian_bias(histogram.counts, sigma=sigma)


def _dg_delta(adjacency: str) -> Callable[..., float]:
    def delta(histogram: Histogram, *, epsilon: float) -> float:
        sigma = discrete_gaussian_sigma(epsilon)
        value = accounting.discrete_gaussian_histogram_delta(
            epsilon, sigma=sigma, adjacency=adjacency
        )
        return float(value)

    return delta


def _dg_reference(histogram: Histogram, *, epsilon: float, adjacency: str) -> float:
    sigma = discrete_gaussian_sigma(epsilon)
    return float(
        accounting.discrete_gaussian_delta_enumerated(epsilon, sigma=sigma, adjacency=adjacency)
    )


def _dg_printed(histogram: Histogram, *, epsilon: float) -> float:
    return float(baselines.discrete_gaussian_delta_as_printed(epsilon))


def _dg_reading(histogram: Histogram, *, epsilon: float) -> float:
    return float(baselines.discrete_gaussian_delta_table_reading(epsilon))


def _dg_pair_delta(x, x_prime, *, epsilon, at=None):
    """Exact enumeration for the unprojected discrete Gaussian (projection can only lower it)."""
    adjacency = _shift_adjacency(x, x_prime)
    sigma = discrete_gaussian_sigma(epsilon)
    values = profile_points(epsilon, at)
    out = [
        accounting.discrete_gaussian_delta_enumerated(v, sigma=sigma, adjacency=adjacency)
        for v in values.ravel()
    ]
    return float(out[0]) if values.ndim == 0 else np.asarray(out).reshape(values.shape)


DISCRETE_GAUSSIAN = Mechanism(
    name="discrete_gaussian",
    label="discrete Gaussian",
    color="#56B4E9",
    kind="baseline",
    source="main text",
    seed_key=1,
    sampler=discrete_gaussian,
    fixed={"project": True},
    calibration=discrete_gaussian_sigma,
    exact_bias=_dg_bias,
    exact_delta={a: _dg_delta(a) for a in ALL_ADJACENCIES},
    adjacency="replace",
    exact_method="dp_accounting PLD, two unit shifts",
    printed_delta=_dg_printed,
    printed_rule="eps = eps^2/2 + eps sqrt(2 log(1/delta)) solved for delta",
    printed_reading=_dg_reading,
    reference_delta=_dg_reference,
    reference_tolerance=accounting.pld_error_bound("replace"),
    in_tables=True,
    worst_pair=_shift_pair,
    pair_delta=_dg_pair_delta,
)

#: This family's records (the registry orders all records by ``seed_key``).
RECORDS: tuple[Mechanism, ...] = (LAPLACE, DISCRETE_GAUSSIAN)
