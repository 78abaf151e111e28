"""The paper's data-release experiment (Tables 1-3) as a tidy table, beside exact values.

For each (mechanism, epsilon) the experiment releases the dataset's full-universe
histogram ``reps`` times and reports the paper's two statistics, the l1 norm of the
empirical bias and the empirical alpha, with bootstrap intervals
(:func:`dadp_lite.metrics.release_summary`). Where the registry has an exact bias the row
also carries the exact values, the Monte Carlo floor the empirical statistics are expected
to sit on, and an unbiased estimator of the exact l1 bias with its standard error; and
every row carries the paper's printed delta formula and the exact delta
(:func:`privacy_deltas`).

The bootstrap interval says how much the paper's statistic moves when the whole experiment
is rerun with other seeds, which is what a comparison with a printed number needs. It is
*not* an interval for the exact l1 bias or alpha: both statistics are biased upwards by the
Monte Carlo noise itself (``E|mean| > |E mean|``; a maximum of noisy means exceeds the
maximum of the means), and no resampling interval removes that. The columns
``bias_l1_expected_empirical`` and ``alpha_expected_empirical`` quantify this floor, and
``bias_l1_signed`` is an unbiased estimator of the exact l1 bias with an exact standard
error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import special
from threadpoolctl import threadpool_limits

from dadp_lite._validate import check_epsilons, check_positive_int, check_qi
from dadp_lite.data import AGE_EDGES, ATTRIBUTES
from dadp_lite.dataset import Dataset, as_dataset
from dadp_lite.experiments.release import release, release_seed
from dadp_lite.histogram import Histogram
from dadp_lite.metrics import release_summary
from dadp_lite.paper import PAPER_K, PAPER_QI, paper_tables
from dadp_lite.registry import Mechanism, get, names
from dadp_lite.simulate import make_rng
from dadp_lite.theory.baselines import expected_empirical_alpha

__all__ = [
    "TABLE_MECHANISMS",
    "check_mechanisms",
    "check_settings",
    "compare_with_paper",
    "data_release_table",
    "expected_abs_normal",
    "privacy_deltas",
]

#: The mechanisms of the paper's Tables 1-3, in the paper's row order.
TABLE_MECHANISMS: tuple[str, ...] = names(in_tables=True)
#: Grid points of the integral behind ``alpha_expected_empirical``: 1001 agree with the
#: default 4001 of :func:`expected_empirical_alpha` to about 1e-12 on these tables, at a
#: quarter of the cost.
FLOOR_GRID_POINTS = 1001


def expected_abs_normal(mean: np.ndarray, se: np.ndarray) -> np.ndarray:
    """``E|Z|`` for ``Z ~ N(mean, se^2)`` (folded normal), elementwise; ``|mean|`` if se = 0.

    The expected contribution of a cell to the l1 norm of a Monte Carlo bias estimate whose
    true bias is ``mean`` and whose standard error is ``se``.
    """
    mean = np.asarray(mean, dtype=float)
    se = np.asarray(se, dtype=float)
    if np.any(se < 0):
        raise ValueError("se must be non-negative")
    safe = np.where(se > 0, se, 1.0)
    folded = safe * math.sqrt(2 / math.pi) * np.exp(-0.5 * (mean / safe) ** 2) + mean * (
        1 - 2 * special.ndtr(-mean / safe)
    )
    return np.where(se > 0, folded, np.abs(mean))


def _exact_columns(released, true, exact, confidence) -> dict:
    """Columns comparing a simulation with the exact bias vector ``exact``."""
    reps = released.shape[0]
    se = released.std(axis=0, ddof=1) / math.sqrt(reps)
    sign = np.sign(exact)
    with threadpool_limits(limits=1, user_api="blas"):  # same bits on 1 or N cores
        signed = (released - true[None, :]) @ sign  # per rep: sum_i sign(b_i) (x~_i - x_i)
    signed_se = float(signed.std(ddof=1) / math.sqrt(reps))
    l1_exact = float(np.abs(exact).sum())
    gap = released.mean(axis=0) - true - exact
    positive = se > 0
    z_cells = np.where(positive, gap / np.where(positive, se, 1.0), 0.0)
    z_crit = float(special.ndtri(0.5 + confidence / 2))
    return {
        "bias_l1_exact": l1_exact,
        "bias_l1_expected_empirical": float(expected_abs_normal(exact, se).sum()),
        "bias_l1_signed": float(signed.mean()),
        "bias_l1_signed_se": signed_se,
        "z_bias_l1": (float(signed.mean()) - l1_exact) / signed_se if signed_se > 0 else 0.0,
        "z_cells_max": float(np.abs(z_cells).max()),
        "cells_tested": int(positive.sum()),
        "cell_coverage": float(np.mean(np.abs(z_cells[positive]) <= z_crit))
        if positive.any()
        else float("nan"),
        "alpha_exact": float(exact.max() - exact.min()),
        "alpha_expected_empirical": expected_empirical_alpha(exact, se, grid=FLOOR_GRID_POINTS),
    }


_EXACT_KEYS = (
    "bias_l1_exact",
    "bias_l1_expected_empirical",
    "bias_l1_signed",
    "bias_l1_signed_se",
    "z_bias_l1",
    "z_cells_max",
    "cells_tested",
    "cell_coverage",
    "alpha_exact",
    "alpha_expected_empirical",
)


def check_mechanisms(
    mechanisms: str | Mechanism | Sequence[str | Mechanism],
) -> tuple[Mechanism, ...]:
    """The registry records of ``mechanisms`` (one name or record, or a non-empty sequence
    of them), in the order given."""
    if isinstance(mechanisms, str | Mechanism):
        mechanisms = (mechanisms,)
    mechanisms = tuple(mechanisms)
    if not mechanisms:
        raise ValueError("mechanisms must name at least one mechanism")
    return tuple(get(m, "mechanisms") for m in mechanisms)


def check_settings(data: Dataset, *, k: int, qi: Sequence[str], ka_qi: Sequence[str]) -> dict:
    """The experiments' shared mechanism settings, checked against the dataset before any
    release runs: ``k`` (an integer >= 1), ``qi`` and ``ka_qi`` (its attributes)."""
    attributes = data.histogram.attributes
    return {
        "k": check_positive_int(k, "k"),
        "qi": check_qi(qi, attributes, "qi"),
        "ka_qi": check_qi(ka_qi, attributes, "ka_qi"),
    }


def privacy_deltas(
    mechanism: str | Mechanism, histogram: Histogram, *, epsilon: float, **params: object
) -> dict:
    """Delta as the paper computes it and the exact delta, with their provenance.

    ``mechanism`` is a registry record or its name; ``params`` its own parameters (any
    other name raises ValueError). ``B`` (the bound on the counts in the printed formulas)
    is the histogram's largest count; ``n_Q`` comes from the histogram and ``qi``. Keys:
    ``delta_paper`` and ``delta_paper_rule`` (which printed formula, with which arguments),
    ``delta_exact``, ``delta_adjacency`` (the adjacency of the paper's proof),
    ``delta_exact_method``.
    """
    entry = get(mechanism)
    values = entry.select(params, strict=True)
    context = entry.context(histogram, **values)
    return {
        "delta_paper": entry.printed(histogram, epsilon=epsilon, **values),
        "delta_paper_rule": entry.printed_rule.format(**context),
        "delta_exact": entry.delta(histogram, epsilon=epsilon, **values),
        "delta_adjacency": entry.adjacency,
        "delta_exact_method": entry.exact_method.format(**context),
    }


def _table_row(data: Dataset, entry: Mechanism, epsilon: float, *, reps, seed, settings, boot):
    own = entry.select(settings)  # the shared settings this mechanism takes
    released = release(entry, data, epsilon=epsilon, reps=reps, seed=seed, **own)
    boot_seed = release_seed(seed, data.name, entry, epsilon).spawn(1)[0]
    true = data.histogram.counts.astype(float)
    summary = release_summary(released, true, rng=make_rng(boot_seed), **boot)
    exact = entry.bias(data.histogram, epsilon=epsilon, **own)
    if exact is None:
        summary.update(dict.fromkeys(_EXACT_KEYS, float("nan")))
    else:
        summary.update(_exact_columns(released, true, exact, boot["confidence"]))
    deltas = privacy_deltas(entry, data.histogram, epsilon=epsilon, **own)
    return {"dataset": data.name, "mechanism": entry.name, "epsilon": epsilon, **deltas, **summary}


def data_release_table(
    dataset: str | Dataset,
    *,
    epsilons: Sequence[float],
    reps: int,
    seed: int,
    k: int = PAPER_K,
    qi: Sequence[str] = PAPER_QI,
    ka_qi: Sequence[str] = ATTRIBUTES,
    mechanisms: Sequence[str | Mechanism] = TABLE_MECHANISMS,
    age_edges: Sequence[int] = AGE_EDGES,
    n_boot: int = 1000,
    confidence: float = 0.95,
    interval: str = "normal",
) -> pd.DataFrame:
    """The paper's data-release table: one row per (mechanism, epsilon).

    ``k`` is DP cell suppression's threshold and Mondrian's class size, ``qi`` DP swapping's
    quasi-identifier(s) and ``ka_qi`` those of k-anonymity (default: all five features);
    each mechanism (a registry record or its name) takes those it declares.

    Columns
    -------
    ``dataset, mechanism, epsilon, reps``
        The configuration.
    ``delta_paper, delta_paper_rule, delta_exact, delta_adjacency, delta_exact_method``
        See :func:`privacy_deltas`.
    ``bias_l1, bias_l1_se, bias_l1_lo, bias_l1_hi``
        The paper's statistic ``||mean release - x||_1``, its bootstrap SE and interval
        (``confidence``, ``interval`` kind; see the module docstring).
    ``alpha, alpha_se, alpha_lo, alpha_hi``
        Empirical alpha (max - min of the mean bias), likewise.
    ``l1_error, l1_error_se``
        Mean over repetitions of ``||release - x||_1`` (not the bias; for reference).
    ``bias_l1_exact, alpha_exact``
        Exact l1 bias and alpha (mechanisms with an exact bias only, else NaN).
    ``bias_l1_expected_empirical, alpha_expected_empirical``
        What ``bias_l1`` and ``alpha`` are expected to be given the exact bias and the
        per-cell standard errors: exact value + Monte Carlo floor.
    ``bias_l1_signed, bias_l1_signed_se, z_bias_l1``
        ``mean_r sum_i sign(b_i)(x~_ri - x_i)`` with ``b`` the exact bias: an unbiased
        estimator of ``||b||_1`` (a linear statistic, so its SE is exact), and its z-score
        against ``bias_l1_exact``.
    ``z_cells_max, cells_tested, cell_coverage``
        Largest per-cell ``|z|`` of the simulated against the exact bias, the number of cells
        with a positive SE, and the share of them whose normal ``confidence`` interval
        covers the exact bias.
    """
    data = as_dataset(dataset, age_edges)
    epsilons = tuple(float(e) for e in np.atleast_1d(check_epsilons(epsilons, "epsilons")))
    if not epsilons:
        raise ValueError("epsilons must hold at least one value")
    mechanisms = check_mechanisms(mechanisms)
    reps = check_positive_int(reps, "reps", minimum=2)
    settings = check_settings(data, k=k, qi=qi, ka_qi=ka_qi)
    boot = {"n_boot": n_boot, "confidence": confidence, "interval": interval}
    rows = [
        _table_row(data, entry, e, reps=reps, seed=seed, settings=settings, boot=boot)
        for entry in mechanisms
        for e in epsilons
    ]
    return pd.DataFrame(rows)


def compare_with_paper(table: pd.DataFrame) -> pd.DataFrame:
    """Join a :func:`data_release_table` with the paper's numbers, adding ratios ours/paper.

    ``z_paper_bias_l1`` and ``z_paper_alpha`` are ``(ours - paper) / (sqrt(2) bootstrap
    SE)``: how far apart the two numbers are if both were draws of the same statistic with
    our Monte Carlo spread (``|z|`` of a few: indistinguishable; hundreds: a different
    computation). Rows without a printed counterpart keep NaN in the paper's columns.
    """
    needed = {"dataset", "mechanism", "epsilon", "delta_paper", "bias_l1", "alpha"}
    missing = needed - set(table.columns)
    if missing:
        raise ValueError(f"table lacks column(s) {sorted(missing)}")
    paper = paper_tables().rename(
        columns={"delta": "paper_delta", "l1_bias": "paper_bias_l1", "alpha": "paper_alpha"}
    )
    merged = table.merge(paper, on=["dataset", "mechanism", "epsilon"], how="left")
    with np.errstate(divide="ignore", invalid="ignore"):
        merged["ratio_bias_l1"] = merged["bias_l1"] / merged["paper_bias_l1"]
        merged["ratio_alpha"] = merged["alpha"] / merged["paper_alpha"]
        for stat, paper_col in (("bias_l1", "paper_bias_l1"), ("alpha", "paper_alpha")):
            if f"{stat}_se" in merged:
                spread = math.sqrt(2) * merged[f"{stat}_se"]
                merged[f"z_paper_{stat}"] = (merged[stat] - merged[paper_col]) / spread
    return merged
