"""Book pipeline: MyST notebooks -> executed .ipynb (papermill, one profile) -> HTML.

Layout of a build directory (default ``_build``)::

    _build/stage/              the book as Jupyter Book sees it (config, toc, book/, executed
                               notebooks/*.ipynb, CSVs written by chapters)
    _build/stage/notebooks/    each chapter executed here (its cwd), so its CSVs sit beside it
    _build/jb/                 Jupyter Book's own output tree
    _build/html/               the rendered book
    _build/timings.json        per-chapter execution times of the last build

Nothing is written next to the sources.
"""

from __future__ import annotations

import ast
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import yaml

__all__ = [
    "BuildError",
    "ChapterResult",
    "Parameter",
    "book_root",
    "build_book",
    "chapter_parameters",
    "convert_chapter",
    "execute_chapter",
    "list_chapters",
    "load_profile",
    "resolve_chapter",
    "validate_parameters",
]

PROFILES = ("quick", "full")
VERSIONED_PACKAGES = (
    "numpy",
    "scipy",
    "pandas",
    "matplotlib",
    "scikit-learn",
    "anonypy",
    "dp-accounting",
    "papermill",
    "jupyter-book",
    "dadp-lite",
)


class BuildError(RuntimeError):
    """A chapter failed, a parameter was refused, or the HTML build reported problems."""


@dataclass(frozen=True)
class Parameter:
    """One entry of a chapter's ``parameters`` cell."""

    name: str
    default: object
    source: str


@dataclass
class ChapterResult:
    """Outcome of executing one chapter."""

    slug: str
    seconds: float
    output: Path
    error: str | None = None
    parameters: dict = field(default_factory=dict)


# ------------------------------------------------------------------ discovery
def book_root(start: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding ``_toc.yml`` (searching upwards from ``start`` or the cwd)."""
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file() and (folder / "_config.yml").is_file():
            return folder
    raise BuildError(f"no _toc.yml/_config.yml found in {here} or its parents; run from the book")


def _toc_files(node: object) -> Iterable[str]:
    if isinstance(node, Mapping):
        if "file" in node:
            yield str(node["file"])
        for key in ("root", "parts", "chapters", "sections"):
            if key == "root" and key in node:
                yield str(node["root"])
            elif key in node:
                yield from _toc_files(node[key])
    elif isinstance(node, list):
        for item in node:
            yield from _toc_files(item)


def list_chapters(root: Path) -> list[str]:
    """Chapter slugs (``notebooks/<slug>.md``) in ``_toc.yml`` order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    slugs = []
    for entry in _toc_files(toc):
        if entry.startswith("notebooks/"):
            slug = Path(entry).name.removesuffix(".md").removesuffix(".ipynb")
            if not (root / "notebooks" / f"{slug}.md").is_file():
                raise BuildError(f"_toc.yml lists {entry} but notebooks/{slug}.md does not exist")
            slugs.append(slug)
    return slugs


def resolve_chapter(root: Path, name: str) -> str:
    """Accept a slug, a unique slug prefix (``"03"``) or a path; return the slug."""
    slugs = list_chapters(root)
    candidate = Path(name).name.removesuffix(".md").removesuffix(".ipynb")
    if candidate in slugs:
        return candidate
    matches = [s for s in slugs if s.startswith(candidate) or s.split("-", 1)[-1] == candidate]
    if len(matches) == 1:
        return matches[0]
    listing = "\n  ".join(slugs)
    raise BuildError(f"unknown chapter {name!r}; chapters in _toc.yml:\n  {listing}")


# ---------------------------------------------------------------- parameters
def _read_notebook(path: Path):
    import jupytext

    return jupytext.read(path)


def chapter_parameters(root: Path, slug: str) -> list[Parameter]:
    """Names and defaults of the chapter's ``parameters`` cell (literal values only)."""
    notebook = _read_notebook(root / "notebooks" / f"{slug}.md")
    cells = [c for c in notebook.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise BuildError(
            f"{slug}: expected exactly one cell tagged 'parameters', found {len(cells)}"
        )
    params = []
    for node in ast.parse(cells[0].source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    default = ast.literal_eval(node.value)
                except ValueError:
                    default = None
                params.append(Parameter(target.id, default, ast.unparse(node.value)))
    return params


def _type_ok(value: object, default: object) -> bool:
    if default is None:
        return True
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(default, list | tuple):
        if not isinstance(value, list | tuple):
            return False
        if default and value:
            return all(_type_ok(v, default[0]) for v in value)
        return True
    return isinstance(value, type(default))


def validate_parameters(root: Path, slug: str, values: Mapping[str, object]) -> dict:
    """Refuse unknown names and values whose type differs from the default's."""
    declared = {p.name: p for p in chapter_parameters(root, slug)}
    listing = ", ".join(f"{p.name}={p.source}" for p in declared.values())
    for name, value in values.items():
        if name not in declared:
            raise BuildError(f"{slug} has no parameter {name!r}; its parameters: {listing}")
        if not _type_ok(value, declared[name].default):
            raise BuildError(
                f"{slug}: parameter {name} must look like its default {declared[name].source}, "
                f"got {value!r}"
            )
    return dict(values)


def load_profile(root: Path, profile: str) -> dict[str, dict]:
    """Per-chapter parameters of a profile (``profiles/<profile>.yml``)."""
    if profile not in PROFILES:
        raise BuildError(f"unknown profile {profile!r}; choose one of {PROFILES}")
    path = root / "profiles" / f"{profile}.yml"
    try:
        content = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as error:
        raise BuildError(f"{path} is not valid YAML: {error}") from error
    chapters = content.get("chapters") or {}
    if not isinstance(chapters, dict):
        raise BuildError(f"{path}: 'chapters' must map chapter slugs to parameters")
    return {slug: dict(values or {}) for slug, values in chapters.items()}


# ----------------------------------------------------------------- execution
def convert_chapter(root: Path, slug: str, destination: Path) -> Path:
    """Write the MyST chapter as an (unexecuted) .ipynb at ``destination``."""
    import nbformat

    notebook = _read_notebook(root / "notebooks" / f"{slug}.md")
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    destination.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, destination)
    return destination


def _describe_failure(error: BaseException) -> str:
    ename = getattr(error, "ename", type(error).__name__)
    evalue = getattr(error, "evalue", str(error))
    cell = getattr(error, "exec_count", None)
    index = getattr(error, "cell_index", None)
    where = f"cell [{cell}]" if cell is not None else "a cell"
    if index is not None:
        where += f" (cell index {index})"
    return f"failed in {where}: {ename}: {evalue}"


def execute_chapter(
    root: Path,
    slug: str,
    parameters: Mapping[str, object],
    workdir: Path,
    output: Path | None = None,
) -> ChapterResult:
    """Convert and execute one chapter with papermill, cwd = ``workdir``."""
    import papermill

    workdir.mkdir(parents=True, exist_ok=True)
    source = convert_chapter(root, slug, workdir / ".source" / f"{slug}.ipynb")
    output = output or workdir / f"{slug}.ipynb"
    os.environ.setdefault("TQDM_DISABLE", "1")
    # Kernels must draw inline (an inherited MPLBACKEND=Agg would silently drop figures).
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    start = time.perf_counter()
    error = None
    try:
        papermill.execute_notebook(
            str(source),
            str(output),
            parameters=dict(parameters),
            cwd=str(workdir),
            kernel_name="python3",
            progress_bar=False,
            log_output=False,
        )
    except Exception as failure:  # papermill wraps cell errors; report them all the same way
        error = f"notebooks/{slug}.md {_describe_failure(failure)}"
    finally:
        shutil.rmtree(workdir / ".source", ignore_errors=True)
    return ChapterResult(slug, time.perf_counter() - start, output, error, dict(parameters))


def _execute_job(args: tuple) -> ChapterResult:
    return execute_chapter(*args)


def execute_chapters(
    root: Path, slugs: Sequence[str], profile: str, workdir: Path, jobs: int
) -> list[ChapterResult]:
    """Execute chapters in parallel processes; results in ``slugs`` order."""
    params = load_profile(root, profile)
    unknown = sorted(set(params) - set(list_chapters(root)))
    if unknown:
        raise BuildError(f"profiles/{profile}.yml names chapters not in _toc.yml: {unknown}")
    jobs_args = []
    for slug in slugs:
        values = validate_parameters(root, slug, params.get(slug, {}))
        jobs_args.append((root, slug, values, workdir))
    if jobs <= 1 or len(jobs_args) <= 1:
        results = [_execute_job(a) for a in jobs_args]
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(_execute_job, jobs_args))
    for result in results:
        state = "FAILED" if result.error else "ok"
        print(f"  {result.slug:45s} {result.seconds:7.1f} s  {state}", flush=True)
    return results


# ------------------------------------------------------------------- staging
def _filtered_toc(toc: object, keep: set[str]) -> object:
    if isinstance(toc, Mapping):
        out = {}
        for key, value in toc.items():
            if key in ("parts", "chapters", "sections"):
                kept = [_filtered_toc(item, keep) for item in value]
                kept = [item for item in kept if item is not None]
                if kept:
                    out[key] = kept
            else:
                out[key] = value
        file = out.get("file")
        if file and str(file).startswith("notebooks/") and Path(file).name not in keep:
            return None
        if "caption" in out and "chapters" not in out:
            return None
        return out
    return toc


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in VERSIONED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def _status_table(results: Sequence[ChapterResult], profile: str) -> str:
    lines = [
        "",
        f"## Last build: profile `{profile}`",
        "",
        "| chapter | execution time (s) | parameters |",
        "|---|---:|---|",
    ]
    for r in results:
        params = ", ".join(f"`{k}={v}`" for k, v in r.parameters.items()) or "defaults"
        lines.append(f"| {{doc}}`../notebooks/{r.slug}` | {r.seconds:.1f} | {params} |")
    total = sum(r.seconds for r in results)
    lines += [f"| **total (sum over chapters)** | **{total:.1f}** | |", ""]
    lines += ["## Software versions", "", "| package | version |", "|---|---|"]
    lines += [f"| {name} | {version} |" for name, version in _versions().items()]
    return "\n".join(lines) + "\n"


def stage_book(
    root: Path, stage: Path, slugs: Sequence[str], results: Sequence[ChapterResult], profile: str
) -> None:
    """Copy config, toc (filtered to ``slugs``) and prose pages next to executed notebooks."""
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(root / name, stage / name)
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    keep = {f"{s}" for s in slugs} | {f"{s}.md" for s in slugs}
    (stage / "_toc.yml").write_text(yaml.safe_dump(_filtered_toc(toc, keep), sort_keys=False))
    if (stage / "book").exists():
        shutil.rmtree(stage / "book")
    shutil.copytree(root / "book", stage / "book")
    status = stage / "book" / "status.md"
    if status.exists():
        status.write_text(status.read_text() + _status_table(results, profile))


def render_html(stage: Path, build_dir: Path, strict: bool = True) -> Path:
    """Run Jupyter Book 1.x on the stage; returns the HTML folder."""
    jb_out = build_dir / "jb"
    command = [
        sys.executable,
        "-c",
        "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
        "build",
        str(stage),
        "--path-output",
        str(jb_out),
        "--builder",
        "html",
    ]
    if strict:
        command += ["-n", "-W", "--keep-going"]
    print("  rendering HTML:", " ".join(command[2:]), flush=True)
    completed = subprocess.run(command, capture_output=True, text=True)
    log = completed.stdout + completed.stderr
    (build_dir / "jupyter-book.log").write_text(log)
    if completed.returncode != 0:
        problems = [ln for ln in log.splitlines() if "WARNING" in ln or "ERROR" in ln]
        shown = "\n".join(problems[:40]) or log[-3000:]
        raise BuildError(f"Jupyter Book reported problems (strict mode):\n{shown}")
    html = build_dir / "html"
    if html.exists():
        shutil.rmtree(html)
    shutil.copytree(jb_out / "_build" / "html", html)
    return html


def build_book(
    root: Path,
    profile: str = "quick",
    chapters: Sequence[str] | None = None,
    build_dir: Path | None = None,
    jobs: int | None = None,
    html: bool = True,
) -> Path:
    """Execute the chapters of a profile and render the book; returns the HTML folder."""
    build_dir = Path(build_dir or root / "_build").resolve()
    stage = build_dir / "stage"
    slugs = [resolve_chapter(root, c) for c in chapters] if chapters else list_chapters(root)
    stage.mkdir(parents=True, exist_ok=True)
    jobs = jobs or min(os.cpu_count() or 1, 2)
    print(f"Executing {len(slugs)} chapter(s) with profile '{profile}' ({jobs} worker(s))")
    start = time.perf_counter()
    results = execute_chapters(root, slugs, profile, stage / "notebooks", jobs)
    timings = {
        "profile": profile,
        "wall_seconds": time.perf_counter() - start,
        "chapters": {r.slug: r.seconds for r in results},
    }
    (build_dir / "timings.json").write_text(json.dumps(timings, indent=2))
    failures = [r.error for r in results if r.error]
    if failures:
        raise BuildError("chapter execution failed:\n" + "\n".join(failures))
    if not html:
        return stage / "notebooks"
    stage_book(root, stage, slugs, results, profile)
    out = render_html(stage, build_dir)
    print(f"Book built in {time.perf_counter() - start:.0f} s: {out / 'index.html'}")
    return out
