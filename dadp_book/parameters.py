"""Chapter parameters: the vocabulary, declarations, reading values, validation, profiles.

The standard names are declared once, in :data:`VOCABULARY`; any other parameter declares
itself in a trailing comment on its line of the chapter's ``parameters`` cell (grammar:
:mod:`dadp_book.spec`), and such a comment also overrides the vocabulary (chapter 02 allows
epsilon = 0). A comment that does not start with a type word is the parameter's meaning.
Every value, the defaults included, is checked before any kernel starts; why the ranges
end where they do: book/reproducibility.md, "Ranges each chapter supports".
"""

from __future__ import annotations

import ast
import difflib
import fnmatch
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dadp_book.discovery import line_comments, parameters_cell
from dadp_book.errors import BuildError
from dadp_book.spec import KINDS, DeclarationError, Spec, SpecError, parse_declaration
from dadp_book.yamlio import load_yaml_file, load_yaml_text
from dadp_lite.data import ATTRIBUTES
from dadp_lite.resources import ResourceError, check_memory

__all__ = ["PROFILES", "VOCABULARY", "Parameter", "RECORD_BOUNDS", "vocabulary_entry",
           "chapter_parameters", "declaration_problems", "parse_assignments",
           "effective_parameters", "load_profile", "profile_values", "validate_parameters",
           "check_memory_estimate", "check_records", "memory_estimate"]  # fmt: skip

PROFILES = ("quick", "full")
_ATTRIBUTES = ", ".join(ATTRIBUTES)

#: Standard names: ``name -> "declaration; meaning"`` (``*`` in a name matches any text).
VOCABULARY: dict[str, str] = {
    "DATASETS": "list[dataset], distinct; datasets: registered names or .csv/.parquet files",
    "DATASET": "dataset; a registered name (ma2019, tx2019, national2019) or a .csv/.parquet file",
    "EPSILONS": "list[float] in [0.001, 100], distinct; privacy parameters epsilon",
    "EPSILON": "float in [0.001, 100]; privacy parameter epsilon",
    "REPS": "int in [2, 100000]; Monte Carlo repetitions of each experiment",
    "*_REPS": "int in [2, 100000]; repetitions of one check or experiment",
    "SEED": "int in [0, 4294967295]; seed of the chapter's numpy SeedSequence",
    "K": "int in [1, 1000]; suppression threshold / anonymity parameter k",
    "K_VALUES": "list[int] in [1, 1000], distinct; values of k",
    "QI": f"list[str] one of {_ATTRIBUTES}, distinct; quasi-identifier attributes",
    "ATTRIBUTES": f"list[str] one of {_ATTRIBUTES}, distinct; attributes of the histogram",
    "N_BOOT": "int in [2, 100000]; bootstrap resamples",
    "CURVE_POINTS": "int in [2, 1000]; points on each plotted curve",
    "ENUM_BOUND": "int in [1, 60]; largest count in an exact enumeration",
}


def vocabulary_entry(name: str) -> str | None:
    """The vocabulary's ``declaration; meaning`` for ``name`` (exact names win)."""
    if name in VOCABULARY:
        return VOCABULARY[name]
    patterns = [p for p in VOCABULARY if "*" in p and fnmatch.fnmatchcase(name, p)]
    return VOCABULARY[patterns[0]] if patterns else None


_NOT_EVALUATED = object()


@dataclass(frozen=True)
class Parameter:
    """One assignment of a chapter's ``parameters`` cell and its declaration."""

    name: str
    default: object
    source: str
    spec: Spec | None
    meaning: str = ""
    origin: str = "vocabulary"  # "vocabulary", "declared", or why there is no spec

    @property
    def has_default(self) -> bool:
        """False when the default is computed in the kernel (from other names)."""
        return self.default is not _NOT_EVALUATED


def _default(node: ast.expr) -> object:
    """A literal, or ``list(range(...))``-like expressions of literals; else not evaluated."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    try:
        code = compile(ast.Expression(node), "<parameters>", "eval")
        return eval(code, {"__builtins__": {}, "list": list, "range": range, "tuple": tuple})
    except Exception:  # a default computed from other names: the kernel computes it
        return _NOT_EVALUATED


_DECLARATION = re.compile(rf"^(?:list\[|(?:{'|'.join(KINDS)})\b)")


def _declare(name: str, comment: str | None) -> tuple[Spec | None, str, str]:
    """A comment starting with a type is a declaration; any other comment is the meaning."""
    entry = vocabulary_entry(name)
    if comment and _DECLARATION.match(comment):
        try:
            spec, meaning = parse_declaration(comment)
        except DeclarationError as error:
            return None, "", f"bad declaration: {error}"
        if not meaning and entry is not None:  # a narrower range of a standard name
            meaning = parse_declaration(entry)[1]
        return spec, meaning, "declared"
    if entry is None:
        return None, comment or "", "undeclared: not in the vocabulary and no '# <type>' comment"
    spec, meaning = parse_declaration(entry)
    return spec, comment or meaning, "vocabulary"


def chapter_parameters(root: Path, slug: str) -> list[Parameter]:
    """The chapter's parameters, in the order of its ``parameters`` cell."""
    source = parameters_cell(root, slug)
    comments = {n: text.lstrip("#").strip() for n, text in line_comments(source).items()}
    params = []
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if not isinstance(target, ast.Name):
            continue
        lines = range(node.lineno, (node.end_lineno or node.lineno) + 1)
        comment = next((comments[i] for i in reversed(lines) if i in comments), None)
        spec, meaning, origin = _declare(target.id, comment)
        default = _default(node.value)
        params.append(Parameter(target.id, default, ast.unparse(node.value), spec, meaning, origin))
    return params


def declaration_problems(params: Sequence[Parameter]) -> list[str]:
    """Parameters without a usable declaration, and defaults their declaration refuses."""
    problems = []
    for p in params:
        if p.spec is None:
            problems.append(f"{p.name}: {p.origin}")
        elif p.has_default:
            try:
                p.spec.check(p.default)
            except SpecError as error:
                problems.append(f"{p.name}: default {p.source} {error} ({p.spec.describe()})")
    return problems


def _shown(text: str) -> str:
    """Text from the command line as it can be printed (undecodable bytes as ``\\xff``)."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def parse_assignments(
    params: Sequence[Parameter], pairs: Sequence[Sequence[str]]
) -> dict[str, object]:
    """``[(NAME, TEXT), ...]`` from ``-p`` -> values (YAML; text kept for ``str``/``dataset``)."""
    declared = {p.name: p for p in params}
    out: dict[str, object] = {}
    given: dict[str, str] = {}
    for name, text in pairs:
        if name in given:
            raise BuildError(
                f"-p {name} is given twice ({given[name]!r} and {text!r}); give each parameter once"
            )
        given[name] = text
        for what, value in (("name", name), ("value", text)):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise BuildError(
                    f"-p {_shown(name)} '{_shown(text)}': the {what} is not UTF-8 text; "
                    "rename the file (or retype it)"
                ) from None
        spec = declared[name].spec if name in declared else None
        if spec is not None and spec.kind in ("str", "dataset") and not spec.is_list:
            out[name] = text
        else:
            out[name] = (
                load_yaml_text(text, f"value of {name} ({text!r})") if text.strip() else text
            )
    return out


def _unknown(slug: str, name: str, params: Sequence[Parameter]) -> BuildError:
    names = [p.name for p in params]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return BuildError(
        f"{slug} has no parameter {name!r}; {hint}its parameters are {', '.join(names)} "
        f"(dadp-book params {slug})"
    )


def validate_parameters(root: Path, slug: str, values: Mapping[str, object]) -> dict:
    """Check every value (and every default) before anything runs; return the values to pass.

    Returns ``values`` normalised (a scalar for a list wrapped, integers for floats made
    floats, dataset paths made absolute). Raises :class:`BuildError`, one line, naming the
    parameter, the value and what is allowed.
    """
    params = chapter_parameters(root, slug)
    problems = declaration_problems(params)
    if problems:
        raise BuildError(f"notebooks/{slug}.md: parameters cell: {'; '.join(problems)}")
    specs = {p.name: p.spec for p in params if p.spec is not None}  # all, without problems
    out = {}
    for name, value in values.items():
        if name not in specs:
            raise _unknown(slug, name, params)
        spec = specs[name]
        try:
            out[name] = spec.check(value)
        except SpecError as error:
            raise BuildError(
                f"{slug}: parameter {name} {error}; allowed: {spec.describe()}"
            ) from None
    return out


#: Parameters whose every value a dataset must reach in records: k of k-anonymity
#: (Mondrian needs k <= the number of records; a suppression threshold above it suppresses
#: every cell).
RECORD_BOUNDS = ("K", "K_VALUES")


def check_records(slug: str, values: Mapping[str, object], datasets: Mapping) -> None:
    """Refuse a dataset with fewer records than the largest k among :data:`RECORD_BOUNDS`.

    ``values`` are a run's effective parameters, ``datasets`` the provenance records of its
    dataset parameters (:func:`dadp_book.provenance.datasets_of`, with ``rows``).
    """
    bounds = [(v, name) for name in RECORD_BOUNDS for v in _counts(values.get(name))]
    if not bounds:
        return
    need, which = max(bounds)
    for parameter, record in _dataset_records(datasets):
        rows = record.get("rows")
        if isinstance(rows, int) and rows < need:
            where = record.get("path") or record.get("name")
            raise BuildError(
                f"{slug}: dataset {where} ({parameter}) holds {rows} record(s), fewer "
                f"than {which} = {need}; k-anonymity with k = {need} needs at least "
                f"{need} records (give more records or a smaller {which})"
            )


def _dataset_records(datasets: Mapping) -> list[tuple[str, Mapping]]:
    """``(parameter, provenance record)`` of each dataset of a run (a list has several)."""
    return [
        (parameter, record)
        for parameter, records in datasets.items()
        for record in (records if isinstance(records, list) else [records])
        if isinstance(record, Mapping)
    ]


def _counts(value: object) -> list[int]:
    items = value if isinstance(value, list | tuple) else [value]
    return [v for v in items if isinstance(v, int) and not isinstance(v, bool)]


#: Cells of the book's histogram universe (race x sex x tenure x age bracket x income).
UNIVERSE_CELLS = 540
#: Copies of one release array a chapter holds at once (the releases, their deviations
#: from the truth, the per-repetition statistics of the summaries).
RELEASE_COPIES = 4


def memory_estimate(
    values: Mapping[str, object], params: Sequence[Parameter], datasets: Mapping
) -> tuple[int, str]:
    """Bytes of the largest arrays a chapter builds from its counts, and what.

    A count declared ``N bytes each`` holds that (``per record``: times the records of the
    run's largest dataset); other repetition counts (``REPS``, ``*_REPS``) hold releases of
    the universe, 8 bytes a cell; the bootstrap holds ``N_BOOT x REPS`` weights
    (:func:`dadp_lite.metrics.bootstrap_bias_replicates`, 8 bytes each, and its product).
    """
    specs = {p.name: p.spec for p in params if p.spec is not None}
    sizes = [record.get("rows") for _, record in _dataset_records(datasets)]
    rows = max([0, *(n for n in sizes if isinstance(n, int))])
    estimates = [(0, "nothing")]
    for name, value in values.items():
        counts = _counts(value)
        if not counts:
            continue
        count, spec = max(counts), specs.get(name)
        if spec is not None and spec.bytes_each is not None:
            unit = spec.bytes_each * (max(rows, 1) if spec.per_record else 1)
            per = f" x {rows} records" if spec.per_record else ""
            estimates.append((unit * count, f"{name} = {count} x {spec.bytes_each} bytes{per}"))
        elif name == "REPS" or fnmatch.fnmatchcase(name, "*_REPS"):
            size = 8 * RELEASE_COPIES * count * UNIVERSE_CELLS
            estimates.append((size, f"{name} = {count} releases of {UNIVERSE_CELLS} cells"))
    boot, main = _counts(values.get("N_BOOT")), _counts(values.get("REPS"))
    if boot and main:
        estimates.append(
            (16 * boot[0] * main[0], f"N_BOOT = {boot[0]} bootstrap replicates of REPS = {main[0]}")
        )
    return max(estimates)


def check_memory_estimate(
    slug: str, values: Mapping[str, object], params: Sequence[Parameter], datasets: Mapping
) -> None:
    """Refuse values whose arrays cannot fit in memory (:func:`memory_estimate`)."""
    size, what = memory_estimate(values, params, datasets)
    try:
        check_memory(size, what)
    except ResourceError as error:
        raise BuildError(f"{slug}: {error}") from None


def effective_parameters(root: Path, slug: str, values: Mapping[str, object]) -> dict:
    """Every parameter's value in a run: the defaults, replaced by ``values``."""
    out = {p.name: p.default if p.has_default else None for p in chapter_parameters(root, slug)}
    out.update(values)
    return out


def load_profile(root: Path, profile: str) -> dict[str, dict]:
    """Per-chapter parameters of a profile (``profiles/<profile>.yml``), read strictly."""
    if profile not in PROFILES:
        raise BuildError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    path = root / "profiles" / f"{profile}.yml"
    content = load_yaml_file(path, "profile") or {}
    chapters = content.get("chapters") if isinstance(content, dict) else None
    if not isinstance(chapters, dict) or not all(
        isinstance(v, dict | None) for v in chapters.values()
    ):
        raise BuildError(f"profile {path}: 'chapters' must map chapter slugs to parameters")
    return {str(slug): dict(values or {}) for slug, values in chapters.items()}


def profile_values(root: Path, slug: str, profile: str | None) -> dict:
    """The profile's values for one chapter (none without a profile).

    A chapter the profile does not name is refused: it would run at its defaults (the full
    size) where the profile means something else, such as the quick profile of the tests.
    """
    if not profile:
        return {}
    values = load_profile(root, profile)
    if slug not in values:
        raise BuildError(
            f"profiles/{profile}.yml has no entry for chapter {slug}: add '{slug}:' under "
            "'chapters:' with its parameters (an empty entry runs the chapter's defaults)"
        )
    return dict(values[slug])
