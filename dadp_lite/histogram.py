"""Histograms over the full Cartesian universe of chosen attributes.

A :class:`Histogram` stores one int64 count per cell of the universe
``dom(A_1) x ... x dom(A_d)``, zero cells included, flattened in C order (the last
attribute varies fastest). Mechanisms work on the flat counts; batched releases have shape
``(reps, n_cells)`` and every helper here accepts such leading axes.

The quasi-identifier view regroups cells as a matrix whose rows are the combinations of
non-QI values (the index sets :math:`\\mathcal{I}_i` of the paper) and whose columns are
the QI values (:math:`\\mathcal{X}_Q`, of size :math:`n_Q`).

A :class:`NeighbourPair` is two neighbouring histograms of one universe: what an exact
worst case of :mod:`dadp_lite.theory` names and what :mod:`dadp_lite.audit` runs a
mechanism on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dadp_lite._validate import check_counts, check_domain, check_qi
from dadp_lite.data import ATTRIBUTES, feature_domains

__all__ = ["Histogram", "NeighbourPair", "histogram_of"]


@dataclass(frozen=True, eq=False)
class Histogram:
    """Counts over the full universe of ``attributes`` (zero cells included).

    Attributes
    ----------
    counts
        int64 array of shape ``(n_cells,)``, C order over ``domains``.
    attributes
        Attribute names, e.g. ``("race", "sex")``.
    domains
        For each attribute, the tuple of all its possible values.
    """

    counts: np.ndarray
    attributes: tuple[str, ...]
    domains: tuple[tuple, ...]

    def __post_init__(self) -> None:
        if len(self.attributes) == 0:
            raise ValueError("attributes must name at least one attribute")
        if len(self.attributes) != len(self.domains):
            raise ValueError("attributes and domains must have the same length")
        if len(set(self.attributes)) != len(self.attributes):
            raise ValueError(f"attributes repeat a name: {self.attributes}")
        for name, domain in zip(self.attributes, self.domains, strict=True):
            check_domain(domain, name)
        counts = check_counts(self.counts)
        if counts.shape != (self.n_cells,):
            raise ValueError(f"counts must have shape ({self.n_cells},), got {counts.shape}")
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "attributes", tuple(self.attributes))
        object.__setattr__(self, "domains", tuple(tuple(d) for d in self.domains))

    # ----------------------------------------------------------------- shape
    @property
    def shape(self) -> tuple[int, ...]:
        """Size of each attribute's domain."""
        return tuple(len(domain) for domain in self.domains)

    @property
    def n_cells(self) -> int:
        """Number of cells in the universe (the paper's n)."""
        return int(np.prod(self.shape))

    @property
    def total(self) -> int:
        """Number of records (sum of counts)."""
        return int(self.counts.sum())

    def __repr__(self) -> str:
        dims = " x ".join(f"{a}({len(d)})" for a, d in zip(self.attributes, self.domains))
        return f"Histogram({dims}: {self.n_cells} cells, {self.total} records)"

    # ------------------------------------------------------------ conversion
    @classmethod
    def from_records(
        cls,
        records: pd.DataFrame,
        attributes: Sequence[str],
        domains: Mapping[str, Sequence] | None = None,
    ) -> Histogram:
        """Count records over the full universe of ``attributes``.

        ``domains`` defaults to the feature domains of :mod:`dadp_lite.data`. A record whose
        value lies outside its attribute's domain raises ``ValueError``.
        """
        if not isinstance(records, pd.DataFrame):
            raise TypeError(f"records must be a pandas DataFrame, got {type(records).__name__}")
        attributes = check_qi(attributes, list(records.columns), "attributes")
        known = feature_domains() if domains is None else dict(domains)
        missing = [a for a in attributes if a not in known]
        if missing:
            raise ValueError(f"no domain given for attribute(s) {missing}")
        doms = tuple(tuple(known[a]) for a in attributes)
        codes = []
        for name, domain in zip(attributes, doms, strict=True):
            index = pd.Index(domain).get_indexer(records[name])
            if np.any(index < 0):
                bad = records[name].to_numpy()[index < 0][0]
                raise ValueError(f"{name} holds {bad!r}, outside its domain {domain}")
            codes.append(index)
        shape = tuple(len(d) for d in doms)
        if records.empty:
            flat = np.zeros(0, dtype=np.int64)
        else:
            flat = np.ravel_multi_index(tuple(codes), shape)
        counts = np.bincount(flat, minlength=int(np.prod(shape)))
        return cls(counts, attributes, doms)

    def to_records(self) -> pd.DataFrame:
        """One row per record (cells repeated by their count), in cell order."""
        cells = self.cell_table()
        return cells.loc[cells.index.repeat(self.counts)].reset_index(drop=True)

    def cell_table(self) -> pd.DataFrame:
        """One row per cell with its attribute values (and no count)."""
        grids = np.meshgrid(*[np.asarray(d) for d in self.domains], indexing="ij")
        return pd.DataFrame({a: g.ravel() for a, g in zip(self.attributes, grids, strict=True)})

    def with_counts(self, counts: object) -> Histogram:
        """Same universe, new counts (validated)."""
        return Histogram(np.asarray(counts), self.attributes, self.domains)

    # ---------------------------------------------------------- QI view
    def _qi_axes(self, qi: Sequence[str]) -> tuple[list[int], list[int]]:
        qi = check_qi(qi, self.attributes)
        qi_axes = [self.attributes.index(q) for q in qi]
        other_axes = [i for i in range(len(self.attributes)) if i not in qi_axes]
        return other_axes, qi_axes

    def n_qi(self, qi: Sequence[str]) -> int:
        """Size of the QI universe, the paper's :math:`n_Q`."""
        _, qi_axes = self._qi_axes(qi)
        return int(np.prod([self.shape[i] for i in qi_axes]))

    def to_qi_matrix(self, qi: Sequence[str], counts: np.ndarray | None = None) -> np.ndarray:
        """Counts regrouped as ``(..., n_groups, n_Q)``.

        Rows are combinations of the non-QI attributes (in C order), columns are the QI
        values. ``counts`` may carry leading batch axes; it defaults to this histogram.
        """
        other_axes, qi_axes = self._qi_axes(qi)
        values = self.counts if counts is None else np.asarray(counts)
        batch = values.shape[:-1]
        if values.shape[-1] != self.n_cells:
            raise ValueError(f"counts last axis must be {self.n_cells}, got {values.shape[-1]}")
        tensor = values.reshape(batch + self.shape)
        lead = list(range(len(batch)))
        order = lead + [len(batch) + i for i in other_axes + qi_axes]
        n_groups = int(np.prod([self.shape[i] for i in other_axes]))
        return tensor.transpose(order).reshape(batch + (n_groups, self.n_qi(qi)))

    def from_qi_matrix(self, qi: Sequence[str], matrix: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`to_qi_matrix`: flat counts ``(..., n_cells)``."""
        other_axes, qi_axes = self._qi_axes(qi)
        matrix = np.asarray(matrix)
        batch = matrix.shape[:-2]
        permuted_shape = tuple(self.shape[i] for i in other_axes + qi_axes)
        tensor = matrix.reshape(batch + permuted_shape)
        inverse = np.argsort(other_axes + qi_axes)
        lead = list(range(len(batch)))
        tensor = tensor.transpose(lead + [len(batch) + i for i in inverse])
        return tensor.reshape(batch + (self.n_cells,))

    def qi_group_index(self, qi: Sequence[str]) -> np.ndarray:
        """For each flat cell, the index of its non-QI group (row of the QI matrix)."""
        matrix = self.to_qi_matrix(qi, np.arange(self.n_cells))
        groups = np.empty(self.n_cells, dtype=np.int64)
        groups[matrix] = np.arange(matrix.shape[0])[:, None]
        return groups


def histogram_of(
    records: pd.DataFrame,
    attributes: Sequence[str] = ATTRIBUTES,
    domains: Mapping[str, Sequence] | None = None,
) -> Histogram:
    """Shortcut for :meth:`Histogram.from_records` with the paper's five features."""
    return Histogram.from_records(records, attributes, domains)


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring histograms of one universe to audit a mechanism on.

    ``settings`` holds the parameter values the pair needs (for example ``k = 1`` for a
    dataset of one record) and ``reason`` says in one sentence why this pair is the one.
    """

    x: Histogram
    x_prime: Histogram
    adjacency: str
    settings: Mapping[str, object] = field(default_factory=dict)
    reason: str = ""

    @classmethod
    def from_cells(
        cls,
        histogram: Histogram,
        x_cells: Mapping[int, int],
        y_cells: Mapping[int, int],
        adjacency: str,
        reason: str,
        **settings: object,
    ) -> NeighbourPair:
        """A pair in ``histogram``'s universe: ``{flat cell: count}`` of each side (0
        elsewhere), the adjacency, why this pair, and the settings it needs."""
        x, y = (_placed(histogram, cells) for cells in (x_cells, y_cells))
        return cls(x, y, adjacency, settings, reason)

    @property
    def changed(self) -> np.ndarray:
        """Indices of the cells whose counts differ."""
        return np.flatnonzero(self.x.counts != self.x_prime.counts)

    def describe(self) -> str:
        """The cells that differ as ``cell: count -> count`` (flat cell indices)."""
        a, b = self.x.counts, self.x_prime.counts
        return ", ".join(f"{i}: {a[i]} -> {b[i]}" for i in self.changed)


def _placed(histogram: Histogram, cells: Mapping[int, int]) -> Histogram:
    """``histogram``'s universe with the given counts in the given flat cells, 0 elsewhere."""
    counts = np.zeros(histogram.n_cells, dtype=np.int64)
    for cell, count in cells.items():
        counts[cell] = count
    return histogram.with_counts(counts)
