"""DP k-anonymity's bias split into thinning and reconstruction
(:func:`dadp_lite.experiments.k_anonymity_bias_parts`)."""

from __future__ import annotations

import numpy as np
import pytest

from dadp_lite.data import ATTRIBUTES
from dadp_lite.definitions import sampling_probability
from dadp_lite.experiments import k_anonymity_bias_parts
from dadp_lite.mechanisms import CellTable


@pytest.fixture(scope="module")
def parts(ma_records):
    return k_anonymity_bias_parts(ma_records, k=6, epsilon=1.0, reps=40, seed=7)


def test_parts_add_up_to_the_empirical_bias(parts):
    recomposed = parts["thinning"] + parts["thinning_noise"] + parts["reconstruction"]
    assert np.allclose(recomposed, parts["bias"], atol=1e-9)


def test_thinning_part_is_exact_and_reconstruction_keeps_every_record(parts, ma_histogram):
    beta = sampling_probability(1.0)
    assert np.array_equal(parts["count"], ma_histogram.counts)
    assert np.allclose(parts["thinning"], -(1 - beta) * ma_histogram.counts, rtol=0, atol=1e-12)
    # the reconstruction turns every record of a class into one record: sum of r - s is 0
    assert abs(parts["reconstruction"].sum()) < 1e-9
    assert parts["merged"].between(0, 1).all()
    assert (parts.loc[parts["count"] == 0, "merged"] == 0).all()


def test_same_seed_same_numbers_and_a_cell_table_is_accepted(ma_records, parts):
    table = CellTable.from_records(ma_records, ATTRIBUTES, attributes=ATTRIBUTES)
    again = k_anonymity_bias_parts(table, k=6, epsilon=1.0, reps=40, seed=7)
    assert again.equals(parts)


def test_bad_arguments_are_refused(ma_records):
    with pytest.raises(ValueError, match="epsilon"):
        k_anonymity_bias_parts(ma_records, k=6, epsilon=0.0, reps=2, seed=0)
    with pytest.raises(ValueError, match="reps"):
        k_anonymity_bias_parts(ma_records, k=6, epsilon=1.0, reps=0, seed=0)
