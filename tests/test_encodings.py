"""dadp_lite.experiments.encodings: the search for the paper's histogram, and the rounded
Laplace reading it uses.

Statistical checks: each compares a Monte Carlo mean with an exact value, with the
standard error of that mean, against ``z_limit(n_tests)`` (family-wise false failure 1e-6
over the comparisons of the test), so no seed fails them by chance.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import dadp_lite as dl
from dadp_lite.experiments import encodings as en
from dadp_lite.experiments.tables import expected_abs_normal
from dadp_lite.theory import baselines

COUNTS = np.array([0, 1, 2, 3, 7, 40])


# ----------------------------------------------------------- rounded Laplace moments
@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 4.0, 50.0])
def test_rounded_laplace_moments_match_direct_summation(epsilon):
    """Sum over every value of round(eta) (tails beyond +-60 scales are below 1e-26)."""
    bias, variance = baselines.projected_rounded_laplace_moments(COUNTS, epsilon=epsilon)
    scale = 2 / epsilon
    j = np.arange(-math.ceil(60 * scale) - 50, math.ceil(60 * scale) + 51)
    pmf = stats.laplace.cdf(j + 0.5, scale=scale) - stats.laplace.cdf(j - 0.5, scale=scale)
    released = np.maximum(COUNTS[:, None] + j[None, :], 0)
    mean = released @ pmf
    np.testing.assert_allclose(bias, mean - COUNTS, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(variance, released**2 @ pmf - mean**2, rtol=1e-10, atol=1e-12)


def test_rounded_laplace_moments_match_simulation():
    """The sampler (projected Laplace, then rounding) against the closed forms: per cell,
    the mean release and the mean squared release, each a z-test with its standard error
    (plug-in for the squares; 2 x 6 cells x 2 epsilons comparisons)."""
    rng = dl.make_rng(20230817)
    reps = 200_000
    limit = dl.z_limit(2 * COUNTS.size * 2)
    for epsilon in (0.5, 4.0):
        released = np.rint(dl.laplace(COUNTS, epsilon=epsilon, rng=rng, reps=reps, project=True))
        bias, variance = baselines.projected_rounded_laplace_moments(COUNTS, epsilon=epsilon)
        z_mean = (released.mean(0) - COUNTS - bias) / np.sqrt(variance / reps)
        second = released**2
        expected_second = variance + (COUNTS + bias) ** 2
        z_second = (second.mean(0) - expected_second) / (second.std(0, ddof=1) / math.sqrt(reps))
        assert np.abs(z_mean).max() < limit
        assert np.abs(z_second).max() < limit


def test_rounding_lowers_an_empty_cells_bias_only_at_large_epsilon():
    for epsilon, low, high in [(0.5, 0.99, 1.0), (4.0, 0.8, 0.9)]:
        rounded = baselines.projected_rounded_laplace_moments([0], epsilon=epsilon)[0][0]
        plain = baselines.projected_laplace_bias([0], epsilon=epsilon)[0]
        assert low < rounded / plain < high


# ------------------------------------------------------------ expected statistic
def test_expected_statistic_without_noise_is_the_l1_norm():
    bias = np.array([-2.0, 0.0, 3.5])
    assert en.expected_statistic(bias, np.zeros(3), 200) == (5.5, 0.0)


def test_expected_statistic_matches_a_simulated_statistic():
    """E||b + noise/sqrt(R)||_1 and its spread, against 20,000 simulated statistics: the
    mean within z_limit(2) standard errors; the SD within 5% (its relative SE is 0.5%)."""
    rng = dl.make_rng(7)
    bias = np.concatenate([np.zeros(50), np.linspace(-3, 3, 50)])
    variance = np.linspace(0.5, 40, 100)
    reps, runs = 200, 20_000
    expected, sd = en.expected_statistic(bias, variance, reps)
    draws = bias + rng.standard_normal((runs, bias.size)) * np.sqrt(variance / reps)
    statistic = np.abs(draws).sum(axis=1)
    assert abs(statistic.mean() - expected) < dl.z_limit(2) * sd / math.sqrt(runs)
    assert abs(statistic.std(ddof=1) / sd - 1) < 0.05
    assert math.isnan(en.expected_statistic(bias, variance, reps, independent=False)[1])


# --------------------------------------------------------------------- the search
@pytest.fixture(scope="module")
def small_search():
    grid = en.candidate_encodings()
    chosen = [dl.Encoding(), dl.Encoding(universe="observed_values"),
              dl.Encoding(universe="observed_cells"), dl.Encoding(age_rule="quantile")]  # fmt: skip
    return en.encoding_search(["ma2019"], {e.label: grid[e.label] for e in chosen})


def test_the_search_on_one_dataset_has_one_row_per_configuration(small_search):
    assert len(small_search) == 4 * len(en.SEARCH_COLUMNS) * len(dl.PAPER_EPSILONS)
    assert set(small_search["dataset"]) == {"ma2019"}
    cells = small_search.groupby("universe")["n_cells"].first()
    assert cells["full"] == 540 and cells["observed_values"] == 480
    assert cells["observed_cells"] == (dl.Dataset.load("ma2019").histogram.counts > 0).sum()
    np.testing.assert_allclose(small_search["ratio"],
                               small_search["expected"] / small_search["paper"])  # fmt: skip


def test_the_search_uses_the_registrys_exact_bias_and_the_papers_numbers(small_search):
    hist = dl.Dataset.load("ma2019").histogram
    default = small_search[small_search["encoding"] == dl.Encoding().label]
    for row in default.itertuples():
        paper = dl.paper.paper_value("ma2019", en.PAPER_COLUMN[row.column], row.epsilon,
                                     "l1_bias")  # fmt: skip
        assert row.paper == paper
        if row.column in ("laplace", "dp_cell_suppression", "dp_swapping"):
            exact = np.abs(dl.registry.get(row.column).bias(hist, epsilon=row.epsilon)).sum()
            assert row.bias_l1_exact == pytest.approx(exact, rel=1e-12)
        assert row.expected >= row.bias_l1_exact  # the Monte Carlo floor only adds


def test_the_expected_statistic_is_exact_where_the_module_says_so(small_search):
    """Laplace: the exact mean absolute error (theory.mean_deviation), which the normal
    model of chapter 12 approximates (within 0.5% on MA); cell suppression: the exact l1
    bias, no floor at all; swapping: the normal model."""
    hist = dl.Dataset.load("ma2019").histogram
    default = small_search.query("encoding == @dl.Encoding().label")
    for row in default.itertuples():
        bias, variance = en.bias_moments(hist, row.column, epsilon=row.epsilon, k=6, qi=["race"])
        normal = expected_abs_normal(bias, np.sqrt(variance / dl.PAPER_REPS)).sum()
        assert (row.method == "exact") is (row.column in en.EXACT_COLUMNS)
        if row.column == "dp_cell_suppression":
            assert row.expected == pytest.approx(row.bias_l1_exact, rel=1e-12)
        elif row.column == "dp_swapping":
            assert row.expected == pytest.approx(normal, rel=1e-12)
        else:
            exact = dl.theory.projected_laplace_mean_abs_error(
                hist.counts, epsilon=row.epsilon, reps=dl.PAPER_REPS,
                rounded=row.column == "laplace_rounded").sum()  # fmt: skip
            assert row.expected == pytest.approx(exact, rel=1e-12)
            assert row.expected == pytest.approx(normal, rel=5e-3)


def test_the_swapping_sd_is_the_linear_statistics_sd_by_simulation():
    """The rerun sd of sum_i sign(b_i) (mean_i - x_i) for DP swapping on MA (QI race) at
    epsilon 1, against the sample sd of 4,000 simulated one-release statistics: the ratio
    of sample to exact variance, (n - 1) s^2 / sigma^2 ~ chi2(n - 1) for a normal
    statistic (a sum over 60 independent groups), within the chi-square limits at 1e-6."""
    hist = dl.Dataset.load("ma2019").histogram
    bias = dl.registry.get("dp_swapping").bias(hist, epsilon=1.0, qi=("race",))
    weights = np.sign(bias)
    exact = en.swapping_linear_variance(hist, weights, epsilon=1.0, qi=("race",))
    n = 4000
    released = dl.registry.get("dp_swapping").release(
        dl.Dataset.load("ma2019"), rng=dl.make_rng(11), reps=n, epsilon=1.0, qi=("race",)
    )
    sample = (released @ weights).var(ddof=1)
    low, high = stats.chi2.ppf([0.5e-6, 1 - 0.5e-6], n - 1) / (n - 1)
    assert low < sample / exact < high


def test_swapping_is_not_defined_on_observed_cells(small_search):
    rows = small_search.query("universe == 'observed_cells' and column == 'dp_swapping'")
    assert rows["expected"].isna().all()
    others = small_search.query("universe != 'observed_cells'")
    assert others["expected"].notna().all()


def test_the_paper_reading_has_the_smallest_score(small_search):
    reading = en.paper_reading(small_search)
    part = small_search[small_search["column"].isin(en.CRITERION_COLUMNS)]
    scores = part.assign(s=part["log_ratio"].abs()).groupby("encoding")["s"].max()
    assert reading["encoding"].iloc[0] == scores.idxmin()
    assert reading["score"].iloc[0] == pytest.approx(scores.min())
    assert reading["default_score"].iloc[0] == pytest.approx(scores[dl.Encoding().label])
    assert reading["runner_up_score"].iloc[0] >= reading["score"].iloc[0]
    assert reading["margin"].iloc[0] == pytest.approx(
        reading["runner_up_score"].iloc[0] - reading["score"].iloc[0]
    )
    assert 0 <= reading["share"].iloc[0] <= 1


def test_the_column_summary_judges_a_column_out_of_sample(small_search):
    """``reproduced`` uses the encoding chosen on the other criterion column, never the
    column itself; ``best_within`` is the in-sample fit."""
    summary = en.column_summary(small_search, n_boot=50).set_index("column")
    assert len(summary) == len(en.SEARCH_COLUMNS)
    printed = small_search.dropna(subset=["ratio"])
    score = printed.assign(s=printed["log_ratio"].abs()).groupby(["column", "encoding"])["s"].max()
    chosen_on_cs = score["dp_cell_suppression"].idxmin()
    assert summary.loc["laplace_rounded", "held_out_encoding"] == chosen_on_cs
    assert summary.loc["laplace_rounded", "held_out_score"] == pytest.approx(
        score["laplace_rounded"][chosen_on_cs]
    )
    within = math.log1p(en.REPRODUCED_WITHIN)
    assert (summary["reproduced"] == (summary["held_out_score"] <= within)).all()
    assert (summary["best_within"] == (summary["score"] <= within)).all()
    assert (summary["score"] <= summary["held_out_score"] + 1e-12).all()  # in-sample is optimistic


def test_tied_encodings_give_the_same_expected_values_and_share_the_bootstrap():
    """Two labels for one encoding tie exactly: the column cannot tell them apart, the
    runner-up is a different histogram, and the pair wins every bootstrap replicate."""
    grid = en.candidate_encodings()
    same = dl.Encoding()
    twin = dl.Encoding(universe="observed_values")  # same histogram on TX (tied there)
    other = dl.Encoding(age_rule="quantile")
    search = en.encoding_search(["tx2019"], {e.label: grid[e.label] for e in (same, twin, other)},
                                columns=["dp_cell_suppression"])  # fmt: skip
    summary = en.column_summary(search, n_boot=200).iloc[0]
    assert summary["tied"] == 2 and summary["runner_up"] == other.label
    assert summary["share"] == 1.0 and bool(summary["identified"])


def test_the_ratio_table_is_encoding_by_column(small_search):
    table = en.ratio_table(small_search)
    assert table.shape == (4, len(en.SEARCH_COLUMNS) * len(dl.PAPER_EPSILONS))
    assert table.columns.names == ["dataset", "column", "epsilon"]


def test_every_candidate_encodings_histogram_counts_every_record():
    parsed = dl.data.parse_excerpt(dl.load_raw("ma2019"))
    for label, encoding in en.candidate_encodings().items():
        hist = dl.Dataset.from_raw(parsed, encoding=encoding).histogram
        assert hist.total == dl.DATASETS["ma2019"].rows, label


def test_the_candidates_are_108_encodings_with_the_default_first():
    grid = en.candidate_encodings()
    assert len(grid) == 108
    assert next(iter(grid.values())) == dl.Encoding()


def test_ratio_label_names_the_ratio_in_its_order(small_search):
    top, bottom = en.RATIO
    np.testing.assert_allclose(small_search["ratio"], small_search[top] / small_search[bottom])
    assert en.RATIO_LABEL.split(" / ") == ["expected", "printed"]  # paper = the printed value


def test_the_paper_reading_of_a_dataset_is_a_candidate_no_worse_than_the_default():
    reading = en.paper_reading_encoding("tx2019")
    assert reading in en.candidate_encodings().values()
    search = en.encoding_search(["tx2019"], {e.label: e for e in {reading, dl.Encoding()}},
                                columns=en.CRITERION_COLUMNS)  # fmt: skip
    score = search.assign(s=search["log_ratio"].abs()).groupby("encoding")["s"].max()
    assert score[reading.label] <= score[dl.Encoding().label]


def test_a_dataset_the_paper_does_not_print_has_no_reading(tmp_path):
    path = dl.write_excerpt(dl.load_records("ma2019"), tmp_path / "mine.csv")
    search = en.encoding_search([path], {dl.Encoding().label: dl.Encoding()})
    assert search["paper"].isna().all() and search["expected"].notna().all()
    with pytest.raises(ValueError, match="prints none"):
        en.paper_reading(search)
    with pytest.raises(ValueError, match="prints none"):
        en.column_summary(search)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: en.encoding_search([]), ValueError, "datasets"),
        (lambda: en.encoding_search(["ma2019"], {"x": "fixed"}), TypeError, "encodings"),
        (lambda: en.encoding_search(["ma2019"], columns=["dg"]), ValueError, "columns"),
        (lambda: en.encoding_search(["ma2019"], reps=0), ValueError, "reps"),
        (lambda: en.encoding_search(["ma2019"], epsilons=[0]), ValueError, "epsilon"),
        (lambda: en.paper_reading(pd.DataFrame()), ValueError, "search"),
        (lambda: en.column_summary(pd.DataFrame()), ValueError, "search"),
    ],
)
def test_bad_search_arguments_are_refused(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_bad_criterion_and_tolerance_are_refused(small_search):
    with pytest.raises(ValueError, match="criterion"):
        en.paper_reading(small_search, criterion=["laplace", "nope"])
    with pytest.raises(ValueError, match="criterion"):
        en.paper_reading(small_search, criterion=[])
    with pytest.raises(ValueError, match="tolerance"):
        en.column_summary(small_search, tolerance=1.5)
    with pytest.raises(ValueError, match="n_boot"):
        en.column_summary(small_search, n_boot=0)


# ------------------------------------------------------------ DP swapping's alpha
def test_column_labels_name_every_searched_column():
    assert set(en.COLUMN_LABELS) == {*en.SEARCH_COLUMNS, en.SWAPPING_ALPHA}


@pytest.mark.parametrize("mechanism", ["laplace", "dp_swapping"])
def test_expected_alpha_is_the_full_integral_on_a_window(mechanism):
    """The windowed integral against theory.baselines.expected_empirical_alpha (the whole
    real line), on MA at two epsilons: a Laplace alpha made of the floor, a swapping alpha
    made of a few large cells."""
    hist = dl.Dataset.load("ma2019").histogram
    for epsilon in (0.5, 4.0):
        bias, variance = en.bias_moments(hist, mechanism, epsilon=epsilon, k=6, qi=["race"])
        full = baselines.expected_empirical_alpha(bias, np.sqrt(variance / 200))
        assert en.expected_alpha(bias, variance, 200) == pytest.approx(full, rel=1e-9)


def test_expected_alpha_matches_a_simulated_range_and_needs_no_noise():
    rng = dl.make_rng(3)
    bias, variance = np.linspace(-2, 5, 40), np.linspace(1, 30, 40)
    draws = bias + rng.standard_normal((20_000, 40)) * np.sqrt(variance / 50)
    ranges = np.ptp(draws, axis=1)
    z = (ranges.mean() - en.expected_alpha(bias, variance, 50)) / (
        ranges.std(ddof=1) / math.sqrt(ranges.size)
    )
    assert abs(z) < dl.z_limit(1)
    assert en.expected_alpha(bias, np.zeros(40), 50) == pytest.approx(7.0)


def test_alpha_search_rows_and_the_largest_cell():
    chosen = {e.label: e for e in (dl.Encoding(), dl.Encoding(universe="observed_cells"),
                                   dl.Encoding(age_edges=tuple(range(0, 101, 10))))}  # fmt: skip
    search = en.alpha_search(["ma2019"], chosen)
    assert set(search["universe"]) == {"full"}  # observed cells have no race: skipped
    assert len(search) == 2 * len(dl.PAPER_EPSILONS)
    assert (search["column"] == en.SWAPPING_ALPHA).all()
    assert (search["expected"] >= search["alpha_exact"]).all()  # the floor only adds
    default = search[search["encoding"] == dl.Encoding().label]
    hist = dl.Dataset.load("ma2019").histogram
    spread = dl.theory.swapping_bias_spread(hist.to_qi_matrix(["race"]))
    for row in default.itertuples():
        assert row.alpha_exact == pytest.approx(spread.alpha(row.epsilon), rel=1e-12)
        assert row.paper == dl.paper.paper_value("ma2019", "dp_swapping", row.epsilon, "alpha")
    assert (default["largest"] == hist.counts.max()).all()
    summary = en.column_summary(search)
    assert summary["column"].tolist() == [en.SWAPPING_ALPHA]


def test_empty_results_carry_the_columns_the_real_ones_have(small_search):
    search, columns, reading = en.empty_results()
    assert len(search) == len(columns) == len(reading) == 0
    assert set(search.columns) <= set(small_search.columns)
    assert set(columns.columns) <= set(en.column_summary(small_search, n_boot=50).columns)
    assert set(reading.columns) <= set(en.paper_reading(small_search).columns)


def test_an_encoding_is_read_back_from_its_label_and_said_in_words():
    from dadp_lite.experiments.encodings import candidate_encodings

    for label, encoding in candidate_encodings().items():
        assert dl.Encoding.from_label(label) == encoding
        words = encoding.words
        assert "|" not in words and "9999999" not in words and "_" not in words
    assert dl.Encoding().words == (
        "20-year age groups from 0 to 100; income over 50,000, no income counted as 0; every cell"
    )
    with pytest.raises(ValueError, match="no encoding's label"):
        dl.Encoding.from_label("fixed 0-20 | > 1")
