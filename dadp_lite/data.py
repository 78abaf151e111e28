"""The three NIST Diverse Communities excerpts: locate, verify, read and recode.

Where a file comes from, in order:

1. the directory named by the environment variable ``DADP_DATA_DIR`` (if set, the file
   must be there: nothing is downloaded behind the user's back);
2. the user cache (``pooch.os_cache("dadp-book")``, or ``DADP_CACHE_DIR``);
3. a download from the upstream NIST repository into that cache.

Whatever the source, the file's SHA-256 must equal the registry's value (the ``oid`` of the
upstream Git LFS pointer); a file that does not match is never read.

Recoding to the paper's five features (the paper used IPUMS names RACE, SEX, OWNERSHP,
AGE, INCTOT; the SDNist v2 files call them RAC1P, SEX, OWN_RENT, AGEP, PINCP):

``race``
    RAC1P, 9 codes (1-9), kept as they are.
``sex``
    SEX, codes 1 (male) and 2 (female).
``tenure``
    OWN_RENT, codes 0 (group quarters), 1 (owned), 2 (rented).
``age_bracket``
    AGEP (0-99) cut into brackets by :data:`AGE_EDGES`: five equal-width brackets of
    20 years, [0, 20), [20, 40), [40, 60), [60, 80), [80, 100). The paper only says its
    classification task divides ages "equitably into 5 age brackets"; equal width is our
    reading, and ``age_edges`` lets a reader choose another rule.
``income_over_50k``
    1 if PINCP > 50,000 else 0. PINCP is ``N`` for people under 15, who have no income
    and count as 0.
``age``
    the raw AGEP, kept for mechanisms that treat age as numeric.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "AGE_EDGES",
    "ATTRIBUTES",
    "DATASETS",
    "FEATURES",
    "DataError",
    "DatasetInfo",
    "age_bracket_labels",
    "dataset_path",
    "load_raw",
    "load_records",
    "read_excerpt_csv",
    "feature_domains",
    "recode",
    "sha256_of",
    "source_info",
]

UPSTREAM_COMMIT = "f048b1c2ca3815239982ac181ec8cd01840fc351"
UPSTREAM_BASE = (
    "https://media.githubusercontent.com/media/usnistgov/SDNist/"
    f"{UPSTREAM_COMMIT}/BenchmarkData/ACSDataExcerpts"
)
ENV_DATA_DIR = "DADP_DATA_DIR"
ENV_CACHE_DIR = "DADP_CACHE_DIR"


class DataError(ValueError):
    """A dataset could not be found, verified or parsed."""


@dataclass(frozen=True)
class DatasetInfo:
    """One NIST excerpt: its file, checksum, upstream location and labels."""

    name: str
    label: str
    paper_label: str
    filename: str
    subfolder: str
    sha256: str
    rows: int

    @property
    def url(self) -> str:
        """Upstream download URL (Git LFS media endpoint of usnistgov/SDNist)."""
        return f"{UPSTREAM_BASE}/{self.subfolder}/{self.filename}"


DATASETS: dict[str, DatasetInfo] = {
    "ma2019": DatasetInfo(
        "ma2019",
        "Massachusetts (5 PUMAs)",
        "MA",
        "ma2019.csv",
        "massachusetts",
        "4f1e49c938674f6f623a86f6abef75c6c466012cc9296df21c3d678fb08ad0b0",
        7634,
    ),
    "tx2019": DatasetInfo(
        "tx2019",
        "Texas (6 PUMAs)",
        "TX",
        "tx2019.csv",
        "texas",
        "33b17bc20ea97c7b1752e1d42cd90dbd1b368700c88ea4273b0b95466e9a579f",
        9276,
    ),
    "national2019": DatasetInfo(
        "national2019",
        "National (20 PUMAs)",
        "Outlier",
        "national2019.csv",
        "national",
        "b49ba83e18472b6b76438bb511a01668bdbe2c1ace54521614a32edcc748f79a",
        27253,
    ),
}

RAW_COLUMNS = ("RAC1P", "SEX", "OWN_RENT", "AGEP", "PINCP")
#: The paper's five features, in the order of every histogram of the book.
ATTRIBUTES: tuple[str, ...] = ("race", "sex", "tenure", "age_bracket", "income_over_50k")
AGE_EDGES: tuple[int, ...] = (0, 20, 40, 60, 80, 100)
INCOME_THRESHOLD = 50_000

#: Feature name -> (domain values, human-readable labels).
FEATURES: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "race": (
        tuple(range(1, 10)),
        (
            "White",
            "Black",
            "American Indian",
            "Alaska Native",
            "AIAN tribes",
            "Asian",
            "NHPI",
            "Other",
            "Two or more",
        ),
    ),
    "sex": ((1, 2), ("male", "female")),
    "tenure": ((0, 1, 2), ("group quarters", "owned", "rented")),
    "income_over_50k": ((0, 1), ("<= 50k", "> 50k")),
}

_HOW_TO_GET = (
    "Get the NIST Diverse Communities excerpts (SDNist v2, "
    "BenchmarkData/ACSDataExcerpts) and point the environment variable "
    f"{ENV_DATA_DIR} at the folder holding ma2019.csv, tx2019.csv and national2019.csv, "
    f"or unset {ENV_DATA_DIR} to download them automatically into the cache."
)


def _info(name: str) -> DatasetInfo:
    if not isinstance(name, str):
        raise TypeError(f"dataset name must be a str, got {type(name).__name__}")
    try:
        return DATASETS[name]
    except KeyError:
        known = ", ".join(sorted(DATASETS))
        raise DataError(f"unknown dataset {name!r}; known datasets: {known}") from None


def sha256_of(path: str | os.PathLike[str]) -> str:
    """Return the hex SHA-256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _verify(path: Path, info: DatasetInfo) -> Path:
    actual = sha256_of(path)
    if actual != info.sha256:
        raise DataError(
            f"{path} does not match the published SHA-256 of {info.filename} "
            f"(expected {info.sha256}, found {actual}); the file was not used. "
            f"Replace it with an intact copy. {_HOW_TO_GET}"
        )
    return path


def _cache_dir() -> Path:
    if os.environ.get(ENV_CACHE_DIR):
        return Path(os.environ[ENV_CACHE_DIR])
    import pooch

    return Path(pooch.os_cache("dadp-book"))


def dataset_path(name: str, data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Return the verified local path of a dataset, downloading it if needed.

    Parameters
    ----------
    name
        ``"ma2019"``, ``"tx2019"`` or ``"national2019"``.
    data_dir
        Folder to read from; defaults to ``$DADP_DATA_DIR``. When a folder is given (either
        way) the file must be in it; the cache and the download are not tried.
    """
    info = _info(name)
    folder = data_dir if data_dir is not None else os.environ.get(ENV_DATA_DIR)
    if folder:
        path = Path(folder) / info.filename
        if not path.is_file():
            raise DataError(f"{info.filename} not found in {Path(folder).resolve()}. {_HOW_TO_GET}")
        return _verify(path, info)
    cached = _cache_dir() / info.filename
    if cached.is_file():
        return _verify(cached, info)
    import pooch

    try:
        fetched = pooch.retrieve(
            info.url,
            known_hash=f"sha256:{info.sha256}",
            fname=info.filename,
            path=_cache_dir(),
            progressbar=False,
        )
    except ValueError as error:  # pooch raises ValueError on a hash mismatch
        raise DataError(f"download of {info.filename} failed verification: {error}") from error
    except Exception as error:  # network errors come in many types
        raise DataError(f"could not download {info.url}: {error}. {_HOW_TO_GET}") from error
    return Path(fetched)


def read_excerpt_csv(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Parse an excerpt CSV (no hash check) and check it has the columns we need."""
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise DataError(f"{path} is not a readable CSV ({error}). {_HOW_TO_GET}") from error
    missing = [column for column in RAW_COLUMNS if column not in frame.columns]
    if missing:
        raise DataError(f"{path} lacks the column(s) {missing}; expected the SDNist v2 schema")
    if frame.empty:
        raise DataError(f"{path} holds no records")
    return frame


def load_raw(name: str, data_dir: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """Read a verified excerpt with every column as text (``N`` kept as is)."""
    return read_excerpt_csv(dataset_path(name, data_dir))


def _integer_column(frame: pd.DataFrame, column: str) -> np.ndarray:
    values = pd.to_numeric(frame[column], errors="coerce")
    if values.isna().any():
        bad = frame.loc[values.isna(), column].iloc[0]
        raise DataError(f"column {column} holds a non-numeric value {bad!r}")
    return values.to_numpy().astype(np.int64)


def age_bracket_labels(age_edges: tuple[int, ...] = AGE_EDGES) -> tuple[str, ...]:
    """Labels such as ``"20-39"`` for brackets [20, 40)."""
    return tuple(f"{lo}-{hi - 1}" for lo, hi in zip(age_edges[:-1], age_edges[1:], strict=True))


def recode(raw: pd.DataFrame, age_edges: tuple[int, ...] = AGE_EDGES) -> pd.DataFrame:
    """Recode SDNist columns to the paper's features (see the module docstring).

    Returns a DataFrame with integer columns ``race``, ``sex``, ``tenure``,
    ``age_bracket`` (0-based bracket index), ``income_over_50k`` and ``age``.
    """
    edges = np.asarray(age_edges)
    if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError(f"age_edges must be strictly increasing with >= 2 values, got {age_edges}")
    missing = [column for column in RAW_COLUMNS if column not in raw.columns]
    if missing:
        raise DataError(f"records lack the column(s) {missing}")
    age = _integer_column(raw, "AGEP")
    if age.min() < edges[0] or age.max() >= edges[-1]:
        raise DataError(f"AGEP outside the bracket range [{edges[0]}, {edges[-1]}): {age_edges}")
    income_text = raw["PINCP"].astype(str).str.strip()
    income = pd.to_numeric(income_text.where(income_text != "N", "0"), errors="coerce")
    if income.isna().any():
        raise DataError(f"PINCP holds a non-numeric value {income_text[income.isna()].iloc[0]!r}")
    records = pd.DataFrame(
        {
            "race": _integer_column(raw, "RAC1P"),
            "sex": _integer_column(raw, "SEX"),
            "tenure": _integer_column(raw, "OWN_RENT"),
            "age_bracket": np.searchsorted(edges, age, side="right") - 1,
            "income_over_50k": (income.to_numpy() > INCOME_THRESHOLD).astype(np.int64),
            "age": age,
        }
    )
    for feature, (domain, _labels) in FEATURES.items():
        outside = ~records[feature].isin(domain)
        if outside.any():
            raise DataError(
                f"{feature} holds {records.loc[outside, feature].iloc[0]} outside its "
                f"domain {domain}"
            )
    return records


def load_records(
    name: str,
    age_edges: tuple[int, ...] = AGE_EDGES,
    data_dir: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """Load, verify and recode one excerpt; one row per person."""
    return recode(load_raw(name, data_dir), age_edges)


def feature_domains(age_edges: tuple[int, ...] = AGE_EDGES) -> dict[str, tuple[int, ...]]:
    """Full domain (all possible values, not only observed ones) of each feature."""
    domains = {feature: domain for feature, (domain, _labels) in FEATURES.items()}
    domains["age_bracket"] = tuple(range(len(age_edges) - 1))
    domains["age"] = tuple(range(age_edges[0], age_edges[-1]))
    return domains


def source_info(dataset: str | os.PathLike[str]) -> dict[str, object]:
    """Where a dataset's records come from: ``name``, ``path``, ``sha256``, ``bytes``, ``rows``.

    ``dataset`` is a registered name (the file is located and verified as by
    :func:`dataset_path`) or the path of a file in the excerpt schema. ``rows`` counts
    records (data lines of a CSV, rows of a Parquet file).
    """
    if isinstance(dataset, str) and dataset in DATASETS:
        info = DATASETS[dataset]
        path = dataset_path(dataset)
        return {"name": dataset, "path": str(path), "sha256": info.sha256,
                "bytes": path.stat().st_size, "rows": info.rows}  # fmt: skip
    path = Path(dataset)
    if not path.is_file():
        known = ", ".join(sorted(DATASETS))
        raise DataError(
            f"dataset {str(dataset)!r} is neither a registered name ({known}) nor a file"
        )
    if path.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        rows = pq.ParquetFile(path).metadata.num_rows
    else:
        with open(path, "rb") as handle:
            rows = max(sum(1 for line in handle if line.strip()) - 1, 0)
    return {"name": path.stem, "path": str(path.resolve()), "sha256": sha256_of(path),
            "bytes": path.stat().st_size, "rows": int(rows)}  # fmt: skip
