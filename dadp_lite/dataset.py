"""A dataset ready for release: its name, its records and their full-universe histogram.

Every experiment starts from a :class:`Dataset`. Mechanisms that work on counts read its
``histogram``; the record-level ones (traditional swapping's partner search, Mondrian
k-anonymity, whose splits depend on row order) read its ``records``. Building it once and
passing it around keeps the loading, recoding and counting out of every repetition.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from dadp_lite.data import AGE_EDGES, ATTRIBUTES, feature_domains, load_records
from dadp_lite.histogram import Histogram

__all__ = ["Dataset", "as_dataset"]


@dataclass(frozen=True, eq=False)
class Dataset:
    """One dataset: ``name``, recoded ``records`` (one row per person) and ``histogram``
    (counts over the full universe of its attributes, empty cells included)."""

    name: str
    records: pd.DataFrame
    histogram: Histogram

    @classmethod
    def load(
        cls,
        dataset: str | os.PathLike[str] | pd.DataFrame,
        *,
        age_edges: Sequence[int] = AGE_EDGES,
        name: str | None = None,
    ) -> Dataset:
        """Load a registered dataset by name (``age_edges`` sets the brackets) or wrap
        already recoded records (then ``name`` labels it, default ``"custom"``)."""
        edges = tuple(int(e) for e in age_edges)
        if isinstance(dataset, str):
            records = load_records(dataset, age_edges=edges)
            label = dataset if name is None else name
        elif isinstance(dataset, pd.DataFrame):
            records = dataset
            label = "custom" if name is None else name
        else:
            kind = type(dataset).__name__
            raise TypeError(f"dataset must be a dataset name or a records DataFrame, got {kind}")
        histogram = Histogram.from_records(records, ATTRIBUTES, feature_domains(edges))
        return cls(label, records, histogram)

    @classmethod
    def from_histogram(cls, histogram: Histogram, name: str = "custom") -> Dataset:
        """A dataset whose records are the histogram's cells repeated by their counts."""
        if not isinstance(histogram, Histogram):
            raise TypeError(f"histogram must be a Histogram, got {type(histogram).__name__}")
        return cls(name, histogram.to_records(), histogram)


def as_dataset(dataset: object, age_edges: Sequence[int] = AGE_EDGES) -> Dataset:
    """``dataset`` itself if it is a :class:`Dataset`, else :meth:`Dataset.load` of it."""
    if isinstance(dataset, Dataset):
        return dataset
    if isinstance(dataset, Histogram):
        return Dataset.from_histogram(dataset)
    return Dataset.load(dataset, age_edges=age_edges)
