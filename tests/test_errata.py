"""The errata: status rules, claims and findings, one computation per finding, the pages,
and the agreement of every page on every number.

Unit tests check each rule (every word reachable, boundaries, bad input refused), the
catalog (ids, claims, chapters, the map from chapter parameters to settings), the
evaluation (once per process, the store between kernels), a few findings against
independent computations, and the pages' sources. Tests marked ``book`` read the quick
build: every key a page glues is glued, and for every finding, claim and verdict, every
page that shows one of its numbers shows the same text (parsed from the rendered HTML,
where each glued text carries its key).
"""

from __future__ import annotations

import inspect
import math
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
import yaml

from dadp_lite import errata
from dadp_lite.errata import status as st
from dadp_lite.errata.record import Finding, Result
from dadp_lite.errata.show import number, one_minus_power

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "errata.md"
LANDING = ROOT / "book" / "intro.md"
WORDS_TABLE = ROOT / "book" / "_status_words.md"
GLUE_ROLE = re.compile(r"\{glue(?::text)?\}`([^`]+)`")


def _toc_chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    return [f.split("/", 1)[1] for f in files if f.startswith("notebooks/")]


def _values(profile: str) -> dict[str, dict]:
    """Every chapter's parameter values in a profile, as the build passes them to pages."""
    from dadp_book.build import chapter_values

    return chapter_values(ROOT, profile)


# ------------------------------------------------------------------ vocabulary
def test_vocabulary_is_eight_words_defined_once():
    assert errata.STATUS_WORDS == ("holds", "typo", "proof gap", "loose", "false", "ambiguous",
                                   "reproduced", "not reproduced")  # fmt: skip
    assert set(errata.MEANINGS) == set(errata.STATUS_WORDS)
    assert set(errata.CLAIM_ORDER) == set(errata.STATUS_WORDS)
    rows = re.findall(r"^\| \*\*(.+?)\*\* \| (.+?) \|$", WORDS_TABLE.read_text(), flags=re.M)
    assert dict(rows) == errata.MEANINGS  # the pages' table says what the code means


def test_the_status_words_table_is_shown_on_the_notation_and_errata_pages():
    assert "```{include} _status_words.md" in (ROOT / "book" / "notation.md").read_text()
    assert "{ref}`sec-status-words`" in PAGE.read_text()


def test_every_word_is_reachable_through_a_rule():
    holds = st.delta_status(0.1, 0.08)
    false = st.delta_status(0.8, 0.9)
    reached = {
        holds.word,
        st.delta_status(0.5, 0.01).word,  # loose
        false.word,
        st.typo_status(false, holds, typo="t").word,
        st.proof_status(false, holds, step_name="s").word,
        st.readings_status([holds.as_reading("a"), false.as_reading("b")]).word,
        st.reproduced_status(1.0, 1.1, 1.0).word,
        st.reproduced_status(1.0, 100.0, 1.0).word,
    }
    assert reached == set(errata.STATUS_WORDS)


@pytest.mark.parametrize(
    ("printed", "exact", "word"),
    [
        (0.2, 0.1, "holds"),  # a factor 2 on the delta scale: below the margin (2.5)
        (0.2499, 0.1, "holds"),
        (0.25, 0.1, "loose"),
        (0.98, 0.96, "holds"),  # 1 - delta off by 2 (0.04 / 0.02) ...
        (0.99, 0.975, "loose"),  # ... and by 2.5 (0.025 / 0.01)
        (0.996, 0.99, "loose"),
        (0.0, 0.0, "holds"),
        (1.0, 1.0, "holds"),
        (0.3, 0.3 + 1e-13, "holds"),  # below by round-off only
        (0.3, 0.3 + 1e-9, "false"),
    ],
)
def test_delta_status_boundaries(printed, exact, word):
    assert st.delta_status(printed, exact).word == word


def test_a_factor_measured_near_two_cannot_flip_the_word():
    """The issue's knife edge: ratios 2.000 and 2.002 against a threshold of 2."""
    assert st.bound_status(2.000, 1.0).word == st.bound_status(2.002, 1.0).word == "holds"
    assert st.bound_status(2.5, 1.0).word == "loose"
    assert "2 times" in st.bound_status(2.0, 1.0).basis  # the factor is reported


def test_delta_status_tolerance_and_worst_element():
    assert st.delta_status(0.868, 0.8684, tol=5e-4).word == "holds"
    assert st.delta_status(0.868, 0.8894, tol=5e-4).word == "false"
    mixed = st.delta_status([0.5, 0.2], [0.1, 0.3])
    assert mixed.word == "false" and math.isclose(mixed.measure, -0.1)


def test_formula_typo_and_proof_rules():
    assert st.formula_status([1.0, 2.0], [1.0, 2.0 + 1e-12]).word == "holds"
    assert st.formula_status([1.0, 2.0], [1.0, 2.001]).word == "false"
    fails, holds = st.formula_status(0.1, 1.0), st.formula_status(1.0, 1.0)
    typo = st.typo_status(fails, holds, typo="exponent")
    assert typo.word == "typo" and [r.word for r in typo.readings] == ["false", "holds"]
    assert st.typo_status(fails, fails, typo="exponent") is fails  # no fix: stays false
    assert st.proof_status(fails, holds, step_name="step").word == "proof gap"
    assert st.proof_status(holds, fails, step_name="step").word == "false"
    assert st.proof_status(holds, holds, step_name="step").word == "holds"


def test_readings_status_names_every_reading_and_the_supported_one():
    a = st.Reading("first", "false", "x")
    b = st.Reading("second", "holds", "y", supported=True)
    found = st.readings_status([a, b])
    assert found.word == "ambiguous" and found.readings == (a, b)
    assert "second: holds (the paper's numbers support it)" in found.basis
    assert st.readings_status([a, st.Reading("third", "false")]).word == "false"
    with pytest.raises(ValueError, match="at most one"):
        st.readings_status([b, st.Reading("third", "holds", supported=True)])
    with pytest.raises(ValueError, match="two Reading"):
        st.readings_status([a])


def test_margin_status_needs_every_margin_beyond_its_interval():
    limit = st.z_limit(2)
    shown = st.margin_status([1.0, 2.0], [0.99 / limit, 0.1])
    assert shown.word == "reproduced" and shown.measure == pytest.approx(0.01)
    assert st.margin_status([1.0, 2.0], [1.01 / limit, 0.1]).word == "not reproduced"
    assert st.margin_status([1.0, 0.5], [0.0, 0.01]).word == "not reproduced"  # no spread


def test_reproduced_digits_and_claim_rules():
    assert st.reproduced_status(1.0, 1.0 + 4.0, 1.0).word == "reproduced"
    assert st.reproduced_status(1.0, 1.0 + 5.0, 1.0).word == "not reproduced"
    assert st.digits_status(0.9698, 0.969, 3).word == "reproduced"  # cut, one unit
    assert st.digits_status(0.9712, 0.969, 3).word == "not reproduced"
    assert st.claim_status([True, True]).word == "reproduced"
    assert st.claim_status([True, False]).basis == "holds in 1 of 2 settings"


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: st.delta_status(1.2, 0.5), ValueError),
        (lambda: st.delta_status("0.5", 0.5), TypeError),
        (lambda: st.delta_status([0.5, 0.4], [0.5, 0.4, 0.3]), ValueError),
        (lambda: st.bound_status(1.0, 1.0, loose_factor=1.0), ValueError),
        (lambda: st.reproduced_status(1.0, 1.0, 0.0), ValueError),
        (lambda: st.digits_status(1.0, 1.0, 1.5), TypeError),
        (lambda: st.claim_status([]), ValueError),
        (lambda: st.Status("valid", "basis", 1.0), ValueError),  # not a word any more
        (lambda: st.Status("holds", "", 1.0), ValueError),
        (lambda: st.Reading("", "holds"), ValueError),
    ],
)
def test_rules_refuse_bad_input(call, error):
    with pytest.raises(error):
        call()


# ---------------------------------------------------------------------- numbers
@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.8894, "0.8894"), (824.66, "824.7"), (145.0, "145"), (60321.5, "60,322"),
        (2.813e-8, "2.813 × 10⁻⁸"), (139590, "139,590"), (-0.1279, "−0.1279"), (0, "0"),
        (math.inf, "unbounded"), (np.float64(2.0), "2"),
    ],
)  # fmt: skip
def test_numbers_read_like_prose(value, text):
    assert number(value) == text


def test_powers_of_ten_close_to_one():
    assert one_minus_power(-124.8) == "1 − 10⁻¹²⁵"
    with pytest.raises(ValueError):
        one_minus_power(0.5)


# ---------------------------------------------------------------------- records
def test_a_result_formats_its_values_once_and_needs_a_reason_when_not_judged():
    found = Result(st.delta_status(0.2, 0.1), {"ratio": 2.0, "count": 1234, "where": "MA"})
    assert {k: v.text for k, v in found.values.items()} == {"ratio": "2", "count": "1,234",
                                                            "where": "MA"}  # fmt: skip
    assert found.number("count") == 1234 and found.judged
    with pytest.raises(ValueError, match="reason"):
        Result(None)
    skipped = Result(None, reason="nothing printed")
    assert not skipped.judged and skipped.word == errata.NOT_JUDGED
    with pytest.raises(ValueError):
        Result(st.delta_status(0.2, 0.1), {"Bad Name": 1})


def test_a_finding_takes_its_setting_from_its_chapters_parameters():
    finding = errata.get("classification-ranking")
    values = {"DATASETS": ["ma2019"], "EPSILONS": [0.5], "REPS": 5, "SEED": 1, "K": 6,
              "QI": ["race"], "OTHER": 3}  # fmt: skip
    settings = finding.settings(values)
    assert settings["names"] == ("ma2019",) and settings["reps"] == 5  # lists become tuples
    with pytest.raises(ValueError, match="REPS"):
        finding.settings({k: v for k, v in values.items() if k != "REPS"})


# ---------------------------------------------------------------------- catalog
def test_ids_are_unique_and_every_finding_has_a_claim_and_every_claim_a_finding():
    assert len({f.id for f in errata.FINDINGS}) == len(errata.FINDINGS)
    claims = {c.id for c in errata.CLAIMS}
    assert {f.claim for f in errata.FINDINGS} == claims


def test_every_finding_belongs_to_a_chapter_of_the_toc():
    assert {f.chapter for f in errata.FINDINGS} <= set(_toc_chapters())


@pytest.mark.parametrize("finding", errata.FINDINGS, ids=lambda f: f.id)
def test_a_finding_maps_its_arguments_to_its_chapters_parameters(finding):
    """Every argument of the computation is either fixed or a parameter the chapter
    declares (in its parameters cell), so that the chapter and the pages pass the same."""
    from dadp_book.parameters import chapter_parameters

    arguments = set(inspect.signature(finding.compute).parameters)
    assert arguments == set(finding.parameters) | set(finding.fixed), finding.id
    declared = {p.name for p in chapter_parameters(ROOT, finding.chapter)}
    assert set(finding.parameters.values()) <= declared, finding.id


def test_a_claim_is_counted_once_in_the_first_class_of_its_findings():
    assert errata.claim_class(["holds", "proof gap", "loose"]) == "proof gap"
    assert errata.claim_class(["typo", "loose", "holds"]) == "typo"
    assert errata.claim_class(["ambiguous", "proof gap"]) == "ambiguous"
    assert errata.claim_class(["false", "ambiguous"]) == "false"
    assert errata.claim_class([]) is None


def test_the_counts_add_up_and_skip_what_is_not_judged():
    results = {"cs-privacy-theorem": Result(st.delta_status(0.9, 0.5)),  # loose
               "cs-privacy-proof": Result(st.proof_status(
                   st.formula_status(0, 1), st.delta_status(0.9, 0.5), step_name="s")),
               "tables-cs-delta": Result(None, reason="nothing printed"),
               "lemma-1-sufficient": Result(st.bound_status(1, 1, loose_factor=None))}  # fmt: skip
    classes = errata.claim_classes(results)
    assert classes["cs-privacy"] == "proof gap" and classes["lemma-1"] == "holds"
    counts = errata.class_counts(results)
    assert counts["claims"] == 2 == sum(counts[w] for w in errata.CLAIM_ORDER)


def test_verdict_words_follow_the_findings():
    good = Result(st.claim_status([True]))
    bad = Result(st.claim_status([False]))
    assert errata.verdicts({"release-ranking": good, "classification-ranking": good}) == {
        "release": "stands",
        "classification": "stands",
        "overall": "stands",
    }
    both_bad = errata.verdicts({"release-ranking": bad, "classification-ranking": bad})
    assert both_bad["overall"] == "does not stand"
    assert errata.verdicts({})["overall"] == "not judged"
    assert set(both_bad.values()) <= set(errata.VERDICT_WORDS)


def test_a_result_is_computed_once_and_read_back_from_the_store(tmp_path, monkeypatch):
    """Another kernel of the build (here: the same process with its memory cleared) reads
    the stored result instead of computing it; a damaged entry is recomputed."""
    from dadp_lite.errata import catalog

    monkeypatch.setenv(errata.STORE_VARIABLE, str(tmp_path))
    finding = errata.get("lemma-1-proof-line")
    values = {"RR_OUTCOMES": 2, "RR_KEEP": 0.95, "BELOW": 0.01}
    monkeypatch.setattr(catalog, "_MEMO", {})
    first = errata.evaluate(finding, values)
    (entry,) = tmp_path.glob("lemma-1-proof-line-*.json")
    calls = []
    monkeypatch.setattr(catalog, "_MEMO", {})
    monkeypatch.setattr(Finding, "evaluate", lambda self, s: calls.append(s) or first)
    assert errata.glue_values(finding, errata.evaluate(finding, values)) == errata.glue_values(
        finding, first) and calls == []  # fmt: skip
    entry.write_text("{not json")
    monkeypatch.setattr(catalog, "_MEMO", {})
    errata.evaluate(finding, values)
    assert len(calls) == 1


def test_the_build_names_the_store_the_science_library_reads():
    from dadp_book.build import FINDINGS_STORE

    assert FINDINGS_STORE == errata.STORE_VARIABLE


# --------------------------------------------------- findings, checked another way
@pytest.fixture(scope="module")
def quick() -> dict[str, Result]:
    values = _values("quick")
    exact = [f for f in errata.FINDINGS if f.chapter.split("-")[0] in
             ("01", "02", "03", "04", "05", "06", "08", "10")]  # fmt: skip
    return {f.id: errata.evaluate(f, values[f.chapter]) for f in exact}


def test_a_false_status_always_records_the_readings_tried(quick):
    for finding_id, result in quick.items():
        if result.word in ("false", "ambiguous"):
            assert result.status.readings, finding_id


def test_swapping_privacy_against_the_enumerated_worst_pair(quick):
    """Per cell, QI-replace: the worst pair (a cell of count 2 against a split 1 + 1) by
    enumerating the output law, against the finding's exact delta."""
    from dadp_lite.theory import privacy
    from dadp_lite.theory import swapping as sw

    found = quick["swapping-privacy"]
    assert found.word == "ambiguous"
    eps = found.number("epsilon-first")
    n_q = found.number("n-q")
    x, y = np.zeros((1, n_q), dtype=int), np.zeros((1, n_q), dtype=int)
    x[0, 0], y[0, :2] = 2, (1, 1)
    p, q = (sw.dp_swapping_output_distribution(m, eps, "cell") for m in (x, y))
    support = sorted(set(p) | set(q))
    delta = max(privacy.hockey_stick(np.array([p.get(o, 0) for o in support]),
                                     np.array([q.get(o, 0) for o in support]), eps),
                privacy.hockey_stick(np.array([q.get(o, 0) for o in support]),
                                     np.array([p.get(o, 0) for o in support]), eps))  # fmt: skip
    assert found.number("cell-first") == pytest.approx(delta, abs=1e-12)


def test_lemma_proof_line_by_listing_every_event():
    from itertools import chain, combinations

    from dadp_lite.theory import accounting

    found = errata.evaluate("lemma-1-proof-line", {"RR_OUTCOMES": 2, "RR_KEEP": 0.95,
                                                   "BELOW": 0.01})  # fmt: skip
    p, q = accounting.randomized_response_distributions(2, 0.95)
    events = chain.from_iterable(combinations(range(2), r) for r in range(3))
    excess = max(p[list(e)].sum() - q[list(e)].sum() for e in events)
    assert found.number("printed-line-excess") == pytest.approx(excess, abs=1e-12)
    assert found.word == "typo"


def test_cell_suppression_proof_counterexample_against_the_written_out_law(quick):
    values = quick["cs-privacy-proof"]
    k, eps = values.number("k"), values.number("epsilon")
    assert (k, values.number("bound")) == (2, 3)
    assert values.values["x"].text == "(1, 1)" and values.values["x-prime"].text == "(0, 2)"
    q_point = (1 - 0.5 * math.exp(-eps)) * 0.5  # D' = (0, 2): both cells suppressed
    assert values.number("ratio") == pytest.approx(1 / q_point, rel=1e-3)  # 3 digits shown
    assert values.word == "proof gap"


def test_the_dp_cell_suppression_column_is_the_exact_delta_to_its_digits():
    """The issue's (a): 0.999 printed, the exact delta 1 - 10^-125: one unit of the printed
    digit apart, no guarantee, and never "exactly 1"."""
    found = errata.evaluate("tables-cs-delta", _values("quick")["12-data-release-tables"])
    assert found.word == "holds"
    assert found.values["exact-first"].text.startswith("1 − 10⁻")


def test_k_anonymity_subsample_delta_is_beta_by_enumeration(quick):
    from dadp_lite.definitions import sampling_probability
    from dadp_lite.theory import k_anonymity as ka

    for eps in (0.5, 1.0):
        beta = sampling_probability(eps)
        for adjacency in ("replace", "add_remove"):
            assert math.isclose(ka.subsampling_delta(beta, eps, 3, adjacency), beta, abs_tol=1e-12)
    qualifier = quick["ka-privacy-theorem"].status.qualifier
    assert qualifier == "the exact δ is at most β (equal at k = 1)"


def test_the_swapping_alpha_bound_is_not_loose_on_a_knife_edge(quick):
    """The issue's (d): a factor 2.000 on the data is not "loose", and the bound is 9/8 of
    the sharpest bound of its form."""
    found = quick["swapping-alpha-bound"]
    assert found.word == "holds" and found.values["sharp-factor"].text == "1.125"


# ------------------------------------------------------------------- page source
def _entries(text: str) -> set[str]:
    return set(re.findall(r"^\(finding-([a-z0-9-]+)\)=$", text, flags=re.M))


@pytest.mark.parametrize("page", [PAGE, LANDING], ids=["errata", "landing"])
def test_pages_compute_from_the_chapters_values_and_hide_their_code(page):
    import jupytext

    text = page.read_text()
    assert all("::" not in ref for ref in GLUE_ROLE.findall(text))  # no cross-document glue
    ids = {f.id for f in errata.FINDINGS}
    for ref in GLUE_ROLE.findall(text):  # finding keys carry their own formatting
        if ref.split(":")[0].split(".")[0].removeprefix("status-") in ids:
            assert ":" not in ref, ref
    notebook = jupytext.read(page)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code and all("remove-input" in c.metadata.get("tags", []) for c in code)
    source = "".join(c.source for c in code)
    assert "CHAPTER_VALUES" in source and "errata.glue_book(CHAPTER_VALUES)" in source


def test_the_errata_page_has_one_entry_per_finding_and_one_row_per_claim():
    text = PAGE.read_text()
    assert _entries(text) == {f.id for f in errata.FINDINGS}
    rows = re.findall(r"^\| \{ref\}`.+? <finding-([a-z0-9-]+)>` \| \*\*\{glue:text\}`claim-"
                      r"([a-z0-9-]+)`\*\* \|", text, flags=re.M)  # fmt: skip
    assert [claim for _, claim in rows] == [c.id for c in errata.CLAIMS]
    for finding_id, claim in rows:  # each row links a finding of its claim
        assert errata.get(finding_id).claim == claim
    for finding in errata.FINDINGS:
        entry = text.split(f"(finding-{finding.id})=\n", 1)[1].split("\n\n", 1)[0]
        assert f"{{glue:text}}`status-{finding.id}`" in entry, finding.id
        assert "{ref}`ch-" in entry, finding.id


def test_the_verdict_comes_right_after_the_counts():
    text = PAGE.read_text()
    summary = text.index("(errata-summary)=")
    verdict = text.index("(errata-verdict)=")
    table = text.index("## All claims at a glance")
    assert summary < verdict < table


# --------------------------------------------------------------- chapters' code
@pytest.mark.parametrize("slug", sorted({f.chapter for f in errata.FINDINGS}))
def test_a_chapter_glues_its_findings_with_its_own_parameters(slug):
    """A chapter shows its findings through one call, with its parameter names."""
    source = (ROOT / "notebooks" / f"{slug}.md").read_text()
    call = re.search(rf"errata\.glue_findings\(\s*\"{slug}\",(.*?)\)", source, flags=re.S)
    assert call, f"{slug} does not call errata.glue_findings"
    needed = {p for f in errata.findings_of(slug) for p in f.parameters.values()}
    passed = set(re.findall(r"([A-Z][A-Z0-9_]*)=", call.group(1)))
    assert needed <= passed, f"{slug} does not pass {sorted(needed - passed)}"


@pytest.mark.parametrize("slug", _toc_chapters())
def test_no_old_status_word_and_no_formatted_finding_key_in_a_chapter(slug):
    text = (ROOT / "notebooks" / f"{slug}.md").read_text()
    ids = {f.id for f in errata.FINDINGS}
    for ref in GLUE_ROLE.findall(text):
        key = ref.split(":", 1)[0]
        if key.removeprefix("status-") in ids or key.split(".", 1)[0] in ids:
            assert ":" not in ref, f"{slug}: {ref} formats a finding's value again"
    assert not re.search(r"\*(valid|wrong|unclear)\*", text), slug


# ------------------------------------------------------------------------ book
def _glued_html(html_dir: Path) -> dict[str, dict[str, set[str]]]:
    """``{glue key: {text shown: {pages}}}`` over every page of the built book."""
    from bs4 import BeautifulSoup

    from dadp_book.sphinx_glue import GLUE_CLASS

    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted(html_dir.rglob("*.html")):
        page = path.relative_to(html_dir).with_suffix("").as_posix()
        soup = BeautifulSoup(path.read_text(), "html.parser")
        for span in soup.select(f"span.{GLUE_CLASS}"):
            keys = [c.removeprefix("glue-key-") for c in span["class"] if c.startswith("glue-key-")]
            for key in keys:
                found[key][" ".join(span.get_text().split())].add(page)
    return found


def _finding_key(key: str) -> str | None:
    """The finding, claim or verdict a glue key belongs to (None for a chapter's own)."""
    ids = {f.id for f in errata.FINDINGS}
    base = key.removeprefix("status-").split(".", 1)[0]
    if base in ids:
        return base
    if key.startswith(("claim-", "claims-", "verdict-")):
        return key
    return None


@pytest.mark.book
def test_every_page_shows_the_same_text_for_every_finding(html):
    """The issue's acceptance: for every finding, every page that shows one of its numbers
    (chapter box and body, errata row and entry, landing page) shows the same text."""
    shown = _glued_html(html)
    differ = {key: {text: sorted(pages) for text, pages in texts.items()}
              for key, texts in shown.items() if _finding_key(key) and len(texts) > 1}  # fmt: skip
    assert differ == {}
    for finding in errata.FINDINGS:  # each finding is shown by its chapter and the errata
        pages = set().union(*shown[errata.status_key(finding.id)].values())
        assert {f"notebooks/{finding.chapter}", "book/errata"} <= pages, finding.id
    counts = {key for key in shown if key.startswith("claims-")}
    for key in counts:
        assert {"book/intro", "book/errata"} <= set().union(*shown[key].values()), key


@pytest.mark.book
@pytest.mark.parametrize("name", ["book/errata", "book/intro"])
def test_a_page_glues_every_key_it_cites(executed, name):
    import json

    page = executed[4][name]
    assert page.error is None, page.error
    notebook = json.loads(Path(page.output).read_text())
    outputs = [out for cell in notebook["cells"] for out in cell.get("outputs", [])]
    glued = {out["metadata"]["scrapbook"]["name"] for out in outputs
             if "scrapbook" in out.get("metadata", {})}  # fmt: skip
    source = ROOT / f"{name}.md"
    cited = {ref.split(":", 1)[0] for ref in GLUE_ROLE.findall(source.read_text())}
    assert cited - glued == set()


def test_error_ratio_of_two_zero_errors_is_one_and_of_one_zero_error_unbounded():
    """At a large epsilon DP swapping may move no record: its error 0 against traditional
    swapping's is no division by zero but a ratio without bound (not 'close')."""
    from dadp_lite.errata.swapping import _error_ratio

    got = _error_ratio(np.array([0.0, 0.0, 3.0, 2.0]), np.array([0.0, 5.0, 0.0, 4.0]))
    assert got[0] == 1.0 and got[1] == 0.0 and np.isinf(got[2]) and got[3] == 0.5
