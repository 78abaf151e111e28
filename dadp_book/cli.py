"""Command line: ``dadp-book build | params | run | sweep | glue | course | grade`` (see
``dadp-book --help``), on click.

Exit status: 0 on success; 1 on refused input (a one-line ``dadp-book: error: ...`` on
stderr, nothing written) or a failed chapter; 3 when a sweep finished with failed points;
130 when interrupted (temporary folders removed); 141 when the output pipe closed.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import click
import yaml

from dadp_book.discovery import book_root, resolve_chapter
from dadp_book.errors import BuildError
from dadp_book.parameters import PROFILES, chapter_parameters, parse_assignments
from dadp_book.yamlio import load_yaml_file
from dadp_lite.resources import LONG_ENV

__all__ = ["main"]

_CHAPTER = "CHAPTER: a slug, a unique prefix (e.g. 01) or a path"
#: Unknown arguments reach the command (``ctx.args``), which names them all, quoted.
_EXTRAS = {"allow_extra_args": True, "ignore_unknown_options": True}


def _see_help(ctx: click.Context | None) -> str:
    return f" (see '{ctx.command_path if ctx else 'dadp-book'} --help')"


class _PathType(click.ParamType):
    """An argument naming a file or folder: not empty, and a UTF-8 name (a kernel, a YAML
    record and a web page must all be able to write it)."""

    name = "path"

    def convert(self, value, param, ctx):  # noqa: ANN001, ANN201 - click's signature
        shown = str(value).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        reason = "is empty; give a path" if not str(value).strip() else None
        if shown != str(value):
            reason = f"'{shown}' is not a UTF-8 name; rename it (or choose another path)"
        if reason:
            where = "/".join(param.opts) if param is not None else "path"
            raise BuildError(f"argument {where}: {reason}{_see_help(ctx)}")
        return Path(value)


PATH = _PathType()


def _once(ctx: click.Context, param: click.Parameter, values: tuple) -> object:
    """An option that may be given once: a second one is refused (not silently kept)."""
    if len(values) > 1:
        raise BuildError(
            f"{'/'.join(param.opts)} is given twice ({values[0]} and {values[1]}); give it once"
        )
    return values[0] if values else None


def _once_option(*names: str, **kwargs) -> Callable:
    return click.option(*names, type=PATH, multiple=True, callback=_once, **kwargs)


def _value_options(command: Callable) -> Callable:
    """The options of ``run`` and ``sweep``: a chapter and the values to give it."""
    for option in reversed([
        click.argument("chapter"),
        click.option(
            "-p", "--parameter", nargs=2, multiple=True, metavar="NAME VALUE",
            help="set a parameter; VALUE is YAML (1, 1e-3, ma2019, [0.5, 1], data/my.csv)",
        ),
        _once_option("-y", "--yaml", help="YAML file of NAME: value (once)"),
        click.option(
            "--profile", type=click.Choice(PROFILES), default=None,
            help="start from this profile's values (default: the chapter's own defaults)",
        ),
        _once_option("--out", help="output folder"),
        click.option(
            "--allow-long", is_flag=True,
            help="let the chapter run computations estimated to take more than an hour",
        ),
    ]):  # fmt: skip
        command = option(command)
    return command


def _command(group: click.Group, name: str, help: str, arguments: str = "") -> Callable:
    """A subcommand that refuses unknown arguments and hands a namespace to its handler."""

    def decorate(handler: Callable[[Path | None, SimpleNamespace], int]) -> click.Command:
        @functools.wraps(handler)  # its options too (click keeps them in __click_params__)
        @click.pass_context
        def callback(ctx: click.Context, **params) -> int:
            if ctx.args:
                shown = ", ".join(repr(a) for a in ctx.args)
                empty = " (an empty argument: remove it, or quote a value)" * ("" in ctx.args)
                raise BuildError(f"unrecognized argument(s): {shown}{empty}{_see_help(ctx)}")
            args = SimpleNamespace(**{"allow_long": False, **params})
            if args.allow_long:  # the kernels inherit it (dadp_lite.resources)
                os.environ[LONG_ENV] = "1"
            root = ctx.find_root().params["root"]
            return handler(None if name in ("glue", "grade") else book_root(root), args)

        text = f"{help}\n\n{arguments}" if arguments else help  # click's arguments have no help
        command = group.command(name, help=text, short_help=help, context_settings=_EXTRAS)
        return command(callback)

    return decorate


@click.group("dadp-book", invoke_without_command=True)
@click.option("--root", type=PATH, default=None, help="book folder (default: search up)")
@click.pass_context
def cli(ctx: click.Context, root: Path | None) -> None:
    """Build and rerun the chapters of dadp-book."""
    if ctx.invoked_subcommand is None:
        raise BuildError(f"the following arguments are required: command{_see_help(ctx)}")


def _overrides(root: Path, slug: str, args: SimpleNamespace) -> dict:
    values: dict = {}
    if args.yaml is not None:
        content = load_yaml_file(args.yaml, "parameter file")
        if content is not None and not isinstance(content, dict):
            raise BuildError(f"parameter file {args.yaml} must map parameter names to values")
        values = {str(k): v for k, v in (content or {}).items()}
    values.update(parse_assignments(chapter_parameters(root, slug), list(args.parameter)))
    return values


@_command(cli, "build", "execute every chapter with papermill, render the HTML")
@click.option("--profile", type=click.Choice(PROFILES), default="quick")
@click.option("--chapters", default=None, help="comma-separated slugs (default: all)")
@click.option(
    "--with-pages",
    is_flag=True,
    help="with --chapters: also run the pages that compute (errata, landing, performance)",
)
@_once_option("--build-dir", help="default: <root>/_build")
@click.option("--jobs", type=int, default=None, help="parallel chapters (default: 2)")
@click.option("--no-html", is_flag=True, help="execute only")
@click.option(
    "--force",
    is_flag=True,
    help="execute every chapter again (default: reuse those whose inputs are unchanged)",
)
@click.option(
    "--pdf",
    is_flag=True,
    help="also print the whole book to <build-dir>/pdf/dadp-book.pdf (Chromium)",
)
def _cmd_build(root: Path, args: SimpleNamespace) -> int:
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


@_command(cli, "params", "a chapter's parameters: default, type, range, meaning", _CHAPTER)
@click.argument("chapter")
def _cmd_params(root: Path, args: SimpleNamespace) -> int:
    slug = resolve_chapter(root, args.chapter)
    print(f"# {slug}: NAME: default  # type and allowed values; meaning")
    for p in chapter_parameters(root, slug):
        default = p.default if p.has_default else p.source
        line = yaml.safe_dump({p.name: default}, default_flow_style=True, width=1000)
        line = line.strip().removeprefix("{").removesuffix("}")
        declaration = p.spec.describe() if p.spec else f"UNDECLARED ({p.origin})"
        print(f"{line}  # {declaration}" + (f"; {p.meaning}" if p.meaning else ""))
    return 0


@_command(cli, "run", "execute one chapter with your parameters", _CHAPTER)
@_value_options
@click.option("--no-html", is_flag=True, help="skip the one-page HTML render")
def _cmd_run(root: Path, args: SimpleNamespace) -> int:
    from dadp_book.run import run_chapter

    slug = resolve_chapter(root, args.chapter)
    overrides = _overrides(root, slug, args)
    out = run_chapter(root, slug, overrides, args.out, args.profile, not args.no_html)
    page = out / "html" / "index.html"
    print(f"Done: {out}" + (f" (open {page})" if page.is_file() else ""))
    return 0


@_command(cli, "sweep", "run a chapter over a parameter grid, collect its CSVs", _CHAPTER)
@_value_options
@_once_option("--grid", required=True, help="YAML: NAME: [v1, v2, ...] (once)")
@click.option("--jobs", type=int, default=None, help="parallel points (default: 2)")
@click.option(
    "--dask",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="ADDRESS",
    help="a Dask scheduler (tcp://host:port or a scheduler file); a LocalCluster if none",
)
@click.option("--dask-timeout", type=float, default=10.0, help="seconds (default 10)")
@click.option("--no-progress", is_flag=True, help="no progress bar")
def _cmd_sweep(root: Path, args: SimpleNamespace) -> int:
    from dadp_book.sweep import sweep_chapter

    slug = resolve_chapter(root, args.chapter)
    out, points = sweep_chapter(
        root, slug, args.grid, args.out, args.profile, _overrides(root, slug, args), args.jobs,
        dask=args.dask, dask_timeout=args.dask_timeout, progress=not args.no_progress,
    )  # fmt: skip
    print(f"Done: {out}")
    return 3 if any(p.status == "failed" for p in points) else 0


@_command(cli, "glue", "print every glued value of a build: slug, key, value")
@click.argument("build_dir", type=PATH, metavar="BUILD_DIR")
def _cmd_glue(root: Path | None, args: SimpleNamespace) -> int:
    from dadp_book.glue import glue_lines

    for line in glue_lines(args.build_dir):
        print(line)
    return 0


@_command(
    cli,
    "course",
    "the course kit: student and instructor notebooks, autograder bundles",
    "CHAPTER: the chapters of the kit (default: all)",
)
@click.argument("chapters", nargs=-1, metavar="[CHAPTER]...")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="kit folder")
@click.option("--force", is_flag=True, help="replace an existing kit at --out")
@click.option("--no-pdf", is_flag=True, help="no solutions PDF")
def _cmd_course(root: Path, args: SimpleNamespace) -> int:
    from dadp_book.course import build_kit

    out = build_kit(
        root, list(args.chapters), args.out, force=args.force, solutions_pdf=not args.no_pdf
    )
    print(f"Course kit written: {out}")
    return 0


@_command(
    cli,
    "grade",
    "grade submitted notebooks locally: one row per question",
    "DIR: the kit folder of 'course'; SUBMISSIONS: the folder of submitted notebooks",
)
@click.argument("kit", type=click.Path(path_type=Path), metavar="DIR")
@click.argument("submissions", type=click.Path(path_type=Path), metavar="SUBMISSIONS")
@click.option("--out", type=click.Path(path_type=Path), default=Path("scores.csv"),
              help="CSV (scores.csv)")  # fmt: skip
@click.option("--jobs", type=int, default=2, help="notebooks at once (default: 2)")
@click.option("--timeout", type=float, default=60.0, help="s per cell (default: 60)")
@click.option("--no-sandbox", is_flag=True, help="grade WITHOUT isolating the students' code")
def _cmd_grade(root: Path | None, args: SimpleNamespace) -> int:
    from dadp_book.course import grade_submissions

    rows, problems = grade_submissions(
        args.kit, args.submissions, args.out, jobs=args.jobs, timeout=args.timeout,
        progress=True, sandbox=not args.no_sandbox,
    )  # fmt: skip
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
    previous = os.environ.get(LONG_ENV)
    try:
        args = sys.argv[1:] if argv is None else list(argv)
        with cli.make_context("dadp-book", args) as ctx:
            return cli.invoke(ctx)
    except click.exceptions.Exit as done:  # --help
        return done.exit_code
    except click.UsageError as error:
        message = f"{error.format_message()}{_see_help(error.ctx)}"
        print(f"dadp-book: error: {_one_line(message)}", file=sys.stderr)
        return 1
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
