"""Command line: ``dadp-book build | params | run | sweep | glue | course | grade`` (see
``dadp-book --help``).

Exit status: 0 on success; 1 on refused input (a one-line ``dadp-book: error: ...`` on
stderr, nothing written) or a failed chapter; 3 when a sweep finished with failed points;
130 when interrupted (temporary folders removed); 141 when the output pipe closed.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import yaml

from dadp_book.discovery import book_root, resolve_chapter
from dadp_book.errors import BuildError
from dadp_book.parameters import PROFILES, chapter_parameters, parse_assignments
from dadp_book.yamlio import load_yaml_file
from dadp_lite.resources import LONG_ENV

__all__ = ["main"]


#: What argparse must read as a value, not an option: negative numbers in any notation
#: (``-1e-3``, ``-5e1``, ``-.5``, ``-.inf``), so ``-p EPSILONS -1e-3`` reaches the checks.
_NEGATIVE_NUMBER = re.compile(r"^-(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$|^-\.(?:inf|Inf|INF)$")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a malformed command line like any refused input (exit 1)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_NUMBER

    def error(self, message: str) -> None:
        raise BuildError(f"{message} (see '{self.prog} --help')")

    def parse_args(self, args=None, namespace=None):  # noqa: ANN001 - argparse's signature
        """As argparse's, but an unrecognized argument is shown quoted (an empty one too)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            shown = ", ".join(repr(a) for a in extras)
            empty = " (an empty argument: remove it, or quote a value)" if "" in extras else ""
            self.error(f"unrecognized argument(s): {shown}{empty}")
        return parsed


def path_argument(text: str) -> Path:
    """An argument naming a file or folder: not empty, and a UTF-8 name (a kernel, a YAML
    record and a web page must all be able to write it)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty; give a path")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise argparse.ArgumentTypeError(
            f"'{shown}' is not a UTF-8 name; rename it (or choose another path)"
        ) from None
    return Path(text)


class _Once(argparse.Action):
    """An option that may be given once: a second one is refused (not silently kept)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        if getattr(namespace, self.dest, None) is not None:
            earlier = getattr(namespace, self.dest)
            raise BuildError(
                f"{option_string} is given twice ({earlier} and {values}); give it once"
            )
        setattr(namespace, self.dest, values)


def _add_value_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("chapter", help="slug, unique prefix (e.g. 01) or path")
    command.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="set a parameter; VALUE is YAML (1, 1e-3, ma2019, [0.5, 1], data/my.csv)",
    )
    command.add_argument(
        "-y", "--yaml", type=path_argument, action=_Once, default=None,
        help="YAML file of NAME: value (once)",
    )  # fmt: skip
    command.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="start from this profile's values (default: the chapter's own defaults)",
    )
    command.add_argument(
        "--out", type=path_argument, action=_Once, default=None, help="output folder"
    )
    command.add_argument(
        "--allow-long",
        action="store_true",
        help="let the chapter run computations estimated to take more than an hour",
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dadp-book", description="Build and rerun the chapters of dadp-book.")
    parser.set_defaults(allow_long=False)
    parser.add_argument(
        "--root", type=path_argument, default=None, help="book folder (default: search up)"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="execute every chapter with papermill, render the HTML")
    build.add_argument("--profile", choices=PROFILES, default="quick")
    build.add_argument("--chapters", default=None, help="comma-separated slugs (default: all)")
    build.add_argument(
        "--with-pages",
        action="store_true",
        help="with --chapters: also run the pages that compute (errata, landing, performance)",
    )
    build.add_argument(
        "--build-dir", type=path_argument, action=_Once, default=None,
        help="default: <root>/_build",
    )  # fmt: skip
    build.add_argument("--jobs", type=int, default=None, help="parallel chapters (default: 2)")
    build.add_argument("--no-html", action="store_true", help="execute only")
    build.add_argument(
        "--force",
        action="store_true",
        help="execute every chapter again (default: reuse those whose inputs are unchanged)",
    )
    build.add_argument(
        "--pdf",
        action="store_true",
        help="also print the whole book to <build-dir>/pdf/dadp-book.pdf (Chromium)",
    )
    params = sub.add_parser("params", help="a chapter's parameters: default, type, range, meaning")
    params.add_argument("chapter")
    run = sub.add_parser("run", help="execute one chapter with your parameters")
    _add_value_options(run)
    run.add_argument("--no-html", action="store_true", help="skip the one-page HTML render")
    sweep = sub.add_parser("sweep", help="run a chapter over a parameter grid, collect its CSVs")
    _add_value_options(sweep)
    sweep.add_argument(
        "--grid", type=path_argument, action=_Once, required=True,
        help="YAML: NAME: [v1, v2, ...] (once)",
    )  # fmt: skip
    sweep.add_argument("--jobs", type=int, default=None, help="parallel points (default: 2)")
    sweep.add_argument(
        "--dask",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="a Dask scheduler (tcp://host:port or a scheduler file); a LocalCluster if none",
    )
    sweep.add_argument("--dask-timeout", type=float, default=10.0, help="seconds (default 10)")
    sweep.add_argument("--no-progress", action="store_true", help="no progress bar")
    glue = sub.add_parser("glue", help="print every glued value of a build: slug, key, value")
    glue.add_argument("build_dir", type=path_argument, metavar="BUILD_DIR")
    _add_course_commands(sub)
    return parser


def _add_course_commands(sub: argparse._SubParsersAction) -> None:
    course = sub.add_parser(
        "course", help="the course kit: student and instructor notebooks, autograder bundles"
    )
    course.add_argument("chapters", nargs="*", metavar="CHAPTER", help="default: all")
    course.add_argument("--out", type=Path, required=True, help="kit folder")
    course.add_argument("--force", action="store_true", help="replace an existing kit at --out")
    course.add_argument("--no-pdf", action="store_true", help="no solutions PDF")
    grade = sub.add_parser("grade", help="grade submitted notebooks locally: one row per question")
    grade.add_argument("kit", type=Path, metavar="DIR", help="the kit folder of 'course'")
    grade.add_argument("submissions", type=Path, metavar="SUBMISSIONS")
    grade.add_argument("--out", type=Path, default=Path("scores.csv"), help="CSV (scores.csv)")
    grade.add_argument("--jobs", type=int, default=2, help="notebooks at once (default: 2)")
    grade.add_argument("--timeout", type=float, default=60.0, help="s per cell (default: 60)")
    grade.add_argument(
        "--no-sandbox", action="store_true", help="grade WITHOUT isolating the students' code"
    )


def _overrides(root: Path, slug: str, args: argparse.Namespace) -> dict:
    values: dict = {}
    if args.yaml is not None:
        content = load_yaml_file(args.yaml, "parameter file")
        if content is not None and not isinstance(content, dict):
            raise BuildError(f"parameter file {args.yaml} must map parameter names to values")
        values = {str(k): v for k, v in (content or {}).items()}
    values.update(parse_assignments(chapter_parameters(root, slug), args.parameter))
    return values


def _cmd_build(root: Path, args: argparse.Namespace) -> int:
    from dadp_book.build import build_book

    chapters = None
    if args.chapters is not None:
        chapters = [c.strip() for c in args.chapters.split(",") if c.strip()]
    if args.pdf and args.no_html:
        raise BuildError("--pdf prints the rendered book: it cannot go with --no-html")
    html = build_book(
        root, args.profile, chapters, args.build_dir, args.jobs, not args.no_html, args.force,
        with_pages=args.with_pages,
    )  # fmt: skip
    if args.pdf:
        from dadp_book.pdf import build_pdf

        print(f"PDF written: {build_pdf(root, html.parent)}")
    return 0


def _cmd_params(root: Path, args: argparse.Namespace) -> int:
    slug = resolve_chapter(root, args.chapter)
    print(f"# {slug}: NAME: default  # type and allowed values; meaning")
    for p in chapter_parameters(root, slug):
        default = p.default if p.has_default else p.source
        line = yaml.safe_dump({p.name: default}, default_flow_style=True, width=1000)
        line = line.strip().removeprefix("{").removesuffix("}")
        declaration = p.spec.describe() if p.spec else f"UNDECLARED ({p.origin})"
        print(f"{line}  # {declaration}" + (f"; {p.meaning}" if p.meaning else ""))
    return 0


def _cmd_run(root: Path, args: argparse.Namespace) -> int:
    from dadp_book.run import run_chapter

    slug = resolve_chapter(root, args.chapter)
    overrides = _overrides(root, slug, args)
    out = run_chapter(root, slug, overrides, args.out, args.profile, not args.no_html)
    page = out / "html" / "index.html"
    print(f"Done: {out}" + (f" (open {page})" if page.is_file() else ""))
    return 0


def _cmd_sweep(root: Path, args: argparse.Namespace) -> int:
    from dadp_book.sweep import sweep_chapter

    slug = resolve_chapter(root, args.chapter)
    out, points = sweep_chapter(
        root,
        slug,
        args.grid,
        out=args.out,
        profile=args.profile,
        fixed=_overrides(root, slug, args),
        jobs=args.jobs,
        dask=args.dask,
        dask_timeout=args.dask_timeout,
        progress=not args.no_progress,
    )
    print(f"Done: {out}")
    return 3 if any(p.status == "failed" for p in points) else 0


def _cmd_glue(root: Path | None, args: argparse.Namespace) -> int:
    from dadp_book.glue import glue_lines

    for line in glue_lines(args.build_dir):
        print(line)
    return 0


def _cmd_course(root: Path, args: argparse.Namespace) -> int:
    from dadp_book.course import build_kit

    out = build_kit(root, args.chapters, args.out, force=args.force, solutions_pdf=not args.no_pdf)
    print(f"Course kit written: {out}")
    return 0


def _cmd_grade(root: Path | None, args: argparse.Namespace) -> int:
    from dadp_book.course import grade_submissions

    rows, problems = grade_submissions(
        args.kit,
        args.submissions,
        args.out,
        jobs=args.jobs,
        timeout=args.timeout,
        progress=True,
        sandbox=not args.no_sandbox,
    )
    for line in problems:
        print(line)
    students = len({row["student"] for row in rows})
    print(f"Scores written: {args.out} ({len(rows)} rows, {students} student(s))")
    return 0


def _one_line(message: str) -> str:
    """An error on one line (a failure reported by a tool may span several)."""
    return " ".join(message.split())


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``dadp-book`` command."""
    handlers = {
        "build": _cmd_build,
        "params": _cmd_params,
        "run": _cmd_run,
        "sweep": _cmd_sweep,
        "glue": _cmd_glue,
        "course": _cmd_course,
        "grade": _cmd_grade,
    }
    previous = os.environ.get(LONG_ENV)
    try:
        args = _parser().parse_args(argv)
        if args.allow_long:  # the kernels inherit it (dadp_lite.resources)
            os.environ[LONG_ENV] = "1"
        root = None if args.command in ("glue", "grade") else book_root(args.root)
        return handlers[args.command](root, args)
    except BuildError as error:
        print(f"dadp-book: error: {_one_line(str(error))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("dadp-book: interrupted; temporary folders removed", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped (``| head``)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as error:  # a disk that is full or read-only, a path under a file, ...
        where = f": {error.filename}" if error.filename else ""
        reason = error.strerror or type(error).__name__
        print(f"dadp-book: error: {reason}{where}", file=sys.stderr)
        return 1
    finally:
        if previous is None:
            os.environ.pop(LONG_ENV, None)
        else:
            os.environ[LONG_ENV] = previous


if __name__ == "__main__":
    sys.exit(main())
