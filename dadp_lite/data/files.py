"""Datasets by name or by path: resolve, read (CSV or Parquet), describe and write.

A dataset is either a registered name (``"ma2019"``, ``"tx2019"``, ``"national2019"``:
located and verified against its SHA-256 by :mod:`dadp_lite.data.excerpts`) or the path
(``str`` or ``os.PathLike``) of a ``.csv`` or ``.parquet`` file in the excerpt schema
(:mod:`dadp_lite.data.schema`). A registered name wins over a file of the same name in
the working directory. A user file has no published hash, so it is read as it is; its
SHA-256 and row count are what :func:`source_info` reports for a run's provenance.
Its dataset name is the file's stem (``runs/ma-swapped.csv`` -> ``ma-swapped``).

CSV files must be UTF-8 (a byte-order mark is allowed); UTF-16, binary files and Parquet
files named ``.csv`` are refused with an error that says so. Parquet needs ``pyarrow``.
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path

import numpy as np
import pandas as pd

from dadp_lite.data.excerpts import DATASETS, dataset_path, sha256_of
from dadp_lite.data.schema import (
    AGE_EDGES,
    INCOME_THRESHOLD,
    NO_INCOME,
    RAW_COLUMNS,
    DataError,
    check_columns,
    parse_excerpt,
)

__all__ = [
    "FILE_SUFFIXES",
    "dataset_label",
    "dataset_name",
    "is_registered",
    "load_raw",
    "read_excerpt_csv",
    "read_excerpt_file",
    "read_excerpt_parquet",
    "source_info",
    "source_path",
    "write_excerpt",
]

#: File types a user dataset may have.
FILE_SUFFIXES: tuple[str, ...] = (".csv", ".parquet")
#: Ages below which the excerpts write PINCP as ``N`` (no income).
_NO_INCOME_BELOW_AGE = 15

DatasetRef = str | os.PathLike


def is_registered(dataset: object) -> bool:
    """True if ``dataset`` is the name of a registered excerpt."""
    return isinstance(dataset, str) and dataset in DATASETS


def _known() -> str:
    return ", ".join(sorted(DATASETS))


def _check_ref(dataset: object) -> None:
    if not isinstance(dataset, (str, os.PathLike)):
        raise TypeError(
            "dataset must be a registered dataset name or the path of a file "
            f"(str or os.PathLike), got {type(dataset).__name__}"
        )


def source_path(dataset: DatasetRef, data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The local file behind ``dataset``: a registered name (located and verified, see
    :func:`~dadp_lite.data.excerpts.dataset_path`; ``data_dir`` applies to these only) or
    an existing ``.csv``/``.parquet`` file."""
    _check_ref(dataset)
    if is_registered(dataset):
        return dataset_path(dataset, data_dir)
    path = Path(dataset)
    if not path.exists():
        if isinstance(dataset, str) and not path.suffix and len(path.parts) == 1:
            raise DataError(
                f"unknown dataset {dataset!r}; known datasets: {_known()} "
                "(or give the path of a .csv or .parquet file in the excerpt schema)"
            )
        raise DataError(
            f"no such file: {path} (a dataset is a registered name, {_known()}, "
            "or the path of a .csv or .parquet file in the excerpt schema)"
        )
    if not path.is_file():
        raise DataError(f"{path} is not a file")
    if path.suffix.lower() not in FILE_SUFFIXES:
        raise DataError(
            f"{path}: unsupported file type {path.suffix!r}; a dataset file is "
            f"{' or '.join(FILE_SUFFIXES)}"
        )
    return path


def dataset_name(dataset: DatasetRef) -> str:
    """The dataset's name: a registered name itself, else the file's stem."""
    _check_ref(dataset)
    return dataset if is_registered(dataset) else Path(dataset).stem


def dataset_label(dataset: DatasetRef, kind: str = "paper") -> str:
    """How figures and tables name a dataset.

    ``kind="paper"``: the paper's name of a registered excerpt (``"MA"``, ``"TX"``,
    ``"Outlier"``); ``kind="long"``: its description (``"Massachusetts (5 PUMAs)"``).
    Anything else (a file path, or the name of a dataset loaded from a file) is labelled
    by its file stem under both kinds.
    """
    if kind not in ("paper", "long"):
        raise ValueError(f"kind must be 'paper' or 'long', got {kind!r}")
    _check_ref(dataset)
    if is_registered(dataset):
        info = DATASETS[dataset]
        return info.paper_label if kind == "paper" else info.label
    return Path(dataset).stem if Path(dataset).suffix.lower() in FILE_SUFFIXES else str(dataset)


# ---------------------------------------------------------------------- reading
def _sniff(path: Path) -> None:
    """Refuse empty, UTF-16/32, Parquet-named-.csv and binary files before parsing."""
    with open(path, "rb") as handle:
        head = handle.read(1 << 16)
    if not head:
        raise DataError(f"{path} is empty (0 bytes): not a readable CSV of the excerpt schema")
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise DataError(f"{path} is UTF-32 text; save it as a UTF-8 CSV")
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise DataError(f"{path} is UTF-16 text; save it as a UTF-8 CSV (Excel: 'CSV UTF-8')")
    if head.startswith(b"PAR1"):
        raise DataError(f"{path} is a Parquet file; give it the suffix .parquet")
    if b"\x00" in head:
        raise DataError(
            f"{path} holds NUL bytes: a binary file (or UTF-16 text without a byte-order "
            "mark), not a UTF-8 CSV"
        )


def read_excerpt_csv(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read an excerpt CSV with every column as text (``N`` kept as is), no hash check.

    The header must hold the schema's columns and at least one record must follow. Blank
    lines are skipped (error messages still give the right line numbers).
    """
    path = Path(path)
    _sniff(path)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise DataError(
            f"{path} is not UTF-8 text (byte {error.start}); save it as a UTF-8 CSV"
        ) from error
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise DataError(f"{path} is not a readable CSV ({error})") from error
    with open(path, "rb") as handle:  # pandas skips blank lines; keep their numbers
        blank_lines = tuple(i + 1 for i, line in enumerate(handle) if not line.strip())
    frame.attrs.update(source=str(path), first_line=2, blank_lines=blank_lines)
    return check_columns(frame)


def read_excerpt_parquet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read an excerpt Parquet file; the schema's columns come back as text.

    Whole numbers are written without a decimal part; a null PINCP means no income
    (``N``); a null elsewhere becomes an empty value, which the schema refuses.
    """
    path = Path(path)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as error:  # pragma: no cover - pyarrow is a dependency
        raise DataError("reading Parquet needs pyarrow (pip install pyarrow)") from error
    try:
        frame = pq.read_table(path).to_pandas()
    except (pa.ArrowException, OSError) as error:
        raise DataError(f"{path} is not a readable Parquet file ({error})") from error
    for column in RAW_COLUMNS:
        if column in frame.columns:
            values = frame[column]
            text = values.astype(object).map(_parquet_text)
            frame[column] = text.where(values.notna(), NO_INCOME if column == "PINCP" else "")
    frame.attrs.update(source=str(path))
    return check_columns(frame)


def _parquet_text(value: object) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def read_excerpt_file(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a ``.csv`` or ``.parquet`` excerpt file (by its suffix), no hash check."""
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        return read_excerpt_parquet(path)
    return read_excerpt_csv(path)


def load_raw(dataset: DatasetRef, data_dir: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """Read a dataset with the schema's columns as text (``N`` kept as is).

    A registered name is located and verified first (a file that fails its SHA-256 is never
    read); a path is read as it is. The values are checked when they are recoded
    (:func:`dadp_lite.data.encoding.encode`).
    """
    path = source_path(dataset, data_dir)
    if is_registered(dataset):
        return read_excerpt_csv(path)
    return read_excerpt_file(path)


def source_info(dataset: DatasetRef) -> dict[str, object]:
    """Where a dataset's records come from: ``name``, ``path``, ``sha256``, ``bytes``, ``rows``.

    ``dataset`` is a registered name (the file is located and verified as by
    :func:`~dadp_lite.data.excerpts.dataset_path`) or the path of a file in the excerpt
    schema. ``rows`` counts records (non-blank data lines of a CSV, rows of a Parquet file).
    """
    path = source_path(dataset)
    if is_registered(dataset):
        info = DATASETS[dataset]
        return {"name": dataset, "path": str(path), "sha256": info.sha256,
                "bytes": path.stat().st_size, "rows": info.rows}  # fmt: skip
    if path.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        rows = pq.ParquetFile(path).metadata.num_rows
    else:
        with open(path, "rb") as handle:
            rows = max(sum(1 for line in handle if line.strip()) - 1, 0)
    return {"name": path.stem, "path": str(path.resolve()), "sha256": sha256_of(path),
            "bytes": path.stat().st_size, "rows": int(rows)}  # fmt: skip


# ---------------------------------------------------------------------- writing
def _excerpt_columns(records: pd.DataFrame, age_edges: tuple[int, ...]) -> pd.DataFrame:
    """Schema columns of recoded records (race, sex, tenure, age_bracket, income_over_50k)."""
    needed = ["race", "sex", "tenure", "age_bracket", "income_over_50k"]
    missing = [c for c in needed if c not in records.columns]
    if missing:
        raise ValueError(
            f"records lack the column(s) {missing}; give recoded records (race, sex, tenure, "
            f"age_bracket, income_over_50k) or raw ones ({', '.join(RAW_COLUMNS)})"
        )
    edges = np.asarray(age_edges, dtype=np.int64)
    bracket = records["age_bracket"].to_numpy()
    if bracket.size and (bracket.min() < 0 or bracket.max() >= edges.size - 1):
        raise ValueError(f"age_bracket must index the brackets of age_edges {tuple(age_edges)}")
    if "age" in records.columns:
        age = records["age"].to_numpy(dtype=np.int64)
        if np.any(np.searchsorted(edges, age, side="right") - 1 != bracket):
            raise ValueError("records' age and age_bracket disagree under age_edges")
    else:
        age = edges[bracket]  # a bracket's lower edge: a valid age of that bracket
    over = records["income_over_50k"].to_numpy() == 1
    income = np.where(over, str(INCOME_THRESHOLD + 1), "0").astype(object)
    income[~over & (age < _NO_INCOME_BELOW_AGE)] = NO_INCOME
    return pd.DataFrame(
        {"RAC1P": records["race"].to_numpy(np.int64), "SEX": records["sex"].to_numpy(np.int64),
         "OWN_RENT": records["tenure"].to_numpy(np.int64), "AGEP": age, "PINCP": income}
    )  # fmt: skip


def write_excerpt(
    records: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    age_edges: tuple[int, ...] = AGE_EDGES,
) -> Path:
    """Write records as a file in the excerpt schema (``.csv`` or ``.parquet``, by suffix).

    ``records`` are either raw (the columns of :data:`~dadp_lite.data.schema.RAW_COLUMNS`,
    written as they are) or recoded (``race, sex, tenure, age_bracket, income_over_50k``
    and optionally ``age``, e.g. :meth:`Histogram.to_records` of a release). Recoded
    records get ``AGEP`` = their ``age`` if present, else the lower edge of their bracket
    under ``age_edges``, and ``PINCP`` = 50,001 above the income cut, else 0 (``N`` below
    age 15, as in the excerpts). Under the default encoding the written file recodes to
    the same five features. Returns the path written.
    """
    if not isinstance(records, pd.DataFrame):
        raise TypeError(f"records must be a pandas DataFrame, got {type(records).__name__}")
    _check_ref(path)
    path = Path(path)
    if path.suffix.lower() not in FILE_SUFFIXES:
        raise ValueError(f"path must end in {' or '.join(FILE_SUFFIXES)}, got {path.name!r}")
    if all(column in records.columns for column in RAW_COLUMNS):
        table = records.loc[:, list(RAW_COLUMNS)].astype(str)
    else:
        table = _excerpt_columns(records, tuple(age_edges))
    parse_excerpt(table.astype(str))  # refuse what the loader would refuse
    if path.suffix.lower() == ".parquet":
        table.to_parquet(path, index=False)
    else:
        table.to_csv(path, index=False, lineterminator="\n")
    return path
