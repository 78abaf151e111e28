"""Traditional and DP k-anonymity with the paper's reconstruction step.

Pipeline (Algorithms 4-5 of the paper's appendix, :cite:`zhu2023privacy`):

1. (DP only) keep each record independently with probability ``beta``
   (the paper's choice is ``beta = 1 - exp(-epsilon)``);
2. k-anonymise the (kept) records with Mondrian (:mod:`dadp_lite.mechanisms.mondrian`,
   identical partitions to anonypy);
3. reconstruct: every record of a generalised class gets, for each categorical QI, a value
   drawn uniformly from the class's merged values, and for each numeric QI a draw from
   the Gaussian with mean = midpoint and sd = width / 4 of the class's interval, rounded to
   the nearest non-negative integer; non-QI attributes are kept as they are (anonypy
   releases them per class, as the sensitive column);
4. histogram the reconstructed records over the full universe of ``attributes``.

Documented choices the paper leaves open:

* a numeric draw above the largest value of the attribute's domain is set to that value
  (the paper only rounds up negative draws to 0; our universe ends at the domain's top);
* a subsample with fewer than ``k`` records cannot be split, and anonypy releases it as a
  single class (smaller than ``k``); we do the same;
* an empty subsample releases the all-zero histogram (anonypy itself crashes on an empty
  frame); count such repetitions with ``released.sum(axis=1) == 0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import numpy as np
import pandas as pd

from dadp_lite._types import DomainMap, IntArray
from dadp_lite._validate import check_epsilon, check_positive_int, check_probability, check_rng
from dadp_lite.data import ATTRIBUTES
from dadp_lite.definitions import sampling_probability
from dadp_lite.mechanisms.mondrian import (
    CellTable,
    EquivalenceClass,
    Interval,
    MondrianBatch,
    _check_k,
    _domains,
    mondrian_batch,
    thin_cells,
)

__all__ = [
    "dp_k_anonymity",
    "k_anonymity",
    "reconstruct",
    "reconstruct_batch",
]

#: Records reconstructed per block (bounds memory; the result does not depend on it).
_BLOCK_RECORDS = 2_000_000
#: A categorical QI of a set of classes: its axis, the number of merged values of each
#: class and those values' codes, class after class.
_MergedValues: TypeAlias = tuple[int, IntArray, IntArray]
#: A numeric QI of a set of classes: its axis and each class's interval ``[lo, hi]``.
_Intervals: TypeAlias = tuple[int, IntArray, IntArray]


def _as_table(
    records: pd.DataFrame | CellTable,
    qi: Sequence[str],
    numeric: Sequence[str],
    attributes: Sequence[str],
    domains: DomainMap | None,
) -> CellTable:
    if isinstance(records, CellTable):
        if tuple(qi) != records.qi or tuple(numeric) != records.numeric:
            raise ValueError("qi and numeric must match those the CellTable was built with")
        return records
    return CellTable.from_records(
        records, qi, numeric=numeric, attributes=attributes, domains=domains
    )


class _ClassSpec:
    """Everything the reconstruction needs about a set of classes.

    ``sizes[c]`` is the number of QI combinations of class ``c`` (product of the lengths of
    its categorical lists) and ``combos[starts[c]:starts[c] + sizes[c]]`` their
    contributions ``sum_j code_j * stride_j`` to the flat cell index. Numeric QIs keep
    their interval ``(lo, hi)`` per class.
    """

    def __init__(
        self,
        cat_lists: Sequence[_MergedValues],
        numeric: Sequence[_Intervals],
        strides: IntArray,
        n_classes: int,
    ) -> None:
        self.numeric = numeric
        self.strides = strides
        sizes = np.ones(n_classes, dtype=np.int64)
        for _, lengths, _ in cat_lists:
            sizes *= lengths
        self.sizes = sizes
        self.starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        owner = np.repeat(np.arange(n_classes), sizes)
        rest = np.arange(owner.size) - self.starts[owner]
        combos = np.zeros(owner.size, dtype=np.int64)
        for position, lengths, flat in reversed(cat_lists):
            rest, pick = np.divmod(rest, lengths[owner])
            list_start = np.concatenate(([0], np.cumsum(lengths)[:-1]))
            combos += flat[list_start[owner] + pick] * strides[position]
        self.combos = combos

    def draw(
        self,
        base_flat: IntArray,
        leaf_r: IntArray,
        domains_of_numeric: Sequence[IntArray],
        rng: np.random.Generator,
    ) -> IntArray:
        """Flat cells of reconstructed records (``base_flat`` = non-QI part of the cell)."""
        pick = (rng.random(leaf_r.size) * self.sizes[leaf_r]).astype(np.int64)
        flat: IntArray = base_flat + self.combos[self.starts[leaf_r] + pick]
        for (position, lo, hi), domain in zip(self.numeric, domains_of_numeric, strict=True):
            lo_r, hi_r = lo[leaf_r].astype(float), hi[leaf_r].astype(float)
            value = np.maximum(np.rint(rng.normal((lo_r + hi_r) / 2, (hi_r - lo_r) / 4)), 0)
            value = np.clip(value, domain[0], domain[-1]).astype(np.int64)
            flat += (value - domain[0]) * self.strides[position]
        return flat


def _strides(shape: Sequence[int]) -> IntArray:
    return np.concatenate((np.cumprod(shape[::-1])[::-1][1:], [1])).astype(np.int64)


def _batch_spec(table: CellTable, counts: IntArray, leaf: IntArray, n_leaves: int) -> _ClassSpec:
    """Class spec of a Mondrian batch: merged values = values present in each class."""
    codes, values = table.qi_columns()
    rep_e, cell_e = np.nonzero(counts)
    leaf_e = leaf[rep_e, cell_e]
    strides = _strides([len(d) for d in table.domains])
    cat_lists: list[_MergedValues] = []
    numeric: list[_Intervals] = []
    for j, q in enumerate(table.qi):
        axis = table.attributes.index(q)
        if q in table.numeric:
            lo = np.full(n_leaves, np.iinfo(np.int64).max)
            hi = np.full(n_leaves, np.iinfo(np.int64).min)
            np.minimum.at(lo, leaf_e, values[cell_e, j])
            np.maximum.at(hi, leaf_e, values[cell_e, j])
            numeric.append((axis, lo, hi))
        else:
            present = np.zeros((n_leaves, len(table.domains[axis])), dtype=bool)
            present[leaf_e, codes[cell_e, j]] = True
            cat_lists.append((axis, present.sum(axis=1), np.nonzero(present)[1]))
    return _ClassSpec(cat_lists, numeric, strides, n_leaves)


def reconstruct_batch(batch: MondrianBatch, *, rng: np.random.Generator) -> IntArray:
    """Reconstructed histograms ``(reps, n_cells)`` of a batch of Mondrian partitions.

    Records of all classes of all repetitions are drawn at once (in blocks of at most
    ``_BLOCK_RECORDS`` records to bound memory). Categorical QIs are drawn jointly: one
    uniform pick among the class's QI combinations (uniform over the product of the
    merged lists = each list uniform and independent).
    """
    rng = check_rng(rng)
    table = batch.table
    counts, leaf = batch.counts, batch.leaf
    reps, n_cells = counts.shape[0], table.n_cells
    spec = _batch_spec(table, counts, leaf, batch.leaf_rep.size)
    qi_axes = [table.attributes.index(q) for q in table.qi]
    base = table.codes.copy()
    base[:, qi_axes] = 0
    base_flat = base @ spec.strides
    numeric_domains = [np.asarray(table.domains[axis]) for axis, _, _ in spec.numeric]
    rep_e, cell_e = np.nonzero(counts)
    n_e = counts[rep_e, cell_e]
    key_e = rep_e * n_cells + base_flat[cell_e]
    leaf_e = leaf[rep_e, cell_e]
    out = np.zeros(reps * n_cells, dtype=np.int64)
    block = (np.cumsum(n_e) - 1) // _BLOCK_RECORDS
    for b in np.unique(block):
        sel = np.flatnonzero(block == b)
        if spec.numeric:
            rec = np.repeat(sel, n_e[sel])
            flat = spec.draw(key_e[rec], leaf_e[rec], numeric_domains, rng)
            out += np.bincount(flat, minlength=reps * n_cells)
        else:
            out += _draw_categorical(spec, key_e[sel], leaf_e[sel], n_e[sel], reps * n_cells, rng)
    return out.reshape(reps, n_cells)


def _draw_categorical(
    spec: _ClassSpec,
    key: IntArray,
    leaf: IntArray,
    n: IntArray,
    size: int,
    rng: np.random.Generator,
) -> IntArray:
    """Counts of :meth:`_ClassSpec.draw` for entries ``(key, leaf)`` of ``n`` records each,
    without numeric QIs, from the same uniforms.

    ``draw`` takes one uniform per record (entries in order, each repeated ``n`` times) and
    picks combination ``floor(u * sizes[leaf])``. A class of one combination always gets
    pick 0: its entries add ``n`` records to one cell, and their uniforms, still drawn to
    keep the stream, are not looked at. Only records of generalised classes are handled
    one by one.
    """
    uniforms = rng.random(int(n.sum()))
    sizes = spec.sizes[leaf]
    plain = sizes == 1
    counts = np.bincount(
        key[plain] + spec.combos[spec.starts[leaf[plain]]], weights=n[plain], minlength=size
    )
    out = np.rint(counts).astype(np.int64)  # integer sums, exact in float64
    mixed = ~plain
    if mixed.any():
        length = n[mixed]
        first = (np.cumsum(n) - n)[mixed]  # each entry's first uniform
        offset = np.repeat(first - (np.cumsum(length) - length), length)
        position = offset + np.arange(int(length.sum()))
        leaf_r = np.repeat(leaf[mixed], length)
        pick = (uniforms[position] * spec.sizes[leaf_r]).astype(np.int64)
        flat = np.repeat(key[mixed], length) + spec.combos[spec.starts[leaf_r] + pick]
        out += np.bincount(flat, minlength=size)
    return out


def reconstruct(
    classes: Sequence[EquivalenceClass],
    *,
    rng: np.random.Generator,
    reps: int,
    domains: DomainMap | None = None,
) -> IntArray:
    """Reconstructed histograms ``(reps, n_cells)`` over the universe of the classes' QIs.

    Each class becomes ``count`` records: categorical values uniform over the merged
    values, numeric values from the rounded, non-negative Gaussian with mean = interval
    midpoint and sd = width / 4 (clipped to the domain's top). Cells are in C order over
    ``domains`` (default :func:`dadp_lite.data.feature_domains`), as in
    :func:`dadp_lite.histogram.histogram_of`.
    """
    rng = check_rng(rng)
    reps = check_positive_int(reps, "reps")
    if not classes:
        raise ValueError("classes is empty")
    qi = classes[0].qi
    if any(c.qi != qi for c in classes):
        raise ValueError("all classes must have the same qi")
    doms = _domains(qi, domains)
    domains_t = tuple(tuple(doms[q]) for q in qi)
    shape = tuple(len(d) for d in domains_t)
    cat_lists: list[_MergedValues] = []
    numeric: list[_Intervals] = []
    for j, q in enumerate(qi):
        if isinstance(classes[0].values[j], Interval):
            intervals = [v for c in classes if isinstance(v := c.values[j], Interval)]
            if len(intervals) < len(classes):
                raise ValueError(f"{q!r} is an interval in some classes, values in others")
            lo = np.array([v.lo for v in intervals], dtype=np.int64)
            hi = np.array([v.hi for v in intervals], dtype=np.int64)
            domain = np.asarray(domains_t[j])
            if np.any(lo > hi) or np.any(lo < domain[0]) or np.any(hi > domain[-1]):
                raise ValueError(f"a class interval of {q!r} is empty or outside its domain")
            numeric.append((j, lo, hi))
        else:
            lists = [pd.Index(domains_t[j]).get_indexer(list(c.values[j])) for c in classes]
            if any(codes.size == 0 or np.any(codes < 0) for codes in lists):
                raise ValueError(f"a class holds no value or a value of {q!r} outside its domain")
            cat_lists.append((j, np.array([len(c) for c in lists]), np.concatenate(lists)))
    spec = _ClassSpec(cat_lists, numeric, _strides(shape), len(classes))
    sizes = np.array([c.count for c in classes], dtype=np.int64)
    n_cells = int(np.prod(shape))
    leaf_r = np.tile(np.repeat(np.arange(len(classes)), sizes), reps)
    base = np.repeat(np.arange(reps) * n_cells, sizes.sum())
    flat = spec.draw(base, leaf_r, [np.asarray(domains_t[j]) for j, _, _ in numeric], rng)
    return np.bincount(flat, minlength=reps * n_cells).reshape(reps, n_cells)


# --------------------------------------------------------------------------- mechanisms
def k_anonymity(
    records: pd.DataFrame | CellTable,
    *,
    qi: Sequence[str],
    k: int,
    rng: np.random.Generator,
    reps: int,
    numeric: Sequence[str] = (),
    attributes: Sequence[str] = ATTRIBUTES,
    domains: DomainMap | None = None,
) -> IntArray:
    """Traditional k-anonymity: Mondrian once, then ``reps`` reconstructions.

    Returns released counts ``(reps, n_cells)`` over the full universe of ``attributes``
    (the cells of :func:`dadp_lite.histogram.histogram_of`). ``records`` may be a prebuilt
    :class:`~dadp_lite.mechanisms.mondrian.CellTable` (faster in sweeps).
    """
    rng = check_rng(rng)
    reps = check_positive_int(reps, "reps")
    table = _as_table(records, qi, numeric, attributes, domains)
    k = _check_k(k, int(table.counts.sum()))
    once = mondrian_batch(table, table.counts[None, :], table.first[None, :], k)
    tiled = MondrianBatch(
        table,
        np.repeat(once.counts, reps, axis=0),
        np.repeat(once.leaf, reps, axis=0),
        once.leaf_rep,
        once.leaf_depth,
        once.leaf_code,
    )
    return reconstruct_batch(tiled, rng=rng)


def dp_k_anonymity(
    records: pd.DataFrame | CellTable,
    *,
    qi: Sequence[str],
    k: int,
    epsilon: float,
    rng: np.random.Generator,
    reps: int,
    beta: float | None = None,
    numeric: Sequence[str] = (),
    attributes: Sequence[str] = ATTRIBUTES,
    domains: DomainMap | None = None,
) -> IntArray:
    """DP k-anonymity (Algorithm 5): Bernoulli(beta) subsample, Mondrian, reconstruction.

    Parameters
    ----------
    records
        Records (row order matters for Mondrian's categorical splits) or a prebuilt
        :class:`~dadp_lite.mechanisms.mondrian.CellTable` over ``attributes``.
    qi, numeric
        Quasi-identifiers and the subset treated as numeric.
    k
        Mondrian's minimum class size, ``1 <= k <= len(records)``.
    epsilon
        Privacy parameter; sets ``beta = 1 - exp(-epsilon)`` unless ``beta`` is given.
    beta
        Sampling probability in (0, 1]; overrides the paper's mapping from ``epsilon``.
    rng, reps
        Generator and number of repetitions; each repetition draws its own subsample and
        runs its own Mondrian (all repetitions as one batch).
    attributes, domains
        Universe of the released histogram (default: the paper's five features).

    Returns
    -------
    numpy.ndarray
        ``(reps, n_cells)`` released counts, C order over ``attributes`` (the cells of
        :func:`dadp_lite.histogram.histogram_of`). An empty subsample gives a zero row.
    """
    epsilon = check_epsilon(epsilon)
    beta = sampling_probability(epsilon) if beta is None else check_probability(beta, "beta")
    rng = check_rng(rng)
    reps = check_positive_int(reps, "reps")
    table = _as_table(records, qi, numeric, attributes, domains)
    k = _check_k(k, int(table.counts.sum()))
    counts, first = thin_cells(table, beta, rng=rng, reps=reps)
    return reconstruct_batch(mondrian_batch(table, counts, first, k), rng=rng)
