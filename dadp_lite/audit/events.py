"""Families of distinguishing events, built from the selection half of an audit's samples.

A family turns the outputs into a list of candidate events and counts how often each
happens in the selection half under D and under D'. It can later count one chosen event in
the certification half. Two kinds:

* **threshold**: events ``{T(o) > t}`` for a scalar statistic T over a grid of thresholds
  t taken from the selection half (quantiles, or the midpoints between the values T takes
  when it takes few);
* **likelihood ratio** (discrete outputs): the distinct outputs of a *view* (some or all
  coordinates) ranked by their smoothed empirical ratio of frequencies under D and D' in
  the selection half; the events are the top-j sets of that ranking. When the view takes
  too many distinct values (continuous outputs), the family is skipped.

Every candidate is also used through its complement, and for either dataset as the
favoured one, by :func:`select`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import special

from dadp_lite._types import FloatArray, FloatOrArray, IntArray
from dadp_lite.audit.bounds import certified_delta, certified_epsilon, clopper_pearson
from dadp_lite.audit.sampling import Outputs

__all__ = [
    "Candidates",
    "Choice",
    "Target",
    "ratio_candidates",
    "factorize_rows",
    "row_ids",
    "select",
    "threshold_candidates",
]

#: Rows of each side looked at to decide whether a view is discrete enough to rank.
_PROBE = 2048
#: Candidate events per family (more give little and cost selection time).
_MAX_EVENTS = 512


@dataclass(frozen=True)
class Candidates:
    """Candidate events of one family: counts under D (``a``) and D' (``b``) among ``n``
    selection outputs per side, a way to count event j in the certification half, and a
    way to describe it."""

    family: str
    a: IntArray
    b: IntArray
    n: int
    certify: Callable[[int], tuple[int, int]]
    describe: Callable[[int, bool], str]


@dataclass(frozen=True)
class Target:
    """What one selection aims at: a delta at ``epsilon`` or an epsilon at ``delta``."""

    epsilon: float | None = None
    delta: float | None = None

    @property
    def label(self) -> str:
        if self.epsilon is not None:
            return f"delta at epsilon = {self.epsilon:g}"
        return f"epsilon at delta = {self.delta:g}"


@dataclass(frozen=True)
class Choice:
    """One selected event: family index, candidate index, complement or not, and whether
    D (``favours_x``) or D' is the dataset under which it is more likely."""

    family: int
    index: int
    complement: bool
    favours_x: bool


# ------------------------------------------------------------------ threshold tests
def _distinct(sorted_values: FloatArray) -> FloatArray:
    keep = np.empty(sorted_values.size, dtype=bool)
    keep[:1] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=keep[1:])
    return sorted_values[keep]


def _thresholds(sx: FloatArray, sy: FloatArray, size: int) -> FloatArray:
    """Thresholds from the sorted selection values: midpoints between the values of a
    few-valued statistic; otherwise order statistics of each side at evenly spaced ranks
    and, denser in both tails, at log-spaced ranks, plus just below each side's minimum."""
    values = np.union1d(
        _distinct(sx[:: max(sx.size // 8192, 1)]), _distinct(sy[:: max(sy.size // 8192, 1)])
    )
    if values.size <= size:
        values = np.union1d(_distinct(sx), _distinct(sy))
    if values.size <= size:
        midpoints: FloatArray = (values[1:] + values[:-1]) / 2
        return midpoints
    grid = []
    for side in (sx, sy):
        tail = np.geomspace(1, side.size / 2, size // 4).round().astype(int) - 1
        bulk = np.linspace(0, side.size - 1, size).round().astype(int)
        grid += [side[tail], side[side.size - 1 - tail], side[bulk]]
    lows = [np.nextafter(sx[0], -np.inf), np.nextafter(sy[0], -np.inf)]
    return np.unique(np.concatenate(grid + [lows]))


def threshold_candidates(name: str, parts: Sequence[FloatArray], size: int = 256) -> Candidates:
    """Events ``{T > t}`` of the statistic named ``name``; ``parts`` are its values on the
    selection and certification halves under D and D' (in that order)."""
    sel_x, sel_y, cert_x, cert_y = parts
    sx, sy = np.sort(sel_x), np.sort(sel_y)
    t = _thresholds(sx, sy, size)
    a = sx.size - np.searchsorted(sx, t, side="right")  # count of values > t[j]
    b = sy.size - np.searchsorted(sy, t, side="right")

    def certify(j: int) -> tuple[int, int]:
        return int(np.count_nonzero(cert_x > t[j])), int(np.count_nonzero(cert_y > t[j]))

    def describe(j: int, complement: bool) -> str:
        return f"{name} {'<=' if complement else '>'} {t[j]:.6g}"

    return Candidates(f"threshold: {name}", a, b, sx.size, certify, describe)


# ------------------------------------------------------------- likelihood ratio tests
#: Per part (the four halves of an audit), one integer code per row.
Codes: TypeAlias = list[IntArray]


def _hash(keys: Sequence[IntArray]) -> tuple[Codes, int]:
    ids, uniques = pd.factorize(np.concatenate(keys))
    return np.split(ids.astype(np.int64), np.cumsum([k.size for k in keys])[:-1]), len(uniques)


def _combine(
    keys: Codes | None, cardinality: int, codes: Sequence[IntArray], size: int
) -> tuple[Codes, int]:
    """Mixed-radix ``key * size + code``, compressing the keys first if it would overflow."""
    if keys is None:
        return list(codes), size
    if cardinality * size >= 2**62:
        keys, cardinality = _hash(keys)
    return [k * size + c for k, c in zip(keys, codes, strict=True)], cardinality * size


def _integer_blocks(
    parts: Sequence[IntArray], low: IntArray, spans: IntArray
) -> Iterator[tuple[Codes, int]]:
    """Codes of integer-valued columns, several columns per block (one matrix product)."""
    block: list[int] = []
    product = 1
    for j, span in enumerate(int(v) for v in spans):
        if block and product * span >= 2**62:
            yield _block_codes(parts, low, spans, block), product
            block, product = [], 1
        block.append(j)
        product *= span
    if block:
        yield _block_codes(parts, low, spans, block), product


def _block_codes(
    parts: Sequence[IntArray], low: IntArray, spans: IntArray, block: list[int]
) -> Codes:
    radix = np.cumprod(np.concatenate([[1], spans[block][:0:-1]]))[::-1].astype(np.int64)
    return [(part[:, block] - low[block]) @ radix for part in parts]


def factorize_rows(parts: Sequence[Outputs]) -> tuple[Codes, int]:
    """Common integer ids of the rows of several 2-d arrays (equal rows, equal ids) and
    their number.

    Constant columns are dropped. Integer-valued columns are coded by their offsets and
    combined in mixed radix, many at a time; other columns are coded by hashing, one at a
    time. Whenever the radix product would overflow int64, the running key is compressed by
    hashing first. Linear time, no sort.
    """
    parts = [part.astype(np.int64) if part.dtype == bool else part for part in parts]
    low = np.min([part.min(axis=0) for part in parts], axis=0)
    high = np.max([part.max(axis=0) for part in parts], axis=0)
    varying = np.flatnonzero(high > low)
    parts = [part[:, varying] for part in parts]
    low, high = low[varying], high[varying]
    keys: Codes | None = None
    cardinality = 1
    small = np.all(high.astype(float) - low.astype(float) < 2**31)  # offsets fit a digit
    if small and all(p.dtype.kind in "iub" or np.array_equal(p, np.floor(p)) for p in parts):
        parts = [part.astype(np.int64) for part in parts]
        low, high = low.astype(np.int64), high.astype(np.int64)
        for codes, size in _integer_blocks(parts, low, high - low + 1):
            keys, cardinality = _combine(keys, cardinality, codes, size)
    else:
        for j in range(len(varying)):
            codes, uniques = pd.factorize(np.concatenate([part[:, j] for part in parts]))
            split = np.split(codes.astype(np.int64), np.cumsum([p.shape[0] for p in parts])[:-1])
            keys, cardinality = _combine(keys, cardinality, split, len(uniques))
    if keys is None:  # every column constant: one outcome
        return [np.zeros(part.shape[0], dtype=np.int64) for part in parts], 1
    return _hash(keys)


def row_ids(parts: Sequence[Outputs], max_outcomes: int) -> Codes | None:
    """Common integer ids of the rows of all ``parts``, or None when the view takes too
    many distinct values to rank (judged first on a probe of each selection half)."""
    probe = [parts[0][:_PROBE], parts[1][:_PROBE]]
    if factorize_rows(probe)[1] > max(64, (probe[0].shape[0] + probe[1].shape[0]) // 4):
        return None
    ids, count = factorize_rows(parts)
    return None if count > max_outcomes else ids


def ratio_candidates(
    name: str, ids: Sequence[IntArray], max_events: int = _MAX_EVENTS
) -> Candidates:
    """Top-j sets of the outputs of view ``name``, ranked by the smoothed ratio of their
    frequencies under D and D' (``ids`` as from :func:`row_ids`).

    The ranking is fitted on the first half of the selection outputs and the candidates
    are counted on the second half: with many distinct outputs, counts from the data that
    fitted the ranking would flatter the top sets (outputs seen once, on one side only).
    """
    sel_x, sel_y, cert_x, cert_y = ids
    half = min(sel_x.size, sel_y.size) // 2
    m = int(max(i.max() for i in ids)) + 1
    cx = np.bincount(sel_x[:half], minlength=m).astype(float)
    cy = np.bincount(sel_y[:half], minlength=m).astype(float)
    seen = np.flatnonzero(cx + cy > 0)
    ranked = seen[np.argsort(-(cx[seen] + 0.5) / (cy[seen] + 0.5), kind="stable")]
    rank_of = np.full(m, ranked.size)
    rank_of[ranked] = np.arange(ranked.size)
    sizes = np.unique(np.geomspace(1, ranked.size, max_events).round().astype(int)) - 1

    def count(values: IntArray) -> IntArray:
        per_rank = np.bincount(rank_of[values], minlength=ranked.size + 1)[: ranked.size]
        counts: IntArray = np.cumsum(per_rank)[sizes]
        return counts

    score_x, score_y = sel_x[half : 2 * half], sel_y[half : 2 * half]

    def certify(j: int) -> tuple[int, int]:
        last = sizes[j]
        return int((rank_of[cert_x] <= last).sum()), int((rank_of[cert_y] <= last).sum())

    def describe(j: int, complement: bool) -> str:
        where = "outside" if complement else "among"
        return f"{name} {where} the {sizes[j] + 1} outputs likeliest under D relative to D'"

    family = f"likelihood ratio: {name}"
    return Candidates(family, count(score_x), count(score_y), half, certify, describe)


# ------------------------------------------------------------------------ selection
#: Candidates per family and target whose exact Clopper-Pearson score is computed after
#: the Wilson screen (the screen only orders; the choice uses exact bounds).
_SHORTLIST = 16
#: Scores closer than this are ties (both sides of an event and its complement can give the
#: same bound, up to rounding).
_TIE = 1e-12


#: One-sided bounds ``(lower, upper)`` on binomial probabilities from counts out of ``n``.
Bounds: TypeAlias = Callable[[IntArray, int], tuple[FloatOrArray, FloatOrArray]]
#: Per candidate, the four options' lower bound on the favoured side and upper on the other.
Screen: TypeAlias = tuple[FloatArray, FloatArray]


def _wilson(k: npt.ArrayLike, n: int, z: float) -> tuple[FloatArray, FloatArray]:
    """Wilson score bounds: a fast stand-in for Clopper-Pearson, used only to screen."""
    k = np.asarray(k, dtype=float)
    centre = (k + z * z / 2) / (n + z * z)
    half = z * np.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    lower: FloatArray = np.clip(centre - half, 0.0, 1.0)
    upper: FloatArray = np.clip(centre + half, 0.0, 1.0)
    return lower, upper


def _options(a: IntArray, b: IntArray, n: int, bounds: Bounds) -> Screen:
    """Lower bound on the favoured side and upper bound on the other, shape (4, J), for
    (event, D), (event, D'), (complement, D), (complement, D'). The complement's bounds
    follow from the event's: lower(n - k) = 1 - upper(k)."""
    lower_a, upper_a = bounds(a, n)
    lower_b, upper_b = bounds(b, n)
    favoured = np.stack([lower_a, lower_b, 1.0 - upper_a, 1.0 - upper_b])
    other = np.stack([upper_b, upper_a, 1.0 - lower_b, 1.0 - lower_a])
    return favoured, other


def _score(favoured: FloatArray, other: FloatArray, target: Target) -> FloatArray:
    if target.epsilon is not None:
        return np.asarray(certified_delta(favoured, other, target.epsilon))
    return np.asarray(certified_epsilon(favoured, other, target.delta))


def _best_in_family(
    c: Candidates, target: Target, alpha: float, screen: Screen
) -> tuple[float, int, int]:
    """Best (score, option, index) of one family: Wilson screen, then exact bounds."""
    scores = _score(*screen, target)
    top = np.argsort(-scores, axis=None, kind="stable")[:_SHORTLIST]  # ties: option order
    options, indices = np.unravel_index(top, scores.shape)
    exact = _options(c.a[indices], c.b[indices], c.n, lambda k, n: clopper_pearson(k, n, alpha))
    rescored = _score(*exact, target)[options, np.arange(top.size)]
    # equal bounds up to rounding count as ties, won by the first: every target then keeps
    # the same event, and the certification pays for it once
    best = int(np.flatnonzero(rescored >= rescored.max() - _TIE)[0])
    return float(rescored[best]), int(options[best]), int(indices[best])


def select(
    families: Sequence[Candidates], targets: Sequence[Target], alpha: float
) -> list[Choice | None]:
    """For each target, the event with the largest Clopper-Pearson bound (at ``alpha``) on
    the selection outputs; None if there is no candidate at all. All candidates are first
    ordered by Wilson bounds; the exact bounds of the best few decide."""
    z = float(-special.ndtri(alpha))
    screens = [_options(c.a, c.b, c.n, lambda k, n: _wilson(k, n, z)) for c in families]
    choices: list[Choice | None] = []
    for target in targets:
        best, best_score = None, -np.inf
        for f, (c, screen) in enumerate(zip(families, screens, strict=True)):
            if c.a.size == 0:
                continue
            score, option, index = _best_in_family(c, target, alpha, screen)
            if score > best_score + _TIE:
                best_score = score
                best = Choice(f, index, option >= 2, option in (0, 2))
        choices.append(best)
    return choices
