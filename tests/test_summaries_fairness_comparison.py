"""dadp_lite.summaries.fairness_comparison: the comparison chapter's counts."""

from __future__ import annotations

import pandas as pd

from dadp_lite.summaries import fairness_comparison as fc
from dadp_lite.summaries import plain_values


def test_confirmation_values_count_the_asserted_rows():
    checks = pd.DataFrame({"z": [6.0, 4.0, 9.0], "asserted": [True, False, True]})
    assert fc.confirmation_values(checks) == {"n_asserted": 2}
    assert fc.confirmation_values(checks.iloc[:0]) == {"n_asserted": 0}


def _real(lap_printed, x_1=(0, 3)):
    return pd.DataFrame(
        {
            "dataset": ["a", "b"],
            "epsilon": [1.0, 4.0],
            "x_1": list(x_1),
            "Lap printed": lap_printed,
            "SW printed": [5.0, 5.0],
        }
    )


def test_real_table_values_count_the_hypothesis_and_the_printed_failures():
    values = plain_values(fc.real_table_values(_real([4.0, 6.0])))
    assert values == {
        "real_hypothesis": 1,
        "real_datasets": 2,
        "real_configs": 2,
        "real_printed_fail": 1,
    }
    assert fc.real_table_values(_real([4.0, 4.0], x_1=(2, 3)))["real_printed_fail"] == 0
    assert fc.real_table_values(_real([4.0, 4.0], x_1=(2, 3)))["real_hypothesis"] == 2
