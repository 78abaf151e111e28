"""Fast Mondrian against the anonypy reference (identical partitions), and its inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import dadp_lite as dl
from dadp_lite.mechanisms.mondrian import (
    CellTable,
    EquivalenceClass,
    Interval,
    mondrian,
    mondrian_anonypy,
    mondrian_batch,
    thin_cells,
)

FIVE = ("race", "sex", "tenure", "age_bracket", "income_over_50k")
FOUR = ("race", "sex", "tenure", "age_bracket")
AGE = ("age", "race", "sex")


@pytest.fixture(scope="module")
def data():
    return {name: dl.load_records(name) for name in ("ma2019", "tx2019", "national2019")}


# a few cases per dataset; anonypy is the slow side (about 0.2-2 s per case)
CASES = [
    ("ma2019", FIVE, (), 2),
    ("ma2019", FIVE, (), 10),
    ("ma2019", FOUR, (), 5),
    ("ma2019", FOUR, (), 50),
    ("ma2019", AGE, ("age",), 5),
    ("tx2019", FIVE, (), 5),
    ("tx2019", FOUR, (), 2),
    ("tx2019", AGE, ("age",), 50),
    ("national2019", FIVE, (), 50),
    ("national2019", FOUR, (), 10),
]


@pytest.mark.parametrize(("name", "qi", "numeric", "k"), CASES)
def test_fast_mondrian_equals_anonypy(data, name, qi, numeric, k):
    reference = mondrian_anonypy(data[name], qi, k, numeric=numeric)
    fast = mondrian(data[name], qi, k, numeric=numeric)
    assert fast == reference  # same classes, same counts, same order


def test_fast_mondrian_equals_anonypy_on_subsamples(data):
    records = data["ma2019"]
    table = CellTable.from_records(records, FIVE)
    keep = np.random.default_rng(3).random((2, len(records))) < 0.5
    counts, first = table.summarise(keep)
    batch = mondrian_batch(table, counts, first, 5)
    for rep in range(2):
        assert batch.classes(rep) == mondrian_anonypy(records[keep[rep]], FIVE, 5)


def test_fast_mondrian_equals_anonypy_on_random_small_frames():
    rng = np.random.default_rng(11)
    domains = {"a": tuple(range(4)), "b": (1, 2), "c": tuple(range(6)), "d": tuple(range(10))}
    for trial in range(40):
        m = int(rng.integers(1, 50))
        frame = pd.DataFrame(
            {
                "a": rng.integers(0, 4, m),
                "b": rng.integers(1, 3, m),
                "c": np.full(m, 2) if trial % 4 == 0 else rng.integers(0, 6, m),
                "d": rng.integers(0, 10, m),
            }
        )
        qi = tuple(rng.permutation(["a", "b", "c", "d"])[: rng.integers(1, 5)])
        numeric = tuple(q for q in qi if q in ("c", "d") and rng.random() < 0.6)
        k = int(rng.integers(1, m + 1))
        table = CellTable.from_records(frame, qi, numeric=numeric, domains=domains)
        fast = mondrian_batch(table, table.counts[None], table.first[None], k).classes(0)
        assert fast == mondrian_anonypy(frame, qi, k, numeric=numeric), (trial, qi, numeric, k)


def test_histogram_input_is_read_in_cell_order(data):
    hist = dl.histogram_of(data["tx2019"], FOUR)
    assert mondrian(hist, FOUR, 5) == mondrian_anonypy(hist.to_records(), FOUR, 5)


def test_classes_are_k_anonymous_and_cover_all_records(data):
    records = data["ma2019"]
    classes = mondrian(records, FIVE, 7)
    assert all(c.count >= 7 for c in classes)
    assert sum(c.count for c in classes) == len(records)
    assert isinstance(classes[0], EquivalenceClass)
    numeric = mondrian(records, AGE, 7, numeric=("age",))
    assert all(isinstance(c.values[0], Interval) for c in numeric)


def test_thin_cells_matches_row_thinning_in_law(data):
    """(count, first row) from thin_cells has the law of explicit Bernoulli row thinning."""
    records = data["ma2019"]
    table = CellTable.from_records(records, FIVE)
    beta, reps = 0.3, 2000
    rng = np.random.default_rng(5)
    counts_fast, first_fast = thin_cells(table, beta, rng=rng, reps=reps)
    counts_rows, first_rows = table.summarise(rng.random((reps, len(records))) < beta)
    cell = int(np.argmax(table.counts == 3))  # a cell with 3 records
    second = table.positions[table.offsets[cell] + 1]
    for stat in (
        lambda c, f: c[:, cell],
        lambda c, f: f[:, cell] == table.first[cell],
        lambda c, f: f[:, cell] == second,
        lambda c, f: c.sum(axis=1),
    ):
        a = np.asarray(stat(counts_fast, first_fast), dtype=float)
        b = np.asarray(stat(counts_rows, first_rows), dtype=float)
        se = np.sqrt(a.var(ddof=1) / reps + b.var(ddof=1) / reps)
        assert abs(a.mean() - b.mean()) <= 4.5 * se


def test_empty_repetitions_give_no_classes(data):
    table = CellTable.from_records(data["ma2019"], FIVE)
    counts = np.zeros((2, table.counts.size), dtype=np.int64)
    counts[1] = table.counts
    first = np.where(counts > 0, table.first, -1)
    batch = mondrian_batch(table, counts, first, 5)
    assert batch.n_classes[0] == 0 and batch.n_classes[1] > 0
    assert np.all(batch.leaf[0] == -1)


@pytest.mark.parametrize("k", [0, -1, 7635])
def test_bad_k_raises(data, k):
    with pytest.raises(ValueError, match="k must be"):
        mondrian(data["ma2019"], FIVE, k)
    with pytest.raises(ValueError, match="k must be"):
        mondrian_anonypy(data["ma2019"], FIVE, k)


def test_bad_k_type_raises(data):
    with pytest.raises(TypeError, match="k must be an integer"):
        mondrian(data["ma2019"], FIVE, 2.5)


@pytest.mark.parametrize(
    ("qi", "numeric", "match"),
    [
        ((), (), "at least one"),
        (("race", "zip"), (), "unknown"),
        (("race", "race"), (), "repeats"),
        (("race", "sex"), ("age",), "numeric holds unknown"),
    ],
)
def test_bad_qi_raises(data, qi, numeric, match):
    with pytest.raises(ValueError, match=match):
        mondrian(data["ma2019"], qi, 2, numeric=numeric)


def test_numeric_qi_needs_consecutive_integer_domain():
    frame = pd.DataFrame({"a": [1, 3, 5, 3]})
    with pytest.raises(ValueError, match="consecutive integers"):
        CellTable.from_records(frame, ("a",), numeric=("a",), domains={"a": (1, 3, 5)})


def test_bad_input_type_raises():
    with pytest.raises(TypeError, match="records_or_histogram"):
        mondrian([[1, 2]], ("race",), 1)
    with pytest.raises(TypeError, match="records"):
        mondrian_anonypy([[1, 2]], ("race",), 1)


def test_merged_flags_cells_of_generalised_classes(data):
    records = data["ma2019"]
    table = CellTable.from_records(records, FIVE)
    batch = mondrian_batch(table, table.counts[None], table.first[None], 5)
    merged = batch.merged()[0]
    classes = batch.classes(0)
    singles = sum(1 for c in classes if all(len(v) == 1 for v in c.values))
    assert (~merged).sum() == singles  # one cell per unmerged class
    assert np.all(table.counts[~merged] >= 5)
