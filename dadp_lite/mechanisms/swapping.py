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
from dadp_lite.paper import PAPER_QI

__all__ = [
    "UNITS",
    "dp_swapping",
    "swap_count",
    "swapping",
    "swapping_chunks",
    "swapping_reference",
]

_TIE_TOLERANCE = 1e-9


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


def _cell_coordinates(
    hist: Histogram, qi: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
) -> tuple[np.ndarray, np.ndarray]:
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


def _d_swap(a: np.ndarray, b: np.ndarray, is_numeric: np.ndarray) -> np.ndarray:
    """d_swap between rows of ``a`` and ``b`` (broadcast), as in the appendix."""
    diff = np.abs(a - b)
    return np.where(is_numeric, diff, diff > 0).sum(axis=-1)


# ------------------------------------------------------------------ traditional
def _check_common(hist, qi, rate, rng, reps):
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
) -> np.ndarray:
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
    chunks: Sequence[tuple[int, np.random.Generator]],
    *,
    qi: Sequence[str] = PAPER_QI,
    rate: float,
    features: Sequence[str] | None = None,
    numeric: Sequence[str] = (),
    attributes: Sequence[str] | None = None,
) -> np.ndarray:
    """:func:`swapping` of several ``(reps, rng)`` chunks at once, rows concatenated.

    Equal, bit for bit, to ``np.concatenate([swapping(..., rng=rng, reps=reps) for reps, rng
    in chunks])``: every chunk draws from its own generator in the same order, but the
    steps of all chunks run in one loop (the loop over steps is the cost).
    :func:`dadp_lite.simulate.simulate` uses it through ``swapping.run_chunks``.
    """
    hist = _as_histogram(records_or_histogram, attributes)
    if not chunks:
        raise ValueError("chunks must hold at least one (reps, rng) pair")
    checked = []
    for reps, rng in chunks:
        qi_t, rate_t, rng, reps = _check_common(hist, qi, rate, rng, reps)
        checked.append((reps, rng))
    return _swapping_chunks(hist, qi_t, rate_t, checked, features, numeric)


def _swapping_chunks(hist, qi, rate, chunks, features, numeric) -> np.ndarray:
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

    remaining = np.broadcast_to(counts, (reps, hist.n_cells)).copy()  # for cross-class draws
    unswapped = _ClassCounts(class_size, reps)
    rng_of_row = [rng for size, rng in chunks for _ in range(size)]

    def cross_class(r: int, picked: int) -> None:
        unswapped.values[r, picked] = 0
        _cross_class_swap(
            r, picked, unswapped.values, remaining, distance, class_cells, group, qi_index,
            table, out, rng_of_row[r],
        )  # fmt: skip

    _class_steps(unswapped, hist.total, steps, chunks, cross_class)
    return out


swapping.run_chunks = swapping_chunks


class _ClassCounts:
    """Unswapped records per class ``(reps, n_classes)``, with block sums for fast picks.

    The classes are cut into blocks of ``width`` (about the square root of their number);
    ``values`` is a view of the first ``n_classes`` columns of a zero-padded
    ``(reps, n_blocks, width)`` array, so the cross-class swap edits it in place, after
    which :meth:`refresh` recomputes the block sums.
    """

    def __init__(self, class_size: np.ndarray, reps: int):
        n = class_size.size
        self.width = math.isqrt(max(n - 1, 0)) + 1
        self.n_blocks = -(-n // self.width)
        padded = np.zeros((reps, self.n_blocks * self.width), dtype=np.int64)
        padded[:, :n] = class_size
        self.flat = padded.reshape(-1)  # views of one buffer
        self.blocks = padded.reshape(reps * self.n_blocks, self.width)
        self.values = padded[:, :n]
        self.rows = np.arange(reps)
        self.row_start = self.rows * self.n_blocks
        self.refresh()

    def refresh(self) -> None:
        """Recompute the block sums after ``values`` changed in place."""
        self.sums = self.blocks.sum(axis=1).reshape(-1, self.n_blocks)

    def pick_and_remove(self, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per repetition the class holding unswapped record number ``target`` (in class
        order), i.e. the number of classes whose cumulative count is ``<= target``, exactly
        ``(np.cumsum(values, axis=1) <= target[:, None]).sum(axis=1)``. Removes two records
        from it; returns ``(picked, single)``, ``single`` where it held only one record.
        """
        block_cum = self.sums.cumsum(axis=1)
        block = (block_cum <= target[:, None]).sum(axis=1)
        row_block = self.row_start + block  # row of ``blocks``
        before = block_cum.ravel()[row_block] - self.sums.ravel()[row_block]
        inner = self.blocks[row_block].cumsum(axis=1)
        position = (inner <= (target - before)[:, None]).sum(axis=1)
        where = row_block * self.width + position  # index into ``flat``
        single = self.flat[where] == 1
        self.flat[where] -= 2
        self.sums.ravel()[row_block] -= 2
        return block * self.width + position, single


_TARGET_BLOCK = 256  # at most this many steps' targets are drawn in one call per generator
#: Steps are resolved a block at a time (:func:`_block_picks`) when the records per class
#: and step of the block exceed this; below it most steps are ambiguous and one at a time
#: is faster. Either way the picks are the same.
_BLOCK_SPACING = 8


def _block_picks(values: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Picks ``(S, R)`` of consecutive steps, vectorised over steps, exactly as one step at
    a time would pick them.

    ``values`` ``(R, n)`` are the class counts before the block and ``targets[s]`` the
    targets of step ``s``; every step removes two records from its pick (valid up to and
    including the first step whose picked class holds one record: the caller stops there).

    Step ``s`` picks ``#{c : cum_s[c] <= x_s}``, where ``cum_s`` is the cumulative count
    after the earlier steps: ``cum_s[c] = cum_0[c] - 2 D_s(c)`` with ``D_s(c)`` the number of
    earlier picks ``<= c``, and ``0 <= D_s(c) <= s``. So the pick lies between ``lo = #{c :
    cum_0[c] <= x_s}`` and ``hi = #{c : cum_0[c] <= x_s + 2 s}``; where they agree it is
    known at once, and the others (a class boundary lies within ``2 s`` above the target)
    are found by fixed-point iteration on ``D``. The recursion is triangular (a pick depends
    on earlier picks only), so its fixed point is unique and is the sequential result.
    """
    size, reps = targets.shape
    n = values.shape[1]
    cum = values.cumsum(axis=1)
    gap = int(cum[:, -1].max()) + 2 * size + 1  # rows apart in one sorted flat array
    flat = (cum + gap * np.arange(reps)[:, None]).ravel()
    base = gap * np.arange(reps)[None, :]
    row_start = n * np.arange(reps)[None, :]
    reach = targets + 2 * np.arange(size)[:, None]  # x_s + 2 s
    lo = np.searchsorted(flat, targets + base, side="right") - row_start
    # a boundary lies in (x, x + 2 s] iff the first one above x does (lo < n: x < total)
    picks = lo
    q_s, q_r = np.nonzero(cum.ravel()[np.minimum(lo, n - 1) + row_start] <= reach)
    if q_s.size:
        picks = lo.copy()
        lo_q = lo[q_s, q_r]
        hi_q = np.searchsorted(flat, reach[q_s, q_r] + base[0, q_r], side="right") - n * q_r
        width = hi_q - lo_q
        query = np.repeat(np.arange(q_s.size), width)
        candidate = np.repeat(lo_q, width) + (
            np.arange(query.size) - np.repeat(np.cumsum(width) - width, width)
        )
        pair_s, pair_r = q_s[query], q_r[query]
        # counted while cum_0[c] - 2 D <= x, i.e. 2 D >= cum_0[c] - x
        need = cum[pair_r, candidate] - targets[pair_s, pair_r]
        earlier = np.arange(size)[:, None] < pair_s[None, :]
        while True:
            below = (picks[:, pair_r] <= candidate[None, :]) & earlier
            counted = 2 * below.sum(axis=0) >= need
            new = lo_q + np.bincount(query, weights=counted, minlength=q_s.size).astype(np.int64)
            if np.array_equal(new, picks[q_s, q_r]):
                break
            picks[q_s, q_r] = new
    return picks


def _first_single(values: np.ndarray, picks: np.ndarray) -> int | None:
    """First step of the block whose pick finds a single unswapped record in its class.

    A class of ``v`` records picked ``m`` times in the block (two removed per pick) holds a
    single record at its ``(v + 1) / 2``-th pick when ``v`` is odd and ``2 m >= v + 1``.
    """
    reps, n = values.shape
    picked = np.bincount((picks + n * np.arange(reps)).ravel(), minlength=reps * n)
    v = values.ravel()
    hit = np.flatnonzero((v % 2 == 1) & (2 * picked >= v + 1))
    if hit.size == 0:
        return None
    rows, classes = np.divmod(hit, n)
    occurrence = np.cumsum(picks[:, rows] == classes[None, :], axis=0)  # (S, hits)
    steps = np.argmax(occurrence == ((v[hit] + 1) // 2)[None, :], axis=0)
    return int(steps.min())


def _class_steps(unswapped: _ClassCounts, total: int, steps: int, chunks, cross_class) -> None:
    """The appendix loop on class counts for all chunks at once.

    Each step draws ``rng.integers(0, total, size=reps)`` from every chunk's generator,
    ``total`` falling by 2 per step, picks a class for every row (the class holding the
    target-th unswapped record), removes two records from it, and then calls
    ``cross_class(r, picked)`` for every row, in order, whose picked class held a single
    unswapped record. The targets of up to ``_TARGET_BLOCK`` steps are drawn in one call
    (``rng.integers`` with an array of upper bounds draws the same numbers as one call per
    step). A cross-class swap draws from its generator between two steps, so at the first
    step that needs one every generator is rewound and only the targets up to that step
    redrawn: each generator's stream is exactly the one of one call per step. The block
    length adapts to the spacing of cross-class swaps (it changes only how many targets are
    drawn ahead, never which). Picks are resolved one step at a time
    (:meth:`_ClassCounts.pick_and_remove`) or, with many records per class, a block at a
    time (:func:`_block_picks`); both give the same picks.
    """
    step, ahead = 0, 16
    n_classes = unswapped.values.shape[1]
    while step < steps:
        size = min(ahead, steps - step)
        fit = int(total // max(_BLOCK_SPACING * n_classes, 1))  # longest block to resolve at once
        at_once = fit >= 16
        if at_once:
            size = min(size, fit)
        highs = (total - 2 * np.arange(size))[:, None]
        saved = [rng.bit_generator.state for _, rng in chunks]
        targets = np.concatenate(
            [rng.integers(0, np.broadcast_to(highs, (size, n))) for n, rng in chunks], axis=1
        )
        if at_once:
            done, picked, single = _apply_block(unswapped, targets)
        else:
            done, picked, single = _apply_steps(unswapped, targets)
        if single.any():
            for (n, rng), state in zip(chunks, saved, strict=True):
                rng.bit_generator.state = state
                rng.integers(0, np.broadcast_to(highs[:done], (done, n)))
            for r in np.flatnonzero(single):
                cross_class(r, picked[r])
            unswapped.refresh()
            ahead = max(8, 2 * done)
        else:
            ahead = min(2 * ahead, _TARGET_BLOCK)
        step += done
        total -= 2 * done


def _apply_steps(unswapped: _ClassCounts, targets: np.ndarray):
    """Steps one at a time up to the first cross-class swap: (steps done, last picks,
    rows needing a cross-class swap at the last step)."""
    for t in range(targets.shape[0]):
        picked, single = unswapped.pick_and_remove(targets[t])
        if single.any():
            return t + 1, picked, single
    return targets.shape[0], picked, single


def _apply_block(unswapped: _ClassCounts, targets: np.ndarray):
    """:func:`_apply_steps` with the picks of the block resolved at once."""
    values = unswapped.values
    picks = _block_picks(values, targets)
    first = _first_single(values, picks)
    done = targets.shape[0] if first is None else first + 1
    reps, n = values.shape
    last = picks[done - 1]
    single = values[np.arange(reps), last] - 2 * (picks[: done - 1] == last).sum(axis=0) == 1
    key = (picks[:done] + n * np.arange(reps)).ravel()
    values -= 2 * np.bincount(key, minlength=reps * n).reshape(reps, n)
    unswapped.refresh()
    return done, last, single


def _cross_class_swap(
    r, c, unswapped, remaining, distance, class_cells, group, qi_index, table, out, rng
) -> None:
    """The last unswapped record of class ``c`` swaps with its nearest unswapped record."""
    open_classes = np.flatnonzero(unswapped[r] > 0)
    gaps = distance[c, open_classes]
    nearest = open_classes[gaps <= gaps.min() + _TIE_TOLERANCE]
    weights = unswapped[r, nearest].astype(float)
    partner = nearest[rng.choice(nearest.size, p=weights / weights.sum())]
    unswapped[r, partner] -= 1
    cell_a = _draw_cell(r, class_cells[c], remaining, rng)
    cell_b = _draw_cell(r, class_cells[partner], remaining, rng)
    new_a = table[group[cell_a], qi_index[cell_b]]
    new_b = table[group[cell_b], qi_index[cell_a]]
    out[r, cell_a] -= 1
    out[r, cell_b] -= 1
    out[r, new_a] += 1
    out[r, new_b] += 1


def _draw_cell(r: int, cells: np.ndarray, remaining: np.ndarray, rng) -> int:
    """A uniformly random not-yet-drawn record of the class; returns its cell."""
    weights = remaining[r, cells]
    position = rng.integers(0, weights.sum())
    cell = cells[np.searchsorted(np.cumsum(weights), position, side="right")]
    remaining[r, cell] -= 1
    return int(cell)


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
) -> np.ndarray:
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
) -> np.ndarray:
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


def _dp_swapping_cells(matrix: np.ndarray, gamma: float, rng, reps: int) -> np.ndarray:
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


def _dp_swapping_records(matrix: np.ndarray, gamma: float, rng, reps: int) -> np.ndarray:
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
