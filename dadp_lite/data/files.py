"""Datasets by name or by path: resolve, read (CSV or Parquet), describe and write.

A dataset is either a registered name (``"ma2019"``, ``"tx2019"``, ``"national2019"``:
located and verified against its SHA-256 by :mod:`dadp_lite.data.excerpts`) or the path
(``str`` or ``os.PathLike``) of a ``.csv`` or ``.parquet`` file in the excerpt schema
(:mod:`dadp_lite.data.schema`). A registered name wins over a file of the same name in
the working directory. A user file has no published hash, so it is read as it is; its
SHA-256 and row count are what
:func:`~dadp_lite.data.provenance.source_info` reports for a run's provenance.

A dataset's identity is its name and the SHA-256 of its bytes. A file is read once and
hashed from the bytes read (:func:`load_raw` returns the frame with ``attrs["sha256"]``),
so a recorded hash is always the hash of what was computed on. A file's name is its stem
(``runs/ma-swapped.csv`` -> ``ma-swapped``), except that a stem that is a registered name
(``other/ma2019.csv``) names the file only if its bytes are that excerpt's (verified by
SHA-256); otherwise the name is the stem and the first 8 hex digits of the file's SHA-256
(``ma2019-3f2a1b0c``), so a user's file is never taken for an excerpt (nor compared with
the paper's printed numbers) because of its name.

A dataset file is a regular file (not a folder, FIFO or device). CSV files must be UTF-8
(a byte-order mark is allowed), comma-separated, with each column named once; UTF-16,
binary, gzip and ZIP files, Parquet files named ``.csv`` and CSV text named ``.parquet``
are refused with an error that says so. Parquet needs ``pyarrow``.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import os
import stat
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
    "ENV_READS_LOG",
    "FILE_SUFFIXES",
    "dataset_label",
    "dataset_name",
    "is_registered",
    "load_raw",
    "read_excerpt_csv",
    "read_excerpt_file",
    "read_excerpt_parquet",
    "source_path",
    "write_excerpt",
]

#: Environment variable naming a log file: when set, every dataset file read appends one
#: line, ``<SHA-256 of the bytes read> <real path>``, so that whoever ran the reading
#: process (the book's executor, for a kernel) knows which bytes a result came from.
ENV_READS_LOG = "DADP_READS_LOG"
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


_KINDS = {stat.S_ISDIR: "a folder", stat.S_ISFIFO: "a named pipe (FIFO)",
          stat.S_ISCHR: "a character device", stat.S_ISBLK: "a block device",
          stat.S_ISSOCK: "a socket"}  # fmt: skip


def _check_regular(path: Path) -> None:
    """Refuse a folder, FIFO, device or socket (followed through links) by what it is."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        raise DataError(f"cannot read {path}: {error.strerror}") from error
    if not stat.S_ISREG(mode):
        kind = next((k for test, k in _KINDS.items() if test(mode)), "not a regular file")
        link = f" (a link to {os.path.realpath(path)})" if path.is_symlink() else ""
        raise DataError(f"{path}{link} is {kind}, not a regular file; a dataset is a file")


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
    _check_regular(path)
    if path.suffix.lower() not in FILE_SUFFIXES:
        raise DataError(
            f"{path}: unsupported file type {path.suffix!r}; a dataset file is "
            f"{' or '.join(FILE_SUFFIXES)}"
        )
    return path


def dataset_name(dataset: DatasetRef, sha256: str | None = None) -> str:
    """The dataset's name: a registered name itself, else the file's stem.

    A file whose stem is a registered name (``other/ma2019.csv``) is named by its stem only
    if its bytes are that excerpt's; otherwise ``<stem>-<first 8 hex digits of its SHA-256>``
    (module docstring). ``sha256`` is the hash of the bytes read, if known (else the file
    is hashed).
    """
    _check_ref(dataset)
    if is_registered(dataset):
        return dataset
    stem = Path(dataset).stem
    if stem not in DATASETS:
        return stem
    digest = sha256 or sha256_of(source_path(dataset))
    return stem if digest == DATASETS[stem].sha256 else f"{stem}-{digest[:8]}"


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
_DELIMITERS = {";": "';' (semicolons)", "\t": "tabs", "|": "'|' (bars)"}


def _read_bytes(path: Path) -> bytes:
    _check_regular(path)
    try:
        return path.read_bytes()
    except OSError as error:
        raise DataError(f"cannot read {path}: {error.strerror}") from error


def _sniff(data: bytes, path: Path) -> None:
    """Refuse empty, UTF-16/32, Parquet, gzip, ZIP and binary content before parsing."""
    head = data[: 1 << 16]
    if not head:
        raise DataError(f"{path} is empty (0 bytes): not a readable CSV of the excerpt schema")
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise DataError(f"{path} is UTF-32 text; save it as a UTF-8 CSV")
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise DataError(f"{path} is UTF-16 text; save it as a UTF-8 CSV (Excel: 'CSV UTF-8')")
    if head.startswith(b"PAR1"):
        raise DataError(f"{path} is a Parquet file; give it the suffix .parquet")
    if head.startswith(b"\x1f\x8b"):
        raise DataError(f"{path} is gzip-compressed; decompress it (gunzip) and give the CSV")
    if head.startswith(b"PK\x03\x04"):
        raise DataError(f"{path} is a ZIP archive (an Excel workbook?); export it as a UTF-8 CSV")
    if b"\x00" in head:
        raise DataError(
            f"{path} holds NUL bytes: a binary file (or UTF-16 text without a byte-order "
            "mark), not a UTF-8 CSV"
        )


def _check_header(text: str, path: Path) -> None:
    """Refuse a header that names a column twice, or that is not comma-separated."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    names = next(csv.reader([first]), [])
    seen: dict[str, int] = {}
    for position, name in enumerate(names, start=1):
        if name in seen:
            raise DataError(
                f"{path}: the header names the column {name!r} twice (columns {seen[name]} "
                f"and {position}); every column must be named once"
            )
        seen[name] = position
    if len(names) == 1:
        found = [label for mark, label in _DELIMITERS.items() if mark in first]
        if found:
            raise DataError(
                f"{path}: the header is one column, {first[:60]!r}: the file looks separated "
                f"by {found[0]}; the excerpt schema is comma-separated (save as CSV with "
                f"commas)"
            )


def _parse_csv(data: bytes, path: Path) -> pd.DataFrame:
    _sniff(data, path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DataError(
            f"{path} is not UTF-8 text (byte {error.start}); save it as a UTF-8 CSV"
        ) from error
    _check_header(text, path)
    try:  # header=None: a row with more fields than the header is an error (not an index)
        table = pd.read_csv(io.StringIO(text), header=None, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        detail = " ".join(str(error).split()).removeprefix("Error tokenizing data. C error: ")
        raise DataError(f"{path} is not a readable CSV ({detail})") from error
    frame = table.iloc[1:].reset_index(drop=True)
    frame.columns = list(table.iloc[0])
    # pandas skips blank lines; keep their numbers for error messages
    blank_lines = tuple(i + 1 for i, line in enumerate(data.splitlines()) if not line.strip())
    frame.attrs.update(source=str(path), first_line=2, blank_lines=blank_lines)
    return check_columns(frame)


def _parse_parquet(data: bytes, path: Path) -> pd.DataFrame:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as error:  # pragma: no cover - pyarrow is a dependency
        raise DataError("reading Parquet needs pyarrow (pip install pyarrow)") from error
    if not data.startswith(b"PAR1"):
        raise DataError(
            f"{path} is not a Parquet file (no Parquet signature; a CSV named .parquet?); "
            "give a CSV the suffix .csv"
        )
    try:
        frame = pq.read_table(pa.BufferReader(data)).to_pandas()
    except (pa.ArrowException, OSError, ValueError) as error:
        detail = " ".join(str(error).split())
        raise DataError(f"{path} is not a readable Parquet file ({detail})") from error
    for column in RAW_COLUMNS:
        if column in frame.columns:
            values = frame[column]
            text = values.astype(object).map(_parquet_text)
            frame[column] = text.where(values.notna(), NO_INCOME if column == "PINCP" else "")
    frame.attrs.update(source=str(path))
    return check_columns(frame)


def _read(path: Path, parse) -> pd.DataFrame:
    data = _read_bytes(path)
    digest = hashlib.sha256(data).hexdigest()
    _log_read(path, digest)
    frame = parse(data, path)
    frame.attrs.update(sha256=digest, bytes=len(data))
    return frame


def _log_read(path: Path, digest: str) -> None:
    """Append ``<digest> <real path>`` to the log named by :data:`ENV_READS_LOG`, if any."""
    log = os.environ.get(ENV_READS_LOG)
    if log:
        with open(log, "a", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(f"{digest} {os.path.realpath(path)}\n")


def read_excerpt_csv(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read an excerpt CSV with every column as text (``N`` kept as is), no hash check.

    The header must hold the schema's columns, each column named once, and at least one
    record must follow. Blank lines are skipped (error messages still give the right line
    numbers). The file is read once: ``attrs["sha256"]`` is the hash of the bytes parsed.
    """
    return _read(Path(path), _parse_csv)


def read_excerpt_parquet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read an excerpt Parquet file; the schema's columns come back as text.

    Whole numbers are written without a decimal part; a null PINCP means no income
    (``N``); a null elsewhere becomes an empty value, which the schema refuses.
    ``attrs["sha256"]`` is the hash of the bytes parsed.
    """
    return _read(Path(path), _parse_parquet)


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
    read), and the bytes parsed are verified again; a path is read as it is. The file is
    read once: ``attrs["sha256"]`` is the SHA-256 of the bytes parsed. The values are
    checked when they are recoded (:func:`dadp_lite.data.encoding.encode`).
    """
    path = source_path(dataset, data_dir)
    if not is_registered(dataset):
        return read_excerpt_file(path)
    raw = read_excerpt_csv(path)
    info = DATASETS[dataset]
    if raw.attrs["sha256"] != info.sha256:
        raise DataError(
            f"{path} changed after it was verified: it no longer matches the published "
            f"SHA-256 of {info.filename}; the file was not used"
        )
    return raw


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
