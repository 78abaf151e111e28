"""Grading a class: 30 students' copies of the student notebooks, on 2 grading processes.

Builds the course kit, hands every student notebook of the chosen chapters to ``--students``
students unchanged (each notebook runs to the end and scores 0: a full execution, as an
answered one), and grades them with ``dadp-book grade``'s engine at ``--jobs``. Prints the
wall time, the CPU time of the grading processes and their kernels (``RUSAGE_CHILDREN``,
counted once every process has ended) and both per notebook, and the load average before
and after: on a shared machine the wall time depends on the other processes, the CPU time
much less; on an idle machine the wall time is about CPU / jobs.

Run: ``python benchmarks/bench_course.py [--students 30] [--jobs 2] [--chapters 03 04]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from dadp_book.course import build_kit, grade_submissions
from dadp_book.discovery import book_root


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--chapters", nargs="*", default=None, help="default: every chapter")
    args = parser.parse_args()
    root = book_root(Path(__file__).parent)
    with tempfile.TemporaryDirectory(prefix="bench-course-") as tmp:
        kit = build_kit(root, args.chapters, Path(tmp) / "kit")
        notebooks = sorted((kit / "student").glob("*.ipynb"))
        for student in range(args.students):
            folder = Path(tmp) / "submissions" / f"student{student:02d}"
            folder.mkdir(parents=True)
            for notebook in notebooks:
                shutil.copy(notebook, folder)
        count = args.students * len(notebooks)
        load_before = os.getloadavg()[0]
        cpu, start = _children_cpu(), time.perf_counter()
        rows, problems = grade_submissions(
            kit, Path(tmp) / "submissions", Path(tmp) / "scores.csv", jobs=args.jobs
        )
        wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    assert not problems, problems
    print(
        f"class of {args.students} students x {len(notebooks)} chapters = {count} notebooks, "
        f"{len(rows)} rows, jobs={args.jobs}, {os.cpu_count()} cores"
    )
    print(f"wall time   {wall:8.1f} s   ({wall / count:.2f} s per notebook)")
    print(
        f"CPU time    {cpu:8.1f} s   ({cpu / count:.2f} s per notebook; "
        f"idle-machine wall time about {cpu / args.jobs:.0f} s)"
    )
    print(f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
