"""dadp_book.sphinx_ext and the PDF outline: the helpers behind the reader's HTML."""

from __future__ import annotations

from types import SimpleNamespace

from docutils import nodes

from dadp_book import sphinx_ext
from dadp_book.pdf import _headings, _sections


def test_inline_maths_becomes_plain_unicode_text():
    assert sphinx_ext._tex_words(r"\alpha-fairness") == "α-fairness"
    assert sphinx_ext._tex_words(r"(\epsilon, \delta)-DP") == "(ε, δ)-DP"
    assert sphinx_ext._tex_words(r"\ell_1 norm") == "ℓ₁ norm"
    caption = nodes.caption(
        "", "", nodes.Text("The "), nodes.math("", r"\ell_1"), nodes.Text(" bias.")
    )
    assert sphinx_ext.plain_text(caption) == "The ℓ₁ bias."


def test_alt_text_is_the_captions_first_sentence_never_the_path():
    document = nodes.document(None, None)
    figure = nodes.figure()
    image = nodes.image(uri="_images/abc.png", alt="_images/abc.png")
    figure += image
    figure += nodes.caption("", "Bias against epsilon, one panel per dataset. Bands: 95%.")
    section = nodes.section()
    section += nodes.title("", "Figures")
    loose = nodes.image(uri="_images/def.png")
    section += figure
    section += loose
    document += section
    sphinx_ext.describe_images(None, document, "doc")
    assert image["alt"] == "Bias against epsilon, one panel per dataset."
    assert loose["alt"] == "Figure: Figures"
    kept = nodes.image(uri="x.png", alt="A chosen description")
    document += kept
    sphinx_ext.describe_images(None, document, "doc")
    assert kept["alt"] == "A chosen description"


def test_proof_titles_lose_sphinx_proofs_parentheses():
    config = SimpleNamespace(proof_title_format=" (%t)")
    assert (
        sphinx_ext._bare_title("(Bias of projected Laplace)", config) == "Bias of projected Laplace"
    )
    assert sphinx_ext._bare_title("Plain", SimpleNamespace(proof_title_format="%t")) == "Plain"


def test_pages_lose_the_font_awesome_script_and_the_search_index(tmp_path):
    head = (
        '<script defer src="../_static/scripts/fontawesome.js?digest=1"></script>\n'
        '    <script src="../_static/searchtools.js"></script>\n'
        '    <script src="../searchindex.js"></script>\n<p>body</p>\n'
    )
    bib = '<div role="list"><div class="citation" id="id1" role="doc-biblioentry">A.</div></div>'
    (tmp_path / "refs.html").write_text(bib)
    (tmp_path / "page.html").write_text(head)
    (tmp_path / "search.html").write_text(head)
    (tmp_path / "_static" / "scripts").mkdir(parents=True)
    (tmp_path / "_static" / "scripts" / "fontawesome.js").write_text("x")
    app = SimpleNamespace(outdir=str(tmp_path), builder=SimpleNamespace(format="html"))
    sphinx_ext.strip_unused_scripts(app, None)
    assert (tmp_path / "page.html").read_text() == "<p>body</p>\n"
    search = (tmp_path / "search.html").read_text()
    assert "searchindex.js" in search and "fontawesome" not in search
    assert not (tmp_path / "_static" / "scripts" / "fontawesome.js").exists()
    assert 'class="citation" id="id1" role="listitem"' in (tmp_path / "refs.html").read_text()


def test_unused_assets_are_left_out_of_a_page():
    chart = {"body": '<div class="dadp-chart" data-chart="x"></div>'}
    plain = {"body": "<p>text</p>"}
    assert sphinx_ext._unused("sphinx-thebe.js", chart)
    assert sphinx_ext._unused("dadp-charts.css", plain)
    assert not sphinx_ext._unused("dadp-charts.css", chart)
    assert sphinx_ext._unused("design-tabs.js", plain)
    assert not sphinx_ext._unused("design-tabs.js", {"body": '<div class="sd-tab-set">'})
    assert not sphinx_ext._unused("dadp.css", plain)


def test_mathjax_loads_its_startup_module_with_the_books_components():
    config = SimpleNamespace(mathjax_path="mathjax/tex-chtml.js", mathjax3_config=None)
    sphinx_ext.light_mathjax(None, config)
    assert config.mathjax_path == "mathjax/startup.js"
    assert config.mathjax3_config["loader"]["load"] == sphinx_ext.MATHJAX_COMPONENTS
    chosen = SimpleNamespace(mathjax_path="https://example.org/mj.js", mathjax3_config=None)
    sphinx_ext.light_mathjax(None, chosen)
    assert chosen.mathjax_path == "https://example.org/mj.js"


def test_pdf_sections_stop_at_the_next_document():
    headings = [
        (0, "Contents", 1),
        (0, "Book", 3),
        (1, "How to read", 3),
        (1, "Chapter one", 5),
        (2, "Overview", 5),
        (3, "Learning objectives", 5),
        (2, "Setup", 6),
        (1, "Chapter two", 8),
        (2, "Overview", 8),
    ]
    starts = {("Book", 3), ("Chapter one", 5), ("Chapter two", 8)}
    assert _sections(headings, "Book", 3, starts) == [("How to read", 3, [])]
    assert _sections(headings, "Chapter one", 5, starts) == [
        ("Overview", 5, [("Learning objectives", 5)]),
        ("Setup", 6, []),
    ]
    assert _sections(headings, "Missing", 9, starts) == []


def test_pdf_headings_take_the_pages_titles_not_chromiums_spelling():
    """Chromium's outline titles lose spaces where a heading wraps, repeat some and drop
    maths; the page's own headings (same order) give levels and titles."""

    class Item:
        def __init__(self, title, page):
            self.title, self.page = title, page

    outline = [Item("Book", 0), [Item("Estimating bias and from data", 1),
               Item("The dataThe data", 2), Item("exactdelta", 3)]]  # fmt: skip
    reader = SimpleNamespace(outline=outline, get_destination_page_number=lambda i: i.page)
    shown = [[1, "Book"], [2, "Estimating bias and α from data"], [3, "The data"]]
    assert _headings(reader, shown) == [
        (1, "Book", 0),
        (2, "Estimating bias and α from data", 1),
        (3, "The data", 2),
        (2, "exactdelta", 3),  # not on the page: Chromium's own title and depth
    ]


def test_exercises_are_numbered_per_chapter():
    env = SimpleNamespace(
        toc_fignumbers={
            "notebooks/01": {"exercise": {"ex-a-2": (2,), "ex-a-1": (1,)}, "figure": {"f": (1,)}},
            "notebooks/12": {"exercise": {"ex-b-1": (47,), "ex-b-2": (48,)}, "figure": {"g": (9,)}},
        }
    )
    assert sphinx_ext.number_exercises_per_chapter(None, env) == []
    assert env.toc_fignumbers["notebooks/12"]["exercise"] == {"ex-b-1": (1,), "ex-b-2": (2,)}
    assert env.toc_fignumbers["notebooks/01"]["exercise"] == {"ex-a-1": (1,), "ex-a-2": (2,)}
    assert env.toc_fignumbers["notebooks/12"]["figure"] == {"g": (9,)}  # figures untouched


def test_citation_block_states_version_date_licence_and_a_configured_repository_only():
    from dadp_book import sphinx_cite

    info = {"title": "T", "author": "A", "year": "2026", "version": "0.2.0", "url": "",
            "date": "2026-11-27", "profile": "full", "licence": "BSD-3-Clause"}  # fmt: skip
    block = sphinx_cite.citation_html(info)
    assert 'class="dadp-cite"' in block and "@book{dadp_book_2026" in block
    assert "Version 0.2.0, built 2026-11-27 (profile full)" in block
    assert "Licence: BSD-3-Clause" in block and "href" not in block  # no repository: no link
    linked = sphinx_cite.citation_html(info | {"url": "https://example.org/book"})
    assert 'href="https://example.org/book"' in linked and "url     = {https://" in linked


def test_chapter_csv_files_are_found_by_slug(tmp_path):
    from dadp_book import sphinx_data

    folder = tmp_path / "notebooks"
    folder.mkdir()
    for name in ("07-swapping-bias-sweep-ma2019.csv", "07-swapping-bias-x.txt", "12-data-a.csv"):
        (folder / name).write_text("a,b\n1,2\n")
    found = sphinx_data.chapter_files(tmp_path, "notebooks/07-swapping-bias")
    assert [p.name for p in found] == ["07-swapping-bias-sweep-ma2019.csv"]
    assert sphinx_data.chapter_files(tmp_path, "book/intro") == []


def test_the_citation_names_only_a_repository_the_config_names(tmp_path):
    from dadp_book import sphinx_cite

    assert sphinx_cite._repository(tmp_path) == ""  # no _config.yml
    (tmp_path / "_config.yml").write_text("title: T\n")
    assert sphinx_cite._repository(tmp_path) == ""  # none named (Jupyter Book's own is not)
    (tmp_path / "_config.yml").write_text("repository:\n  url: https://example.org/book\n")
    assert sphinx_cite._repository(tmp_path) == "https://example.org/book"


def test_a_glossary_terms_preview_holds_the_definition_its_synonyms_share():
    from dadp_book import sphinx_tips

    body = (
        '<dl class="simple glossary"><dt id="term-delta">delta</dt><dt id="term-0">δ</dt>'
        "<dd><p>The chance the guarantee fails.</p></dd>"
        '<dt id="term-vacuous">vacuous</dt><dd><p>Promises nothing.</p></dd></dl>'
    )
    tips = {"term-delta": "<dt>delta</dt>"}
    env = SimpleNamespace(tippy_data={"pages": {"book/glossary": {"id_to_html": tips}}})
    sphinx_tips.glossary_tips(SimpleNamespace(env=env), "book/glossary", "", {"body": body}, None)
    assert "The chance the guarantee fails." in tips["term-delta"]
    assert "The chance the guarantee fails." in tips["term-0"] and "δ" in tips["term-0"]
    assert tips["term-vacuous"] == "<dt>vacuous</dt><dd><p>Promises nothing.</p></dd>"
