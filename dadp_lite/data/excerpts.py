"""The three registered NIST Diverse Communities excerpts: locate, verify, download.

Where a registered file comes from, in order:

1. the directory named by the environment variable ``DADP_DATA_DIR`` (if set, the file
   must be there: nothing is downloaded behind the user's back);
2. the user cache (``pooch.os_cache("dadp-book")``, or ``DADP_CACHE_DIR``);
3. a download from the upstream NIST repository into that cache.

Whatever the source, the file's SHA-256 must equal the registry's value (the ``oid`` of the
upstream Git LFS pointer); a file that does not match is never read.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from dadp_lite.data.schema import DataError

__all__ = [
    "DATASETS",
    "ENV_CACHE_DIR",
    "ENV_DATA_DIR",
    "HOW_TO_GET",
    "DatasetInfo",
    "dataset_info",
    "dataset_path",
    "sha256_of",
]

#: The commit of NIST's SDNist repository the excerpts are downloaded from.
UPSTREAM_COMMIT = "f048b1c2ca3815239982ac181ec8cd01840fc351"
#: Download address of the excerpts at :data:`UPSTREAM_COMMIT` (one folder per excerpt).
UPSTREAM_BASE = (
    "https://media.githubusercontent.com/media/usnistgov/SDNist/"
    f"{UPSTREAM_COMMIT}/BenchmarkData/ACSDataExcerpts"
)
#: Environment variable naming a folder that holds the excerpts (read first).
ENV_DATA_DIR = "DADP_DATA_DIR"
#: Environment variable naming the download cache (default: the user cache folder).
ENV_CACHE_DIR = "DADP_CACHE_DIR"


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


#: The registered NIST excerpts by name (``ma2019``, ``tx2019``, ``national2019``).
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

HOW_TO_GET = (
    "Get the NIST Diverse Communities excerpts (SDNist v2, "
    "BenchmarkData/ACSDataExcerpts) and point the environment variable "
    f"{ENV_DATA_DIR} at the folder holding ma2019.csv, tx2019.csv and national2019.csv, "
    f"or unset {ENV_DATA_DIR} to download them automatically into the cache."
)


def dataset_info(name: str) -> DatasetInfo:
    """The registry record of a registered excerpt (DataError listing the known names)."""
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
            f"Replace it with an intact copy. {HOW_TO_GET}"
        )
    return path


def _cache_dir() -> Path:
    if os.environ.get(ENV_CACHE_DIR):
        return Path(os.environ[ENV_CACHE_DIR])
    import pooch

    return Path(pooch.os_cache("dadp-book"))


def dataset_path(name: str, data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Return the verified local path of a registered dataset, downloading it if needed.

    Parameters
    ----------
    name
        ``"ma2019"``, ``"tx2019"`` or ``"national2019"``.
    data_dir
        Folder to read from; defaults to ``$DADP_DATA_DIR``. When a folder is given (either
        way) the file must be in it; the cache and the download are not tried.
    """
    info = dataset_info(name)
    folder = data_dir if data_dir is not None else os.environ.get(ENV_DATA_DIR)
    if folder:
        path = Path(folder) / info.filename
        if not path.is_file():
            raise DataError(f"{info.filename} not found in {Path(folder).resolve()}. {HOW_TO_GET}")
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
        raise DataError(f"could not download {info.url}: {error}. {HOW_TO_GET}") from error
    return Path(fetched)
