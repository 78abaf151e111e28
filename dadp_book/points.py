"""Sweep points: the grid's points, each checked up front, and each point's folder on disk.

A finished point is ``points/<id>/``: its files and ``point.json`` (its provenance record
and the SHA-256 of every file). :func:`inspect_point` says whether it is ``new``,
``reused``, ``stale`` (its record differs) or ``damaged`` (a file missing, altered or added)
(book/reproducibility.md, "Resuming a sweep").
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dadp_book.errors import BuildError
from dadp_book.execute import Execution
from dadp_book.outputs import atomic_replace, temp_folder
from dadp_book.parameters import validate_parameters
from dadp_book.provenance import folder_hashes, record_id
from dadp_book.yamlio import load_yaml_file

__all__ = ["MAX_POINTS", "RECORD", "Point", "Verdict", "inspect_point", "load_grid",
           "plan_points", "read_record", "store_point", "tag_value"]  # fmt: skip

#: More points than this is almost certainly a mistake in the grid file.
MAX_POINTS = 10_000
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
class Point:
    """One grid point: its id (a hash of its values) and the values passed to the chapter."""

    point_id: str
    values: dict
    coordinates: dict


@dataclass(frozen=True)
class Verdict:
    """What a point folder holds compared with what the sweep would compute now."""

    state: str  # "new", "reused", "stale" or "damaged"
    reason: str = ""


def load_grid(path: Path) -> dict[str, list]:
    """Grid YAML: ``NAME: [v1, v2, ...]`` per swept parameter; a scalar is a fixed value."""
    content = load_yaml_file(path, "grid file")
    if not isinstance(content, dict) or not content:
        raise BuildError(
            f"grid file {path} has no points: it must map parameter names to lists of values"
        )
    grid = {}
    for name, axis in content.items():
        axis = list(axis) if isinstance(axis, list) else [axis]
        if not axis:
            raise BuildError(f"grid file {path} has no points: {name} has an empty list")
        grid[str(name)] = axis
    return grid


def tag_value(value: object) -> object:
    """A point's value as a results.csv cell (a one-element list is its element)."""
    if isinstance(value, list | tuple):
        return value[0] if len(value) == 1 else json.dumps(list(value))
    return value


def plan_points(
    root: Path, slug: str, grid: Mapping[str, Sequence], base: Mapping[str, object], source: Path
) -> list[Point]:
    """Every point of the grid's Cartesian product (in the grid's order), each value checked;
    the same point twice is refused."""
    total = 1
    for axis in grid.values():
        total *= len(axis)
    if total > MAX_POINTS:
        raise BuildError(f"grid file {source} has {total} points; at most {MAX_POINTS}")
    points: list[Point] = []
    seen: dict[str, dict] = {}
    for combo in itertools.product(*grid.values()):
        coordinates = dict(zip(grid, combo, strict=True))
        values = validate_parameters(root, slug, {**base, **coordinates})
        point_id = record_id(values, 12)
        checked = {name: values[name] for name in coordinates}
        if point_id in seen:
            raise BuildError(
                f"grid file {source} lists the same point twice: {seen[point_id]} and {checked}"
            )
        seen[point_id] = checked
        points.append(Point(point_id, values, checked))
    return points


def _plain(record: object) -> dict:
    return json.loads(json.dumps(record, sort_keys=True, default=str))


def _version_changes(old: dict, new: dict) -> str:
    changed = [f"{k} {old.get(k)} -> {new.get(k)}" for k in sorted(set(old) | set(new))
               if old.get(k) != new.get(k)]  # fmt: skip
    return "package versions changed (" + ", ".join(changed) + ")"


def _differences(stored: dict, expected: dict) -> str:
    old = {**stored.get("provenance", {}), **stored}
    new = {**expected.get("provenance", {}), **expected}
    reasons = []
    for key in sorted(set(old) | set(new)):
        if key == "provenance" or old.get(key) == new.get(key):
            continue
        if key == "versions":
            reasons.append(_version_changes(old.get(key) or {}, new.get(key) or {}))
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
