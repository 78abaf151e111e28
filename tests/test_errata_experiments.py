"""dadp_lite.errata.experiments: the findings of chapters 12-14 show the same value names
whether judged or not, so the chapters' prose reads the same keys at any parameter values;
a classification comparison without spread is never counted as evidence."""

from __future__ import annotations

import pandas as pd
import pytest

from dadp_lite import errata
from dadp_lite.errata.experiments import BLANK, interval_text, no_spread

TABLES = {"DATASETS": ["ma2019"], "SEED": 2023, "K": 6, "QI": ["race"], "N_BOOT": 10}


@pytest.fixture(scope="module")
def printed():
    """Chapter 12's findings where the paper prints a row (epsilon 0.5), at 5 repetitions."""
    values = {**TABLES, "EPSILONS": [0.5], "REPS": 5}
    return {f.id: errata.evaluate(f, values) for f in errata.findings_of("12-data-release-tables")}


@pytest.fixture(scope="module")
def unprinted():
    """The same where the paper prints nothing (epsilon 0.3)."""
    values = {**TABLES, "EPSILONS": [0.3], "REPS": 5}
    return {f.id: errata.evaluate(f, values) for f in errata.findings_of("12-data-release-tables")}


def test_a_finding_shows_the_same_value_names_judged_or_not(printed, unprinted):
    for finding_id, result in printed.items():
        assert set(unprinted[finding_id].values) == set(result.values), finding_id


def test_nothing_printed_leaves_blanks_and_a_reason(unprinted):
    for finding_id, result in unprinted.items():
        if finding_id == "release-ranking":  # judged on exact values at any epsilon
            assert result.judged
            continue
        assert not result.judged and result.reason, finding_id
        assert {v.text for v in result.values.values()} == {BLANK}, finding_id


def test_empirical_columns_are_judged_only_at_the_papers_repetitions(printed):
    for finding_id in ("tables-alpha-cs", "tables-alpha-sw", "tables-ka"):
        result = printed[finding_id]
        assert result.word == errata.NOT_JUDGED and "200 repetitions" in result.reason
        assert all(v.text != BLANK for v in result.values.values()), finding_id
    for finding_id in ("tables-bias", "tables-alpha-laplace", "tables-cs-delta"):
        assert printed[finding_id].judged, finding_id


def test_no_spread_marks_comparisons_within_one_record():
    margins = pd.DataFrame({"dataset": ["a", "a", "b"], "margin_se": [0.0, 0.02, 0.02]})
    # one record of a = 100 / (1000 * 2) = 0.05 pp; of b = 100 / (10 * 2) = 5 pp (4 reps)
    flat = no_spread(margins, 4, {"a": 1000, "b": 10})
    assert flat.tolist() == [True, True, True]
    assert no_spread(margins, 4, {"a": 10_000, "b": 1}).tolist() == [True, False, True]


def test_a_narrow_interval_never_prints_as_a_point():
    assert interval_text(-0.2046, -0.1954) == "−0.2046 to −0.1954"
    assert interval_text(0.59, 1.37) == "0.59 to 1.37"
    assert interval_text(-106.2, 114.3) == "−106 to 114"
    assert interval_text(1.0, 1.0) == "1.00 to 1.00"


def test_chapter_12_findings_run_on_a_file_of_ones_own(tmp_path):
    """A dataset given as a path (a user's own excerpt) is keyed by its name in the release
    tables, and every chapter 12 finding runs on it (issue 33's swapped-file run failed
    with a CSV name built from the path, then with 'unknown dataset')."""
    from dadp_lite.data import dataset_path
    from dadp_lite.errata import runs

    lines = dataset_path("ma2019").read_text().splitlines(keepends=True)[:801]
    mine = tmp_path / "mine.csv"
    mine.write_text("".join(lines))
    values = {**TABLES, "DATASETS": [str(mine)], "EPSILONS": [0.5], "REPS": 5}
    tables = runs.release_tables(
        values["DATASETS"], epsilons=[0.5], reps=5, seed=2023, k=6, qi=["race"], n_boot=10
    )
    assert list(tables) == ["mine"]
    for finding in errata.findings_of("12-data-release-tables"):
        errata.evaluate(finding, values)  # raises on a path-keyed lookup
