"""Mondrian k-anonymity: the anonypy reference and a fast histogram implementation.

The paper k-anonymises with the Mondrian algorithm of :cite:`lefevre2006mondrian` as
implemented in ``anonypy`` 0.2.1. That implementation fixes details the original algorithm
leaves open, and the fast version here copies every one of them, so both produce the same
partitions (same classes, same counts, same order) for the same data, QIs and ``k``:

* **Queue.** Partitions are processed first in, first out, starting from the whole
  dataset; a partition that cannot be split is *finished*. The output lists finished
  partitions in the order they leave the queue, which is breadth-first order: by depth in
  the split tree, then left before right.
* **Column order.** For each partition the QIs are tried by decreasing normalised span:
  the number of distinct values present (categorical) or ``max - min`` (numeric), divided
  by the same quantity on the whole dataset. Ties keep the QI order given by the caller
  (Python's stable ``sorted`` over the column dict).
* **Categorical split.** The distinct values of the column, in order of *first
  appearance in the partition's row order* (``pandas`` ``unique()``), are cut in half: the
  first ``len // 2`` values go left, the rest right.
* **Numeric split.** At the ``pandas`` median (mean of the two middle values for an even
  number of rows): values ``< median`` left, ``>= median`` right.
* **Acceptance.** The first split in column order whose two halves both hold ``>= k``
  rows is taken; if none qualifies the partition is finished.

Rows of a partition keep the order of the original frame. Because every split is a
condition on one column's value, a partition is a union of *cells* (combinations of QI
values); its row order matters only through the first row of each cell. The fast version
therefore works on three numbers per occupied cell: its QI values, its count and the
position of its first row. Repetitions run as a batch: every array has a leading axis of
repetitions and all partitions of one depth are split at once with numpy group operations.

Row order of a histogram input: a :class:`~dadp_lite.histogram.Histogram` has none, so it
is read as ``histogram.to_records()`` (cells in C order). Row order of a subsample: the
kept rows in their original order; see :func:`thin_cells`.

anonypy is called as follows (see :func:`mondrian_anonypy`): the QI columns are copied from
the frame (index reset to 0..m-1); categorical QIs are converted to pandas ``category``
dtype, numeric QIs stay int64; a constant column ``_sensitive = 0`` is added as the
sensitive column (anonypy requires one); ``Preserver(frame, qi, "_sensitive")
.anonymize_k_anonymity(k)`` then returns one row per partition whose ``count`` is the
partition size, and its strings (``"1,2"`` for merged categories, ``"20-45"`` for numeric
ranges) are parsed back into values.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd

from dadp_lite._types import BoolArray, Domain, DomainMap, FloatArray, IndexArray, IntArray
from dadp_lite._validate import check_positive_int, check_probability, check_qi, check_rng
from dadp_lite.data import feature_domains
from dadp_lite.histogram import Histogram

__all__ = [
    "CellTable",
    "EquivalenceClass",
    "Interval",
    "MondrianBatch",
    "mondrian",
    "mondrian_anonypy",
    "mondrian_batch",
    "thin_cells",
]


class Interval(NamedTuple):
    """Closed range ``[lo, hi]`` of a generalised numeric QI."""

    lo: int
    hi: int


@dataclass(frozen=True)
class EquivalenceClass:
    """One generalised class: per QI the merged values (tuple) or an :class:`Interval`."""

    qi: tuple[str, ...]
    values: tuple[tuple[int, ...] | Interval, ...]
    count: int

    def as_dict(self) -> dict[str, object]:
        """``{qi: values, ..., "count": count}``."""
        return {**dict(zip(self.qi, self.values, strict=True)), "count": self.count}


# --------------------------------------------------------------------------- validation
def _check_qi(
    qi: object, columns: Sequence[str], numeric: object
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    qi = check_qi(qi, list(columns))
    numeric = check_qi(numeric, qi, "numeric") if numeric not in ((), []) else ()
    return qi, numeric


def _check_k(k: object, n_records: int) -> int:
    k = check_positive_int(k, "k")
    if k > n_records:
        raise ValueError(f"k must be <= the number of records ({n_records}), got {k}")
    return k


# --------------------------------------------------------------------------- reference
def _parse_anonypy(text: str, numeric: bool) -> tuple[int, ...] | Interval:
    if numeric:
        lo, _, hi = text.partition("-")
        return Interval(int(lo), int(hi or lo))
    return tuple(sorted(int(v) for v in text.split(",")))


def mondrian_anonypy(
    records: pd.DataFrame, qi: Sequence[str], k: int, *, numeric: Sequence[str] = ()
) -> list[EquivalenceClass]:
    """Mondrian partitions computed by anonypy 0.2.1 (the reference; slow, row-wise).

    Parameters
    ----------
    records
        One row per record; row order matters (categorical splits use first appearance).
    qi
        Quasi-identifier columns, in the order that breaks span ties.
    k
        Minimum class size, ``1 <= k <= len(records)``.
    numeric
        QIs treated as numeric (split at the median, released as intervals); all other QIs
        are categorical. See the module docstring for the exact call.

    Returns
    -------
    list of EquivalenceClass
        In anonypy's output order.
    """
    from anonypy import Preserver

    if not isinstance(records, pd.DataFrame):
        raise TypeError(f"records must be a pandas DataFrame, got {type(records).__name__}")
    qi, numeric = _check_qi(qi, records.columns, numeric)
    k = _check_k(k, len(records))
    frame = records.loc[:, list(qi)].reset_index(drop=True)
    for column in qi:
        if column not in numeric:
            frame[column] = frame[column].astype("category")
    frame["_sensitive"] = 0
    with warnings.catch_warnings():
        # anonypy divides 0 by 0 for a numeric QI that is constant on the whole frame
        warnings.simplefilter("ignore", RuntimeWarning)
        rows = Preserver(frame, list(qi), "_sensitive").anonymize_k_anonymity(k)
    return [
        EquivalenceClass(
            qi,
            tuple(_parse_anonypy(row[q][0], q in numeric) for q in qi),
            int(row["count"]),
        )
        for row in rows
    ]


# --------------------------------------------------------------------------- cell table
@dataclass(frozen=True, eq=False)
class CellTable:
    """Occupied cells of a dataset: the fast Mondrian's view of the rows.

    Attributes
    ----------
    attributes, domains
        All attributes carried (QIs first is not required) and their full domains.
    qi, numeric
        Quasi-identifiers and the subset treated as numeric.
    codes
        ``(C, n_attributes)`` domain index of each occupied cell.
    counts
        ``(C,)`` records per cell.
    positions
        Row positions of the records, grouped by cell (cell ``c`` owns
        ``positions[offsets[c]:offsets[c] + counts[c]]``, increasing).
    offsets
        ``(C,)`` start of each cell's block in ``positions``.
    """

    attributes: tuple[str, ...]
    domains: tuple[Domain, ...]
    qi: tuple[str, ...]
    numeric: tuple[str, ...]
    codes: IntArray
    counts: IntArray
    positions: IndexArray
    offsets: IntArray

    @property
    def n_cells(self) -> int:
        """Size of the full universe of ``attributes``."""
        return int(np.prod([len(d) for d in self.domains]))

    @property
    def first(self) -> IndexArray:
        """Position of each cell's first row."""
        return self.positions[self.offsets]

    @property
    def flat_index(self) -> IndexArray:
        """Index of each occupied cell in the flattened universe (C order)."""
        flat: IndexArray = np.ravel_multi_index(
            tuple(self.codes.T), tuple(len(d) for d in self.domains)
        )
        return flat

    @classmethod
    def from_records(
        cls,
        records: pd.DataFrame,
        qi: Sequence[str],
        *,
        numeric: Sequence[str] = (),
        attributes: Sequence[str] | None = None,
        domains: DomainMap | None = None,
    ) -> CellTable:
        """Cells of ``records`` over ``attributes`` (default: the QIs)."""
        if not isinstance(records, pd.DataFrame):
            raise TypeError(f"records must be a pandas DataFrame, got {type(records).__name__}")
        qi, numeric = _check_qi(qi, list(records.columns), numeric)
        attributes = tuple(qi if attributes is None else attributes)
        unknown = [a for a in attributes if a not in records.columns]
        if unknown:
            raise ValueError(
                f"attributes: unknown column(s) {unknown}; records have {list(records.columns)}"
            )
        qi, numeric = _check_qi(qi, attributes, numeric)
        hist = Histogram.from_records(records, attributes, _domains(attributes, domains))
        _check_numeric_domains(hist, numeric)
        # flat cell of every row, in row order (records were validated by from_records)
        cell_of_row = np.ravel_multi_index(
            tuple(pd.Index(d).get_indexer(records[a]) for a, d in zip(attributes, hist.domains)),
            hist.shape,
        )
        return cls._from_rows(hist, qi, numeric, cell_of_row)

    @classmethod
    def from_histogram(
        cls, histogram: Histogram, qi: Sequence[str], *, numeric: Sequence[str] = ()
    ) -> CellTable:
        """Cells of a histogram read as ``histogram.to_records()`` (rows in cell order)."""
        qi, numeric = _check_qi(qi, histogram.attributes, numeric)
        _check_numeric_domains(histogram, numeric)
        cell_of_row = np.repeat(np.arange(histogram.n_cells), histogram.counts)
        return cls._from_rows(histogram, qi, numeric, cell_of_row)

    @classmethod
    def _from_rows(
        cls,
        hist: Histogram,
        qi: tuple[str, ...],
        numeric: tuple[str, ...],
        cell_of_row: IndexArray,
    ) -> CellTable:
        order = np.argsort(cell_of_row, kind="stable")  # rows grouped by cell, in row order
        occupied = np.flatnonzero(hist.counts)
        counts = hist.counts[occupied]
        offsets = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        codes = np.stack(np.unravel_index(occupied, hist.shape), axis=1).astype(np.int64)
        return cls(hist.attributes, hist.domains, qi, numeric, codes, counts, order, offsets)

    def summarise(self, keep: BoolArray) -> tuple[IntArray, IntArray]:
        """Per-cell ``(counts, first)`` of explicit subsamples.

        ``keep`` is a boolean array ``(reps, m)`` over the original rows (row order);
        returns ``(reps, C)`` kept counts and first kept row position (``-1`` if none).
        """
        keep = np.atleast_2d(np.asarray(keep, dtype=bool))
        if keep.shape[1] != self.positions.size:
            raise ValueError(f"keep must have {self.positions.size} columns, got {keep.shape[1]}")
        grouped = keep[:, self.positions]
        counts = np.add.reduceat(grouped, self.offsets, axis=1).astype(np.int64)
        slot = np.where(grouped, np.arange(self.positions.size), self.positions.size)
        slot = np.minimum.reduceat(slot, self.offsets, axis=1)
        first = np.where(counts > 0, self.positions[np.minimum(slot, self.positions.size - 1)], -1)
        return counts, first

    def qi_columns(self) -> tuple[IntArray, npt.NDArray[np.generic]]:
        """``(C, Q)`` arrays: domain codes and numeric values of the QIs."""
        idx = [self.attributes.index(q) for q in self.qi]
        codes = self.codes[:, idx]
        values = np.stack(
            [np.asarray(self.domains[i])[codes[:, j]] for j, i in enumerate(idx)], axis=1
        )
        return codes, values


def _domains(attributes: Sequence[str], domains: DomainMap | None) -> dict[str, Sequence[Hashable]]:
    known: DomainMap = feature_domains() if domains is None else dict(domains)
    missing = [a for a in attributes if a not in known]
    if missing:
        raise ValueError(f"no domain given for attribute(s) {missing}")
    return {a: known[a] for a in attributes}


def _check_numeric_domains(hist: Histogram, numeric: Sequence[str]) -> None:
    for column in numeric:
        domain = np.asarray(hist.domains[hist.attributes.index(column)])
        if not np.issubdtype(domain.dtype, np.integer) or np.any(np.diff(domain) != 1):
            raise ValueError(f"numeric QI {column!r} needs a domain of consecutive integers")


def thin_cells(
    table: CellTable, beta: float, *, rng: np.random.Generator, reps: int
) -> tuple[IntArray, IntArray]:
    """Keep each record independently with probability ``beta``, on cell summaries.

    Returns ``(counts, first)``, both ``(reps, C)``: kept records per cell and the original
    row position of the first kept record (``-1`` if none). This is exactly the law of
    (count, first row) of each cell when rows are kept by independent Bernoulli(beta)
    draws: the index G of the first kept row of a cell with ``x`` rows is Geometric(beta)
    (the cell is empty when G > x), and given G the remaining ``x - G`` rows add a
    Binomial(x - G, beta) count. Running Mondrian on these summaries is therefore equal in
    distribution to running anonypy on the kept rows in their original order.
    """
    beta = check_probability(beta, "beta")
    rng = check_rng(rng)
    reps = check_positive_int(reps, "reps")
    size = table.counts
    gap = rng.geometric(beta, size=(reps, size.size))
    kept = gap <= size
    rest = np.where(kept, size - gap, 0)
    counts = np.where(kept, 1 + rng.binomial(rest, beta), 0)
    where = table.offsets + np.minimum(gap, size) - 1
    first = np.where(kept, table.positions[where], -1)
    return counts.astype(np.int64), first.astype(np.int64)


# --------------------------------------------------------------------------- fast core
@dataclass(frozen=True, eq=False)
class MondrianBatch:
    """Partitions of a batch of repetitions over the cells of a :class:`CellTable`.

    Attributes
    ----------
    table
        The cells.
    counts
        ``(reps, C)`` records per cell in each repetition.
    leaf
        ``(reps, C)`` class id of each cell (``-1`` where the cell is empty).
    leaf_rep, leaf_depth, leaf_code
        Per class: its repetition, its depth in the split tree and its position among
        the partitions of that depth (breadth-first, left before right). Sorting by
        ``(rep, depth, code)`` gives anonypy's output order.
    """

    table: CellTable
    counts: IntArray
    leaf: IntArray
    leaf_rep: IntArray
    leaf_depth: IntArray
    leaf_code: IntArray

    @property
    def n_classes(self) -> IntArray:
        """Number of classes in each repetition."""
        return np.bincount(self.leaf_rep, minlength=self.counts.shape[0])

    def merged(self) -> BoolArray:
        """``(reps, C)``: the cell's class covers more than one QI combination.

        That is, its records are generalised (some QI value was merged with another);
        ``False`` for empty cells.
        """
        codes, _ = self.table.qi_columns()
        shape = [len(self.table.domains[self.table.attributes.index(q)]) for q in self.table.qi]
        combo = np.ravel_multi_index(tuple(codes.T), shape)
        rep_e, cell_e = np.nonzero(self.counts)
        leaf_e = self.leaf[rep_e, cell_e]
        pairs = np.unique(leaf_e * int(np.prod(shape)) + combo[cell_e])
        combos_per_leaf = np.bincount(pairs // int(np.prod(shape)), minlength=self.leaf_rep.size)
        out = np.zeros(self.counts.shape, dtype=bool)
        out[rep_e, cell_e] = combos_per_leaf[leaf_e] > 1
        return out

    def class_order(self) -> IndexArray:
        """Class ids in output order (repetition, then anonypy's order)."""
        return np.lexsort((self.leaf_code, self.leaf_depth, self.leaf_rep))

    def classes(self, rep: int = 0) -> list[EquivalenceClass]:
        """The classes of one repetition as :class:`EquivalenceClass` objects."""
        codes, values = self.table.qi_columns()
        is_numeric = [q in self.table.numeric for q in self.table.qi]
        out = []
        for leaf in self.class_order():
            if self.leaf_rep[leaf] != rep:
                continue
            cells = np.flatnonzero(self.leaf[rep] == leaf)
            described: list[tuple[int, ...] | Interval] = []
            for j, numeric in enumerate(is_numeric):
                present = values[cells, j]
                if numeric:
                    described.append(Interval(int(present.min()), int(present.max())))
                else:
                    described.append(tuple(int(v) for v in np.unique(present)))
            count = int(self.counts[rep, cells].sum())
            out.append(EquivalenceClass(self.table.qi, tuple(described), count))
        return out


def _span_order(spans: FloatArray) -> IndexArray:
    """Column order by decreasing span, exactly as Python's stable ``sorted`` does it."""
    if not np.isnan(spans).any():
        return np.argsort(-spans, axis=1, kind="stable")
    # a constant numeric column gives 0/0 = nan in anonypy; copy sorted()'s behaviour
    columns = range(spans.shape[1])
    return np.array(
        [[c for c, _ in sorted(zip(columns, row.tolist()), key=lambda x: -x[1])] for row in spans]
    )


def _weighted_bincount(x: IntArray, weights: npt.ArrayLike, minlength: int) -> FloatArray:
    """``np.bincount(x, weights, minlength)``: float64 sums of ``weights`` per value of ``x``."""
    # numpy's stub types bincount intp even with weights, where it returns float64
    sums: FloatArray = np.bincount(x, weights=weights, minlength=minlength)  # type: ignore[assignment]
    return sums


def _categorical_split(
    part: IntArray, code: IntArray, size_v: int, n: FloatArray, first: IntArray, n_parts: int
) -> tuple[BoolArray, FloatArray, FloatArray]:
    """Left mask (per entry), span numerator and left count per part, for one column.

    Works on the (part, value) groups present: each group's first row is the minimum
    over its entries; values are ranked within their part by first row (first
    appearance), and the first ``distinct // 2`` of them go left.
    """
    key = part * size_v + code
    cnt = np.bincount(key, weights=n, minlength=n_parts * size_v)
    minf = np.full(n_parts * size_v, np.iinfo(np.int64).max)
    np.minimum.at(minf, key, first)
    group = np.flatnonzero(cnt)  # sorted by part, then value
    g_part = group // size_v
    distinct = np.bincount(g_part, minlength=n_parts)
    # by part, then first row: one sort of a combined key (first rows of distinct values
    # of a part are distinct rows, so the key is unique and the order is lexsort's)
    order = np.argsort(g_part * (int(minf[group].max()) + 1) + minf[group])
    sorted_part = g_part[order]
    rank = np.empty(group.size, dtype=np.int64)
    rank[order] = np.arange(group.size) - np.searchsorted(sorted_part, sorted_part)
    g_left = rank < distinct[g_part] // 2
    left_count = _weighted_bincount(g_part, cnt[group] * g_left, n_parts)
    left_dense = np.zeros(n_parts * size_v, dtype=bool)
    left_dense[group[g_left]] = True
    return left_dense[key], distinct.astype(float), left_count


def _numeric_split(
    part: IntArray,
    value: IntArray,
    n: FloatArray,
    n_parts: int,
    size: FloatArray,
) -> tuple[BoolArray, FloatArray, FloatArray]:
    """Left mask (per entry), span numerator and left count per part (median split)."""
    lo = np.full(n_parts, np.iinfo(np.int64).max)
    hi = np.full(n_parts, np.iinfo(np.int64).min)
    np.minimum.at(lo, part, value)
    np.maximum.at(hi, part, value)
    order = np.lexsort((value, part))
    cum = np.cumsum(n[order])
    base = np.concatenate(([0], np.cumsum(size)[:-1]))
    pick_a = order[np.searchsorted(cum, base + (size - 1) // 2, side="right")]
    pick_b = order[np.searchsorted(cum, base + size // 2, side="right")]
    median = (value[pick_a] + value[pick_b]) / 2.0
    left = value < median[part]
    left_count = _weighted_bincount(part, n * left, n_parts)
    return left, (hi - lo).astype(float), left_count


def _scales(
    table_codes: IntArray,
    table_values: npt.NDArray[np.generic],
    counts: IntArray,
    is_numeric: Sequence[bool],
    sizes: Sequence[int],
) -> FloatArray:
    """``(reps, Q)`` span of each QI on the whole (thinned) dataset of each repetition."""
    present = counts > 0
    scales = np.empty((counts.shape[0], len(is_numeric)))
    for j, numeric in enumerate(is_numeric):
        if numeric:
            vals = table_values[:, j]
            hi = np.where(present, vals, np.iinfo(np.int64).min).max(axis=1)
            lo = np.where(present, vals, np.iinfo(np.int64).max).min(axis=1)
            scales[:, j] = hi - lo
        else:
            onehot = np.zeros((counts.shape[0], sizes[j]), dtype=bool)
            rows, cells = np.nonzero(present)
            onehot[rows, table_codes[cells, j]] = True
            scales[:, j] = onehot.sum(axis=1)
    return scales


def mondrian_batch(table: CellTable, counts: IntArray, first: IntArray, k: int) -> MondrianBatch:
    """Mondrian on a batch of repetitions given per-cell counts and first-row positions.

    ``counts`` and ``first`` have shape ``(reps, C)`` (see :func:`thin_cells`); a
    repetition with no records yields no class.
    """
    k = check_positive_int(k, "k")
    counts = np.atleast_2d(np.asarray(counts, dtype=np.int64))
    first = np.atleast_2d(np.asarray(first, dtype=np.int64))
    reps = counts.shape[0]
    codes, values = table.qi_columns()
    is_numeric = [q in table.numeric for q in table.qi]
    sizes = [len(table.domains[table.attributes.index(q)]) for q in table.qi]
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = _scales(codes, values, counts, is_numeric, sizes)

    rep_e, cell_e = np.nonzero(counts)
    n_e = counts[rep_e, cell_e].astype(float)
    f_e = first[rep_e, cell_e]
    leaf = np.full(counts.shape, -1, dtype=np.int64)
    part_rep = np.arange(reps)[np.bincount(rep_e, minlength=reps) > 0]
    part_e = np.searchsorted(part_rep, rep_e)
    depth = np.zeros(part_rep.size, np.int64)
    leaves: list[tuple[IntArray, IntArray, IndexArray]] = []
    n_leaves = 0
    while part_e.size:
        n_parts = part_rep.size
        size = _weighted_bincount(part_e, n_e, n_parts)
        spans = np.empty((n_parts, len(is_numeric)))
        valid = np.empty((n_parts, len(is_numeric)), dtype=bool)
        left_e = np.empty((part_e.size, len(is_numeric)), dtype=bool)
        for j, numeric in enumerate(is_numeric):
            if numeric:
                left, span, nleft = _numeric_split(part_e, values[cell_e, j], n_e, n_parts, size)
            else:
                left, span, nleft = _categorical_split(
                    part_e, codes[cell_e, j], sizes[j], n_e, f_e, n_parts
                )
            with np.errstate(invalid="ignore", divide="ignore"):
                spans[:, j] = span / scale[part_rep, j]
            valid[:, j] = (nleft >= k) & (size - nleft >= k)
            left_e[:, j] = left
        order = _span_order(spans)
        valid_sorted = np.take_along_axis(valid, order, axis=1)
        splits = np.asarray(valid_sorted.any(axis=1))  # an array: valid_sorted is 2-d
        column = order[np.arange(n_parts), valid_sorted.argmax(axis=1)]
        # finished partitions become classes
        done = np.flatnonzero(~splits)
        leaf_id = np.full(n_parts, -1, dtype=np.int64)
        leaf_id[done] = n_leaves + np.arange(done.size)
        n_leaves += done.size
        leaves.append((part_rep[done], depth[done], done))
        finished_e = ~splits[part_e]
        leaf[rep_e[finished_e], cell_e[finished_e]] = leaf_id[part_e[finished_e]]
        # split the others: child id = 2 * rank among splitting parts + side
        keep = ~finished_e
        rank = np.cumsum(splits) - 1
        side = ~left_e[keep, column[part_e[keep]]]
        part_e = 2 * rank[part_e[keep]] + side
        rep_e, cell_e, n_e, f_e = rep_e[keep], cell_e[keep], n_e[keep], f_e[keep]
        parents = np.flatnonzero(splits)
        part_rep = np.repeat(part_rep[parents], 2)
        depth = np.repeat(depth[parents] + 1, 2)
    if leaves:
        leaf_rep, leaf_depth, leaf_code = (np.concatenate(a) for a in zip(*leaves))
    else:
        leaf_rep = leaf_depth = leaf_code = np.zeros(0, dtype=np.int64)
    return MondrianBatch(table, counts, leaf, leaf_rep, leaf_depth, leaf_code)


def mondrian(
    records_or_histogram: pd.DataFrame | Histogram,
    qi: Sequence[str],
    k: int,
    *,
    numeric: Sequence[str] = (),
) -> list[EquivalenceClass]:
    """Mondrian partitions, identical to :func:`mondrian_anonypy` but fast.

    Parameters
    ----------
    records_or_histogram
        Records (row order matters) or a :class:`~dadp_lite.histogram.Histogram`, which is
        read as ``histogram.to_records()``.
    qi, k, numeric
        As in :func:`mondrian_anonypy`.
    """
    if isinstance(records_or_histogram, Histogram):
        table = CellTable.from_histogram(records_or_histogram, qi, numeric=numeric)
    elif isinstance(records_or_histogram, pd.DataFrame):
        table = CellTable.from_records(records_or_histogram, qi, numeric=numeric)
    else:
        raise TypeError(
            "records_or_histogram must be a pandas DataFrame or a Histogram, "
            f"got {type(records_or_histogram).__name__}"
        )
    _check_k(k, int(table.counts.sum()))
    batch = mondrian_batch(table, table.counts[None, :], table.first[None, :], k)
    return batch.classes(0)
