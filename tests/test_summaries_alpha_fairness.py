"""dadp_lite.summaries.alpha_fairness: the alpha chapter's numbers, both ways."""

from __future__ import annotations

import pandas as pd
import pytest

from dadp_lite.summaries import alpha_fairness as af
from dadp_lite.summaries import plain_values


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


def test_floor_values_give_the_share_of_noise():
    values = plain_values(af.laplace_floor_values(ROW))
    assert values["floor_share"] == pytest.approx(0.5)
    assert values["first_dataset_name"] == "MA" and values["lap_eps"] == 0.5
    assert values["lap_alpha_pred"] == 3.9 and values["lap_alpha_sim"] == 4.0


def test_half_bound_values_count_the_exact_halves():
    half = pd.DataFrame({"dataset": ["MA", "TX"], "printed / true": [2.0, 2.002]})
    assert af.half_bound_values(half) == {"sw_half_n": 1, "sw_half_datasets": 2}
    assert af.half_bound_values(half.iloc[[1]]) == {"sw_half_n": 0, "sw_half_datasets": 1}
