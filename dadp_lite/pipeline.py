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
import fnmatch
import io
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import tokenize
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import yaml

__all__ = [
    "RANGE_CONVENTIONS",
    "BuildError",
    "ChapterResult",
    "Parameter",
    "ValueRange",
    "book_root",
    "build_book",
    "chapter_parameters",
    "coerce_parameters",
    "convert_chapter",
    "describe_parameters",
    "execute_chapter",
    "list_chapters",
    "load_profile",
    "parse_assignments",
    "resolve_chapter",
    "resolve_chapter_links",
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
class ValueRange:
    """Allowed values of a parameter (each element, for list-valued parameters).

    ``low``/``high`` bound numbers (``None`` = unbounded; ``*_open`` excludes the bound),
    ``integer`` requires whole numbers, ``choices`` lists the allowed values.
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    integer: bool = False
    choices: tuple | None = None

    def describe(self) -> str:
        if self.choices is not None:
            return "one of " + ", ".join(map(str, self.choices))
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        left = "(" if self.low is None or self.low_open else "["
        right = ")" if self.high is None or self.high_open else "]"
        kind = "integer in " if self.integer else ""
        return f"{kind}{left}{low}, {high}{right}"

    def violation(self, value: object) -> str | None:
        """``None`` if ``value`` (or every element of a list) is allowed, else the reason."""
        if isinstance(value, list | tuple):
            for element in value:
                reason = self.violation(element)
                if reason:
                    return reason
            return None
        if self.choices is not None:
            return None if value in self.choices else f"{value!r} is not {self.describe()}"
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{value!r} is not a number"
        if math.isnan(value) or (self.integer and (math.isinf(value) or value != int(value))):
            return f"{value!r} is outside {self.describe()}"
        too_low = self.low is not None and (
            value <= self.low if self.low_open else value < self.low
        )
        too_high = self.high is not None and (
            value >= self.high if self.high_open else value > self.high
        )
        if too_low or too_high:
            return f"{value!r} is outside {self.describe()}"
        return None


#: Ranges implied by parameter names (fnmatch patterns on the UPPER_CASE name, first match
#: wins). A convention applies only when the chapter's own default satisfies it. A trailing
#: ``# range: [lo, hi)`` (``integer`` may follow) or ``# choices: a, b`` comment on the
#: parameter's line in the chapter's ``parameters`` cell overrides the conventions.
RANGE_CONVENTIONS: tuple[tuple[str, ValueRange], ...] = (
    ("EPS*", ValueRange(low=0, low_open=True)),
    ("DELTA*", ValueRange(low=0, high=1, high_open=True)),
    ("BETA*", ValueRange(low=0, high=1, low_open=True)),
    ("*PROB*", ValueRange(low=0, high=1)),
    ("REPS*", ValueRange(low=1, integer=True)),
    ("*_REPS", ValueRange(low=1, integer=True)),
    ("SEED*", ValueRange(low=0, integer=True)),
    ("K", ValueRange(low=1, integer=True)),
    ("KS", ValueRange(low=1, integer=True)),
    ("K_*", ValueRange(low=1, integer=True)),
)


def _dataset_range() -> ValueRange | None:
    try:
        from dadp_lite.data import DATASETS
    except ImportError:  # pragma: no cover - the package always ships data.py
        return None
    return ValueRange(choices=tuple(DATASETS))


def _convention_range(name: str, default: object) -> ValueRange | None:
    allowed = None
    if fnmatch.fnmatchcase(name, "DATASET*"):
        allowed = _dataset_range()
    else:
        for pattern, candidate in RANGE_CONVENTIONS:
            if fnmatch.fnmatchcase(name, pattern):
                allowed = candidate
                break
    if allowed is None or default is None or allowed.violation(default) is not None:
        return None
    return allowed


_RANGE_COMMENT = re.compile(
    r"range:\s*([\[(])\s*([^,\s]*)\s*,\s*([^\])\s]*)\s*([\])])\s*(integer|int)?"
)
_CHOICES_COMMENT = re.compile(r"choices:\s*(.+)$")


def _bound(text: str) -> float | None:
    if text.lower().lstrip("+-") in ("", "inf", "infinity"):
        return None
    try:
        return float(text)
    except ValueError as error:
        raise BuildError(f"bad bound {text!r} in a '# range:' comment") from error


def _comment_range(comment: str) -> ValueRange | None:
    """Parse ``# range: (0, 1]`` (optionally followed by ``integer``) or ``# choices: a, b``."""
    match = _RANGE_COMMENT.search(comment)
    if match:
        left, low, high, right, integer = match.groups()
        return ValueRange(
            low=_bound(low),
            high=_bound(high),
            low_open=left == "(",
            high_open=right == ")",
            integer=bool(integer),
        )
    match = _CHOICES_COMMENT.search(comment)
    if match:
        items = [yaml.safe_load(item.strip()) for item in match.group(1).split(",")]
        return ValueRange(choices=tuple(item for item in items if item is not None))
    return None


def _comments_by_line(source: str) -> dict[int, str]:
    comments: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                comments[token.start[0]] = token.string
    except (tokenize.TokenError, IndentationError):
        pass
    return comments


@dataclass(frozen=True)
class Parameter:
    """One entry of a chapter's ``parameters`` cell."""

    name: str
    default: object
    source: str
    allowed: ValueRange | None = None

    def describe(self) -> str:
        text = f"{self.name}={self.source}"
        if self.allowed is not None:
            each = "each " if isinstance(self.default, list | tuple) else ""
            text += f"  ({each}{self.allowed.describe()})"
        return text


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
    source = cells[0].source
    comments = _comments_by_line(source)
    params = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    default = ast.literal_eval(node.value)
                except ValueError:
                    default = None
                lines = range(node.lineno, (node.end_lineno or node.lineno) + 1)
                declared = [_comment_range(comments[i]) for i in lines if i in comments]
                declared = [d for d in declared if d is not None]
                allowed = declared[0] if declared else _convention_range(target.id, default)
                params.append(Parameter(target.id, default, ast.unparse(node.value), allowed))
    return params


def describe_parameters(params: Sequence[Parameter]) -> str:
    """One line per parameter: name, default and allowed range."""
    return "\n".join(f"  {p.describe()}" for p in params)


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


def coerce_parameters(params: Sequence[Parameter], values: Mapping[str, object]) -> dict:
    """Wrap a scalar given for a list-valued parameter into a one-element list."""
    declared = {p.name: p for p in params}
    out = {}
    for name, value in values.items():
        default = declared[name].default if name in declared else None
        if isinstance(default, list | tuple) and not isinstance(value, list | tuple):
            value = [value]
        out[name] = value
    return out


def parse_assignments(
    params: Sequence[Parameter], pairs: Sequence[Sequence[str]]
) -> dict[str, object]:
    """``[(NAME, TEXT), ...]`` from the command line -> values parsed as YAML scalars/lists.

    A parameter whose default is a string keeps the text as typed (so ``yes`` or ``2019``
    stay strings).
    """
    declared = {p.name: p for p in params}
    out: dict[str, object] = {}
    for name, text in pairs:
        if name in declared and isinstance(declared[name].default, str):
            out[name] = text
            continue
        try:
            out[name] = yaml.safe_load(text) if text.strip() else text
        except yaml.YAMLError as error:
            raise BuildError(f"value of {name} is not valid YAML: {text!r} ({error})") from error
    return out


def validate_parameters(root: Path, slug: str, values: Mapping[str, object]) -> dict:
    """Refuse unknown names, values whose type differs from the default's, and values
    outside the parameter's allowed range (see ``RANGE_CONVENTIONS``).

    Returns the values, with scalars for list-valued parameters wrapped into lists.
    """
    params = chapter_parameters(root, slug)
    declared = {p.name: p for p in params}
    listing = describe_parameters(params)
    values = coerce_parameters(params, values)
    for name, value in values.items():
        if name not in declared:
            raise BuildError(
                f"{slug} has no parameter {name!r}; its parameters (defaults, allowed):\n{listing}"
            )
        parameter = declared[name]
        if not _type_ok(value, parameter.default):
            raise BuildError(
                f"{slug}: parameter {name} must look like its default {parameter.source}, "
                f"got {value!r}; its parameters (defaults, allowed):\n{listing}"
            )
        if parameter.allowed is not None:
            reason = parameter.allowed.violation(value)
            if reason:
                raise BuildError(
                    f"{slug}: parameter {name} out of range: {reason}; "
                    f"its parameters (defaults, allowed):\n{listing}"
                )
    return values


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


KERNEL_START_ATTEMPTS = 3


def _is_kernel_port_clash(failure: BaseException) -> bool:
    """True for a kernel that failed to start because its ZMQ port was taken meanwhile.

    Kernels started in parallel pick free ports independently and can race for the same
    one. That is an infrastructure failure before any cell ran, never a chapter's own
    error (those arrive as ``PapermillExecutionError`` and are not retried).
    """
    from papermill.exceptions import PapermillExecutionError

    if isinstance(failure, PapermillExecutionError):
        return False
    return "Address already in use" in str(failure)


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
        for attempt in range(1, KERNEL_START_ATTEMPTS + 1):
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
                break
            except Exception as failure:  # papermill wraps cell errors; report them alike
                if _is_kernel_port_clash(failure) and attempt < KERNEL_START_ATTEMPTS:
                    continue  # two kernels started at once raced for a port: start again
                error = f"notebooks/{slug}.md {_describe_failure(failure)}"
                break
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


_DOC_ROLE = re.compile(r"\{doc\}`(?:([^`<]*?)\s*<)?\.\./notebooks/([^`<>]+?)>?`")
_REF_ROLE = re.compile(r"\{(ref|numref|prf:ref|eq)\}`(?:([^`<]*?)\s*<)?([^`<>]+?)>?`")
_GLUE_ROLE = re.compile(r"\{glue(?::text)?\}`\.\./notebooks/([^`:]+?)(?:\.ipynb|\.md)?::[^`]*`")
_LABEL_LINE = re.compile(r"^\(([^)\s]+)\)=\s*$|^:label:\s*(\S+)|^\s*name:\s*(fig-\S+)", re.M)


def _chapter_title(root: Path, slug: str) -> str:
    for line in (root / "notebooks" / f"{slug}.md").read_text().splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return slug


def resolve_chapter_links(root: Path, text: str, built: Sequence[str]) -> tuple[str, list[str]]:
    """Make a prose page's links to chapters fit the chapters being built.

    - ``{doc}`../notebooks/NN``` (a bare two-digit number) links to the chapter whose slug
      starts with ``NN-``; prose pages can name chapters before their slugs are fixed.
    - Links to chapters of ``_toc.yml`` that are not in ``built`` (``--chapters`` builds), or
      numbers with no chapter yet, become plain text (the chapter's title), as do
      ``{ref}``/``{numref}``/``{prf:ref}`` to labels defined in such chapters, so partial
      builds stay strict-clean. Unknown targets are left alone (the strict build reports
      them).
    - Cross-document glue ``{glue:text}`../notebooks/<slug>.ipynb::key:fmt``` from a chapter
      that is not built becomes a short text naming that chapter (its number is computed
      there). Returns the new text and one note per link turned into text.
    """
    built = list(built)
    known = list_chapters(root)
    notes: list[str] = []

    def by_number(target: str) -> str | None:
        matches = [s for s in known if s.split("-", 1)[0] == target]
        return matches[0] if len(matches) == 1 else None

    def doc(match: re.Match) -> str:
        text_, target = (match.group(1) or "").strip(), match.group(2).strip()
        slug = by_number(target) if target.isdigit() else target
        if slug in built:
            label = f"{text_} <../notebooks/{slug}>" if text_ else f"../notebooks/{slug}"
            return "{doc}`" + label + "`"
        if slug is None and target.isdigit():
            notes.append(f"chapter {target} does not exist yet; named as text")
            return f"*{text_ or f'chapter {int(target)}'}*"
        if slug in known:
            notes.append(f"{slug} is not in this build; named as text")
            return f"*{text_ or _chapter_title(root, slug)}*"
        return match.group(0)

    missing_labels: dict[str, str] = {}
    for slug in known:
        if slug not in built:
            source = (root / "notebooks" / f"{slug}.md").read_text()
            for groups in _LABEL_LINE.findall(source):
                label = next(g for g in groups if g)
                missing_labels[label] = _chapter_title(root, slug)

    def ref(match: re.Match) -> str:
        text_, target = (match.group(2) or "").strip(), match.group(3).strip()
        if target not in missing_labels:
            return match.group(0)
        notes.append(f"{match.group(1)} to {target} (chapter not in this build) named as text")
        title = missing_labels[target]
        if "%s" in text_:
            return f"{text_.replace('%s', '').strip()} in *{title}*"
        return f"*{text_ or title}*"

    def glued(match: re.Match) -> str:
        slug = match.group(1).strip()
        if slug in built or slug not in known:
            return match.group(0)
        notes.append(f"number glued from {slug} (chapter not in this build) named as text")
        return f"[computed in *{_chapter_title(root, slug)}*]"

    text = _DOC_ROLE.sub(doc, text)
    text = _REF_ROLE.sub(ref, text)
    text = _GLUE_ROLE.sub(glued, text)
    return text, notes


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in VERSIONED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def _status_table(
    results: Sequence[ChapterResult],
    profile: str,
    wall_seconds: float | None = None,
    jobs: int | None = None,
) -> str:
    lines = ["", f"## Last build: profile `{profile}`", ""]
    built = time.strftime("%Y-%m-%d %H:%M %Z")
    setting = f"Built {built} on {os.cpu_count() or 1} core(s)"
    if jobs:
        setting += f", {jobs} chapter(s) executed in parallel"
    if wall_seconds is not None:
        setting += f"; wall-clock execution time of all chapters: **{wall_seconds:.1f} s**"
    lines += [setting + ".", "", "| chapter | execution time (s) | parameters |", "|---|---:|---|"]
    for r in results:
        params = ", ".join(f"`{k}={v}`" for k, v in r.parameters.items()) or "defaults"
        lines.append(f"| {{doc}}`../notebooks/{r.slug}` | {r.seconds:.1f} | {params} |")
    total = sum(r.seconds for r in results)
    lines += [f"| **sum over chapters** | **{total:.1f}** | |", ""]
    lines += ["## Software versions", "", "| package | version |", "|---|---|"]
    lines += [f"| {name} | {version} |" for name, version in _versions().items()]
    return "\n".join(lines) + "\n"


def _resolve_notebook_links(root: Path, path: Path, built: Sequence[str]) -> None:
    """Partial builds: links from an executed chapter to chapters left out become text."""
    import nbformat

    if not path.is_file():
        return
    notebook = nbformat.read(path, as_version=4)
    changed = False
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            resolved, notes = resolve_chapter_links(root, cell.source, built)
            if resolved != cell.source:
                cell.source, changed = resolved, True
                for note in notes:
                    print(f"  notebooks/{path.stem}: {note}", flush=True)
    if changed:
        nbformat.write(notebook, path)


def stage_book(
    root: Path,
    stage: Path,
    slugs: Sequence[str],
    results: Sequence[ChapterResult],
    profile: str,
    wall_seconds: float | None = None,
    jobs: int | None = None,
) -> None:
    """Copy config, toc (filtered to ``slugs``) and prose pages next to executed notebooks.

    ``book/status.md`` gets the generated table: profile, per-chapter execution times,
    the wall-clock time of the parallel execution and the package versions.
    """
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(root / name, stage / name)
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    keep = {f"{s}" for s in slugs} | {f"{s}.md" for s in slugs}
    (stage / "_toc.yml").write_text(yaml.safe_dump(_filtered_toc(toc, keep), sort_keys=False))
    if (stage / "book").exists():
        shutil.rmtree(stage / "book")
    shutil.copytree(root / "book", stage / "book")
    for page in sorted((stage / "book").glob("*.md")):
        text = page.read_text()
        resolved, notes = resolve_chapter_links(root, text, slugs)
        if resolved != text:
            page.write_text(resolved)
        for note in notes:
            print(f"  book/{page.name}: {note}", flush=True)
    if set(slugs) != set(list_chapters(root)):
        for slug in slugs:
            _resolve_notebook_links(root, stage / "notebooks" / f"{slug}.ipynb", slugs)
    status = stage / "book" / "status.md"
    if status.exists():
        table = _status_table(results, profile, wall_seconds, jobs)
        status.write_text(status.read_text() + table)


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
    stage_book(root, stage, slugs, results, profile, timings["wall_seconds"], jobs)
    out = render_html(stage, build_dir)
    print(f"Book built in {time.perf_counter() - start:.0f} s: {out / 'index.html'}")
    return out
