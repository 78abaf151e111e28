"""dadp_lite.summaries.alpha_fairness: the alpha chapter's numbers and phrases, both ways."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dadp_lite import errata
from dadp_lite.summaries import alpha_fairness as af
from dadp_lite.summaries import plain_values

FLOOR_KEY = errata.status_key("simulated-alpha-floor")


def test_verification_values_are_the_worst_ratios():
    table = pd.DataFrame({"largest gap / limit": [0.2, 0.7], "alpha gap / limit": [0.1, 0.05]})
    assert af.verification_values(table) == {"worst_cell_ratio": 0.7, "worst_alpha_ratio": 0.1}


ROW = {
    "dataset": "ma2019",
    "epsilon": 0.5,
    "alpha exact": 2.0,
    "alpha simulated": 4.0,
    "alpha predicted": 3.9,
}


def test_floor_values_judge_the_paper_against_our_run_and_the_truth():
    values = plain_values(af.laplace_floor_values(ROW, paper_alpha=4.05, sd=0.1))
    assert values["floor_share"] == pytest.approx(0.5)
    assert values["first_dataset_name"] == "MA" and values["lap_eps"] == 0.5
    assert values[FLOOR_KEY] == errata.reproduced_status(4.0, 4.05, math.sqrt(2) * 0.1).word
    assert values["lap_alpha_true_word"] == "not reproduced"  # 2.0 against 4.05, sd 0.1
    assert values[FLOOR_KEY] != values["lap_alpha_true_word"]


def test_floor_values_say_not_compared_where_the_paper_prints_nothing():
    values = af.laplace_floor_values(ROW, paper_alpha=None, sd=None)
    assert values[FLOOR_KEY] == values["lap_alpha_true_word"] == "not compared"


def test_looseness_values_read_laplace_at_the_largest_and_cs_at_the_smallest_epsilon():
    real = pd.DataFrame(
        {
            "dataset": ["a"] * 4 + ["b"],
            "epsilon": [0.5, 4.0, 0.5, 4.0, 0.5],
            "mechanism": ["laplace"] * 2 + ["dp_cell_suppression"] * 2 + ["laplace"],
            "printed / true": [10.0, 20.0, 30.0, 40.0, 99.0],
        }
    )
    assert af.looseness_values(real, "a", [0.5, 4.0]) == {"lap_loose": 20.0, "cs_loose": 30.0}


def test_half_bound_values_name_the_exact_halves_and_explain_the_others():
    half = pd.DataFrame(
        {"dataset": ["MA", "TX"], "m": [0, 1], "x_1": [0, 0], "printed / true": [2.0, 2.002]}
    )
    values = af.half_bound_values(half)
    assert values["sw_half_on"] == "MA"
    assert values["sw_half_other"] == (
        "on TX the group of the largest cell has m = 1 against x_1 = 0, and the ratio is 2.002"
    )
    none = af.half_bound_values(half.iloc[[1]])
    assert none["sw_half_on"] == "none of the datasets"
    assert af.half_bound_values(half.iloc[[0]])["sw_half_other"] == "no dataset differs"
