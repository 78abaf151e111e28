"""``dadp-book sweep``: one chapter over a parameter grid, results that cannot go stale.

The sweep folder (``grid.yaml``, ``points/<id>/``, ``results.csv``, ``points.csv``,
``failed.yaml``) and its guarantees are described in book/reproducibility.md ("Parameter
sweeps", "What is guaranteed"). Each table is written atomically. ``grid.yaml`` and
``results.csv`` always describe the same provenance: a sweep that starts with another one
removes the old ``results.csv`` first, and ``results.csv`` is assembled only from verified
points of the current provenance. Chapter CSVs are copied as text (never parsed into
numbers and printed again), so their digits reach ``results.csv`` unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from dadp_book.discovery import convert_chapter, resolve_chapter
from dadp_book.errors import BuildError
from dadp_book.outputs import (
    check_free_space,
    check_replaceable,
    clean_stale_temps,
    exclusive_output,
    write_atomic,
)
from dadp_book.parameters import (
    profile_values,
    validate_parameters,
)
from dadp_book.points import (
    Point,
    Verdict,
    inspect_point,
    load_grid,
    plan_points,
    read_record,
    store_point,
    tag_value,
)
from dadp_book.provenance import check_datasets, check_unchanged, record_id, sweep_provenance
from dadp_book.runners import Outcome, check_dask_address, check_jobs, dask_runner, local_runner
from dadp_book.yamlio import dump_yaml, load_yaml_file

__all__ = ["PointResult", "sweep_chapter"]

TAG_COLUMNS = ("point", "provenance", "csv")


@dataclass
class PointResult:
    """Outcome of one grid point in this sweep."""

    point_id: str
    values: dict
    status: str  # "done" (computed now), "reused" (verified, from earlier) or "failed"
    seconds: float = 0.0
    error: str | None = None
    reason: str = ""


@dataclass
class SweepPlan:
    """Everything a sweep needs, checked: its points, their records, where it writes."""

    root: Path
    slug: str
    out: Path
    points: list[Point]
    records: list[dict]
    provenance: dict
    echo: dict


def plan_sweep(
    root: Path,
    chapter: str,
    grid_path: Path,
    out: Path | None,
    profile: str | None,
    fixed: Mapping[str, object] | None,
) -> SweepPlan:
    """Check the grid and every point; compute what each point's record will be."""
    slug = resolve_chapter(root, chapter)
    grid = load_grid(grid_path)
    base = validate_parameters(root, slug, {**profile_values(root, slug, profile), **(fixed or {})})
    points = plan_points(root, slug, grid, base, grid_path)
    provenance = sweep_provenance(root, slug, profile)
    records = _records(root, slug, points, provenance)
    name = f"{slug}-{record_id({'profile': profile, 'fixed': base, 'grid': grid}, 8)}"
    out = Path(out or root / "sweeps" / name).resolve()
    check_replaceable(out, "grid.yaml")
    _check_same_chapter(out, slug)
    echo = {"chapter": slug, "profile": profile, "fixed": base, "grid": grid, "points": len(points)}
    return SweepPlan(root, slug, out, points, records, provenance, echo)


def _check_same_chapter(out: Path, slug: str) -> None:
    """A sweep folder holds the sweep of one chapter."""
    if not (out / "grid.yaml").is_file():
        return
    previous = load_yaml_file(out / "grid.yaml", "sweep record")
    chapter = previous.get("chapter") if isinstance(previous, dict) else None
    if chapter != slug:
        raise BuildError(
            f"{out} holds the sweep of {chapter}; a sweep folder holds one chapter, so "
            f"{slug} would mix with it: choose another --out"
        )


def _records(root: Path, slug: str, points: Sequence[Point], provenance: dict) -> list[dict]:
    records: list[dict] = []
    known: dict = {}
    for point in points:
        effective, datasets = check_datasets(root, slug, point.values, False, known)
        records.append({
            "provenance": provenance,
            "parameters": effective,
            "seed": effective.get("SEED"),
            "datasets": datasets,
        })  # fmt: skip
    return records


def _report(plan: SweepPlan, verdicts: Sequence[Verdict]) -> None:
    states = [v.state for v in verdicts]
    counts = {state: states.count(state) for state in ("reused", "stale", "damaged", "new")}
    print(
        f"Sweep of {plan.slug}: {len(plan.points)} point(s): {counts['reused']} already done "
        f"and verified, {counts['stale']} stale, {counts['damaged']} damaged, "
        f"{counts['new']} new; output {plan.out}",
        flush=True,
    )
    for point, verdict in zip(plan.points, verdicts, strict=True):
        if verdict.state in ("stale", "damaged"):
            print(f"  point {point.point_id} {verdict.state} ({verdict.reason}): recomputing")


def _outcome(point: Point, record: dict, outcome: Outcome, folder: Path) -> PointResult:
    """Store a finished point; a failure or another installation on the worker fails it."""
    if isinstance(outcome, BaseException):
        error = f"{type(outcome).__name__}: {outcome}"
        return PointResult(point.point_id, point.values, "failed", 0.0, error)
    if outcome.error:
        return PointResult(point.point_id, point.values, "failed", outcome.seconds, outcome.error)
    differs = [k for k, v in outcome.environment.items() if record["provenance"].get(k) != v]
    if differs:
        error = f"the worker's installation differs from this machine's ({', '.join(differs)})"
        return PointResult(point.point_id, point.values, "failed", outcome.seconds, error)
    try:
        check_unchanged(record["datasets"], outcome.loaded)
    except BuildError as error:
        return PointResult(point.point_id, point.values, "failed", outcome.seconds, str(error))
    store_point(folder, record, outcome)
    return PointResult(point.point_id, point.values, "done", outcome.seconds)


def _execute(plan: SweepPlan, todo: list[int], run, progress: bool) -> dict:
    from tqdm.auto import tqdm

    notebook = convert_chapter(plan.root, plan.slug)
    tasks = [(notebook, plan.slug, plan.points[i].values) for i in todo]
    results = {}
    bar = tqdm(total=len(tasks), desc="sweep points", unit="point", disable=not progress)
    try:
        for k, outcome in run(tasks):
            i = todo[k]
            folder = plan.out / "points" / plan.points[i].point_id
            results[i] = _outcome(plan.points[i], plan.records[i], outcome, folder)
            bar.update(1)
            if results[i].status == "failed":
                bar.write(f"  point {results[i].point_id} FAILED: {results[i].error}")
            check_free_space(plan.out, "the rest of the sweep")  # stop at once, not at the end
    finally:
        bar.close()
    return results


def _runner(todo: list[int], dask: str | None, jobs: int, timeout: float, out: Path):
    """Dask connects here, before anything is written; local scratch goes inside ``out``."""
    if not todo:
        return nullcontext(None)
    return local_runner(jobs, out) if dask is None else dask_runner(dask, jobs, timeout)


def sweep_chapter(
    root: Path,
    chapter: str,
    grid_path: Path,
    out: Path | None = None,
    profile: str | None = None,
    fixed: Mapping[str, object] | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    dask_timeout: float = 10.0,
    progress: bool = True,
) -> tuple[Path, list[PointResult]]:
    """Run a chapter over the Cartesian product of a grid; collect its CSVs into one table.

    ``dask=None`` runs points in ``jobs`` local processes, ``dask=""`` on a dask.distributed
    LocalCluster of ``jobs`` workers, ``dask="tcp://host:port"`` on that scheduler.
    ``fixed`` values (``-p``/``-y``) apply to every point, on top of ``profile``; the grid's
    values win. Everything is checked before anything is written. Returns the sweep folder
    and one result per point, in grid order.
    """
    jobs = check_jobs(jobs)
    if isinstance(dask_timeout, bool) or not dask_timeout > 0:
        raise BuildError(f"--dask-timeout must be > 0 seconds, got {dask_timeout}")
    check_dask_address(dask)
    plan = plan_sweep(root, chapter, grid_path, out, profile, fixed)
    with exclusive_output(plan.out, "a sweep"):
        _check_same_chapter(plan.out, plan.slug)  # again, now that no other sweep writes it
        folders = [plan.out / "points" / p.point_id for p in plan.points]
        verdicts = [inspect_point(f, r) for f, r in zip(folders, plan.records, strict=True)]
        _report(plan, verdicts)
        todo = [i for i, v in enumerate(verdicts) if v.state != "reused"]
        results = {
            i: PointResult(p.point_id, p.values, "reused")
            for i, p in enumerate(plan.points)
            if i not in todo
        }
        with _runner(todo, dask, jobs, dask_timeout, plan.out) as run:
            start_sweep(plan.out, plan.echo, plan.provenance)
            for folder in (plan.out, plan.out / "points"):
                clean_stale_temps(folder)
            if todo:
                results.update(_execute(plan, todo, run, progress))
            for i in todo:
                results[i].reason = f"{verdicts[i].state}: {verdicts[i].reason}".rstrip(": ")
            ordered = [results[i] for i in range(len(plan.points))]
            finish_sweep(plan.out, ordered, plan.points, plan.provenance)
    return plan.out, ordered


def start_sweep(out: Path, echo: dict, provenance: dict) -> None:
    """Create the folder and write ``grid.yaml``; drop a ``results.csv`` of another provenance."""
    out.mkdir(parents=True, exist_ok=True)
    provenance_id = record_id(provenance)
    if (out / "grid.yaml").is_file():
        previous = load_yaml_file(out / "grid.yaml", "sweep record")
        if not isinstance(previous, dict) or previous.get("provenance_id") != provenance_id:
            (out / "results.csv").unlink(missing_ok=True)
    _write_yaml(
        out / "grid.yaml", {**echo, "provenance_id": provenance_id, "provenance": provenance}
    )


def _write_yaml(path: Path, content: object) -> None:
    def write(tmp: Path) -> None:
        tmp.write_text(dump_yaml(content))

    write_atomic(path, write)


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
            out / "results.csv", lambda tmp: collected.to_csv(tmp, index=False, lineterminator="\n")
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
        _write_yaml(out / "failed.yaml", failed)
    else:
        (out / "failed.yaml").unlink(missing_ok=True)
    done = len(results) - len(failed)
    print(f"  {done} of {len(results)} point(s) done, {len(failed)} failed", flush=True)
