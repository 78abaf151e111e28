"""A dataset ready for release: its name, its records and their histogram.

Every experiment starts from a :class:`Dataset`. Mechanisms that work on counts read its
``histogram``; the record-level ones (traditional swapping's partner search, Mondrian
k-anonymity, whose splits depend on row order) read its ``records``. Building it once and
passing it around keeps the loading, recoding and counting out of every repetition.

A dataset comes from a registered name or a file in the excerpt schema
(:mod:`dadp_lite.data`), recoded under an :class:`~dadp_lite.data.Encoding` (default: the
book's, five 20-year age brackets, income > 50,000, the full universe of 540 cells). The
encoding's ``universe`` says which cells the histogram counts: ``"full"`` and
``"observed_values"`` give a histogram over the five features (the latter restricted to
the values the data hold); ``"observed_cells"`` keeps only the non-empty cells, as a
histogram over one attribute ``"cell"`` whose values are the flat indices of those cells
in the full universe (the records get the same ``cell`` column). Mechanisms that need the
five features (swapping's quasi-identifier, k-anonymity) refuse the latter.

A dataset's identity is its ``name`` and ``sha256``, the SHA-256 of the bytes its records
were parsed from (``None`` for records given as a DataFrame or a histogram). A registered
name is only ever the name of that excerpt's verified bytes: a file whose stem is a
registered name but whose bytes differ is named ``<stem>-<8 hex digits of its hash>``
(:func:`~dadp_lite.data.dataset_name`), and naming such data after an excerpt is refused.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dadp_lite.data import (
    AGE_EDGES,
    ATTRIBUTES,
    DATASETS,
    DEFAULT_ENCODING,
    DataError,
    Encoding,
    ParsedExcerpt,
    dataset_name,
    encode,
    load_raw,
    resolve_encoding,
    universe_domains,
)
from dadp_lite.histogram import Histogram

__all__ = ["CELL", "Dataset", "as_dataset"]

#: The attribute of an ``"observed_cells"`` histogram: a cell's flat index in the full
#: universe.
CELL = "cell"


def _histogram(
    records: pd.DataFrame, domains: dict[str, tuple], universe: str
) -> tuple[pd.DataFrame, Histogram]:
    """Count ``records`` over ``domains``; for ``"observed_cells"`` keep non-empty cells."""
    full = Histogram.from_records(records, ATTRIBUTES, domains)
    if universe != "observed_cells":
        return records, full
    codes = [pd.Index(d).get_indexer(records[a]) for a, d in zip(ATTRIBUTES, full.domains)]
    flat = np.ravel_multi_index(tuple(codes), full.shape)
    kept = np.flatnonzero(full.counts)
    cells = Histogram(full.counts[kept], (CELL,), (tuple(int(c) for c in kept),))
    return records.assign(**{CELL: flat}), cells


@dataclass(frozen=True, eq=False)
class Dataset:
    """One dataset: ``name``, recoded ``records`` (one row per person), ``histogram`` (its
    counts over the encoding's universe), the ``encoding`` that made them and ``sha256``,
    the hash of the bytes they were read from (``None`` if not read from a file)."""

    name: str
    records: pd.DataFrame
    histogram: Histogram
    encoding: Encoding = DEFAULT_ENCODING
    sha256: str | None = None

    @classmethod
    def load(
        cls,
        dataset: str | os.PathLike[str] | pd.DataFrame,
        *,
        age_edges: Sequence[int] = AGE_EDGES,
        encoding: Encoding | None = None,
        name: str | None = None,
    ) -> Dataset:
        """Load a dataset: a registered name, the path of a ``.csv``/``.parquet`` file in
        the excerpt schema, or already recoded records.

        Parameters
        ----------
        dataset
            ``"ma2019"``, ``"tx2019"``, ``"national2019"``, a file path (``str`` or
            ``os.PathLike``), or a records DataFrame (columns of
            :data:`~dadp_lite.data.ATTRIBUTES`, already recoded).
        age_edges
            Shortcut for ``encoding=Encoding(age_edges=...)`` (fixed brackets).
        encoding
            How to recode and which cells to count (default: the book's encoding). Records
            given as a DataFrame are already recoded: only the fixed rule's number of
            brackets and the universe apply to them.
        name
            The dataset's name; default the registered name, the file's stem, or
            ``"custom"`` for a DataFrame.
        """
        encoding = resolve_encoding(age_edges, encoding)
        if isinstance(dataset, (str, os.PathLike)):
            raw = load_raw(dataset)
            label = dataset_name(dataset, sha256=raw.attrs["sha256"]) if name is None else name
            return cls.from_raw(raw, encoding=encoding, name=label)
        if isinstance(dataset, pd.DataFrame):
            if encoding.age_rule != "fixed":
                raise ValueError(
                    "records are already recoded: an age rule other than 'fixed' applies to "
                    "raw files only"
                )
            n_brackets = len(encoding.age_edges) - 1
            domains = universe_domains(dataset, n_brackets, encoding.universe)
            return cls._build("custom" if name is None else name, dataset, domains, encoding)
        kind = type(dataset).__name__
        raise TypeError(
            f"dataset must be a dataset name, a file path or a records DataFrame, got {kind}"
        )

    @classmethod
    def from_raw(
        cls,
        raw: pd.DataFrame | ParsedExcerpt,
        *,
        encoding: Encoding = DEFAULT_ENCODING,
        name: str = "custom",
    ) -> Dataset:
        """A dataset from raw excerpt columns (as :func:`~dadp_lite.data.load_raw` returns
        them, or already parsed by :func:`~dadp_lite.data.parse_excerpt`), validated and
        recoded under ``encoding``."""
        frame = raw.raw if isinstance(raw, ParsedExcerpt) else raw
        digest = frame.attrs.get("sha256") if isinstance(frame, pd.DataFrame) else None
        records, domains, _edges = encode(raw, encoding)
        return cls._build(name, records, domains, encoding, digest)

    @classmethod
    def _build(cls, name, records, domains, encoding, sha256=None) -> Dataset:
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        if name in DATASETS and sha256 is not None and sha256 != DATASETS[name].sha256:
            raise DataError(
                f"name {name!r} belongs to the registered excerpt; these records come from "
                f"other bytes (SHA-256 {sha256[:12]}...), so they cannot carry its name "
                "(and be compared with the paper's numbers for it); choose another name"
            )
        records, histogram = _histogram(records, domains, encoding.universe)
        return cls(name, records, histogram, encoding, sha256)

    @classmethod
    def from_histogram(cls, histogram: Histogram, name: str = "custom") -> Dataset:
        """A dataset whose records are the histogram's cells repeated by their counts."""
        if not isinstance(histogram, Histogram):
            raise TypeError(f"histogram must be a Histogram, got {type(histogram).__name__}")
        return cls(name, histogram.to_records(), histogram)


def as_dataset(
    dataset: object, age_edges: Sequence[int] = AGE_EDGES, encoding: Encoding | None = None
) -> Dataset:
    """``dataset`` itself if it is a :class:`Dataset`, else :meth:`Dataset.load` of it."""
    if isinstance(dataset, Dataset):
        return dataset
    if isinstance(dataset, Histogram):
        return Dataset.from_histogram(dataset)
    return Dataset.load(dataset, age_edges=age_edges, encoding=encoding)
