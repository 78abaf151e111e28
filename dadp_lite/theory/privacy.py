"""Exact (epsilon, delta) accounting for mechanisms with finite (or finitely summarised)
output distributions.

For two output distributions P, Q the smallest delta with P(S) <= e^eps Q(S) + delta for all
events S is the hockey-stick divergence ``H_eps(P || Q) = sum_o max(P(o) - e^eps Q(o), 0)``.
A mechanism is (eps, delta)-DP for an adjacency relation iff delta is at least the largest
``H_eps`` over all ordered neighbouring pairs, which is why both orders are taken.

Adjacency is always named explicitly (the paper never says which one it uses):

``"replace"``
    replace-one record: ``x' = x - e_i + e_j`` (one record changes cell i -> j, i != j).
``"add_remove"``
    add or remove one record: ``x' = x +- e_i``.
``"qi_replace"``
    replace only the quasi-identifier of one record: like ``"replace"`` but i and j must
    share their non-QI values (same row of the QI matrix). Needs ``groups``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import TypeAlias, overload

import numpy as np

from dadp_lite._types import FloatArray, FloatOrArray, IntArray
from dadp_lite._validate import (
    check_choice,
    check_counts,
    check_epsilons,
    check_positive_int,
    check_probability,
)
from dadp_lite.definitions import ADJACENCIES

__all__ = [
    "ADJACENCIES",
    "binomial_pmf",
    "check_distribution",
    "deterministic_worst_case_delta",
    "distinguishing_pair",
    "exact_delta",
    "hockey_stick",
    "histograms_up_to",
    "neighbours",
    "worst_case_delta",
]

#: The non-QI group of each cell (``"qi_replace"`` moves a record within its group).
CellGroups: TypeAlias = Sequence[int] | IntArray


def check_distribution(p: object, name: str = "p", atol: float = 1e-9) -> FloatArray:
    """Return ``p`` as a float array after checking it is a probability vector."""
    try:
        array: FloatArray = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of probabilities, got {p!r}") from None
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d probability vector")
    if not np.all(np.isfinite(array)) or np.any(array < -atol):
        raise ValueError(f"{name} must be finite and non-negative")
    total = array.sum()
    if abs(total - 1.0) > max(atol, 1e-12 * array.size):
        raise ValueError(f"{name} must sum to 1, sums to {total!r}")
    clipped: FloatArray = np.clip(array, 0.0, None)
    return clipped


@overload
def hockey_stick(p: object, q: object, epsilon: float) -> float: ...
@overload
def hockey_stick(p: object, q: object, epsilon: object) -> FloatOrArray: ...
def hockey_stick(p: object, q: object, epsilon: object) -> FloatOrArray:
    """``sum_o max(p(o) - e^eps q(o), 0)``: the exact delta of P against Q at ``epsilon``.

    ``p`` and ``q`` are probability vectors over the same outcomes; ``epsilon`` may be an
    array (the result then has its shape). epsilon = 0 gives the total variation distance.
    """
    p = check_distribution(p, "p")
    q = check_distribution(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got {p.shape} and {q.shape}")
    eps = check_epsilons(epsilon, allow_zero=True)
    # exp(eps) overflows to inf for eps > ~709; inf * 0 would give nan where q(o) = 0, so
    # outcomes with q(o) = 0 contribute p(o) directly.
    with np.errstate(over="ignore"):
        scaled_q = np.exp(eps.reshape(-1, 1)) * np.where(q > 0, q, 1.0)[None, :]
    gaps = np.where(q[None, :] > 0, p[None, :] - scaled_q, p[None, :])
    result = np.maximum(gaps, 0.0).sum(axis=1)
    return float(result[0]) if eps.ndim == 0 else result.reshape(eps.shape)


@overload
def exact_delta(p: object, q: object, epsilon: float) -> float: ...
@overload
def exact_delta(p: object, q: object, epsilon: object) -> FloatOrArray: ...
def exact_delta(p: object, q: object, epsilon: object) -> FloatOrArray:
    """Smallest delta valid in both directions: ``max(H(P||Q), H(Q||P))``."""
    return np.maximum(hockey_stick(p, q, epsilon), hockey_stick(q, p, epsilon))


def histograms_up_to(n_cells: int, bound: int) -> IntArray:
    """All histograms with ``n_cells`` cells and counts in 0..bound, shape (m, n_cells)."""
    n_cells = check_positive_int(n_cells, "n_cells")
    bound = check_positive_int(bound, "bound")
    if (bound + 1) ** n_cells > 5_000_000:
        raise ValueError(
            f"(bound + 1) ** n_cells = {(bound + 1) ** n_cells} is too many histograms"
        )
    grids = np.meshgrid(*[np.arange(bound + 1)] * n_cells, indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1).astype(np.int64)


def neighbours(
    x: object,
    adjacency: str,
    bound: int,
    groups: CellGroups | None = None,
) -> Iterator[IntArray]:
    """Yield every neighbour of histogram ``x`` whose counts stay within 0..bound.

    ``groups[i]`` is the non-QI group of cell i (needed for ``"qi_replace"``). Arguments are
    checked when ``neighbours`` is called, not lazily at the first ``next()``.
    """
    bound = check_positive_int(bound, "bound")
    x = check_counts(x, "x")
    if x.ndim != 1:
        raise ValueError(f"x must be a 1-d histogram, got shape {x.shape}")
    if np.any(x > bound):
        raise ValueError(f"x must have counts in 0..bound = 0..{bound}, got max {x.max()}")
    check_choice(adjacency, "adjacency", ADJACENCIES)
    if adjacency == "qi_replace":
        if groups is None:
            raise ValueError("adjacency 'qi_replace' needs groups (the non-QI group of each cell)")
        if len(groups) != x.size:
            raise ValueError(f"groups must have one entry per cell ({x.size}), got {len(groups)}")
    return _neighbours(x, adjacency, bound, groups)


def _neighbours(
    x: IntArray,
    adjacency: str,
    bound: int,
    groups: CellGroups | None,
) -> Iterator[IntArray]:
    n = x.size
    if adjacency == "add_remove":
        for i in range(n):
            for step in (1, -1):
                y = x.copy()
                y[i] += step
                if 0 <= y[i] <= bound:
                    yield y
        return
    for i, j in itertools.permutations(range(n), 2):
        if adjacency == "qi_replace" and groups is not None and groups[i] != groups[j]:
            continue
        if x[i] >= 1 and x[j] + 1 <= bound:
            y = x.copy()
            y[i] -= 1
            y[j] += 1
            yield y


@overload
def worst_case_delta(
    output_distribution: Callable[[IntArray], object],
    n_cells: int,
    bound: int,
    adjacency: str,
    epsilon: float,
    groups: CellGroups | None = None,
) -> float: ...
@overload
def worst_case_delta(
    output_distribution: Callable[[IntArray], object],
    n_cells: int,
    bound: int,
    adjacency: str,
    epsilon: object,
    groups: CellGroups | None = None,
) -> FloatOrArray: ...
def worst_case_delta(
    output_distribution: Callable[[IntArray], object],
    n_cells: int,
    bound: int,
    adjacency: str,
    epsilon: object,
    groups: CellGroups | None = None,
) -> FloatOrArray:
    """Largest exact delta over all ordered neighbouring pairs of small histograms.

    ``output_distribution(x)`` must return the mechanism's full output distribution on
    histogram ``x`` as a probability vector over a fixed, common outcome list.
    Histograms range over all of ``{0..bound}^n_cells``.
    """
    cache: dict[tuple[int, ...], FloatArray] = {}

    def dist(h: IntArray) -> FloatArray:
        key = tuple(int(v) for v in h)
        if key not in cache:
            cache[key] = check_distribution(output_distribution(h), "output_distribution(x)")
        return cache[key]

    eps = check_epsilons(epsilon, allow_zero=True)
    worst = np.zeros(eps.shape) if eps.ndim else 0.0
    for x in histograms_up_to(n_cells, bound):
        for y in neighbours(x, adjacency, bound, groups):
            worst = np.maximum(worst, hockey_stick(dist(x), dist(y), eps))
    return float(worst) if np.ndim(worst) == 0 else worst


def deterministic_worst_case_delta(
    release: Callable[[IntArray], object],
    n_cells: int,
    bound: int,
    adjacency: str,
    groups: CellGroups | None = None,
) -> float:
    """Exact delta of a deterministic mechanism over small histograms: 1 if two neighbours
    (counts in 0..bound) get different outputs, else 0, at every epsilon.

    A deterministic mechanism puts all its mass on one output, so the hockey-stick divergence
    of a pair is 1 when the outputs differ and 0 when they agree. ``release(x)`` returns the
    output (or any statistic of it that the mechanism fixes exactly) as an array.
    """
    return 0.0 if distinguishing_pair(release, n_cells, bound, adjacency, groups) is None else 1.0


def distinguishing_pair(
    release: Callable[[IntArray], object],
    n_cells: int,
    bound: int,
    adjacency: str,
    groups: CellGroups | None = None,
) -> tuple[IntArray, IntArray] | None:
    """The first neighbouring pair (counts in 0..bound, histograms in C order) on which the
    deterministic ``release`` differs, or None if it agrees on every pair."""
    for x in histograms_up_to(n_cells, bound):
        out_x = np.asarray(release(x))
        for y in neighbours(x, adjacency, bound, groups):
            if not np.array_equal(out_x, np.asarray(release(y))):
                return x, y
    return None


def binomial_pmf(n: int, p: float) -> FloatArray:
    """pmf of Binomial(n, p) over 0..n, computed in log space (exact to rounding)."""
    n = check_positive_int(n, "n", minimum=0)
    p = check_probability(p, "p", open_low=False)
    k = np.arange(n + 1)
    if p in (0.0, 1.0):
        out = np.zeros(n + 1)
        out[0 if p == 0.0 else n] = 1.0
        return out
    log_choose = np.array(
        [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k]
    )
    pmf: FloatArray = np.exp(log_choose + k * math.log(p) + (n - k) * math.log1p(-p))
    return pmf
