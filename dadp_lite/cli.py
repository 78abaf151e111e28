"""Command line: ``dadp-book build | params | run | sweep`` (see ``dadp-book --help``).

Exit status: 0 on success, 1 on refused input or a failed chapter (message on stderr),
2 on a malformed command line (argparse), 3 when a sweep finished with failed points.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from dadp_lite.pipeline import (
    PROFILES,
    BuildError,
    book_root,
    build_book,
    chapter_parameters,
    parse_assignments,
    resolve_chapter,
)

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dadp-book",
        description="Build and rerun the chapters of dadp-book.",
    )
    parser.add_argument("--root", type=Path, default=None, help="book folder (default: search up)")
    sub = parser.add_subparsers(dest="command", required=True)

    build = sub.add_parser("build", help="execute every chapter with papermill, render the HTML")
    build.add_argument("--profile", choices=PROFILES, default="quick")
    build.add_argument("--chapters", default=None, help="comma-separated slugs (default: all)")
    build.add_argument("--build-dir", type=Path, default=None, help="default: <root>/_build")
    build.add_argument("--jobs", type=int, default=None, help="parallel chapters (default: 2)")
    build.add_argument("--no-html", action="store_true", help="execute only")

    params = sub.add_parser("params", help="list a chapter's parameters and defaults")
    params.add_argument("chapter")

    run = sub.add_parser(
        "run",
        help="execute one chapter with your parameters (notebook, HTML, CSVs, params.yaml)",
        description="Execute one chapter with new parameter values. Values are checked "
        "(names, types, allowed ranges) before anything runs.",
    )
    run.add_argument("chapter", help="slug, unique prefix (e.g. 01) or path")
    _add_value_options(run)
    run.add_argument("--out", type=Path, default=None, help="default: runs/<slug>-<hash>")
    run.add_argument("--no-html", action="store_true", help="skip the one-page HTML render")

    sweep = sub.add_parser(
        "sweep",
        help="run a chapter over a parameter grid and collect its CSVs into one table",
        description="Run a chapter at every point of the Cartesian product of the grid's "
        "lists; points already done are skipped.",
    )
    sweep.add_argument("chapter", help="slug, unique prefix (e.g. 01) or path")
    sweep.add_argument("--grid", type=Path, required=True, help="YAML: NAME: [v1, v2, ...]")
    _add_value_options(sweep)
    sweep.add_argument("--out", type=Path, default=None, help="default: sweeps/<slug>-<hash>")
    sweep.add_argument("--jobs", type=int, default=None, help="parallel points (default: 2)")
    sweep.add_argument(
        "--dask",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run on a Dask scheduler (tcp://host:port), or a LocalCluster if no address",
    )
    sweep.add_argument("--dask-timeout", type=float, default=10.0, help="seconds (default 10)")
    sweep.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def _add_value_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="set a parameter; VALUE is YAML (1, 0.5, ma2019, [0.5, 1])",
    )
    command.add_argument(
        "-y", "--yaml", type=Path, default=None, help="YAML file of NAME: value pairs"
    )
    command.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="start from this profile's values (default: the chapter's own defaults)",
    )


def _overrides(root: Path, slug: str, args: argparse.Namespace) -> dict:
    from dadp_lite.rerun import load_parameter_file

    values = load_parameter_file(args.yaml) if args.yaml else {}
    values.update(parse_assignments(chapter_parameters(root, slug), args.parameter))
    return values


def _cmd_build(root: Path, args: argparse.Namespace) -> int:
    chapters = [c for c in args.chapters.split(",") if c] if args.chapters else None
    build_book(
        root,
        profile=args.profile,
        chapters=chapters,
        build_dir=args.build_dir,
        jobs=args.jobs,
        html=not args.no_html,
    )
    return 0


def _cmd_params(root: Path, args: argparse.Namespace) -> int:
    slug = resolve_chapter(root, args.chapter)
    print(f"# parameters of {slug} (defaults; allowed values after #)")
    for parameter in chapter_parameters(root, slug):
        line = yaml.safe_dump({parameter.name: parameter.default}, default_flow_style=None)
        line = line.strip()
        if parameter.allowed is not None:
            each = "each " if isinstance(parameter.default, list | tuple) else ""
            line += f"  # {each}{parameter.allowed.describe()}"
        print(line)
    return 0


def _cmd_run(root: Path, args: argparse.Namespace) -> int:
    from dadp_lite.rerun import run_chapter

    slug = resolve_chapter(root, args.chapter)
    out = run_chapter(
        root,
        slug,
        _overrides(root, slug, args),
        out=args.out,
        profile=args.profile,
        html=not args.no_html,
    )
    page = out / "html" / "index.html"
    print(f"Done: {out}" + (f" (open {page})" if page.is_file() else ""))
    return 0


def _cmd_sweep(root: Path, args: argparse.Namespace) -> int:
    from dadp_lite.rerun import sweep_chapter

    slug = resolve_chapter(root, args.chapter)
    if args.jobs is not None and args.jobs < 1:
        raise BuildError(f"--jobs must be >= 1, got {args.jobs}")
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
    failed = [p for p in points if p.status == "failed"]
    print(f"Done: {out}")
    return 3 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``dadp-book`` command."""
    args = _parser().parse_args(argv)
    try:
        root = book_root(args.root)
        handler = {
            "build": _cmd_build,
            "params": _cmd_params,
            "run": _cmd_run,
            "sweep": _cmd_sweep,
        }[args.command]
        return handler(root, args)
    except BuildError as error:
        print(f"dadp-book: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
