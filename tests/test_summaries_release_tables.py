"""dadp_lite.summaries.release_tables: the data-release chapter's phrases, on small tables
whose answers are known, each wording choice in both of its branches."""

import math

import numpy as np
import pandas as pd
import pytest

from dadp_lite.errata import Status
from dadp_lite.summaries import release_tables as rt
from dadp_lite.theory.fairness import swapping_bias_spread


def test_words_lists_and_phrases():
    assert rt.words(("race", "sex")) == "race, sex"
    assert rt.epsilons_phrase([0.5, 1.0, 2.0]) == "0.5, 1, 2"
    assert rt.epsilons_phrase([]) == "no epsilon"
    assert rt.places(["ma2019", "tx2019"], [0.5, 4.0]) == "MA at epsilon = 0.5; TX at epsilon = 4"
    assert rt.places([], []) == "none"


def test_status_word_says_not_compared_without_a_status():
    assert rt.status_word(Status("wrong", "b", 0.0)) == "wrong"
    assert rt.status_word(None) == "not compared"
    with pytest.raises(TypeError, match="status"):
        rt.status_word("wrong")


def test_comparison_scope_names_the_printed_rows_or_says_there_are_none():
    assert rt.comparison_scope(["ma2019", "tx2019"], [0.5, 4.0]) == {
        "cmp_scope": "MA, TX at epsilon = 0.5, 4"
    }
    assert rt.comparison_scope([], [])["cmp_scope"].startswith("none in this run")


@pytest.mark.parametrize(
    "paper_sd, compared, side, starts",
    [(10.0, True, "below", "By part 1"), (1.0, True, "below", "A simulation"),
     (-10.0, True, "above", "A simulation"), (0.0, False, "above", "The paper prints no")],
)  # fmt: skip
def test_laplace_position_infers_only_beyond_the_limit(paper_sd, compared, side, starts):
    values = rt.laplace_position(paper_sd, limit=5.0, compared=compared)
    assert values["lap_paper_side"] == side and values["lap_inference"].startswith(starts)
    assert values["lap_paper_sd"] == (abs(paper_sd) if compared else 0.0)


def test_relative_bias_says_whether_laplace_has_the_smallest_bias():
    all_above = rt.relative_bias({"dp_swapping": np.array([2.0, 3.0])})["rel_conclusion"]
    assert "against DP swapping." in all_above and all_above.endswith("holds here.")
    mixed = rt.relative_bias(
        {"dp_swapping": np.array([2.0, 3.0]), "discrete_gaussian": np.array([0.8, 0.9]),
         "dp_cell_suppression": np.array([0.9, 1.2])}
    )["rel_conclusion"]  # fmt: skip
    assert "against DP swapping, and the larger against discrete Gaussian." in mixed
    assert mixed.endswith("named first only.")
    none = rt.relative_bias({"discrete_gaussian": np.array([0.8])})["rel_conclusion"]
    assert "against no other mechanism, and the larger against discrete Gaussian" in none


def _spread(largest_group_holds_extremes: bool):
    # rows: QI groups, columns: QI values (n_Q = 3). The largest cell, 10, is in group 0.
    if largest_group_holds_extremes:
        return swapping_bias_spread(np.array([[10, 0, 2], [3, 3, 3]]))
    return swapping_bias_spread(np.array([[10, 9, 9], [0, 0, 8]]))


def test_swapping_structure_says_where_the_extremes_lie():
    inside, outside = _spread(True), _spread(False)
    assert inside.in_largest_group and not outside.in_largest_group
    text = rt.swapping_structure({"ma2019": inside, "tx2019": outside})["sw_structure"]
    assert text.startswith("both extremes lie in the group of the largest cell on MA; not on TX")
    assert f"({inside.largest}, {inside.group_min}, {inside.smallest}) on MA" in text
    only_out = rt.swapping_structure({"tx2019": outside})["sw_structure"]
    assert only_out.startswith("not on TX, with (x_n, m, x_1) = ")


def _swapping_rows():
    return pd.DataFrame(
        {"dataset": ["ma2019"] * 2 + ["tx2019"] * 2, "epsilon": [0.5, 4.0] * 2,
         "alpha_exact": [100.0, 50.0, 100.0, 50.0], "paper_alpha": [80.0, 60.0, 90.0, 45.0],
         "alpha": [100.0, 50.0, 100.0, 50.0], "alpha_se": [1.0, 1.0, 0.0, 0.0],
         "implied x_n": [8.0, 12.0, 5.0, 6.0]}
    ).assign(**{"exact / paper": lambda f: f["alpha_exact"] / f["paper_alpha"]})  # fmt: skip


def test_swapping_alpha_phrases():
    spreads = {"ma2019": _spread(True), "tx2019": _spread(True)}  # largest cell: 10
    values = rt.swapping_alpha(_swapping_rows(), spreads, n_datasets=2)
    assert values["sw_below_eps"] == "0.5"  # below on both datasets only at 0.5
    assert values["sw_alpha_ratios"] == "1.25-1.25 on MA; 1.11-1.11 on TX"
    assert values["sw_alpha_verdicts"].startswith("not reproduced on MA (largest |z| = ")
    assert "TX" not in values["sw_alpha_verdicts"]  # no spread: not judged
    assert values["sw_implied"] == "8 records on MA (ours: 10); 5 records on TX (ours: 10)"
    assert values["sw_implied_direction"] == (
        "smaller at epsilon = 0.5 and larger at 4 on MA; smaller than ours at every epsilon on TX"
    )


def test_swapping_alpha_larger_everywhere_and_nothing_to_compare():
    rows = _swapping_rows().assign(**{"implied x_n": 20.0})
    values = rt.swapping_alpha(rows, {"ma2019": _spread(True), "tx2019": _spread(True)},
                               n_datasets=2)  # fmt: skip
    assert values["sw_implied_direction"].startswith("larger than ours at every epsilon on MA")
    empty = rt.swapping_alpha(rows.iloc[:0], {}, n_datasets=2)
    assert empty["sw_alpha_verdicts"] == "not compared" and empty["sw_below_eps"] == "no epsilon"


def _reading(identified=True, score=0.01, tied=1):
    return pd.DataFrame(
        [{"dataset": "ma2019", "encoding": "A", "n_cells": 480, "score": score,
          "runner_up": "B", "runner_up_score": 0.02, "share": 0.97, "tied": tied,
          "identified": identified}]
    )  # fmt: skip


def test_encoding_verdicts_call_an_encoding_the_papers_only_if_identified_and_close():
    good = rt.encoding_verdicts(_reading(), within=0.05, identified_share=0.95)["enc_verdicts"]
    assert good.startswith("MA: the best fit of the two selection columns is 'A' (480 cells")
    assert good.endswith("That is the paper's reading, identified.")
    far = rt.encoding_verdicts(_reading(score=math.log(1.2), identified=False, tied=3),
                               within=0.05, identified_share=0.95)["enc_verdicts"]  # fmt: skip
    assert "tied with 2 other label(s))" in far
    assert far.endswith("not identified: the best fit is off by more than 5% and it wins "
                        "fewer than 95% of the replicates.")  # fmt: skip
    empty = rt.encoding_verdicts(_reading().iloc[:0], within=0.05, identified_share=0.95)
    assert empty["enc_verdicts"] == "Nothing to compare in this run."


def test_encoding_columns_separate_out_of_sample_from_in_sample():
    columns = pd.DataFrame(
        {"dataset": ["ma2019"] * 3, "column": ["laplace", "dp_cell_suppression", "sw"],
         "best_encoding": ["x >= 50000", "y", "z"], "reproduced": [True, False, False],
         "best_within": [True, True, False], "identified": [True, False, False],
         "ratio_min": [1.0, 1.0, 0.9], "ratio_max": [1.0, 1.0, 1.1],
         "held_out_ratio_min": [1.0, 1.0, math.nan], "held_out_ratio_max": [1.0, 1.0, math.nan]}
    )  # fmt: skip
    values = rt.encoding_columns(columns, swapping_column="sw")
    assert values["enc_reproduced_list"] == "MA Laplace"
    assert values["enc_in_sample_only"] == "MA DP cell suppression"
    assert values["enc_ge_list"] == "MA Laplace"
    assert (values["enc_reproduced_n"], values["enc_columns_n"], values["enc_identified_n"]) == (
        1, 2, 1)  # fmt: skip
    assert values["sw_enc_verdict"] == (
        "MA: not reproduced out of sample (none); the best of the candidates on this column "
        "alone gives 0.90-1.10"
    )


def test_rounded_releases_compare_the_spread_of_the_ratios():
    search = pd.DataFrame(
        {"dataset": "ma2019", "encoding": "A",
         "column": ["laplace", "laplace", "laplace_rounded", "laplace_rounded"],
         "ratio": [0.8, 1.0, 0.95, 1.0]}
    )  # fmt: skip
    text = rt.rounded_releases(search, _reading())["enc_rounded"]
    assert text == "1.25 for plain and 1.05 for rounded releases on MA"
    assert rt.rounded_releases(search, _reading().iloc[:0])["enc_rounded"] == "not compared"
