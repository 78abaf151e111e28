"""alpha-fairness of DP cell suppression, DP swapping and projected Laplace.

The paper bounds alpha (max bias minus min bias over cells) for each mechanism and then
compares the three bounds. This module holds

* the cell-suppression and swapping bounds exactly as printed (``*_as_printed``), computed
  from a histogram's counts in any order (the paper sorts them, so ``x_1`` is the minimum
  and ``x_n`` the maximum); the Laplace bound and the true Laplace alpha live in
  :mod:`dadp_lite.theory.baselines` (``laplace_alpha_as_printed``,
  ``projected_laplace_alpha``); :func:`alpha_laplace_proof_line` is the proof's own line;
* the TRUE alpha of each mechanism, the spread of its exact bias vector (per-cell DP cell
  suppression from :mod:`dadp_lite.theory.cell_suppression`, DP swapping from its QI
  transition matrix in :mod:`dadp_lite.theory.swapping`);
* a sharper swapping bound, ``2 (n_Q - 1)(x_n - x_1) / (e^eps + n_Q - 1)``, which is
  attained;
* a systematic counterexample search for the comparison theorem
  ("if ``2 <= x_1 <= k`` then ``alpha_Lap <= alpha_CS`` and ``alpha_Lap <= alpha_SW``"),
  read once about the printed bounds and once about the true alphas (its confirmation by
  simulation is in :mod:`dadp_lite.experiments.fairness`).

Every function accepts leading batch axes on the counts (``(..., n_cells)``, or
``(..., n_groups, n_Q)`` for swapping) and returns a float for a single histogram.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dadp_lite._types import BoolArray, FloatArray, FloatOrArray, IntArray
from dadp_lite._validate import check_counts, check_epsilon, check_positive_int
from dadp_lite.metrics import alpha_fairness
from dadp_lite.theory.baselines import projected_laplace_bias
from dadp_lite.theory.cell_suppression import (
    check_threshold,
    dp_cell_suppression_bias,
    suppression_probabilities,
)
from dadp_lite.theory.swapping import dp_swapping_transition_matrix

__all__ = [
    "ComparisonSearch",
    "SwappingSpread",
    "alpha_cell_suppression",
    "alpha_cell_suppression_as_printed",
    "alpha_laplace_proof_line",
    "alpha_swapping",
    "alpha_swapping_as_printed",
    "alpha_swapping_sharp_bound",
    "comparison_search",
    "swapping_bias",
    "swapping_bias_spread",
]

SEARCH_EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
SEARCH_K_VALUES = (2, 3, 4, 6, 8, 10, 15, 20)
_RELATIVE_SLACK = 1e-9  # round-off allowance when comparing two computed alphas


# --------------------------------------------------------------------------- helpers
def _counts(counts: object, name: str = "counts") -> FloatArray:
    x = check_counts(counts, name)
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(f"{name} must hold at least one cell")
    return x.astype(float)


def _qi_matrix(matrix: object) -> FloatArray:
    m = check_counts(matrix, "matrix")
    if m.ndim < 2:
        raise ValueError(f"matrix must have shape (..., n_groups, n_Q), got {m.shape}")
    check_positive_int(m.shape[-1], "n_q", minimum=2)
    return m.astype(float)


def _out(value: FloatArray) -> FloatOrArray:
    return float(value) if np.ndim(value) == 0 else value


# ------------------------------------------------------------------ printed bounds
def alpha_cell_suppression_as_printed(counts: object, *, k: float, epsilon: float) -> FloatOrArray:
    """``(x_n - x_1) p_1 + max{|k/2 - x_1|, |k/2 - x_n|} (p_1 - p_n)`` as printed.

    ``x_1``/``x_n`` are the smallest/largest counts and ``p_i = P(x_i + eta_i < k)``
    with ``eta_i ~ Lap(2/epsilon)`` (the paper's vector ``p``).
    """
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    x = _counts(counts)
    x1, xn = x.min(axis=-1), x.max(axis=-1)
    p1 = suppression_probabilities(x1, k=k, epsilon=epsilon)
    pn = suppression_probabilities(xn, k=k, epsilon=epsilon)
    far = np.maximum(np.abs(k / 2 - x1), np.abs(k / 2 - xn))
    return _out((xn - x1) * p1 + far * (p1 - pn))


def alpha_swapping_as_printed(counts: object, *, n_q: int, epsilon: float) -> FloatOrArray:
    """``2 n_Q (x_n - x_1) / (e^eps + n_Q - 1)`` as printed, ``x`` the whole histogram."""
    n_q = check_positive_int(n_q, "n_q", minimum=2)
    epsilon = check_epsilon(epsilon)
    x = _counts(counts)
    return _out(2 * n_q * (x.max(axis=-1) - x.min(axis=-1)) / (math.exp(epsilon) + n_q - 1))


def alpha_swapping_sharp_bound(counts: object, *, n_q: int, epsilon: float) -> FloatOrArray:
    """``2 (n_Q - 1)(x_n - x_1) / (e^eps + n_Q - 1)``: a bound that some grouping attains.

    Within a group of sum ``S`` the bias is ``(S - n_Q x_i) / (e^eps + n_Q - 1)``, so the
    largest bias is at most ``sum_j (x_j - min) <= (n_Q - 1)(x_n - x_1)`` over the
    denominator and the smallest at least minus the same amount. A group ``(x_1, x_n, ...,
    x_n)`` next to a group ``(x_n, x_1, ..., x_1)`` attains both.
    """
    n_q = check_positive_int(n_q, "n_q", minimum=2)
    epsilon = check_epsilon(epsilon)
    x = _counts(counts)
    return _out(2 * (n_q - 1) * (x.max(axis=-1) - x.min(axis=-1)) / (math.exp(epsilon) + n_q - 1))


def _laplace_as_printed(x: FloatArray, epsilon: float) -> FloatArray:
    """Batched form of :func:`dadp_lite.theory.baselines.laplace_alpha_as_printed` for the
    search (tests check the two agree): ``exp(-eps x_1/2)/2 * (x_n - x_1)`` per row."""
    x1, xn = x.min(axis=-1), x.max(axis=-1)
    alpha: FloatArray = np.exp(-epsilon * x1 / 2) / 2 * (xn - x1)
    return alpha


def alpha_laplace_proof_line(counts: object, *, epsilon: float) -> FloatOrArray:
    """The proof's exact line ``(exp(-eps x_1/2) - exp(-eps x_n/2)) / eps``."""
    epsilon = check_epsilon(epsilon)
    x = _counts(counts)
    x1, xn = x.min(axis=-1), x.max(axis=-1)
    return _out((np.exp(-epsilon * x1 / 2) - np.exp(-epsilon * xn / 2)) / epsilon)


# ----------------------------------------------------------------------- true alphas
def alpha_cell_suppression(counts: object, *, k: float, epsilon: float) -> FloatOrArray:
    """True alpha of per-cell DP cell suppression: spread of its exact bias vector."""
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    x = _counts(counts)
    return alpha_fairness(dp_cell_suppression_bias(x, k=k, epsilon=epsilon, variant="per_cell"))


def _laplace_true(x: IntArray, epsilon: float) -> FloatArray:
    """True alpha of projected Laplace per row, from the exact per-cell bias
    :func:`dadp_lite.theory.baselines.projected_laplace_bias` (batched)."""
    return np.asarray(alpha_fairness(projected_laplace_bias(x, epsilon=epsilon)))


def swapping_bias(matrix: object, *, epsilon: float) -> FloatArray:
    """Exact DP swapping bias ``x T - x`` per cell of a QI matrix ``(..., n_groups, n_Q)``.

    ``T`` is the QI transition matrix (keep with probability gamma, otherwise move to a
    uniform other QI value); both units (cell, record) have this expectation.
    """
    epsilon = check_epsilon(epsilon)
    m = _qi_matrix(matrix)
    bias: FloatArray = m @ dp_swapping_transition_matrix(epsilon, m.shape[-1]) - m
    return bias


def alpha_swapping(matrix: object, *, epsilon: float) -> FloatOrArray:
    """True alpha of DP swapping on a QI matrix ``(..., n_groups, n_Q)`` (rows = groups)."""
    return alpha_fairness(swapping_bias(matrix, epsilon=epsilon), axis=(-2, -1))


@dataclass(frozen=True)
class SwappingSpread:
    """Where the spread of the DP swapping bias of one QI matrix comes from.

    The bias of cell ``i`` of QI group ``g`` is ``(S_g - n_Q x_i) / (e^eps + n_Q - 1)``
    (``S_g`` the group's total), so ``alpha_SW = spread / (e^eps + n_Q - 1)`` at every
    epsilon, with ``spread`` the range of ``S_g - n_Q x_i`` over all cells.

    Attributes
    ----------
    n_q
        Number of QI values.
    spread
        ``max - min`` of ``S_g - n_Q x_i`` over the cells.
    largest, smallest
        The largest and smallest counts ``x_n`` and ``x_1``.
    group_min
        ``m``, the smallest count in the QI group of the largest cell.
    in_largest_group
        Whether both extremes of ``S_g - n_Q x_i`` sit in that group (the largest at a
        cell of count ``m``, the smallest at ``x_n``); then ``spread = n_Q (x_n - m)``.
    """

    n_q: int
    spread: float
    largest: int
    smallest: int
    group_min: int
    in_largest_group: bool

    def alpha(self, epsilon: float) -> float:
        """``alpha_SW = spread / (e^eps + n_Q - 1)``."""
        return self.spread / (math.exp(check_epsilon(epsilon)) + self.n_q - 1)

    @property
    def printed_ratio(self) -> float:
        """Printed bound over the true alpha, ``2 n_Q (x_n - x_1) / spread`` (epsilon
        cancels); ``2 (x_n - x_1) / (x_n - m)`` when :attr:`in_largest_group`."""
        top = 2 * self.n_q * (self.largest - self.smallest)
        if self.spread > 0:
            return top / self.spread
        return math.inf if top > 0 else 1.0  # a constant histogram: bound and truth are 0


def swapping_bias_spread(matrix: object) -> SwappingSpread:
    """The spread of the DP swapping bias of one QI matrix ``(n_groups, n_Q)``, and whether
    it comes from the group of the largest cell (:class:`SwappingSpread`)."""
    m = _qi_matrix(matrix)
    if m.ndim != 2:
        raise ValueError(f"matrix must have shape (n_groups, n_Q), got {m.shape}")
    n_q = m.shape[1]
    values = m.sum(axis=1, keepdims=True) - n_q * m
    group, column = np.unravel_index(int(np.argmax(m)), m.shape)
    # within a group S_g - n_Q x_i is largest at the group's smallest count
    same = bool(values.max() == values[group].max() and values.min() == values[group, column])
    return SwappingSpread(n_q=n_q, spread=float(values.max() - values.min()),
                          largest=int(m.max()), smallest=int(m.min()),
                          group_min=int(m[group].min()), in_largest_group=same)  # fmt: skip


# ---------------------------------------------------------------- counterexample search
def _sorted_histograms(n_cells: int, max_count: int) -> IntArray:
    """Every multiset of ``n_cells`` counts in 0..max_count, sorted increasingly (rows)."""
    combos = itertools.combinations_with_replacement(range(max_count + 1), n_cells)
    return np.array(list(combos), dtype=np.int64).reshape(-1, n_cells)


def _qi_structures(n_q: int, n_groups: int, max_count: int) -> IntArray:
    """One QI matrix per class of matrices equal up to permuting QI values within a group
    and permuting groups (alpha is invariant under both): shape (m, n_groups, n_q)."""
    rows = _sorted_histograms(n_q, max_count)
    picks = itertools.combinations_with_replacement(range(rows.shape[0]), n_groups)
    index = np.array(list(picks), dtype=np.int64).reshape(-1, n_groups)
    return rows[index]


@dataclass(frozen=True)
class ComparisonSearch:
    """Result of :func:`comparison_search`.

    ``violations``: one row per (histogram, epsilon, k) where alpha_Lap exceeds the other
    mechanism's alpha, smallest counterexamples first. ``summary``: per comparison and
    quantity, how many configurations were checked and how many violate.
    """

    violations: pd.DataFrame
    summary: pd.DataFrame


def _violation_frame(
    mask: BoolArray,
    hists: IntArray,
    eps: float,
    k: float,
    lap: FloatArray,
    other: FloatArray,
    comparison: str,
    quantity: str,
    n_q: float,
    hyp: BoolArray,
) -> pd.DataFrame:
    idx = np.flatnonzero(mask)
    if idx.size == 0:
        return pd.DataFrame()
    h = hists[idx]
    flat = h.reshape(idx.size, -1)
    return pd.DataFrame(
        {
            "comparison": comparison,
            "quantity": quantity,
            "counts": [tuple(int(v) for v in row) for row in flat],
            "n_cells": flat.shape[1],
            "n_q": n_q,
            "x_min": flat.min(axis=1),
            "x_max": flat.max(axis=1),
            "total": flat.sum(axis=1),
            "epsilon": eps,
            "k": k,
            "alpha_lap": lap[idx],
            "alpha_other": other[idx],
            "excess": lap[idx] - other[idx],
            "hypothesis": hyp[idx],
        }
    )


def _exceeds(lap: FloatArray, other: FloatArray) -> BoolArray:
    exceeds: BoolArray = lap > other + _RELATIVE_SLACK * np.maximum(1.0, np.abs(other))
    return exceeds


#: One row of :attr:`ComparisonSearch.summary` before grouping: comparison, quantity,
#: n_cells, n_q (NaN for cell suppression), configurations checked, violations.
_SummaryRow = tuple[str, str, int, float, int, int]


def _search_cell_suppression(
    n_cells: Sequence[int],
    max_count: int,
    epsilons: Sequence[float],
    k_values: Sequence[float],
    hypothesis_only: bool,
) -> tuple[list[pd.DataFrame], list[_SummaryRow]]:
    frames: list[pd.DataFrame] = []
    summary: list[_SummaryRow] = []
    for n in n_cells:
        hists = _sorted_histograms(n, max_count)
        x1 = hists[:, 0]
        for eps in epsilons:
            lap_printed = _laplace_as_printed(hists.astype(float), eps)
            lap_true = _laplace_true(hists, eps)
            for k in k_values:
                hyp = (x1 >= 2) & (x1 <= k)
                scope = hyp if hypothesis_only else np.ones_like(hyp)
                for quantity, lap, other in (
                    (
                        "printed",
                        lap_printed,
                        np.asarray(alpha_cell_suppression_as_printed(hists, k=k, epsilon=eps)),
                    ),
                    ("true", lap_true, np.asarray(alpha_cell_suppression(hists, k=k, epsilon=eps))),
                ):
                    bad = scope & _exceeds(lap, other)
                    summary.append(("laplace_vs_cell_suppression", quantity, n, np.nan,
                                    int(scope.sum()), int(bad.sum())))  # fmt: skip
                    frames.append(_violation_frame(bad, hists, eps, float(k), lap, other,
                                                   "laplace_vs_cell_suppression", quantity,
                                                   np.nan, hyp))  # fmt: skip
    return frames, summary


def _search_swapping(
    n_cells: Sequence[int],
    n_qs: Sequence[int],
    max_count: int,
    epsilons: Sequence[float],
    hypothesis_only: bool,
) -> tuple[list[pd.DataFrame], list[_SummaryRow]]:
    frames: list[pd.DataFrame] = []
    summary: list[_SummaryRow] = []
    for n_q in n_qs:
        for n in n_cells:
            if n % n_q:
                continue
            mats = _qi_structures(n_q, n // n_q, max_count)
            flat = mats.reshape(mats.shape[0], -1)
            hyp = flat.min(axis=1) >= 2  # 2 <= x_1 <= k holds for some k iff x_1 >= 2
            scope = hyp if hypothesis_only else np.ones_like(hyp)
            for eps in epsilons:
                lap_printed = _laplace_as_printed(flat.astype(float), eps)
                lap_true = _laplace_true(flat, eps)
                for quantity, lap, other in (
                    (
                        "printed",
                        lap_printed,
                        np.asarray(alpha_swapping_as_printed(flat, n_q=n_q, epsilon=eps)),
                    ),
                    ("true", lap_true, np.asarray(alpha_swapping(mats, epsilon=eps))),
                ):
                    bad = scope & _exceeds(lap, other)
                    summary.append(("laplace_vs_swapping", quantity, n, n_q,
                                    int(scope.sum()), int(bad.sum())))  # fmt: skip
                    frames.append(_violation_frame(
                        bad, mats, eps, np.nan, lap, other, "laplace_vs_swapping", quantity,
                        n_q, hyp))  # fmt: skip
    return frames, summary


def comparison_search(
    *,
    n_cells: Sequence[int] = (2, 3, 4),
    max_count: int = 30,
    epsilons: Sequence[float] = SEARCH_EPSILONS,
    k_values: Sequence[float] = SEARCH_K_VALUES,
    n_qs: Sequence[int] = (2, 3, 4),
    hypothesis_only: bool = True,
) -> ComparisonSearch:
    """Search small histograms for counterexamples to the fairness comparison theorem.

    Checks ``alpha_Lap <= alpha_CS`` over every sorted histogram with ``n_cells`` cells and
    counts ``0..max_count`` and every ``(epsilon, k)`` of the grids, and ``alpha_Lap <=
    alpha_SW`` over every QI matrix with ``n_Q`` in ``n_qs`` and ``n_cells`` a multiple of
    ``n_Q`` (one representative per class of matrices equal up to permutations within and
    of groups). Each comparison is made twice: ``quantity="printed"`` compares the three
    printed bounds, ``quantity="true"`` the true alphas of the exact bias vectors.

    With ``hypothesis_only`` (default) only configurations meeting the theorem's
    hypothesis ``2 <= x_1 <= k`` are checked; swapping rows do not depend on ``k`` (their
    ``k`` is NaN) and meet the hypothesis when ``x_1 >= 2``. A violation needs alpha_Lap
    to exceed the other alpha by more than a relative ``1e-9`` (round-off).

    Violations are sorted smallest first: fewest cells, smallest maximum count, smallest
    total, then epsilon and k.
    """
    n_cells = [check_positive_int(n, "n_cells", minimum=2) for n in n_cells]
    max_count = check_positive_int(max_count, "max_count")
    epsilons = [check_epsilon(e) for e in epsilons]
    k_values = [check_threshold(k) for k in k_values]
    n_qs = [check_positive_int(q, "n_q", minimum=2) for q in n_qs]
    if not (n_cells and epsilons and k_values and n_qs):
        raise ValueError("n_cells, epsilons, k_values and n_qs must be non-empty")
    frames_cs, summary_cs = _search_cell_suppression(
        n_cells, max_count, epsilons, k_values, hypothesis_only
    )
    frames_sw, summary_sw = _search_swapping(n_cells, n_qs, max_count, epsilons, hypothesis_only)
    frames = [f for f in frames_cs + frames_sw if not f.empty]
    columns = ["comparison", "quantity", "counts", "n_cells", "n_q", "x_min", "x_max", "total",
               "epsilon", "k", "alpha_lap", "alpha_other", "excess", "hypothesis"]  # fmt: skip
    violations = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    violations = violations.sort_values(
        ["comparison", "quantity", "n_cells", "x_max", "total", "counts", "epsilon", "k"],
        kind="stable",
    ).reset_index(drop=True)
    summary = pd.DataFrame(
        summary_cs + summary_sw,
        columns=["comparison", "quantity", "n_cells", "n_q", "checked", "violations"],
    )
    summary = summary.groupby(["comparison", "quantity"], as_index=False)[
        ["checked", "violations"]
    ].sum()
    return ComparisonSearch(violations, summary)
