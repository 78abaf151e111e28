"""Your own data: the worked example of README.md ("Your own data") and
book/reproducibility.md, run end to end without network.

The example deidentifies MA with one of the book's record-level mechanisms, DP swapping
per record (the paper's appendix algorithm, ``unit="record"``): every person keeps their
race with probability gamma = e^eps / (e^eps + 8), else takes one of the other eight
races; nothing else about them changes, and one record comes out per record in. The
released histogram is turned back into records (age as the lower edge of its bracket,
income as 0 / 50,001 / N) and written as a CSV in the excerpt schema, which the book then
loads like any dataset.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys

import numpy as np
import pytest

import dadp_lite as dl
from dadp_lite.experiments import tables as ex_tables


@pytest.fixture(scope="module")
def swapped_file(tmp_path_factory):
    """MA after record-level DP swapping (epsilon = 1, race as QI), written as a CSV."""
    ma = dl.Dataset.load("ma2019")
    released = dl.dp_swapping(ma.histogram, qi=["race"], epsilon=1.0, unit="record",
                              rng=dl.make_rng(2023), reps=1)[0]  # fmt: skip
    swapped = ma.histogram.with_counts(released).to_records()
    return dl.write_excerpt(swapped, tmp_path_factory.mktemp("user") / "ma-swapped.csv")


def test_the_swapped_file_loads_as_a_dataset_named_after_it(swapped_file):
    setup = dl.Dataset.load(swapped_file)
    ma = dl.Dataset.load("ma2019").histogram
    assert setup.name == "ma-swapped"
    assert setup.histogram.total == ma.total  # one record out per record in
    # everything but race is unchanged: the counts summed over race agree cell by cell
    swapped_rest = setup.histogram.to_qi_matrix(("race",)).sum(axis=1)
    assert np.array_equal(swapped_rest, ma.to_qi_matrix(("race",)).sum(axis=1))
    assert not np.array_equal(setup.histogram.counts, ma.counts)  # races did move


def test_the_swapped_files_provenance_is_its_hash_and_row_count(swapped_file):
    info = dl.source_info(swapped_file)
    assert info["sha256"] == hashlib.sha256(swapped_file.read_bytes()).hexdigest()
    assert info["rows"] == dl.DATASETS["ma2019"].rows
    assert info["name"] == "ma-swapped"


def test_the_data_release_table_runs_on_the_swapped_file(swapped_file):
    table = dl.data_release_table(str(swapped_file), epsilons=[1.0, 4.0], reps=5, seed=0,
                                  n_boot=20)  # fmt: skip
    assert set(table["dataset"]) == {"ma-swapped"}
    assert list(table["mechanism"].unique()) == list(ex_tables.TABLE_MECHANISMS)
    compared = dl.compare_with_paper(table)
    assert compared["paper_bias_l1"].isna().all()  # the paper printed nothing for it
    assert table["bias_l1"].notna().all()


def _readme_example(root) -> str:
    """The Python part of the README's worked example (the block between the markers)."""
    text = (root / "README.md").read_text()
    match = re.search(r"python - <<'PY'\n(.*?)\nPY\n", text, flags=re.S)
    assert match, "README.md lost its worked example"
    return match.group(1)


def test_the_readme_example_writes_the_file_it_documents(root, tmp_path, swapped_file):
    subprocess.run([sys.executable, "-c", _readme_example(root)], cwd=tmp_path, check=True)
    written = tmp_path / "ma-swapped.csv"
    assert written.read_bytes() == swapped_file.read_bytes()  # same seed, same bits
