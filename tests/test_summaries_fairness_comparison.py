"""dadp_lite.summaries.fairness_comparison: the comparison chapter's phrases, both ways."""

from __future__ import annotations

import pandas as pd

from dadp_lite.summaries import fairness_comparison as fc
from dadp_lite.summaries import plain_values


def test_search_values_say_whether_reading_b_fails_and_name_the_smallest_violation():
    fails = fc.search_values(
        pd.DataFrame({"violations": [0, 3]}),
        pd.DataFrame({"counts": [(0, 1), (0, 2)], "epsilon": [2.0, 4.0]}),
    )
    assert fails == {"b_fails": "fails", "sw_out_smallest": "the smallest is (0, 1) at epsilon = 2"}
    holds = fc.search_values(
        pd.DataFrame({"violations": [0, 0]}), pd.DataFrame(columns=["counts", "epsilon"])
    )
    assert holds == {
        "b_fails": "does not fail on this grid",
        "sw_out_smallest": "none on this grid",
    }


def test_confirmation_values_count_z_beyond_the_limit_and_the_asserted_rows():
    checks = pd.DataFrame({"z": [6.0, 4.0, 9.0], "asserted": [True, False, True]})
    assert fc.confirmation_values(checks, 5.0) == {"n_confirmed": 2, "n_asserted": 2}


def _real(lap_true, lap_printed, x_1=(0, 3)):
    return pd.DataFrame(
        {
            "dataset": ["a", "b"],
            "epsilon": [1.0, 4.0],
            "x_1": list(x_1),
            "Lap true": lap_true,
            "CS true": [2.0, 2.0],
            "SW true": [3.0, 3.0],
            "Lap printed": lap_printed,
            "SW printed": [5.0, 5.0],
        }
    )


def test_real_table_values_state_the_conclusion_that_the_true_alphas_support():
    holds = plain_values(fc.real_table_values(_real([1.0, 1.0], [4.0, 6.0])))
    assert holds["real_hypothesis"] == 1 and holds["real_datasets"] == 2
    assert holds["real_true_holds"] == 2 and holds["real_configs"] == 2
    assert holds["real_conclusion"].startswith("the paper's empirical conclusion stands")
    assert holds["real_printed_fail"] == 1 and holds["real_printed_fail_eps"] == "4"
    fails = fc.real_table_values(_real([1.0, 2.5], [4.0, 4.0]))
    assert fails["real_true_holds"] == 1
    assert fails["real_conclusion"].endswith("does not hold on all of these tables either")
    assert fails["real_printed_fail"] == 0 and fails["real_printed_fail_eps"] == "none"
