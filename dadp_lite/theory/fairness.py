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
  read once about the printed bounds and once about the true alphas;
* Monte Carlo helpers: per-cell z-scores of simulated against exact biases and the
  simulated alpha with a delta-method standard error.

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

from dadp_lite._validate import check_counts, check_epsilon, check_positive_int
from dadp_lite.mechanisms.cell_suppression import check_threshold
from dadp_lite.theory.baselines import projected_laplace_bias
from dadp_lite.theory.cell_suppression import dp_cell_suppression_bias, suppression_probabilities
from dadp_lite.theory.swapping import dp_swapping_transition_matrix

__all__ = [
    "ComparisonSearch",
    "CounterexampleCheck",
    "SimulatedAlpha",
    "alpha_cell_suppression",
    "alpha_cell_suppression_as_printed",
    "alpha_laplace_proof_line",
    "alpha_swapping",
    "alpha_swapping_as_printed",
    "alpha_swapping_sharp_bound",
    "bias_z_scores",
    "comparison_search",
    "confirm_counterexample",
    "simulated_alpha",
    "spread",
    "swapping_bias",
]

SEARCH_EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
SEARCH_K_VALUES = (2, 3, 4, 6, 8, 10, 15, 20)
_RELATIVE_SLACK = 1e-9  # round-off allowance when comparing two computed alphas


# --------------------------------------------------------------------------- helpers
def _counts(counts: object, name: str = "counts") -> np.ndarray:
    x = check_counts(counts, name)
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(f"{name} must hold at least one cell")
    return x.astype(float)


def _qi_matrix(matrix: object) -> np.ndarray:
    m = check_counts(matrix, "matrix")
    if m.ndim < 2:
        raise ValueError(f"matrix must have shape (..., n_groups, n_Q), got {m.shape}")
    check_positive_int(m.shape[-1], "n_q", minimum=2)
    return m.astype(float)


def _out(value: np.ndarray) -> float | np.ndarray:
    return float(value) if np.ndim(value) == 0 else value


def spread(bias: object, axis: int | tuple[int, ...] = -1) -> float | np.ndarray:
    """max minus min along ``axis``: the alpha of a bias vector (Definition of alpha-fairness)."""
    bias = np.asarray(bias, dtype=float)
    if bias.size == 0:
        raise ValueError("bias is empty")
    return _out(bias.max(axis=axis) - bias.min(axis=axis))


# ------------------------------------------------------------------ printed bounds
def alpha_cell_suppression_as_printed(
    counts: object, *, k: float, epsilon: float
) -> float | np.ndarray:
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


def alpha_swapping_as_printed(counts: object, *, n_q: int, epsilon: float) -> float | np.ndarray:
    """``2 n_Q (x_n - x_1) / (e^eps + n_Q - 1)`` as printed, ``x`` the whole histogram."""
    n_q = check_positive_int(n_q, "n_q", minimum=2)
    epsilon = check_epsilon(epsilon)
    x = _counts(counts)
    return _out(2 * n_q * (x.max(axis=-1) - x.min(axis=-1)) / (math.exp(epsilon) + n_q - 1))


def alpha_swapping_sharp_bound(counts: object, *, n_q: int, epsilon: float) -> float | np.ndarray:
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


def _laplace_as_printed(x: np.ndarray, epsilon: float) -> np.ndarray:
    """Batched form of :func:`dadp_lite.theory.baselines.laplace_alpha_as_printed` for the
    search (tests check the two agree): ``exp(-eps x_1/2)/2 * (x_n - x_1)`` per row."""
    x1, xn = x.min(axis=-1), x.max(axis=-1)
    return np.exp(-epsilon * x1 / 2) / 2 * (xn - x1)


def alpha_laplace_proof_line(counts: object, *, epsilon: float) -> float | np.ndarray:
    """The proof's exact line ``(exp(-eps x_1/2) - exp(-eps x_n/2)) / eps``."""
    epsilon = check_epsilon(epsilon)
    x = _counts(counts)
    x1, xn = x.min(axis=-1), x.max(axis=-1)
    return _out((np.exp(-epsilon * x1 / 2) - np.exp(-epsilon * xn / 2)) / epsilon)


# ----------------------------------------------------------------------- true alphas
def alpha_cell_suppression(counts: object, *, k: float, epsilon: float) -> float | np.ndarray:
    """True alpha of per-cell DP cell suppression: spread of its exact bias vector."""
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    x = _counts(counts)
    return spread(dp_cell_suppression_bias(x, k=k, epsilon=epsilon, variant="per_cell"))


def _laplace_true(x: np.ndarray, epsilon: float) -> np.ndarray:
    """True alpha of projected Laplace per row, from the exact per-cell bias
    :func:`dadp_lite.theory.baselines.projected_laplace_bias` (batched)."""
    return np.asarray(spread(projected_laplace_bias(x, epsilon=epsilon)))


def swapping_bias(matrix: object, *, epsilon: float) -> np.ndarray:
    """Exact DP swapping bias ``x T - x`` per cell of a QI matrix ``(..., n_groups, n_Q)``.

    ``T`` is the QI transition matrix (keep with probability gamma, otherwise move to a
    uniform other QI value); both units (cell, record) have this expectation.
    """
    epsilon = check_epsilon(epsilon)
    m = _qi_matrix(matrix)
    return m @ dp_swapping_transition_matrix(epsilon, m.shape[-1]) - m


def alpha_swapping(matrix: object, *, epsilon: float) -> float | np.ndarray:
    """True alpha of DP swapping on a QI matrix ``(..., n_groups, n_Q)`` (rows = groups)."""
    return spread(swapping_bias(matrix, epsilon=epsilon), axis=(-2, -1))


# ---------------------------------------------------------------- counterexample search
def _sorted_histograms(n_cells: int, max_count: int) -> np.ndarray:
    """Every multiset of ``n_cells`` counts in 0..max_count, sorted increasingly (rows)."""
    combos = itertools.combinations_with_replacement(range(max_count + 1), n_cells)
    return np.array(list(combos), dtype=np.int64).reshape(-1, n_cells)


def _qi_structures(n_q: int, n_groups: int, max_count: int) -> np.ndarray:
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
    mask, hists, eps, k, lap, other, comparison, quantity, n_q, hyp
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


def _exceeds(lap: np.ndarray, other: np.ndarray) -> np.ndarray:
    return lap > other + _RELATIVE_SLACK * np.maximum(1.0, np.abs(other))


def _search_cell_suppression(n_cells, max_count, epsilons, k_values, hypothesis_only):
    frames, summary = [], []
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
                        alpha_cell_suppression_as_printed(hists, k=k, epsilon=eps),
                    ),
                    ("true", lap_true, alpha_cell_suppression(hists, k=k, epsilon=eps)),
                ):
                    bad = scope & _exceeds(lap, other)
                    summary.append(("laplace_vs_cell_suppression", quantity, n, np.nan,
                                    int(scope.sum()), int(bad.sum())))  # fmt: skip
                    frames.append(_violation_frame(bad, hists, eps, float(k), lap, other,
                                                   "laplace_vs_cell_suppression", quantity,
                                                   np.nan, hyp))  # fmt: skip
    return frames, summary


def _search_swapping(n_cells, n_qs, max_count, epsilons, hypothesis_only):
    frames, summary = [], []
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
                    ("printed", lap_printed, alpha_swapping_as_printed(flat, n_q=n_q, epsilon=eps)),
                    ("true", lap_true, alpha_swapping(mats, epsilon=eps)),
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


# ------------------------------------------------------------------------- Monte Carlo
def bias_z_scores(
    released: object,
    true: object,
    exact_bias: object,
    exact_variance: object | None = None,
) -> np.ndarray:
    """Per-cell z-scores of the simulated bias against an exact bias vector.

    ``released`` has shape ``(reps, n_cells)``. The standard error of cell i is
    ``sqrt(v_i / reps)`` with ``v_i`` the larger of the sample variance and, when given,
    the exact variance of the release. The exact variance guards against cells whose
    release is a rare event that never occurs in ``reps`` draws (sample variance 0); the
    sample variance guards against the opposite, a rare event that occurs once (the
    normal approximation with the exact variance would then give a huge z). Cells whose
    standard error is 0 get z = 0 when the gap is round-off, infinity otherwise.
    """
    released = np.asarray(released, dtype=float)
    if released.ndim != 2 or released.shape[0] < 2:
        raise ValueError(f"released must have shape (reps >= 2, n_cells), got {released.shape}")
    true = np.asarray(true, dtype=float)
    exact_bias = np.asarray(exact_bias, dtype=float)
    reps = released.shape[0]
    variance = released.var(axis=0, ddof=1)
    if exact_variance is not None:
        variance = np.maximum(variance, np.asarray(exact_variance, dtype=float))
    se = np.sqrt(variance / reps)
    gap = released.mean(axis=0) - true - exact_bias
    tiny = 1e-9 * (1.0 + np.abs(true))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, gap / se, np.where(np.abs(gap) <= tiny, 0.0, np.inf))


@dataclass(frozen=True)
class SimulatedAlpha:
    """Plug-in alpha of simulated releases with a delta-method standard error.

    ``alpha`` = max minus min of the per-cell mean bias; ``se`` = standard error of the
    difference between the two cells attaining them (``cell_max``, ``cell_min``), from the
    per-repetition differences. The plug-in alpha is biased upwards by the Monte Carlo
    noise (a maximum of noisy means); the SE does not include that floor.
    """

    alpha: float
    se: float
    cell_max: int
    cell_min: int
    reps: int


def simulated_alpha(
    released: object, true: object, cells: tuple[int, int] | None = None
) -> SimulatedAlpha:
    """Alpha of simulated releases ``(reps, n_cells)`` around the histogram ``true``.

    By default the plug-in estimate (max minus min of the mean biases; biased upwards).
    With ``cells=(i, j)`` the estimate is the mean bias of cell i minus that of cell j,
    which is unbiased for ``alpha`` when i and j are the cells where the exact bias is
    largest and smallest (it never exceeds the true alpha in expectation otherwise).
    """
    released = np.asarray(released, dtype=float)
    if released.ndim != 2 or released.shape[0] < 2:
        raise ValueError(f"released must have shape (reps >= 2, n_cells), got {released.shape}")
    bias = released.mean(axis=0) - np.asarray(true, dtype=float)
    if cells is None:
        hi, lo = int(np.argmax(bias)), int(np.argmin(bias))
    else:
        hi, lo = (int(c) for c in cells)
        if not (0 <= hi < bias.size and 0 <= lo < bias.size):
            raise ValueError(f"cells must index the {bias.size} cells, got {cells}")
    diff = released[:, hi] - released[:, lo]
    se = float(diff.std(ddof=1) / math.sqrt(released.shape[0]))
    return SimulatedAlpha(float(bias[hi] - bias[lo]), se, hi, lo, released.shape[0])


# ------------------------------------------------------- counterexamples by simulation
@dataclass(frozen=True)
class CounterexampleCheck:
    """Simulation of one counterexample: exact and simulated alphas of both mechanisms.

    ``z`` = (simulated alpha_Lap - simulated alpha_other) / combined SE. The Laplace alpha
    is estimated without bias from the two cells where its exact bias is largest and
    smallest; the other mechanism's alpha by the plug-in max minus min, which is biased
    upwards, so a positive ``z`` is conservative evidence that alpha_Lap is larger.
    """

    alpha_lap_exact: float
    alpha_other_exact: float
    alpha_lap: SimulatedAlpha
    alpha_other: SimulatedAlpha
    z: float
    reps: int


def _qi_histogram(flat: np.ndarray, n_q: int):
    from dadp_lite.histogram import Histogram

    groups = flat.size // n_q
    return Histogram(flat, ("group", "qi"), (tuple(range(groups)), tuple(range(n_q))))


def _other_release(comparison, x, epsilon, k, n_q, unit):
    from dadp_lite.mechanisms.cell_suppression import dp_cell_suppression
    from dadp_lite.mechanisms.swapping import dp_swapping

    if comparison == "laplace_vs_cell_suppression":
        exact = alpha_cell_suppression(x, k=k, epsilon=epsilon)
        return exact, dp_cell_suppression, x, {"k": k, "epsilon": epsilon}
    hist = _qi_histogram(x, n_q)
    exact = alpha_swapping(x.reshape(-1, n_q), epsilon=epsilon)
    return exact, dp_swapping, hist, {"qi": ("qi",), "epsilon": epsilon, "unit": unit}


def confirm_counterexample(
    counts: object,
    *,
    comparison: str,
    epsilon: float,
    seed: int,
    k: float | None = None,
    n_q: int | None = None,
    unit: str = "cell",
    pilot_reps: int = 5_000,
    max_reps: int = 2_000_000,
    target_z: float = 8.0,
) -> CounterexampleCheck:
    """Simulate projected Laplace and the other mechanism on ``counts``.

    ``comparison`` is ``"laplace_vs_cell_suppression"`` (needs ``k``) or
    ``"laplace_vs_swapping"`` (needs ``n_q``; ``counts`` is the QI matrix flattened row by
    row, as in :func:`comparison_search`). A pilot run of ``pilot_reps`` sets the number of
    repetitions so that the expected z reaches ``target_z`` (at most ``max_reps``); the
    final run uses fresh seeds. Both mechanisms run through :func:`dadp_lite.simulate`.
    """
    from dadp_lite.mechanisms.laplace import laplace
    from dadp_lite.simulate import simulate

    if comparison not in ("laplace_vs_cell_suppression", "laplace_vs_swapping"):
        raise ValueError(f"unknown comparison {comparison!r}")
    epsilon = check_epsilon(epsilon)
    x = check_counts(counts)
    if comparison == "laplace_vs_cell_suppression":
        k = check_threshold(k)
    else:
        n_q = check_positive_int(n_q, "n_q", minimum=2)
        if x.size % n_q:
            raise ValueError(f"counts has {x.size} cells, not a multiple of n_q={n_q}")
    pilot_reps = check_positive_int(pilot_reps, "pilot_reps", minimum=100)
    max_reps = check_positive_int(max_reps, "max_reps", minimum=pilot_reps)
    lap_bias = projected_laplace_bias(x, epsilon=epsilon)
    cells = (int(np.argmax(lap_bias)), int(np.argmin(lap_bias)))
    other_exact, mechanism, data, params = _other_release(comparison, x, epsilon, k, n_q, unit)
    lap_exact = float(lap_bias[cells[0]] - lap_bias[cells[1]])
    pilot_seed, lap_seed, other_seed = np.random.SeedSequence(seed).spawn(3)

    def run(reps, lap_ss, other_ss):
        chunk = min(reps, 100_000)
        lap = simulate(laplace, x, reps=reps, seed=lap_ss, chunk_size=chunk, progress=False,
                       epsilon=epsilon, project=True)  # fmt: skip
        other = simulate(mechanism, data, reps=reps, seed=other_ss, chunk_size=chunk,
                         progress=False, **params)  # fmt: skip
        a_lap, a_other = simulated_alpha(lap, x, cells), simulated_alpha(other, x)
        return a_lap, a_other

    a_lap, a_other = run(pilot_reps, *pilot_seed.spawn(2))
    sd = math.hypot(a_lap.se, a_other.se) * math.sqrt(pilot_reps)
    gap = lap_exact - other_exact
    needed = math.ceil((target_z * sd / gap) ** 2) if gap > 0 else max_reps
    reps = int(min(max(needed, pilot_reps), max_reps))
    a_lap, a_other = run(reps, lap_seed, other_seed)
    z = (a_lap.alpha - a_other.alpha) / math.hypot(a_lap.se, a_other.se)
    return CounterexampleCheck(lap_exact, float(other_exact), a_lap, a_other, float(z), reps)
