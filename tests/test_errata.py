"""The errata: status rules, the catalog of findings, the executed page, and agreement of the
page and the chapters on every status word.

Unit tests check each rule (every word reachable, boundaries, bad input refused), the
catalog (ids, chapters, settings against the profiles, the exact findings computed), a few
findings against independent computations, and the page's source. Tests marked ``book``
execute the page (every finding, simulations included) and compare the chapters' glued
status words with the catalog's.
"""

from __future__ import annotations

import ast
import inspect
import json
import math
import re
from itertools import chain, combinations
from pathlib import Path

import numpy as np
import pytest
import yaml

from dadp_lite import errata
from dadp_lite.errata import status as st
from dadp_lite.errata.experiments import CLASSIFICATION

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "errata.md"
LANDING = ROOT / "book" / "intro.md"
GLUE_ROLE = re.compile(r"\{glue(?::text)?\}`([^`]+)`")


def _toc_chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    return [f.split("/", 1)[1] for f in files if f.startswith("notebooks/")]


def _profile(name: str) -> dict:
    return yaml.safe_load((ROOT / "profiles" / f"{name}.yml").read_text())["chapters"]


def _simulates(finding) -> bool:
    """Findings whose numbers come from a simulation (their setting names repetitions)."""
    return "reps" in finding.setting


EXACT = [f for f in errata.FINDINGS if not _simulates(f)]


# ------------------------------------------------------------------ status rules
def test_vocabulary_is_six_distinct_words():
    assert len(set(errata.STATUS_WORDS)) == len(errata.STATUS_WORDS) == 6
    assert {"valid", "loose", "wrong", "unclear", "reproduced", "not reproduced"} == set(
        errata.STATUS_WORDS
    )


def test_every_word_is_reachable_through_a_rule():
    reached = {
        st.delta_status(0.1, 0.08).word,  # valid
        st.delta_status(0.5, 0.01).word,  # loose
        st.delta_status(0.8, 0.9).word,  # wrong
        st.unclear_status(1.0, 2.0).word,  # unclear
        st.reproduced_status(1.0, 1.1, 1.0).word,  # reproduced
        st.reproduced_status(1.0, 100.0, 1.0).word,  # not reproduced
    }
    assert reached == set(errata.STATUS_WORDS)


def test_margin_status_needs_every_margin_beyond_its_interval():
    limit = errata.status.z_limit(2)
    shown = st.margin_status([1.0, 2.0], [0.99 / limit, 0.1])
    assert shown.word == "reproduced" and shown.measure == pytest.approx(0.01)
    assert st.margin_status([1.0, 2.0], [1.01 / limit, 0.1]).word == "not reproduced"
    assert st.margin_status([-0.5, 2.0], [0.01, 0.01]).word == "not reproduced"
    # estimated from few repetitions: Student's t, wider than the normal limit
    t_limit = errata.status.t_limit(2, 4)
    assert t_limit > limit
    assert st.margin_status([1.0, 2.0], [0.99 / limit, 0.1], df=4).word == "not reproduced"
    # no spread observed: nothing is shown, whatever the margin
    flat = st.margin_status([5.0, 5.0], [0.0, 1.0])
    assert flat.word == "not reproduced" and "no spread" in flat.basis
    with pytest.raises(ValueError, match="se"):
        st.margin_status([1.0], [-1.0])
    with pytest.raises(ValueError, match="df"):
        st.margin_status([1.0], [1.0], df=0)


@pytest.mark.parametrize(
    ("printed", "exact", "word"),
    [
        (0.2, 0.1, "loose"),  # factor exactly 2 on the delta scale
        (0.1999, 0.1, "valid"),
        (0.995, 0.99, "loose"),  # 1 - delta: 0.01 against 0.005, factor exactly 2
        (0.9949, 0.99, "valid"),
        (0.5, 0.0, "loose"),  # exact 0: unbounded factor
        (0.0, 0.0, "valid"),
        (1.0, 1.0, "valid"),
        (1.0, 0.999, "loose"),  # printed 1: unbounded on the 1 - delta scale
        (0.3, 0.3 + 1e-13, "valid"),  # below by round-off only
        (0.3, 0.3 + 1e-9, "wrong"),
    ],
)
def test_delta_status_boundaries(printed, exact, word):
    assert st.delta_status(printed, exact).word == word


def test_delta_status_tolerance_and_worst_element():
    assert st.delta_status(0.868, 0.8684, tol=5e-4).word == "valid"
    assert st.delta_status(0.868, 0.8894, tol=5e-4).word == "wrong"
    mixed = st.delta_status([0.5, 0.8], [0.4, 0.9])
    assert mixed.word == "wrong" and math.isclose(mixed.measure, -0.1)


@pytest.mark.parametrize(
    ("bound", "exact", "kwargs", "word"),
    [
        (2.0, 1.0, {}, "loose"),
        (1.999, 1.0, {}, "valid"),
        (1.0, 1.0, {}, "valid"),
        (0.999, 1.0, {}, "wrong"),
        (1.0 - 1e-12, 1.0, {}, "valid"),
        (100.0, 1.0, {"loose_factor": None}, "valid"),
        (0.0, 0.1, {"loose_factor": None}, "wrong"),
        (0.0, 0.0, {}, "valid"),
        (1.0, 0.0, {}, "loose"),
    ],
)
def test_bound_status_boundaries(bound, exact, kwargs, word):
    assert st.bound_status(bound, exact, **kwargs).word == word


def test_formula_and_unclear_status():
    assert st.formula_status([1.0, 2.0], [1.0, 2.0 + 1e-12]).word == "valid"
    assert st.formula_status([1.0, 2.0], [1.0, 2.001]).word == "wrong"
    assert st.unclear_status([1.0, 2.0], [1.0, 2.0]).word == "valid"
    assert st.unclear_status([1.0, 2.0], [1.0, 2.5]).word == "unclear"


def test_reproduced_status_uses_the_books_z_limit():
    limit = errata.status.z_limit(1)
    assert st.reproduced_status(limit, 0.0, 1.0).word == "reproduced"
    assert st.reproduced_status(limit * 1.001, 0.0, 1.0).word == "not reproduced"
    # more comparisons, larger limit
    assert st.reproduced_status(limit * 1.001, 0.0, 1.0, n_tests=10).word == "reproduced"
    status = st.reproduced_status([0.0, -6.0], [0.0, 0.0], [1.0, 1.0])
    assert status.word == "not reproduced" and status.measure == -6.0


def test_digits_status_accepts_one_unit_of_the_last_digit():
    assert st.digits_status(0.8786617, 0.878, 3).word == "reproduced"  # cut
    assert st.digits_status(0.8679, 0.868, 3).word == "reproduced"  # rounded
    assert st.digits_status(0.8791, 0.878, 3).word == "not reproduced"
    assert st.digits_status([0.36, 0.0003], [0.363, 0.0003], [3, 4]).word == "not reproduced"


def test_claim_status_counts_settings():
    assert st.claim_status([True, True]).word == "reproduced"
    status = st.claim_status([True, False, False])
    assert status.word == "not reproduced" and math.isclose(status.measure, 1 / 3)
    assert "1 of 3" in status.basis


def test_vacuous_and_label():
    assert st.vacuous(1 - 1e-4) and not st.vacuous(0.99)
    status = st.delta_status(0.99, 0.5).qualified("vacuous on real data")
    assert status.label == "loose; vacuous on real data"
    assert st.delta_status(0.1, 0.09).label == "valid"


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: st.delta_status(1.2, 0.5), ValueError),
        (lambda: st.delta_status(-0.1, 0.5), ValueError),
        (lambda: st.delta_status("0.5", 0.5), TypeError),
        (lambda: st.delta_status(None, 0.5), TypeError),
        (lambda: st.delta_status(float("nan"), 0.5), ValueError),
        (lambda: st.delta_status([0.1, 0.2], [0.1, 0.2, 0.3]), ValueError),
        (lambda: st.delta_status([], []), ValueError),
        (lambda: st.delta_status(0.5, 0.4, tol=-1.0), ValueError),
        (lambda: st.delta_status(0.5, 0.4, tol=True), TypeError),
        (lambda: st.bound_status(-1.0, 1.0), ValueError),
        (lambda: st.bound_status(2.0, 1.0, loose_factor=1.0), ValueError),
        (lambda: st.reproduced_status(1.0, 1.0, 0.0), ValueError),
        (lambda: st.reproduced_status([1.0, 2.0], [1.0, 2.0], [1.0, 1.0, 1.0]), ValueError),
        (lambda: st.reproduced_status(1.0, 1.0, 1.0, n_tests=0), ValueError),
        (lambda: st.digits_status(0.5, 0.5, -1), ValueError),
        (lambda: st.digits_status(0.5, 0.5, 1.5), TypeError),
        (lambda: st.claim_status([]), ValueError),
        (lambda: st.claim_status([1, 0]), TypeError),
        (lambda: st.claim_status("yes"), TypeError),
        (lambda: st.unclear_status([1.0, 2.0], [1.0, 2.0, 3.0]), ValueError),
        (lambda: st.Status("great", "basis", 1.0), ValueError),
        (lambda: st.Status("valid", "", 1.0), ValueError),
        (lambda: st.Status("valid", "basis", 1.0, "x" * 60), ValueError),
    ],
)
def test_rules_refuse_bad_input(call, error):
    with pytest.raises(error):
        call()


# ---------------------------------------------------------------------- catalog
def test_finding_ids_are_unique_and_stable_words():
    ids = [f.id for f in errata.FINDINGS]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)
    assert "dp-swapping-delta" in ids


def test_every_finding_chapter_is_in_the_toc():
    chapters = set(_toc_chapters())
    assert {f.chapter for f in errata.FINDINGS} <= chapters


@pytest.mark.parametrize("finding", errata.FINDINGS, ids=lambda f: f.id)
def test_setting_names_exactly_the_arguments_of_the_computation(finding):
    signature = inspect.signature(finding.compute)
    signature.bind(**finding.setting)  # raises on a missing or unknown argument
    assert finding.setting_text()


def test_seeds_are_the_chapters_seeds_of_the_full_profile():
    full = _profile("full")
    checked = 0
    for finding in errata.FINDINGS:
        seed = finding.setting.get("seed")
        chapter_seed = full.get(finding.chapter, {}).get("SEED")
        if seed is not None and chapter_seed is not None:
            assert seed == chapter_seed, finding.id
            checked += 1
        if "replicate_seed" in finding.setting:  # chapter 03's replicated experiments
            assert (
                finding.setting["replicate_seed"]
                == full["03-laplace-and-discrete-gaussian"]["SEED"]
            )
    assert checked >= 8


def test_classification_runs_at_the_full_profiles_setting_with_fewer_repetitions():
    full = _profile("full")["13-classification"]
    assert list(CLASSIFICATION["epsilons"]) == full["EPSILONS"]
    assert list(CLASSIFICATION["dataset_names"]) == full["DATASETS"]
    assert CLASSIFICATION["seed"] == full["SEED"] and CLASSIFICATION["reps"] < full["REPS"]
    assert CLASSIFICATION["k"] == full["K"] and list(CLASSIFICATION["qi"]) == full["QI"]


def test_findings_of_selects_by_chapter():
    swapping = errata.findings_of("06-swapping-privacy")
    assert swapping and all(f.chapter == "06-swapping-privacy" for f in swapping)
    two = errata.findings_of("06-swapping-privacy", "07-swapping-bias")
    assert set(swapping) < set(two)
    assert errata.findings_of("99-no-such-chapter") == ()
    with pytest.raises(ValueError):
        errata.findings_of()
    with pytest.raises(TypeError):
        errata.findings_of(6)
    with pytest.raises(ValueError, match="unknown finding"):
        errata.get("no-such-finding")


@pytest.mark.parametrize("finding", EXACT, ids=lambda f: f.id)
def test_exact_finding_computes_a_status_and_plain_values(finding):
    result = errata.result(finding.id)
    assert result.status.word in errata.STATUS_WORDS
    values = errata.glue_values(finding)
    assert values[errata.status_key(finding.id)] == result.status.word
    for name, value in values.items():
        assert isinstance(value, float | int | str) and not isinstance(value, bool), name


def test_glue_names_of_exact_findings_are_unique():
    names = list(chain.from_iterable(errata.glue_values(f) for f in EXACT))
    assert len(names) == len(set(names))


# ------------------------------------------------ findings against independent numbers
def test_dp_swapping_delta_against_the_enumerated_worst_pair():
    from dadp_lite import theory as th
    from dadp_lite.errata.swapping import PAPER_N_Q

    x = np.zeros((1, PAPER_N_Q), dtype=int)
    y = np.zeros((1, PAPER_N_Q), dtype=int)
    x[0, 0], y[0, 0], y[0, 1] = 2, 1, 1  # a cell of 2 against a split 1 + 1
    enumerated = th.dp_swapping_pair_delta(x, y, 0.5, "cell")
    found = errata.result("dp-swapping-delta")
    assert math.isclose(found.values["exact-first"], enumerated, rel_tol=0, abs_tol=1e-12)
    assert found.values["printed-first"] < enumerated - 5e-4
    assert found.status.word == "wrong" and "formula reproduced" in found.status.label
    assert errata.result("swapping-cell-privacy").status.word == "wrong"


def test_swapping_alpha_truth_is_half_the_bound_exactly_on_ma_and_tx():
    from dadp_lite.errata.record import dataset

    found = errata.result("swapping-alpha-bound")
    for name, exactly_half in [("ma2019", True), ("tx2019", True), ("national2019", False)]:
        matrix = dataset(name).histogram.to_qi_matrix(("race",)).astype(float)
        n_q, eps = matrix.shape[1], 0.5
        denominator = math.exp(eps) + n_q - 1
        bias = (matrix.sum(axis=1, keepdims=True) - n_q * matrix) / denominator  # proposition
        printed = 2 * n_q * (matrix.max() - matrix.min()) / denominator
        ratio = printed / np.ptp(bias)
        assert math.isclose(found.values[f"ratio-{name}"], ratio, rel_tol=1e-12)
        assert math.isclose(ratio, 2.0, rel_tol=1e-12) is exactly_half, name
    assert found.values["half-on"] == "MA and TX"
    assert found.status.word == "loose"


def test_lemma_proof_line_by_listing_every_event():
    p, q = np.array([0.95, 0.05]), np.array([0.05, 0.95])
    events = [list(s) for r in range(3) for s in combinations(range(2), r)]
    excess = max(p[e].sum() - q[e].sum() for e in events)
    found = errata.result("lemma-1-proof-line")
    eps = found.values["epsilon"]
    assert np.all(p <= math.exp(eps) * q)  # no outcome beyond e^eps: the lemma's delta is 0
    assert found.values["lemma-delta"] == 0.0
    assert math.isclose(found.values["printed-line-excess"], excess, abs_tol=1e-12)
    with_factor = max(p[e].sum() - math.exp(eps) * q[e].sum() for e in events)
    assert with_factor <= 1e-12 and found.status.word == "wrong"


def test_alpha_laplace_bound_against_closed_forms():
    from dadp_lite.errata.record import dataset

    x = dataset("ma2019").histogram.counts
    eps = 0.5
    found = errata.result("alpha-laplace-bound")
    assert x.min() == 0 and found.values["bound"] == x.max() / 2
    true = (1 - math.exp(-eps * x.max() / 2)) / eps
    assert math.isclose(found.values["true"], true, rel_tol=1e-12)
    assert found.status.word == "loose"


def test_dg_exact_deltas_against_the_privacy_loss_distribution():
    """The errata's enumerated (exact) delta against dp_accounting's pessimistic PLD, an
    independent computation that may only exceed it, by at most its error bound."""
    from dadp_lite.theory import accounting

    bound = accounting.pld_error_bound("replace")
    for finding in ("dg-guarantee", "dg-delta-column"):
        found = errata.result(finding)
        for eps in (0.5, 1.0, 2.0, 4.0):
            pld = accounting.discrete_gaussian_histogram_delta(eps, sigma=2 / eps,
                                                               adjacency="replace")  # fmt: skip
            exact = found.values[f"exact-eps{eps:g}".replace(".", "p")]
            assert exact - 1e-12 <= pld <= exact + bound
    assert errata.result("dg-guarantee").status.word == "loose"  # valid and conservative


def test_dg_guarantee_qualifier_names_the_computed_threshold_only_where_the_grid_reaches_it():
    """Both branches: a grid below the threshold gets no qualifier; a grid past it gets the
    exact threshold (not its first grid point), which the vacuity rule confirms on each side."""
    from dadp_lite.errata.baselines import dg_guarantee_qualifier
    from dadp_lite.theory import discrete_gaussian_delta_as_printed as printed
    from dadp_lite.theory import discrete_gaussian_vacuous_from

    threshold = discrete_gaussian_vacuous_from(st.VACUOUS_GAP)
    assert st.vacuous(printed(threshold * (1 + 1e-9))) and not st.vacuous(
        printed(threshold * (1 - 1e-9))
    )
    assert dg_guarantee_qualifier((0.5, 1.0)) == ""
    assert dg_guarantee_qualifier((0.5, 1.0, 2.0, 4.0)) == f"vacuous from ε = {threshold:.2f}"
    found = errata.result("dg-guarantee")
    assert found.status.qualifier == f"vacuous from ε = {threshold:.2f}"
    assert found.values["vacuous-from"] == threshold
    assert "^" not in found.status.qualifier


def test_dg_delta_column_understates_the_exact_delta_of_the_stated_noise():
    """The issue's numbers: 0.017 against 0.097 at epsilon 2, 3E-4 against 0.176 at 4."""
    found = errata.result("dg-delta-column")
    assert found.status.word == "wrong" and found.values["below-eps"] == "2, 4"
    assert round(found.values["exact-eps2"], 3) == 0.097
    assert round(found.values["exact-eps4"], 3) == 0.176
    assert found.values["column-eps2"] == 0.017 and found.values["column-eps4"] == 3e-4


def test_k_anonymity_delta_is_beta_by_enumeration():
    from dadp_lite.definitions import sampling_probability
    from dadp_lite.theory import k_anonymity as ka

    found = errata.result("ka-privacy-theorem")
    for eps in (0.5, 1.0, 2.0, 4.0):
        beta = sampling_probability(eps)
        for adjacency in ("replace", "add_remove"):
            assert math.isclose(ka.subsampling_delta(beta, eps, 3, adjacency), beta, abs_tol=1e-12)
        assert found.values[f"beta-eps{eps:g}".replace(".", "p")] == pytest.approx(beta, abs=1e-15)


def test_cell_suppression_privacy_against_closed_forms():
    found = errata.result("cs-privacy-theorem")
    k, bound, eps = 6, 10, 1.0
    assert math.isclose(found.values["exact-per-cell-replace"],
                        1 - math.exp(-eps * (bound - k - 0.5)) / 4, abs_tol=1e-12)  # fmt: skip
    assert math.isclose(found.values["exact-other"], 1 - math.exp(-eps * (bound - k) / 2) / 2,
                        abs_tol=1e-12)  # fmt: skip
    log10_gap = (math.log(0.25) - 0.5 * (found.values["data-bound"] - k)) / math.log(10)
    assert math.isclose(found.values["data-log10-gap"], log10_gap, rel_tol=1e-12)
    assert found.values["example-status"] == "valid"  # e^(1/2) = 1.65 on the 1 - delta scale
    assert found.status.label == "loose; vacuous on real data"  # e^(4/2) = 7.4 at epsilon 4
    assert math.isclose(found.status.measure, math.exp(2.0), rel_tol=1e-6)
    cut = errata.result("tables-cs-delta")
    assert cut.status.label == "wrong; cut, not rounded" and cut.values["printed"] == 0.999


def test_cell_suppression_proof_counterexample_against_the_written_out_law():
    found = errata.result("cs-privacy-proof")
    values = found.values
    k, eps = values["k"], values["epsilon"]
    assert (k, values["bound"], values["x"], values["x-prime"]) == (2, 3, "(1, 1)", "(0, 2)")
    # D = (1, 1): both counts are k/2, so D outputs (1, 1) with probability 1; D' = (0, 2)
    # outputs it when both cells are suppressed: P(0 + eta < 2) P(2 + eta < 2)
    q_point = (1 - 0.5 * math.exp(-eps)) * 0.5
    assert math.isclose(values["ratio"], 1 / q_point, rel_tol=1e-12)
    assert values["ratio"] > values["e-epsilon"] == math.exp(eps)
    assert values["true-mass"] == 0.0 and values["lemma-delta"] == 1.0
    assert math.isclose(values["proof-mass"], 1 - (1 - 0.5 * math.exp(-eps / 2)) ** 2,
                        rel_tol=1e-12)  # fmt: skip
    assert math.isclose(values["printed-delta"], 1 - 0.25 * math.exp(-eps), rel_tol=1e-12)
    assert values["worst-delta"] <= values["printed-delta"] < values["lemma-delta"]
    assert found.status.label == "wrong; the theorem holds; its proof does not"


def test_new_findings_against_independent_numbers():
    """The four findings chapters 06 and 08 showed without an id, each against a number
    computed here another way."""
    import math as m

    from dadp_lite.definitions import sampling_probability
    from dadp_lite.errata.swapping import PAPER_N_Q

    ratio = errata.result("swapping-proof-ratio")
    assert ratio.values["ratio-eps0p5"] == pytest.approx(m.exp(0.5) + PAPER_N_Q - 1, rel=1e-12)
    assert ratio.status.word == "wrong"
    assert errata.result("ka-sum-index").values["from-one-min"] == 1.0  # empty sum at w = 1
    last = errata.result("ka-proof-last-step")
    assert last.status.label == "wrong; holds as an inequality" and last.values["gap-max"] > 0
    beta = errata.result("ka-beta-choice")
    assert beta.values["beta-implied"] == pytest.approx(sampling_probability(0.5))
    assert beta.values["exact-other"] == pytest.approx(beta.values["beta-other"], abs=1e-12)
    assert beta.values["d-other"] < 1 - errata.VACUOUS_GAP and beta.status.word == "wrong"


# ------------------------------------------------------------------- page source
def _entries(text: str) -> dict[str, str]:
    """The page's entries: ``{finding id: its paragraph}``, from the targets
    ``(finding-<id>)=`` that open them."""
    found = re.findall(r"^\(finding-([a-z0-9-]+)\)=\n(.*?)(?=\n\n|\Z)", text, flags=re.M | re.S)
    return dict(found)


#: Entries that link a section of their chapter rather than the chapter's top.
SECTION_LINKS = {"unnamed-adjacency": "sec-adjacency"}


def test_page_has_no_cross_document_glue_and_hides_its_code():
    import jupytext

    text = PAGE.read_text()
    assert all("::" not in ref for ref in GLUE_ROLE.findall(text))
    notebook = jupytext.read(PAGE)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code and all("remove-input" in c.metadata.get("tags", []) for c in code)
    assert notebook.metadata["kernelspec"]["name"] == "python3"


def test_page_has_one_entry_per_finding_linking_its_chapter():
    """Every finding has one entry, opened by its target, showing its label and linking
    its chapter; and every entry is a finding of the catalog (the reverse)."""
    text = PAGE.read_text()
    entries = _entries(text)
    assert len(re.findall(r"^\(finding-", text, flags=re.M)) == len(entries)
    assert set(entries) == {f.id for f in errata.FINDINGS}
    for finding in errata.FINDINGS:
        entry = entries[finding.id]
        assert entry.count(f"{{glue:text}}`{finding.id}.label`") == 1, finding.id
        label = SECTION_LINKS.get(finding.id, "ch-" + finding.chapter.split("-", 1)[1])
        assert f"{{ref}}`{label}`" in entry, f"{finding.id} does not link {label}"


def test_page_opens_with_the_table_of_findings():
    """Right under the title, one row per finding in catalog order: its title linking its
    entry, its status word and qualifier (glued), its chapter by title ({doc} shows the
    chapter's title and is made plain text in builds that leave the chapter out)."""
    text = PAGE.read_text()
    head = text.split("```{code-cell}", 1)[0]
    assert "\n## " not in head  # nothing but the title, one lead-in and the table
    rows = [line for line in head.splitlines() if line.startswith("| {ref}")]
    assert len(rows) == len(errata.FINDINGS)
    for finding, row in zip(errata.FINDINGS, rows, strict=True):
        assert row == (
            f"| {{ref}}`{finding.title} <finding-{finding.id}>` | "
            f"**{{glue:text}}`status-{finding.id}`** | {{glue:text}}`{finding.id}.qualifier` | "
            f"{{doc}}`../notebooks/{finding.chapter}` |"
        ), finding.id


# ------------------------------------------------------------------------ book
def _glued(notebook_path: Path) -> dict[str, object]:
    """``{name: value}`` of everything a notebook glued (its scrapbook outputs)."""
    notebook = json.loads(Path(notebook_path).read_text())
    values = {}
    for cell in notebook["cells"]:
        for out in cell.get("outputs", []):
            scrap = out.get("metadata", {}).get("scrapbook")
            if scrap:
                text = out["data"][scrap["mime_prefix"] + "text/plain"]
                try:
                    values[scrap["name"]] = ast.literal_eval(text)
                except (SyntaxError, ValueError):
                    values[scrap["name"]] = text
    return values


@pytest.fixture(scope="module")
def executed_page(executed) -> Path:
    """The errata page as the session's build executed it (``dadp_book.build``)."""
    page = executed[4]["book/errata"]
    assert page.error is None, page.error
    return page.output


@pytest.mark.book
def test_errata_page_executes_and_glues_every_key_it_cites(executed_page):
    notebook = json.loads(executed_page.read_text())
    errors = [o for c in notebook["cells"] for o in c.get("outputs", [])
              if o.get("output_type") == "error"
              or (o.get("output_type") == "stream" and o.get("name") == "stderr")]  # fmt: skip
    assert errors == []
    glued = _glued(executed_page)
    cited = {ref.split(":", 1)[0] for ref in GLUE_ROLE.findall(PAGE.read_text())}
    assert cited - set(glued) == set()
    for finding in errata.FINDINGS:  # every finding computed, with a word of the vocabulary
        assert glued[errata.status_key(finding.id)] in errata.STATUS_WORDS, finding.id


@pytest.mark.book
def test_chapters_agree_with_the_errata_on_every_status_word(executed):
    """A chapter that glues ``status-<finding id>`` must show the catalog's word."""
    results = executed[0]
    compared = []
    for slug, chapter in results.items():
        assert chapter.error is None, chapter.error
        for name, value in _glued(chapter.output).items():
            if not name.startswith("status-"):
                continue
            finding_id = name.removeprefix("status-")
            errata.get(finding_id)  # an unknown id fails here
            word = errata.result(finding_id).status.word
            assert value == word, f"{slug} shows {value!r} for {finding_id}, the errata {word!r}"
            compared.append((slug, finding_id))
    assert len(results) == len(_toc_chapters())  # every chapter was scanned


@pytest.mark.parametrize("finding", errata.FINDINGS, ids=lambda f: f.id)
def test_every_finding_is_shown_by_its_chapter(finding):
    """The reverse of the agreement check: every finding of the catalog is glued by the
    chapter it names (its status key, or a loop over the chapter's findings), so no row of
    the errata page lacks its chapter. A chapter may glue it only where its run is
    comparable with the paper's setting (e.g. the paper's repetitions); the agreement test
    checks the word wherever it is glued."""
    source = (ROOT / "notebooks" / f"{finding.chapter}.md").read_text()
    # a dadp_lite.summaries module the chapter imports and glues (summaries.glue_all) counts
    # as the chapter's own glue
    imported = re.findall(r"from dadp_lite\.summaries import (\w+)", source)
    paths = [ROOT / "dadp_lite" / "summaries" / f"{m}.py" for m in imported]
    summarised = "".join(p.read_text() for p in paths if p.is_file())
    through_summaries = "summaries.glue_all(" in source and "status_key(" in summarised
    glues = re.search(r"glue\(\s*errata\.status_key\(", source) is not None  # any layout
    named = f'"{finding.id}"' in source or f'status_key("{finding.id}")' in summarised
    looped = f'errata.findings_of("{finding.chapter}")' in source
    assert (glues or through_summaries) and (named or looped), (
        f"{finding.chapter} never glues status-{finding.id}"
    )


@pytest.mark.book
def test_chapters_never_glue_a_status_word_with_its_qualifier(executed):
    """A chapter glues the word (``status-<id>``) and, if it wants, the qualifier; a label
    ("loose; vacuous ...") beside the word would say the word twice."""
    label = re.compile(rf"^({'|'.join(errata.STATUS_WORDS)}); ")
    for slug, chapter in executed[0].items():
        for name, value in _glued(chapter.output).items():
            assert not (isinstance(value, str) and label.match(value)), (slug, name, value)


# --------------------------------------------------------- chapters, statically
_STATUS_LEAD = re.compile(
    r"^- \*\*(valid|loose|wrong|unclear|reproduced|not reproduced)\b", flags=re.I | re.M
)


@pytest.mark.parametrize("slug", _toc_chapters())
def test_no_typed_status_word_leads_a_finding(slug):
    """Status words come from the rules (glued), never typed as a finding's bold lead."""
    text = (ROOT / "notebooks" / f"{slug}.md").read_text()
    assert _STATUS_LEAD.findall(text) == []


#: Words that name a quantity in a ratio's label ("paper / exact", "true / printed").
_QUANTITIES = {"paper", "printed", "exact", "expected", "ours", "true", "bound", "simulated",
               "tight", "empirical", "lemma", "floor", "truth"}  # fmt: skip
_RATIO = re.compile(r"([A-Za-z]+)[^/()]*? / ([A-Za-z]+)")


def _ratio_words(label: str) -> tuple[str, str] | None:
    """``(numerator word, denominator word)`` of a ratio label whose two sides start with
    quantity names, else None."""
    match = _RATIO.search(label)
    if match and {match.group(1), match.group(2)} <= _QUANTITIES:
        return match.group(1), match.group(2)
    return None


def _code_cells(slug: str) -> list[str]:
    import jupytext

    notebook = jupytext.read(ROOT / "notebooks" / f"{slug}.md")
    return [c.source for c in notebook.cells if c.cell_type == "code"]


def _ratio_columns(tree: ast.AST, source: str) -> dict[str, tuple[str, str]]:
    """``{label: (numerator source, denominator source)}`` for every column or dict entry
    named like a ratio and computed by a division (the first one in its expression)."""
    found = {}

    def division(node):
        return next((n for n in ast.walk(node) if isinstance(n, ast.BinOp)
                     and isinstance(n.op, ast.Div)), None)  # fmt: skip

    def record(key, value):
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and _ratio_words(
            key.value) and (div := division(value)) is not None:  # fmt: skip
            found[key.value] = (ast.get_source_segment(source, div.left),
                                ast.get_source_segment(source, div.right))  # fmt: skip

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            record(node.targets[0].slice, node.value)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                record(key, value)
    return found


def _captions(tree: ast.AST) -> list[str]:
    """Literal caption strings of ``dl.tables.show`` calls (f-strings keep their literal
    parts: a ratio named through a label constant is not typed here)."""
    captions = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "caption":
            for part in ast.walk(node.value):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    captions.append(part.value)
    return captions


@pytest.mark.parametrize("slug", _toc_chapters())
def test_each_ratio_caption_matches_its_computation(slug):
    """A column or entry named "A / B" is computed as (something of A) / (something of B),
    in that order; a caption that names a ratio "A / B" names one computed so in the same
    chapter (or builds the name from the computing module's label, e.g. encodings'
    RATIO_LABEL, which tests/test_encodings.py checks against its computation)."""
    computed = {}
    captions = []
    for source in _code_cells(slug):
        try:
            tree = ast.parse(source)
        except SyntaxError:  # IPython magics: not a ratio
            continue
        computed.update(_ratio_columns(tree, source))
        captions += _captions(tree)
    for label, (top, bottom) in computed.items():
        numerator, denominator = _ratio_words(label)
        assert numerator in top and denominator not in top, (slug, label, top)
        assert denominator in bottom and numerator not in bottom, (slug, label, bottom)
    named = {_ratio_words(label) for label in computed}
    for caption in captions:
        for match in _RATIO.finditer(caption):
            words = (match.group(1), match.group(2))
            if set(words) <= _QUANTITIES:
                assert words in named, (
                    f"{slug}: caption names {words[0]} / {words[1]}, "
                    "which no column of the chapter computes"
                )


# ----------------------------------------------------------------- landing page
def test_landing_page_computes_its_abstract_and_links_chapters():
    """The landing page is an executed page: its numbers come from dadp_lite.errata (no
    glue from another document, which the book forbids), its code is hidden, and each
    part of the abstract links the chapter that shows it."""
    import jupytext

    text = LANDING.read_text()
    assert all("::" not in ref for ref in GLUE_ROLE.findall(text))
    notebook = jupytext.read(LANDING)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code and all("remove-input" in c.metadata.get("tags", []) for c in code)
    assert "errata.exact_findings()" in "".join(c.source for c in code)
    abstract = text.split("**What we found.**", 1)[1].split("\n## ", 1)[0]
    for bullet in re.findall(r"^- \*\*.*?(?=\n- |\Z)", abstract, flags=re.M | re.S):
        assert "{ref}`ch-" in bullet, bullet[:40]


def test_exact_findings_are_the_ones_without_repetitions():
    exact = errata.exact_findings()
    assert exact and all("reps" not in f.setting for f in exact)
    assert set(exact) | {f for f in errata.FINDINGS if "reps" in f.setting} == set(errata.FINDINGS)
    counts = errata.word_counts(exact)
    assert sum(counts.values()) == len(exact) and set(counts) <= set(errata.STATUS_WORDS)


@pytest.mark.book
def test_landing_page_executes_and_glues_every_key_it_cites(executed):
    page = executed[4]["book/intro"]
    assert page.error is None, page.error
    glued = _glued(page.output)
    cited = {ref.split(":", 1)[0] for ref in GLUE_ROLE.findall(LANDING.read_text())}
    assert cited - set(glued) == set()
    counts = errata.word_counts(errata.exact_findings())
    assert glued["n-wrong"] == counts.get("wrong", 0)
    assert glued["n-exact"] == sum(glued[f"n-{w}"] for w in ("valid", "loose", "wrong",
                                                              "unclear"))  # fmt: skip
