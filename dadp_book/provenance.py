"""What a result was computed from: file hashes, package versions, dataset files.

The package hash (:func:`package_sources_sha256`) makes an edited ``dadp_lite`` a change
even at the same version number; the executor reports it with the versions of the process
that ran the kernel, so a Dask worker with another installation is noticed.
"""

from __future__ import annotations

import hashlib
import json
import platform
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from dadp_book.discovery import chapter_path
from dadp_book.errors import BuildError
from dadp_book.parameters import (
    chapter_parameters,
    check_memory_estimate,
    check_records,
    effective_parameters,
)

__all__ = [
    "NUMERIC_PACKAGES", "REPORTED_PACKAGES", "check_datasets", "check_unchanged",
    "dataset_record", "datasets_of", "environment", "file_sha256", "files_below",
    "files_sha256", "folder_hashes", "package_sources_sha256", "record_id", "science_files",
    "science_folder", "sweep_provenance", "text_sha256", "versions",
]  # fmt: skip

#: Packages whose versions can change a computed number (recorded with every result).
NUMERIC_PACKAGES = (
    "numpy", "scipy", "pandas", "scikit-learn", "anonypy", "dp-accounting", "threadpoolctl",
    "dadp-lite",
)  # fmt: skip
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
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def files_below(folder: Path, hidden: bool = True) -> dict[str, Path]:
    """``{relative path: path}`` of every file below ``folder``, sorted (``hidden=False``:
    hidden files and folders left out)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_file() and (hidden or not any(p.startswith(".") for p in relative.parts)):
            found[relative.as_posix()] = path
    return found


def files_sha256(files: Mapping[str, Path]) -> str:
    """One SHA-256 over names and the bytes of their files (a missing file counts as empty)."""
    digest = hashlib.sha256()
    for name, path in files.items():
        digest.update(f"{name}\0".encode())
        digest.update(path.read_bytes() if path.is_file() else b"")
        digest.update(b"\0")
    return digest.hexdigest()


def science_folder() -> Path:
    """The folder of the ``dadp_lite`` package this process (and every kernel it starts)
    imports."""
    import dadp_lite

    return Path(dadp_lite.__file__).resolve().parent


def science_files() -> dict[str, Path]:
    """:func:`files_below` the ``dadp_lite`` package, compiled files left out."""
    return {
        name: path
        for name, path in files_below(science_folder()).items()
        if "__pycache__" not in Path(name).parts and path.suffix != ".pyc"
    }


@lru_cache(maxsize=1)
def package_sources_sha256() -> str:
    """One hash over the installed ``dadp_lite`` package: every file's path and bytes."""
    return files_sha256(science_files())


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
    """Provenance of one dataset value (registered name or absolute file path). A file is
    always hashed; a registered excerpt only with ``locate`` (else it is described from the
    registry, so a sweep's client needs no copy of the data)."""
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
    """``{parameter: record or [records]}`` for every dataset-typed parameter; ``known``
    keeps the records of values already described (a sweep describes each file once)."""
    known = {} if known is None else known

    def record(value: Any) -> dict:
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


def check_datasets(
    root: Path, slug: str, values: Mapping[str, object], locate: bool, known: dict | None = None
) -> tuple[dict, dict]:
    """A chapter's effective values and its datasets (:func:`datasets_of`), their record
    counts checked against its k and the memory its values need (run, sweep and build)."""
    params = chapter_parameters(root, slug)
    effective = effective_parameters(root, slug, values)
    datasets = datasets_of({p.name: p.spec for p in params}, effective, locate, known)
    check_records(slug, effective, datasets)
    check_memory_estimate(slug, effective, params, datasets)
    return effective, datasets


def check_unchanged(
    datasets: Mapping[str, Any], loaded: Mapping[str, Sequence[str]] | None = None
) -> None:
    """Refuse a result not computed from the bytes its record names (run, point): what the
    kernel read (``loaded``, :attr:`dadp_book.execute.Execution.loaded`: a file swapped and
    put back is caught), else the file now; an excerpt without a path is checked where read."""
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
    files = files_below(folder).items()
    return {name: file_sha256(path) for name, path in files if name not in exclude}


def record_id(record: object, length: int = 16) -> str:
    """Short SHA-256 of a JSON-able record (key order does not matter)."""
    return text_sha256(json.dumps(record, sort_keys=True, default=str))[:length]


def text_sha256(text: str) -> str:
    """SHA-256 of a text's UTF-8 bytes."""
    return hashlib.sha256(text.encode()).hexdigest()
