"""Benchmark of the cached book build: cold, no-op, prose edit, code edit.

Copies the book's sources (config, toc, ``book/``, ``notebooks/``, ``profiles/``,
``_static/`` and the committed ``benchmarks/results``) into a temporary folder, so that the
edits never touch the repository, and builds it there four times, each time as ``make book``
does, with a new ``dadp-book build`` process (the installed ``dadp_lite``, HTML included;
the times include the process's start):

1. cold: an empty build folder (no cache, no Sphinx environment);
2. no-op: the same sources again;
3. prose: one line of Markdown added to one chapter;
4. code: one line added to one code cell of the same chapter.

Prints seconds and the ratio to the cold build, what each build executed and whether it
rendered. Targets (issue 25): no-op and prose rebuilds at most 10% of the cold build; the
code edit at most the chapter's execution time plus the render of the prose edit.

Usage: ``python benchmarks/bench_build.py [--profile quick] [--chapter 01] [--jobs 2]``.
Times depend on the machine and its load: run it on a quiet machine to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dadp_book.discovery import chapter_path, resolve_chapter
from dadp_book.outputs import interruptible

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("_config.yml", "_toc.yml", "book", "notebooks", "profiles", "_static")


def copy_book(target: Path) -> Path:
    """The book's sources in ``target`` (the committed benchmark results included)."""
    target.mkdir(parents=True)
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name)
        elif source.is_file():
            shutil.copy2(source, target / name)
    shutil.copytree(ROOT / "benchmarks" / "results", target / "benchmarks" / "results")
    return target


def edit_prose(path: Path) -> None:
    """Add one sentence after the chapter's title."""
    text = path.read_text()
    title = next(line for line in text.splitlines() if line.startswith("# "))
    path.write_text(text.replace(title, f"{title}\n\nOne more sentence of prose.", 1))


def edit_code(path: Path) -> None:
    """Add one statement at the end of the chapter's last code cell."""
    text = path.read_text()
    start = text.rindex("```{code-cell}")
    end = text.index("\n```", start)
    path.write_text(text[:end] + "\n_benchmark_edit = 1" + text[end:])


def timed_build(root: Path, build_dir: Path, profile: str, jobs: int) -> dict:
    """One ``dadp-book build`` process: seconds, pages executed, what it rendered."""
    command = [sys.executable, "-m", "dadp_book.cli", "--root", str(root), "build"]
    command += ["--profile", profile, "--build-dir", str(build_dir), "--jobs", str(jobs)]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = process.communicate()
    finally:
        if process.poll() is None:  # interrupted: the build stops its workers on SIGTERM
            process.terminate()
            process.wait()
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"the build failed:\n{stdout[-3000:]}{stderr[-3000:]}")
    timings = json.loads((build_dir / "timings.json").read_text())
    render = [line.strip() for line in stdout.splitlines() if "  html:" in line]
    built = [line for line in stdout.splitlines() if line.startswith("Book built in ")]
    inside = float(built[0].split()[3]) if built else seconds  # execution + staging + render
    return {
        "seconds": seconds,
        "execution": timings["wall_seconds"],
        "render": inside - timings["wall_seconds"],
        "start": seconds - inside,
        "executed": timings["executed"],
        "chapter_seconds": timings["chapters"],
        "total": len(timings["chapters"]) + len(timings["pages"]),
        "rendered": "rendering html" in stdout,
        "why": render[0] if render else "",
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick", choices=("quick", "full"))
    parser.add_argument("--chapter", default="01", help="the chapter edited (default 01)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    slug = resolve_chapter(ROOT, args.chapter)
    with interruptible(), tempfile.TemporaryDirectory(prefix="bench-build-") as folder:
        root = copy_book(Path(folder) / "book")
        build_dir = Path(folder) / "_build"
        rows = []
        steps = [
            ("cold build", None),
            ("no-op rebuild", None),
            (f"prose edit ({slug}, one line)", edit_prose),
            (f"code edit ({slug}, one line)", edit_code),
        ]
        for name, edit in steps:
            if edit is not None:
                edit(chapter_path(root, slug))
            rows.append((name, timed_build(root, build_dir, args.profile, args.jobs)))
    cold = rows[0][1]["seconds"]
    print(
        f"Book build benchmark: profile {args.profile}, {args.jobs} worker(s), "
        f"{os.cpu_count()} core(s); {time.strftime('%Y-%m-%d %H:%M')}; on a shared machine "
        "the times vary with its load"
    )
    print(
        f"{'build':42s} {'seconds':>8s} {'/ cold':>7s}  {'start':>6s} {'execute':>8s} "
        f"{'stage+render':>12s}  executed"
    )
    for name, row in rows:
        print(
            f"{name:42s} {row['seconds']:8.1f} {row['seconds'] / cold:7.3f}  {row['start']:6.1f} "
            f"{row['execution']:8.1f} {row['render']:12.1f}  "
            f"{len(row['executed'])} of {row['total']}"
        )
    for name, row in rows:
        print(f"  {name}: {row['why']}")
    noop, prose, code = (row for _, row in rows[1:])
    chapter = rows[0][1]["chapter_seconds"][slug]
    ran_alone = code["chapter_seconds"][slug]
    limit = ran_alone + code["render"] + code["start"]
    print(
        f"targets: no-op {noop['seconds'] / cold:.1%} of the cold build (<= 10%); prose edit "
        f"{prose['seconds'] / cold:.1%} (<= 10%); code edit {code['seconds']:.1f} s against "
        f"{slug}'s execution {ran_alone:.1f} s (in the cold build {chapter:.1f} s) + its "
        f"render {code['render']:.1f} s + process start {code['start']:.1f} s = {limit:.1f} s"
    )
    print(
        "  met: "
        + ", ".join(
            f"{what} {'yes' if ok else 'NO'}"
            for what, ok in (
                ("no-op", noop["seconds"] <= 0.1 * cold),
                ("prose", prose["seconds"] <= 0.1 * cold),
                ("code", code["seconds"] <= limit + 1.0 and len(code["executed"]) == 1),
            )
        )
    )


if __name__ == "__main__":
    main()
