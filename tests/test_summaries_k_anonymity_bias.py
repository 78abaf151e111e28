"""dadp_lite.summaries.k_anonymity_bias: the k-anonymity bias chapter's values, both ways."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dadp_lite import errata
from dadp_lite.summaries import k_anonymity_bias as kb
from dadp_lite.summaries import plain_values


def test_merged_values_take_the_largest_share():
    merged = pd.DataFrame({"merged although >= k": [0.1, 0.25, 0.0]})
    assert kb.merged_values(merged) == {"merged_big_share": 0.25}


def _paper_table(paper_bias):
    return pd.DataFrame(
        {
            "dataset": ["ma2019", "ma2019"],
            "epsilon": [0.5, 1.0],
            "(1-beta)m": [4630.0, 3500.0],
            "paper bias l1": paper_bias,
            "bias_l1": [4700.0, 3600.0],
            "bias_l1_se": [5.0, 5.0],
            "paper alpha": [20.0, 40.0],
            "alpha": [400.0, 100.0],
        }
    )


def test_paper_table_values_judge_the_printed_bias_column():
    table = _paper_table([2337.8, np.nan])
    values = plain_values(kb.paper_table_values(table, pd.Series([True, False])))
    assert values["n_violations"] == 1 and values["n_paper_cells"] == 1
    assert values["ma_dataset"] == "MA" and values["ma_bound"] == 4630.0
    assert values["alpha_ratio_min"] == values["alpha_ratio_max"] == 20.0
    assert values["tables_bias_word"] == "not reproduced"
    assert values[errata.status_key("ka-tables-bias")] == "not reproduced"
    close = kb.paper_table_values(_paper_table([4701.0, 3601.0]), pd.Series([False, False]))
    assert close["tables_bias_word"] == "reproduced"


def test_paper_table_values_say_not_compared_without_a_printed_value():
    values = kb.paper_table_values(_paper_table([np.nan, np.nan]), pd.Series([False, False]))
    assert values["n_paper_cells"] == 0 and values["ma_dataset"] == "none"
    assert values["tables_bias_word"].startswith("not compared")
    assert math.isnan(values["ma_bound"]) and errata.status_key("ka-tables-bias") not in values


def test_alpha_parts_values_count_the_printed_alphas_below_the_floor():
    parts = pd.DataFrame(
        {
            "dataset": ["ma2019", "ma2019", "tx2019"],
            "epsilon": [0.5, 4.0, 0.5],
            "alpha": [418.0, 300.0, 500.0],
            "min cell: count": [580.0, 580.0, 900.0],
            "min cell: thinning": [-350.0, -7.0, -500.0],
            "min cell: reconstruction": [-46.0, -278.0, -10.0],
            "max cell: bias": [60.0, 108.0, 5.0],
            "(1-beta) max x": [350.0, 7.0, 540.0],
            "largest cell: reconstruction": [-40.0, -200.0, 0.0],
            "largest cell: se": [1.0, 1.0, 100.0],
            "indicator alpha": [0.99, 0.5, 0.9],
            "paper alpha": [20.0, 30.0, 40.0],
        }
    )
    values = kb.alpha_parts_values(parts, n_epsilons=2)
    assert values["alpha_below_floor"] == 2 and values["alpha_compared"] == 3
    assert values["alpha_inflow_refuted"] == 1  # tx: the inflow is within its z-limit
    assert values["alpha_first_thin"] == 350.0 and values["alpha_last_eps"] == 4.0
    assert values["alpha_last_recon"] == 278.0 and values["indicator_alpha_max"] == 0.99
    assert values["alpha_first_dataset"] == "MA"
    with pytest.raises(IndexError):
        kb.alpha_parts_values(parts, n_epsilons=4)
