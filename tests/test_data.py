"""dadp_lite.data: registered excerpts, user files, schema validation, encodings, writing."""

from __future__ import annotations

import codecs
import hashlib
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dadp_lite as dl
from dadp_lite import data
from dadp_lite.data import files

RECODED = ["race", "sex", "tenure", "age_bracket", "income_over_50k", "age"]
HEADER = "RAC1P,SEX,OWN_RENT,AGEP,PINCP"


def _raw(**columns):
    base = {"RAC1P": ["1"], "SEX": ["1"], "OWN_RENT": ["1"], "AGEP": ["30"], "PINCP": ["0"]}
    base.update(columns)
    size = max(len(v) for v in base.values())
    return pd.DataFrame({k: v * size if len(v) == 1 else v for k, v in base.items()})


def _csv(tmp_path, text, name="mine.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


# ------------------------------------------------------------ registered excerpts
@pytest.mark.parametrize("name", sorted(data.DATASETS))
def test_each_dataset_loads_with_its_registered_row_count(name):
    records = dl.load_records(name)
    assert len(records) == data.DATASETS[name].rows
    assert list(records.columns) == RECODED


def test_recoding_maps_income_n_to_zero_and_thresholds_at_50k():
    raw = _raw(RAC1P=["1", "9"], SEX=["1", "2"], OWN_RENT=["0", "2"], AGEP=["5", "60"],
               PINCP=["N", "50001.0"])  # fmt: skip
    records = data.recode(raw)
    assert records["income_over_50k"].tolist() == [0, 1]
    assert records["age_bracket"].tolist() == [0, 3]


def test_income_of_exactly_50000_is_not_over_50k():
    assert data.recode(_raw(PINCP=["50000"]))["income_over_50k"].item() == 0


def test_custom_age_edges_change_the_brackets():
    raw = _raw(AGEP=["10", "50", "99"])
    assert data.recode(raw, age_edges=(0, 50, 100))["age_bracket"].tolist() == [0, 1, 1]


def test_bad_age_edges_are_refused():
    with pytest.raises(ValueError, match="age_edges"):
        data.recode(pd.DataFrame(), age_edges=(0, 50, 50))


def test_unknown_dataset_name_lists_the_known_ones():
    with pytest.raises(data.DataError, match="ma2019"):
        dl.load_records("ohio2019")


def test_non_string_dataset_name_is_a_type_error():
    with pytest.raises(TypeError, match="dataset name"):
        dl.load_records(2019)


def test_missing_file_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("DADP_DATA_DIR", str(tmp_path))
    with pytest.raises(data.DataError, match="DADP_DATA_DIR"):
        dl.load_records("ma2019")


def test_corrupted_copy_is_refused_and_never_read(tmp_path, monkeypatch):
    source = data.dataset_path("ma2019")
    target = tmp_path / "ma2019.csv"
    shutil.copy(source, target)
    content = bytearray(target.read_bytes())
    content[200] = ord("9") if content[200] != ord("9") else ord("8")
    target.write_bytes(bytes(content))
    monkeypatch.setenv("DADP_DATA_DIR", str(tmp_path))
    read_calls = []
    for reader in ("read_excerpt_csv", "read_excerpt_file"):
        monkeypatch.setattr(files, reader, lambda path: read_calls.append(path))
    with pytest.raises(data.DataError, match="SHA-256"):
        data.load_raw("ma2019")
    assert read_calls == []


def test_a_registered_name_wins_over_a_file_of_that_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _csv(tmp_path, f"{HEADER}\n1,1,1,30,0\n", name="ma2019")
    assert len(dl.load_records("ma2019")) == data.DATASETS["ma2019"].rows


def test_without_data_dir_the_file_is_downloaded_with_its_hash(tmp_path, monkeypatch):
    real_file = data.dataset_path("tx2019")
    monkeypatch.delenv("DADP_DATA_DIR", raising=False)
    monkeypatch.setenv("DADP_CACHE_DIR", str(tmp_path / "cache"))
    calls = {}

    def fake_retrieve(url, known_hash, fname, path, progressbar):
        calls.update(url=url, known_hash=known_hash, fname=fname, path=path)
        return str(real_file)

    import pooch

    monkeypatch.setattr(pooch, "retrieve", fake_retrieve)
    assert data.dataset_path("tx2019") == real_file
    info = data.DATASETS["tx2019"]
    assert calls["url"] == info.url
    assert calls["known_hash"] == f"sha256:{info.sha256}"
    assert calls["fname"] == "tx2019.csv"
    assert str(calls["path"]) == str(tmp_path / "cache")


def test_a_verified_cached_copy_is_used_without_download(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    shutil.copy(data.dataset_path("ma2019"), cache / "ma2019.csv")
    monkeypatch.delenv("DADP_DATA_DIR", raising=False)
    monkeypatch.setenv("DADP_CACHE_DIR", str(cache))
    import pooch

    monkeypatch.setattr(pooch, "retrieve", lambda *a, **k: pytest.fail("downloaded"))
    assert data.dataset_path("ma2019") == cache / "ma2019.csv"


def test_counts_histogram_of_all_records_has_no_missing_values(ma_records):
    assert not ma_records.isna().any().any()
    assert np.issubdtype(ma_records["race"].dtype, np.integer)


# --------------------------------------------------------------------- user files
@pytest.fixture(scope="module")
def ma_copy(tmp_path_factory):
    """A byte-for-byte copy of the MA excerpt under another name (a user file)."""
    path = tmp_path_factory.mktemp("user") / "my-ma.csv"
    shutil.copy(data.dataset_path("ma2019"), path)
    return path


@pytest.mark.parametrize("as_str", [True, False], ids=["str", "PathLike"])
def test_a_csv_path_loads_like_the_registered_excerpt(ma_copy, ma_records, as_str):
    path = str(ma_copy) if as_str else ma_copy
    pd.testing.assert_frame_equal(dl.load_records(path), ma_records)
    setup = dl.Dataset.load(path)
    assert setup.name == "my-ma"
    assert np.array_equal(setup.histogram.counts, dl.Dataset.load("ma2019").histogram.counts)


def test_a_parquet_file_loads_like_the_csv(tmp_path, ma_copy, ma_records):
    raw = pd.read_csv(ma_copy, dtype=str, keep_default_na=False)
    typed = raw.assign(
        AGEP=raw["AGEP"].astype(int),
        PINCP=pd.to_numeric(raw["PINCP"].where(raw["PINCP"] != "N")),  # N -> null
    )
    path = tmp_path / "ma.parquet"
    typed.to_parquet(path, index=False)
    pd.testing.assert_frame_equal(dl.load_records(path), ma_records)
    assert data.source_info(path)["rows"] == len(ma_records)


def test_a_user_file_is_not_hash_checked_but_its_hash_is_reported(tmp_path):
    path = _csv(tmp_path, f"{HEADER},EXTRA\n2,2,2,45,70000,x\n9,1,0,3,N,y\n")
    records = dl.load_records(path)
    assert records[["race", "income_over_50k", "age_bracket"]].values.tolist() == [
        [2, 1, 2],
        [9, 0, 0],
    ]
    info = data.source_info(path)
    assert info["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (info["name"], info["rows"]) == ("mine", 2)


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(codecs.BOM_UTF8 + f"{HEADER}\n1,1,1,30,0\n".encode())
    assert len(dl.load_records(path)) == 1


@pytest.mark.parametrize(
    ("text", "column", "where"),
    [
        (f"{HEADER}\n1,1,1,30,0\n1,x,1,30,0\n", "SEX", "row 2 (line 3"),
        (f"{HEADER}\n1,1,1,30,0\n1,1,1,30,0\n10,1,1,30,0\n", "RAC1P", "row 3 (line 4"),
        (f"{HEADER}\n1,1,3,30,0\n", "OWN_RENT", "row 1 (line 2"),
        (f"{HEADER}\n1,1,1,30,0\n1,1,1,100,0\n", "AGEP", "row 2 (line 3"),
        (f"{HEADER}\n1,1,1,-1,0\n", "AGEP", "row 1 (line 2"),
        (f"{HEADER}\n1,1,1,30.5,0\n", "AGEP", "row 1 (line 2"),
        (f"{HEADER}\n1,1,1,30,lots\n", "PINCP", "row 1 (line 2"),
        (f"{HEADER}\n1,1,1,30,\n", "PINCP", "row 1 (line 2"),
        (f"{HEADER}\n1,,1,30,0\n", "SEX", "row 1 (line 2"),
        (f"{HEADER}\n1,1,1,30,0\n\n\n1,1,1,x,0\n", "AGEP", "row 2 (line 5"),
    ],
    ids=["non-numeric", "race-domain", "tenure-domain", "age-above-edges", "negative-age",
         "fractional", "income-text", "income-empty", "empty-value", "after-blank-lines"],
)  # fmt: skip
def test_a_bad_value_is_named_by_column_row_and_line(tmp_path, text, column, where):
    path = _csv(tmp_path, text)
    with pytest.raises(data.DataError) as error:
        dl.load_records(path)
    message = str(error.value)
    assert f"column {column}" in message and where in message and str(path) in message


def test_the_count_of_bad_rows_is_given(tmp_path):
    path = _csv(tmp_path, f"{HEADER}\n1,3,1,30,0\n1,1,1,30,0\n1,4,1,30,0\n")
    with pytest.raises(data.DataError, match="row 1 .*2 rows in all"):
        dl.load_records(path)


def test_missing_column_is_named(tmp_path):
    path = _csv(tmp_path, "RAC1P,SEX,AGEP,PINCP\n1,1,30,0\n")
    with pytest.raises(data.DataError, match="OWN_RENT"):
        data.read_excerpt_csv(path)


def test_a_column_in_the_wrong_case_is_pointed_out(tmp_path):
    path = _csv(tmp_path, "RAC1P,SEX,OWN_RENT,agep,PINCP\n1,1,1,30,0\n")
    with pytest.raises(data.DataError, match="AGEP.*'agep'.*case-sensitive"):
        dl.load_records(path)


def test_malformed_csv_is_refused(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b'RAC1P,SEX,OWN_RENT,AGEP,PINCP\n1,"2,1,30,0\n1,1\n')
    with pytest.raises(data.DataError):
        data.read_excerpt_csv(path)


def test_empty_csv_is_refused(tmp_path):
    path = _csv(tmp_path, "", name="empty.csv")
    with pytest.raises(data.DataError, match="empty .*readable CSV"):
        data.read_excerpt_csv(path)


def test_a_header_without_records_is_refused(tmp_path):
    with pytest.raises(data.DataError, match="no records"):
        dl.load_records(_csv(tmp_path, f"{HEADER}\n"))


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (codecs.BOM_UTF16_LE + f"{HEADER}\n1,1,1,30,0\n".encode("utf-16-le"), "UTF-16"),
        (f"{HEADER}\n1,1,1,30,0\n".encode("utf-16-le"), "NUL bytes"),
        (bytes(range(256)) * 4, "NUL bytes"),
        (b"PAR1" + bytes(64), "Parquet"),
        (f"{HEADER}\n1,1,1,30,0\n".encode() + b"\xff\xfe\n", "not UTF-8"),
    ],
    ids=["utf16-bom", "utf16-no-bom", "binary", "parquet-named-csv", "latin1"],
)
def test_unreadable_files_are_refused_with_the_reason(tmp_path, content, match):
    path = tmp_path / "odd.csv"
    path.write_bytes(content)
    with pytest.raises(data.DataError, match=match):
        dl.load_records(path)


def test_a_broken_parquet_file_is_refused(tmp_path):
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(data.DataError, match="Parquet"):
        dl.load_records(path)


@pytest.mark.parametrize(
    ("name", "match"),
    [("missing.csv", "no such file"), ("table.txt", "unsupported file type"), ("dir", "not a")],
)
def test_paths_that_are_not_dataset_files_are_refused(tmp_path, name, match):
    if name == "table.txt":
        (tmp_path / name).write_text(f"{HEADER}\n1,1,1,30,0\n")
    if name == "dir":
        (tmp_path / name).mkdir()
    with pytest.raises(data.DataError, match=match):
        dl.load_records(tmp_path / name)


def test_dataset_names_and_labels():
    assert data.dataset_label("ma2019") == "MA"
    assert data.dataset_label("national2019") == "Outlier"
    assert data.dataset_label("tx2019", kind="long") == "Texas (6 PUMAs)"
    assert data.dataset_label("runs/ma-swapped.csv") == "ma-swapped"
    assert data.dataset_label(Path("a/b.parquet"), kind="long") == "b"
    assert data.dataset_label("ma-swapped") == "ma-swapped"  # a loaded file's name
    assert data.dataset_name(Path("x/y.csv")) == "y"
    with pytest.raises(ValueError, match="kind"):
        data.dataset_label("ma2019", kind="short")


# ------------------------------------------------------------------------ writing
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_written_records_load_back_to_the_same_features(tmp_path, ma_records, suffix):
    released = ma_records.drop(columns="age")  # as a histogram's records: brackets only
    path = dl.write_excerpt(released, tmp_path / f"ma-copy{suffix}")
    back = dl.load_records(path)
    features = list(data.ATTRIBUTES)
    pd.testing.assert_frame_equal(back[features], ma_records[features])


def test_written_files_follow_the_excerpt_conventions(tmp_path, ma_records):
    path = dl.write_excerpt(ma_records, tmp_path / "ma.csv")
    raw = data.load_raw(path)
    assert list(raw.columns) == list(data.RAW_COLUMNS)
    assert raw["AGEP"].astype(int).tolist() == ma_records["age"].tolist()  # ages kept
    no_income = raw["PINCP"] == "N"
    assert (raw.loc[no_income, "AGEP"].astype(int) < 15).all()


def test_writing_refuses_inconsistent_or_incomplete_records(tmp_path, ma_records):
    with pytest.raises(ValueError, match="disagree"):
        dl.write_excerpt(ma_records.assign(age=5), tmp_path / "x.csv")
    with pytest.raises(ValueError, match="lack"):
        dl.write_excerpt(ma_records.drop(columns="sex"), tmp_path / "x.csv")
    with pytest.raises(ValueError, match="csv"):
        dl.write_excerpt(ma_records, tmp_path / "x.xlsx")
    with pytest.raises(data.DataError, match="RAC1P"):
        dl.write_excerpt(ma_records.assign(race=12), tmp_path / "x.csv")


# ---------------------------------------------------------------------- encodings
def _independent_counts(name: str) -> np.ndarray:
    """Today's histogram computed from the raw file with plain pandas (no dadp_lite code)."""
    raw = pd.read_csv(data.dataset_path(name), dtype=str, keep_default_na=False)
    income = pd.to_numeric(raw["PINCP"].replace("N", "0"))
    frame = pd.DataFrame({
        "race": raw["RAC1P"].astype(int), "sex": raw["SEX"].astype(int),
        "tenure": raw["OWN_RENT"].astype(int), "age": raw["AGEP"].astype(int) // 20,
        "income": (income > 50_000).astype(int),
    })  # fmt: skip
    full = pd.MultiIndex.from_product([range(1, 10), (1, 2), (0, 1, 2), range(5), (0, 1)])
    return frame.value_counts().reindex(full, fill_value=0).to_numpy()


@pytest.mark.parametrize("name", sorted(data.DATASETS))
def test_the_default_encoding_reproduces_todays_histogram_exactly(name):
    setup = dl.Dataset.load(name)
    assert setup.encoding == data.DEFAULT_ENCODING == dl.Encoding()
    assert setup.histogram.n_cells == 540
    assert np.array_equal(setup.histogram.counts, _independent_counts(name))
    explicit = dl.Dataset.load(name, encoding=dl.Encoding(age_edges=data.AGE_EDGES))
    assert np.array_equal(explicit.histogram.counts, setup.histogram.counts)


def test_equal_width_and_quantile_brackets_are_pandas_cut_and_qcut(ma_records):
    ages = ma_records["age"]
    raw = data.load_raw("ma2019")
    for rule, cut in [("equal_width", pd.cut), ("quantile", pd.qcut)]:
        got = dl.load_records("ma2019", encoding=dl.Encoding(age_rule=rule, age_bins=5))
        assert got["age_bracket"].tolist() == cut(ages, 5, labels=False).tolist()
        assert got.drop(columns="age_bracket").equals(ma_records.drop(columns="age_bracket"))
    assert len(raw) == len(ages)


def test_data_dependent_brackets_of_a_single_age():
    raw = _raw(AGEP=["30", "30", "30"])
    brackets = data.recode(raw, encoding=dl.Encoding(age_rule="equal_width"))["age_bracket"]
    assert brackets.nunique() == 1
    with pytest.raises(data.DataError, match="two distinct ages"):
        data.recode(raw, encoding=dl.Encoding(age_rule="quantile"))


def test_income_rules_move_exactly_the_records_they_should():
    raw = _raw(AGEP=["5", "30", "40"], PINCP=["N", "50000", "50001"])
    over = {
        (rule, none): data.recode(raw, encoding=dl.Encoding(income_rule=rule, no_income=none))[
            "income_over_50k"].tolist()
        for rule in (">", ">=") for none in ("zero", "ipums_code")
    }  # fmt: skip
    assert over[(">", "zero")] == [0, 0, 1]
    assert over[(">=", "zero")] == [0, 1, 1]
    assert over[(">", "ipums_code")] == [1, 0, 1]
    assert over[(">=", "ipums_code")] == [1, 1, 1]


def test_observed_universes_drop_what_the_data_never_hold():
    full = dl.Dataset.load("ma2019").histogram
    values = dl.Dataset.load("ma2019", encoding=dl.Encoding(universe="observed_values"))
    unseen = [r for r in range(1, 10) if r not in set(values.records["race"])]
    assert unseen and values.histogram.domains[0] == tuple(
        r for r in range(1, 10) if r not in unseen
    )
    assert values.histogram.n_cells == full.n_cells // 9 * (9 - len(unseen))
    cells = dl.Dataset.load("ma2019", encoding=dl.Encoding(universe="observed_cells"))
    assert cells.histogram.attributes == ("cell",)
    assert np.array_equal(cells.histogram.counts, full.counts[full.counts > 0])
    assert np.array_equal(np.bincount(cells.records["cell"], minlength=full.n_cells),
                          full.counts)  # fmt: skip


def test_an_observed_cells_dataset_refuses_mechanisms_that_need_the_features():
    cells = dl.Dataset.load("ma2019", encoding=dl.Encoding(universe="observed_cells"))
    with pytest.raises(ValueError, match="qi"):
        dl.data_release_table(cells, epsilons=[1.0], reps=2, seed=0, n_boot=5)
    table = dl.data_release_table(cells, epsilons=[1.0], reps=2, seed=0, n_boot=5,
                                  mechanisms=["laplace"], qi=["cell"], ka_qi=["cell"])  # fmt: skip
    assert len(table) == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"age_rule": "decades"}, ValueError, "age_rule"),
        ({"age_bins": 0}, ValueError, "age_bins"),
        ({"age_bins": 2.5}, TypeError, "age_bins"),
        ({"age_edges": (0, 50, 40)}, ValueError, "age_edges"),
        ({"age_edges": "0-100"}, TypeError, "age_edges"),
        ({"income_threshold": float("nan")}, ValueError, "income_threshold"),
        ({"income_threshold": "50k"}, TypeError, "income_threshold"),
        ({"income_rule": "<"}, ValueError, "income_rule"),
        ({"no_income": "skip"}, ValueError, "no_income"),
        ({"universe": "some"}, ValueError, "universe"),
    ],
)
def test_bad_encodings_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        dl.Encoding(**kwargs)


def test_age_edges_and_encoding_together_are_refused():
    with pytest.raises(ValueError, match="not both"):
        dl.Dataset.load("ma2019", age_edges=(0, 50, 100), encoding=dl.Encoding())
    with pytest.raises(TypeError, match="encoding"):
        dl.Dataset.load("ma2019", encoding="fixed")


def test_an_encoding_label_names_its_choices():
    label = dl.Encoding(age_rule="quantile", age_bins=20, income_rule=">=",
                        no_income="ipums_code", universe="observed_values").label  # fmt: skip
    assert label == "quantile 20 | >= 50000, N = 9999999 | observed_values"
    assert data.DEFAULT_ENCODING.label == "fixed 0-20-40-60-80-100 | > 50000, N = 0 | full"
