"""Traditional swapping (appendix Algorithm "Swapping") and DP swapping (both units).

Traditional swapping
--------------------
The appendix loops ``floor((1 - gamma) N / 2)`` times: pick a uniformly random unswapped
record, find the unswapped record nearest to it under ``d_swap`` (ties broken uniformly at
random), swap their quasi-identifier (QI) values and mark both as swapped. The appendix's
``gamma`` is the fraction of records that are *not* swapped (unrelated to the ``gamma`` of DP
swapping), so here the parameter is ``rate`` = fraction of records swapped and the loop runs
``floor(rate * N / 2)`` times.

``d_swap`` sums, over a feature set Lambda, the discrete metric for categorical features and
``|a - b| / range`` for numeric ones. The appendix does not say what Lambda is. Our reading
(the default): Lambda = the non-QI features, i.e. partners are matched on everything except
the values being swapped, as in census swapping. ``features=`` accepts any superset of the
non-QI features (e.g. all features).

Records with equal Lambda values form a *class* (at distance 0 from each other). Because
Lambda contains every non-QI feature, a swap inside a class leaves the histogram unchanged:
both records keep their non-QI values and the two QI values are merely exchanged. Only the
swaps forced when a picked record is the last unswapped one of its class (a "cross-class"
swap) move counts. The fast sampler exploits this exactly:

1. it runs the algorithm on class counts only (vectorised over repetitions): pick a class with
   probability proportional to its unswapped count; if another unswapped record remains there
   the pair is removed from the class, otherwise the partner class is drawn among the
   nearest classes that still hold unswapped records, proportionally to their counts (ties
   among records broken uniformly, as in the algorithm);
2. within a class every removal takes a uniformly random unswapped record, so the records
   removed from a class, in order, form a uniformly random permutation of its records. The
   records used by cross-class swaps sit at positions fixed by step 1, hence they are a
   uniform draw *without replacement* from the class's original records, which is how the
   sampler draws their cells.

The loop on class counts lives in the private module
:mod:`dadp_lite.mechanisms._swapping_fast`; this module prepares its inputs (classes, their
distances and cells).

:func:`swapping_reference` is the literal per-record algorithm (slow); tests check that both
give the same output distribution.

DP swapping
-----------
Each QI value is kept with probability ``gamma = e^eps / (e^eps + n_Q - 1)``, otherwise it is
replaced by a uniformly random *other* QI value; non-QI values never change.
``unit="cell"`` (main text, Eq. 2) moves the whole count of a cell together;
``unit="record"`` (appendix Algorithm "DP Swapping") treats every record independently, which
is k-ary randomized response on the QI value of each record.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dadp_lite._types import BoolArray, FloatArray, IntArray
from dadp_lite._validate import (
    check_choice,
    check_epsilon,
    check_positive_int,
    check_probability,
    check_qi,
    check_rng,
)
from dadp_lite.data import ATTRIBUTES
from dadp_lite.definitions import UNITS, keep_probability
from dadp_lite.histogram import Histogram
from dadp_lite.mechanisms._swapping_fast import TIE_TOLERANCE as _TIE_TOLERANCE
from dadp_lite.mechanisms._swapping_fast import CellCoordinates, Chunks, swap_classes
from dadp_lite.paper import PAPER_QI

__all__ = [
    "UNITS",
    "dp_swapping",
    "swap_count",
    "swapping",
    "swapping_chunks",
    "swapping_reference",
]


# --------------------------------------------------------------------------- inputs
def _as_histogram(data: object, attributes: Sequence[str] | None) -> Histogram:
    if isinstance(data, Histogram):
        return data
    if isinstance(data, pd.DataFrame):
        return Histogram.from_records(data, ATTRIBUTES if attributes is None else attributes)
    raise TypeError(f"data must be a Histogram or a records DataFrame, got {type(data).__name__}")


def _qi_tuple(hist: Histogram, qi: object) -> tuple[str, ...]:
    qi = check_qi(qi, hist.attributes)
    if hist.n_qi(qi) < 2:
        raise ValueError(
            f"the QI universe must hold >= 2 values (n_Q >= 2), got n_Q = {hist.n_qi(qi)}"
        )
    return qi


def _cell_coordinates(hist: Histogram, qi: tuple[str, ...]) -> CellCoordinates:
    """Per cell: (non-QI group, QI index); and the (group, QI) -> cell table."""
    table = hist.to_qi_matrix(qi, np.arange(hist.n_cells))
    group = np.empty(hist.n_cells, dtype=np.int64)
    qi_index = np.empty(hist.n_cells, dtype=np.int64)
    group[table] = np.arange(table.shape[0])[:, None]
    qi_index[table] = np.arange(table.shape[1])[None, :]
    return group, qi_index, table


def swap_count(n_records: int, rate: float) -> int:
    """Number of swaps ``floor(rate * N / 2)`` (the appendix's loop with gamma = 1 - rate)."""
    rate = check_probability(rate, "rate", open_low=False)
    n_records = check_positive_int(n_records, "n_records", minimum=0)
    # the small epsilon protects against rate * N landing just below an even integer
    return int(math.floor(rate * n_records / 2 + 1e-9))


def _distance_features(
    hist: Histogram, qi: tuple[str, ...], features: Sequence[str] | None
) -> tuple[str, ...]:
    non_qi = tuple(a for a in hist.attributes if a not in qi)
    if features is None:
        return non_qi
    features = (features,) if isinstance(features, str) else tuple(features)
    unknown = [f for f in features if f not in hist.attributes]
    if unknown:
        raise ValueError(f"features holds unknown attribute(s) {unknown}")
    missing = [a for a in non_qi if a not in features]
    if missing:
        raise ValueError(
            f"features must contain every non-QI attribute (missing {missing}); the fast "
            "sampler relies on swaps at distance 0 leaving the histogram unchanged"
        )
    return features


def _cell_distance_coordinates(
    hist: Histogram, features: tuple[str, ...], numeric: Sequence[str]
) -> tuple[FloatArray, BoolArray]:
    """Per cell, its Lambda values scaled so that d_swap is an L1 / Hamming sum."""
    numeric = (numeric,) if isinstance(numeric, str) else tuple(numeric)
    unknown = [f for f in numeric if f not in features]
    if unknown:
        raise ValueError(f"numeric names attribute(s) {unknown} that are not distance features")
    cells = hist.cell_table()
    columns, is_numeric = [], []
    for name in features:
        values = cells[name].to_numpy()
        if name in numeric:
            domain = np.asarray(hist.domains[hist.attributes.index(name)], dtype=float)
            span = float(domain.max() - domain.min()) or 1.0
            columns.append(values.astype(float) / span)
            is_numeric.append(True)
        else:
            codes = pd.Index(hist.domains[hist.attributes.index(name)]).get_indexer(values)
            columns.append(codes.astype(float))
            is_numeric.append(False)
    if not columns:
        return np.zeros((hist.n_cells, 0)), np.zeros(0, dtype=bool)
    return np.stack(columns, axis=1), np.asarray(is_numeric)


def _d_swap(a: FloatArray, b: FloatArray, is_numeric: BoolArray) -> FloatArray:
    """d_swap between rows of ``a`` and ``b`` (broadcast), as in the appendix."""
    diff = np.abs(a - b)
    distance: FloatArray = np.where(is_numeric, diff, diff > 0).sum(axis=-1)
    return distance


# ------------------------------------------------------------------ traditional
def _check_common(
    hist: Histogram, qi: object, rate: object, rng: object, reps: object
) -> tuple[tuple[str, ...], float, np.random.Generator, int]:
    qi = _qi_tuple(hist, qi)
    rate = check_probability(rate, "rate", open_low=False)
    rng = check_rng(rng)
    reps = check_positive_int(reps, "reps")
    return qi, rate, rng, reps


def swapping(
    records_or_histogram: Histogram | pd.DataFrame,
    *,
    qi: Sequence[str] = PAPER_QI,
    rate: float,
    rng: np.random.Generator,
    reps: int = 1,
    features: Sequence[str] | None = None,
    numeric: Sequence[str] = (),
    attributes: Sequence[str] | None = None,
) -> IntArray:
    """Traditional nearest-neighbour swapping, released histogram counts ``(reps, n_cells)``.

    Parameters
    ----------
    records_or_histogram
        A :class:`~dadp_lite.histogram.Histogram` or a records DataFrame (counted over
        ``attributes``, default the paper's five features).
    qi
        Quasi-identifier attributes whose values are swapped (default ``("race",)``).
    rate
        Fraction of records swapped, in [0, 1]; the loop runs ``floor(rate * N / 2)`` times.
    rng, reps
        Generator and number of independent repetitions.
    features
        The feature set Lambda of ``d_swap``; default the non-QI attributes. Must contain
        every non-QI attribute.
    numeric
        Features of Lambda treated as numeric (``|a - b| / range``); the rest are
        categorical (discrete metric).
    """
    hist = _as_histogram(records_or_histogram, attributes)
    qi, rate, rng, reps = _check_common(hist, qi, rate, rng, reps)
    return _swapping_chunks(hist, qi, rate, [(reps, rng)], features, numeric)


def swapping_chunks(
    records_or_histogram: Histogram | pd.DataFrame,
    chunks: Chunks,
    *,
    qi: Sequence[str] = PAPER_QI,
    rate: float,
    features: Sequence[str] | None = None,
    numeric: Sequence[str] = (),
    attributes: Sequence[str] | None = None,
) -> IntArray:
    """:func:`swapping` of several ``(reps, rng)`` chunks at once, rows concatenated.

    Equal, bit for bit, to ``np.concatenate([swapping(..., rng=rng, reps=reps) for reps, rng
    in chunks])``: every chunk draws from its own generator in the same order, but the
    steps of all chunks run in one loop (the loop over steps is the cost). The registry's
    ``swapping`` record declares it as its ``run_chunks``, and
    :func:`dadp_lite.simulate.simulate` takes it as ``run_chunks=``.
    """
    hist = _as_histogram(records_or_histogram, attributes)
    if not chunks:
        raise ValueError("chunks must hold at least one (reps, rng) pair")
    checked = []
    for reps, rng in chunks:
        qi_t, rate_t, rng, reps = _check_common(hist, qi, rate, rng, reps)
        checked.append((reps, rng))
    return _swapping_chunks(hist, qi_t, rate_t, checked, features, numeric)


def _swapping_chunks(
    hist: Histogram,
    qi: tuple[str, ...],
    rate: float,
    chunks: Chunks,
    features: Sequence[str] | None,
    numeric: Sequence[str],
) -> IntArray:
    features = _distance_features(hist, qi, features)
    coords, is_numeric = _cell_distance_coordinates(hist, features, numeric)
    counts = hist.counts
    steps = swap_count(hist.total, rate)
    reps = sum(size for size, _ in chunks)
    out = np.broadcast_to(counts, (reps, hist.n_cells)).copy()
    if steps == 0:
        return out
    # classes = distinct Lambda values among occupied cells
    occupied = np.flatnonzero(counts)
    keys, class_of = np.unique(coords[occupied], axis=0, return_inverse=True)
    class_of = class_of.ravel()
    n_classes = keys.shape[0]
    distance = _d_swap(keys[:, None, :], keys[None, :, :], is_numeric)
    class_cells = [occupied[class_of == c] for c in range(n_classes)]
    class_size = np.bincount(class_of, weights=counts[occupied], minlength=n_classes).astype(
        np.int64
    )
    group, qi_index, table = _cell_coordinates(hist, qi)
    swap_classes(out, steps, chunks, distance, class_cells, class_size, (group, qi_index, table))
    return out


def swapping_reference(
    records_or_histogram: Histogram | pd.DataFrame,
    *,
    qi: Sequence[str] = PAPER_QI,
    rate: float,
    rng: np.random.Generator,
    reps: int = 1,
    features: Sequence[str] | None = None,
    numeric: Sequence[str] = (),
    attributes: Sequence[str] | None = None,
) -> IntArray:
    """The appendix algorithm record by record (slow; for tests and benchmarks).

    Same arguments and output as :func:`swapping`, except that ``features`` may be any
    subset of the attributes.
    """
    hist = _as_histogram(records_or_histogram, attributes)
    qi, rate, rng, reps = _check_common(hist, qi, rate, rng, reps)
    if features is None:
        features = tuple(a for a in hist.attributes if a not in qi)
    features = (features,) if isinstance(features, str) else tuple(features)
    if any(f not in hist.attributes for f in features):
        raise ValueError(f"features holds unknown attribute(s): {features}")
    coords, is_numeric = _cell_distance_coordinates(hist, features, numeric)
    group, qi_index, table = _cell_coordinates(hist, qi)
    record_cells = np.repeat(np.arange(hist.n_cells), hist.counts)
    steps = swap_count(hist.total, rate)
    out = np.empty((reps, hist.n_cells), dtype=np.int64)
    for rep in range(reps):
        groups_of, qis_of = group[record_cells].copy(), qi_index[record_cells].copy()
        lam = coords[record_cells]
        free = np.ones(record_cells.size, dtype=bool)
        for _ in range(steps):
            i = rng.choice(np.flatnonzero(free))
            free[i] = False
            others = np.flatnonzero(free)
            gaps = _d_swap(lam[others], lam[i], is_numeric)
            ties = others[gaps <= gaps.min() + _TIE_TOLERANCE]
            s = rng.choice(ties)
            free[s] = False
            qis_of[i], qis_of[s] = qis_of[s], qis_of[i]
            # Lambda may contain QI features: keep the distance coordinates in sync
            lam[i], lam[s] = (
                coords[table[groups_of[i], qis_of[i]]],
                coords[table[groups_of[s], qis_of[s]]],
            )
        out[rep] = np.bincount(table[groups_of, qis_of], minlength=hist.n_cells)
    return out


# ----------------------------------------------------------------------- DP swapping
def dp_swapping(
    counts_or_histogram: Histogram | pd.DataFrame,
    *,
    qi: Sequence[str] = PAPER_QI,
    epsilon: float,
    rng: np.random.Generator,
    reps: int = 1,
    unit: str = "cell",
    attributes: Sequence[str] | None = None,
) -> IntArray:
    """DP swapping, released histogram counts of shape ``(reps, n_cells)``.

    Parameters
    ----------
    counts_or_histogram
        A :class:`~dadp_lite.histogram.Histogram` (or records, counted over ``attributes``).
    qi
        Quasi-identifier attributes (default ``("race",)``, n_Q = 9).
    epsilon
        Privacy parameter; gamma = e^eps / (e^eps + n_Q - 1).
    unit
        ``"cell"``: each cell's whole count keeps its QI value w.p. gamma, else moves to a
        uniform other QI value of its group (main text). ``"record"``: each record does so
        independently (appendix algorithm).
    """
    hist = _as_histogram(counts_or_histogram, attributes)
    qi = _qi_tuple(hist, qi)
    epsilon = check_epsilon(epsilon)
    rng = check_rng(rng)
    reps = check_positive_int(reps, "reps")
    check_choice(unit, "unit", UNITS)
    n_q = hist.n_qi(qi)
    gamma = keep_probability(epsilon, n_q)
    matrix = hist.to_qi_matrix(qi)
    if unit == "cell":
        released = _dp_swapping_cells(matrix, gamma, rng, reps)
    else:
        released = _dp_swapping_records(matrix, gamma, rng, reps)
    return hist.from_qi_matrix(qi, released)


def _dp_swapping_cells(
    matrix: IntArray, gamma: float, rng: np.random.Generator, reps: int
) -> IntArray:
    n_groups, n_q = matrix.shape
    g_idx, q_idx = np.nonzero(matrix)
    size = (reps, g_idx.size)
    keep = rng.random(size) < gamma
    shift = rng.integers(1, n_q, size=size)
    destination = np.where(keep, q_idx, (q_idx + shift) % n_q)
    flat = (np.arange(reps)[:, None] * n_groups + g_idx) * n_q + destination
    weights = np.broadcast_to(matrix[g_idx, q_idx], size)
    out = np.bincount(flat.ravel(), weights=weights.ravel(), minlength=reps * n_groups * n_q)
    return out.reshape(reps, n_groups, n_q).astype(np.int64)


def _dp_swapping_records(
    matrix: IntArray, gamma: float, rng: np.random.Generator, reps: int
) -> IntArray:
    n_groups, n_q = matrix.shape
    out = np.zeros((reps, n_groups, n_q), dtype=np.int64)
    moved = (1.0 - gamma) / (n_q - 1)
    for q in range(n_q):
        rows = np.flatnonzero(matrix[:, q])
        if rows.size == 0:
            continue
        pvals = np.full(n_q, moved)
        pvals[q] = gamma
        trials = np.broadcast_to(matrix[rows, q], (reps, rows.size))
        out[:, rows, :] += rng.multinomial(trials, pvals)
    return out
