"""dadp_lite.summaries.k_anonymity_bias: the parts of the k-anonymity chapter's alpha."""

from __future__ import annotations

import pandas as pd
import pytest

from dadp_lite.summaries import k_anonymity_bias as kb
from dadp_lite.summaries import plain_values


def _parts() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "dataset": ["ma2019", "ma2019", "tx2019"],
            "epsilon": [0.5, 4.0, 0.5],
            "alpha": [418.0, 300.0, 500.0],
            "min cell: count": [580.0, 580.0, 900.0],
            "min cell: thinning": [-350.0, -7.0, -500.0],
            "min cell: reconstruction": [-46.0, -278.0, -10.0],
            "max cell: bias": [60.0, 108.0, 5.0],
            "indicator alpha": [0.99, 0.5, 0.9],
        }
    )


def test_alpha_parts_values_read_the_first_dataset_at_both_ends():
    values = plain_values(kb.alpha_parts_values(_parts(), n_epsilons=2))
    assert values["alpha_first"] == 418.0 and values["alpha_first_dataset"] == "MA"
    assert values["alpha_first_thin"] == 350.0 and values["alpha_first_recon"] == 46.0
    assert values["alpha_last_eps"] == 4.0 and values["alpha_last_recon"] == 278.0
    assert values["alpha_last_max"] == 108.0 and values["indicator_alpha_max"] == 0.99


def test_alpha_parts_values_return_numbers_and_labels_only():
    values = kb.alpha_parts_values(_parts(), n_epsilons=2)
    assert all(isinstance(v, float) for k, v in values.items() if k != "alpha_first_dataset")


def test_alpha_parts_values_need_the_first_datasets_rows():
    with pytest.raises(IndexError):
        kb.alpha_parts_values(_parts(), n_epsilons=4)
