"""The alpha study of the fairness chapter: exact moments of one release, and simulations
over a grid of (dataset, epsilon, mechanism) summarised configuration by configuration.

The chapter simulates the same grid twice, once to check the exact biases cell by cell
(:func:`bias_check`, Bernstein limits) and once to measure the Monte Carlo floor of a
plug-in alpha (:func:`monte_carlo_floor`); :func:`simulate_grid` runs either, holding one
configuration's releases in memory at a time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dadp_lite.dataset import Dataset
from dadp_lite.histogram import Histogram
from dadp_lite.metrics import alpha_fairness
from dadp_lite.registry import get
from dadp_lite.simulate import simulate
from dadp_lite.theory.baselines import (
    expected_empirical_alpha,
    projected_laplace_bias,
    projected_laplace_variance,
)
from dadp_lite.theory.cell_suppression import dp_cell_suppression_moments
from dadp_lite.theory.fairness import swapping_bias
from dadp_lite.theory.swapping import dp_swapping_release_variance
from dadp_lite.verification import bernstein_limit

from .comparisons import simulated_alpha

__all__ = [
    "ALPHA_MECHANISMS",
    "ReleaseMoments",
    "bias_check",
    "monte_carlo_floor",
    "release_moments",
    "simulate_grid",
]

#: A configuration of the grid: (dataset name, epsilon, mechanism name).
Config = tuple[str, float, str]


@dataclass(frozen=True)
class ReleaseMoments:
    """Exact per-cell moments of one release, and what Bernstein's inequality needs.

    ``bias`` and ``variance`` are the release's exact bias and variance;
    ``bernstein_variance`` and ``bernstein_range`` the variance proxy and the range (or,
    for unbounded noise, the scale of the moment condition) of one release's deviation.
    """

    bias: np.ndarray
    variance: np.ndarray
    bernstein_variance: np.ndarray
    bernstein_range: np.ndarray


def _laplace(h: Histogram, epsilon: float, k: int, qi: tuple[str, ...]) -> ReleaseMoments:
    # projected Laplace is unbounded, but |eta| + b/2 bounds its deviation, and its moments
    # obey Bernstein's condition with variance 2 sqrt(e) b^2 and scale b (range 3b covers it)
    x, b = h.counts, 2 / epsilon
    return ReleaseMoments(
        projected_laplace_bias(x, epsilon=epsilon),
        projected_laplace_variance(x, epsilon=epsilon),
        np.full(x.shape, 2 * math.sqrt(math.e) * b**2),
        np.full(x.shape, 3 * b),
    )


def _cell_suppression(h: Histogram, epsilon: float, k: int, qi: tuple[str, ...]) -> ReleaseMoments:
    # the release is x_i or k/2: exact variance, range |k/2 - x_i|
    m = dp_cell_suppression_moments(h.counts, k=k, epsilon=epsilon)
    return ReleaseMoments(m.bias, m.variance, m.variance, np.abs(k / 2 - h.counts))


def _swapping(h: Histogram, epsilon: float, k: int, qi: tuple[str, ...]) -> ReleaseMoments:
    # a release lies between 0 and its QI group's total S_g: exact variance, range S_g
    matrix = h.to_qi_matrix(qi)
    group_total = h.from_qi_matrix(
        qi, np.broadcast_to(matrix.sum(axis=1, keepdims=True), matrix.shape)
    )
    variance = dp_swapping_release_variance(h, qi, epsilon, "cell")
    bias = h.from_qi_matrix(qi, swapping_bias(matrix, epsilon=epsilon))
    return ReleaseMoments(bias, variance, variance, group_total)


_MOMENTS: dict[str, Callable[..., ReleaseMoments]] = {
    "laplace": _laplace,
    "dp_cell_suppression": _cell_suppression,
    "dp_swapping": _swapping,
}
#: The mechanisms whose alpha the paper bounds (those :func:`release_moments` knows).
ALPHA_MECHANISMS: tuple[str, ...] = tuple(_MOMENTS)


def release_moments(
    histogram: Histogram, mechanism: str, *, epsilon: float, k: int, qi: Iterable[str]
) -> ReleaseMoments:
    """Exact moments of one release of ``mechanism`` (one of :data:`ALPHA_MECHANISMS`:
    projected Laplace, per-cell DP cell suppression, DP swapping of whole cells) on
    ``histogram`` at ``epsilon``, with threshold ``k`` and quasi-identifiers ``qi``."""
    if mechanism not in _MOMENTS:
        raise ValueError(f"mechanism must be one of {ALPHA_MECHANISMS}, got {mechanism!r}")
    if not isinstance(histogram, Histogram):
        raise TypeError(f"histogram must be a Histogram, got {type(histogram).__name__}")
    return _MOMENTS[mechanism](histogram, epsilon, k, tuple(qi))


def bias_check(
    released: np.ndarray,
    true: np.ndarray,
    moments: ReleaseMoments,
    *,
    n_tests: int,
    n_alpha_tests: int,
) -> dict[str, float]:
    """Simulated releases ``(reps, n_cells)`` against the exact bias, in Bernstein limits.

    ``largest gap / limit``: the largest over cells of the absolute gap (mean release minus
    true minus bias) over its limit (:func:`~dadp_lite.verification.bernstein_limit` at
    false failure 1e-6 over ``n_tests`` cells, plus round-off). ``alpha gap / limit``: the
    pair estimate of alpha (cells of the largest and smallest exact bias) against the
    exact alpha, over its limit among ``n_alpha_tests`` comparisons (variance at most
    (sigma_i + sigma_j)^2 whatever the correlation, range the sum). A ratio above 1 fails.
    """
    released = np.asarray(released, dtype=float)
    true = np.asarray(true, dtype=float)
    reps = released.shape[0]
    proxy, bound = moments.bernstein_variance, moments.bernstein_range
    limit = bernstein_limit(proxy, bound, reps, n_tests) + 1e-9 * (1 + true)
    gap = np.abs(released.mean(axis=0) - true - moments.bias)
    i, j = int(np.argmax(moments.bias)), int(np.argmin(moments.bias))
    pair = simulated_alpha(released, true, cells=(i, j))
    pair_limit = bernstein_limit(
        (math.sqrt(proxy[i]) + math.sqrt(proxy[j])) ** 2, bound[i] + bound[j], reps, n_alpha_tests
    )
    exact_alpha = alpha_fairness(moments.bias)
    return {
        "largest gap / limit": float(np.max(gap / limit)),
        "alpha exact": exact_alpha,
        "alpha (pair estimate)": pair.alpha,
        "alpha gap / limit": abs(pair.alpha - exact_alpha) / pair_limit,
    }


def monte_carlo_floor(
    released: np.ndarray, true: np.ndarray, moments: ReleaseMoments
) -> dict[str, float]:
    """The exact alpha, the plug-in alpha of the simulated releases (max minus min of the
    mean biases) and the plug-in alpha that normal means predict from the exact biases and
    variances (:func:`~dadp_lite.theory.expected_empirical_alpha`)."""
    reps = np.asarray(released).shape[0]
    return {
        "alpha exact": alpha_fairness(moments.bias),
        "alpha simulated": simulated_alpha(released, true).alpha,
        "alpha predicted": expected_empirical_alpha(moments.bias, np.sqrt(moments.variance / reps)),
    }


def simulate_grid(
    configs: Iterable[Config],
    datasets: Mapping[str, Dataset],
    exact: Mapping[Config, ReleaseMoments],
    summarise: Callable[[np.ndarray, np.ndarray, ReleaseMoments], Mapping[str, object]],
    *,
    reps: int,
    seeds: Mapping[Config, np.random.SeedSequence],
    settings: Mapping[str, object],
    chunk_size: int,
) -> pd.DataFrame:
    """One row per configuration (dataset, epsilon, mechanism): ``reps`` releases of the
    registered mechanism (its parameters from ``settings``) with the configuration's seed,
    summarised by ``summarise(releases, true counts, exact moments)``. One configuration's
    releases are held in memory at a time."""
    rows = []
    for config in configs:
        name, epsilon, mechanism = config
        entry = get(mechanism)
        released = simulate(
            entry.release,
            datasets[name],
            reps=reps,
            seed=seeds[config],
            chunk_size=chunk_size,
            progress=False,
            **entry.bind(settings, epsilon=epsilon),
        )
        true = datasets[name].histogram.counts
        row = {"dataset": name, "epsilon": epsilon, "mechanism": mechanism}
        rows.append(row | dict(summarise(released, true, exact[config])))
    return pd.DataFrame(rows)
