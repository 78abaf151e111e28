"""A sweep's tables: ``grid.yaml``, ``results.csv`` (one provenance), ``points.csv``,
``failed.yaml``. Each is written atomically.

``grid.yaml`` and ``results.csv`` always describe the same provenance: a sweep that starts
with another provenance than the one ``grid.yaml`` records removes the old ``results.csv``
first, and ``results.csv`` is assembled only from points whose record carries the current
provenance and whose files match their hashes. Chapter CSVs are copied as text (never
parsed into numbers and printed again), so their digits reach ``results.csv`` unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dadp_book.errors import BuildError
from dadp_book.grid import Point, tag_value
from dadp_book.outputs import write_atomic
from dadp_book.points import inspect_point, read_record
from dadp_book.provenance import record_id
from dadp_book.yamlio import dump_yaml, load_yaml_file

__all__ = ["finish_sweep", "start_sweep"]

TAG_COLUMNS = ("point", "provenance", "csv")


def start_sweep(out: Path, echo: dict, provenance: dict) -> None:
    """Create the folder and write ``grid.yaml``; drop a ``results.csv`` of another provenance."""
    out.mkdir(parents=True, exist_ok=True)
    provenance_id = record_id(provenance)
    if (out / "grid.yaml").is_file():
        previous = load_yaml_file(out / "grid.yaml", "sweep record")
        if not isinstance(previous, dict) or previous.get("provenance_id") != provenance_id:
            (out / "results.csv").unlink(missing_ok=True)
    content = {**echo, "provenance_id": provenance_id, "provenance": provenance}
    write_atomic(out / "grid.yaml", lambda tmp: tmp.write_text(dump_yaml(content)))


def _frames(folder: Path, point: Point, provenance_id: str) -> list:
    import pandas as pd

    record = read_record(folder) or {}
    if record.get("provenance_id") != provenance_id:
        raise BuildError(f"point {point.point_id} has another provenance; not collected")
    frames = []
    for name in sorted(n for n in record.get("files", {}) if n.endswith(".csv")):
        try:
            frame = pd.read_csv(folder / name, dtype=str, keep_default_na=False)
        except pd.errors.EmptyDataError:
            continue
        tags = {"point": point.point_id, "provenance": provenance_id, "csv": name}
        for key, value in point.coordinates.items():
            column = key if key not in frame.columns and key not in TAG_COLUMNS else f"param_{key}"
            tags[column] = tag_value(value)
        frame = frame.rename(columns={c: f"chapter_{c}" for c in frame.columns if c in TAG_COLUMNS})
        frame = frame.assign(**{k: [v] * len(frame) for k, v in tags.items()})
        frames.append(frame[list(tags) + [c for c in frame.columns if c not in tags]])
    return frames


def _collect(out: Path, results: Sequence, points: Sequence[Point], provenance: dict):
    import pandas as pd

    provenance_id = record_id(provenance)
    frames = []
    for result, point in zip(results, points, strict=True):
        if result.status == "failed":
            continue
        folder = out / "points" / point.point_id
        verdict = inspect_point(folder, (read_record(folder) or {}).get("record") or {})
        if verdict.state != "reused":
            raise BuildError(f"point {point.point_id} changed during the sweep: {verdict.reason}")
        frames += _frames(folder, point, provenance_id)
    return pd.concat(frames, ignore_index=True) if frames else None


def _points_table(results: Sequence, points: Sequence[Point]):
    import pandas as pd

    rows = [
        {
            "point": r.point_id,
            **{k: tag_value(v) for k, v in p.coordinates.items()},
            "status": r.status,
            "reason": r.reason,
            "seconds": round(r.seconds, 2),
            "error": r.error or "",
        }
        for r, p in zip(results, points, strict=True)
    ]
    return pd.DataFrame(rows)


def finish_sweep(out: Path, results: Sequence, points: Sequence[Point], provenance: dict) -> None:
    """Write ``points.csv``, ``results.csv`` and ``failed.yaml``; print a summary."""
    table = _points_table(results, points)
    write_atomic(out / "points.csv", lambda tmp: table.to_csv(tmp, index=False))
    collected = _collect(out, results, points, provenance)
    if collected is not None:
        write_atomic(
            out / "results.csv",
            lambda tmp: collected.to_csv(tmp, index=False, lineterminator="\n"),
        )
        print(f"  {len(collected)} row(s) collected into {out / 'results.csv'}", flush=True)
    else:
        (out / "results.csv").unlink(missing_ok=True)
        print("  the chapter wrote no CSV; points.csv lists the points", flush=True)
    failed = [
        {"point": r.point_id, "parameters": r.values, "error": r.error}
        for r in results
        if r.status == "failed"
    ]
    if failed:
        write_atomic(out / "failed.yaml", lambda tmp: tmp.write_text(dump_yaml(failed)))
    else:
        (out / "failed.yaml").unlink(missing_ok=True)
    done = len(results) - len(failed)
    print(f"  {done} of {len(results)} point(s) done, {len(failed)} failed", flush=True)
