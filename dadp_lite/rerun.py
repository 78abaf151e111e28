"""Rerun one chapter with new parameters (``dadp-book run``) or over a grid (``dadp-book sweep``).

Run directory (default ``runs/<slug>-<hash of the parameters>``)::

    <slug>.ipynb          the executed notebook
    html/index.html       one-chapter Jupyter Book render (math served from html/_static/mathjax)
    *.csv                 every CSV the chapter wrote into its working directory
    params.yaml           chapter, all parameter values, overrides, seed, versions, time

Sweep directory (default ``sweeps/<slug>-<hash of the grid>``)::

    grid.yaml             the grid as given (echo), with versions
    points/<id>/          one finished point: executed notebook, CSVs, done.json (marker)
    results.csv           every CSV of every finished point, tagged with the point's values
    points.csv            one row per grid point: values, status, seconds, error
    failed.yaml           the points that failed in the last sweep (absent if none)

Every output is written into a temporary folder beside its destination and moved into place
only when complete, so a failed or interrupted run leaves nothing half-written behind.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import yaml

from dadp_lite.pipeline import (
    BuildError,
    _describe_failure,
    _versions,
    chapter_parameters,
    convert_chapter,
    describe_parameters,
    load_profile,
    render_html,
    resolve_chapter,
    resolve_chapter_links,
    validate_parameters,
)

__all__ = [
    "PointResult",
    "expand_grid",
    "load_grid",
    "load_parameter_file",
    "params_hash",
    "run_chapter",
    "sweep_chapter",
]

RUN_MARKER = "dadp_book_run"
DONE_MARKER = "done.json"


# ------------------------------------------------------------------ helpers
def params_hash(values: Mapping[str, object], length: int = 10) -> str:
    """Short, stable hash of a parameter mapping (order of keys does not matter)."""
    text = json.dumps(values, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:length]


def _load_yaml_file(path: Path, what: str) -> object:
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise BuildError(f"cannot read {what} {path}: {error.strerror}") from error
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise BuildError(f"{what} {path} is not valid YAML: {error}") from error


def load_parameter_file(path: Path) -> dict[str, object]:
    """A YAML mapping ``NAME: value`` (``-y params.yaml``); an empty file means no change."""
    content = _load_yaml_file(path, "parameter file")
    if content is None:
        return {}
    if not isinstance(content, dict):
        raise BuildError(f"parameter file {path} must map parameter names to values")
    return {str(k): v for k, v in content.items()}


def _base_parameters(root: Path, slug: str, profile: str | None) -> dict:
    return dict(load_profile(root, profile).get(slug, {})) if profile else {}


def _effective(root: Path, slug: str, overrides: Mapping[str, object]) -> dict:
    values = {p.name: p.default for p in chapter_parameters(root, slug)}
    values.update(overrides)
    return values


def _atomic_replace(tmp: Path, out: Path) -> None:
    """Move the finished ``tmp`` folder to ``out``, replacing an earlier output there."""
    old = None
    if out.exists():
        old = out.with_name(f".old-{out.name}-{os.getpid()}")
        out.rename(old)
    tmp.rename(out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _check_replaceable(out: Path, marker: str) -> None:
    if out.exists() and not (out / marker).is_file():
        raise BuildError(
            f"{out} exists and is not a dadp-book output (no {marker}); "
            "choose another --out or remove it"
        )


def _dump_yaml(content: object) -> str:
    """YAML without anchors/aliases (a JSON round trip unshares repeated lists)."""
    return yaml.safe_dump(json.loads(json.dumps(content, default=str)), sort_keys=False)


def _safe_csv_name(name: str) -> bool:
    return name.endswith(".csv") and not name.startswith(".")


# --------------------------------------------------------------- one point
def _execute_notebook_text(notebook: str, slug: str, parameters: dict) -> dict:
    """Execute a converted chapter in a private temp folder; return its files.

    Runs in a worker process (local pool or Dask worker): it needs only dadp_lite, the data
    and a ``python3`` kernel there, not the book sources. Returns ``{"files": {name: bytes},
    "seconds": float, "error": str | None}``; the files are the executed notebook and every
    CSV the chapter wrote (also on failure, for the notebook's traceback).
    """
    import papermill

    os.environ.setdefault("TQDM_DISABLE", "1")
    # Kernels must draw inline (an inherited MPLBACKEND=Agg would silently drop figures).
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    start = time.perf_counter()
    error = None
    with tempfile.TemporaryDirectory(prefix=f"dadp-{slug}-") as folder:
        work = Path(folder)
        source = work / ".source.ipynb"
        source.write_text(notebook)
        output = work / f"{slug}.ipynb"
        try:
            papermill.execute_notebook(
                str(source),
                str(output),
                parameters=parameters,
                cwd=str(work),
                kernel_name="python3",
                progress_bar=False,
                log_output=False,
            )
        except Exception as failure:  # papermill wraps cell errors; report them as text
            error = f"notebooks/{slug}.md {_describe_failure(failure)}"
        files = {
            path.name: path.read_bytes()
            for path in sorted(work.iterdir())
            if path.is_file() and (path == output or _safe_csv_name(path.name))
        }
    return {"files": files, "seconds": time.perf_counter() - start, "error": error}


def _notebook_text(root: Path, slug: str) -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = convert_chapter(root, slug, Path(folder) / f"{slug}.ipynb")
        return path.read_text()


# ---------------------------------------------------------------------- run
def _write_for_single_page(root: Path, slug: str, notebook: Path, destination: Path) -> None:
    """Copy the executed notebook, naming links to other chapters as plain text."""
    import nbformat

    content = nbformat.read(notebook, as_version=4)
    for cell in content.cells:
        if cell.cell_type == "markdown":
            cell.source = resolve_chapter_links(root, cell.source, [slug])[0]
    nbformat.write(content, destination)


def _render_single(root: Path, slug: str, notebook: Path, destination: Path) -> Path:
    """One-chapter Jupyter Book build (non-strict: links to absent pages become text)."""
    with tempfile.TemporaryDirectory(prefix=f"dadp-html-{slug}-") as folder:
        work = Path(folder)
        stage = work / "stage"
        (stage / "notebooks").mkdir(parents=True)
        (stage / "book").mkdir()
        shutil.copy2(root / "_config.yml", stage / "_config.yml")
        for name in ("references.md", "references.bib"):
            if (root / "book" / name).is_file():
                shutil.copy2(root / "book" / name, stage / "book" / name)
        toc = {"format": "jb-book", "root": f"notebooks/{slug}"}
        if (stage / "book" / "references.md").is_file():
            toc["chapters"] = [{"file": "book/references"}]
        (stage / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
        _write_for_single_page(root, slug, notebook, stage / "notebooks" / f"{slug}.ipynb")
        html = render_html(stage, work, strict=False)
        shutil.copytree(html, destination)
        shutil.copy2(work / "jupyter-book.log", destination / "jupyter-book.log")
    return destination / "index.html"


def run_chapter(
    root: Path,
    chapter: str,
    overrides: Mapping[str, object] | None = None,
    out: Path | None = None,
    profile: str | None = None,
    html: bool = True,
    runs_dir: Path | None = None,
) -> Path:
    """Execute one chapter with ``overrides`` (on top of ``profile``, if given).

    Everything is checked before execution; the run directory appears only when complete.
    Returns the run directory.
    """
    slug = resolve_chapter(root, chapter)
    values = _base_parameters(root, slug, profile)
    values.update(overrides or {})
    values = validate_parameters(root, slug, values)
    name = f"{slug}-{params_hash({'profile': profile, **values}, 8)}"
    out = Path(out or (runs_dir or root / "runs") / name).resolve()
    _check_replaceable(out, "params.yaml")
    if (out / "params.yaml").is_file():
        previous = yaml.safe_load((out / "params.yaml").read_text()) or {}
        if RUN_MARKER not in previous:
            raise BuildError(f"{out} holds a params.yaml that dadp-book did not write")
    out.parent.mkdir(parents=True, exist_ok=True)
    print(f"Running {slug} with {values or 'its defaults'} -> {out}", flush=True)
    notebook = _notebook_text(root, slug)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{out.name}-", dir=out.parent))
    try:
        result = _execute_notebook_text(notebook, slug, values)
        if result["error"]:
            raise BuildError(f"{slug} failed, nothing written: {result['error']}")
        for file_name, content in result["files"].items():
            (tmp / file_name).write_bytes(content)
        if html:
            _render_single(root, slug, tmp / f"{slug}.ipynb", tmp / "html")
        effective = _effective(root, slug, values)
        echo = {
            RUN_MARKER: 1,
            "chapter": slug,
            "profile": profile,
            "overrides": values,
            "parameters": effective,
            "seed": effective.get("SEED"),
            "execution_seconds": round(result["seconds"], 2),
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "csv": sorted(n for n in result["files"] if _safe_csv_name(n)),
        }
        if echo["seed"] is None:
            echo["seed_note"] = "the chapter declares no SEED parameter (deterministic)"
        echo["versions"] = _versions()
        (tmp / "params.yaml").write_text(_dump_yaml(echo))
        tmp.chmod(0o755)
        _atomic_replace(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"  executed in {result['seconds']:.1f} s; outputs in {out}", flush=True)
    return out


# -------------------------------------------------------------------- sweep
def load_grid(path: Path) -> dict[str, list]:
    """Grid YAML: ``NAME: [v1, v2, ...]`` per swept parameter; a scalar is a fixed value."""
    content = _load_yaml_file(path, "grid file")
    if not isinstance(content, dict) or not content:
        raise BuildError(f"grid file {path} has no points: it must map parameter names to lists")
    grid = {}
    for name, axis in content.items():
        axis = list(axis) if isinstance(axis, list) else [axis]
        if not axis:
            raise BuildError(f"grid file {path} has no points: {name} has an empty list")
        grid[str(name)] = axis
    return grid


def expand_grid(grid: Mapping[str, Sequence]) -> list[dict]:
    """Cartesian product of the grid's axes, in the order the grid lists them."""
    names = list(grid)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*grid.values())]


@dataclass
class PointResult:
    """Outcome of one grid point."""

    point_id: str
    values: dict
    status: str  # "done" (this sweep), "skipped" (done earlier) or "failed"
    seconds: float = 0.0
    error: str | None = None


def _point_job(args: tuple) -> dict:
    notebook, slug, values = args
    return _execute_notebook_text(notebook, slug, values)


def _local_runner(jobs: int) -> tuple[Callable, Callable[[], None]]:
    pool = ProcessPoolExecutor(max_workers=jobs)

    def run(tasks: list[tuple]) -> Iterator[tuple[int, dict | BaseException]]:
        futures = {pool.submit(_point_job, args): i for i, args in enumerate(tasks)}
        for future in as_completed(futures):
            error = future.exception()
            yield futures[future], error if error else future.result()

    return run, lambda: pool.shutdown(cancel_futures=True)


def _dask_runner(address: str, jobs: int, timeout: float) -> tuple[Callable, Callable]:
    try:
        from dask.distributed import Client, LocalCluster
        from dask.distributed import as_completed as dask_as_completed
    except ImportError as error:
        raise BuildError("--dask needs dask[distributed]: pip install -e '.[dask]'") from error
    cluster = None
    try:
        if address:
            client = Client(address, timeout=timeout)
        else:
            cluster = LocalCluster(
                n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
            )
            client = Client(cluster, timeout=timeout)
    except (OSError, TimeoutError) as error:
        where = address or "a local cluster"
        raise BuildError(f"cannot reach the Dask scheduler at {where}: {error}") from error
    print(f"  Dask scheduler: {client.scheduler.address}", flush=True)

    def run(tasks: list[tuple]) -> Iterator[tuple[int, dict | BaseException]]:
        futures = [client.submit(_point_job, args, pure=False) for args in tasks]
        index = {future.key: i for i, future in enumerate(futures)}
        for future in dask_as_completed(futures):
            try:
                result = future.result()
            except Exception as failure:  # a worker died or the task raised
                result = failure
            yield index[future.key], result

    def close() -> None:
        client.close()
        if cluster is not None:
            cluster.close()

    return run, close


def _tag_value(value: object) -> object:
    if isinstance(value, list | tuple):
        return value[0] if len(value) == 1 else json.dumps(list(value))
    return value


def _collect(points: Sequence[PointResult], points_dir: Path, names: Sequence[str]) -> Path | None:
    import pandas as pd

    frames = []
    for point in points:
        if point.status == "failed":
            continue
        for csv in sorted((points_dir / point.point_id).glob("*.csv")):
            frame = pd.read_csv(csv)
            tags = {"point": point.point_id, "csv": csv.name}
            for name in names:
                column = name if name not in frame.columns else f"param_{name}"
                tags[column] = _tag_value(point.values[name])
            frame = frame.assign(**{k: [v] * len(frame) for k, v in tags.items()})
            frames.append(frame[list(tags) + [c for c in frame.columns if c not in tags]])
    if not frames:
        return None
    return pd.concat(frames, ignore_index=True)


def _write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    tmp = path.with_name(f".tmp-{path.name}")
    write(tmp)
    os.replace(tmp, path)


def _write_points_table(points: Sequence[PointResult], path: Path, names: Sequence[str]) -> None:
    import pandas as pd

    rows = [
        {
            "point": p.point_id,
            **{n: _tag_value(p.values[n]) for n in names},
            "status": p.status,
            "seconds": round(p.seconds, 2),
            "error": p.error or "",
        }
        for p in points
    ]
    _write_atomic(path, lambda tmp: pd.DataFrame(rows).to_csv(tmp, index=False))


def _progress(total: int, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="sweep points", unit="point", disable=not enabled)


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
    sweeps_dir: Path | None = None,
) -> tuple[Path, list[PointResult]]:
    """Run a chapter over the Cartesian product of a grid; collect its CSVs into one.

    ``dask=None`` runs points in local processes (``jobs`` of them), ``dask=""`` on a
    dask.distributed LocalCluster, ``dask="tcp://host:port"`` on that scheduler. Points
    with a done marker are skipped. ``fixed`` values (``-p``/``-y``) apply to every point,
    on top of ``profile``; the grid's values win. Returns the sweep directory and one
    result per point.
    """
    slug = resolve_chapter(root, chapter)
    grid = load_grid(grid_path)
    base = _base_parameters(root, slug, profile)
    base.update(fixed or {})
    points = []
    for values in expand_grid(grid):
        merged = validate_parameters(root, slug, {**base, **values})
        points.append((params_hash(merged), merged))
    if len({pid for pid, _ in points}) != len(points):
        raise BuildError(f"grid file {grid_path} lists the same point twice")
    name = f"{slug}-{params_hash({'profile': profile, 'fixed': base, 'grid': grid}, 8)}"
    out = Path(out or (sweeps_dir or root / "sweeps") / name).resolve()
    _check_replaceable(out, "grid.yaml")
    jobs = max(1, jobs or min(os.cpu_count() or 1, 2))
    points_dir = out / "points"
    results: dict[int, PointResult] = {}
    todo = []
    for i, (pid, values) in enumerate(points):
        if (points_dir / pid / DONE_MARKER).is_file():
            results[i] = PointResult(pid, values, "skipped")
        else:
            todo.append(i)
    print(
        f"Sweep of {slug}: {len(points)} point(s), {len(points) - len(todo)} already done; "
        f"output {out}",
        flush=True,
    )
    run, close = (None, None)
    if todo:
        if dask is None:
            run, close = _local_runner(jobs)
        else:
            run, close = _dask_runner(dask, jobs, dask_timeout)
    points_dir.mkdir(parents=True, exist_ok=True)
    for stale in points_dir.glob(".tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)
    echo = {
        "chapter": slug,
        "profile": profile,
        "fixed": base,
        "grid": grid,
        "points": len(points),
        "versions": _versions(),
    }
    _write_atomic(out / "grid.yaml", lambda t: t.write_text(_dump_yaml(echo)))
    if todo:
        notebook = _notebook_text(root, slug)
        tasks = [(notebook, slug, points[i][1]) for i in todo]
        bar = _progress(len(tasks), progress)
        try:
            for k, outcome in run(tasks):
                i = todo[k]
                results[i] = _store_point(points_dir, *points[i], outcome)
                bar.update(1)
                if results[i].status == "failed":
                    bar.write(f"  point {results[i].point_id} FAILED: {results[i].error}")
        finally:
            bar.close()
            close()
    ordered = [results[i] for i in range(len(points))]
    _finish_sweep(out, ordered, list(grid))
    return out, ordered


def _store_point(points_dir: Path, pid: str, values: dict, outcome: object) -> PointResult:
    if isinstance(outcome, BaseException):
        return PointResult(pid, values, "failed", 0.0, f"{type(outcome).__name__}: {outcome}")
    if outcome["error"]:
        return PointResult(pid, values, "failed", outcome["seconds"], outcome["error"])
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{pid}-", dir=points_dir))
    try:
        for file_name, content in outcome["files"].items():
            (tmp / file_name).write_bytes(content)
        marker = {"parameters": values, "seconds": round(outcome["seconds"], 2)}
        (tmp / DONE_MARKER).write_text(json.dumps(marker, indent=2, default=str))
        target = points_dir / pid
        if target.exists():
            shutil.rmtree(target)
        tmp.rename(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return PointResult(pid, values, "done", outcome["seconds"])


def _finish_sweep(out: Path, points: Sequence[PointResult], names: Sequence[str]) -> None:
    _write_points_table(points, out / "points.csv", names)
    table = _collect(points, out / "points", names)
    if table is not None:
        _write_atomic(out / "results.csv", lambda tmp: table.to_csv(tmp, index=False))
        print(f"  {len(table)} row(s) collected into {out / 'results.csv'}", flush=True)
    else:
        (out / "results.csv").unlink(missing_ok=True)
        print("  the chapter wrote no CSV; points.csv lists the points", flush=True)
    failed = [p for p in points if p.status == "failed"]
    if failed:
        report = [{"point": p.point_id, "parameters": p.values, "error": p.error} for p in failed]
        text = _dump_yaml(report)
        _write_atomic(out / "failed.yaml", lambda tmp: tmp.write_text(text))
    else:
        (out / "failed.yaml").unlink(missing_ok=True)
    done = sum(p.status != "failed" for p in points)
    print(f"  {done} of {len(points)} point(s) done, {len(failed)} failed", flush=True)


def parameters_listing(root: Path, chapter: str) -> str:
    """The chapter's parameters with defaults and allowed values, one per line."""
    slug = resolve_chapter(root, chapter)
    return describe_parameters(chapter_parameters(root, slug))
