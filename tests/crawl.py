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
``axe``            an axe-core violation of impact serious or critical (colour contrast on
                   the pages of ``CONTRAST_PAGES``, in light and dark mode)
``console``        a console error or warning, a page error, a failed or external request
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
    "contrast",
    "console",
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
    i => ({src: i.getAttribute('src') || '', alt: i.getAttribute('alt')}));
  return out;
}"""

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


#: axe leaves out MathJax's typeset formulas (thousands of elements each; their colours are
#: the text's) and fetches no style sheet itself (``preload``: its CSSOM fetch resolves the
#: theme's ``@import`` against the wrong folder and logs a 404).
_AXE_CONTEXT = {"exclude": [["mjx-container"]]}
#: The rule whose run time grows fastest with a page's length (minutes on the longest
#: chapter): the crawler runs it on the pages of :data:`CONTRAST_PAGES`, every other rule on
#: every page.
CONTRAST = "color-contrast"
#: Pages that together hold every element the book's styles colour: prose and links, math,
#: code, reader tables, charts, exercises and solutions, admonitions, the indexes, the
#: errata table, the search page.
CONTRAST_PAGES = (
    "book/intro",
    "book/errata",
    "notebooks/13-classification",
    "notebooks/05-cell-suppression-bias",
    "genindex",
    "prf-prf",
    "search",
)


def axe_findings(page, *, contrast: bool = False) -> list[str]:
    """axe-core (shipped by axe-playwright-python, no network) on ``page``: violations of
    impact serious or critical, one line per rule with the number of elements. Every rule
    but :data:`CONTRAST`, or (``contrast=True``) that rule alone."""
    from axe_playwright_python.sync_playwright import Axe

    rules = {"runOnly": [CONTRAST]} if contrast else {"rules": {CONTRAST: {"enabled": False}}}
    options = {"resultTypes": ["violations"], "preload": False, **rules}
    result = Axe().run(page, context=_AXE_CONTEXT, options=options)
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
