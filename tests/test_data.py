"""dadp_lite.data: registry, verification, recoding, errors."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

import dadp_lite as dl
from dadp_lite import data


@pytest.mark.parametrize("name", sorted(data.DATASETS))
def test_each_dataset_loads_with_its_registered_row_count(name):
    records = dl.load_records(name)
    assert len(records) == data.DATASETS[name].rows
    assert list(records.columns) == [
        "race",
        "sex",
        "tenure",
        "age_bracket",
        "income_over_50k",
        "age",
    ]


def test_recoding_maps_income_n_to_zero_and_thresholds_at_50k():
    raw = pd.DataFrame(
        {
            "RAC1P": ["1", "9"],
            "SEX": ["1", "2"],
            "OWN_RENT": ["0", "2"],
            "AGEP": ["5", "60"],
            "PINCP": ["N", "50001.0"],
        }
    )
    records = data.recode(raw)
    assert records["income_over_50k"].tolist() == [0, 1]
    assert records["age_bracket"].tolist() == [0, 3]


def test_income_of_exactly_50000_is_not_over_50k():
    raw = pd.DataFrame(
        {"RAC1P": ["1"], "SEX": ["1"], "OWN_RENT": ["1"], "AGEP": ["30"], "PINCP": ["50000"]}
    )
    assert data.recode(raw)["income_over_50k"].item() == 0


def test_custom_age_edges_change_the_brackets():
    raw = pd.DataFrame(
        {
            "RAC1P": ["1"] * 3,
            "SEX": ["1"] * 3,
            "OWN_RENT": ["1"] * 3,
            "AGEP": ["10", "50", "99"],
            "PINCP": ["0"] * 3,
        }
    )
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
    monkeypatch.setattr(data, "read_excerpt_csv", lambda path: read_calls.append(path))
    with pytest.raises(data.DataError, match="SHA-256"):
        data.load_raw("ma2019")
    assert read_calls == []


def test_missing_column_is_named(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("RAC1P,SEX,AGEP,PINCP\n1,1,30,0\n")
    with pytest.raises(data.DataError, match="OWN_RENT"):
        data.read_excerpt_csv(path)


def test_malformed_csv_is_refused(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b'RAC1P,SEX,OWN_RENT,AGEP,PINCP\n1,"2,1,30,0\n1,1\n')
    with pytest.raises(data.DataError):
        data.read_excerpt_csv(path)


def test_empty_csv_is_refused(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("")
    with pytest.raises(data.DataError, match="readable CSV"):
        data.read_excerpt_csv(path)


def test_value_outside_domain_is_refused():
    raw = pd.DataFrame(
        {"RAC1P": ["10"], "SEX": ["1"], "OWN_RENT": ["1"], "AGEP": ["30"], "PINCP": ["0"]}
    )
    with pytest.raises(data.DataError, match="race"):
        data.recode(raw)


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
