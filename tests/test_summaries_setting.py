"""Chapter 01's summaries (dadp_lite.summaries.setting)."""

from __future__ import annotations

import numpy as np
import pytest

from dadp_lite.summaries import setting


def test_sparsity_counts_empty_and_small_cells():
    out = setting.sparsity(np.array([0, 0, 1, 5, 9]), 2)
    assert out == {"n_cells": 5, "empty_share": 40.0, "k_mid": 2, "below_k_share": 60.0}


def test_sparsity_of_a_full_histogram():
    out = setting.sparsity(np.array([3, 4]), 2)
    assert out["empty_share"] == 0.0 and out["below_k_share"] == 0.0


BAD = [(np.array([], dtype=int), 2), (np.array([1.5]), 2), (np.array([1, 2]), 0),
       (np.array([1, 2]), True)]  # fmt: skip


@pytest.mark.parametrize(("counts", "k"), BAD)
def test_sparsity_refuses_bad_input(counts, k):
    with pytest.raises(ValueError):
        setting.sparsity(counts, k)
