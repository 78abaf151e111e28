"""Command line: ``dadp-book build | params | run | sweep | glue`` (see ``dadp-book --help``).

Exit status: 0 on success; 1 on refused input (a one-line ``dadp-book: error: ...`` on
stderr, nothing written) or a failed chapter; 3 when a sweep finished with failed points;
130 when interrupted (temporary folders removed); 141 when the output pipe closed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import yaml

from dadp_lite.book.discovery import book_root, resolve_chapter
from dadp_lite.book.errors import BuildError
from dadp_lite.book.parameters import PROFILES, chapter_parameters, parse_assignments
from dadp_lite.book.yamlio import load_yaml_file

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """argparse that reports a malformed command line like any refused input (exit 1)."""

    def error(self, message: str) -> None:
        raise BuildError(f"{message} (see '{self.prog} --help')")


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
    command.add_argument("-y", "--yaml", type=Path, default=None, help="YAML file of NAME: value")
    command.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="start from this profile's values (default: the chapter's own defaults)",
    )
    command.add_argument("--out", type=Path, default=None, help="output folder")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dadp-book", description="Build and rerun the chapters of dadp-book.")
    parser.add_argument("--root", type=Path, default=None, help="book folder (default: search up)")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="execute every chapter with papermill, render the HTML")
    build.add_argument("--profile", choices=PROFILES, default="quick")
    build.add_argument("--chapters", default=None, help="comma-separated slugs (default: all)")
    build.add_argument("--build-dir", type=Path, default=None, help="default: <root>/_build")
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
    sweep.add_argument("--grid", type=Path, required=True, help="YAML: NAME: [v1, v2, ...]")
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
    glue.add_argument("build_dir", type=Path, metavar="BUILD_DIR")
    return parser


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
    from dadp_lite.book.build import build_book

    chapters = None
    if args.chapters is not None:
        chapters = [c.strip() for c in args.chapters.split(",") if c.strip()]
    if args.pdf and args.no_html:
        raise BuildError("--pdf prints the rendered book: it cannot go with --no-html")
    html = build_book(
        root, args.profile, chapters, args.build_dir, args.jobs, not args.no_html, args.force
    )
    if args.pdf:
        from dadp_lite.book.pdf import build_pdf

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
    from dadp_lite.book.run import run_chapter

    slug = resolve_chapter(root, args.chapter)
    overrides = _overrides(root, slug, args)
    out = run_chapter(root, slug, overrides, args.out, args.profile, not args.no_html)
    page = out / "html" / "index.html"
    print(f"Done: {out}" + (f" (open {page})" if page.is_file() else ""))
    return 0


def _cmd_sweep(root: Path, args: argparse.Namespace) -> int:
    from dadp_lite.book.sweep import sweep_chapter

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
    from dadp_lite.book.glue import glue_lines

    for line in glue_lines(args.build_dir):
        print(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``dadp-book`` command."""
    handlers = {
        "build": _cmd_build,
        "params": _cmd_params,
        "run": _cmd_run,
        "sweep": _cmd_sweep,
        "glue": _cmd_glue,
    }
    try:
        args = _parser().parse_args(argv)
        root = None if args.command == "glue" else book_root(args.root)
        return handlers[args.command](root, args)
    except BuildError as error:
        print(f"dadp-book: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("dadp-book: interrupted; temporary folders removed", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped (``| head``)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
