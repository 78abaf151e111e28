"""The paper's classification experiment: logistic regression trained on released data.

The task predicts ``income_over_50k`` from race, sex, tenure and age bracket. For each
(mechanism, epsilon) the releases of :func:`dadp_lite.experiments.release` (the same ones
the data-release table summarises for the same seed) are rounded to non-negative counts,
i.e. a reconstructed dataset, and a weighted logistic regression is fitted on the cells
(the same fit as on the reconstructed records). Accuracy and balanced accuracy are measured
on the original records.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dadp_lite._validate import check_epsilons, check_positive_int
from dadp_lite.data import AGE_EDGES, ATTRIBUTES
from dadp_lite.dataset import Dataset, as_dataset
from dadp_lite.experiments._logistic import batched_logistic, decision_error_bound
from dadp_lite.experiments.release import release
from dadp_lite.experiments.tables import TABLE_MECHANISMS, check_mechanisms, check_settings
from dadp_lite.histogram import Histogram
from dadp_lite.metrics import round_counts
from dadp_lite.paper import PAPER_K, PAPER_QI
from dadp_lite.registry import Mechanism

__all__ = [
    "CLASSIFICATION_FEATURES",
    "CLASSICAL_MECHANISMS",
    "TARGET",
    "cell_design",
    "classification_accuracy",
    "classification_baseline",
    "classification_margins",
    "fit_weighted_logistic",
    "weighted_accuracy",
]

#: The classifier's features (one-hot encoded; the paper's classification figure).
CLASSIFICATION_FEATURES = ("race", "sex", "tenure", "age_bracket")
#: The mechanisms the paper's classification claim puts ahead of the others.
CLASSICAL_MECHANISMS = ("laplace", "discrete_gaussian")
_TOL = 1e-8  # sklearn's stopping tolerance (largest gradient of its scaled objective)
#: The feature the classifier predicts.
TARGET = "income_over_50k"


def cell_design(
    histogram: Histogram,
    features: Sequence[str] = CLASSIFICATION_FEATURES,
    target: str = TARGET,
) -> tuple[np.ndarray, np.ndarray]:
    """One-hot design matrix and label of every cell of the histogram's universe.

    Returns ``X`` of shape ``(n_cells, sum of domain sizes)`` (one column per value of each
    feature, all domain values included) and ``y`` of shape ``(n_cells,)``.
    """
    features = tuple(features)
    unknown = [f for f in (*features, target) if f not in histogram.attributes]
    if unknown or not features:
        raise ValueError(f"features and target must be attributes of the histogram: {unknown}")
    if target in features:
        raise ValueError(f"target {target!r} must not be a feature")
    cells = histogram.cell_table()
    blocks = []
    for name in features:
        domain = np.asarray(histogram.domains[histogram.attributes.index(name)])
        blocks.append((cells[name].to_numpy()[:, None] == domain[None, :]).astype(float))
    return np.hstack(blocks), cells[target].to_numpy().astype(np.int64)


def fit_weighted_logistic(
    design: np.ndarray, labels: np.ndarray, weights: np.ndarray, *, C: float = 1.0
):
    """sklearn ``LogisticRegression`` fitted on cells with ``sample_weight`` = counts.

    Cells with weight 0 are dropped (they contribute nothing to the objective). The
    ``newton-cholesky`` solver minimises the same L2-penalised objective as sklearn's
    default ``lbfgs`` and is faster here. Returns ``None`` when the weighted data hold a
    single class (no classifier can be fitted); callers then predict that class.
    """
    from sklearn.linear_model import LogisticRegression

    weights = np.asarray(weights, dtype=float)
    keep = weights > 0
    classes = np.unique(labels[keep])
    if classes.size < 2:
        return None
    model = LogisticRegression(C=C, solver="newton-cholesky", max_iter=200, tol=_TOL)
    return model.fit(design[keep], labels[keep], sample_weight=weights[keep])


def weighted_accuracy(
    predictions: np.ndarray, labels: np.ndarray, counts: np.ndarray
) -> tuple[float, float]:
    """(accuracy, balanced accuracy) of per-cell predictions on the records of ``counts``.

    Every record of cell i gets prediction ``predictions[i]``; balanced accuracy is the
    mean of the two class recalls (a class absent from the records is skipped).
    """
    counts = np.asarray(counts, dtype=float)
    correct = counts * (np.asarray(predictions) == np.asarray(labels))
    total = counts.sum()
    if total <= 0:
        raise ValueError("counts hold no records")
    recalls = []
    for value in (0, 1):
        mask = labels == value
        if counts[mask].sum() > 0:
            recalls.append(correct[mask].sum() / counts[mask].sum())
    return float(correct.sum() / total), float(np.mean(recalls))


def _predict(model, design: np.ndarray, labels: np.ndarray, weights: np.ndarray) -> np.ndarray:
    if model is None:  # one class only (or no records): predict it (0 if no records)
        present = labels[np.asarray(weights) > 0]
        return np.full(labels.shape, int(present[0]) if present.size else 0)
    return model.predict(design)


#: A batched fit decides a repetition's predictions only when every cell's decision value
#: is farther from 0 than this many times the bound on sklearn's solver error
#: (:func:`dadp_lite.experiments._logistic.decision_error_bound`); otherwise sklearn decides.
#: The bound is first order (its error is quadratic in a gap of ~1e-6); over the 12,000 fits
#: of the full profile sklearn's actual gap never exceeded 0.5 times it.
_SAFETY = 2.0


def _batched_predictions(
    counts: np.ndarray, design: np.ndarray, labels: np.ndarray, C: float
) -> np.ndarray:
    """``(reps, n_cells)`` predictions equal to sklearn's fit of each row of ``counts``.

    All fits are solved at once to the exact optimum (:func:`batched_logistic`). sklearn
    stops at a gradient of at most ``tol``, so its decision values differ from the optimum's
    by at most :func:`decision_error_bound`; wherever a decision value is within
    ``_SAFETY`` times that bound of 0, its sign could differ, and the repetition is fitted
    by sklearn itself (:func:`fit_weighted_logistic`). Every prediction is therefore the one
    sklearn makes. Repetitions holding a single class predict it, as :func:`_predict` does.
    """
    predictions = np.empty(counts.shape, dtype=np.int64)
    present = counts > 0
    has_one = (present & (labels == 1)).any(axis=1)
    has_zero = (present & (labels == 0)).any(axis=1)
    both = has_one & has_zero
    predictions[~both] = np.where(has_one[~both], 1, 0)[:, None]
    if both.any():
        fitted = np.flatnonzero(both)
        coef, intercept = batched_logistic(design, labels, counts[fitted], C=C)
        decision = coef @ design.T + intercept[:, None]
        bound = decision_error_bound(design, counts[fitted], coef, intercept, C=C, tol=_TOL)
        predictions[fitted] = (decision > 0).astype(np.int64)
        unsure = (np.abs(decision) <= _SAFETY * bound + 1e-9).any(axis=1)
        for r in fitted[unsure]:
            model = fit_weighted_logistic(design, labels, counts[r], C=C)
            predictions[r] = _predict(model, design, labels, counts[r])
    return predictions


def _accuracies(released: np.ndarray, design, labels, true, C: float) -> np.ndarray:
    """(reps, 2) accuracy and balanced accuracy of classifiers trained on each release.

    The predictions are sklearn's (:func:`_batched_predictions`). BLAS runs single-threaded
    here: the problems are small and thread start-up costs more than it saves.
    """
    from threadpoolctl import threadpool_limits

    counts = round_counts(released)
    out = np.empty((counts.shape[0], 2))
    with threadpool_limits(1):
        predictions = _batched_predictions(counts, design, labels, C)
    for r in range(counts.shape[0]):
        out[r] = weighted_accuracy(predictions[r], labels, true)
    return out


def classification_baseline(
    dataset: str | Dataset,
    *,
    features: Sequence[str] = CLASSIFICATION_FEATURES,
    age_edges: Sequence[int] = AGE_EDGES,
    C: float = 1.0,
) -> dict:
    """Non-private baseline (trained on the true histogram) and the majority-class rate."""
    data = as_dataset(dataset, age_edges)
    design, labels = cell_design(data.histogram, features)
    true = data.histogram.counts
    model = fit_weighted_logistic(design, labels, true, C=C)
    accuracy, balanced = weighted_accuracy(_predict(model, design, labels, true), labels, true)
    positive = true[labels == 1].sum() / true.sum()
    return {
        "dataset": data.name,
        "baseline_accuracy": accuracy,
        "baseline_balanced_accuracy": balanced,
        "majority_rate": float(max(positive, 1 - positive)),
        "positive_rate": float(positive),
    }


def classification_accuracy(
    dataset: str | Dataset,
    *,
    epsilons: Sequence[float],
    reps: int,
    seed: int,
    k: int = PAPER_K,
    qi: Sequence[str] = PAPER_QI,
    ka_qi: Sequence[str] = ATTRIBUTES,
    mechanisms: Sequence[str | Mechanism] = TABLE_MECHANISMS,
    features: Sequence[str] = CLASSIFICATION_FEATURES,
    age_edges: Sequence[int] = AGE_EDGES,
    C: float = 1.0,
    n_jobs: int = 1,
    per_rep: bool = False,
) -> pd.DataFrame:
    """Logistic regression trained on released data, evaluated on the original records.

    For each (mechanism, epsilon) the ``reps`` releases of :func:`release` (same seeds as
    :func:`data_release_table`) are turned into non-negative integer counts
    (:func:`dadp_lite.metrics.round_counts`), i.e. a reconstructed dataset, and a
    ``LogisticRegression`` predicting ``income_over_50k`` from one-hot ``features`` is fitted
    on the weighted cells (equivalent to fitting on the reconstructed records). Accuracy
    and balanced accuracy are measured on the original records.

    Returns one row per (mechanism, epsilon) with mean and standard error over repetitions
    of both metrics, plus the non-private baseline and the majority-class rate
    (:func:`classification_baseline`); with ``per_rep=True``, one row per repetition.
    ``n_jobs > 1`` fits the configurations in joblib worker processes (same results).
    """
    data = as_dataset(dataset, age_edges)
    epsilons = tuple(float(e) for e in np.atleast_1d(check_epsilons(epsilons, "epsilons")))
    if not epsilons:
        raise ValueError("epsilons must hold at least one value")
    mechanisms = check_mechanisms(mechanisms)
    reps = check_positive_int(reps, "reps", minimum=2)
    n_jobs = check_positive_int(n_jobs, "n_jobs")
    settings = check_settings(data, k=k, qi=qi, ka_qi=ka_qi)
    design, labels = cell_design(data.histogram, features)
    true = data.histogram.counts
    configs = [(m, e) for m in mechanisms for e in epsilons]
    releases = [
        release(m, data, epsilon=e, reps=reps, seed=seed, **m.select(settings)) for m, e in configs
    ]
    if n_jobs == 1:
        scores = [_accuracies(r, design, labels, true, C) for r in releases]
    else:
        from joblib import Parallel, delayed

        scores = Parallel(n_jobs=n_jobs)(
            delayed(_accuracies)(r, design, labels, true, C) for r in releases
        )
    base = classification_baseline(data, features=features, C=C)
    frames = []
    for (mechanism, epsilon), score in zip(configs, scores, strict=True):
        frame = pd.DataFrame(
            {"rep": np.arange(reps), "accuracy": score[:, 0], "balanced_accuracy": score[:, 1]}
        )
        frame.insert(0, "epsilon", epsilon)
        frame.insert(0, "mechanism", mechanism.name)
        frames.append(frame)
    long = pd.concat(frames, ignore_index=True)
    long.insert(0, "dataset", data.name)
    if per_rep:
        return long.assign(**{key: value for key, value in base.items() if key != "dataset"})
    grouped = long.groupby(["dataset", "mechanism", "epsilon"], sort=False)
    summary = grouped.agg(
        accuracy=("accuracy", "mean"),
        accuracy_se=("accuracy", lambda v: v.std(ddof=1) / math.sqrt(v.size)),
        balanced_accuracy=("balanced_accuracy", "mean"),
        balanced_accuracy_se=("balanced_accuracy", lambda v: v.std(ddof=1) / math.sqrt(v.size)),
        reps=("accuracy", "size"),
    ).reset_index()
    return summary.assign(**{key: value for key, value in base.items() if key != "dataset"})


def classification_margins(
    results: pd.DataFrame,
    *,
    leaders: Sequence[str] = CLASSICAL_MECHANISMS,
    factor: float = 1.0,
) -> pd.DataFrame:
    """How far each leading mechanism is ahead of every other one, per dataset and epsilon.

    ``results`` is :func:`classification_accuracy` output (one or more datasets). One row
    per (dataset, epsilon, leader, other) with, in percentage points:

    - ``margin``: ``accuracy(leader) - accuracy(other)``;
    - ``loss_leader``, ``loss_other``: shortfalls below the non-private baseline;
    - ``excess``: ``loss_other - factor * loss_leader``, positive when the other mechanism
      loses more than ``factor`` times what the leader loses ("much closer to the
      baseline" with ``factor`` > 1);
    - ``margin_se``, ``excess_se``: their standard errors. The mechanisms draw their
      releases from separate random streams (the registry's seed keys), so the two
      accuracies are independent and the variances add;
    - ``reps``: the smaller number of repetitions behind the two standard errors.
    """
    needed = {
        "dataset",
        "mechanism",
        "epsilon",
        "accuracy",
        "accuracy_se",
        "baseline_accuracy",
        "reps",
    }
    if not isinstance(results, pd.DataFrame) or not needed <= set(results.columns):
        raise ValueError(f"results must be classification_accuracy output ({sorted(needed)})")
    if isinstance(factor, bool) or not isinstance(factor, int | float) or not factor >= 1:
        raise ValueError(f"factor must be a number >= 1, got {factor!r}")
    leaders = tuple(leaders)
    present = set(results["mechanism"])
    missing = [m for m in leaders if m not in present]
    if not leaders or missing:
        raise ValueError(f"leaders must be mechanisms of results; missing {missing or leaders}")
    rows = []
    keyed = results.set_index(["dataset", "epsilon", "mechanism"])
    others = [m for m in dict.fromkeys(results["mechanism"]) if m not in leaders]
    for (dataset, epsilon), _ in results.groupby(["dataset", "epsilon"], sort=False):
        for leader in leaders:
            lead = keyed.loc[(dataset, epsilon, leader)]
            for other in others:
                row = keyed.loc[(dataset, epsilon, other)]
                loss_lead = 100 * (lead.baseline_accuracy - lead.accuracy)
                loss_other = 100 * (row.baseline_accuracy - row.accuracy)
                rows.append({
                    "dataset": dataset, "epsilon": epsilon, "leader": leader, "other": other,
                    "margin": 100 * (lead.accuracy - row.accuracy),
                    "margin_se": 100 * math.hypot(lead.accuracy_se, row.accuracy_se),
                    "loss_leader": loss_lead, "loss_other": loss_other,
                    "excess": loss_other - factor * loss_lead,
                    "excess_se": 100 * math.hypot(factor * lead.accuracy_se, row.accuracy_se),
                    "reps": int(min(lead.reps, row.reps)),
                })  # fmt: skip
    return pd.DataFrame(rows)
