"""What tests/test_browser.py's crawler looks for on a rendered page, as a reader would see it.

Each check returns a list of findings (short strings, empty when the page is clean), so a
page's report is ``{check: [finding, ...]}``. The checks run in headless Chromium after
MathJax has typeset and the charts have drawn:

``dataframe``      a default pandas DataFrame repr (``table.dataframe`` without ``dadp-table``)
``series``         a pandas Series repr (``Name: ..., dtype: ...`` in an output)
``stderr``         a stderr block (``.output.stderr``)
``truncated``      a table cell cut to ``...``
``parameter_name`` a chapter parameter's name in the prose where its value belongs
``status_twice``   a status word said twice ("loose (loose; ...")
``tooltip``        a chart tooltip with NaN, undefined, null or an empty value, at any
                   setting of the chart's dropdowns
``overflow``       at 390 px: the page scrolls sideways, something sticks out of the
                   column, a chart is wider than its box, or content is cut inside a box
``alt_text``       an image whose alt text is missing or a file path
``axe``            an axe-core violation of impact serious or critical, axe's default rule
                   set with no rule disabled and nothing excluded
``console``        a console error or warning, a page error, a failed or external request
``table``          a table with an index column, a ``snake_case`` or number-format header
                   (``0.500000``), a column of float-formatted integers (``540.000``),
                   ``True``/``False``, a sentinel (``9999999``) or a ``|`` in a cell
``build_words``    in a chapter's prose, captions or exercises (inline code included): an
                   API or module name (``dl.paper_tables``, ``dadp_lite.swapping``, a public
                   function of the package), an all-caps parameter or constant name
                   (``BIAS_REPS``, ``PAPER_QI``), "papermill" or "hidden tests"
``wide_equation``  at 1,280 px: a display formula wider than its column
``glossary``       a term of ``book/glossary.md`` used in a main-result box without a link
                   to its definition in that box
``citation``       no "How to cite this book" block (BibTeX, plain text, version, date)
``figure_text``    at 1,280 px on a chapter: a matplotlib figure whose smallest text (the
                   style's smallest size, at the PNG's dpi, scaled to the width shown) is
                   smaller than the body text
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHECKS = (
    "dataframe",
    "series",
    "stderr",
    "truncated",
    "parameter_name",
    "status_twice",
    "tooltip",
    "overflow",
    "alt_text",
    "axe",
    "axe_phone_dark",
    "console",
    "table",
    "build_words",
    "wide_equation",
    "glossary",
    "citation",
    "figure_text",
)

#: The page's content as the reader sees it (after MathJax): outputs, prose, images.
CONTENT_JS = r"""() => {
  const main = document.querySelector('main') || document.body;
  const short = e => (e.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 90);
  const out = {};
  out.dataframe = [...main.querySelectorAll('table.dataframe:not(.dadp-table)')].map(
    t => short(t.querySelector('thead') || t));
  out.series = [...main.querySelectorAll('.cell_output pre, .output pre')].filter(
    p => /(^|\n)(Name: [^\n]*, )?dtype: \w+\s*$/.test(p.textContent)).map(short);
  out.stderr = [...main.querySelectorAll('.output.stderr')].map(short);
  out.truncated = [...main.querySelectorAll('.cell_output td, .cell_output th')].filter(
    c => /(\.\.\.|\u2026)$/.test(c.textContent.trim())).map(short);
  const clone = main.cloneNode(true);
  // code is not prose: nor are the index's entries and the API's signatures (names)
  clone.querySelectorAll('pre, code, kbd, script, style, mjx-container, .cell_input, '
                         + '.dadp-chart, .highlight, table.indextable, dt.sig')
    .forEach(e => e.remove());
  out.prose = clone.textContent.replace(/\s+/g, ' ');
  out.images = [...main.querySelectorAll('img')].map(
    i => ({src: i.getAttribute('src') || '', alt: i.getAttribute('alt'),
           shown: i.clientWidth, natural: i.naturalWidth}));
  // the body text's size: that of most of the page's paragraph text (not a box's title)
  const sizes = {};
  main.querySelectorAll('p').forEach(p => { const size = parseFloat(getComputedStyle(p).fontSize);
    sizes[size] = (sizes[size] || 0) + p.textContent.length; });
  const common = Object.entries(sizes).sort((a, b) => b[1] - a[1])[0];
  out.body_px = common ? Number(common[0]) : parseFloat(getComputedStyle(main).fontSize);
  // what a student reads: prose, captions, exercises, inline code; no code cells or outputs
  const reading = main.cloneNode(true);
  reading.querySelectorAll('.cell_input, .cell_output, pre, script, style, mjx-container, '
                           + '.dadp-chart, table, .highlight, details.hide')
    .forEach(e => e.remove());
  const exercises = [...reading.querySelectorAll('div.exercise, div.solution, details.solution')];
  out.exercises = exercises.map(e => e.textContent).join(' ').replace(/\s+/g, ' ');
  exercises.forEach(e => e.remove());
  out.reading = reading.textContent.replace(/\s+/g, ' ');
  out.tables = [...main.querySelectorAll('table')].filter(
    t => !t.closest('.tippy-box') && !t.classList.contains('indextable')).map(t => {
      const text = c => { const copy = c.cloneNode(true);  // formulas are no cell text
        copy.querySelectorAll('mjx-container, .math').forEach(m => m.remove());
        return (copy.textContent || '').trim().replace(/\s+/g, ' '); };
      const head = [...t.querySelectorAll('thead th')].map(text);
      const rows = [...t.querySelectorAll('tbody tr')].map(
        r => [...r.querySelectorAll('td')].map(text));
      return {caption: t.caption ? text(t.caption).slice(0, 60) : head.join(' | ').slice(0, 60),
              index: t.querySelectorAll('th.row_heading, th.index_name, th.blank').length,
              head: head, rows: rows};
    });
  out.boxes = [...main.querySelectorAll('div.admonition.main-result')].map(b => ({
    text: b.textContent.replace(/\s+/g, ' '),
    links: [...b.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
  }));
  const cite = document.querySelector('details.dadp-cite');
  out.citation = cite ? {
    bibtex: (cite.querySelector('pre') || {textContent: ''}).textContent,
    text: cite.textContent.replace(/\s+/g, ' '),
  } : null;
  return out;
}"""

#: At 1,280 px: display formulas wider than their column (they would scroll or be cut).
WIDE_EQUATION_JS = r"""() => [...document.querySelectorAll('main mjx-container[display="true"]')]
  .filter(c => { const math = c.querySelector('mjx-math') || c;
                 return math.getBoundingClientRect().width > c.clientWidth + 1; })
  .map(c => { const box = c.closest('[id]');
              return `${box ? box.id : 'formula'}: ${Math.round(
                (c.querySelector('mjx-math') || c).getBoundingClientRect().width)} px in `
                + `${c.clientWidth} px`; })"""

#: Every chart's tooltips at every combination of its dropdowns (Vega's scenegraph).
TOOLTIP_JS = r"""async () => {
  const results = [];
  const charts = [...document.querySelectorAll('.dadp-chart')];
  for (let i = 0; i < charts.length; i++) {
    for (let t = 0; t < 100 && !charts[i].dadpView; t++) {
      await new Promise(r => setTimeout(r, 100));
    }
    const view = charts[i].dadpView;
    if (!view) { results.push(`chart ${i + 1}: not drawn`); continue; }
    const selects = [...charts[i].querySelectorAll('.vega-bindings select')];
    let combos = [[]];
    for (const s of selects) {
      combos = combos.flatMap(c => [...s.options].map((o, j) => [...c, j]));
    }
    let points = 0;
    for (const combo of combos) {
      combo.forEach((j, k) => {
        selects[k].selectedIndex = j;
        selects[k].dispatchEvent(new Event('change'));
      });
      await view.runAsync();
      const stack = [view.scenegraph().root];
      while (stack.length) {
        const node = stack.pop();
        if (node.items) stack.push(...node.items);
        if (node.tooltip === undefined || node.tooltip === null || !node.mark) continue;
        if (node.mark.marktype === 'group') continue;
        points++;
        const tip = node.tooltip;
        const values = typeof tip === 'object' ? Object.values(tip) : [tip];
        const bad = values.some(v => v === undefined || v === null || String(v).trim() === ''
          || /\b(NaN|undefined|null)\b|\[\s*,|,\s*\]/.test(String(v)));
        if (bad) {
          const where = selects.map((s, k) => s.options[combo[k]].text).join(', ');
          results.push(`chart ${i + 1} [${where}]: ${JSON.stringify(tip).slice(0, 160)}`);
        }
      }
    }
    if (!points) results.push(`chart ${i + 1}: no point has a tooltip`);
    selects.forEach(s => { s.selectedIndex = 0; s.dispatchEvent(new Event('change')); });
    await view.runAsync();
  }
  return results;
}"""

#: At a phone's width: sideways scrolling, things sticking out, charts cut, content cut.
#: "Cut" means a box that hides its overflow (``overflow: hidden``) while something visible
#: inside it reaches past its edge: a display formula wider than the column, say (hidden
#: helpers such as MathJax's assistive MathML do not count).
OVERFLOW_JS = r"""() => {
  const width = document.documentElement.clientWidth;
  const found = [];
  const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
    + (e.classList.length ? '.' + [...e.classList].slice(0, 2).join('.') : '');
  const text = e => (e.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 40);
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  const hidden = e => ['hidden', 'clip'].includes(getComputedStyle(e).overflowX);
  const unseen = 'mjx-assistive-mml, .sr-only, .visually-hidden, .screenreader-text';
  const visible = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0
    && getComputedStyle(e).visibility !== 'hidden'; };
  const boxed = e => { for (let p = e.parentElement; p; p = p.parentElement) {
      if (scrolls(p) || hidden(p)) return true; } return false; };
  const reach = e => { let right = -Infinity;
    for (const c of e.querySelectorAll('*')) {
      if (c.closest(unseen) || !visible(c)) continue;
      right = Math.max(right, c.getBoundingClientRect().right); }
    return right; };
  if (document.documentElement.scrollWidth > width + 1) {
    found.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px in ${width}`);
  }
  const main = document.querySelector('main') || document.body;
  const sticking = new Set();
  for (const e of main.querySelectorAll('*')) {
    if (!visible(e) || e.closest('.dadp-chart svg, ' + unseen)) continue;
    const r = e.getBoundingClientRect();
    const inside = e.parentElement && sticking.has(e.parentElement);
    if (r.right > width + 1 && r.left < width && !boxed(e) && !inside) {
      sticking.add(e);
      found.push(`${name(e)} runs to ${Math.round(r.right)} px: "${text(e)}"`);
    }
    if (hidden(e) && e.scrollWidth > e.clientWidth + 1
        && getComputedStyle(e).textOverflow !== 'ellipsis') {
      const over = Math.round(reach(e) - r.right);
      if (over > 2) found.push(`${name(e)} cuts its content by ${over} px: "${text(e)}"`);
    }
  }
  document.querySelectorAll('.dadp-chart').forEach((c, i) => {
    const svg = c.querySelector('svg');
    if (!svg) { found.push(`chart ${i + 1}: no SVG`); return; }
    const w = svg.getBoundingClientRect().width;
    if (w > c.clientWidth + 1) {
      found.push(`chart ${i + 1}: ${Math.round(w)} px in a ${c.clientWidth} px box`);
    }
  });
  return found;
}"""


@cache
def parameter_names() -> tuple[frozenset[str], frozenset[str]]:
    """Every chapter parameter's name (declared in the chapters' parameters cells, and the
    vocabulary of ``dadp_book.parameters``): (long names, short names). A long name
    (3+ characters or an underscore) is a finding wherever it stands as a word in the prose;
    a short one (``K``, ``QI``: also abbreviations) only where it stands for a value,
    after ``=``."""
    from dadp_book.discovery import list_chapters
    from dadp_book.parameters import VOCABULARY, chapter_parameters

    names = {n for n in VOCABULARY if "*" not in n}
    for slug in list_chapters(ROOT):
        names |= {p.name for p in chapter_parameters(ROOT, slug)}
    names = {n for n in names if n.isupper() or "_" in n}
    long = frozenset(n for n in names if len(n) >= 3 or "_" in n)
    return long, frozenset(names - long)


def parameter_findings(prose: str) -> list[str]:
    """Parameter names in ``prose`` (see :func:`parameter_names`)."""
    long, short = parameter_names()
    found = []
    if long:
        words = "|".join(sorted(map(re.escape, long), key=len, reverse=True))
        for match in re.finditer(rf"(?<![\w.])({words})(?![\w(])", prose):
            found.append(_context(prose, match))
    if short:
        words = "|".join(map(re.escape, short))
        for match in re.finditer(rf"=\s*({words})\b(?!\s*=)", prose):
            found.append(_context(prose, match))
    return found


def status_findings(prose: str) -> list[str]:
    """A status word said twice in a row: ``loose (loose; ...)``."""
    from dadp_lite.errata import STATUS_WORDS

    words = "|".join(sorted(map(re.escape, STATUS_WORDS), key=len, reverse=True))
    pattern = re.compile(rf"\b({words})\b[^().]{{0,30}}\(\s*\1\b")
    return [_context(prose, m) for m in pattern.finditer(prose)]


def alt_findings(images: list[dict]) -> list[str]:
    """Images without alt text, or whose alt text is a file path."""
    found = []
    for image in images:
        alt = (image.get("alt") or "").strip()
        path_like = re.search(r"(^|/)[\w.-]+\.(png|jpe?g|svg|gif|webp)$", alt) or "_images/" in alt
        if not alt or path_like or alt == image.get("src"):
            found.append(f"{image.get('src', '')[-50:]}: alt {alt[:60]!r}")
    return found


_SNAKE = re.compile(r"[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)+")
_FLOAT_HEADER = re.compile(r"-?\d+\.\d*0{3,}")  # 0.500000: a number's repr, not a label
_FLOAT_INT = re.compile(r"[-\u2212]?[\d,]+\.0+")
_BIG_FLOAT_INT = re.compile(r"[-\u2212]?[1-9][\d,]*\d\.0{2,}")
_NUMBER = re.compile(r"[-\u2212]?[\d,]*\.?\d+")


def table_findings(tables: list[dict]) -> list[str]:
    """What a person would not print: see ``table`` in the module docstring."""
    found = []
    for table in tables:
        name = table.get("caption", "")[:50]
        if table.get("index"):
            found.append(f"{name}: an index column ({table['index']} cells)")
        for head in table.get("head", []):
            if head.lower() in ("index", "unnamed: 0") or _SNAKE.fullmatch(head):
                found.append(f"{name}: header {head!r}")
            elif _FLOAT_HEADER.fullmatch(head):
                found.append(f"{name}: header {head!r} (a number's repr)")
        rows = table.get("rows", [])
        width = max((len(r) for r in rows), default=0)
        for j in range(width):
            cells = [r[j] for r in rows if j < len(r)]
            numbers = [c for c in cells if _NUMBER.fullmatch(c)]
            ints = [c for c in numbers if _FLOAT_INT.fullmatch(c)]
            big = [c for c in ints if abs(float(c.replace(",", "").replace("\u2212", "-"))) >= 2]
            if numbers and len(ints) == len(numbers) and big:
                found.append(f"{name}: column {j + 1} holds integers as floats ({ints[0]})")
            elif any(_BIG_FLOAT_INT.fullmatch(c) for c in cells):
                shown = next(c for c in cells if _BIG_FLOAT_INT.fullmatch(c))
                found.append(f"{name}: column {j + 1}: integer as a float ({shown})")
            for cell in cells:
                if cell in ("True", "False"):
                    found.append(f"{name}: column {j + 1}: {cell}")
                    break
                # a separator, not an absolute value such as |z|
                if "|" in re.sub(r"\|[^|\s][^|]{0,10}\|", "", cell) or re.search(r"9{6,}", cell):
                    found.append(f"{name}: column {j + 1}: {cell[:50]!r}")
                    break
    return found


@cache
def api_names() -> frozenset[str]:
    """The package's public names that read as code (an underscore in them): functions,
    constants and mechanism names of ``dadp_lite`` and its subpackages' ``__all__``."""
    import importlib
    import pkgutil

    import dadp_lite

    names = set(getattr(dadp_lite, "__all__", ()))
    for module in pkgutil.iter_modules(dadp_lite.__path__):
        if module.name.startswith("_"):
            continue
        try:
            names |= set(getattr(importlib.import_module(f"dadp_lite.{module.name}"),
                                 "__all__", ()))  # fmt: skip
        except ImportError:
            continue
    return frozenset(n for n in names if "_" in n.strip("_"))


_MODULE_NAME = re.compile(
    r"(?<![\w.])(?:dl|dadp_lite|dadp_book|th|ex|errata|summaries|tables|words)"
    r"\.[A-Za-z_]\w*"
)
_CONSTANT = re.compile(r"(?<![\w.])[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9](?![\w])")
_BUILD_WORDS = re.compile(r"\bpapermill\b|\bhidden tests?\b", re.I)


def build_word_findings(text: str, exercises: str = "") -> list[str]:
    """Build vocabulary in what a student reads (see ``build_words`` above): in ``text``
    (prose and captions) and ``exercises`` (exercises and solutions). A public name of the
    package counts in the prose only: an exercise may ask for a function of that name."""
    found = []
    for where in (text, exercises):
        found += [_context(where, m) for m in _MODULE_NAME.finditer(where)]
        found += [_context(where, m) for m in _CONSTANT.finditer(where)]
        found += [_context(where, m) for m in _BUILD_WORDS.finditer(where)]
    found += parameter_findings(text) + parameter_findings(exercises)
    names = api_names()
    if names:
        words = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
        found += [_context(text, m) for m in re.finditer(rf"(?<![\w.])({words})(?![\w])", text)]
    return found


def glossary_terms(path: Path | None = None) -> list[list[str]]:
    """The terms of the glossary page (``book/glossary.md``), one list per entry (a term
    and its synonyms: the lines that share one definition, and the two names of a term
    written ``name (symbol)``), read from the source of its ``glossary`` directive. No
    page, no terms."""
    path = path or ROOT / "book" / "glossary.md"
    if not path.is_file():
        return []
    entries: list[list[str]] = []
    inside, fence, current, defined = False, "", [], False
    for line in path.read_text().splitlines():
        stripped = line.strip()
        opening = re.match(r"^(`{3,}|:{3,})\s*\{glossary\}", stripped)
        if opening:
            inside, fence, current, defined = True, opening.group(1), [], False
            continue
        if not inside:
            continue
        if stripped == fence:
            if current:
                entries.append(current)
            inside = False
            continue
        if not stripped or stripped.startswith(":"):
            continue
        if line[:1].isspace():
            defined = True
            continue
        if defined and current:
            entries.append(current)
            current, defined = [], False
        term = re.sub(r"\s+:\s+\w+$", "", stripped)  # "term : key" (an index key)
        current.append(term)
        alias = re.fullmatch(r"(.+?)\s*\((.+)\)", term)  # "epsilon (ε)": both names count
        if alias:
            current += [alias.group(1).strip(), alias.group(2).strip()]
    return entries


def glossary_findings(boxes: list[dict], entries: list[list[str]], anchors: dict[str, str]
                      ) -> list[str]:  # fmt: skip
    """Terms used in a main-result box without a link to their definition in it.

    ``entries``: :func:`glossary_terms`; ``anchors``: each term (as the glossary page
    shows it) -> the id of its definition on that page. A term of one letter or symbol
    (``ε``, ``d``) counts where it stands alone, a longer one case-insensitively as a
    word (plural allowed)."""
    found = []
    for number, box in enumerate(boxes, 1):
        text, links = box.get("text", ""), box.get("links", [])
        linked = {href.rsplit("#", 1)[-1] for href in links if "glossary" in href and "#" in href}
        covered = [t for e in entries if ({anchors.get(t) for t in e} - {None}) & linked
                   for t in e if len(t) > 2]  # fmt: skip
        for name in sorted(covered, key=len, reverse=True):  # "QI-replace adjacency", linked,
            text = re.sub(re.escape(name), " ", text, flags=re.I)  # covers "adjacency" in it
        for entry in entries:
            ids = {anchors.get(term) for term in entry} - {None}
            if ids & linked:
                continue
            for term in entry:
                if len(term) <= 2:
                    pattern = rf"(?<![\w\u0370-\u03ff]){re.escape(term)}(?![\w\u0370-\u03ff])"
                    flags = 0
                else:
                    pattern, flags = rf"\b{re.escape(term)}(s|es)?\b", re.I
                if re.search(pattern, text, flags):
                    found.append(f"box {number}: {term!r} without a link to its definition")
                    break
    return found


def figure_text_findings(
    images: list[dict], body_px: float, page: Path, min_pt: float
) -> list[str]:
    """Matplotlib PNGs of ``page`` (the built HTML file) whose smallest text, ``min_pt``
    points at the dpi the PNG records, scaled to the width the browser shows, is smaller
    than ``body_px``: ``min_pt * dpi / 72 * shown / natural < body_px``. Images not shown
    (width 0, in a folded output) are left out."""
    from PIL import Image

    found = []
    for image in images:
        src = image.get("src", "").split("?")[0]
        if "_images/" not in src or not src.endswith(".png") or not image.get("shown"):
            continue
        with Image.open(page.parent / src) as png:
            if not str(png.info.get("Software", "")).startswith("Matplotlib"):
                continue
            dpi = float(png.info["dpi"][0])
        px = min_pt * dpi / 72 * image["shown"] / image["natural"]
        if px < body_px:
            found.append(
                f"{page.stem}: {src.rsplit('/', 1)[-1][:16]}...: {min_pt:g} pt at {dpi:.0f} dpi, "
                f"{image['natural']} px shown {image['shown']} px wide = {px:.1f} px, "
                f"below the body text's {body_px:g} px"
            )
    return found


def citation_findings(citation: dict | None) -> list[str]:
    """No citation block, or one without BibTeX, version or date."""
    if not citation:
        return ["no 'How to cite this book' block"]
    problems = []
    if "@book" not in citation.get("bibtex", ""):
        problems.append("the citation block has no BibTeX entry")
    text = citation.get("text", "")
    if not re.search(r"Version \S+", text) or not re.search(r"built \d{4}-\d{2}-\d{2}", text):
        problems.append("the citation block states no version or build date")
    if "Licence" not in text:
        problems.append("the citation block states no licence")
    return problems


def axe_findings(page) -> list[str]:
    """axe-core (shipped by axe-playwright-python, no network) on ``page`` with its default
    rule set, no rule disabled and nothing excluded: violations of impact serious or
    critical, one line per rule with the number of elements. (``preload`` off: axe's own
    fetch of the style sheets resolves the theme's ``@import`` against the wrong folder and
    logs a 404; the browser has applied them already.)"""
    from axe_playwright_python.sync_playwright import Axe

    options = {"resultTypes": ["violations"], "preload": False}
    result = Axe().run(page, options=options)
    found = []
    for violation in result.response["violations"]:
        if violation.get("impact") in ("serious", "critical"):
            nodes = violation["nodes"]
            targets = [" ".join(map(str, n.get("target", []))) for n in nodes]
            checks = [c for n in nodes[:1] for c in n.get("any", []) + n.get("all", [])]
            why = checks[0].get("message", "") if checks else ""
            found.append(
                f"{violation['id']} ({violation['impact']}, {len(targets)}): "
                f"{violation['help']}; e.g. {targets[:2]} {why}"
            )
    return found


def _context(text: str, match: re.Match, width: int = 40) -> str:
    start, end = max(0, match.start() - width), min(len(text), match.end() + width)
    return "..." + text[start:end].strip() + "..."
