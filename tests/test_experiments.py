"""The paper's experiments: data-release table and classification accuracy."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import dadp_lite as dl
from dadp_lite import experiments as ex

Z_TOL = 4.5


@pytest.fixture(scope="module")
def ma_setup():
    return dl.Dataset.load("ma2019")


# ------------------------------------------------------------------ reference numbers
def test_paper_tables_hold_sixty_rows_one_per_configuration():
    paper = dl.paper_tables()
    assert list(paper.columns) == [
        "table", "dataset", "epsilon", "mechanism", "delta", "l1_bias", "alpha"
    ]  # fmt: skip
    assert len(paper) == 60
    assert not paper.duplicated(["dataset", "epsilon", "mechanism"]).any()
    assert set(paper["mechanism"]) == set(ex.TABLE_MECHANISMS)
    assert set(paper["dataset"]) == {"ma2019", "tx2019", "national2019"}


def test_compare_with_paper_adds_ratios_and_spread_z():
    table = pd.DataFrame(
        {"dataset": ["ma2019"], "mechanism": ["laplace"], "epsilon": [1.0],
         "delta_paper": [0.0], "bias_l1": [2 * 342.885], "alpha": [1.845],
         "bias_l1_se": [1.0], "alpha_se": [1.0]}
    )  # fmt: skip
    merged = ex.compare_with_paper(table)
    assert merged.loc[0, "ratio_bias_l1"] == pytest.approx(2.0)
    assert merged.loc[0, "ratio_alpha"] == pytest.approx(1.0)
    assert merged.loc[0, "z_paper_bias_l1"] == pytest.approx(342.885 / math.sqrt(2))


def test_compare_with_paper_rejects_a_table_without_the_statistics():
    with pytest.raises(ValueError, match="bias_l1"):
        ex.compare_with_paper(pd.DataFrame({"dataset": [], "mechanism": [], "epsilon": []}))


# ------------------------------------------------------------------ releases
@pytest.mark.parametrize("mechanism", ex.TABLE_MECHANISMS)
def test_release_shape_and_nonnegative_counts(ma_setup, mechanism):
    released = ex.release(mechanism, ma_setup, epsilon=1.0, reps=3, seed=5)
    assert released.shape == (3, ma_setup.histogram.n_cells)
    assert np.all(released >= 0)


def test_release_is_reproducible_and_keyed_by_configuration(ma_setup):
    a = ex.release("laplace", ma_setup, epsilon=1.0, reps=4, seed=7)
    b = ex.release("laplace", ma_setup, epsilon=1.0, reps=4, seed=7)
    c = ex.release("laplace", ma_setup, epsilon=2.0, reps=4, seed=7)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_table_rows_do_not_depend_on_the_grid(ma_setup):
    one = ex.data_release_table(
        ma_setup, epsilons=[1.0], reps=5, seed=3, mechanisms=["dp_swapping"], n_boot=20
    )
    two = ex.data_release_table(
        ma_setup, epsilons=[0.5, 1.0], reps=5, seed=3, mechanisms=["dp_swapping"], n_boot=20
    )
    row = two[two["epsilon"] == 1.0].reset_index(drop=True)
    pd.testing.assert_frame_equal(one, row)


# ------------------------------------------------------------------ statistics
@pytest.mark.parametrize(
    "mechanism", [m for m in ex.TABLE_MECHANISMS if dl.registry.get(m).exact_bias is not None]
)
def test_simulated_l1_bias_matches_closed_form(ma_setup, mechanism):
    table = ex.data_release_table(
        ma_setup, epsilons=[1.0], reps=200, seed=11, mechanisms=[mechanism], n_boot=50
    )
    row = table.iloc[0]
    assert abs(row["z_bias_l1"]) < Z_TOL, row["z_bias_l1"]
    # the paper's statistic sits at the exact value plus the Monte Carlo floor
    z_floor = (row["bias_l1"] - row["bias_l1_expected_empirical"]) / row["bias_l1_se"]
    assert abs(z_floor) < Z_TOL, z_floor


def test_laplace_per_cell_intervals_cover_at_the_nominal_rate(ma_setup):
    row = ex.data_release_table(
        ma_setup, epsilons=[0.5], reps=200, seed=13, mechanisms=["laplace"], n_boot=20
    ).iloc[0]
    cells = row["cells_tested"]
    tolerance = Z_TOL * math.sqrt(0.95 * 0.05 / cells)
    assert cells == ma_setup.histogram.n_cells
    assert abs(row["cell_coverage"] - 0.95) < tolerance


def test_k_anonymity_has_no_closed_form_columns(ma_setup):
    row = ex.data_release_table(
        ma_setup, epsilons=[1.0], reps=4, seed=2, mechanisms=["dp_k_anonymity"], n_boot=20
    ).iloc[0]
    assert math.isnan(row["bias_l1_exact"]) and math.isnan(row["alpha_exact"])
    # reconstruction keeps the subsample size: ||bias||_1 >= |sum of biases| ~ N e^-eps
    assert row["bias_l1"] >= 0.9 * ma_setup.histogram.total * math.exp(-1.0)


def test_bootstrap_of_constant_releases_has_no_spread():
    released = np.tile([1.0, 2.0, 5.0], (6, 1))
    l1, alpha = dl.metrics.bootstrap_bias_replicates(
        released, np.array([1.0, 1.0, 1.0]), rng=np.random.default_rng(0), n_boot=10
    )
    assert np.allclose(l1, 5.0) and np.allclose(alpha, 4.0)


def test_normal_interval_is_symmetric_and_percentile_is_ordered(ma_setup):
    rows = {
        kind: ex.data_release_table(
            ma_setup, epsilons=[2.0], reps=20, seed=4, mechanisms=["laplace"], n_boot=200,
            interval=kind,
        ).iloc[0]
        for kind in dl.metrics.INTERVALS
    }  # fmt: skip
    normal = rows["normal"]
    half = 1.959963984540054 * normal["bias_l1_se"]
    assert normal["bias_l1_hi"] - normal["bias_l1"] == pytest.approx(half)
    assert normal["bias_l1"] - normal["bias_l1_lo"] == pytest.approx(half)
    assert rows["percentile"]["bias_l1_lo"] < rows["percentile"]["bias_l1_hi"]


def test_expected_abs_normal_limits_and_monte_carlo():
    assert ex.expected_abs_normal(np.array([0.0]), np.array([2.0]))[0] == pytest.approx(
        2.0 * math.sqrt(2 / math.pi)
    )
    assert ex.expected_abs_normal(np.array([-3.0]), np.array([0.0]))[0] == 3.0
    assert ex.expected_abs_normal(np.array([50.0]), np.array([1.0]))[0] == pytest.approx(50.0)
    draws = np.random.default_rng(1).normal(0.7, 1.3, 400_000)
    se = np.abs(draws).std() / math.sqrt(draws.size)
    value = ex.expected_abs_normal(np.array([0.7]), np.array([1.3]))[0]
    assert abs(np.abs(draws).mean() - value) < Z_TOL * se


# ------------------------------------------------------------------ deltas
def test_swapping_printed_delta_reproduces_the_paper(ma_setup):
    paper = dl.paper_tables().query("mechanism == 'dp_swapping' and dataset == 'ma2019'")
    for epsilon, printed in zip(paper["epsilon"], paper["delta"], strict=True):
        ours = ex.privacy_deltas("dp_swapping", ma_setup.histogram, epsilon=epsilon)
        assert round(ours["delta_paper"], 3) == pytest.approx(printed, abs=1.5e-3)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_exact_deltas_of_laplace_and_k_anonymity(ma_setup, epsilon):
    lap = ex.privacy_deltas("laplace", ma_setup.histogram, epsilon=epsilon)
    assert lap["delta_exact"] < 1e-3 and lap["delta_adjacency"] == "replace"
    ka = ex.privacy_deltas("dp_k_anonymity", ma_setup.histogram, epsilon=epsilon)
    assert ka["delta_exact"] == pytest.approx(1 - math.exp(-epsilon), abs=1e-9)


# ------------------------------------------------------------------ classification
def test_weighted_fit_equals_fit_on_reconstructed_records(ma_setup):
    from sklearn.linear_model import LogisticRegression

    hist = ma_setup.histogram
    counts = dl.round_counts(ex.release("laplace", ma_setup, epsilon=0.5, reps=1, seed=9))[0]
    design, labels = ex.cell_design(hist)
    weighted = ex.fit_weighted_logistic(design, labels, counts)
    records = hist.with_counts(counts).to_records()
    record_design, record_labels = _record_design(hist, records)
    direct = LogisticRegression(solver="newton-cholesky", max_iter=200, tol=1e-8)
    direct.fit(record_design, record_labels)
    assert np.allclose(weighted.coef_, direct.coef_, atol=1e-6)
    assert np.allclose(weighted.intercept_, direct.intercept_, atol=1e-6)
    assert np.array_equal(weighted.predict(design), direct.predict(design))


def _record_design(hist, records):
    blocks = [
        (records[name].to_numpy()[:, None] == np.asarray(domain)[None, :]).astype(float)
        for name, domain in zip(hist.attributes, hist.domains, strict=True)
        if name in ex.CLASSIFICATION_FEATURES
    ]
    return np.hstack(blocks), records["income_over_50k"].to_numpy()


def test_weighted_accuracy_matches_sklearn_metrics_on_records(ma_setup):
    from sklearn.metrics import accuracy_score, balanced_accuracy_score

    hist = ma_setup.histogram
    design, labels = ex.cell_design(hist)
    predictions = (design[:, 0] + design[:, 9] > 1).astype(int)  # white men: arbitrary rule
    accuracy, balanced = ex.weighted_accuracy(predictions, labels, hist.counts)
    cell_of_record = np.repeat(np.arange(hist.n_cells), hist.counts)
    truth, guess = labels[cell_of_record], predictions[cell_of_record]
    assert accuracy == pytest.approx(accuracy_score(truth, guess))
    assert balanced == pytest.approx(balanced_accuracy_score(truth, guess))


def test_baseline_beats_the_majority_rate(ma_setup):
    base = ex.classification_baseline(ma_setup)
    assert base["baseline_accuracy"] >= base["majority_rate"]
    assert 0.5 <= base["majority_rate"] <= 1


def test_classification_summary_and_per_repetition_rows(ma_setup):
    kwargs = dict(epsilons=[1.0, 4.0], reps=3, seed=1, mechanisms=["laplace", "dp_swapping"])
    summary = ex.classification_accuracy(ma_setup, **kwargs)
    assert len(summary) == 4
    assert set(summary["reps"]) == {3}
    assert summary["accuracy"].between(0, 1).all()
    per_rep = ex.classification_accuracy(ma_setup, per_rep=True, **kwargs)
    assert len(per_rep) == 12
    means = per_rep.groupby(["mechanism", "epsilon"], sort=False)["accuracy"].mean().to_numpy()
    assert np.allclose(means, summary["accuracy"].to_numpy())


def test_classification_margins_from_a_summary_written_by_hand():
    """Two settings, one leader, one other: the margins, losses and standard errors are the
    arithmetic of the definition (percentage points; independent accuracies)."""
    results = pd.DataFrame({
        "dataset": ["d"] * 4, "epsilon": [0.5, 0.5, 4.0, 4.0],
        "mechanism": ["laplace", "dp_swapping"] * 2,
        "accuracy": [0.70, 0.60, 0.72, 0.71], "accuracy_se": [0.003, 0.004, 0.0, 0.001],
        "baseline_accuracy": [0.73] * 4, "reps": [200, 200, 200, 50],
    })  # fmt: skip
    margins = ex.classification_margins(results, leaders=["laplace"], factor=2.0)
    assert len(margins) == 2 and set(margins["other"]) == {"dp_swapping"}
    first = margins.iloc[0]
    assert first.margin == pytest.approx(10.0) and first.margin_se == pytest.approx(0.5)
    assert first.loss_leader == pytest.approx(3.0) and first.loss_other == pytest.approx(13.0)
    assert first.excess == pytest.approx(13.0 - 2 * 3.0)
    assert first.excess_se == pytest.approx(100 * math.hypot(2 * 0.003, 0.004))
    assert margins.iloc[1].reps == 50
    with pytest.raises(ValueError, match="leaders"):
        ex.classification_margins(results, leaders=["discrete_gaussian"])
    with pytest.raises(ValueError, match="factor"):
        ex.classification_margins(results, leaders=["laplace"], factor=0.5)
    with pytest.raises(ValueError, match="results"):
        ex.classification_margins(results.drop(columns="reps"), leaders=["laplace"])


@pytest.fixture(scope="module")
def ma_fits(ma_setup):
    """Rounded releases of three mechanisms on MA (36 weight vectors) and the cell design."""
    design, labels = ex.cell_design(ma_setup.histogram)
    counts = np.concatenate([
        dl.round_counts(ex.release(m, ma_setup, epsilon=0.5, reps=12, seed=3))
        for m in ("laplace", "dp_swapping", "dp_k_anonymity")
    ])  # fmt: skip
    return design, labels, counts


def test_batched_logistic_reaches_the_optimum_sklearn_approaches(ma_fits):
    from dadp_lite.experiments._logistic import batched_logistic

    design, labels, counts = ma_fits
    coef, intercept = batched_logistic(design, labels, counts)
    for r in range(counts.shape[0]):
        model = ex.fit_weighted_logistic(design, labels, counts[r])
        # same decision values up to sklearn's stopping tolerance ...
        gap = np.abs(model.decision_function(design) - (design @ coef[r] + intercept[r]))
        assert gap.max() < 1e-4
        # ... and ours is the stationary point: gradient of the objective ~ 0
        x = np.hstack([design, np.ones((len(labels), 1))])
        beta = np.r_[coef[r], intercept[r]]
        prob = 1 / (1 + np.exp(-(x @ beta)))
        gradient = (counts[r] * (prob - labels)) @ x + np.r_[coef[r], 0.0]
        assert np.abs(gradient).max() < 1e-8 * counts[r].sum()


def test_error_bound_covers_sklearn_decision_gaps(ma_fits):
    from dadp_lite.experiments._logistic import batched_logistic, decision_error_bound

    design, labels, counts = ma_fits
    coef, intercept = batched_logistic(design, labels, counts)
    bound = decision_error_bound(design, counts, coef, intercept, tol=1e-8)
    for r in range(counts.shape[0]):
        model = ex.fit_weighted_logistic(design, labels, counts[r])
        gap = np.abs(model.decision_function(design) - (design @ coef[r] + intercept[r]))
        assert (gap <= bound[r]).all()


def test_batched_predictions_equal_sklearn_predictions(ma_fits):
    from dadp_lite.experiments.classification import _batched_predictions, _predict

    design, labels, counts = ma_fits
    single = np.where(labels == 1, counts[0], 0)  # one class only: no fit
    empty = np.zeros_like(counts[0])
    weights = np.vstack([counts, single, empty])
    fast = _batched_predictions(weights, design, labels, 1.0)
    for r, w in enumerate(weights):
        model = ex.fit_weighted_logistic(design, labels, w)
        assert np.array_equal(fast[r], _predict(model, design, labels, w))


def test_batched_predictions_defer_to_sklearn_near_zero(ma_fits, monkeypatch):
    import dadp_lite.experiments.classification as cl

    design, labels, counts = ma_fits
    calls = []
    real = cl.fit_weighted_logistic
    monkeypatch.setattr(
        cl, "fit_weighted_logistic", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    monkeypatch.setattr(cl, "_SAFETY", 1e12)  # every repetition is unsure: sklearn decides all
    assert np.array_equal(
        cl._batched_predictions(counts[:4], design, labels, 1.0),
        np.array([cl._predict(real(design, labels, w), design, labels, w) for w in counts[:4]]),
    )
    assert len(calls) == 4


def test_single_class_release_predicts_that_class(ma_setup):
    design, labels = ex.cell_design(ma_setup.histogram)
    weights = np.where(labels == 0, 1, 0)
    assert ex.fit_weighted_logistic(design, labels, weights) is None


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"mechanisms": ["nope"]}, ValueError, "mechanisms"),
        ({"mechanisms": []}, ValueError, "mechanisms"),
        ({"epsilons": [0.0]}, ValueError, "epsilon"),
        ({"epsilons": ["a"]}, TypeError, "epsilon"),
        ({"epsilons": []}, ValueError, "epsilons"),
        ({"reps": 1}, ValueError, "reps"),
        ({"k": 0}, ValueError, "k"),
        ({"qi": ("zip",)}, ValueError, "qi"),
        ({"ka_qi": ()}, ValueError, "ka_qi"),
        ({"seed": -1}, TypeError, "seed"),
        ({"confidence": 1.5}, ValueError, "confidence"),
        ({"interval": "bca"}, ValueError, "interval"),
    ],
)
def test_data_release_table_rejects_bad_arguments(ma_setup, kwargs, error, match):
    arguments = {"epsilons": [1.0], "reps": 3, "seed": 0, "mechanisms": ["laplace"], "n_boot": 5}
    arguments.update(kwargs)
    with pytest.raises(error, match=match):
        ex.data_release_table(ma_setup, **arguments)


def test_bad_dataset_type_and_bad_classification_arguments(ma_setup):
    with pytest.raises(TypeError, match="dataset"):
        dl.Dataset.load(42)
    with pytest.raises(ValueError, match="reps"):
        ex.classification_accuracy(ma_setup, epsilons=[1.0], reps=1, seed=0)
    with pytest.raises(TypeError, match="n_jobs"):
        ex.classification_accuracy(ma_setup, epsilons=[1.0], reps=2, seed=0, n_jobs=1.5)
    with pytest.raises(ValueError, match="target"):
        ex.cell_design(ma_setup.histogram, features=("race", "income_over_50k"))
    with pytest.raises(ValueError, match="records"):
        ex.weighted_accuracy(np.zeros(2), np.zeros(2, dtype=int), np.zeros(2))
    with pytest.raises(ValueError, match="released"):
        dl.metrics.bootstrap_bias_replicates(
            np.ones((1, 3)), np.ones(3), rng=np.random.default_rng(0)
        )


def test_table_is_bit_identical_on_one_or_two_blas_threads(ma_setup):
    """The table's matrix products are pinned to one BLAS thread. (On our OpenBLAS build
    two threads happen to give the same bits for these shapes; BLAS builds that split the
    summation across threads do not, which is what this guards.)"""
    from threadpoolctl import threadpool_limits

    def table():
        return ex.data_release_table(
            ma_setup, epsilons=[0.5], reps=60, seed=8, mechanisms=["laplace"], n_boot=300
        )

    with threadpool_limits(limits=1, user_api="blas"):
        one = table()
    with threadpool_limits(limits=2, user_api="blas"):
        two = table()
    pd.testing.assert_frame_equal(one, two, check_exact=True)
