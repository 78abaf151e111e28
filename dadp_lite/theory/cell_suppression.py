"""Privacy and bias of DP cell suppression: printed formulas, exact answers, bounds.

Two DP variants are covered (see :func:`dadp_lite.mechanisms.dp_cell_suppression`):
``"per_cell"`` (main text: own noise per cell, suppressed cells released as ``k/2``) and
``"noisy_threshold"`` (appendix algorithm: one ``k~ = k + Lap(2/eps)``, suppressed cells
released as ``floor(k~/2)``).

Privacy
    :func:`dp_cell_suppression_delta_as_printed` is the theorem's
    ``1 - exp(-eps (B - k)) / 4``. :func:`dp_cell_suppression_exact_delta` is the exact
    worst-case delta (largest hockey-stick divergence over all ordered neighbouring pairs of
    histograms with counts in ``0..B``) under ``"replace"`` or ``"add_remove"`` adjacency:

    * per cell: cells are independent, so the divergence of a pair equals the divergence
      of the product of the cells that differ (two for replace, one for add/remove); the
      number of cells does not matter;
    * noisy threshold: the output is a function of which integer interval ``(j, j+1)``
      holds ``k~`` (the suppressed set is ``{i: x_i <= j}`` and the value
      ``floor(j/2)``), so its distribution follows exactly from the Laplace CDF. Cells
      that do not differ still matter (they reveal where ``k~`` fell), so all histograms
      of ``n_cells`` cells are enumerated (up to a permutation of the cells).

    :func:`per_cell_output_distribution` and :func:`noisy_threshold_output_distribution`
    give the full output distribution over a fixed outcome list, for a brute-force
    cross-check with :func:`dadp_lite.theory.privacy.worst_case_delta`.

Bias
    :func:`dp_cell_suppression_bias` (exact, both variants; the per-cell one is the paper's
    ``(k/2 - x_i) P(x_i + eta_i < k)``), :func:`dp_cell_suppression_bias_as_printed`,
    :func:`suppression_probabilities` (the vector ``p``),
    :func:`dp_cell_suppression_l1_bound_as_printed` (Cauchy-Schwarz),
    :func:`dp_cell_suppression_moments` (exact variance and expected L1 error).

The registry's records (:mod:`dadp_lite.registry.cell_suppression`) name the functions at
the end of this module, which take the histogram first and keywords after
(:mod:`dadp_lite.theory._contract`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import overload

import numpy as np
import numpy.typing as npt
from scipy import special

from dadp_lite._types import FloatArray, FloatOrArray, IntArray
from dadp_lite._validate import (
    check_choice,
    check_counts,
    check_epsilon,
    check_epsilons,
    check_grid,
    check_positive,
    check_positive_int,
)
from dadp_lite.definitions import VARIANTS, laplace_scale
from dadp_lite.histogram import Histogram, NeighbourPair
from dadp_lite.theory import lemma
from dadp_lite.theory._contract import bound as _bound
from dadp_lite.theory._contract import make_pair, need_cells
from dadp_lite.theory.privacy import (
    exact_delta,
    histograms_up_to,
    hockey_stick,
    neighbours,
    worst_case_delta,
)

__all__ = [
    "BRUTE_FORCE_TABLE_LIMIT",
    "VARIANTS",
    "CellSuppressionMoments",
    "ProofSetCounterexample",
    "WorstCase",
    "brute_force_exact_delta",
    "brute_force_table_size",
    "cell_suppression_bias",
    "dp_cell_suppression_bias",
    "dp_cell_suppression_bias_as_printed",
    "dp_cell_suppression_bias_by_integration",
    "dp_cell_suppression_delta_as_printed",
    "dp_cell_suppression_delta_closed_form",
    "dp_cell_suppression_error_log_mgf",
    "dp_cell_suppression_exact_delta",
    "dp_cell_suppression_l1_bound_as_printed",
    "dp_cell_suppression_l1_error_log_mgf",
    "dp_cell_suppression_l1_error_moments",
    "dp_cell_suppression_log10_gap_as_printed",
    "dp_cell_suppression_moments",
    "dp_cell_suppression_pair_delta",
    "dp_cell_suppression_worst_case",
    "exact_bias_cell_suppression",
    "exact_bias_cell_suppression_main_text",
    "exact_bias_dp_cell_suppression",
    "exact_delta_dp_cell_suppression",
    "pair_delta_dp_cell_suppression",
    "printed_delta_dp_cell_suppression",
    "reference_delta_dp_cell_suppression",
    "worst_pair_dp_cell_suppression",
    "laplace_cdf",
    "noisy_threshold_output_distribution",
    "per_cell_output_distribution",
    "proof_set_counterexample",
    "proof_set_ratio",
    "proof_set_threshold",
    "suppression_probabilities",
    "threshold_interval_probabilities",
]

SUPPORTED_ADJACENCIES = ("replace", "add_remove")


def check_threshold(k: object) -> float:
    """The suppression threshold ``k`` as a float (finite, > 0)."""
    return check_positive(k, "k")


def check_variant(variant: object) -> str:
    """``variant`` after checking it is one of :data:`VARIANTS`."""
    return str(check_choice(variant, "variant", VARIANTS))


# --------------------------------------------------------------------------- helpers
def laplace_cdf(t: object, scale: float) -> FloatArray:
    """CDF of a centred Laplace(scale) at ``t`` (accurate in both tails)."""
    t = np.asarray(t, dtype=float)
    cdf: FloatArray = np.where(
        t < 0,
        0.5 * np.exp(np.minimum(t, 0) / scale),
        -0.5 * np.expm1(-np.maximum(t, 0) / scale) + 0.5,
    )
    return cdf


def _laplace_sf(t: npt.ArrayLike, scale: float) -> FloatArray:
    """Survival function P(L > t) of a centred Laplace(scale)."""
    return laplace_cdf(-np.asarray(t, dtype=float), scale)


def _check_bound(bound: object) -> int:
    return check_positive_int(bound, "bound")


def _check_adjacency(adjacency: object) -> str:
    if adjacency not in SUPPORTED_ADJACENCIES:
        raise ValueError(f"adjacency must be one of {SUPPORTED_ADJACENCIES}, got {adjacency!r}")
    return str(adjacency)


def suppression_probabilities(counts: object, *, k: float, epsilon: float) -> FloatArray:
    """The paper's vector ``p``: ``p_i = P(x_i + eta_i < k)`` with ``eta_i ~ Lap(2/eps)``.

    By symmetry of the Laplace law this is also ``P(x_i < k~)`` for the noisy threshold,
    so both variants suppress cell i with the same probability.
    """
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    x = check_counts(counts).astype(float)
    return laplace_cdf(k - x, laplace_scale(epsilon))


def threshold_interval_probabilities(k: float, epsilon: float, top: int) -> FloatArray:
    """P(k~ in (j, j+1)) for j = -1 (meaning (-inf, 0)), 0, ..., top-1, then (top, inf).

    ``k~ = k + Lap(2/eps)``; the result has ``top + 2`` entries summing to 1.
    """
    scale = laplace_scale(epsilon)
    edges = np.arange(0, top + 1, dtype=float) - k
    cdf = laplace_cdf(edges, scale)
    sf = _laplace_sf(edges, scale)
    # interval probabilities from whichever tail is accurate
    inner_cdf = np.diff(cdf)
    inner_sf = -np.diff(sf)
    inner = np.where(edges[1:] <= 0, inner_cdf, inner_sf)
    return np.concatenate([[cdf[0]], np.maximum(inner, 0.0), [sf[-1]]])


def _dp_delta_inputs(epsilon: object) -> tuple[FloatArray, bool]:
    eps = check_epsilons(epsilon)
    return np.atleast_1d(eps), eps.ndim == 0


# --------------------------------------------------------------------------- privacy
@overload
def dp_cell_suppression_delta_as_printed(epsilon: float, k: float, bound: int) -> float: ...
@overload
def dp_cell_suppression_delta_as_printed(epsilon: object, k: float, bound: int) -> FloatOrArray: ...
def dp_cell_suppression_delta_as_printed(epsilon: object, k: float, bound: int) -> FloatOrArray:
    """The privacy theorem's ``delta = 1 - exp(-epsilon (B - k)) / 4`` exactly as printed.

    The theorem assumes ``k < B``; the formula is returned for any inputs. ``epsilon`` may
    be an array.
    """
    eps, scalar = _dp_delta_inputs(epsilon)
    k = check_threshold(k)
    bound = _check_bound(bound)
    delta = 1.0 - 0.25 * np.exp(-eps * (bound - k))
    return float(delta[0]) if scalar else delta


def _per_cell_cell_distribution(count: int, k: float, epsilon: float) -> dict[float, float]:
    """Output law of one cell under the per-cell variant: {value: probability}."""
    released = float(laplace_cdf(count - k, laplace_scale(epsilon)))  # P(count + eta >= k)
    law: dict[float, float] = {}
    law[float(count)] = law.get(float(count), 0.0) + released
    law[k / 2] = law.get(k / 2, 0.0) + (1.0 - released)
    return law


def _product_pair(
    cells_p: list[dict[float, float]], cells_q: list[dict[float, float]]
) -> tuple[FloatArray, FloatArray]:
    """Joint laws of independent differing cells as aligned probability vectors."""
    p_vec, q_vec = np.ones(1), np.ones(1)
    for law_p, law_q in zip(cells_p, cells_q, strict=True):
        support = sorted(set(law_p) | set(law_q))
        pp = np.array([law_p.get(v, 0.0) for v in support])
        qq = np.array([law_q.get(v, 0.0) for v in support])
        p_vec, q_vec = np.outer(p_vec, pp).ravel(), np.outer(q_vec, qq).ravel()
    return p_vec, q_vec


#: A pair of neighbouring count vectors (the differing cells, or whole histograms).
_CountsPair = tuple[tuple[int, ...], tuple[int, ...]]
#: The largest delta found and the pair attaining it.
_Worst = tuple[float, tuple[int, ...], tuple[int, ...]]


def _per_cell_pairs(bound: int, adjacency: str) -> Iterator[_CountsPair]:
    """Counts of the differing cells in D and D' (one cell for add/remove, two for replace)."""
    if adjacency == "add_remove":
        for c in range(bound):
            yield (c + 1,), (c,)
    else:
        for a, b in itertools.product(range(1, bound + 1), range(bound)):
            yield (a, b), (a - 1, b + 1)


def _per_cell_worst(eps: float, k: float, bound: int, adjacency: str) -> _Worst:
    best: _Worst = (-1.0, (), ())
    for cells, cells_prime in _per_cell_pairs(bound, adjacency):
        p, q = _product_pair(
            [_per_cell_cell_distribution(c, k, eps) for c in cells],
            [_per_cell_cell_distribution(c, k, eps) for c in cells_prime],
        )
        delta = float(exact_delta(p / p.sum(), q / q.sum(), eps))
        if delta > best[0] + 1e-12:  # keep the first pair on ties
            best = (delta, cells, cells_prime)
    return best


def _noisy_threshold_outputs(x: IntArray, top: int) -> IntArray:
    """Output vector for each threshold interval j = -1..top-1 (rows); tail excluded."""
    j = np.arange(-1, top)[:, None]
    return np.where(x[None, :] <= j, np.floor(j / 2), x[None, :]).astype(np.int64)


def _noisy_threshold_pair_delta(
    x: IntArray, y: IntArray, probs: FloatArray, top: int, eps: float
) -> float:
    outputs = np.concatenate([_noisy_threshold_outputs(x, top), _noisy_threshold_outputs(y, top)])
    base = int(outputs.max()) + 1  # entries lie in 0..bound: encode each row as one integer
    codes = outputs @ (base ** np.arange(outputs.shape[1], dtype=np.int64))
    _, inverse = np.unique(codes, return_inverse=True)
    m = inverse.max() + 1
    half = top + 1
    # the last outcome is the tail k~ > top: every cell suppressed to floor(k~/2) > max
    # count, identical under D and D' and distinct from every other outcome
    p = np.append(np.bincount(inverse[:half], weights=probs[:-1], minlength=m), probs[-1])
    q = np.append(np.bincount(inverse[half:], weights=probs[:-1], minlength=m), probs[-1])
    scale = math.exp(eps)  # hockey stick in both directions (hot loop: no re-validation)
    return float(max(np.maximum(p - scale * q, 0).sum(), np.maximum(q - scale * p, 0).sum()))


def _neighbours_within(x: IntArray, adjacency: str, bound: int) -> Iterator[IntArray]:
    n = x.size
    if adjacency == "add_remove":
        for i in range(n):
            for step in (1, -1):
                if 0 <= x[i] + step <= bound:
                    y = x.copy()
                    y[i] += step
                    yield y
        return
    for i, j in itertools.permutations(range(n), 2):
        if x[i] >= 1 and x[j] < bound:
            y = x.copy()
            y[i] -= 1
            y[j] += 1
            yield y


def _noisy_threshold_worst(
    eps: float, k: float, bound: int, adjacency: str, n_cells: int
) -> _Worst:
    top = 2 * (bound + 1)  # beyond it floor(k~/2) exceeds every count
    probs = threshold_interval_probabilities(k, eps, top)
    best: _Worst = (-1.0, (), ())
    histograms = histograms_up_to(n_cells, bound)
    # the mechanism treats cells symmetrically: one representative per multiset suffices
    histograms = histograms[np.all(np.diff(histograms, axis=1) >= 0, axis=1)]
    for x in histograms:
        for y in _neighbours_within(x, adjacency, bound):
            delta = _noisy_threshold_pair_delta(x, y, probs, top, eps)
            if delta > best[0] + 1e-12:  # keep the first pair on ties
                best = (delta, tuple(int(v) for v in x), tuple(int(v) for v in y))
    return best


@overload
def dp_cell_suppression_log10_gap_as_printed(epsilon: float, k: float, bound: int) -> float: ...
@overload
def dp_cell_suppression_log10_gap_as_printed(
    epsilon: object, k: float, bound: int
) -> FloatOrArray: ...
def dp_cell_suppression_log10_gap_as_printed(epsilon: object, k: float, bound: int) -> FloatOrArray:
    """``log10(1 - delta)`` of the printed delta, ``(ln(1/4) - eps (B - k)) / ln 10``.

    On real tables ``1 - delta`` underflows double precision (``B`` is hundreds of
    records), so the printed delta is reported through this logarithm instead.
    """
    eps, scalar = _dp_delta_inputs(epsilon)
    k = check_threshold(k)
    bound = _check_bound(bound)
    value = (math.log(0.25) - eps * (bound - k)) / math.log(10)
    return float(value[0]) if scalar else value


@dataclass(frozen=True)
class WorstCase:
    """Exact worst-case delta and one neighbouring pair attaining it (cells that differ
    for the per-cell variant, whole histograms for the noisy-threshold variant)."""

    delta: float
    x: tuple[int, ...]
    x_prime: tuple[int, ...]


def dp_cell_suppression_worst_case(
    epsilon: float,
    *,
    k: float,
    bound: int,
    adjacency: str = "replace",
    variant: str = "per_cell",
    n_cells: int = 3,
) -> WorstCase:
    """Exact worst-case delta of DP cell suppression at one ``epsilon``, with its pair.

    Histograms range over counts ``0..bound``; ``n_cells`` only matters for the
    noisy-threshold variant (the per-cell answer is the same for every ``n >= 2``).
    """
    epsilon = check_epsilon(epsilon)
    k = check_threshold(k)
    bound = _check_bound(bound)
    adjacency = _check_adjacency(adjacency)
    variant = check_variant(variant)
    n_cells = check_positive_int(n_cells, "n_cells", minimum=2)
    if variant == "per_cell":
        delta, x, y = _per_cell_worst(epsilon, k, bound, adjacency)
    else:
        if (bound + 1) ** n_cells > 20_000:
            raise ValueError(
                f"(bound + 1) ** n_cells = {(bound + 1) ** n_cells} histograms is too many"
            )
        delta, x, y = _noisy_threshold_worst(epsilon, k, bound, adjacency, n_cells)
    return WorstCase(delta, x, y)


@overload
def dp_cell_suppression_exact_delta(
    epsilon: float,
    *,
    k: float,
    bound: int,
    adjacency: str = "replace",
    variant: str = "per_cell",
    n_cells: int = 3,
) -> float: ...
@overload
def dp_cell_suppression_exact_delta(
    epsilon: object,
    *,
    k: float,
    bound: int,
    adjacency: str = "replace",
    variant: str = "per_cell",
    n_cells: int = 3,
) -> FloatOrArray: ...
def dp_cell_suppression_exact_delta(
    epsilon: object,
    *,
    k: float,
    bound: int,
    adjacency: str = "replace",
    variant: str = "per_cell",
    n_cells: int = 3,
) -> FloatOrArray:
    """Exact worst-case delta (see :func:`dp_cell_suppression_worst_case`); ``epsilon``
    may be an array (the mechanism's noise changes with it, so each value is enumerated)."""
    eps, scalar = _dp_delta_inputs(epsilon)
    deltas = np.array(
        [
            dp_cell_suppression_worst_case(
                float(e), k=k, bound=bound, adjacency=adjacency, variant=variant, n_cells=n_cells
            ).delta
            for e in eps
        ]
    )
    return float(deltas[0]) if scalar else deltas


@overload
def dp_cell_suppression_delta_closed_form(
    epsilon: float, *, k: float, bound: int, adjacency: str = "replace", variant: str = "per_cell"
) -> float: ...
@overload
def dp_cell_suppression_delta_closed_form(
    epsilon: object, *, k: float, bound: int, adjacency: str = "replace", variant: str = "per_cell"
) -> FloatOrArray: ...
def dp_cell_suppression_delta_closed_form(
    epsilon: object, *, k: float, bound: int, adjacency: str = "replace", variant: str = "per_cell"
) -> FloatOrArray:
    """Our closed form of the exact worst-case delta (derived in the privacy chapter).

    * per cell, replace: ``1 - exp(-eps (B - k - 1/2)) / 4`` (needs ``k <= B - 1``);
    * per cell, add/remove, and noisy threshold under either adjacency:
      ``1 - exp(-eps (B - k) / 2) / 2`` (needs ``k < B``).

    Outside these ranges it raises ``ValueError`` (use the enumeration instead).
    """
    eps, scalar = _dp_delta_inputs(epsilon)
    k = check_threshold(k)
    bound = _check_bound(bound)
    adjacency = _check_adjacency(adjacency)
    variant = check_variant(variant)
    if variant == "per_cell" and adjacency == "replace":
        if k > bound - 1:
            raise ValueError(f"closed form needs k <= bound - 1, got k={k}, bound={bound}")
        delta = 1.0 - 0.25 * np.exp(-eps * (bound - k - 0.5))
    else:
        if k >= bound:
            raise ValueError(f"closed form needs k < bound, got k={k}, bound={bound}")
        delta = 1.0 - 0.5 * np.exp(-eps * (bound - k) / 2)
    return float(delta[0]) if scalar else delta


def _pair_laws(
    x: IntArray, y: IntArray, k: float, epsilon: float, variant: str
) -> tuple[FloatArray, FloatArray]:
    """Output laws (P, Q) of the cells that matter, as aligned probability vectors."""
    if variant == "per_cell":  # independent cells: only those that differ matter
        differ = np.flatnonzero(x != y)
        return _product_pair(
            [_per_cell_cell_distribution(int(x[i]), k, epsilon) for i in differ],
            [_per_cell_cell_distribution(int(y[i]), k, epsilon) for i in differ],
        )
    top = 2 * (int(max(x.max(), y.max())) + 1)  # beyond it floor(k~/2) exceeds every count
    probs = threshold_interval_probabilities(k, epsilon, top)
    rows = np.concatenate([_noisy_threshold_outputs(x, top), _noisy_threshold_outputs(y, top)])
    _, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    m, half = inverse.max() + 1, top + 1
    # the last outcome is the tail k~ > top (every cell suppressed above every count)
    p = np.append(np.bincount(inverse[:half], weights=probs[:-1], minlength=m), probs[-1])
    q = np.append(np.bincount(inverse[half:], weights=probs[:-1], minlength=m), probs[-1])
    return p, q


@overload
def dp_cell_suppression_pair_delta(
    x: object,
    x_prime: object,
    *,
    k: float,
    epsilon: float,
    variant: str = "per_cell",
    at: float | None = None,
) -> float: ...
@overload
def dp_cell_suppression_pair_delta(
    x: object,
    x_prime: object,
    *,
    k: float,
    epsilon: float,
    variant: str = "per_cell",
    at: object = None,
) -> FloatOrArray: ...
def dp_cell_suppression_pair_delta(
    x: object,
    x_prime: object,
    *,
    k: float,
    epsilon: float,
    variant: str = "per_cell",
    at: object = None,
) -> FloatOrArray:
    """Exact delta (both orders) between the releases on two given histograms.

    The mechanism's noise is calibrated at ``epsilon``; the hockey-stick divergence is
    evaluated at ``at`` (default ``epsilon``; may be an array, giving the pair's whole
    privacy profile at fixed noise). Per cell, only the cells that differ matter; for the
    noisy threshold every cell does, and the release is a function of the integer interval
    holding ``k~`` (as in :func:`noisy_threshold_output_distribution`, without listing
    all ``(B + 1)^n`` outcomes).
    """
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    variant = check_variant(variant)
    a = check_counts(x, "x", ndim=1)
    b = check_counts(x_prime, "x_prime", ndim=1)
    if a.shape != b.shape:
        raise ValueError(f"x and x_prime must have the same shape, got {a.shape} and {b.shape}")
    at_eps = check_epsilons(epsilon if at is None else at, allow_zero=True)
    if np.array_equal(a, b):
        return 0.0 if at_eps.ndim == 0 else np.zeros(at_eps.shape)
    p, q = _pair_laws(a, b, k, epsilon, variant)
    return exact_delta(p / p.sum(), q / q.sum(), at_eps)


def _histogram_batch(x: object, bound: int) -> tuple[IntArray, bool]:
    """Counts as a 2-D batch ``(m, n)`` (one histogram per row) and whether one was given."""
    counts = check_counts(x, "x")
    if counts.ndim not in (1, 2):
        raise ValueError(f"x must be a histogram or a 2-D batch of them, got shape {counts.shape}")
    if np.any(counts > bound):
        raise ValueError(f"x has counts above bound={bound}")
    return np.atleast_2d(counts), counts.ndim == 1


def per_cell_output_distribution(x: object, *, k: float, epsilon: float, bound: int) -> FloatArray:
    """Full output law of the per-cell variant over the fixed outcome list ``V^n``.

    ``V`` is ``0..bound`` followed by ``k/2`` (dropped when ``k/2`` is already in
    ``0..bound``: a count ``k/2`` then outputs ``k/2`` whether suppressed or not); outcomes
    are in C order over ``V^n``. ``x`` is one histogram (counts in ``0..bound``) or a 2-D
    batch of them (one law per row). For brute-force checks only.
    """
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    bound = _check_bound(bound)
    batch, one = _histogram_batch(x, bound)
    values: list[float] = list(range(bound + 1))
    if k / 2 not in values:
        values.append(k / 2)
    cell_laws = np.array([
        [law.get(float(v), 0.0) for v in values]
        for law in (_per_cell_cell_distribution(c, k, epsilon) for c in range(bound + 1))
    ])  # fmt: skip
    joint = np.ones((batch.shape[0], 1))
    for cell in batch.T:  # independent cells: the joint law is the product
        joint = (joint[:, :, None] * cell_laws[cell][:, None, :]).reshape(batch.shape[0], -1)
    return joint[0] if one else joint


def noisy_threshold_output_distribution(
    x: object, *, k: float, epsilon: float, bound: int
) -> FloatArray:
    """Full output law of the noisy-threshold variant over a fixed outcome list.

    Outcomes: every vector in ``{0..bound}^n`` (C order), then one "tail" outcome for
    ``k~ > 2 (bound + 1)`` (all cells suppressed to a value above ``bound``). Built from
    the interval probabilities of ``k~`` independently of the pair-wise enumeration.
    ``x`` is one histogram or a 2-D batch of them (one law per row).
    """
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    bound = _check_bound(bound)
    batch, one = _histogram_batch(x, bound)
    m, n = batch.shape
    top = 2 * (bound + 1)
    probs = threshold_interval_probabilities(k, epsilon, top)
    j = np.arange(-1, top)[None, :, None]  # one row per interval (j, j + 1) holding k~
    released = np.where(batch[:, None, :] <= j, j // 2, batch[:, None, :])  # (m, top + 1, n)
    inside = np.all(released <= bound, axis=2)
    rows, intervals = np.nonzero(inside)
    codes = np.ravel_multi_index(tuple(released[rows, intervals].T), (bound + 1,) * n)
    out = np.zeros((m, (bound + 1) ** n + 1))
    np.add.at(out, (rows, codes), probs[:-1][intervals])
    # all suppressed to a value above bound: lumped with the tail
    out[:, -1] = (probs[:-1][None, :] * ~inside).sum(axis=1) + probs[-1]
    return out[0] if one else out


# ------------------------------------------------------------ brute-force cross-check
#: Largest full output table (histograms x outcomes) the brute force builds.
BRUTE_FORCE_TABLE_LIMIT = 12_000_000


def brute_force_table_size(n_cells: int, bound: int) -> int:
    """Entries of the output table :func:`brute_force_exact_delta` builds: ``(B + 1)^n``
    histograms times ``(B + 1)^n + 1`` outcomes (the noisy threshold's list, the longer)."""
    n_cells = check_positive_int(n_cells, "n_cells")
    bound = _check_bound(bound)
    histograms: int = (bound + 1) ** n_cells  # int ** int is typed Any (a negative power)
    return histograms * (histograms + 1)


@overload
def brute_force_exact_delta(
    epsilon: float,
    *,
    k: float,
    bound: int,
    adjacency: str = "replace",
    variant: str = "per_cell",
    n_cells: int = 2,
) -> float: ...
@overload
def brute_force_exact_delta(
    epsilon: object,
    *,
    k: float,
    bound: int,
    adjacency: str = "replace",
    variant: str = "per_cell",
    n_cells: int = 2,
) -> FloatOrArray: ...
def brute_force_exact_delta(
    epsilon: object,
    *,
    k: float,
    bound: int,
    adjacency: str = "replace",
    variant: str = "per_cell",
    n_cells: int = 2,
) -> FloatOrArray:
    """Exact worst-case delta by brute force, independently of the fast enumeration.

    Every histogram of ``n_cells`` cells with counts in ``0..bound`` gets its full output
    law over one fixed outcome list (:func:`per_cell_output_distribution` or
    :func:`noisy_threshold_output_distribution`); every ordered neighbouring pair
    (:func:`dadp_lite.theory.privacy.neighbours`) gets its hockey-stick divergence, and the
    largest is returned. No structure of the mechanism is used (no cancelling of equal
    cells, no coupling, no symmetry), so this checks :func:`dp_cell_suppression_exact_delta`
    and the closed forms. The table has :func:`brute_force_table_size` entries, at most
    :data:`BRUTE_FORCE_TABLE_LIMIT`.
    """
    eps, scalar = _dp_delta_inputs(epsilon)
    k = check_threshold(k)
    bound = _check_bound(bound)
    adjacency = _check_adjacency(adjacency)
    variant = check_variant(variant)
    n_cells = check_positive_int(n_cells, "n_cells", minimum=2)
    size = brute_force_table_size(n_cells, bound)
    if size > BRUTE_FORCE_TABLE_LIMIT:
        raise ValueError(f"the output table would have {size} entries, more than "
                         f"{BRUTE_FORCE_TABLE_LIMIT}: lower bound or n_cells")  # fmt: skip
    law = per_cell_output_distribution if variant == "per_cell" else (
        noisy_threshold_output_distribution)  # fmt: skip
    histograms = histograms_up_to(n_cells, bound)
    position = {tuple(h): i for i, h in enumerate(histograms.tolist())}
    pairs = np.array([(i, position[tuple(y.tolist())])
                      for i, h in enumerate(histograms)
                      for y in neighbours(h, adjacency, bound)])  # fmt: skip
    worst = np.empty(eps.size)
    for index, e in enumerate(eps):
        table = law(histograms, k=k, epsilon=float(e), bound=bound)
        # hockey stick over P's support only: the columns of each row's non-zero outcomes
        nonzero = table > 0
        width = int(nonzero.sum(axis=1).max())
        columns = np.argsort(~nonzero, axis=1, kind="stable")[:, :width]  # padding: zeros
        p = np.take_along_axis(table, columns, axis=1)[pairs[:, 0]]
        q = table[pairs[:, 1][:, None], columns[pairs[:, 0]]]
        with np.errstate(over="ignore", invalid="ignore"):
            gaps = np.where(q > 0, p - np.exp(e) * q, p)
        worst[index] = np.maximum(gaps, 0.0).sum(axis=1).max()
    return float(worst[0]) if scalar else worst


# ------------------------------------------------------------- the proof's safe set
@dataclass(frozen=True)
class ProofSetCounterexample:
    """A replace-one pair on which the privacy theorem's proof fails, with its numbers.

    The proof takes the safe set ``S_ = {o : o_a = o_b = k/2}`` of the two cells that differ
    and claims (i) a likelihood ratio at most ``e^eps`` on it and (ii)
    ``P(S_) = P(a suppressed) P(b suppressed)``. For even ``k`` a cell whose count is
    ``k/2`` outputs ``k/2`` whether or not it is suppressed, which breaks both.

    ``x`` and ``x_prime`` are the counts of the two cells that differ (the other cells have
    one law under both inputs and cancel). ``ratio`` is ``P(M(D) = o) / P(M(D') = o)`` on
    ``S_`` (one value: ``S_`` fixes both cells); ``proof_mass`` the proof's
    ``P(S_^c) = 1 - p_a p_b``, ``true_mass`` the true ``P(M(D) not in S_)``;
    ``lemma_delta`` the lemma's ``P(S^c)`` with the true set ``S``
    (:func:`dadp_lite.theory.lemma.lemma_delta`) and ``pair_delta`` the exact delta
    ``H_eps(P || Q)`` of this ordered pair; ``worst_delta`` the exact worst-case delta at
    ``(k, B, eps)`` (per cell, replace-one) and ``printed_delta`` the theorem's.
    """

    k: int
    bound: int
    epsilon: float
    x: tuple[int, int]
    x_prime: tuple[int, int]
    ratio: float
    proof_mass: float
    true_mass: float
    lemma_delta: float
    pair_delta: float
    worst_delta: float
    printed_delta: float


def _safe_output_probabilities(k: int, epsilon: float, bound: int) -> FloatArray:
    """``P(a cell with count c outputs k/2)`` for ``c = 0..bound`` (``k`` even): the
    suppression probability, except for ``c = k/2``, which outputs ``k/2`` whether
    suppressed or not (probability 1). This is the entry ``k/2`` of the per-cell output law
    (:func:`per_cell_output_distribution`), computed from the Laplace CDF in the accurate
    tail so that large ``epsilon`` does not round ``1 - P(released)`` to zero."""
    counts = np.arange(bound + 1)
    suppressed = suppression_probabilities(counts, k=k, epsilon=epsilon)
    safe: FloatArray = np.where(counts == k // 2, 1.0, suppressed)
    return safe


def _check_even_k(k: object, bound: object) -> int:
    k = check_positive_int(k, "k")
    bound = _check_bound(bound)
    if k % 2 or k >= bound:
        raise ValueError(f"k must be even and below bound, got k={k}, bound={bound}")
    return k


def _replace_pairs(bound: int) -> tuple[IntArray, IntArray]:
    """Every ordered replace-one pair of two-cell histograms with counts in 0..bound, in
    C order of D's counts (then of the neighbour's): arrays ``x``, ``x_prime`` (m, 2)."""
    pairs = [(x, y) for x in histograms_up_to(2, bound) for y in neighbours(x, "replace", bound)]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def proof_set_ratio(x: object, x_prime: object, *, k: int, epsilon: float, bound: int) -> float:
    """Likelihood ratio ``P(M(D) = o) / P(M(D') = o)`` on the proof's safe set
    ``{o : o_a = o_b = k/2}`` for the two cells that differ (counts ``x`` in D, ``x_prime``
    in D'), from the exact per-cell output law; ``k`` even and below ``bound``."""
    k = _check_even_k(k, bound)
    a, b = (check_counts(v, name, ndim=1) for v, name in ((x, "x"), (x_prime, "x_prime")))
    if a.shape != (2,) or b.shape != (2,) or a.max() > bound or b.max() > bound:
        raise ValueError("x and x_prime must be the two differing counts, within 0..bound")
    half = _safe_output_probabilities(k, check_epsilon(epsilon), bound)
    return float(half[a].prod() / half[b].prod())


def _proof_pair_numbers(
    x: IntArray, y: IntArray, k: int, bound: int, epsilon: float
) -> ProofSetCounterexample:
    p = per_cell_output_distribution(x, k=k, epsilon=epsilon, bound=bound)
    q = per_cell_output_distribution(y, k=k, epsilon=epsilon, bound=bound)
    at = (k // 2) * (bound + 1) + k // 2  # the outcome (k/2, k/2) of V^2, V = 0..bound
    suppressed = suppression_probabilities(x, k=k, epsilon=epsilon)
    return ProofSetCounterexample(
        k=k, bound=bound, epsilon=epsilon, x=(int(x[0]), int(x[1])),
        x_prime=(int(y[0]), int(y[1])), ratio=float(p[at] / q[at]),
        proof_mass=float(1 - suppressed.prod()), true_mass=float(1 - p[at]),
        lemma_delta=float(lemma.lemma_delta(p, q, epsilon)),
        pair_delta=float(hockey_stick(p, q, epsilon)),
        worst_delta=float(dp_cell_suppression_exact_delta(epsilon, k=k, bound=bound)),
        printed_delta=float(dp_cell_suppression_delta_as_printed(epsilon, k, bound)),
    )  # fmt: skip


def proof_set_counterexample(epsilons: object, *, max_bound: int) -> ProofSetCounterexample | None:
    """The smallest counterexample to the proof's ratio claim on its safe set, or None.

    Searches replace-one pairs of two-cell histograms (the cells that differ) with the
    exact per-cell output law, in this order: even ``k = 2, 4, ...`` below ``max_bound``;
    then ``B = k + 1, ..., max_bound`` (the theorem needs ``k < B``); then the pair (D's
    counts, then D''s, in C order, counts in ``0..B``); then ``epsilon`` ascending. The
    first pair whose ratio on ``{o : o_a = o_b = k/2}`` exceeds ``e^eps`` (by more than
    round-off) is returned with its numbers (:class:`ProofSetCounterexample`).
    """
    grid = np.sort(np.atleast_1d(check_epsilons(epsilons)))
    max_bound = check_positive_int(max_bound, "max_bound", minimum=3)
    for k in range(2, max_bound, 2):
        for bound in range(k + 1, max_bound + 1):
            x, y = _replace_pairs(bound)
            half = {float(e): _safe_output_probabilities(k, float(e), bound) for e in grid}
            for i in range(len(x)):
                for e in grid:
                    ratio = half[float(e)][x[i]].prod() / half[float(e)][y[i]].prod()
                    if ratio > math.exp(e) * (1 + 1e-12):
                        return _proof_pair_numbers(x[i], y[i], k, bound, float(e))
    return None


def proof_set_threshold(k: int, *, bound: int, high: float = 20.0) -> float:
    """Largest epsilon at which the proof's ratio claim fails for some pair, at even ``k``.

    ``max over pairs of ln(ratio) - eps`` (replace-one pairs of two cells with counts in
    ``0..bound``) is scanned on a log grid of 400 values of epsilon in ``[1e-3, high]``;
    the last sign change is refined by bisection (``scipy.optimize.brentq``). Below the
    returned value some pair contradicts the claim; at every grid point above it none does.
    """
    from scipy import optimize

    k = _check_even_k(k, bound)
    x, y = _replace_pairs(bound)

    def excess(e: float) -> float:
        half = _safe_output_probabilities(k, e, bound)
        with np.errstate(divide="ignore"):
            log_ratio = np.log(half[x]).sum(axis=1) - np.log(half[y]).sum(axis=1)
        return float(np.nanmax(log_ratio) - e)

    grid = np.geomspace(1e-3, check_positive(high, "high"), 400)
    signs = np.array([excess(float(e)) > 0 for e in grid])
    if not signs[0] or signs[-1]:
        raise ValueError(f"no sign change of the ratio excess on [1e-3, {high}] at k={k}")
    last = int(np.flatnonzero(signs)[-1])
    return float(optimize.brentq(excess, grid[last], grid[last + 1], xtol=1e-12))


# --------------------------------------------------------------------------- bias
def cell_suppression_bias(counts: object, *, k: float, form: str = "appendix") -> FloatArray:
    """Bias of traditional cell suppression (deterministic): ``appendix`` or ``main_text``."""
    k = check_threshold(k)
    x = check_counts(counts).astype(float)
    bias: FloatArray
    if form == "appendix":
        bias = np.where(x < k, math.floor(k / 2) - x, 0.0)
        return bias
    if form == "main_text":
        bias = np.maximum(x, k / 2) - x
        return bias
    raise ValueError(f"form must be 'appendix' or 'main_text', got {form!r}")


def dp_cell_suppression_bias_as_printed(counts: object, *, k: float, epsilon: float) -> FloatArray:
    """The paper's bias expression ``(k/2 - x_i) P(x_i + eta_i < k)`` (per cell)."""
    k = check_threshold(k)
    x = check_counts(counts).astype(float)
    return (k / 2 - x) * suppression_probabilities(x, k=k, epsilon=epsilon)


@dataclass(frozen=True)
class CellSuppressionMoments:
    """Exact per-cell moments of ``M(x)_i - x_i``: mean (the bias), variance and
    expected absolute value (whose sum is the expected L1 error)."""

    bias: FloatArray
    variance: FloatArray
    abs_error: FloatArray


def _noisy_threshold_moments(x: FloatArray, k: float, epsilon: float) -> CellSuppressionMoments:
    scale = laplace_scale(epsilon)
    top = int(math.ceil(max(float(x.max()), k) + 80 * scale)) + 2  # P(k~ > top) < 1e-17
    probs = threshold_interval_probabilities(k, epsilon, top)[1:-1]  # j = 0..top-1
    j = np.arange(top)
    values, inverse = np.unique(x, return_inverse=True)
    gap = np.floor(j / 2)[None, :] - values[:, None]
    weight = np.where(j[None, :] >= values[:, None], probs[None, :], 0.0)  # x <= j: suppressed
    mean = (gap * weight).sum(axis=1)
    second = (gap**2 * weight).sum(axis=1)
    absolute = (np.abs(gap) * weight).sum(axis=1)
    variance = np.maximum(second - mean**2, 0.0)
    inverse = inverse.ravel()
    return CellSuppressionMoments(mean[inverse], variance[inverse], absolute[inverse])


def dp_cell_suppression_moments(
    counts: object, *, k: float, epsilon: float, variant: str = "per_cell"
) -> CellSuppressionMoments:
    """Exact bias, variance and expected absolute error of every cell.

    Per cell: the error is ``k/2 - x_i`` with probability ``p_i`` and 0 otherwise.
    Noisy threshold: the error is ``floor(k~/2) - x_i`` when ``x_i < k~``, i.e. when
    ``k~`` falls in an interval ``(j, j+1)`` with ``j >= x_i``; summing over those
    intervals with their exact Laplace probabilities gives every moment (the sum is cut
    where the remaining tail mass is below 1e-17).
    """
    variant = check_variant(variant)
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    x = check_counts(counts).astype(float)
    if variant == "per_cell":
        p = suppression_probabilities(x, k=k, epsilon=epsilon)
        gap = k / 2 - x
        return CellSuppressionMoments(gap * p, gap**2 * p * (1 - p), np.abs(gap) * p)
    return _noisy_threshold_moments(x, k, epsilon)


def dp_cell_suppression_bias(
    counts: object, *, k: float, epsilon: float, variant: str = "per_cell"
) -> FloatArray:
    """Exact per-cell bias ``E[M(x)_i] - x_i`` of either variant.

    Per cell it equals the paper's ``(k/2 - x_i) p_i``; for the noisy threshold it is
    ``E[(floor(k~/2) - x_i) 1{x_i < k~}]``, which differs from the printed expression.
    """
    return dp_cell_suppression_moments(counts, k=k, epsilon=epsilon, variant=variant).bias


def dp_cell_suppression_bias_by_integration(
    counts: object, *, k: float, epsilon: float, variant: str = "per_cell"
) -> FloatArray:
    """Exact per-cell bias by numerical integration of the Laplace density (scipy quad).

    An independent computation of :func:`dp_cell_suppression_bias`, which uses the Laplace
    CDF in closed form: here ``E[M(x)_i] - x_i`` is integrated piece by piece from the
    density ``exp(-|t| / b) / (2 b)``, ``b = 2 / epsilon``, without the CDF.

    * per cell: ``(k/2 - x) P(x + eta < k)``, the probability integrated over
      ``(-inf, k - x)``;
    * noisy threshold: ``E[(floor(k~/2) - x) 1{x < k~}]``, integrated over the intervals
      ``[2m, 2m + 2)`` on which ``floor(k~/2) = m`` (truncated where the density's remaining
      mass is below 1e-16).
    """
    from scipy import integrate

    variant = check_variant(variant)
    k = check_threshold(k)
    scale = laplace_scale(check_epsilon(epsilon))
    x = check_counts(counts).astype(float)

    def mass(lo: float, hi: float, centre: float) -> float:
        """P(lo < centre + eta < hi) by quadrature of the density of eta."""

        def density(t: float) -> float:
            return math.exp(-abs(t - centre) / scale) / (2 * scale)

        value = 0.0
        for a, b in ((lo, min(hi, centre)), (max(lo, centre), hi)):  # split at the kink
            if b > a:
                value += integrate.quad(density, a, b, epsabs=1e-15, epsrel=1e-12)[0]
        return value

    values = np.unique(x)
    bias: dict[float, float] = {}
    for count in values:
        if variant == "per_cell":
            bias[count] = (k / 2 - count) * mass(-np.inf, k, count)
            continue
        top = max(count, k) + 40 * scale  # the density beyond holds < 1e-17 of the mass
        total, m = 0.0, math.floor(count / 2)
        while 2 * m < top:
            total += (m - count) * mass(max(2 * m, count), 2 * m + 2, k)
            m += 1
        bias[count] = total
    return np.array([bias[c] for c in x])


def _noisy_threshold_intervals(
    x: FloatArray, k: float, epsilon: float
) -> tuple[IntArray, FloatArray, float]:
    """Intervals ``(j, j + 1)`` holding ``k~``, ``j = -1 .. top - 1``, and their
    probabilities; ``P(k~ > top) < 1e-17`` is left out (as in the moments)."""
    scale = laplace_scale(epsilon)
    top = int(math.ceil(max(float(x.max()), k) + 80 * scale)) + 2
    probs = threshold_interval_probabilities(k, epsilon, top)[:-1]  # j = -1..top-1
    return np.arange(-1, top), probs, scale


def dp_cell_suppression_error_log_mgf(
    counts: object, t: object, *, k: float, epsilon: float, variant: str = "per_cell"
) -> FloatArray:
    """``log E[exp(t (M(x)_i - x_i))]`` of one release, for every cell ``i``.

    ``counts`` has shape ``(m,)``, ``t`` is a grid ``(T,)`` or one row per cell
    ``(m, T)``; the result is ``(m, T)``. Per cell the error is ``k/2 - x_i`` with
    probability ``p_i``, else 0. Under the noisy threshold it is
    ``floor(j/2) - x_i`` when ``k~`` falls in ``(j, j+1)`` with ``j >= x_i``, else 0; the
    intervals beyond the moments' cut (mass below 1e-17) are left out, which changes the
    result negligibly for ``t <= 1/b`` (``b = 2/eps``; larger ``t`` raises ``ValueError``).
    """
    variant = check_variant(variant)
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    x = check_counts(counts, ndim=1).astype(float)
    t_grid = check_grid(t)
    grid = np.broadcast_to(t_grid, (x.size, t_grid.shape[-1]))
    log_mgf: FloatArray
    if variant == "per_cell":
        p = suppression_probabilities(x, k=k, epsilon=epsilon)[:, None]
        with np.errstate(divide="ignore"):
            log_mgf = np.logaddexp(np.log1p(-p), np.log(p) + grid * (k / 2 - x)[:, None])
        return log_mgf
    j, probs, scale = _noisy_threshold_intervals(x, k, epsilon)
    if np.any(grid > 1 / scale):
        raise ValueError(f"t must be at most 1/b = {1 / scale:g} (the cut tail would matter)")
    error = np.where(j[None, :] >= x[:, None], np.floor(j / 2)[None, :] - x[:, None], 0.0)
    with np.errstate(divide="ignore"):
        log_probs = np.log(probs)
    log_mgf = special.logsumexp(log_probs[None, None, :] + grid[:, :, None] * error[:, None, :],
                                axis=2)  # fmt: skip
    return log_mgf


def dp_cell_suppression_l1_error_log_mgf(
    counts: object, t: object, *, k: float, epsilon: float, variant: str = "per_cell"
) -> FloatArray:
    """``log E[exp(t ||M(x) - x||_1)]`` of one release, for a grid ``t`` of shape ``(T,)``.

    Per cell the cells are independent: the sum over cells of
    ``log(1 - p_i + p_i exp(t |k/2 - x_i|))``. Under the noisy threshold the L1 error is a
    function of the interval ``(j, j+1)`` holding ``k~`` (as in
    :func:`dp_cell_suppression_l1_error_moments`); the cut tail (mass below 1e-17) changes
    the result negligibly for ``t <= 1 / (2 n b)`` (``n`` cells, ``b = 2/eps``), where the
    error, at most ``n j`` on interval ``j``, grows slower than the tail decays; larger ``t``
    raises ``ValueError``.
    """
    variant = check_variant(variant)
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    x = check_counts(counts, ndim=1).astype(float)
    grid = check_grid(t)
    if grid.ndim != 1:
        raise ValueError("t must be a 1-d grid")
    if variant == "per_cell":
        p = suppression_probabilities(x, k=k, epsilon=epsilon)[:, None]
        with np.errstate(divide="ignore"):
            terms = np.logaddexp(
                np.log1p(-p), np.log(p) + grid[None, :] * np.abs(k / 2 - x)[:, None]
            )
        log_mgf: FloatArray = terms.sum(axis=0)
        return log_mgf
    j, probs, scale = _noisy_threshold_intervals(x, k, epsilon)
    if np.any(grid > 1 / (2 * x.size * scale)):
        raise ValueError(f"t must be at most 1/(2 n b) = {1 / (2 * x.size * scale):g}")
    values, multiplicity = np.unique(x, return_counts=True)
    per_value = np.abs(np.floor(j / 2)[None, :] - values[:, None]) * (j[None, :] >= values[:, None])
    error = (multiplicity[:, None] * per_value).sum(axis=0)
    with np.errstate(divide="ignore"):
        log_probs = np.log(probs)
    log_mgf = special.logsumexp(log_probs[None, :] + grid[:, None] * error[None, :], axis=1)
    return log_mgf


def dp_cell_suppression_l1_bound_as_printed(counts: object, *, k: float, epsilon: float) -> float:
    """The Cauchy-Schwarz bound ``||k/2 1 - x||_2 ||p||_2`` on ``||bias||_1`` as printed."""
    k = check_threshold(k)
    x = check_counts(counts).astype(float)
    p = suppression_probabilities(x, k=k, epsilon=epsilon)
    return float(np.linalg.norm(k / 2 - x) * np.linalg.norm(p))


def dp_cell_suppression_l1_error_moments(
    counts: object, *, k: float, epsilon: float, variant: str = "per_cell"
) -> tuple[float, float]:
    """Exact mean and variance of the L1 error ``||M(x) - x||_1`` of one release.

    Per cell the cells are independent: the mean and variance are sums of per-cell terms
    (``|k/2 - x_i|`` with probability ``p_i``). Under the noisy threshold the whole error is
    a function of the interval ``(j, j+1)`` holding ``k~``, so both follow from the
    interval probabilities. The variance gives an exact standard error for simulations.
    """
    variant = check_variant(variant)
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    x = check_counts(counts).astype(float)
    if variant == "per_cell":
        p = suppression_probabilities(x, k=k, epsilon=epsilon)
        gap = np.abs(k / 2 - x)
        return float((gap * p).sum()), float((gap**2 * p * (1 - p)).sum())
    scale = laplace_scale(epsilon)
    top = int(math.ceil(max(float(x.max()), k) + 80 * scale)) + 2
    probs = threshold_interval_probabilities(k, epsilon, top)[1:-1]  # j = 0..top-1
    j = np.arange(top)
    values, multiplicity = np.unique(x, return_counts=True)
    per_value = np.abs(np.floor(j / 2)[None, :] - values[:, None]) * (j[None, :] >= values[:, None])
    error = (multiplicity[:, None] * per_value).sum(axis=0)  # L1 error when k~ in (j, j+1)
    mean = float((error * probs).sum())
    return mean, float(max((error**2 * probs).sum() - mean**2, 0.0))


# ------------------------------------------------- the registry's answers (histogram first)
def exact_bias_dp_cell_suppression(
    histogram: Histogram, *, epsilon: float, k: float, variant: str
) -> FloatArray:
    """:func:`dp_cell_suppression_bias` on the histogram's counts."""
    return dp_cell_suppression_bias(histogram.counts, k=k, epsilon=epsilon, variant=variant)


def exact_delta_dp_cell_suppression(
    histogram: Histogram, *, epsilon: float, adjacency: str, k: float, variant: str
) -> float:
    """Worst case over counts up to the histogram's largest: the closed form where it
    applies (k below the largest count), else the enumeration."""
    b = _bound(histogram)
    closed = k <= b - 1 if (variant, adjacency) == ("per_cell", "replace") else k < b
    if closed:
        return float(
            dp_cell_suppression_delta_closed_form(
                epsilon, k=k, bound=b, adjacency=adjacency, variant=variant
            )
        )
    return float(
        dp_cell_suppression_exact_delta(epsilon, k=k, bound=b, adjacency=adjacency, variant=variant)
    )


def reference_delta_dp_cell_suppression(
    histogram: Histogram, *, epsilon: float, adjacency: str, k: float, variant: str
) -> float:
    """:func:`exact_delta_dp_cell_suppression` by brute force over two cells' output laws
    (:func:`dadp_lite.theory.privacy.worst_case_delta`)."""
    law = {
        "per_cell": per_cell_output_distribution,
        "noisy_threshold": noisy_threshold_output_distribution,
    }[variant]
    b = _bound(histogram)
    return float(
        worst_case_delta(lambda x: law(x, k=k, epsilon=epsilon, bound=b), 2, b, adjacency, epsilon)
    )


def printed_delta_dp_cell_suppression(
    histogram: Histogram, *, epsilon: float, k: float, variant: str
) -> float:
    """:func:`dp_cell_suppression_delta_as_printed` with B the largest count."""
    return float(dp_cell_suppression_delta_as_printed(epsilon, k, _bound(histogram)))


def worst_pair_dp_cell_suppression(
    histogram: Histogram, *, epsilon: float | None, k: float, variant: str
) -> NeighbourPair:
    """The pair of the privacy chapter's closed form where it applies (checked against the
    enumeration by the registry's contract test), else the enumeration's worst pair."""
    n = 2 if variant == "per_cell" else min(3, histogram.n_cells)
    need_cells(histogram, n)
    b = _bound(histogram)
    if variant == "per_cell" and k <= b - 1:
        cells = ({0: b, 1: b - 1}, {0: b - 1, 1: b})
        reason = "the count at the bound leaves while its neighbour reaches it (closed form)"
    elif variant == "noisy_threshold" and k < b and n == 3:
        cells = ({2: b}, {0: 1, 2: b - 1})
        reason = "a record leaves the count at the bound for an empty cell (closed form)"
    else:
        worst = dp_cell_suppression_worst_case(  # check_epsilon refuses None, as before
            check_epsilon(epsilon), k=k, bound=b, variant=variant, n_cells=max(n, 2)
        )
        cells = (dict(enumerate(worst.x)), dict(enumerate(worst.x_prime)))
        reason = "the worst pair found by enumerating every neighbouring pair (counts <= B)"
    return make_pair(histogram, *cells, "replace", reason)


def pair_delta_dp_cell_suppression(
    x: Histogram,
    x_prime: Histogram,
    *,
    epsilon: float,
    at: object = None,
    k: float,
    variant: str,
) -> FloatOrArray:
    """:func:`dp_cell_suppression_pair_delta` of the two histograms' counts."""
    return dp_cell_suppression_pair_delta(
        x.counts, x_prime.counts, k=k, epsilon=epsilon, variant=variant, at=at
    )


def exact_bias_cell_suppression(histogram: Histogram, *, k: float) -> FloatArray:
    """:func:`cell_suppression_bias` of the appendix's form."""
    return cell_suppression_bias(histogram.counts, k=k, form="appendix")


def exact_bias_cell_suppression_main_text(histogram: Histogram, *, k: float) -> FloatArray:
    """:func:`cell_suppression_bias` of the main text's form."""
    return cell_suppression_bias(histogram.counts, k=k, form="main_text")
