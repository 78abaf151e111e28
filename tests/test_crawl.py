"""The crawler's checks (tests/crawl.py) on small inputs whose verdict is known: each must
find what it is for and nothing on a clean page. The glossary check reads its terms from
``book/glossary.md``; here from a fixture of the same form."""

from __future__ import annotations

import crawl

GLOSSARY = """# Glossary

```{glossary}
epsilon
ε
  The privacy-loss budget: smaller means more private.

delta
δ
  The probability with which the guarantee may fail; δ close to 1 means no guarantee.

vacuous
  A guarantee that promises nothing.

alpha-fairness (α)
  The spread of the per-cell biases.
```
"""


def test_glossary_terms_are_read_from_the_glossary_directive(tmp_path):
    page = tmp_path / "glossary.md"
    page.write_text(GLOSSARY)
    assert crawl.glossary_terms(page) == [
        ["epsilon", "ε"],
        ["delta", "δ"],
        ["vacuous"],
        ["alpha-fairness (α)", "alpha-fairness", "α"],
    ]
    assert crawl.glossary_terms(tmp_path / "missing.md") == []


def test_a_term_in_a_main_result_needs_a_link_to_its_definition(tmp_path):
    page = tmp_path / "glossary.md"
    page.write_text(GLOSSARY)
    entries = crawl.glossary_terms(page)
    anchors = {"epsilon": "term-epsilon", "ε": "term-0", "delta": "term-delta",
               "δ": "term-1", "vacuous": "term-vacuous"}  # fmt: skip
    linked = {
        "text": "At ε = 1 the δ is 0.99: a vacuous guarantee.",
        "links": ["../book/glossary.html#term-0", "../book/glossary.html#term-delta",
                  "../book/glossary.html#term-vacuous"],
    }  # fmt: skip
    assert crawl.glossary_findings([linked], entries, anchors) == []
    bare = {"text": "At ε = 1 the δ is 0.99: vacuous.", "links": ["glossary.html#term-0"]}
    found = crawl.glossary_findings([bare], entries, anchors)
    assert len(found) == 2 and "'δ'" in found[0] and "'vacuous'" in found[1]
    words = {"text": "Epsilons and deltas of the sandwich", "links": []}
    assert len(crawl.glossary_findings([words], entries, anchors)) == 2
    assert (
        crawl.glossary_findings([{"text": "εδ-free text αβ", "links": []}], entries, anchors) == []
    )


def test_a_linked_longer_term_covers_the_shorter_term_inside_it():
    """A box that links "QI-replace adjacency" does not also need a link for "adjacency",
    the word inside it; the shorter term used on its own still does."""
    entries = [["adjacency"], ["QI-replace adjacency"]]
    anchors = {"adjacency": "term-adjacency", "QI-replace adjacency": "term-qi"}
    inside = {"text": "Under QI-replace adjacency δ is 0.89.", "links": ["glossary.html#term-qi"]}
    assert crawl.glossary_findings([inside], entries, anchors) == []
    alone = {"text": "Under QI-replace adjacency, and any adjacency.",
             "links": ["glossary.html#term-qi"]}  # fmt: skip
    assert len(crawl.glossary_findings([alone], entries, anchors)) == 1  # the bare word


def test_tables_a_person_would_not_print_are_found():
    clean = {"caption": "ok", "index": 0, "head": ["ε", "ℓ₁ bias (records)", "count"],
             "rows": [["0.5", "1.25", "540"], ["1", "0.5", "12,750"]]}  # fmt: skip
    assert crawl.table_findings([clean]) == []
    bad = {"caption": "bad", "index": 3, "head": ["bias_l1", "0.500000", "n"],
           "rows": [["True", "540.000", "a | b"], ["False", "2.000", "N = 9999999"]]}  # fmt: skip
    found = " ".join(crawl.table_findings([bad]))
    for what in ("index column", "'bias_l1'", "'0.500000'", "True", "integers as floats", "|"):
        assert what in found, what
    absolute = {"caption": "z", "index": 0, "head": ["basis"], "rows": [["largest |z| = 2.5"]]}
    assert crawl.table_findings([absolute]) == []
    rounded = {"caption": "δ", "index": 0, "head": ["δ"], "rows": [["1.000"], ["0.998"]]}
    assert crawl.table_findings([rounded]) == []  # a rounded probability is no integer


def test_build_words_in_what_a_student_reads():
    clean = "We draw 200 releases of the MA histogram at ε = 1 and compare the bias."
    assert crawl.build_word_findings(clean) == []
    for text in (
        "RATES are the fractions and BIAS_REPS the repetitions",
        "from the sampler dl.dp_swapping",
        "the printed numbers (dl.paper_tables())",
        "Papermill replaces it when the book is built",
        "which is how the hidden tests check it",
        "the exact variance dp_swapping_release_variance",
    ):
        assert crawl.build_word_findings(text), text
    task = "Write a function hockey_stick(p, q, epsilon); try REPS_X = 4"
    assert len(crawl.build_word_findings("", task)) == 1  # the student's function is fine
    assert crawl.build_word_findings("the divergence hockey_stick(p, q, epsilon)")


def test_citation_block_needs_bibtex_version_date_and_licence():
    text = "How to cite Version 0.2.0, built 2026-11-27. Licence: BSD-3-Clause."
    good = {"bibtex": "@book{x, title = {T}}", "text": text}
    assert crawl.citation_findings(good) == []
    assert crawl.citation_findings(None) == ["no 'How to cite this book' block"]
    assert len(crawl.citation_findings({"bibtex": "", "text": "cite me"})) == 3


def test_figure_text_smaller_than_the_body_text_at_the_width_shown_is_found(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (tmp_path / "_images").mkdir()
    page = tmp_path / "notebooks" / "01-x.html"
    page.parent.mkdir()
    for name, width in [("narrow", 6.0), ("wide", 9.0)]:
        fig = plt.figure(figsize=(width, 3), dpi=110)
        fig.savefig(tmp_path / "_images" / f"{name}.png", dpi=110)
        plt.close(fig)
    narrow = {"src": "../_images/narrow.png", "shown": 660, "natural": 660}
    wide = {"src": "../_images/wide.png", "shown": 672, "natural": 990}
    folded = {"src": "../_images/wide.png", "shown": 0, "natural": 990}
    assert crawl.figure_text_findings([narrow, folded], 16.0, page, 10.5) == []
    (found,) = crawl.figure_text_findings([narrow, wide], 16.0, page, 10.5)
    # 10.5 pt * 110 / 72 * 672 / 990 = 10.9 px
    assert "wide.png" in found and "10.9 px" in found and "16 px" in found
    assert len(crawl.figure_text_findings([narrow], 16.0, page, 10)) == 1  # 15.3 px
