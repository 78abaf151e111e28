"""Command line: ``dadp-book build | params | run`` (see ``dadp-book --help``)."""

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
    return parser


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
    print(f"# parameters of {slug} (defaults)")
    for parameter in chapter_parameters(root, slug):
        print(yaml.safe_dump({parameter.name: parameter.default}, default_flow_style=None).strip())
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``dadp-book`` command."""
    args = _parser().parse_args(argv)
    try:
        root = book_root(args.root)
        handler = {"build": _cmd_build, "params": _cmd_params}[args.command]
        return handler(root, args)
    except BuildError as error:
        print(f"dadp-book: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
