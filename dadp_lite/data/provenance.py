"""Provenance of a run's input: where a dataset's records come from, read and checked once.

It sits above both :mod:`~dadp_lite.data.files` (reading) and
:mod:`~dadp_lite.data.encoding` (validating by recoding), which never import each other
back: the data modules import one another without a circle.
"""

from __future__ import annotations

from dadp_lite.data.encoding import encode
from dadp_lite.data.files import DatasetRef, dataset_name, load_raw, source_path

__all__ = ["source_info"]


def source_info(dataset: DatasetRef, *, validate: bool = True) -> dict[str, object]:
    """Where a dataset's records come from: ``name``, ``path``, ``sha256``, ``bytes``, ``rows``.

    ``dataset`` is a registered name (the file is located and verified as by
    :func:`~dadp_lite.data.excerpts.dataset_path`) or the path of a file in the excerpt
    schema. The file is read once; ``sha256`` is the hash of the bytes read, ``rows`` the
    records parsed from them. With ``validate`` every value is checked as loading the
    dataset under the default encoding would (:func:`~dadp_lite.data.encoding.encode`),
    so a bad file is refused here, naming the column and row, before any work starts.
    """
    raw = load_raw(dataset)
    if validate:
        encode(raw)
    path = source_path(dataset)
    digest = raw.attrs["sha256"]
    return {"name": dataset_name(dataset, sha256=digest), "path": str(path.resolve()),
            "sha256": digest, "bytes": raw.attrs["bytes"], "rows": len(raw)}  # fmt: skip
