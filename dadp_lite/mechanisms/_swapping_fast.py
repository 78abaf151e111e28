"""The fast traditional-swapping sampler's loop on class counts (internals of
:func:`dadp_lite.mechanisms.swapping`; the module docstring there explains the method).

:func:`swap_classes` runs the appendix's loop for all chunks of repetitions at once on the
counts of unswapped records per class, resolving picks one step or one block of steps at a
time (:class:`_ClassCounts`, :func:`_block_picks`), and performs the cross-class swaps that
move counts (:func:`_cross_class_swap`). Every chunk draws from its own generator exactly
as one ``rng.integers`` call per step would.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeAlias

import numpy as np

from dadp_lite._types import BoolArray, FloatArray, IndexArray, IntArray

__all__ = ["TIE_TOLERANCE", "Chunks", "swap_classes"]

#: ``(reps, rng)`` pairs: repetitions drawn, in order, from each generator.
Chunks: TypeAlias = Sequence[tuple[int, np.random.Generator]]
#: Per cell its non-QI group and QI index, and the (group, QI) -> cell table.
CellCoordinates: TypeAlias = tuple[IntArray, IntArray, IntArray]

#: Distances within this of the smallest count as ties (nearest partners).
TIE_TOLERANCE = 1e-9


def swap_classes(
    out: IntArray,
    steps: int,
    chunks: Chunks,
    distance: FloatArray,
    class_cells: Sequence[IndexArray],
    class_size: IntArray,
    cells: CellCoordinates,
) -> None:
    """Run ``steps`` swaps of every repetition of ``chunks`` (``(reps, rng)`` pairs), moving
    counts of ``out`` ``(reps, n_cells)`` (the true counts on entry) in place.

    ``distance`` is d_swap between classes, ``class_cells[c]`` the occupied cells of class
    ``c`` and ``class_size[c]`` its number of records; ``cells`` is ``(group, qi_index,
    table)``: per cell its non-QI group and QI index, and the (group, QI) -> cell table.
    """
    group, qi_index, table = cells
    reps = out.shape[0]
    remaining = out.copy()  # for cross-class draws
    unswapped = _ClassCounts(class_size, reps)
    rng_of_row = [rng for size, rng in chunks for _ in range(size)]

    def cross_class(r: int, picked: int) -> None:
        unswapped.values[r, picked] = 0
        _cross_class_swap(
            r, picked, unswapped.values, remaining, distance, class_cells, group, qi_index,
            table, out, rng_of_row[r],
        )  # fmt: skip

    _class_steps(unswapped, int(class_size.sum()), steps, chunks, cross_class)


class _ClassCounts:
    """Unswapped records per class ``(reps, n_classes)``, with block sums for fast picks.

    The classes are cut into blocks of ``width`` (about the square root of their number);
    ``values`` is a view of the first ``n_classes`` columns of a zero-padded
    ``(reps, n_blocks, width)`` array, so the cross-class swap edits it in place, after
    which :meth:`refresh` recomputes the block sums.
    """

    def __init__(self, class_size: IntArray, reps: int) -> None:
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

    def pick_and_remove(self, target: IntArray) -> tuple[IntArray, BoolArray]:
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


def _block_picks(values: IntArray, targets: IntArray) -> IntArray:
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
    picks: IntArray = lo
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


def _first_single(values: IntArray, picks: IntArray) -> int | None:
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


def _class_steps(
    unswapped: _ClassCounts,
    total: int,
    steps: int,
    chunks: Chunks,
    cross_class: Callable[[int, int], None],
) -> None:
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
                cross_class(int(r), int(picked[r]))
            unswapped.refresh()
            ahead = max(8, 2 * done)
        else:
            ahead = min(2 * ahead, _TARGET_BLOCK)
        step += done
        total -= 2 * done


def _apply_steps(unswapped: _ClassCounts, targets: IntArray) -> tuple[int, IntArray, BoolArray]:
    """Steps one at a time up to the first cross-class swap: (steps done, last picks,
    rows needing a cross-class swap at the last step)."""
    for t in range(targets.shape[0]):
        picked, single = unswapped.pick_and_remove(targets[t])
        if single.any():
            return t + 1, picked, single
    return targets.shape[0], picked, single


def _apply_block(unswapped: _ClassCounts, targets: IntArray) -> tuple[int, IntArray, BoolArray]:
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
    r: int,
    c: int,
    unswapped: IntArray,
    remaining: IntArray,
    distance: FloatArray,
    class_cells: Sequence[IndexArray],
    group: IntArray,
    qi_index: IntArray,
    table: IntArray,
    out: IntArray,
    rng: np.random.Generator,
) -> None:
    """The last unswapped record of class ``c`` swaps with its nearest unswapped record."""
    open_classes = np.flatnonzero(unswapped[r] > 0)
    gaps = distance[c, open_classes]
    nearest = open_classes[gaps <= gaps.min() + TIE_TOLERANCE]
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


def _draw_cell(r: int, cells: IndexArray, remaining: IntArray, rng: np.random.Generator) -> int:
    """A uniformly random not-yet-drawn record of the class; returns its cell."""
    weights = remaining[r, cells]
    position = rng.integers(0, weights.sum())
    cell = cells[np.searchsorted(np.cumsum(weights), position, side="right")]
    remaining[r, cell] -= 1
    return int(cell)
