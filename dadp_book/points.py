"""One sweep point on disk: its provenance record, its files' hashes, and their verification.

``points/<id>/point.json`` holds the point's record (the sweep's provenance: chapter source
hash, package hash and versions, profile; then every parameter value, the seed and each
dataset's provenance) and the SHA-256 of every file the point wrote. On resume a point is

- ``reused`` when its record equals the current one and every file matches its hash;
- ``stale`` when its record differs (the reason names what changed): recomputed;
- ``damaged`` when a file is missing, altered or cut short, or a file was added: recomputed;
- ``new`` when it has no folder yet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from dadp_book.execute import Execution
from dadp_book.outputs import atomic_replace, temp_folder
from dadp_book.provenance import folder_hashes, record_id

__all__ = ["RECORD", "Verdict", "inspect_point", "read_record", "store_point"]

RECORD = "point.json"
LEGACY_MARKER = "done.json"
_REASONS = {
    "chapter_sha256": "chapter source changed",
    "dadp_lite_sources_sha256": "dadp_lite package sources changed",
    "profile": "profile changed",
    "parameters": "parameter values changed",
    "seed": "seed changed",
    "datasets": "dataset files changed",
}


@dataclass(frozen=True)
class Verdict:
    """What a point folder holds compared with what the sweep would compute now."""

    state: str  # "new", "reused", "stale" or "damaged"
    reason: str = ""


def _plain(record: object) -> object:
    return json.loads(json.dumps(record, sort_keys=True, default=str))


def _version_changes(old: dict, new: dict) -> str:
    changed = [f"{k} {old.get(k)} -> {new.get(k)}" for k in sorted(set(old) | set(new))
               if old.get(k) != new.get(k)]  # fmt: skip
    return "package versions changed (" + ", ".join(changed) + ")"


def _differences(stored: dict, expected: dict) -> str:
    flat_old = {**stored.get("provenance", {}), **stored}
    flat_new = {**expected.get("provenance", {}), **expected}
    reasons = []
    for key in sorted(set(flat_old) | set(flat_new)):
        if key == "provenance" or flat_old.get(key) == flat_new.get(key):
            continue
        if key == "versions":
            reasons.append(_version_changes(flat_old.get(key) or {}, flat_new.get(key) or {}))
        else:
            reasons.append(_REASONS.get(key, f"{key} changed"))
    return "; ".join(reasons)


def _file_problem(folder: Path, recorded: dict[str, str]) -> str:
    present = folder_hashes(folder, exclude=[RECORD])
    for name in sorted(recorded):
        if name not in present:
            return f"{name} is missing"
        if present[name] != recorded[name]:
            return f"{name} does not match its recorded SHA-256 (changed or cut short)"
    extra = sorted(set(present) - set(recorded))
    return f"unexpected file {extra[0]}" if extra else ""


def read_record(folder: Path) -> dict | None:
    """The parsed ``point.json`` of a point folder (``None`` if absent or unreadable)."""
    try:
        content = json.loads((folder / RECORD).read_text())
    except (OSError, ValueError):
        return None
    return content if isinstance(content, dict) else None


def inspect_point(folder: Path, expected: dict) -> Verdict:
    """Compare a point folder with the record the sweep would write now."""
    if not folder.exists():
        return Verdict("new")
    stored = read_record(folder)
    if stored is None:
        if (folder / LEGACY_MARKER).is_file():
            return Verdict("stale", "written by an older dadp-book without a provenance record")
        return Verdict("damaged", f"{RECORD} is missing or unreadable")
    changed = _differences(stored.get("record") or {}, _plain(expected))
    if changed:
        return Verdict("stale", changed)
    problem = _file_problem(folder, stored.get("files") or {})
    return Verdict("damaged", problem) if problem else Verdict("reused")


def store_point(folder: Path, record: dict, execution: Execution) -> None:
    """Write a finished point (notebook, files, ``point.json``) and move it into place."""
    with temp_folder(folder.parent, folder.name) as tmp:
        execution.save(tmp)
        content = {
            "point": folder.name,
            "record_id": record_id(record),
            "provenance_id": record_id(record["provenance"]),
            "record": _plain(record),
            "files": folder_hashes(tmp),
            "seconds": round(execution.seconds, 2),
        }
        (tmp / RECORD).write_text(json.dumps(content, indent=2, sort_keys=True) + "\n")
        atomic_replace(tmp, folder)
