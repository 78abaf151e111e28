"""dadp_lite.summaries.release_tables: the data-release chapter's counts and verdicts, on
small tables whose answers are known, each verdict in each of its branches."""

import math

import numpy as np
import pandas as pd
import pytest

from dadp_lite.summaries import release_tables as rt
from dadp_lite.theory.fairness import swapping_bias_spread


def test_words_and_the_comparison_scope():
    assert rt.words(("race", "sex")) == "race, sex"
    assert rt.comparison_scope(["ma2019", "tx2019"], [0.5, 4.0]) == {
        "cmp_datasets": "MA, TX", "cmp_epsilons": "0.5, 4", "cmp_printed": 1}  # fmt: skip
    assert rt.comparison_scope([], []) == {"cmp_datasets": "-", "cmp_epsilons": "-",
                                           "cmp_printed": 0}  # fmt: skip


def _spread(largest_group_holds_extremes: bool):
    # rows: QI groups, columns: QI values (n_Q = 3). The largest cell, 10, is in group 0.
    if largest_group_holds_extremes:
        return swapping_bias_spread(np.array([[10, 0, 2], [3, 3, 3]]))
    return swapping_bias_spread(np.array([[10, 9, 9], [0, 0, 8]]))


def test_swapping_structure_counts_where_the_extremes_lie():
    inside, outside = _spread(True), _spread(False)
    assert inside.in_largest_group and not outside.in_largest_group
    assert rt.swapping_structure({"ma2019": inside, "tx2019": outside}) == {
        "sw_inside_n": 1, "sw_histograms_n": 2}  # fmt: skip
    with pytest.raises(ValueError, match="empty"):
        rt.swapping_structure({})


def test_swapping_implied_counts_rows_each_side_of_our_largest_cell():
    rows = pd.DataFrame({"dataset": ["ma2019"] * 3 + ["tx2019"],
                         "implied x_n": [8.0, 12.0, 10.0, 5.0]})  # fmt: skip
    values = rt.swapping_implied(rows, {"ma2019": _spread(True), "tx2019": _spread(True)})
    assert values == {"sw_implied_smaller_n": 2, "sw_implied_larger_n": 1,
                      "sw_implied_rows_n": 4}  # fmt: skip
    with pytest.raises(ValueError, match="lacks a dataset"):
        rt.swapping_implied(rows, {"ma2019": _spread(True)})
    with pytest.raises(ValueError, match="implied x_n"):
        rt.swapping_implied(rows.drop(columns="implied x_n"), {})


def _columns():
    # MA: the Laplace column's rounded reading reproduces it; cell suppression fits only in
    # sample; swapping neither. Plus DP swapping's alpha.
    return pd.DataFrame(
        {"dataset": ["ma2019"] * 5,
         "column": ["laplace", "laplace_rounded", "dp_cell_suppression", "dp_swapping", "sw"],
         "best_encoding": ["a | >= 50000", "a | > 50000", "b | >= 50000", "c | >= 50000", "d"],
         "score": [0.2, 0.01, 0.01, 0.04, math.log(1.2)],
         "best_within": [False, True, True, True, False],
         "reproduced": [False, True, False, False, False]}
    )  # fmt: skip


def test_encoding_counts_count_each_printed_column_once():
    values = rt.encoding_counts(_columns(), swapping_column="sw")
    assert values["enc_printed_n"] == 3  # laplace (two readings), suppression, swapping
    assert values["enc_in_sample_only_n"] == 2  # suppression and swapping
    assert (values["sw_enc_n"], values["sw_enc_reproduced_n"]) == (1, 0)
    assert values["sw_enc_best_pct"] == pytest.approx(20.0)
    none = rt.encoding_counts(_columns().iloc[:4], swapping_column="sw")
    assert (none["sw_enc_n"], none["sw_enc_best_pct"]) == (0, 0.0)


def _search(twin_ratio: float):
    rows = []
    for encoding, ratio in [("b | >= 50000", 1.01), ("b | > 50000", twin_ratio),
                            ("c | >= 50000", 1.02), ("c | > 50000", 1.03)]:  # fmt: skip
        column = "dp_cell_suppression" if encoding.startswith("b") else "dp_swapping"
        rows.append({"dataset": "ma2019", "column": column, "encoding": encoding,
                     "log_ratio": math.log(ratio)})  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize("twin, verdict, n_within", [(1.04, "indistinguishable", 2),
                                                     (1.2, "contradicts", 1)])  # fmt: skip
def test_income_cut_asks_whether_the_other_cut_fits_as_well(twin, verdict, n_within):
    values = rt.income_cut(_search(twin), _columns(), within=0.05)
    assert values["ge_verdict"] == verdict
    assert (values["ge_n"], values["ge_twin_within_n"]) == (2, n_within)
    assert values["ge_twin_pct_max"] == pytest.approx(100 * (max(twin, 1.03) - 1))


def test_income_cut_without_such_a_fit_and_refusals():
    columns = _columns().assign(best_encoding="x | > 50000")
    assert rt.income_cut(_search(1.0), columns, within=0.05) == {
        "ge_n": 0, "ge_twin_within_n": 0, "ge_twin_pct_max": 0.0, "ge_verdict": "none"}  # fmt: skip
    with pytest.raises(ValueError, match="within"):
        rt.income_cut(_search(1.0), columns, within=5)
    with pytest.raises(ValueError, match="log_ratio"):
        rt.income_cut(_search(1.0).drop(columns="log_ratio"), columns, within=0.05)
    assert set(rt.INCOME_VERDICTS) == {"none", "indistinguishable", "contradicts"}


def test_rounded_releases_compare_the_spread_of_the_ratios():
    search = pd.DataFrame(
        {"dataset": "ma2019", "encoding": "A",
         "column": ["laplace", "laplace", "laplace_rounded", "laplace_rounded"],
         "ratio": [0.8, 1.0, 0.95, 1.0]}
    )  # fmt: skip
    reading = pd.DataFrame({"dataset": ["ma2019"], "encoding": ["A"]})
    values = rt.rounded_releases(search, reading)
    assert values["enc_plain_spread_min"] == values["enc_plain_spread_max"] == pytest.approx(1.25)
    assert values["enc_rounded_spread_max"] == pytest.approx(1.0 / 0.95)
    empty = rt.rounded_releases(search, reading.iloc[:0])
    assert all(math.isnan(v) for v in empty.values())
