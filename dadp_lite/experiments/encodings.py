"""Which histogram did the paper use? Encodings searched against the printed columns.

The printed l1-bias columns of Laplace and DP cell suppression are driven by the empty
and small cells of the histogram, so they depend on how the records were encoded (age
brackets, income cut, which cells count): :class:`~dadp_lite.data.Encoding`. DP
swapping's columns are driven by the large cells. For every dataset and every candidate
encoding this module computes, with no simulation, what the paper's statistic should be
and divides it by the printed number (the ratio :data:`RATIO_LABEL`, always in that order).

What the paper's statistic should be. The paper reports ``||mean of R releases - x||_1``
with ``R = 200``; its expectation is ``sum_i E|mean_i - x_i|`` (linearity: dependence
between cells does not matter). Per column (:func:`cell_moments`):

- Laplace (plain and with rounded releases): exact, from the law of the sum of ``R``
  projected Laplace deviations (:func:`dadp_lite.theory.projected_laplace_mean_abs_error`);
- DP cell suppression: exact and equal to the exact l1 bias, because a cell's release
  minus its count, ``(k/2 - x_i)`` or 0, never changes sign, so neither does the mean;
- DP swapping: a normal approximation of each cell's mean (the folded-normal mean of
  :func:`~dadp_lite.experiments.tables.expected_abs_normal`, with the exact bias and
  variance).

``sd`` is the statistic's standard deviation over reruns of the paper's experiment:
exact for the columns with independent cells; for DP swapping (cells of a QI group are
dependent), the exact standard deviation of the linear statistic
``sum_i sign(b_i) (mean_i - x_i)``, which equals the l1 statistic when no cell's mean
changes sign (swapping's biases are hundreds of records).

Columns searched (:data:`SEARCH_COLUMNS`): the registry's ``laplace``,
``dp_cell_suppression`` and ``dp_swapping``, and ``laplace_rounded``, a reading of the
printed Laplace column in which each release is rounded to whole counts,
``max(round(x + Lap(2/eps)), 0)``. DP swapping's printed alpha column is searched too
(:func:`alpha_search`, column :data:`SWAPPING_ALPHA`): its exact value is set by the
largest cell; its expected empirical value (:func:`expected_alpha`) adds the floor of the
maximum and the minimum of the noisy means, a normal approximation that treats the cells
as independent (those of one QI group are not). The exact alpha is a lower bound on that
expectation whatever the dependence (Jensen).

Selection, and what it may claim (:func:`column_summary`, :func:`paper_reading`). The
score of an encoding is its largest ``|log(expected / printed)|`` over the epsilons (and
columns). Taking the best of the 108 candidates per column is a selection: the best
in-sample fit is optimistic, and several encodings may fit about as well. So each
selection reports the best and the runner-up (the best encoding that gives *different*
expected values; encodings giving identical ones are ``tied``: the column cannot tell
them apart), and a bootstrap of the selection: the printed values are redrawn with their
own Monte Carlo spread (``sd``) :data:`N_BOOT` times and the selection rerun. An encoding
is *identified* when it (or one tied with it) wins in at least :data:`IDENTIFIED_SHARE`
of the replicates. A column is *reproduced* only out of sample: the encoding is chosen on
the dataset's other printed columns (:data:`CRITERION_COLUMNS`, leaving out those that
read the same printed column) and every ratio of the held-out column must then lie
within :data:`REPRODUCED_WITHIN` (5%) of 1, several times the statistic's own rerun
spread (``sd / expected`` is 0.1-1% for these columns).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import special

from dadp_lite._validate import check_choice, check_epsilons, check_positive_int, check_qi
from dadp_lite.data import DEFAULT_ENCODING, Encoding, dataset_name, load_raw, parse_excerpt
from dadp_lite.dataset import Dataset
from dadp_lite.experiments.tables import expected_abs_normal
from dadp_lite.histogram import Histogram
from dadp_lite.paper import PAPER_EPSILONS, PAPER_K, PAPER_QI, PAPER_REPS, paper_tables
from dadp_lite.registry import get
from dadp_lite.theory import baselines
from dadp_lite.theory import cell_suppression as cs
from dadp_lite.theory import swapping as sw
from dadp_lite.theory.mean_deviation import projected_laplace_mean_abs_error

__all__ = [
    "BOOT_SEED",
    "COLUMN_LABELS",
    "CRITERION_COLUMNS",
    "EXACT_COLUMNS",
    "IDENTIFIED_SHARE",
    "N_BOOT",
    "PAPER_COLUMN",
    "RATIO",
    "RATIO_LABEL",
    "REPRODUCED_WITHIN",
    "SEARCH_COLUMNS",
    "SWAPPING_ALPHA",
    "alpha_search",
    "bias_moments",
    "candidate_encodings",
    "cell_moments",
    "column_summary",
    "empty_results",
    "encoding_search",
    "expected_alpha",
    "expected_statistic",
    "paper_reading",
    "paper_reading_encoding",
    "ratio_table",
    "swapping_linear_variance",
]

#: The columns searched: three registered mechanisms and one reading of Laplace's column.
SEARCH_COLUMNS: tuple[str, ...] = (
    "laplace",
    "laplace_rounded",
    "dp_cell_suppression",
    "dp_swapping",
)
#: Columns whose expected statistic is exact (the others use a normal approximation).
EXACT_COLUMNS: tuple[str, ...] = ("laplace", "laplace_rounded", "dp_cell_suppression")
#: The printed column each searched column is compared with.
PAPER_COLUMN: dict[str, str] = {column: column for column in SEARCH_COLUMNS} | {
    "laplace_rounded": "laplace"
}
#: How tables and prose name the searched columns.
COLUMN_LABELS: dict[str, str] = {
    "laplace": "Laplace",
    "laplace_rounded": "Laplace, rounded releases",
    "dp_cell_suppression": "DP cell suppression",
    "dp_swapping": "DP swapping",
    "dp_swapping_alpha": "DP swapping, alpha",
}
#: The column name of DP swapping's alpha in :func:`alpha_search`.
SWAPPING_ALPHA = "dp_swapping_alpha"
#: Columns whose ratios choose an encoding: cell suppression (no rounding question) and
#: Laplace read with rounded releases.
CRITERION_COLUMNS: tuple[str, ...] = ("laplace_rounded", "dp_cell_suppression")
#: A column is reproduced when every ratio expected / printed lies in [1/1.05, 1.05].
REPRODUCED_WITHIN = 0.05
#: The ratio of every table of this module: the columns ``expected`` over ``paper``.
RATIO: tuple[str, str] = ("expected", "paper")
#: How captions name that ratio (numerator first).
RATIO_LABEL = "expected / printed"
#: An encoding is identified when it (or one tied with it) wins this share of the
#: bootstrap replicates of the selection.
IDENTIFIED_SHARE = 0.95
#: Bootstrap replicates of each selection, and their seed.
N_BOOT = 2000
BOOT_SEED = 20230822

#: Age rules of the candidates: fixed brackets of 20, 10 and 5 years over 0-99, and
#: 5, 10 and 20 brackets of equal width or equal frequency over the observed ages.
_AGE_RULES: tuple[dict, ...] = (
    *({"age_rule": "fixed", "age_edges": tuple(range(0, 101, w))} for w in (20, 10, 5)),
    *({"age_rule": rule, "age_bins": n} for rule in ("equal_width", "quantile")
      for n in (5, 10, 20)),
)  # fmt: skip
#: Income cuts of the candidates: > or >= 50,000, with N read as 0 or as IPUMS's code.
_INCOME_RULES: tuple[dict, ...] = tuple(
    {"income_rule": rule, "no_income": none}
    for none in ("zero", "ipums_code")
    for rule in (">", ">=")
)
_UNIVERSES = ("full", "observed_values", "observed_cells")


def candidate_encodings() -> dict[str, Encoding]:
    """The plausible encodings searched, by label (108: 9 age rules x 4 income cuts x 3
    universes; the book's default is among them)."""
    grid = [
        Encoding(**age, **income, universe=universe)
        for age in _AGE_RULES
        for income in _INCOME_RULES
        for universe in _UNIVERSES
    ]
    return {encoding.label: encoding for encoding in grid}


def bias_moments(
    histogram: Histogram, column: str, *, epsilon: float, k: float, qi: Sequence[str]
) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact per-cell bias and variance of one release for a searched column, or None
    where the column needs attributes the histogram lacks (swapping's ``qi``)."""
    check_choice(column, "column", SEARCH_COLUMNS)
    if column == "laplace_rounded":
        return baselines.projected_rounded_laplace_moments(histogram.counts, epsilon=epsilon)
    if column == "dp_swapping" and not set(qi) <= set(histogram.attributes):
        return None
    bias = get(column).bias(histogram, epsilon=epsilon, k=k, qi=qi)
    variance = _VARIANCE[column](histogram, epsilon=epsilon, k=k, qi=qi)
    return bias, variance


_VARIANCE = {
    "laplace": lambda h, *, epsilon, k, qi: baselines.projected_laplace_variance(
        h.counts, epsilon=epsilon
    ),
    "dp_cell_suppression": lambda h, *, epsilon, k, qi: (
        cs.dp_cell_suppression_moments(h.counts, k=k, epsilon=epsilon, variant="per_cell").variance
    ),
    "dp_swapping": lambda h, *, epsilon, k, qi: sw.dp_swapping_release_variance(
        h, qi, epsilon, "cell"
    ),
}


def cell_moments(
    histogram: Histogram, column: str, *, epsilon: float, k: float, qi: Sequence[str], reps: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Per cell: the bias ``b``, ``E|mean of reps releases - x|`` and ``E(mean - x)^2``.

    The second is exact for :data:`EXACT_COLUMNS` and a normal approximation for DP
    swapping (module docstring); the third is exact, ``b^2 + variance / reps``. None where
    the column needs attributes the histogram lacks.
    """
    reps = check_positive_int(reps, "reps")
    moments = bias_moments(histogram, column, epsilon=epsilon, k=k, qi=qi)
    if moments is None:
        return None
    bias, variance = (np.asarray(m, dtype=float) for m in moments)
    square = bias**2 + np.maximum(variance, 0.0) / reps
    if column in ("laplace", "laplace_rounded"):
        absolute = projected_laplace_mean_abs_error(
            histogram.counts, epsilon=epsilon, reps=reps, rounded=column == "laplace_rounded"
        )
    elif column == "dp_cell_suppression":
        absolute = np.abs(bias)  # the deviation (k/2 - x) or 0 never changes sign
    else:
        absolute = expected_abs_normal(bias, np.sqrt(np.maximum(variance, 0.0) / reps))
    return bias, absolute, square


def swapping_linear_variance(
    histogram: Histogram, weights: np.ndarray, *, epsilon: float, qi: Sequence[str]
) -> float:
    """Exact variance of ``sum_i w_i release_i`` for one per-cell DP swapping release.

    Each occupied cell's whole count moves independently within its QI group: it stays
    with probability ``gamma = e^eps / (e^eps + n_Q - 1)`` and goes to each other QI value
    with probability ``u = 1 / (e^eps + n_Q - 1)``. A cell with count ``x_j`` therefore
    adds ``x_j^2 Var(w_dest)`` to the variance, with ``dest`` its random destination.
    ``weights`` has one entry per cell of the histogram.
    """
    matrix = histogram.to_qi_matrix(qi).astype(float)
    w = histogram.to_qi_matrix(qi, np.asarray(weights, dtype=float))
    n_q = matrix.shape[-1]
    denominator = math.exp(epsilon) + n_q - 1
    gamma, u = math.exp(epsilon) / denominator, 1.0 / denominator
    total, squares = w.sum(axis=-1, keepdims=True), (w**2).sum(axis=-1, keepdims=True)
    mean = gamma * w + u * (total - w)
    second = gamma * w**2 + u * (squares - w**2)
    return float((matrix**2 * np.maximum(second - mean**2, 0.0)).sum())


def expected_statistic(
    bias: np.ndarray, variance: np.ndarray, reps: int, *, independent: bool = True
) -> tuple[float, float]:
    """The normal model of the empirical l1 bias over ``reps`` releases: each cell's mean
    error ``N(b_i, v_i / reps)``, so the expectation is ``sum_i E|N(b_i, v_i/reps)|``; and
    its standard deviation over reruns (NaN unless the cells are ``independent``). An
    approximation; :func:`cell_moments` gives exact values where they are known."""
    reps = check_positive_int(reps, "reps")
    mean = np.asarray(bias, dtype=float)
    se = np.sqrt(np.maximum(np.asarray(variance, dtype=float), 0.0) / reps)
    folded = expected_abs_normal(mean, se)
    if not independent:
        return float(folded.sum()), float("nan")
    spread = np.maximum(mean**2 + se**2 - folded**2, 0.0)  # Var|Z| per cell
    return float(folded.sum()), float(math.sqrt(spread.sum()))


def _paper_datasets() -> tuple[str, ...]:
    return tuple(dict.fromkeys(paper_tables()["dataset"]))


def _statistic(data: Dataset, column, epsilon, reps, k, qi) -> tuple[float, float, float]:
    """(exact l1 bias, expected statistic, its rerun sd) of one column, or NaNs."""
    moments = cell_moments(data.histogram, column, epsilon=epsilon, k=k, qi=qi, reps=reps)
    if moments is None:
        return (float("nan"),) * 3
    bias, absolute, square = moments
    if column == "dp_swapping":
        variance = swapping_linear_variance(data.histogram, np.sign(bias), epsilon=epsilon, qi=qi)
        sd = math.sqrt(variance / reps)
    else:  # independent cells: Var|mean_i - x_i| adds up
        sd = math.sqrt(float(np.maximum(square - absolute**2, 0.0).sum()))
    return float(np.abs(bias).sum()), float(absolute.sum()), sd


def _rows(data: Dataset, label: str, columns, epsilons, reps, k, qi, printed) -> list[dict]:
    hist = data.histogram
    base = {"dataset": data.name, "encoding": label, "age": label.split(" | ")[0],
            "income": label.split(" | ")[1], "universe": data.encoding.universe,
            "n_cells": hist.n_cells, "empty_cells": int((hist.counts == 0).sum())}  # fmt: skip
    rows = []
    for column in columns:
        method = "exact" if column in EXACT_COLUMNS else "normal approximation"
        for epsilon in epsilons:
            exact, expected, sd = _statistic(data, column, epsilon, reps, k, qi)
            paper = printed.get((data.name, PAPER_COLUMN[column], epsilon), float("nan"))
            rows.append({**base, "column": column, "epsilon": epsilon, "bias_l1_exact": exact,
                         "expected": expected, "sd": sd, "method": method,
                         "paper": paper})  # fmt: skip
    return rows


def _checked(datasets, encodings, epsilons, reps, qi) -> tuple:
    """The search's arguments, checked (default datasets: those the paper prints; default
    encodings: :func:`candidate_encodings`)."""
    datasets = _paper_datasets() if datasets is None else tuple(datasets)
    if not datasets:
        raise ValueError("datasets must name at least one dataset")
    encodings = candidate_encodings() if encodings is None else dict(encodings)
    if not encodings or not all(isinstance(e, Encoding) for e in encodings.values()):
        raise TypeError("encodings must map labels to dadp_lite.data.Encoding objects")
    epsilons = tuple(float(e) for e in np.atleast_1d(check_epsilons(epsilons, "epsilons")))
    reps = check_positive_int(reps, "reps")
    qi = check_qi(qi, ("race", "sex", "tenure", "age_bracket", "income_over_50k"))
    return datasets, encodings, epsilons, reps, qi


def _encoded(datasets, encodings):
    """``(label, Dataset)`` for every dataset under every encoding (each file read once)."""
    for dataset in datasets:
        parsed = parse_excerpt(load_raw(dataset))
        for label, encoding in encodings.items():
            yield label, Dataset.from_raw(parsed, encoding=encoding, name=dataset_name(dataset))


def encoding_search(
    datasets: Sequence[str] | None = None,
    encodings: Mapping[str, Encoding] | None = None,
    *,
    epsilons: Sequence[float] = PAPER_EPSILONS,
    reps: int = PAPER_REPS,
    k: float = PAPER_K,
    qi: Sequence[str] = PAPER_QI,
    columns: Sequence[str] = SEARCH_COLUMNS,
) -> pd.DataFrame:
    """Expected empirical l1 bias per (dataset, encoding, column, epsilon), beside the paper.

    Parameters
    ----------
    datasets
        Dataset names or paths (default: the three the paper prints).
    encodings
        ``{label: Encoding}`` (default :func:`candidate_encodings`).
    epsilons, reps, k, qi
        The paper's settings by default (200 repetitions, k = 6, QI = race).
    columns
        Columns of :data:`SEARCH_COLUMNS`.

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, encoding, column, epsilon): ``age``, ``income``,
        ``universe``, ``n_cells``, ``empty_cells``, ``bias_l1_exact``, ``expected`` (the
        expected statistic at ``reps`` releases), ``sd`` (its rerun spread), ``method``
        (``exact`` or ``normal approximation``), ``paper`` (printed; NaN where none),
        ``ratio = expected / paper`` (:data:`RATIO`), ``log_ratio`` and
        ``z = (expected - paper) / sd``.
    """
    datasets, encodings, epsilons, reps, qi = _checked(datasets, encodings, epsilons, reps, qi)
    columns = tuple(check_choice(c, "columns", SEARCH_COLUMNS) for c in columns)
    printed = paper_tables().set_index(["dataset", "mechanism", "epsilon"])["l1_bias"].to_dict()
    rows = []
    for label, data in _encoded(datasets, encodings):
        rows += _rows(data, label, columns, epsilons, reps, k, qi, printed)
    table = pd.DataFrame(rows)
    table["ratio"] = table[RATIO[0]] / table[RATIO[1]]
    table["log_ratio"] = np.log(table["ratio"])
    table["z"] = (table["expected"] - table["paper"]) / table["sd"]
    return table


def ratio_table(search: pd.DataFrame, value: str = "ratio") -> pd.DataFrame:
    """Encoding x column table: one row per encoding, one column per (dataset, column,
    epsilon), holding ``value`` (default the ratio expected / printed)."""
    _check_search(search)
    return search.pivot_table(index="encoding", columns=["dataset", "column", "epsilon"],
                              values=value, sort=False)  # fmt: skip


def _check_search(search: pd.DataFrame) -> None:
    needed = {"dataset", "encoding", "column", "epsilon", "ratio", "log_ratio"}
    if not isinstance(search, pd.DataFrame) or not needed <= set(search.columns):
        raise ValueError(f"search must be a table of encoding_search (columns {sorted(needed)})")


def _selection(part: pd.DataFrame, rng: np.random.Generator, n_boot: int) -> dict:
    """Best encoding of ``part`` (rows of one dataset, one or more columns), its ties, the
    runner-up and the bootstrap share of the best (module docstring)."""
    keys = ["column", "epsilon"]
    expected = part.pivot_table(index="encoding", columns=keys, values="expected", sort=False)
    expected = expected.dropna()
    if expected.empty:
        raise ValueError("no encoding has every ratio of the columns selected on")
    paper = part.groupby(keys, sort=False)["paper"].first().reindex(expected.columns)
    logs, log_paper = np.log(expected.to_numpy()), np.log(paper.to_numpy())
    scores = np.abs(logs - log_paper).max(axis=1)
    order = np.argsort(scores, kind="stable")
    best = int(order[0])
    tied = np.all(np.abs(logs - logs[best]) <= 1e-10, axis=1)  # same expected values
    others = order[~tied[order]]
    sd = part.pivot_table(index="encoding", columns=keys, values="sd", sort=False)
    relative = (sd.reindex(index=expected.index, columns=expected.columns).to_numpy()[best]
                / expected.to_numpy()[best])  # fmt: skip
    noise = rng.standard_normal((n_boot, log_paper.size)) * np.nan_to_num(relative)
    redrawn = log_paper[None, :] + np.log1p(np.maximum(noise, -0.99))
    winners = np.abs(logs[None, :, :] - redrawn[:, None, :]).max(axis=2).argmin(axis=1)
    ratios = np.exp(logs[best] - log_paper)
    runner = int(others[0]) if others.size else None
    share = float(tied[winners].mean())
    return {
        "encoding": expected.index[best],
        "score": float(scores[best]),
        "ratio_min": float(ratios.min()),
        "ratio_max": float(ratios.max()),
        "tied": int(tied.sum()),
        "runner_up": None if runner is None else expected.index[runner],
        "runner_up_score": float("nan") if runner is None else float(scores[runner]),
        "margin": float("nan") if runner is None else float(scores[runner] - scores[best]),
        "share": share,
        "identified": share >= IDENTIFIED_SHARE,
    }


def _scored(part: pd.DataFrame, encoding: str) -> tuple[float, float, float]:
    """(score, smallest ratio, largest ratio) of one encoding on ``part``."""
    rows = part[part["encoding"] == encoding]
    if rows.empty:
        return (float("nan"),) * 3
    return (float(rows["log_ratio"].abs().max()), float(rows["ratio"].min()),
            float(rows["ratio"].max()))  # fmt: skip


def _held_out(printed: pd.DataFrame, dataset: str, column: str, criterion, rng, n_boot) -> dict:
    """The column judged with the encoding chosen on the dataset's other criterion columns
    (those that read another printed column), among the encodings the column has."""
    mine = printed[(printed["dataset"] == dataset) & (printed["column"] == column)]
    chooser = [c for c in criterion if PAPER_COLUMN.get(c) != PAPER_COLUMN.get(column, column)]
    pool = printed[(printed["dataset"] == dataset) & printed["column"].isin(chooser)
                   & printed["encoding"].isin(set(mine["encoding"]))]  # fmt: skip
    if pool.empty:
        return {"held_out_encoding": None, "held_out_score": float("nan"),
                "held_out_ratio_min": float("nan"), "held_out_ratio_max": float("nan")}  # fmt: skip
    chosen = _selection(pool, rng, n_boot=1)["encoding"]
    score, low, high = _scored(mine, chosen)
    return {"held_out_encoding": chosen, "held_out_score": score, "held_out_ratio_min": low,
            "held_out_ratio_max": high}  # fmt: skip


def column_summary(
    search: pd.DataFrame,
    tolerance: float = REPRODUCED_WITHIN,
    *,
    criterion: Sequence[str] = CRITERION_COLUMNS,
    n_boot: int = N_BOOT,
    seed: int = BOOT_SEED,
) -> pd.DataFrame:
    """Per (dataset, column): the selection on the column itself, and the held-out verdict.

    Columns: ``best_encoding``, ``score``, ``ratio_min``/``ratio_max`` (:data:`RATIO`),
    ``tied`` (encodings with the same expected values), ``runner_up`` and its score,
    ``margin`` (runner-up score minus best score, in log units), ``share`` (bootstrap share
    won by the best or a tie) and ``identified``; ``best_within`` (the in-sample best fits
    within ``tolerance``: optimistic, after selection); ``held_out_encoding`` (chosen on
    the other ``criterion`` columns), its score and ratios, and ``reproduced`` (every
    held-out ratio within ``tolerance``); the default encoding's ratios.
    """
    _check_search(search)
    if not (isinstance(tolerance, float | int) and 0 < tolerance < 1):
        raise ValueError(f"tolerance must lie in (0, 1), got {tolerance!r}")
    criterion = tuple(check_choice(c, "criterion", SEARCH_COLUMNS) for c in criterion)
    n_boot = check_positive_int(n_boot, "n_boot")
    printed = search.dropna(subset=["ratio"])
    if printed.empty:
        raise ValueError("the paper prints none of the searched columns for these datasets")
    rng = np.random.default_rng(seed)
    rows = []
    for (dataset, column), part in printed.groupby(["dataset", "column"], sort=False):
        chosen = _selection(part, rng, n_boot)
        default = _scored(part, DEFAULT_ENCODING.label)
        rows.append({
            "dataset": dataset, "column": column,
            "best_encoding": chosen.pop("encoding"), **chosen,
            "best_within": chosen["score"] <= math.log1p(tolerance),
            **_held_out(printed, dataset, column, criterion, rng, n_boot),
            "default_ratio_min": default[1], "default_ratio_max": default[2],
        })  # fmt: skip
    out = pd.DataFrame(rows)
    out["reproduced"] = out["held_out_score"] <= math.log1p(tolerance)  # NaN: False
    return out


def paper_reading(
    search: pd.DataFrame,
    criterion: Sequence[str] = CRITERION_COLUMNS,
    *,
    n_boot: int = N_BOOT,
    seed: int = BOOT_SEED,
) -> pd.DataFrame:
    """Per dataset, the encoding that best fits the ``criterion`` columns together: the
    smallest score = largest |log(expected / printed)| over those columns and epsilons.

    Columns: ``dataset``, ``encoding``, ``score``, ``ratio_min``, ``ratio_max``, ``tied``,
    ``runner_up``, ``runner_up_score``, ``margin``, ``share`` and ``identified`` (module
    docstring: only an identified encoding is a reading of the paper's histogram; otherwise
    it is the best fit among near ties), and the default encoding's ``default_score``.
    """
    _check_search(search)
    criterion = tuple(check_choice(c, "criterion", SEARCH_COLUMNS) for c in criterion)
    if not criterion:
        raise ValueError("criterion must name at least one column")
    n_boot = check_positive_int(n_boot, "n_boot")
    part = search[search["column"].isin(criterion)].dropna(subset=["ratio"])
    if part.empty:
        raise ValueError(f"the paper prints none of the columns {criterion} for these datasets")
    rng = np.random.default_rng(seed)
    rows = []
    for dataset, rows_d in part.groupby("dataset", sort=False):
        chosen = _selection(rows_d, rng, n_boot)
        default = rows_d[rows_d["encoding"] == DEFAULT_ENCODING.label]["log_ratio"].abs()
        rows.append(
            {
                "dataset": dataset,
                **chosen,
                "default_score": float(default.max()) if len(default) else float("nan"),
            }
        )
    return pd.DataFrame(rows)


@functools.lru_cache(maxsize=8)
def _reading(dataset: str, criterion: tuple[str, ...]) -> str:
    search = encoding_search([dataset], columns=tuple(dict.fromkeys(criterion)))
    return str(paper_reading(search, criterion)["encoding"].iloc[0])


def paper_reading_encoding(dataset: str, criterion: Sequence[str] = CRITERION_COLUMNS) -> Encoding:
    """The best-fitting encoding of one dataset's histogram (:func:`paper_reading`; whether
    it is identified is in that table). The search runs once per dataset and is cached."""
    return candidate_encodings()[_reading(dataset, tuple(criterion))]


# ------------------------------------------------------------------ DP swapping's alpha
#: Half-width of the window of :func:`_expected_max`, in largest standard errors.
_WINDOW = 12.0
_WINDOW_POINTS = 401


def _expected_max(mean: np.ndarray, sd: np.ndarray) -> float:
    """``E[max_i X_i]`` for independent ``X_i ~ N(mean_i, sd_i^2)`` on a window around the
    largest mean: ``lo + int_lo^hi (1 - prod_i Phi((t - mean_i)/sd_i)) dt``.

    The window is ``largest mean +- 12 largest sd``; below it ``P(max <= t) < 1e-32``, and
    only cells that can reach it (``mean_i + 12 sd_i >= lo``) enter the product, each distinct
    ``(mean_i, sd_i)`` once with its multiplicity as exponent. This is
    :func:`dadp_lite.theory.baselines.expected_empirical_alpha`'s integral restricted to
    where it changes, fast when a few cells dominate (DP swapping's largest cells).
    """
    top, spread = float(mean.max()), float(sd.max())
    if spread == 0:
        return top
    lo, hi = top - _WINDOW * spread, top + _WINDOW * spread
    keep = mean + _WINDOW * sd >= lo
    # Cells with the same (mean, sd) (empty cells of one QI group, equal counts) enter the
    # product once, raised to their multiplicity.
    (m, s), copies = np.unique(np.stack([mean[keep], sd[keep]]), axis=1, return_counts=True)
    t = np.linspace(lo, hi, _WINDOW_POINTS)
    z = (t[:, None] - m[None, :]) / np.where(s > 0, s, 1.0)[None, :]
    log_cdf = np.where(s > 0, special.log_ndtr(z), np.where(z >= 0, 0.0, -np.inf))
    return lo + float(np.trapezoid(1 - np.exp(log_cdf @ copies), t))


def expected_alpha(bias: np.ndarray, variance: np.ndarray, reps: int) -> float:
    """Expected empirical alpha over ``reps`` releases (normal model, independent cells):
    ``E[max] - E[min]`` of ``N(bias_i, variance_i / reps)``."""
    mean = np.asarray(bias, dtype=float)
    reps = check_positive_int(reps, "reps")
    sd = np.sqrt(np.maximum(np.asarray(variance, dtype=float), 0.0) / reps)
    return _expected_max(mean, sd) + _expected_max(-mean, sd)


def alpha_search(
    datasets: Sequence[str] | None = None,
    encodings: Mapping[str, Encoding] | None = None,
    *,
    epsilons: Sequence[float] = PAPER_EPSILONS,
    reps: int = PAPER_REPS,
    qi: Sequence[str] = PAPER_QI,
) -> pd.DataFrame:
    """Expected empirical alpha of DP swapping per (dataset, encoding, epsilon), beside the
    printed alpha; the rows of :func:`encoding_search`'s schema with column
    :data:`SWAPPING_ALPHA`, so :func:`column_summary` reads both.

    ``alpha_exact`` is the spread of the exact bias (``largest``, the largest count, sets it
    on the NIST tables; see :func:`dadp_lite.theory.fairness.swapping_bias_spread`), an
    exact lower bound on the expected empirical alpha; ``expected`` adds the Monte Carlo
    floor of ``reps`` releases (:func:`expected_alpha`: a normal approximation with the
    exact per-cell variances that treats the cells as independent, although those of one
    QI group are not; ``method`` says so). ``sd`` is the exact rerun standard deviation of
    the difference of the two extreme cells' means, the statistic's linear part
    (:func:`swapping_linear_variance`). Encodings without the QI attributes
    (``observed_cells``) are skipped.
    """
    datasets, encodings, epsilons, reps, qi = _checked(datasets, encodings, epsilons, reps, qi)
    printed = paper_tables().set_index(["dataset", "mechanism", "epsilon"])["alpha"].to_dict()
    rows = []
    for label, data in _encoded(datasets, encodings):
        if set(qi) <= set(data.histogram.attributes):
            rows += _alpha_rows(data, label, epsilons, reps, qi, printed)
    table = pd.DataFrame(rows)
    if not table.empty:
        table["ratio"] = table[RATIO[0]] / table[RATIO[1]]
        table["log_ratio"] = np.log(table["ratio"])
    return table


def _alpha_rows(data: Dataset, label: str, epsilons, reps, qi, printed) -> list[dict]:
    hist = data.histogram
    base = {"dataset": data.name, "encoding": label, "age": label.split(" | ")[0],
            "income": label.split(" | ")[1], "universe": data.encoding.universe,
            "n_cells": hist.n_cells, "empty_cells": int((hist.counts == 0).sum()),
            "largest": int(hist.counts.max()), "column": SWAPPING_ALPHA}  # fmt: skip
    rows = []
    for epsilon in epsilons:
        bias = get("dp_swapping").bias(hist, epsilon=epsilon, qi=qi)
        variance = _VARIANCE["dp_swapping"](hist, epsilon=epsilon, k=None, qi=qi)
        extremes = np.zeros(hist.n_cells)
        extremes[np.argmax(bias)], extremes[np.argmin(bias)] = 1.0, -1.0
        linear = swapping_linear_variance(hist, extremes, epsilon=epsilon, qi=qi)
        paper = printed.get((data.name, "dp_swapping", epsilon), float("nan"))
        rows.append({**base, "epsilon": epsilon, "alpha_exact": float(np.ptp(bias)),
                     "expected": expected_alpha(bias, variance, reps),
                     "sd": math.sqrt(linear / reps),
                     "method": "normal approximation, cells independent",
                     "paper": paper})  # fmt: skip
    return rows


#: The columns of :func:`encoding_search`, :func:`column_summary` and :func:`paper_reading`
#: that a chapter reads, for a run with nothing to compare (:func:`empty_results`).
_RESULT_COLUMNS: tuple[tuple[str, ...], ...] = (
    ("dataset", "encoding", "column", "universe", "ratio", "log_ratio"),
    ("dataset", "column", "best_encoding", "ratio_min", "ratio_max", "score", "tied",
     "runner_up", "runner_up_score", "margin", "share", "identified", "best_within",
     "held_out_encoding", "held_out_ratio_min", "held_out_ratio_max", "reproduced",
     "default_ratio_min", "default_ratio_max"),
    ("dataset", "encoding", "ratio_min", "ratio_max", "score", "tied", "runner_up",
     "runner_up_score", "margin", "share", "identified", "default_score"),
)  # fmt: skip


def empty_results() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Empty (search, column summary, reading) frames with their columns: the results of a
    run whose datasets and epsilons the paper prints nothing for."""
    return tuple(pd.DataFrame(columns=list(c)) for c in _RESULT_COLUMNS)
