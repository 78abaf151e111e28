"""Exact delta, l1 bias and alpha of every private table mechanism over a grid of epsilon.

The data behind chapter 12's explorable: one epsilon slider that moves a mechanism's
privacy (exact delta under the adjacency of the paper's proof), its accuracy (the l1 norm
of its exact bias, in records) and its fairness (alpha, the largest minus the smallest
exact bias over cells) together. Every number is a closed form or an exact enumeration of
the registry (``Mechanism.delta`` and ``Mechanism.bias``, the functions the data-release
tables use), so no repetition and no seed is involved; a mechanism without a closed-form
bias (DP k-anonymity) has its delta and no bias or alpha (NaN).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dadp_lite._validate import check_epsilon
from dadp_lite.data import ATTRIBUTES
from dadp_lite.dataset import Dataset, as_dataset
from dadp_lite.experiments.tables import TABLE_MECHANISMS, check_mechanisms, check_settings
from dadp_lite.metrics import alpha_fairness
from dadp_lite.paper import PAPER_K, PAPER_QI
from dadp_lite.registry import Mechanism, get

__all__ = [
    "PROFILE_COLUMNS", "baseline_exceptions", "baselines_ahead", "epsilon_grid", "exact_profile",
]  # fmt: skip

#: Columns of :func:`exact_profile`'s frame, in order.
PROFILE_COLUMNS: tuple[str, ...] = (
    "dataset", "mechanism", "epsilon", "delta_exact", "bias_l1_exact", "alpha_exact",
)  # fmt: skip


def epsilon_grid(start: float, stop: float, step: float) -> np.ndarray:
    """``start, start + step, ..., stop`` (both ends included), rounded to the step's
    decimals so that a slider of that step lands on every value exactly.

    Raises ``ValueError`` unless ``0 < start <= stop`` and ``step > 0`` (all finite), and
    when ``stop - start`` is not a whole number of steps.
    """
    start = check_epsilon(start, "start")
    stop = check_epsilon(stop, "stop")
    step = check_epsilon(step, "step")
    if stop < start:
        raise ValueError(f"stop must be >= start, got start={start} and stop={stop}")
    count = (stop - start) / step
    if abs(count - round(count)) > 1e-9 * max(1.0, count):
        raise ValueError(f"stop - start must be a whole number of steps, got {count:.4g} steps")
    decimals = max(0, -math.floor(math.log10(step)) + 1)
    return np.round(start + step * np.arange(round(count) + 1), decimals)


def exact_profile(
    dataset: str | Dataset,
    *,
    epsilons: Sequence[float] | np.ndarray,
    k: int = PAPER_K,
    qi: Sequence[str] = PAPER_QI,
    ka_qi: Sequence[str] = ATTRIBUTES,
    mechanisms: Sequence[str | Mechanism] = TABLE_MECHANISMS,
) -> pd.DataFrame:
    """One row per (private mechanism, epsilon): exact delta, l1 bias and alpha.

    ``dataset`` is a dataset name or :class:`~dadp_lite.dataset.Dataset`; ``k``, ``qi`` and
    ``ka_qi`` the shared settings of the tables (checked against the dataset);
    ``mechanisms`` registry names or records (the traditional ones, which take no epsilon,
    are left out). Raises ``ValueError`` for an empty or invalid ``epsilons``.
    """
    data = as_dataset(dataset)
    grid = [check_epsilon(e, "epsilons") for e in np.atleast_1d(np.asarray(epsilons, float))]
    if not grid:
        raise ValueError("epsilons must hold at least one value")
    settings = check_settings(data, k=k, qi=qi, ka_qi=ka_qi)
    histogram = data.histogram
    rows = []
    for entry in check_mechanisms(mechanisms):
        if not entry.private:
            continue
        own: dict[str, Any] = entry.select(settings)
        for epsilon in grid:
            bias = entry.bias(histogram, epsilon=epsilon, **own)
            rows.append({
                "dataset": data.name,
                "mechanism": entry.name,
                "epsilon": epsilon,
                "delta_exact": float(entry.delta(histogram, epsilon=epsilon, **own)),
                "bias_l1_exact": math.nan if bias is None else float(np.abs(bias).sum()),
                "alpha_exact": math.nan if bias is None else float(alpha_fairness(bias)),
            })  # fmt: skip
    return pd.DataFrame(rows, columns=list(PROFILE_COLUMNS))


def _split(profile: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows with a closed-form bias: the classical baselines' and the others'."""
    kinds = profile["mechanism"].map(lambda name: get(name).kind)
    exact = profile["bias_l1_exact"].notna() & profile["alpha_exact"].notna()
    baseline = profile[exact & (kinds == "baseline")]
    others = profile[exact & (kinds != "baseline")]
    if baseline.empty or others.empty:
        raise ValueError("profile needs a baseline and another mechanism with a closed form")
    return baseline, others


def baseline_exceptions(profile: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``profile`` (a frame of :func:`exact_profile`) where a mechanism that is
    no classical baseline has a smaller exact l1 bias or a smaller alpha than one of the
    registry's baselines (kind ``baseline``: Laplace, the discrete Gaussian) at the same
    dataset and epsilon. Only mechanisms with a closed-form bias take part.

    Raises ``ValueError`` when ``profile`` holds no baseline or no other mechanism with a
    closed-form bias."""
    baseline, others = _split(profile)
    keys = ["dataset", "epsilon"]
    worst = baseline.groupby(keys)[["bias_l1_exact", "alpha_exact"]].max()
    joined = others.join(worst.add_suffix("_baseline"), on=keys)
    beats = (joined["bias_l1_exact"] < joined["bias_l1_exact_baseline"]) | (
        joined["alpha_exact"] < joined["alpha_exact_baseline"]
    )
    return others[beats.to_numpy()].reset_index(drop=True)


def baselines_ahead(profile: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, epsilon) of ``profile``: whether every classical baseline has both a
    smaller exact l1 bias and a smaller alpha than every other mechanism with a closed-form
    bias (no row of :func:`baseline_exceptions` there). Columns ``dataset``, ``epsilon``,
    ``ahead``. Raises ``ValueError`` as :func:`baseline_exceptions` does."""
    baseline, _ = _split(profile)
    settings = baseline[["dataset", "epsilon"]].drop_duplicates().reset_index(drop=True)
    behind = baseline_exceptions(profile)[["dataset", "epsilon"]].drop_duplicates()
    marked = settings.merge(behind.assign(behind=True), how="left", on=["dataset", "epsilon"])
    return settings.assign(ahead=marked["behind"].isna().to_numpy())
