"""DP swapping: the paper's privacy theorem, bias proposition and L1 theorem, and exact answers.

Printed forms (named ``*_as_printed``) sit next to independent computations:

* privacy: exact worst-case delta by enumerating small histograms and all neighbouring pairs
  (:func:`dp_swapping_exact_delta`), for both units and three adjacencies; closed forms for
  the per-cell version (:func:`dp_swapping_cell_delta`) and the per-record version
  (:func:`dp_swapping_record_delta`, k-ary randomized response);
* bias: the expected release computed from the QI transition matrix
  (:func:`dp_swapping_expected_release`), against the printed per-cell bias and the printed
  L1 expression with mean absolute deviations.

Notation: ``n_Q`` is the size of the QI universe, gamma = e^eps / (e^eps + n_Q - 1) the
probability of keeping a QI value, and the *group* of a cell is the set ``I_i`` of cells that
share its non-QI values (a row of :meth:`Histogram.to_qi_matrix`).

The registry's records (:mod:`dadp_lite.registry.swapping`) name the functions at the end
of this module, which take the histogram first and keywords after
(:mod:`dadp_lite.theory._contract`); traditional swapping's answers are there too: it
releases the non-QI marginal exactly.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Literal, TypeAlias, overload

import numpy as np
import numpy.typing as npt

from dadp_lite._types import BoolArray, FloatArray, FloatOrArray, IntArray
from dadp_lite._validate import check_choice, check_epsilon, check_epsilons, check_positive_int
from dadp_lite.definitions import ADJACENCIES, UNITS, keep_probability
from dadp_lite.histogram import Histogram, NeighbourPair
from dadp_lite.theory._contract import bound as _bound
from dadp_lite.theory._contract import make_pair, profile_points, shaped_like
from dadp_lite.theory.privacy import (
    deterministic_worst_case_delta,
    exact_delta,
    histograms_up_to,
    neighbours,
)

__all__ = [
    "dp_swapping_bias_as_printed",
    "dp_swapping_bias_l1_as_printed",
    "dp_swapping_bias_l1_groups_once",
    "dp_swapping_cell_delta",
    "dp_swapping_cell_pair_pattern",
    "dp_swapping_cell_pattern_deltas",
    "dp_swapping_cell_worst_pair",
    "dp_swapping_cell_worst_pair_any_bound",
    "dp_swapping_colocation_probability",
    "dp_swapping_delta",
    "dp_swapping_delta_as_printed",
    "dp_swapping_delta_proof_line3",
    "dp_swapping_exact_delta",
    "dp_swapping_expected_release",
    "dp_swapping_output_distribution",
    "dp_swapping_pair_delta",
    "dp_swapping_record_delta",
    "dp_swapping_release_variance",
    "dp_swapping_transition_matrix",
    "exact_bias_dp_swapping",
    "exact_delta_dp_swapping",
    "exact_delta_swapping",
    "mean_absolute_deviation",
    "pair_delta_dp_swapping",
    "pair_delta_swapping",
    "printed_delta_dp_swapping",
    "reference_delta_dp_swapping",
    "reference_delta_swapping",
    "worst_pair_dp_swapping",
    "worst_pair_swapping",
]


#: A released QI matrix, flattened row-major (numpy or Python integers: they hash and
#: compare alike).
Outcome: TypeAlias = tuple[int | np.int64, ...]
#: An exact output law: ``{outcome: probability}``.
OutputLaw: TypeAlias = dict[Outcome, float]
#: A neighbouring pair of QI matrices ``(n_groups, n_Q)``.
MatrixPair: TypeAlias = tuple[IntArray, IntArray]


# ----------------------------------------------------------------------- basics
def _n_q(n_q: object) -> int:
    return check_positive_int(n_q, "n_q", minimum=2)


def _out(value: FloatArray) -> FloatOrArray:
    return float(value) if np.ndim(value) == 0 else value


@overload
def dp_swapping_colocation_probability(epsilon: float, n_q: int) -> float: ...
@overload
def dp_swapping_colocation_probability(epsilon: object, n_q: int) -> FloatOrArray: ...
def dp_swapping_colocation_probability(epsilon: object, n_q: int) -> FloatOrArray:
    """Probability that two items starting at different QI values end at the same one.

    ``2 gamma (1 - gamma) / (n_Q - 1) + (n_Q - 2) ((1 - gamma) / (n_Q - 1))^2``.
    """
    n = _n_q(n_q)
    g = np.asarray(keep_probability(epsilon, n))
    other = (1.0 - g) / (n - 1)
    return _out(2 * g * other + (n - 2) * other**2)


@overload
def dp_swapping_delta_as_printed(epsilon: float, n_q: int) -> float: ...
@overload
def dp_swapping_delta_as_printed(epsilon: object, n_q: int) -> FloatOrArray: ...
def dp_swapping_delta_as_printed(epsilon: object, n_q: int) -> FloatOrArray:
    """The theorem's delta: ``1 - (1 - gamma^2)/(n_Q - 1) - ((1 - gamma)/(n_Q - 1))^2``."""
    n = _n_q(n_q)
    g = np.asarray(keep_probability(epsilon, n))
    return _out(1.0 - (1.0 - g**2) / (n - 1) - ((1.0 - g) / (n - 1)) ** 2)


@overload
def dp_swapping_delta_proof_line3(epsilon: float, n_q: int) -> float: ...
@overload
def dp_swapping_delta_proof_line3(epsilon: object, n_q: int) -> FloatOrArray: ...
def dp_swapping_delta_proof_line3(epsilon: object, n_q: int) -> FloatOrArray:
    """Third line of the proof, with its ``n_N - 2`` read as ``n_Q - 2``.

    ``1 - 2 gamma (1 - gamma)/(n_Q - 1) - (n_Q - 2)((1 - gamma)/(n_Q - 1))^2``, i.e. one minus
    :func:`dp_swapping_colocation_probability`. It differs from the printed last line by
    ``2 ((1 - gamma)/(n_Q - 1))^2``.
    """
    return _out(1.0 - np.asarray(dp_swapping_colocation_probability(epsilon, n_q)))


@overload
def dp_swapping_cell_delta(epsilon: float, n_q: int, bound: int = 2) -> float: ...
@overload
def dp_swapping_cell_delta(epsilon: object, n_q: int, bound: int = 2) -> FloatOrArray: ...
def dp_swapping_cell_delta(epsilon: object, n_q: int, bound: int = 2) -> FloatOrArray:
    """Exact worst-case delta of per-cell DP swapping under ``"qi_replace"`` adjacency.

    With counts bounded by ``bound`` >= 2 the worst pair is a cell of count 2 (alone in its
    group) against the same group with one record moved to another QI value: the second
    release splits into two blocks that land apart with probability one minus the
    colocation probability, and the first release can never show two occupied cells. Hence
    ``delta = 1 - colocation = dp_swapping_delta_proof_line3``. With ``bound == 1`` every
    block is a single record and the mechanism is k-ary randomized response: delta = 0.
    (Checked against :func:`dp_swapping_exact_delta`.)
    """
    bound = check_positive_int(bound, "bound")
    line3 = np.asarray(dp_swapping_delta_proof_line3(epsilon, n_q))
    return _out(line3 if bound >= 2 else np.zeros_like(line3))


@overload
def dp_swapping_record_delta(epsilon: float, n_q: int, adjacency: str = "qi_replace") -> float: ...
@overload
def dp_swapping_record_delta(
    epsilon: object, n_q: int, adjacency: str = "qi_replace"
) -> FloatOrArray: ...
def dp_swapping_record_delta(
    epsilon: object, n_q: int, adjacency: str = "qi_replace"
) -> FloatOrArray:
    """Exact delta of per-record DP swapping (appendix algorithm).

    ``"qi_replace"``: each record's QI goes through k-ary randomized response with keep
    probability gamma, whose likelihood ratio is at most gamma / ((1 - gamma)/(n_Q - 1)) =
    e^eps, so delta = 0 for the record-level release and (post-processing) the histogram.
    ``"replace"``/``"add_remove"``: the non-QI marginal is released exactly, so delta = 1.
    """
    check_choice(adjacency, "adjacency", ADJACENCIES)
    eps = check_epsilons(epsilon)
    _n_q(n_q)
    value = np.zeros(eps.shape) if adjacency == "qi_replace" else np.ones(eps.shape)
    return _out(value)


@overload
def dp_swapping_delta(
    epsilon: float, n_q: int, *, unit: str, adjacency: str, bound: int = 2
) -> float: ...
@overload
def dp_swapping_delta(
    epsilon: object, n_q: int, *, unit: str, adjacency: str, bound: int = 2
) -> FloatOrArray: ...
def dp_swapping_delta(
    epsilon: object, n_q: int, *, unit: str, adjacency: str, bound: int = 2
) -> FloatOrArray:
    """Exact worst-case delta of DP swapping (closed forms checked by enumeration).

    ``"qi_replace"``: :func:`dp_swapping_cell_delta` for ``unit="cell"``, 0 for
    ``unit="record"``. ``"replace"`` and ``"add_remove"``: 1 for both units.
    """
    check_choice(unit, "unit", UNITS)
    if unit == "cell" and adjacency == "qi_replace":
        return dp_swapping_cell_delta(epsilon, n_q, bound)
    return dp_swapping_record_delta(epsilon, n_q, adjacency)


# --------------------------------------------------------------- exact output laws
def dp_swapping_transition_matrix(epsilon: float, n_q: int) -> FloatArray:
    """``P[q, r]`` = probability that QI value q is released as r (gamma on the diagonal)."""
    n = _n_q(n_q)
    g = float(keep_probability(check_epsilon(epsilon), n))
    matrix = np.full((n, n), (1.0 - g) / (n - 1))
    np.fill_diagonal(matrix, g)
    return matrix


def _check_matrix(matrix: object) -> IntArray:
    array = np.asarray(matrix)
    if array.ndim != 2 or array.shape[1] < 2:
        raise ValueError(f"matrix must have shape (n_groups, n_Q) with n_Q >= 2, got {array.shape}")
    if np.any(array < 0) or np.any(array != np.round(array)):
        raise ValueError("matrix must hold non-negative integer counts")
    return array.astype(np.int64)


def _group_law_cells(row: IntArray, transition: FloatArray) -> OutputLaw:
    n_q = row.size
    occupied = np.flatnonzero(row)
    law: OutputLaw = {}
    for destinations in itertools.product(range(n_q), repeat=occupied.size):
        out = np.zeros(n_q, dtype=np.int64)
        prob = 1.0
        for q, d in zip(occupied, destinations):
            out[d] += row[q]
            prob *= transition[q, d]
        key = tuple(out)
        law[key] = law.get(key, 0.0) + prob
    return law


def _multinomial_law(trials: int, pvals: FloatArray) -> OutputLaw:
    law: OutputLaw = {}
    n_q = pvals.size
    for combo in itertools.combinations_with_replacement(range(n_q), trials):
        out = np.bincount(np.asarray(combo, dtype=np.int64), minlength=n_q)
        log_coef = math.lgamma(trials + 1) - sum(math.lgamma(c + 1) for c in out)
        prob = math.exp(log_coef) * float(np.prod(pvals**out))
        law[tuple(out)] = prob
    return law


def _convolve(a: OutputLaw, b: OutputLaw, concat: bool) -> OutputLaw:
    law: OutputLaw = {}
    for ka, pa in a.items():
        for kb, pb in b.items():
            key = ka + kb if concat else tuple(x + y for x, y in zip(ka, kb))
            law[key] = law.get(key, 0.0) + pa * pb
    return law


def _group_law_records(row: IntArray, transition: FloatArray) -> OutputLaw:
    law: OutputLaw = {tuple([0] * row.size): 1.0}
    for q in np.flatnonzero(row):
        law = _convolve(law, _multinomial_law(int(row[q]), transition[q]), concat=False)
    return law


def dp_swapping_output_distribution(matrix: object, epsilon: float, unit: str) -> OutputLaw:
    """Exact law of the released QI matrix (flattened, row-major) as ``{outcome: prob}``.

    ``matrix`` has shape (n_groups, n_Q). Groups are independent; within a group, ``"cell"``
    moves each occupied cell's whole count to one destination, ``"record"`` moves each
    record independently (a sum of multinomials).
    """
    check_choice(unit, "unit", UNITS)
    matrix = _check_matrix(matrix)
    transition = dp_swapping_transition_matrix(epsilon, matrix.shape[1])
    group_law = _group_law_cells if unit == "cell" else _group_law_records
    law: OutputLaw = {(): 1.0}
    for row in matrix:
        law = _convolve(law, group_law(row, transition), concat=True)
    return law


def _pair_delta(p: OutputLaw, q: OutputLaw, eps: FloatArray) -> FloatArray:
    support = list(set(p) | set(q))
    pv = np.array([p.get(o, 0.0) for o in support])
    qv = np.array([q.get(o, 0.0) for o in support])
    return np.atleast_1d(exact_delta(pv / pv.sum(), qv / qv.sum(), eps))


@overload
def dp_swapping_pair_delta(
    x: object, y: object, epsilon: float, unit: str, *, at: float | None = None
) -> float: ...
@overload
def dp_swapping_pair_delta(
    x: object, y: object, epsilon: float, unit: str, *, at: object = None
) -> FloatOrArray: ...
def dp_swapping_pair_delta(
    x: object, y: object, epsilon: float, unit: str, *, at: object = None
) -> FloatOrArray:
    """Exact delta (both directions) between the releases on QI matrices ``x`` and ``y``.

    The keep probability is calibrated at ``epsilon``; the divergence is evaluated at ``at``
    (default ``epsilon``; an array gives the pair's privacy profile at fixed noise).
    """
    epsilon = check_epsilon(epsilon)
    at_eps = check_epsilons(epsilon if at is None else at, allow_zero=True)
    law_x = dp_swapping_output_distribution(x, epsilon, unit)
    law_y = dp_swapping_output_distribution(y, epsilon, unit)
    values = _pair_delta(law_x, law_y, at_eps.ravel())
    return float(values[0]) if at_eps.ndim == 0 else values.reshape(at_eps.shape)


@overload
def dp_swapping_exact_delta(
    epsilon: float,
    *,
    n_q: int,
    n_groups: int,
    bound: int,
    unit: str,
    adjacency: str,
    return_pair: Literal[False] = False,
) -> float: ...
@overload
def dp_swapping_exact_delta(
    epsilon: object,
    *,
    n_q: int,
    n_groups: int,
    bound: int,
    unit: str,
    adjacency: str,
    return_pair: Literal[False] = False,
) -> FloatOrArray: ...
@overload
def dp_swapping_exact_delta(
    epsilon: object,
    *,
    n_q: int,
    n_groups: int,
    bound: int,
    unit: str,
    adjacency: str,
    return_pair: Literal[True],
) -> tuple[float, MatrixPair | None]: ...
def dp_swapping_exact_delta(
    epsilon: object,
    *,
    n_q: int,
    n_groups: int,
    bound: int,
    unit: str,
    adjacency: str,
    return_pair: bool = False,
) -> FloatOrArray | tuple[float, MatrixPair | None]:
    """Worst-case exact delta over all histograms with counts in 0..``bound``.

    Enumerates every histogram of ``n_groups * n_q`` cells, every neighbour under
    ``adjacency`` (``dadp_lite.theory.privacy.neighbours``) and takes the largest exact
    delta (both directions). ``return_pair=True`` (scalar ``epsilon`` only) also returns one
    worst pair of QI matrices, or None when every pair has delta 0.
    """
    n = _n_q(n_q)
    n_groups = check_positive_int(n_groups, "n_groups")
    eps = check_epsilons(epsilon)
    flat_eps = np.atleast_1d(eps).ravel()
    groups = np.repeat(np.arange(n_groups), n)
    cache: dict[tuple[int, ...], OutputLaw] = {}

    def law(h: IntArray) -> OutputLaw:
        key = tuple(int(v) for v in h)
        if key not in cache:
            cache[key] = dp_swapping_output_distribution(
                h.reshape(n_groups, n), float(flat_eps[0]), unit
            )
        return cache[key]

    if flat_eps.size > 1:  # one law per epsilon: loop (laws depend on epsilon)
        if return_pair:
            raise ValueError("return_pair needs a scalar epsilon")
        values = [
            dp_swapping_exact_delta(
                e, n_q=n, n_groups=n_groups, bound=bound, unit=unit, adjacency=adjacency
            )
            for e in flat_eps
        ]
        return np.asarray(values).reshape(eps.shape)
    worst = 0.0
    pair: MatrixPair | None = None
    for x in histograms_up_to(n_groups * n, bound):
        for y in neighbours(x, adjacency, bound, groups):
            value = float(_pair_delta(law(x), law(y), flat_eps)[0])
            if value > worst + 1e-15:
                worst, pair = value, (x.reshape(n_groups, n), y.reshape(n_groups, n))
    return (worst, pair) if return_pair else _out(np.full(eps.shape, worst))


def dp_swapping_cell_worst_pair(
    epsilon: float, *, n_q: int, bound: int
) -> tuple[float, tuple[int, int]]:
    """Exact worst-case delta of per-cell DP swapping under ``"qi_replace"``, for any number
    of groups and any counts up to ``bound``, at any ``n_Q`` (e.g. 9), and the worst pair.

    A QI-replace neighbour moves one record between two cells ``i, j`` of one group. The
    output is (the other groups' releases, which are identical in law under both inputs and
    independent: they cancel in the hockey-stick divergence) and, in the group, the sum of
    the blocks of ``i``, of ``j`` and of the other cells. The other cells' blocks are the same
    independent random vector under both inputs, so the group's output is a post-processing
    of (blocks of i and j, the rest) and its divergence is at most that of the two blocks
    alone, with equality when the rest is empty. By symmetry of the QI values, ``i`` and
    ``j`` are the first two. So the worst case is the largest exact divergence between the
    two-block releases of ``(a, b)`` and ``(a - 1, b + 1)`` over ``1 <= a <= bound`` and
    ``0 <= b < bound``: an enumeration of ``n_Q^2`` destinations per pair, whatever the size
    of the histogram. Returns ``(delta, (a, b))``.
    """
    epsilon = check_epsilon(epsilon)
    n = _n_q(n_q)
    bound = check_positive_int(bound, "bound")
    worst, pair = 0.0, (1, 0)
    for a in range(1, bound + 1):
        for b in range(bound):
            x = np.zeros((1, n), dtype=np.int64)
            y = np.zeros((1, n), dtype=np.int64)
            x[0, :2], y[0, :2] = (a, b), (a - 1, b + 1)
            value = dp_swapping_pair_delta(x, y, epsilon, "cell")
            if value > worst + 1e-15:
                worst, pair = value, (a, b)
    return worst, pair


def dp_swapping_cell_pair_pattern(a: object, b: object) -> BoolArray:
    """The equality pattern of the two-block pair ``(a, b)`` against ``(a - 1, b + 1)``.

    Columns: ``b == 0``, ``a == 1``, ``a == b``, ``a == b + 1``, ``a == b + 2``. ``a`` and
    ``b`` may be arrays (one row per pair). The exact delta of the pair depends on the
    counts only through this pattern (see :func:`dp_swapping_cell_worst_pair_any_bound`).
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    pattern: BoolArray = np.stack([b == 0, a == 1, a == b, a == b + 1, a == b + 2], axis=-1)
    return pattern


def dp_swapping_cell_pattern_deltas(
    epsilon: float, *, n_q: int, bound: int
) -> list[tuple[tuple[int, int], float]]:
    """Exact delta of one pair ``(a, b) -> (a - 1, b + 1)`` per equality pattern
    (:func:`dp_swapping_cell_pair_pattern`) that occurs with counts up to ``bound``.

    Why one pair per pattern suffices. The release of two blocks of sizes ``(s, t)``
    starting at QI values ``q1, q2`` is ``s`` records at destination ``d1`` plus ``t`` at
    ``d2``; the probability of ``(d1, d2)`` does not depend on ``s, t``. Two destination
    pairs, of the same input or of the two inputs, give the same released vector exactly
    when the amounts agree: which ones do is decided by which amounts among ``a, b`` (first
    input) and ``a - 1, b + 1`` (second input) are zero and which are equal, i.e. by the
    pattern. So the two output laws, up to a relabelling of outcomes that both share, and
    hence the hockey-stick divergence, are functions of the pattern alone. Returns
    ``[((a, b), delta), ...]``, each pattern represented by its smallest pair
    (lexicographic in ``(a, b)``).
    """
    epsilon = check_epsilon(epsilon)
    n = _n_q(n_q)
    bound = check_positive_int(bound, "bound")
    grid_a, grid_b = np.meshgrid(np.arange(1, bound + 1), np.arange(bound), indexing="ij")
    a, b = grid_a.ravel(), grid_b.ravel()  # every pair, a-major: a pattern's first is smallest
    codes = dp_swapping_cell_pair_pattern(a, b) @ (1 << np.arange(5))  # one integer per pattern
    _, first = np.unique(codes, return_index=True)
    out: list[tuple[tuple[int, int], float]] = []
    for i in np.sort(first):
        x = np.zeros((1, n), dtype=np.int64)
        y = np.zeros((1, n), dtype=np.int64)
        x[0, :2], y[0, :2] = (a[i], b[i]), (a[i] - 1, b[i] + 1)
        out.append(((int(a[i]), int(b[i])), dp_swapping_pair_delta(x, y, epsilon, "cell")))
    return out


def dp_swapping_cell_worst_pair_any_bound(
    epsilon: float, *, n_q: int, bound: int
) -> tuple[float, tuple[int, int]]:
    """:func:`dp_swapping_cell_worst_pair` for any ``bound``, from one pair per equality
    pattern (:func:`dp_swapping_cell_pattern_deltas`, which says why this is exact) instead
    of every pair. Returns ``(delta, (a, b))``, the smallest pair of the worst pattern."""
    worst, pair = 0.0, (1, 0)
    for candidate, value in dp_swapping_cell_pattern_deltas(epsilon, n_q=n_q, bound=bound):
        if value > worst + 1e-15:
            worst, pair = value, candidate
    return worst, pair


# --------------------------------------------------------------------------- bias
def _qi_matrix(hist: Histogram, qi: Sequence[str]) -> FloatArray:
    if not isinstance(hist, Histogram):
        raise TypeError(f"hist must be a Histogram, got {type(hist).__name__}")
    if hist.n_qi(qi) < 2:
        raise ValueError(f"n_Q must be >= 2, got {hist.n_qi(qi)}")
    return hist.to_qi_matrix(qi).astype(float)


def dp_swapping_expected_release(hist: Histogram, qi: Sequence[str], epsilon: float) -> FloatArray:
    """E[M_SW(x)] per cell, from the QI transition matrix (same for both units)."""
    matrix = _qi_matrix(hist, qi)
    expected = matrix @ dp_swapping_transition_matrix(epsilon, matrix.shape[1])
    return hist.from_qi_matrix(qi, expected)


def dp_swapping_release_variance(
    hist: Histogram, qi: Sequence[str], epsilon: float, unit: str
) -> FloatArray:
    """Exact variance of each released cell count.

    Units of count land independently on QI values (blocks of ``x_j`` per cell, or single
    records), so ``Var = sum_j w_j^2 p_j (1 - p_j)`` over the cells j of the group, with
    ``p_j`` the probability of landing on the cell and ``w_j = x_j`` (cell) or
    ``Var = sum_j x_j p_j (1 - p_j)`` (record).
    """
    check_choice(unit, "unit", UNITS)
    matrix = _qi_matrix(hist, qi)
    transition = dp_swapping_transition_matrix(epsilon, matrix.shape[1])
    weight = matrix**2 if unit == "cell" else matrix
    return hist.from_qi_matrix(qi, weight @ (transition * (1.0 - transition)))


def dp_swapping_bias_as_printed(hist: Histogram, qi: Sequence[str], epsilon: float) -> FloatArray:
    """Proposition: bias_i = (sum_{j in I_i} x_j - n_Q x_i) / (e^eps + n_Q - 1), per cell."""
    matrix = _qi_matrix(hist, qi)
    n_q = matrix.shape[1]
    epsilon = check_epsilon(epsilon)
    bias = (matrix.sum(axis=1, keepdims=True) - n_q * matrix) / (math.exp(epsilon) + n_q - 1)
    return hist.from_qi_matrix(qi, bias)


def mean_absolute_deviation(values: object, axis: int = -1) -> FloatArray:
    """The paper's D_mean: ``(1/m) sum_j |x_j - (sum_l x_l)/m|`` along ``axis`` (m entries)."""
    values = np.asarray(values, dtype=float)
    deviation: FloatArray = np.abs(values - values.mean(axis=axis, keepdims=True)).mean(axis=axis)
    return deviation


def dp_swapping_bias_l1_as_printed(hist: Histogram, qi: Sequence[str], epsilon: float) -> float:
    """The theorem: ``n_Q/(e^eps + n_Q - 1) * sum_{i=1}^{n} D_mean(x_{I_i})`` (sum over cells).

    The sum runs over all n cells, so each group's D_mean is counted n_Q times.
    """
    matrix = _qi_matrix(hist, qi)
    n_q = matrix.shape[1]
    epsilon = check_epsilon(epsilon)
    per_cell = np.repeat(mean_absolute_deviation(matrix, axis=1), n_q)  # D_mean(x_{I_i}) for each i
    return float(n_q / (math.exp(epsilon) + n_q - 1) * per_cell.sum())


def dp_swapping_bias_l1_groups_once(hist: Histogram, qi: Sequence[str], epsilon: float) -> float:
    """The other reading of the theorem: the sum taken once per group (n / n_Q terms)."""
    matrix = _qi_matrix(hist, qi)
    n_q = matrix.shape[1]
    epsilon = check_epsilon(epsilon)
    return float(
        n_q / (math.exp(epsilon) + n_q - 1) * mean_absolute_deviation(matrix, axis=1).sum()
    )


# ------------------------------------------------- the registry's answers (histogram first)
def exact_bias_dp_swapping(
    histogram: Histogram, *, epsilon: float, qi: Sequence[str], unit: str
) -> FloatArray:
    """Per-cell bias from :func:`dp_swapping_expected_release` (the same for both units)."""
    bias: FloatArray = dp_swapping_expected_release(histogram, qi, epsilon) - histogram.counts
    return bias


def exact_delta_dp_swapping(
    histogram: Histogram, *, epsilon: float, adjacency: str, qi: Sequence[str], unit: str
) -> float:
    """:func:`dp_swapping_delta` over counts up to the histogram's largest."""
    n_q = histogram.n_qi(qi)
    value = dp_swapping_delta(epsilon, n_q, unit=unit, adjacency=adjacency, bound=_bound(histogram))
    return float(value)


def reference_delta_dp_swapping(
    histogram: Histogram, *, epsilon: float, adjacency: str, qi: Sequence[str], unit: str
) -> float:
    """:func:`dp_swapping_exact_delta`: enumeration over the histogram's groups."""
    n_q = histogram.n_qi(qi)
    return float(
        dp_swapping_exact_delta(
            epsilon, n_q=n_q, n_groups=histogram.n_cells // n_q, bound=_bound(histogram),
            unit=unit, adjacency=adjacency,
        )
    )  # fmt: skip


def printed_delta_dp_swapping(
    histogram: Histogram, *, epsilon: float, qi: Sequence[str], unit: str
) -> float:
    """:func:`dp_swapping_delta_as_printed` with the histogram's n_Q."""
    return float(dp_swapping_delta_as_printed(epsilon, histogram.n_qi(qi)))


def worst_pair_dp_swapping(
    histogram: Histogram, *, epsilon: float | None = None, qi: Sequence[str], unit: str
) -> NeighbourPair:
    """Per cell: a cell of count 2 against the same two records split; per record: one
    record changes its QI value."""
    if histogram.n_qi(qi) < 2:
        raise ValueError("the universe needs at least two QI values")
    rows: tuple[dict[int, int], dict[int, int]]
    if unit == "cell" and _bound(histogram) >= 2:
        rows = ({0: 2}, {0: 1, 1: 1})
        reason = "a cell of count 2 against the same two records split (the privacy chapter)"
    else:
        rows = ({0: 1}, {1: 1})
        reason = "one record changes its QI value: randomized response with loss up to epsilon"
    cells = histogram.to_qi_matrix(qi, np.arange(histogram.n_cells))[0]  # group 0
    x_cells, y_cells = ({int(cells[j]): c for j, c in r.items()} for r in rows)
    return make_pair(histogram, x_cells, y_cells, "qi_replace", reason)


def pair_delta_dp_swapping(
    x: Histogram,
    x_prime: Histogram,
    *,
    epsilon: float,
    at: object = None,
    qi: Sequence[str],
    unit: str,
) -> FloatOrArray:
    """:func:`dp_swapping_pair_delta` on the groups where the two histograms differ."""
    mx, my = x.to_qi_matrix(qi, x.counts), x.to_qi_matrix(qi, x_prime.counts)
    rows = np.flatnonzero(np.any(mx != my, axis=1))
    if rows.size == 0:
        return shaped_like(profile_points(epsilon, at), 0.0)
    return dp_swapping_pair_delta(mx[rows], my[rows], epsilon, unit, at=at)


def exact_delta_swapping(
    histogram: Histogram,
    *,
    epsilon: float | None = None,
    adjacency: str,
    qi: Sequence[str],
    rate: float,
) -> float:
    """Traditional swapping releases the non-QI marginal exactly: delta 1 under replace and
    add/remove."""
    return 1.0


def reference_delta_swapping(
    histogram: Histogram,
    *,
    epsilon: float | None = None,
    adjacency: str,
    qi: Sequence[str],
    rate: float,
) -> float:
    """Swapping exchanges QI values between records, so the non-QI marginal is released
    exactly; neighbours that change it (replace, add/remove) are told apart surely."""

    def marginal(x: IntArray) -> npt.NDArray[np.generic]:
        return np.asarray(histogram.to_qi_matrix(qi, x).sum(axis=-1))

    return deterministic_worst_case_delta(marginal, histogram.n_cells, _bound(histogram), adjacency)


def worst_pair_swapping(
    histogram: Histogram, *, epsilon: float | None = None, qi: Sequence[str], rate: float
) -> NeighbourPair:
    """One record changes a non-QI value: the marginal released exactly differs."""
    cells = histogram.to_qi_matrix(qi, np.arange(histogram.n_cells))
    if cells.shape[0] < 2:
        raise ValueError("the universe needs two non-QI groups for a record to change group")
    reason = "one record changes a non-QI value: the non-QI marginal, released exactly, differs"
    return make_pair(histogram, {int(cells[0, 0]): 1}, {int(cells[1, 0]): 1}, "replace", reason)


def pair_delta_swapping(
    x: Histogram,
    x_prime: Histogram,
    *,
    epsilon: float | None = None,
    at: object = None,
    qi: Sequence[str],
    rate: float,
) -> FloatOrArray:
    """1 if the non-QI marginals differ, else NaN (no bound known for such a pair)."""
    mx, my = x.to_qi_matrix(qi, x.counts), x.to_qi_matrix(qi, x_prime.counts)
    differ = not np.array_equal(mx.sum(axis=1), my.sum(axis=1))
    where = profile_points(0.0 if epsilon is None else epsilon, at)
    return shaped_like(where, 1.0 if differ else np.nan)
