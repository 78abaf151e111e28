"""Chapter hygiene: one skeleton, numbered and referenced figures, no helpers in chapters,
no typed tolerances or paper grids, ruff-clean code.

Every chapter in _toc.yml, and the template, is checked; the rules are the book's style (see
ARCHITECTURE.md).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dadp_book.discovery import list_chapters  # noqa: E402
from dadp_book.manifest import TEMPLATE  # noqa: E402

#: Every chapter of _toc.yml, and the template a new chapter copies (it meets every rule).
CHAPTERS = [*list_chapters(ROOT), TEMPLATE]
#: The skeleton: the level-2 headings of every chapter, in this order.
SKELETON = [
    "Overview",
    "Setup",
    "Statement",
    "Derivation",
    "Numerical verification",
    "Figures",
    "What the numbers say",
    "Summary",
    "Exercises",
    "References",
]
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```\s*$", re.S | re.M)


def _source(slug: str) -> str:
    return (ROOT / "notebooks" / f"{slug}.md").read_text()


def _code_cells(text: str) -> list[str]:
    return CODE_CELL.findall(text)


def _without_front_matter(cell: str) -> str:
    """A code cell's code, without its ``---`` metadata block or ``:tags:`` lines."""
    if cell.startswith("---\n"):
        cell = cell.split("\n---\n", 1)[1]
    return "\n".join(line for line in cell.splitlines() if not line.startswith(":"))


@pytest.mark.parametrize("slug", CHAPTERS)
def test_chapter_follows_the_skeleton(slug):
    headings = re.findall(r"^## (.+?)\s*$", _source(slug), re.M)
    assert headings == SKELETON


#: A figure shown elsewhere than its cell (a chapter's key figure under its main result):
#: ``{glue:figure} key`` with ``:name: fig-...`` and a caption; its cell glues the figure.
GLUE_FIGURE = re.compile(
    r"^```\{glue:figure\} (?P<key>\S+)\n(?P<options>(?::[\w-]+:[^\n]*\n)*)(?P<caption>.*?)^```\s*$",
    re.S | re.M,
)


@pytest.mark.parametrize("slug", CHAPTERS)
def test_every_figure_is_named_captioned_and_referenced(slug):
    text = _source(slug)
    cells = [c for c in _code_cells(text) if c.startswith("---\n") and "figure:" in c]
    glued = list(GLUE_FIGURE.finditer(text))
    assert cells or glued, f"{slug} has no figure cell"
    for match in glued:
        name = re.search(r"^:name:\s*(\S+)", match["options"], re.M)
        assert name and name[1].startswith("fig-"), f"{match['key']}: name it fig-..."
        assert match["caption"].strip(), f"{name[1]} has an empty caption"
        glue_call = f'glue("{match["key"]}", fig, display=False)'
        assert text.count(glue_call) == 1, f"{name[1]}: its cell must {glue_call} (once)"
        rest = text.replace(match[0], "")
        assert re.search(r"\{numref\}`[^`]*" + re.escape(name[1]) + "`", rest), name[1]
    for cell in cells:
        meta = yaml.safe_load(cell.split("\n---\n", 1)[0].removeprefix("---\n"))
        figure = meta["mystnb"]["figure"]
        name = figure["name"]
        assert name.startswith("fig-"), name
        assert "caption: |" in cell, f"{name}: write the caption as a YAML block (caption: |)"
        assert figure["caption"].strip(), f"{name} has an empty caption"
        assert f"`{name}`" in text.replace(cell, ""), f"{name} is never referenced by numref"
        assert re.search(r"\{numref\}`[^`]*" + re.escape(name) + "`", text), name


@pytest.mark.parametrize("slug", CHAPTERS)
def test_no_helper_functions_or_typed_design_constants_in_code(slug):
    for cell in _code_cells(_source(slug)):
        code = _without_front_matter(cell)
        assert not re.search(r"^\s*(def|class)\s", code, re.M), f"{slug}: helper in a chapter"
        assert not re.search(r"(?<![\w.])4\.5(?![\w.])", code), f"{slug}: typed 4.5 tolerance"
        if ":tags: [parameters]" not in cell:
            assert not re.search(r"[\[(]0\.5, 1(\.0)?, 2(\.0)?, 4(\.0)?[\])]", code), (
                f"{slug}: the paper's epsilon grid typed again (use dl.PAPER_EPSILONS)"
            )


@pytest.mark.parametrize("slug", CHAPTERS)
def test_no_cross_document_glue_in_chapters(slug):
    assert "{glue:text}`../" not in _source(slug)


@pytest.mark.parametrize("slug", CHAPTERS)
def test_chapter_has_two_exercises_with_dropdown_solutions(slug):
    text = _source(slug)
    assert text.count("```{exercise}") >= 2
    assert text.count(":class: dropdown") >= text.count("```{exercise}")


@pytest.mark.parametrize("slug", CHAPTERS)
def test_chapter_code_is_ruff_clean(slug):
    """The chapter's code cells pass the package's ruff rules and ``ruff format`` (E402,
    imports not at the top, and B018, a bare expression that a cell displays, are notebook
    idioms), and its prose lines keep ruff's line length; each message names the line of
    the ``.md`` file (``tools/ruff_chapters.py``, which ``make lint`` runs)."""
    from tools.ruff_chapters import lint

    problems = lint([ROOT / "notebooks" / f"{slug}.md"])
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------- reader's toggles
#: Calls that only set the session up (a cell of imports and these is a setup cell).
SETUP_CALLS = {"use_style", "set_option", "filterwarnings"}


def _cell_tags(cell: str) -> list[str]:
    tags = re.search(r"^:tags:\s*\[(.*)\]\s*$", cell, re.M)
    found = [t.strip().strip("'\"") for t in tags.group(1).split(",")] if tags else []
    if cell.startswith("---\n"):
        meta = yaml.safe_load(cell.split("\n---\n", 1)[0].removeprefix("---\n")) or {}
        found += list(meta.get("tags", []))
    return found


def _call_name(node) -> str:
    func = node.func
    return getattr(func, "attr", None) or getattr(func, "id", "")


def _names(code: str, context: type) -> set[str]:
    import ast

    nodes = ast.walk(ast.parse(code))
    return {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, context)}


def _cell_kind(code: str, later_code: str) -> str:
    """``verify`` (asserts or raises), ``setup`` (imports and set-up calls only), ``glue``
    (glue calls, and values nothing after the cell uses), or ``other``."""
    import ast

    tree = ast.parse(code)
    nodes = list(ast.walk(tree))
    if any(isinstance(n, ast.Assert | ast.Raise) for n in nodes) or any(
        isinstance(n, ast.Call) and _call_name(n).startswith("assert") for n in nodes
    ):
        return "verify"
    if not tree.body:
        return "other"

    def is_setup(st) -> bool:
        return isinstance(st, ast.Import | ast.ImportFrom) or (
            isinstance(st, ast.Expr)
            and isinstance(st.value, ast.Call)
            and _call_name(st.value) in SETUP_CALLS
        )

    def is_glue(st) -> bool:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            return _call_name(st.value) == "glue"
        if isinstance(st, ast.For | ast.If):
            inner = st.body + st.orelse
            return any(is_glue(s) for s in inner) and all(
                is_glue(s) or isinstance(s, ast.Assign) for s in inner
            )
        return False

    if all(is_setup(st) for st in tree.body):
        return "setup"
    glues = all(is_glue(st) or isinstance(st, ast.Assign) for st in tree.body)
    if glues and any(is_glue(st) for st in tree.body):
        defines = _names(code, ast.Store) & _names(later_code, ast.Load)
        return "other" if defines else "glue"
    return "other"


@pytest.mark.parametrize("slug", CHAPTERS)
def test_setup_and_glue_cells_are_collapsed_and_checks_are_visible(slug):
    """A reader sees the verification and the figures' code; cells that only import or
    only glue numbers into the prose sit behind a toggle (tag ``hide-input``)."""
    cells = _code_cells(_source(slug))
    codes = [_without_front_matter(c) for c in cells]
    for i, (cell, code) in enumerate(zip(cells, codes)):
        tags = _cell_tags(cell)
        if "parameters" in tags:
            continue
        kind = _cell_kind(code, "\n".join(codes[i + 1 :]))
        hidden = bool({"hide-input", "remove-input", "hide-cell", "remove-cell"} & set(tags))
        first_line = code.strip().splitlines()[0] if code.strip() else ""
        where = f"{slug}, code cell {i + 1} ({first_line[:60]!r})"
        if kind in ("setup", "glue"):
            assert "hide-input" in tags, f"{where}: a {kind} cell, tag it hide-input"
        if kind == "verify" or ("figure:" in cell and cell.startswith("---\n")):
            assert not hidden, f"{where}: checks and figure code stay visible (no hide tag)"


# ------------------------------------------------------------- the reader's chapter
#: Chapters not yet through the reader's pass, per rule. The pass removes a chapter from a
#: set when the chapter meets the rule; the list can only shrink (a listed chapter that
#: meets its rule fails the test below, so it is removed the day it is clean).
PENDING: dict[str, set[str]] = {
    "main_result": set(),
    "cell_length": set(),
    "sentences_from_package": set(),
}
#: The longest code cell a chapter may hold: lines of code as ``ruff format`` writes them
#: (blank lines and comment-only lines not counted). One idea per cell; helpers belong in
#: ``dadp_lite``.
MAX_CELL_LINES = 25
MAIN_RESULT = re.compile(
    r"\A(?:---\n.*?\n---\n)?\s*(?:<!--.*?-->\s*)*\([\w-]+\)=\n# [^\n]+\n\n"
    r"```\{admonition\} Main result\n"
    r":class: main-result\n(?P<body>.+?)\n```\n",
    re.S,
)


def _main_result_problem(slug: str) -> str | None:
    match = MAIN_RESULT.search(_source(slug))
    if match is None:
        return "no 'Main result' admonition (class main-result) right under the title"
    if "{glue:text}" not in match.group("body"):
        return "the main result glues no number"
    return None


def _long_cells(slug: str) -> list[str]:
    long = []
    for cell in _code_cells(_source(slug)):
        code = _without_front_matter(cell)
        lines = [ln for ln in code.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        if len(lines) > MAX_CELL_LINES:
            long.append(f"{len(lines)} lines: {lines[0][:60]!r}")
    return long


def _builds_text(node) -> bool:
    """True if the expression assembles text: an f-string, ``.format``, ``.join``, ``%`` on
    a string, string concatenation, or a string constant of more than one word."""
    import ast

    for sub in ast.walk(node):
        if isinstance(sub, ast.JoinedStr):
            return True
        if isinstance(sub, ast.Call) and _call_name(sub) in {"format", "join"}:
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and " " in sub.value:
            return True
    return False


def _is_phrasebook(node) -> bool:
    """A dict literal whose values are all string constants: a chapter's phrasebook, the
    sentence to show for each verdict (typed in the chapter, chosen by a verdict)."""
    import ast

    return (
        isinstance(node, ast.Dict)
        and bool(node.values)
        and all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in node.values)
    )


def _sentences_in_cells(slug: str) -> list[str]:
    """Glue calls whose value is text assembled in the chapter (directly, or through a name
    assigned such text earlier in the chapter). A sentence looked up in a phrasebook (a
    dict literal of strings, indexed by a verdict) is not assembled: it is allowed."""
    import ast

    found, texts, books = [], set(), set()
    for cell in _code_cells(_source(slug)):
        tree = ast.parse(_without_front_matter(cell))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and _is_phrasebook(node.value):
                books |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.Assign) and _builds_text(node.value):
                texts |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _call_name(node) == "glue" and len(node.args) > 1:
                value = node.args[1]
                if (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)
                        and value.value.id in books and not _builds_text(value.slice)):  # fmt: skip
                    continue
                uses = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
                if _builds_text(value) or uses & texts:
                    found.append(ast.unparse(node)[:70])
    return found


RULES = {
    "main_result": lambda slug: [p] if (p := _main_result_problem(slug)) else [],
    "cell_length": _long_cells,
    "sentences_from_package": _sentences_in_cells,
}


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("slug", CHAPTERS)
def test_reader_rules(slug, rule):
    """Every chapter opens with its main result (a glued finding, right under the title),
    keeps each code cell at most MAX_CELL_LINES lines of code, and glues sentences that
    ``dadp_lite.summaries`` wrote rather than assembling them in a cell."""
    problems = RULES[rule](slug)
    if slug in PENDING[rule]:
        assert problems, f"{slug} now meets {rule!r}: remove it from PENDING[{rule!r}]"
    else:
        assert not problems, f"{slug}, {rule}: " + "; ".join(problems)


# ------------------------------------------------------------- figure text and width
#: Named font sizes at least the style's ``font.size`` ("medium"); "small" and below are not.
LARGE_ENOUGH = {"medium", "large", "larger", "x-large", "xx-large"}
#: Keyword arguments that set a text size.
SIZE_KEYWORDS = {"fontsize", "labelsize", "title_fontsize", "titlesize", "size"}
#: Calls whose ``size=`` keyword is not a text size (a sample's size, a marker's).
NOT_TEXT = {"integers", "choice", "normal", "uniform", "binomial", "poisson", "random",
            "laplace", "scatter", "figaspect", "full", "zeros", "ones", "empty", "standard_normal",
            "geometric", "multinomial", "exponential", "negative_binomial", "permutation",
            "hypergeometric", "gamma", "beta", "dirichlet", "rvs"}  # fmt: skip


def _cell_lines(text: str) -> list[tuple[int, str]]:
    """Each code cell's code and the ``.md`` line of its first line; metadata, ``:tags:``
    and magic lines blanked so that line numbers stay those of the file."""
    cells = []
    for match in CODE_CELL.finditer(text):
        lines = match[1].splitlines()
        front = lines.index("---", 1) if lines and lines[0] == "---" else -1
        code = ["" if i <= front or line.startswith((":", "%", "!")) else line
                for i, line in enumerate(lines)]  # fmt: skip
        cells.append((text.count("\n", 0, match.start(1)) + 1, "\n".join(code)))
    return cells


def _small_text(code: str, first_line: int, min_pt: float) -> list[str]:
    """Where ``code`` sets a text size below ``min_pt`` (a named size smaller than
    "medium", a number below it) or one this check cannot read (a variable): 'line: call'."""
    import ast

    found = []

    def judge(node, where: str) -> None:
        line = first_line + node.lineno - 1
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value not in LARGE_ENOUGH:
                found.append(f"line {line}: {where}={node.value!r} (below 'medium')")
        elif isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            if node.value < min_pt:
                found.append(f"line {line}: {where}={node.value} (below {min_pt:g} pt)")
        else:
            found.append(f"line {line}: {where}=<expression>: use the style's sizes")

    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            for keyword in node.keywords:
                if keyword.arg in SIZE_KEYWORDS and not (
                    keyword.arg == "size" and (name in NOT_TEXT or name[:1].isupper())
                ):
                    judge(keyword.value, f"{name}({keyword.arg}")
                elif keyword.arg in ("prop", "fontdict", "title_fontproperties") and isinstance(
                    keyword.value, ast.Dict
                ):
                    for key, value in zip(keyword.value.keys, keyword.value.values):
                        if isinstance(key, ast.Constant) and key.value in ("size", "fontsize"):
                            judge(value, f"{name}({keyword.arg}[{key.value!r}]")
            if name in ("set_fontsize", "set_size") and node.args:
                judge(node.args[0], name + "(")
        elif isinstance(node, ast.Assign):  # rcParams["legend.fontsize"] = value
            for target in node.targets:
                if (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                        and str(target.slice.value).endswith("size")
                        and "figsize" not in str(target.slice.value)):  # fmt: skip
                    judge(node.value, f"[{target.slice.value!r}]")
    return sorted(found, key=lambda finding: int(finding.split(":")[0].split()[1]))


def _wide_figures(code: str, first_line: int, width: float) -> list[str]:
    """Where ``code`` asks for a figure wider than ``width`` inches (a typed ``figsize``)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                value = keyword.value
                if keyword.arg == "figsize" and isinstance(value, ast.Tuple):
                    first = value.elts[0]
                    if isinstance(first, ast.Name) and first.id == "COLUMN_WIDTH":
                        continue
                    if not isinstance(first, ast.Constant):
                        found.append(f"line {first_line + node.lineno - 1}: figsize width "
                                     "computed: use dadp_lite.plotting.panel_axes")  # fmt: skip
                    elif first.value > width:
                        found.append(f"line {first_line + node.lineno - 1}: figsize width "
                                     f"{first.value} in > {width:g} in")  # fmt: skip
    return found


FIGURE_SOURCES = [*(f"notebooks/{slug}.md" for slug in CHAPTERS), "dadp_lite/plotting.py"]


@pytest.mark.parametrize("path", FIGURE_SOURCES)
def test_figure_text_is_never_below_the_style_minimum_nor_wider_than_the_column(path):
    """No text smaller than the style's smallest (``MIN_TEXT_PT``, read from
    ``dadp.mplstyle``: as large as the body text at column width) and no figure wider than
    the column (``COLUMN_WIDTH``): the failure names the file and line (issue 30)."""
    from dadp_lite.plotting import COLUMN_WIDTH, MIN_TEXT_PT

    text = (ROOT / path).read_text()
    cells = [(1, text)] if path.endswith(".py") else _cell_lines(text)
    found = []
    for first_line, code in cells:
        found += _small_text(code, first_line, MIN_TEXT_PT)
        found += _wide_figures(code, first_line, COLUMN_WIDTH)
    assert not found, f"{path}:\n  " + "\n  ".join(found)


def test_the_figure_text_check_finds_small_sizes_and_wide_figures():
    code = ('ax.legend(fontsize="small")\nax.text(0, 0, "a", fontsize=8)\n'
            'ax.tick_params(labelsize=size)\nrng.integers(0, 5, size=3)\n'
            'plt.rcParams["legend.fontsize"] = 7\nax.legend(fontsize="large", prop={"size": 6})\n'
            "fig = plt.figure(figsize=(9, 3))\nplt.subplots(figsize=(6, 3))\n")  # fmt: skip
    small = _small_text(code, 10, 10.5)
    assert [s.split(":")[0] for s in small] == [
        "line 10", "line 11", "line 12", "line 14", "line 15"]  # fmt: skip
    assert "'small'" in small[0] and "8" in small[1]
    assert _wide_figures(code, 10, 6.0) == ["line 16: figsize width 9 in > 6 in"]
