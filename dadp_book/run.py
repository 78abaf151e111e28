"""``dadp-book run``: execute one chapter with a reader's parameters.

Run folder (default ``runs/<slug>-<hash of the values>``)::

    <slug>.ipynb          the executed notebook
    html/index.html       one-chapter Jupyter Book render (math served from html/_static)
    *.csv                 every file the chapter wrote into its working folder
    params.yaml           chapter, every value, overrides, seed, datasets (path, SHA-256,
                          rows), chapter and package hashes, versions, time

The folder appears complete or not at all (a refused value, a failing cell or an
interruption leaves nothing behind); it holds the run of one chapter, written by one run at
a time. Dataset files are checked before the kernel starts, and a run whose kernel read
other bytes than those checked fails: ``params.yaml`` holds the hash of the bytes read.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from dadp_book.discovery import chapter_path, convert_chapter, resolve_chapter
from dadp_book.errors import BuildError
from dadp_book.execute import Execution, execute_notebook
from dadp_book.outputs import (
    atomic_replace,
    check_replaceable,
    clean_stale_temps,
    exclusive_output,
    temp_folder,
)
from dadp_book.parameters import profile_values, validate_parameters
from dadp_book.provenance import check_datasets, check_unchanged, file_sha256, record_id, versions
from dadp_book.render import render_single_chapter
from dadp_book.yamlio import dump_yaml, load_yaml_file

__all__ = ["RUN_MARKER", "run_chapter"]

RUN_MARKER = "dadp_book_run"


def _check_output(out: Path, slug: str) -> None:
    check_replaceable(out, "params.yaml")
    if (out / "params.yaml").is_file():
        previous = load_yaml_file(out / "params.yaml", "run record")
        if not isinstance(previous, dict) or RUN_MARKER not in previous:
            raise BuildError(f"{out} holds a params.yaml that dadp-book did not write")
        if previous.get("chapter") != slug:
            raise BuildError(
                f"{out} holds the run of {previous.get('chapter')}; a run folder holds one "
                f"chapter, so {slug} would replace it: choose another --out"
            )


def _shown(values: dict) -> str:
    """The values for the 'Running' line, cut short if long."""
    text = str(values) if values else "its defaults"
    return text if len(text) <= 300 else text[:300] + " ..."


def _record(
    root: Path, slug: str, profile: str | None, values: dict, effective: dict, datasets: dict,
    result: Execution,
) -> dict:  # fmt: skip
    record = {
        RUN_MARKER: 1,
        "chapter": slug,
        "chapter_sha256": file_sha256(chapter_path(root, slug)),
        "profile": profile,
        "overrides": values,
        "parameters": effective,
        "seed": effective.get("SEED"),
        "datasets": datasets,
        "execution_seconds": round(result.seconds, 2),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "files": sorted(result.files),
        **result.environment,
    }
    if record["seed"] is None:
        record["seed_note"] = "the chapter declares no SEED parameter (deterministic)"
    record["versions"] = versions()
    return record


def run_chapter(
    root: Path,
    chapter: str,
    overrides: Mapping[str, object] | None = None,
    out: Path | None = None,
    profile: str | None = None,
    html: bool = True,
    runs_dir: Path | None = None,
) -> Path:
    """Execute one chapter with ``overrides`` on top of ``profile``; returns the run folder.
    Every value is checked (and every dataset located) before the kernel starts."""
    slug = resolve_chapter(root, chapter)
    values = validate_parameters(
        root, slug, {**profile_values(root, slug, profile), **(overrides or {})}
    )
    effective, datasets = check_datasets(root, slug, values, locate=True)
    name = f"{slug}-{record_id({'profile': profile, **values}, 8)}"
    out = Path(out or (runs_dir or root / "runs") / name).resolve()
    _check_output(out, slug)
    with exclusive_output(out, "a run"):
        _check_output(out, slug)  # again, now that no other run can write it
        with temp_folder(out.parent, out.name) as tmp:
            clean_stale_temps(out.parent)
            notebook = convert_chapter(root, slug)
            print(f"Running {slug} with {_shown(values)} -> {out}", flush=True)
            result = execute_notebook(notebook, slug, values, scratch=tmp)
            if result.error:
                raise BuildError(f"{slug} failed, nothing written: {result.error}")
            check_unchanged(datasets, result.loaded)
            executed = result.save(tmp)
            if html:
                render_single_chapter(root, slug, executed, tmp / "html")
            record = _record(root, slug, profile, values, effective, datasets, result)
            (tmp / "params.yaml").write_text(dump_yaml(record))
            atomic_replace(tmp, out)
    print(f"  executed in {result.seconds:.1f} s; outputs in {out}", flush=True)
    return out
