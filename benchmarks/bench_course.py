"""Grading a class in the sandbox: the simulated class of the tests, or N copies of each notebook.

Builds the course kit and, by default, the class of ``tests/test_course_class.py`` (thirteen
kinds of hand-in for chapters 03 and 05, two of them with a runaway answer, plus the
instructor's and the blank notebook of every chapter); with ``--students N``, N students
who each hand in every student notebook unchanged (a full execution, as an answered one).
It grades them with ``dadp-book grade``'s engine at ``--jobs`` and ``--timeout``. Prints the
wall time, the CPU time of the grading processes and their kernels (``RUSAGE_CHILDREN``,
counted once every process has ended) and both per notebook, and the load average before
and after: on a shared machine the wall time depends on the other processes, the CPU time
much less; on an idle machine the wall time is about CPU / jobs (plus the time limits the
runaway answers use up). CPU time counts the grader and, as each sandbox reports it, the
students' interpreters.

Run: ``python benchmarks/bench_course.py [--students 30] [--jobs 2] [--chapters 03 04]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from dadp_book.course import build_kit, grade_submissions
from dadp_book.course.grade import STATS
from dadp_book.discovery import book_root


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=0, help="default: the tests' class")
    parser.add_argument("--timeout", type=float, default=20.0, help="s per cell (20)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--chapters", nargs="*", default=None, help="default: every chapter")
    args = parser.parse_args()
    root = book_root(Path(__file__).parent)
    with tempfile.TemporaryDirectory(prefix="bench-course-") as tmp:
        chapters = None if not args.students else args.chapters
        kit = build_kit(root, chapters, Path(tmp) / "kit", solutions_pdf=False)
        notebooks = sorted((kit / "student").glob("*.ipynb"))
        subs = Path(tmp) / "submissions"
        if args.students:
            for student in range(args.students):
                folder = subs / f"student{student:02d}"
                folder.mkdir(parents=True)
                for notebook in notebooks:
                    shutil.copy(notebook, folder)
        else:
            sys.path.insert(0, str(root))
            from tests.test_course_class import _class

            (Path(tmp) / "host").mkdir()
            _class(kit, subs, Path(tmp) / "host")
        count = sum(1 for p in subs.rglob("*.ipynb"))
        load_before = os.getloadavg()[0]
        cpu, start = _children_cpu() + STATS["cpu"], time.perf_counter()
        rows, problems = grade_submissions(
            kit, subs, Path(tmp) / "out" / "scores.csv", jobs=args.jobs, timeout=args.timeout
        )
        wall = time.perf_counter() - start
        cpu = (
            _children_cpu() + STATS["cpu"] + resource.getrusage(resource.RUSAGE_SELF).ru_utime - cpu
        )
    students = len({r["student"] for r in rows})
    print(
        f"{students} students, {count} notebooks, {len(rows)} rows, {len(problems)} problem "
        f"line(s), jobs={args.jobs}, timeout {args.timeout:g} s per cell, {os.cpu_count()} cores"
    )
    print(f"wall time   {wall:8.1f} s   ({wall / count:.2f} s per notebook)")
    runaway = 2 * (args.timeout + 3) / args.jobs if not args.students else 0.0
    waiting = f", of which {runaway:.0f} s waiting for the two runaway answers" if runaway else ""
    print(
        f"CPU time    {cpu:8.1f} s   ({cpu / count:.2f} s per notebook, sandboxes and grader; "
        f"idle-machine wall time about {cpu / args.jobs + runaway:.0f} s{waiting})"
    )
    print(f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
