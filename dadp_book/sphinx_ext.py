"""Sphinx extension for dadp-book's HTML (``_config.yml``'s ``extra_extensions``).

For the reader of the HTML: offline interactive charts (vl-convert's Vega bundle written at
build time, loaded only by pages with a chart), lighter pages (no thebe, no unused
sphinx-design assets, no Font Awesome script, the search index only on the search page,
MathJax without its context menu), each chapter's code cells folded, exercises numbered per
chapter, images described by their caption's first sentence, theorems and definitions
indexed by title. It sets up the previews (:mod:`dadp_book.sphinx_tips`), the citation
footer (:mod:`dadp_book.sphinx_cite`) and the chapters' data files
(:mod:`dadp_book.sphinx_data`), and gives the PDF's ``singlehtml`` builder the ``html`` node
visitors it lacks (Sphinx falls back to a format's visitors only for a builder with none of
its own, so one extension's ``singlehtml`` visitor would hide all others').
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.transforms import SphinxTransform

__all__ = ["TitledProofIndex", "plain_text", "setup"]


# ------------------------------------------------------------------------ page assets
def write_chart_assets(app: Any) -> None:
    """HTML builds: write the Vega bundle into a folder of ``html_static_path`` (kept
    between builds while the versions match)."""
    if getattr(app.builder, "format", None) != "html":
        return
    from dadp_lite.interactive import write_bundle

    folder = Path(app.outdir).parent / "dadp-static"
    write_bundle(folder)
    if str(folder) not in app.config.html_static_path:
        app.config.html_static_path.append(str(folder))


def _has_chart(context: dict) -> bool:
    from dadp_lite.interactive import CHART_CLASS

    return f'class="{CHART_CLASS}"' in (context.get("body") or "")


def load_chart_assets(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    """Pages holding an interactive chart load the Vega bundle."""
    from dadp_lite.interactive import BUNDLE_NAME

    if _has_chart(context):
        app.add_js_file(BUNDLE_NAME, defer="defer")


def _unused(name: str, context: dict) -> bool:
    """Is the asset file ``name`` of no use on this page?"""
    from dadp_lite.interactive import STYLE_NAME

    body = context.get("body") or ""
    if "thebe" in name:  # no launch buttons, no live code
        return True
    if name.startswith(("design-tabs", "sphinx-design")):
        return 'class="sd-' not in body and " sd-" not in body
    return name == STYLE_NAME and not _has_chart(context)


def drop_unused_assets(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    """Leave out of the page's ``<head>`` the scripts and style sheets it does not use, and
    the second of two identical ones (sphinx-thebe adds its inline configuration script
    twice, and the browser then throws "Identifier 'THEBE_JS_URL' has already been
    declared")."""
    for key in ("script_files", "css_files"):
        assets = context.get(key)
        if not isinstance(assets, list):
            continue
        kept, seen = [], set()
        for asset in assets:
            filename = str(getattr(asset, "filename", asset) or "")
            attributes = getattr(asset, "attributes", {}) or {}
            name = filename.rsplit("/", 1)[-1].split("?")[0]
            thebe = "thebe" in " ".join(map(str, attributes.values())).lower()
            identity = (filename, tuple(sorted((str(k), str(v)) for k, v in attributes.items())))
            if (name and _unused(name, context)) or (not name and thebe) or identity in seen:
                continue
            seen.add(identity)
            kept.append(asset)
        assets[:] = kept


#: ``<script>`` tags of the theme's template that no page of the book needs: the Font Awesome
#: script (the icons come from the web font of the theme's style sheet) and, outside the
#: search page, Sphinx's search tools and index (the search box opens the search page).
_FONTAWESOME = re.compile(
    r'[ \t]*<script[^>]*src="[^"]*scripts/fontawesome\.js[^"]*"[^>]*>\s*</script>\n?'
)
_SEARCH = re.compile(
    r'[ \t]*<script[^>]*src="[^"]*(?:searchtools|language_data|searchindex)\.js[^"]*"[^>]*>'
    r"\s*</script>\n?"
)


#: Bibliography entries: docutils marks the list ``role="list"`` and each entry with the
#: deprecated ``role="doc-biblioentry"``, which is no list item (axe-core: a critical
#: "aria-required-children" violation on the references page).
_BIBLIOENTRY = re.compile(r'(<div class="citation"[^>]*?) role="doc-biblioentry"')


def strip_unused_scripts(app: Any, exception: Exception | None) -> None:
    """After an HTML build: remove the scripts of :data:`_FONTAWESOME` from every page and
    of :data:`_SEARCH` from every page but the search page; delete the Font Awesome script;
    bibliography entries become list items (:data:`_BIBLIOENTRY`)."""
    if exception is not None or getattr(app.builder, "format", None) != "html":
        return
    out = Path(app.outdir)
    for page in out.rglob("*.html"):
        if page.parts[len(out.parts)] in ("_static", "_sources"):
            continue
        text = page.read_text(encoding="utf-8")
        new = _BIBLIOENTRY.sub(r'\1 role="listitem"', _FONTAWESOME.sub("", text))
        if page.name != "search.html":
            new = _SEARCH.sub("", new)
        if new != text:
            page.write_text(new, encoding="utf-8")
    for leftover in (out / "_static" / "scripts").glob("fontawesome.js*"):
        leftover.unlink()


#: MathJax from its startup module and the components the book uses (TeX in, HTML out, the
#: hidden MathML that screen readers read): 0.4 MB lighter than ``tex-chtml.js``, which
#: also carries the context menu. Served by sphinx-mathjax-offline's copy in ``_static``.
MATHJAX_PATH = "mathjax/startup.js"
MATHJAX_COMPONENTS = ["input/tex", "output/chtml", "a11y/assistive-mml"]


def light_mathjax(app: Any, config: Any) -> None:
    """Load MathJax's startup module with :data:`MATHJAX_COMPONENTS` in place of the
    combined ``tex-chtml.js`` that sphinx-mathjax-offline sets."""
    if not str(config.mathjax_path).endswith("mathjax/tex-chtml.js"):
        return  # a book that chose its own MathJax keeps it
    config.mathjax_path = MATHJAX_PATH
    settings = dict(config.mathjax3_config or {})
    loader = dict(settings.get("loader") or {})
    loader["load"] = list(dict.fromkeys([*loader.get("load", []), *MATHJAX_COMPONENTS]))
    settings["loader"] = loader
    config.mathjax3_config = settings


# ------------------------------------------------------------------------ words from nodes
_TEX_WORDS = {
    r"\alpha": "α", r"\beta": "β", r"\gamma": "γ", r"\delta": "δ", r"\Delta": "Δ",
    r"\epsilon": "ε", r"\varepsilon": "ε", r"\sigma": "σ", r"\mu": "μ", r"\rho": "ρ",
    r"\ell": "ℓ", r"\infty": "∞", r"\le": "≤", r"\leq": "≤", r"\ge": "≥", r"\geq": "≥",
    r"\approx": "≈", r"\times": "×", r"\cdot": "·", r"\pm": "±", r"\ne": "≠", r"\neq": "≠",
    r"\in": "∈", r"\to": "→", r"\log": "log", r"\exp": "exp", r"\min": "min", r"\max": "max",
}  # fmt: skip
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _tex_words(tex: str) -> str:
    """Inline TeX as plain Unicode text for alt texts and index entries (``\\alpha`` -> α)."""
    text = re.sub(r"\\[a-zA-Z]+", lambda m: _TEX_WORDS.get(m.group(0), m.group(0)[1:]), tex)
    text = re.sub(r"_\{?(\d+)\}?", lambda m: m.group(1).translate(_SUBSCRIPTS), text)
    text = re.sub(r"\\[,;:! ]", " ", text).replace("{", "").replace("}", "").replace("\\", "")
    return " ".join(text.split())


def plain_text(node: nodes.Node) -> str:
    """A node's text with its inline maths written in Unicode (no ``$``, no backslashes)."""
    if isinstance(node, nodes.math):
        return _tex_words(node.astext())
    if isinstance(node, nodes.Text):
        return _tex_words(str(node)) if "$" in str(node) else str(node)
    return "".join(plain_text(child) for child in node.children)


def _first_sentence(text: str, limit: int = 240) -> str:
    text = " ".join(text.replace("$", "").split())
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    sentence = match.group(1) if match else text
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rsplit(" ", 1)[0] + "…"


# ------------------------------------------------------------------------ figures
def describe_images(app: Any, doctree: nodes.document, docname: str) -> None:
    """Give each image without alt text the first sentence of its figure's caption (or,
    outside a figure, the title of its section), never its file path."""
    for image in doctree.findall(nodes.image):
        alt = image.get("alt")
        if alt and alt != image.get("uri"):
            continue
        figure = image.parent
        while figure is not None and not isinstance(figure, nodes.figure):
            figure = figure.parent
        caption = next(iter(figure.findall(nodes.caption)), None) if figure else None
        if caption is not None:
            image["alt"] = _first_sentence(plain_text(caption))
            continue
        section = image.parent
        while section is not None and not isinstance(section, nodes.section):
            section = section.parent
        title = next(iter(section.findall(nodes.title)), None) if section else None
        image["alt"] = f"Figure: {plain_text(title)}" if title else "Figure"


# ------------------------------------------------------------------------ proofs
_KINDS = {
    "definition": "Definitions",
    "theorem": "Theorems",
    "lemma": "Lemmas",
    "proposition": "Propositions",
    "corollary": "Corollaries",
    "remark": "Remarks",
    "conjecture": "Conjectures",
    "example": "Examples",
    "algorithm": "Algorithms",
    "criterion": "Criteria",
    "axiom": "Axioms",
    "observation": "Observations",
    "property": "Properties",
    "assumption": "Assumptions",
    "notation": "Notation",
}


def _is_proof_node(node: nodes.Node) -> bool:
    return isinstance(node, nodes.Element) and "realtype" in node.attributes and "label" in node


def _bare_title(text: str, config: Any) -> str:
    """A proof title without sphinx-proof's ``proof_title_format`` (`` (%t)``) around it."""
    before, _, after = str(getattr(config, "proof_title_format", "%t") or "%t").partition("%t")
    text = text.strip()
    before, after = before.strip(), after.strip()
    if before and text.startswith(before):
        text = text[len(before) :]
    if after and text.endswith(after):
        text = text[: -len(after)]
    return text.strip()


class IndexProofs(SphinxTransform):
    """Record each ``prf:`` directive's title and give it a general-index entry (before
    Sphinx's domains collect index entries, priority 850)."""

    default_priority = 840

    def apply(self, **kwargs: Any) -> None:
        from sphinx import addnodes

        proofs = getattr(self.env, "proof_list", {})
        for node in list(self.document.findall(_is_proof_node)):
            label, kind = node["label"], node["realtype"]
            title_node = next(iter(node.findall(nodes.title)), None)
            title = _bare_title(plain_text(title_node), self.config) if title_node else ""
            if label in proofs:
                proofs[label]["title"] = title
            if not title or not node["ids"]:
                continue
            entry = f"{title} ({kind})"
            index = addnodes.index(entries=[("single", entry, node["ids"][0], "", None)])
            node.parent.insert(node.parent.index(node), index)


def _titled_proof_index():
    """The proof index listing titles by kind (built lazily: sphinx-proof is optional)."""
    from sphinx_proof.domain import ProofIndex

    class TitledProofIndex(ProofIndex):
        """sphinx-proof's index with each entry's title (and chapter), grouped by kind."""

        def generate(self, docnames=None):
            env = self.domain.env
            proofs = getattr(env, "proof_list", {})
            order = {name: i for i, name in enumerate(_toc_order(env))}
            groups: dict[str, list] = {}
            for anchor, values in proofs.items():
                if docnames and values["docname"] not in docnames:
                    continue
                kind = values["realtype"]
                title = values.get("title") or anchor
                chapter = env.titles.get(values["docname"])
                where = chapter.astext() if chapter is not None else values["docname"]
                groups.setdefault(_KINDS.get(kind, kind.title() + "s"), []).append(
                    (order.get(values["docname"], 10**6), title, values["docname"], anchor, where)
                )
            content = []
            for group in sorted(groups, key=lambda g: list(_KINDS.values()).index(g)
                                if g in _KINDS.values() else 99):  # fmt: skip
                rows = sorted(groups[group])
                entries = [(title, 0, doc, anchor, where, "", "") for _, title, doc, anchor, where
                           in rows]  # fmt: skip
                content.append((group, entries))
            return content, False

    return TitledProofIndex


def _toc_order(env: Any) -> list[str]:
    """The documents in reading order (the toctree from the root document)."""
    order: list[str] = []

    def walk(doc: str) -> None:
        if doc in order:
            return
        order.append(doc)
        for child in env.toctree_includes.get(doc, []):
            walk(child)

    walk(env.config.root_doc)
    return order


TitledProofIndex = None  # set by setup() when sphinx-proof is installed


# ------------------------------------------------------------------------ folded code
#: The prompts of a folded code cell.
FOLD_SHOW, FOLD_HIDE = "Show code", "Hide code"


def _fold_code_cells():
    """A post-transform that folds every code cell of a chapter in the HTML (``html``
    builder only: the PDF's ``singlehtml`` keeps the code it shows, and the student
    notebooks are written from the sources). Built lazily: myst-nb is optional."""
    from sphinx.transforms.post_transforms import SphinxPostTransform

    class FoldCodeCells(SphinxPostTransform):
        default_priority = 198  # before myst-nb's HideInputCells (199) wraps them
        formats = ("html",)

        def run(self, **kwargs: Any) -> None:
            if self.app.builder.name != "html" or not self.env.docname.startswith("notebooks/"):
                return
            for node in self.document.findall(nodes.container):
                if node.get("nb_element") != "cell_code" or not node.children:
                    continue
                if node.children[0].get("nb_element") != "cell_code_source":
                    continue
                mode = node.get("hide_mode")
                if mode in (None, "", "output"):  # a folded output: input and output
                    node["hide_mode"] = "input+output" if mode == "output" else "input"
                if node["hide_mode"] == "input":
                    node["prompt_show"], node["prompt_hide"] = FOLD_SHOW, FOLD_HIDE
                elif node["hide_mode"] == "input+output":  # "source", then "output"
                    node["prompt_show"], node["prompt_hide"] = "Show the {type}", "Hide the {type}"

    return FoldCodeCells


def number_exercises_per_chapter(app: Any, env: Any) -> list[str]:
    """Exercises numbered from 1 in each document ("Exercise 3" of its chapter), in their
    order, instead of across the whole book; references and solutions follow, as they
    read the same numbers. Runs after Sphinx has numbered the figures."""
    for kinds in getattr(env, "toc_fignumbers", {}).values():
        exercises = kinds.get("exercise")
        if exercises:
            ordered = sorted(exercises.items(), key=lambda item: item[1])
            kinds["exercise"] = {key: (i,) for i, (key, _) in enumerate(ordered, 1)}
    return []


#: The script that makes a box scroll with a visible cue and keyboard focus when its
#: content (a long formula, a wide table) is wider than the column, and stacks a prose
#: table of four columns or more into cards on a phone.
LAYOUT_SCRIPT = "dadp-layout.js"


def add_page_scripts(app: Any) -> None:
    """Every HTML page loads :data:`LAYOUT_SCRIPT` (deferred)."""
    if getattr(app.builder, "format", None) == "html":
        app.add_js_file(LAYOUT_SCRIPT, loading_method="defer")


# ------------------------------------------------------------------------ PDF edition
def share_html_visitors(app: Any) -> None:
    """Give an HTML-format builder other than ``html`` the ``html`` visitors it lacks."""
    builder = app.builder
    if builder.name == "html" or builder.format != "html":
        return
    handlers = app.registry.translation_handlers
    own = handlers.setdefault(builder.name, {})
    for node, pair in handlers.get("html", {}).items():
        own.setdefault(node, pair)


def setup(app: Any) -> dict:
    """Register the handlers above (:func:`drop_unused_assets` late, after every extension
    added its assets)."""
    global TitledProofIndex
    for extension in ("dadp_book.sphinx_tips", "dadp_book.sphinx_cite", "dadp_book.sphinx_data"):
        app.setup_extension(extension)
    app.connect("config-inited", light_mathjax)
    app.connect("builder-inited", write_chart_assets)
    app.connect("builder-inited", share_html_visitors)
    app.connect("builder-inited", add_page_scripts)
    app.add_post_transform(_fold_code_cells())
    app.connect("env-get-updated", number_exercises_per_chapter, priority=900)
    app.connect("html-page-context", load_chart_assets)
    app.connect("html-page-context", drop_unused_assets, priority=900)
    app.connect("doctree-resolved", describe_images)
    app.connect("build-finished", strip_unused_scripts)
    app.add_transform(IndexProofs)
    try:
        from sphinx_proof.domain import ProofDomain
    except ImportError:
        pass
    else:
        TitledProofIndex = _titled_proof_index()
        ProofDomain.indices = [TitledProofIndex]
    return {"parallel_read_safe": True, "parallel_write_safe": True}
