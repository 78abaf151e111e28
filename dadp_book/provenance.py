"""What a result was computed from: source hashes, package versions, dataset files.

A sweep point (and a run) records the SHA-256 of its chapter's source, the dadp-lite
version with a hash of the installed package's sources (so an edited package counts as a
change even at the same version number), the versions of the packages that compute
numbers, the profile, every parameter value, the seed, and the provenance of each dataset
parameter. The executor reports the package hash and versions of the process that ran the
kernel, so a Dask worker with another installation is noticed.
"""

from __future__ import annotations

import hashlib
import json
import platform
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from dadp_book.discovery import chapter_path
from dadp_book.errors import BuildError

__all__ = [
    "NUMERIC_PACKAGES",
    "REPORTED_PACKAGES",
    "check_unchanged",
    "dataset_record",
    "datasets_of",
    "environment",
    "file_sha256",
    "folder_hashes",
    "package_sources_sha256",
    "record_id",
    "sweep_provenance",
    "versions",
]

#: Packages whose versions can change a computed number (recorded with every result).
NUMERIC_PACKAGES = (
    "numpy",
    "scipy",
    "pandas",
    "scikit-learn",
    "anonypy",
    "dp-accounting",
    "threadpoolctl",
    "dadp-lite",
)
#: Packages listed on the book's status page.
REPORTED_PACKAGES = (*NUMERIC_PACKAGES, "matplotlib", "papermill", "jupyter-book")


def versions(packages: Sequence[str] = REPORTED_PACKAGES) -> dict[str, str]:
    """``{"python": ..., package: version}`` ("not installed" where missing)."""
    found = {"python": platform.python_version()}
    for package in packages:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@lru_cache(maxsize=1)
def package_sources_sha256() -> str:
    """One hash over the installed ``dadp_lite`` package: every file's path and bytes."""
    import dadp_lite

    package = Path(dadp_lite.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(package)
        if path.is_file() and "__pycache__" not in relative.parts and path.suffix != ".pyc":
            digest.update(f"{relative.as_posix()}\0".encode())
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


def environment() -> dict:
    """What the executing process computes with: package hash and numeric package versions."""
    return {
        "dadp_lite_sources_sha256": package_sources_sha256(),
        "versions": versions(NUMERIC_PACKAGES),
    }


def sweep_provenance(root: Path, slug: str, profile: str | None) -> dict:
    """What every point of a sweep shares: chapter source, packages, profile."""
    return {
        "chapter": slug,
        "chapter_sha256": file_sha256(chapter_path(root, slug)),
        "profile": profile,
        **environment(),
    }


def dataset_record(value: str, locate: bool) -> dict:
    """Provenance of one dataset value (registered name or absolute file path).

    ``locate=False`` describes a registered excerpt from the registry alone (its SHA-256 is
    verified wherever it is read), so a sweep's client needs no copy of the data; a file is
    always hashed. ``locate=True`` finds and verifies registered files too
    (:func:`dadp_lite.data.source_info`).
    """
    from dadp_lite.data import DATASETS, DataError, source_info

    if value in DATASETS and not locate:
        info = DATASETS[value]
        return {"name": value, "sha256": info.sha256, "rows": info.rows}
    try:
        return dict(source_info(value))
    except (DataError, ValueError, OSError) as error:
        text = " ".join(str(error).split())
        message = f"dataset {text}" if text.startswith(value) else f"dataset {value}: {text}"
        raise BuildError(message) from error


def datasets_of(
    specs: Mapping[str, object],
    values: Mapping[str, object],
    locate: bool,
    known: dict[str, dict] | None = None,
) -> dict:
    """``{parameter: record or [records]}`` for every dataset-typed parameter.

    Each file is read, hashed and validated (:func:`dadp_lite.data.source_info`); ``known``
    keeps the records of values already described (a sweep describes each file once).
    """
    known = {} if known is None else known

    def record(value: str) -> dict:
        if value not in known:
            known[value] = dataset_record(value, locate)
        return dict(known[value])

    out: dict = {}
    for name, spec in specs.items():
        value = values.get(name)
        if getattr(spec, "kind", None) != "dataset" or value is None:
            continue
        out[name] = [record(v) for v in value] if isinstance(value, list) else record(value)
    return out


def check_unchanged(
    datasets: Mapping[str, object], loaded: Mapping[str, Sequence[str]] | None = None
) -> None:
    """Refuse a result not computed from the bytes its record names (run, point).

    ``datasets`` as from :func:`datasets_of`; ``loaded`` maps each dataset file the kernel
    read to the SHA-256 of the bytes it read (:attr:`dadp_book.execute.Execution.loaded`).
    A record's hash must be the hash of the bytes read: a file the kernel read is compared
    by what it read (a file swapped and put back during the run is caught); one it did not
    read through ``dadp_lite`` is hashed again. A registered excerpt described from the
    registry alone has no path; it is verified wherever it is read.
    """
    loaded = loaded or {}
    for parameter, records in datasets.items():
        for record in records if isinstance(records, list) else [records]:
            path = record.get("path") if isinstance(record, dict) else None
            if not path:
                continue
            read = list(loaded.get(path) or [])
            if read:
                now, when = read[0] if len(read) == 1 else "several versions", "read"
            else:
                when = "after"
                try:
                    now = file_sha256(Path(path))
                except OSError as error:
                    now = f"unreadable ({error.strerror})"
            if now != record["sha256"]:
                raise BuildError(
                    f"dataset file {path} ({parameter}) changed while the chapter ran (SHA-256 "
                    f"{record['sha256'][:12]}... checked before, {now[:12]}... {when}); "
                    "nothing written: run again on a file that stays put"
                )


def folder_hashes(folder: Path, exclude: Sequence[str] = ()) -> dict[str, str]:
    """``{relative path: SHA-256}`` of every file below ``folder`` (hidden files included)."""
    return {
        path.relative_to(folder).as_posix(): file_sha256(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.relative_to(folder).as_posix() not in exclude
    }


def record_id(record: object, length: int = 16) -> str:
    """Short SHA-256 of a JSON-able record (key order does not matter)."""
    text = json.dumps(record, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:length]
