"""dadp_lite.histogram: full-universe counts, round trips, QI view, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import dadp_lite as dl
from dadp_lite.histogram import Histogram

SMALL_DOMAINS = {"a": (0, 1, 2), "b": ("x", "y")}


def small_records():
    return pd.DataFrame({"a": [0, 0, 2, 2, 2], "b": ["x", "x", "y", "x", "y"]})


def test_histogram_covers_the_full_universe_including_empty_cells():
    hist = Histogram.from_records(small_records(), ["a", "b"], SMALL_DOMAINS)
    assert hist.n_cells == 6
    # C order: (0,x) (0,y) (1,x) (1,y) (2,x) (2,y)
    assert hist.counts.tolist() == [2, 0, 0, 0, 1, 2]
    assert hist.total == 5


def test_records_to_histogram_to_records_round_trip_on_ma(ma_histogram):
    back = Histogram.from_records(
        ma_histogram.to_records(),
        ma_histogram.attributes,
        dict(zip(ma_histogram.attributes, ma_histogram.domains)),
    )
    assert np.array_equal(back.counts, ma_histogram.counts)


def test_histogram_total_equals_number_of_records(ma_records, ma_histogram):
    assert ma_histogram.total == len(ma_records)
    assert ma_histogram.n_cells == 9 * 2 * 3 * 5 * 2


def test_cell_table_lists_cells_in_count_order():
    hist = Histogram.from_records(small_records(), ["a", "b"], SMALL_DOMAINS)
    table = hist.cell_table()
    assert table.iloc[5].tolist() == [2, "y"]


def test_qi_matrix_groups_cells_sharing_non_qi_values():
    hist = Histogram.from_records(small_records(), ["a", "b"], SMALL_DOMAINS)
    matrix = hist.to_qi_matrix(["a"])
    # rows: b = x, y ; columns: a = 0, 1, 2
    assert matrix.tolist() == [[2, 0, 1], [0, 0, 2]]
    assert hist.n_qi(["a"]) == 3
    assert hist.qi_group_index(["a"]).tolist() == [0, 1, 0, 1, 0, 1]


@pytest.mark.parametrize("qi", [["race"], ["sex", "tenure"], ["income_over_50k", "race"]])
def test_qi_matrix_round_trip_with_batch_axes(ma_histogram, qi):
    batch = np.stack([ma_histogram.counts, 3 * ma_histogram.counts])
    matrix = ma_histogram.to_qi_matrix(qi, batch)
    assert matrix.shape[:1] == (2,)
    assert matrix.shape[-1] == ma_histogram.n_qi(qi)
    assert np.array_equal(ma_histogram.from_qi_matrix(qi, matrix), batch)
    # each row holds cells of one non-QI group
    groups = ma_histogram.qi_group_index(qi)
    cell_ids = ma_histogram.to_qi_matrix(qi, np.arange(ma_histogram.n_cells))
    assert all(len(set(groups[row])) == 1 for row in cell_ids)


def test_unknown_column_is_named():
    with pytest.raises(ValueError, match="attributes holds unknown attribute"):
        Histogram.from_records(small_records(), ["a", "zzz"], SMALL_DOMAINS)


def test_value_outside_domain_is_refused():
    with pytest.raises(ValueError, match="outside its domain"):
        Histogram.from_records(small_records(), ["a"], {"a": (0, 1)})


def test_records_must_be_a_dataframe():
    with pytest.raises(TypeError, match="DataFrame"):
        Histogram.from_records([[0, "x"]], ["a"], SMALL_DOMAINS)


def test_empty_records_give_an_all_zero_histogram():
    hist = Histogram.from_records(small_records().iloc[:0], ["a", "b"], SMALL_DOMAINS)
    assert hist.total == 0 and hist.n_cells == 6


@pytest.mark.parametrize(
    "counts, message",
    [([1, -1], "non-negative"), ([1.5, 0], "integers"), ([np.nan, 0], "finite"), ([1], "shape")],
)
def test_bad_counts_are_refused(counts, message):
    with pytest.raises(ValueError, match=message):
        Histogram(np.array(counts), ("a",), ((0, 1),))


def test_unknown_quasi_identifier_is_named(ma_histogram):
    with pytest.raises(ValueError, match="qi holds unknown attribute"):
        ma_histogram.to_qi_matrix(["zip"])
    with pytest.raises(ValueError, match="at least one"):
        ma_histogram.to_qi_matrix([])


def test_counts_are_read_only(ma_histogram):
    with pytest.raises(ValueError):
        ma_histogram.counts[0] = 5


def test_histogram_of_defaults_to_the_paper_features(ma_records):
    assert dl.histogram_of(ma_records).attributes == (
        "race",
        "sex",
        "tenure",
        "age_bracket",
        "income_over_50k",
    )
