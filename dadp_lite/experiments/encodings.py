"""Which histogram did the paper use? Encodings searched against the printed bias columns.

The printed l1-bias columns of Laplace and DP cell suppression are driven by the empty
and small cells of the histogram, so they depend on how the records were encoded (age
brackets, income cut, which cells count): :class:`~dadp_lite.data.Encoding`. DP
swapping's column is driven by the large cells. For every dataset and every candidate
encoding this module computes, with no simulation, what the paper's statistic should be
and divides it by the printed number.

What the paper's statistic should be. The paper reports ``||mean of R releases - x||_1``
with ``R = 200``. With the exact per-cell bias ``b_i`` and variance ``v_i`` of one
release, the mean's error in cell ``i`` is about ``N(b_i, v_i / R)``, so the statistic is
expected to be ``sum_i E|N(b_i, v_i/R)|`` (the exact l1 bias plus the Monte Carlo floor of
chapter 12; :func:`~dadp_lite.experiments.tables.expected_abs_normal`). The bias comes
from the registry (``entry.bias``), the variance from :mod:`dadp_lite.theory`. Where the
cells are independent (Laplace, cell suppression) the statistic's standard deviation over
reruns is ``sqrt(sum_i Var|N(b_i, v_i/R)|)``, reported as ``sd``; DP swapping's cells of
a group are dependent, so its ``sd`` is left NaN.

Columns searched (:data:`SEARCH_COLUMNS`): the registry's ``laplace``,
``dp_cell_suppression`` and ``dp_swapping``, and ``laplace_rounded``, a reading of the
printed Laplace column in which each release is rounded to whole counts,
``max(round(x + Lap(2/eps)), 0)`` (:func:`~dadp_lite.theory.baselines.
projected_rounded_laplace_moments`). Rounding leaves the bias at small epsilon unchanged
and lowers it at large epsilon (by 15% for an empty cell at epsilon = 4), which is the
trend the printed Laplace column shows against the unrounded mechanism under every
encoding.

DP swapping's printed alpha column is searched too (:func:`alpha_search`, column
:data:`SWAPPING_ALPHA`): on the NIST tables its exact value is set by the largest cell
(:func:`dadp_lite.theory.fairness.swapping_bias_spread`), and its expected empirical value
adds the floor of the maximum and the minimum of the noisy means (:func:`expected_alpha`).

The paper's reading (:func:`paper_reading`): per dataset, the candidate encoding with the
smallest score, the largest ``|log(expected / printed)|`` over the columns of
:data:`CRITERION_COLUMNS` and the paper's four epsilons. A column is *reproduced* by an
encoding when every ratio lies within :data:`REPRODUCED_WITHIN` (5%) of 1: several times
the statistic's own rerun spread (``sd / expected`` is 0.5-2% for these columns), and the
size of the discrepancies chapter 12 calls a different histogram.
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

__all__ = [
    "COLUMN_LABELS",
    "CRITERION_COLUMNS",
    "PAPER_COLUMN",
    "REPRODUCED_WITHIN",
    "SEARCH_COLUMNS",
    "SWAPPING_ALPHA",
    "alpha_search",
    "bias_moments",
    "candidate_encodings",
    "column_summary",
    "encoding_search",
    "expected_statistic",
    "paper_reading",
    "paper_reading_encoding",
    "ratio_table",
]

#: The columns searched: three registered mechanisms and one reading of Laplace's column.
SEARCH_COLUMNS: tuple[str, ...] = (
    "laplace",
    "laplace_rounded",
    "dp_cell_suppression",
    "dp_swapping",
)
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
#: Columns whose ratios choose the paper's reading: cell suppression (no rounding
#: question) and Laplace read with rounded releases.
CRITERION_COLUMNS: tuple[str, ...] = ("laplace_rounded", "dp_cell_suppression")
#: A column is reproduced when every ratio expected / printed lies in [1/1.05, 1.05].
REPRODUCED_WITHIN = 0.05

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


def expected_statistic(
    bias: np.ndarray, variance: np.ndarray, reps: int, *, independent: bool = True
) -> tuple[float, float]:
    """Expected value of the empirical l1 bias over ``reps`` releases, and its standard
    deviation over reruns (NaN unless the cells are ``independent``)."""
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


def _rows(data: Dataset, label: str, columns, epsilons, reps, k, qi, printed) -> list[dict]:
    hist = data.histogram
    base = {"dataset": data.name, "encoding": label, "age": label.split(" | ")[0],
            "income": label.split(" | ")[1], "universe": data.encoding.universe,
            "n_cells": hist.n_cells, "empty_cells": int((hist.counts == 0).sum())}  # fmt: skip
    rows = []
    for column in columns:
        for epsilon in epsilons:
            moments = bias_moments(hist, column, epsilon=epsilon, k=k, qi=qi)
            paper = printed.get((data.name, PAPER_COLUMN[column], epsilon), float("nan"))
            if moments is None:
                exact = expected = sd = float("nan")
            else:
                exact = float(np.abs(moments[0]).sum())
                independent = column != "dp_swapping"
                expected, sd = expected_statistic(*moments, reps, independent=independent)
            rows.append({**base, "column": column, "epsilon": epsilon, "bias_l1_exact": exact,
                         "expected": expected, "sd": sd, "paper": paper})  # fmt: skip
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
        ``universe``, ``n_cells``, ``empty_cells``, ``bias_l1_exact``, ``expected`` (exact
        + Monte Carlo floor at ``reps``), ``sd`` (its rerun spread; NaN for swapping),
        ``paper`` (printed; NaN where none), ``ratio = expected / paper``,
        ``log_ratio`` and ``z = (expected - paper) / sd``.
    """
    datasets, encodings, epsilons, reps, qi = _checked(datasets, encodings, epsilons, reps, qi)
    columns = tuple(check_choice(c, "columns", SEARCH_COLUMNS) for c in columns)
    printed = paper_tables().set_index(["dataset", "mechanism", "epsilon"])["l1_bias"].to_dict()
    rows = []
    for label, data in _encoded(datasets, encodings):
        rows += _rows(data, label, columns, epsilons, reps, k, qi, printed)
    table = pd.DataFrame(rows)
    table["ratio"] = table["expected"] / table["paper"]
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


def _worst(search: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group: the smallest and largest ratio and the largest |log ratio|."""
    grouped = search.assign(abs_log=search["log_ratio"].abs()).groupby(keys, sort=False)
    return grouped.agg(ratio_min=("ratio", "min"), ratio_max=("ratio", "max"),
                       score=("abs_log", "max")).reset_index()  # fmt: skip


def column_summary(search: pd.DataFrame, tolerance: float = REPRODUCED_WITHIN) -> pd.DataFrame:
    """Per (dataset, column): the best encoding (smallest largest |log ratio| over the
    epsilons), its ratio range, whether it reproduces the column within ``tolerance``, and
    the default encoding's ratio range."""
    _check_search(search)
    if not (isinstance(tolerance, float | int) and 0 < tolerance < 1):
        raise ValueError(f"tolerance must lie in (0, 1), got {tolerance!r}")
    printed = search.dropna(subset=["ratio"])
    if printed.empty:
        raise ValueError("the paper prints none of the searched columns for these datasets")
    worst = _worst(printed, ["dataset", "column", "encoding"])
    best = worst.loc[worst.groupby(["dataset", "column"], sort=False)["score"].idxmin()]
    default = worst[worst["encoding"] == DEFAULT_ENCODING.label].set_index(["dataset", "column"])
    out = best.rename(columns={"encoding": "best_encoding"}).set_index(["dataset", "column"])
    out["reproduced"] = out["score"] <= math.log1p(tolerance)
    out["default_ratio_min"] = default["ratio_min"]
    out["default_ratio_max"] = default["ratio_max"]
    return out.reset_index()


def paper_reading(
    search: pd.DataFrame, criterion: Sequence[str] = CRITERION_COLUMNS
) -> pd.DataFrame:
    """Per dataset, the encoding that best reproduces the ``criterion`` columns: the
    smallest score = largest |log(expected / printed)| over those columns and epsilons.

    Columns: ``dataset``, ``encoding``, ``score``, ``ratio_min``, ``ratio_max``, the
    second best encoding and its score (``runner_up``, ``runner_up_score``: a close second
    means the columns do not tell the two apart), and the default encoding's
    ``default_score``.
    """
    _check_search(search)
    criterion = tuple(check_choice(c, "criterion", SEARCH_COLUMNS) for c in criterion)
    if not criterion:
        raise ValueError("criterion must name at least one column")
    part = search[search["column"].isin(criterion)].dropna(subset=["ratio"])
    if part.empty:
        raise ValueError(f"the paper prints none of the columns {criterion} for these datasets")
    worst = _worst(part, ["dataset", "encoding"]).sort_values("score", kind="stable")
    rows = []
    for _, group in worst.groupby("dataset", sort=False):
        best, second = group.iloc[0], group.iloc[1] if len(group) > 1 else None
        default = group[group["encoding"] == DEFAULT_ENCODING.label]["score"]
        rows.append(
            {
                **best.to_dict(),
                "runner_up": None if second is None else second["encoding"],
                "runner_up_score": float("nan") if second is None else second["score"],
                "default_score": float(default.iloc[0]) if len(default) else float("nan"),
            }
        )
    order = {name: i for i, name in enumerate(dict.fromkeys(search["dataset"]))}
    return (
        pd.DataFrame(rows).sort_values("dataset", key=lambda d: d.map(order)).reset_index(drop=True)
    )


@functools.lru_cache(maxsize=8)
def _reading(dataset: str, criterion: tuple[str, ...]) -> str:
    search = encoding_search([dataset], columns=tuple(dict.fromkeys(criterion)))
    return str(paper_reading(search, criterion)["encoding"].iloc[0])


def paper_reading_encoding(dataset: str, criterion: Sequence[str] = CRITERION_COLUMNS) -> Encoding:
    """The paper's reading of one dataset's histogram: the candidate encoding chosen by
    :func:`paper_reading` (the search runs once per dataset and is cached)."""
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
    on the NIST tables; see :func:`dadp_lite.theory.fairness.swapping_bias_spread`);
    ``expected`` adds the Monte Carlo floor of ``reps`` releases (:func:`expected_alpha`,
    exact per-cell variance; the cells of a QI group are dependent, which the normal model
    ignores). Encodings without the QI attributes (``observed_cells``) are skipped.
    """
    datasets, encodings, epsilons, reps, qi = _checked(datasets, encodings, epsilons, reps, qi)
    printed = paper_tables().set_index(["dataset", "mechanism", "epsilon"])["alpha"].to_dict()
    rows = []
    for label, data in _encoded(datasets, encodings):
        if set(qi) <= set(data.histogram.attributes):
            rows += _alpha_rows(data, label, epsilons, reps, qi, printed)
    table = pd.DataFrame(rows)
    if not table.empty:
        table["ratio"] = table["expected"] / table["paper"]
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
        paper = printed.get((data.name, "dp_swapping", epsilon), float("nan"))
        rows.append({**base, "epsilon": epsilon, "alpha_exact": float(np.ptp(bias)),
                     "expected": expected_alpha(bias, variance, reps), "paper": paper})  # fmt: skip
    return rows
