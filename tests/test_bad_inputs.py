# ruff: noqa: E501 - the tables below keep one case per line
"""Bad inputs, refused with a clear message before anything runs: one table for the
``dadp-book`` command (exit 1, one line on stderr, nothing written, no kernel started) and
one for the library (the exception type and a message naming the argument).

Placeholders in CLI rows: ``{tmp}`` is the test's temporary folder; files named in a row's
``files`` are written there first. No row starts a kernel: each is refused by the checks.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import dadp_lite as dl
from dadp_lite.book.cli import main

ROOT = Path(__file__).resolve().parents[1]
OUT = ["--out", "{tmp}/out"]
GRID = ["--grid", "{tmp}/grid.yaml"]
UTF16 = "REPS: [20]\n".encode("utf-16")
BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

# (id, arguments, files to write into {tmp}, message the error line must contain)
CLI_CASES = [
    ("unknown-chapter", ["run", "99-no-such", *OUT], {}, "unknown chapter '99-no-such'"),
    ("ambiguous-prefix", ["run", "1", *OUT], {}, "'1' is ambiguous: it could be "),
    ("params-unknown-chapter", ["params", "nope"], {}, "unknown chapter 'nope'"),
    ("unknown-parameter", ["run", "01", "-p", "NO_SUCH", "1", *OUT], {}, "no parameter 'NO_SUCH'"),
    ("misspelled-parameter", ["run", "01", "-p", "K_VALUE", "[2]", *OUT], {}, "did you mean K_VALUES?"),
    ("text-for-integer", ["run", "01", "-p", "K_VALUES", "[two]", *OUT], {}, "K_VALUES must be an integer, got 'two'"),
    ("out-of-range", ["run", "01", "-p", "K_VALUES", "[0, 2]", *OUT], {}, "K_VALUES 0 is outside [1, 1000]"),
    ("empty-list", ["run", "12", "-p", "EPSILONS", "[]", *OUT], {}, "EPSILONS is an empty list"),
    ("nan", ["run", "12", "-p", "EPSILONS", ".nan", *OUT], {}, "EPSILONS is NaN"),
    ("inf", ["run", "12", "-p", "EPSILONS", "[.inf]", *OUT], {}, "EPSILONS inf is outside (0, inf)"),
    ("epsilon-zero", ["run", "12", "-p", "EPSILONS", "[0, 1]", *OUT], {}, "EPSILONS 0 is outside (0, inf)"),
    ("negative-epsilon-ch02", ["run", "02", "-p", "EPSILONS", "[-0.5, 1]", *OUT], {}, "EPSILONS -0.5 is outside [0, inf)"),
    ("boolean-for-integer", ["run", "12", "-p", "REPS", "true", *OUT], {}, "REPS must be an integer, got True"),
    ("fraction-for-integer", ["run", "12", "-p", "REPS", "2.5", *OUT], {}, "REPS must be an integer, got 2.5"),
    ("reps-too-small", ["run", "12", "-p", "REPS", "1", *OUT], {}, "REPS 1 is outside [2, 100000]"),
    ("reps-too-large", ["run", "12", "-p", "REPS", "1e6", *OUT], {}, "REPS 1000000 is outside [2, 100000]"),
    ("suffix-reps-range", ["run", "09", "-p", "THEOREM_REPS", "0", *OUT], {}, "THEOREM_REPS 0 is outside [2, 100000]"),
    ("negative-seed", ["run", "12", "-p", "SEED", "-1", *OUT], {}, "SEED -1 is outside [0, 4294967295]"),
    ("unknown-attribute", ["run", "12", "-p", "QI", "[planet]", *OUT], {}, "QI 'planet' is not one of race"),
    ("repeated-attribute", ["run", "12", "-p", "QI", "[race, race]", *OUT], {}, "QI lists race more than once"),
    ("repeated-dataset", ["run", "12", "-p", "DATASETS", "[ma2019, ma2019]", *OUT], {}, "lists ma2019 more than once"),
    ("list-for-scalar", ["run", "12", "-p", "K", "[6, 7]", *OUT], {}, "K takes one int, not a list"),
    ("enumeration-too-big", ["run", "06", "-p", "ENUM_BOUND", "5", *OUT], {}, "ENUM_BOUND 5 is outside [1, 4]"),
    ("unknown-dataset", ["run", "03", "-p", "DATASET", "mars2019", *OUT], {}, "'mars2019' is neither a registered dataset"),
    ("dataset-file-missing", ["run", "03", "-p", "DATASET", "{tmp}/missing.csv", *OUT], {}, "missing.csv does not exist"),
    ("dataset-bad-suffix", ["run", "03", "-p", "DATASET", "{tmp}/data.txt", *OUT], {"data.txt": b"a,b\n"}, "nor a .csv or .parquet file"),
    ("invalid-yaml-value", ["run", "01", "-p", "K_VALUES", "[2, 3", *OUT], {}, "value of K_VALUES ('[2, 3') is not valid YAML"),
    ("y-duplicate-key", ["run", "01", "-y", "{tmp}/v.yaml", *OUT], {"v.yaml": b"K_VALUES: [2]\nK_VALUES: [3]\n"}, "duplicate key 'K_VALUES' on lines 1 and 2"),
    ("y-utf16", ["run", "01", "-y", "{tmp}/v.yaml", *OUT], {"v.yaml": UTF16}, "is UTF-16 text; save it as UTF-8"),
    ("y-binary", ["run", "01", "-y", "{tmp}/v.yaml", *OUT], {"v.yaml": BINARY}, "is a binary file"),
    ("y-missing", ["run", "01", "-y", "{tmp}/none.yaml", *OUT], {}, "none.yaml does not exist"),
    ("y-not-a-mapping", ["run", "01", "-y", "{tmp}/v.yaml", *OUT], {"v.yaml": b"- 1\n"}, "must map parameter names"),
    ("y-bad-value", ["run", "12", "-y", "{tmp}/v.yaml", *OUT], {"v.yaml": b"N_BOOT: 1\n"}, "N_BOOT 1 is outside [2, 100000]"),
    ("grid-duplicate-key", ["sweep", "12", *GRID, *OUT], {"grid.yaml": b"REPS: [20, 40]\nREPS: [60]\n"}, "duplicate key 'REPS' on lines 1 and 2"),
    ("grid-empty-list", ["sweep", "12", *GRID, *OUT], {"grid.yaml": b"REPS: []\n"}, "REPS has an empty list"),
    ("grid-same-point-twice", ["sweep", "12", *GRID, *OUT], {"grid.yaml": b"REPS: [20, 20]\n"}, "lists the same point twice"),
    ("grid-same-point-as-1-and-1.0", ["sweep", "12", *GRID, *OUT], {"grid.yaml": b"EPSILONS: [1, 1.0]\n"}, "lists the same point twice"),
    ("grid-unknown-parameter", ["sweep", "12", *GRID, *OUT], {"grid.yaml": b"NOPE: [1]\n"}, "has no parameter 'NOPE'"),
    ("grid-out-of-range", ["sweep", "12", *GRID, *OUT], {"grid.yaml": b"REPS: [20, 1]\n"}, "REPS 1 is outside [2, 100000]"),
    ("grid-empty-file", ["sweep", "12", *GRID, *OUT], {"grid.yaml": b""}, "has no points"),
    ("grid-utf16", ["sweep", "12", *GRID, *OUT], {"grid.yaml": UTF16}, "is UTF-16 text"),
    ("grid-missing", ["sweep", "12", *GRID, *OUT], {}, "grid.yaml does not exist"),
    ("grid-too-many-points", ["sweep", "12", *GRID, *OUT], {"grid.yaml": b"SEED: [" + b", ".join(b"%d" % i for i in range(10001)) + b"]\n"}, "has 10001 points; at most 10000"),
    ("sweep-jobs-zero", ["sweep", "12", *GRID, *OUT, "--jobs", "0"], {"grid.yaml": b"REPS: [20]\n"}, "--jobs must be a positive integer, got 0"),
    ("sweep-dask-timeout", ["sweep", "12", *GRID, *OUT, "--dask", "--dask-timeout", "0"], {"grid.yaml": b"REPS: [20]\n"}, "--dask-timeout must be > 0"),
    ("sweep-dask-address", ["sweep", "12", *GRID, *OUT, "--dask", "nowhere"], {"grid.yaml": b"REPS: [20]\n"}, "--dask takes a scheduler address"),
    ("build-jobs-negative", ["build", "--jobs", "-2", "--build-dir", "{tmp}/b"], {}, "--jobs must be a positive integer, got -2"),
    ("build-jobs-zero", ["build", "--jobs", "0", "--build-dir", "{tmp}/b"], {}, "--jobs must be a positive integer, got 0"),
    ("build-jobs-text", ["build", "--jobs", "two", "--build-dir", "{tmp}/b"], {}, "invalid int value: 'two'"),
    ("build-chapter-twice", ["build", "--chapters", "06,06", "--build-dir", "{tmp}/b"], {}, "06-swapping-privacy more than once"),
    ("build-unknown-chapter", ["build", "--chapters", "01,77", "--build-dir", "{tmp}/b"], {}, "unknown chapter '77'"),
    ("build-bad-profile", ["build", "--profile", "fast", "--build-dir", "{tmp}/b"], {}, "invalid choice: 'fast'"),
    ("run-bad-profile", ["run", "01", "--profile", "fast", *OUT], {}, "invalid choice: 'fast'"),
    ("out-is-a-file", ["run", "01", "--out", "{tmp}/taken"], {"taken": b"x"}, "exists and is a file"),
    ("out-is-foreign", ["run", "01", "--out", "{tmp}/mine"], {"mine/notes.txt": b"x"}, "is not a dadp-book output"),
    ("no-command", [], {}, "the following arguments are required: command"),
    ("glue-missing-folder", ["glue", "{tmp}/nothing"], {}, "nothing is not a folder"),
]  # fmt: skip


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


@pytest.mark.parametrize(("args", "files", "message"), [c[1:] for c in CLI_CASES],
                         ids=[c[0] for c in CLI_CASES])  # fmt: skip
def test_the_command_refuses_bad_input_in_one_line_and_writes_nothing(
    tmp_path, capsys, args, files, message
):
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(content)
    before = _tree(tmp_path), [_tree(ROOT / d) for d in ("runs", "sweeps", "_build")]
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(["--root", str(ROOT), *args]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dadp-book: error: "), lines
    assert message in lines[0]
    assert (_tree(tmp_path), [_tree(ROOT / d) for d in ("runs", "sweeps", "_build")]) == before


def test_the_command_table_is_large_enough():
    assert len(CLI_CASES) >= 30 and len(CLI_CASES) + len(API_CASES) >= 40


COUNTS = np.array([3, 0, 5, 1])
RNG = np.random.default_rng(0)

# (id, call, exception type, message fragment naming the argument) -- the library refuses
# these today.
API_CASES = [
    ("laplace-epsilon-0", lambda: dl.laplace(COUNTS, epsilon=0, rng=RNG, reps=2), ValueError, "epsilon must be finite and > 0"),
    ("laplace-epsilon-negative", lambda: dl.laplace(COUNTS, epsilon=-1, rng=RNG, reps=2), ValueError, "epsilon must be finite and > 0"),
    ("laplace-epsilon-nan", lambda: dl.laplace(COUNTS, epsilon=math.nan, rng=RNG, reps=2), ValueError, "epsilon must be finite"),
    ("laplace-epsilon-inf", lambda: dl.laplace(COUNTS, epsilon=math.inf, rng=RNG, reps=2), ValueError, "epsilon must be finite"),
    ("laplace-epsilon-bool", lambda: dl.laplace(COUNTS, epsilon=True, rng=RNG, reps=2), TypeError, "epsilon must be a real number"),
    ("laplace-epsilon-text", lambda: dl.laplace(COUNTS, epsilon="1", rng=RNG, reps=2), TypeError, "epsilon must be a real number"),
    ("laplace-reps-0", lambda: dl.laplace(COUNTS, epsilon=1, rng=RNG, reps=0), ValueError, "reps must be >= 1"),
    ("laplace-reps-fraction", lambda: dl.laplace(COUNTS, epsilon=1, rng=RNG, reps=2.5), TypeError, "reps must be an integer"),
    ("laplace-rng-int", lambda: dl.laplace(COUNTS, epsilon=1, rng=0, reps=2), TypeError, "rng must be a numpy.random.Generator"),
    ("laplace-rng-legacy", lambda: dl.laplace(COUNTS, epsilon=1, rng=np.random.RandomState(0), reps=2), TypeError, "rng must be a numpy.random.Generator"),
    ("discrete-gaussian-epsilon-0", lambda: dl.discrete_gaussian(COUNTS, epsilon=0, rng=RNG, reps=2), ValueError, "epsilon must be finite and > 0"),
    ("cell-suppression-k-0", lambda: dl.cell_suppression(COUNTS, k=0), ValueError, "k must be finite and > 0"),
    ("cell-suppression-k-negative", lambda: dl.cell_suppression(COUNTS, k=-1), ValueError, "k must be finite and > 0"),
    ("dp-cell-suppression-epsilon-0", lambda: dl.dp_cell_suppression(COUNTS, k=6, epsilon=0, rng=RNG, reps=2), ValueError, "epsilon must be finite and > 0"),
    ("load-unknown-dataset", lambda: dl.load_records("mars2019"), dl.DataError, "mars2019"),
]  # fmt: skip

# ---- LIBRARY_CASES: inputs that used to return garbage or fail deep inside numpy; refused
# up front since the redesign, naming the argument.
TINY = dl.Histogram(np.array([2, 0, 1, 3]), ("sex", "race"), ((1, 2), (1, 2)))
LIBRARY_CASES: list[tuple] = [
    ("counts-float-1e19", lambda: dl.laplace(np.array([1e19, 1.0]), epsilon=1, rng=RNG, reps=1), ValueError, "counts must be at most 2**52"),
    ("counts-uint64-2-63", lambda: dl.laplace(np.array([2**63], dtype=np.uint64), epsilon=1, rng=RNG, reps=1), ValueError, "counts must be at most 2**52"),
    ("histogram-counts-1e19", lambda: dl.Histogram(np.array([1e19, 0.0]), ("a",), ((0, 1),)), ValueError, "counts must be at most 2**52"),
    ("round-counts-nan", lambda: dl.round_counts(np.array([[math.nan, 1.0]])), ValueError, "released must be finite"),
    ("round-counts-inf", lambda: dl.round_counts(np.array([[math.inf, 1.0]])), ValueError, "released must be finite"),
    ("laplace-epsilon-1e-320", lambda: dl.laplace(COUNTS, epsilon=1e-320, rng=RNG, reps=1), ValueError, "epsilon = 1e-320 is too small"),
    ("discrete-gaussian-epsilon-1e-320", lambda: dl.discrete_gaussian(COUNTS, epsilon=1e-320, rng=RNG, reps=1), ValueError, "epsilon = 1e-320 is too small"),
    ("laplace-2d-counts", lambda: dl.laplace(np.ones((2, 3)), epsilon=1, rng=RNG, reps=1), ValueError, "counts must have shape (n_cells,)"),
    ("dp-cell-suppression-2d-counts", lambda: dl.dp_cell_suppression(np.ones((2, 3)), k=6, epsilon=1, rng=RNG), ValueError, "counts must have shape (n_cells,)"),
    ("cell-suppression-k-1e300", lambda: dl.cell_suppression(COUNTS, k=1e300), ValueError, "k must be at most 2**52"),
    ("swapping-qi-unknown-string", lambda: dl.dp_swapping(TINY, qi="planet", epsilon=1, rng=RNG), ValueError, "qi holds unknown attribute(s) ['planet']"),
    ("swapping-qi-empty", lambda: dl.dp_swapping(TINY, qi=(), epsilon=1, rng=RNG), ValueError, "qi must name at least one attribute"),
    ("release-unknown-mechanism", lambda: dl.release("nope", TINY, epsilon=1, reps=1, seed=0), ValueError, "mechanism: unknown mechanism 'nope'"),
    ("release-traditional-with-epsilon", lambda: dl.release("cell_suppression", TINY, epsilon=1, reps=1, seed=0, k=2), ValueError, "takes no epsilon"),
]  # fmt: skip


def test_a_plain_string_qi_is_one_attribute_not_its_letters():
    """``qi="race"`` names one attribute (it was read as the columns r, a, c, e)."""
    released = dl.dp_swapping(TINY, qi="race", epsilon=1.0, rng=np.random.default_rng(0), reps=3)
    assert released.shape == (3, TINY.n_cells)
    np.testing.assert_array_equal(released.sum(axis=1), TINY.total)


@pytest.mark.parametrize(("call", "error", "message"), [c[1:] for c in API_CASES + LIBRARY_CASES],
                         ids=[c[0] for c in API_CASES + LIBRARY_CASES])  # fmt: skip
def test_the_library_refuses_bad_arguments_naming_them(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_a_histogram_of_an_unknown_column_names_the_column(ma_records):
    with pytest.raises(ValueError, match=r"attributes holds unknown attribute\(s\) \['planet'\]"):
        dl.histogram_of(ma_records, ["race", "planet"])


# ---- Misspelled keyword arguments (issue 26, item 3): a mechanism's entry points name the
# unknown argument and the accepted ones instead of ignoring it (K=50 gave the k = 6 result).
_PAIR = (TINY, TINY.with_counts(np.array([1, 1, 1, 3])))
KEYWORD_CASES: list[tuple] = [
    ("release-K-for-k", lambda: dl.release("dp_cell_suppression", TINY, epsilon=1, reps=3, seed=0, K=50), "dp_cell_suppression takes no argument 'K'; it takes epsilon, k"),
    ("release-q1-for-qi", lambda: dl.release("dp_swapping", TINY, epsilon=1, reps=1, seed=0, q1=("sex",)), "dp_swapping takes no argument 'q1'; it takes epsilon, qi"),
    ("release-laplace-qi", lambda: dl.release("laplace", TINY, epsilon=1, reps=1, seed=0, qi="planet"), "laplace takes no argument 'qi'; it takes epsilon"),
    ("release-swapping-unexposed", lambda: dl.release("swapping", TINY, reps=1, seed=0, rate=0.5, features=("sex",)), "swapping takes no argument 'features'; it takes qi, rate"),
    ("record-release-K", lambda: dl.registry.get("dp_cell_suppression").release(dl.Dataset.from_histogram(TINY), rng=RNG, reps=1, epsilon=1, K=50), "takes no argument 'K'; it takes epsilon, k"),
    ("privacy-deltas-other-parameter", lambda: dl.experiments.privacy_deltas("dp_swapping", TINY, epsilon=1, k=6), "dp_swapping takes no argument 'k'; it takes epsilon, qi"),
    ("record-bias-K", lambda: dl.registry.get("dp_cell_suppression").bias(TINY, epsilon=1, K=50), "unknown setting 'K': no registered mechanism takes it; dp_cell_suppression takes epsilon, k"),
    ("record-delta-q1", lambda: dl.registry.get("dp_swapping").delta(TINY, epsilon=1, q1=("sex",)), "unknown setting 'q1'"),
    ("audit-settings-K", lambda: dl.audit.audit("laplace", *_PAIR, settings={"epsilon": 1.0, "K": 50}, epsilons=[1.0], trials=10), "laplace takes no argument 'K'; it takes epsilon"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "message"), [c[1:] for c in KEYWORD_CASES],
                         ids=[c[0] for c in KEYWORD_CASES])  # fmt: skip
def test_a_misspelled_keyword_is_refused_naming_it_and_the_accepted_ones(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_shared_settings_still_reach_the_mechanisms_that_take_them():
    """Settings for several mechanisms at once (the tables' k, qi, ka_qi) stay allowed
    where a record picks its own: only names no mechanism takes are refused."""
    settings = {"k": 3, "qi": ("race",), "ka_qi": ("sex", "race"), "rate": 0.5}
    entry = dl.registry.get("dp_cell_suppression")
    assert entry.select(settings) == {"k": 3}
    assert entry.bias(TINY, epsilon=1.0, **settings).shape == (TINY.n_cells,)
