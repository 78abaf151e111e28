"""Chapter 12's epsilon explorable: the exact profile over a grid of epsilon
(``dadp_lite.experiments.epsilon_profile``) and its HTML (``dadp_lite.interactive.explorable``)."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from dadp_lite.dataset import Dataset
from dadp_lite.experiments import (
    PROFILE_COLUMNS,
    baseline_exceptions,
    baselines_ahead,
    epsilon_grid,
    exact_profile,
)
from dadp_lite.histogram import Histogram
from dadp_lite.interactive import EXPLORABLE_CLASS, epsilon_explorable
from dadp_lite.registry import get
from dadp_lite.words import MISSING, number

# ------------------------------------------------------------------ the grid


def test_the_grid_holds_both_ends_and_lands_on_the_steps_exactly():
    grid = epsilon_grid(0.1, 4.0, 0.1)
    assert len(grid) == 40 and grid[0] == 0.1 and grid[-1] == 4.0
    assert 0.5 in grid and 1.0 in grid and 2.0 in grid  # the tables' epsilons, bit for bit
    assert list(epsilon_grid(1, 1, 0.5)) == [1.0]


@pytest.mark.parametrize(
    ("start", "stop", "step", "message"),
    [
        (0.0, 1.0, 0.1, "start"),
        (float("nan"), 1.0, 0.1, "start"),
        (0.1, float("inf"), 0.1, "stop"),
        (0.1, 1.0, -0.1, "step"),
        (1.0, 0.5, 0.1, "stop must be >= start"),
        (0.1, 1.0, 0.4, "whole number of steps"),
    ],
)
def test_a_bad_grid_is_refused_naming_the_argument(start, stop, step, message):
    with pytest.raises(ValueError, match=message):
        epsilon_grid(start, stop, step)


# ------------------------------------------------------------------ the profile


@pytest.fixture(scope="module")
def small():
    """A small dataset of three of the book's attributes (every table mechanism runs on it)."""
    counts = np.random.default_rng(7).integers(0, 30, 3 * 2 * 2)
    hist = Histogram(counts, ("race", "sex", "tenure"), ((1, 2, 3), (1, 2), (1, 2)))
    return Dataset.from_histogram(hist, name="small")


def test_the_profile_has_a_row_per_private_mechanism_and_epsilon(small):
    frame = exact_profile(small, epsilons=[0.5, 1.0], k=3, qi=["race"], ka_qi=["race", "sex"])
    assert tuple(frame.columns) == PROFILE_COLUMNS
    names = list(dict.fromkeys(frame["mechanism"]))
    assert names and all(get(n).private for n in names)
    assert len(frame) == 2 * len(names) and set(frame["epsilon"]) == {0.5, 1.0}
    assert (frame["delta_exact"].between(0, 1)).all()


def test_the_profile_reads_the_registry_s_own_exact_answers(small):
    """The values are the registry's delta and bias at the same settings (no other code)."""
    frame = exact_profile(small, epsilons=[0.7], k=3, qi=["race"], ka_qi=["race", "sex"])
    settings = {"k": 3, "qi": ("race",), "ka_qi": ("race", "sex")}
    for row in frame.itertuples():
        entry = get(row.mechanism)
        own = entry.select(settings)
        assert row.delta_exact == entry.delta(small.histogram, epsilon=0.7, **own)
        bias = entry.bias(small.histogram, epsilon=0.7, **own)
        if bias is None:  # no closed form (DP k-anonymity): delta only
            assert math.isnan(row.bias_l1_exact) and math.isnan(row.alpha_exact)
        else:
            assert row.bias_l1_exact == pytest.approx(np.abs(bias).sum(), rel=1e-12)
            assert row.alpha_exact == pytest.approx(bias.max() - bias.min(), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("epsilons", [[], [0.0], [float("nan")], [-1.0]])
def test_bad_epsilons_are_refused(small, epsilons):
    with pytest.raises(ValueError, match="epsilons"):
        exact_profile(small, epsilons=epsilons, k=3, qi=["race"])


def test_an_unknown_qi_is_refused(small):
    with pytest.raises(ValueError, match="qi"):
        exact_profile(small, epsilons=[1.0], k=3, qi=["colour"])


# ------------------------------------------------------------------ who is ahead


def _profile(rows):
    """A hand-made profile: (dataset, mechanism, epsilon, delta, bias, alpha)."""
    return pd.DataFrame(rows, columns=list(PROFILE_COLUMNS))


def test_the_baselines_are_ahead_only_where_both_beat_every_other_on_bias_and_alpha():
    nan = float("nan")
    frame = _profile([
        ("d", "laplace", 1.0, 0.0, 10.0, 1.0), ("d", "discrete_gaussian", 1.0, 0.1, 8.0, 0.8),
        ("d", "dp_cell_suppression", 1.0, 1.0, 20.0, 3.0),
        ("d", "dp_k_anonymity", 1.0, 0.6, nan, nan),  # no closed form: takes no part
        # at 0.1 cell suppression has less bias than Laplace, not than the discrete Gaussian
        ("d", "laplace", 0.1, 0.0, 50.0, 1.0), ("d", "discrete_gaussian", 0.1, 0.1, 5.0, 0.8),
        ("d", "dp_cell_suppression", 0.1, 1.0, 20.0, 3.0),
        # at 0.2 its alpha alone is smaller than the discrete Gaussian's
        ("d", "laplace", 0.2, 0.0, 10.0, 1.0), ("d", "discrete_gaussian", 0.2, 0.1, 8.0, 4.0),
        ("d", "dp_cell_suppression", 0.2, 1.0, 20.0, 3.0),
    ])  # fmt: skip
    ahead = baselines_ahead(frame).set_index("epsilon")["ahead"]
    assert ahead.to_dict() == {1.0: True, 0.1: False, 0.2: False}
    beaten = baseline_exceptions(frame)
    assert sorted(beaten["epsilon"]) == [0.1, 0.2]
    assert set(beaten["mechanism"]) == {"dp_cell_suppression"}


def test_a_profile_without_a_baseline_is_refused():
    frame = _profile([("d", "dp_cell_suppression", 1.0, 1.0, 20.0, 3.0)])
    with pytest.raises(ValueError, match="baseline"):
        baselines_ahead(frame)


# ------------------------------------------------------------------ the HTML


def _frame():
    nan = float("nan")
    return _profile([
        (d, m, e, delta, bias * (1 + i), alpha)
        for i, d in enumerate(["ma2019", "tx2019"])
        for e in (0.5, 1.0)
        for m, delta, bias, alpha in (
            ("laplace", 1.1e-15, 800 / e, 1 / e), ("dp_cell_suppression", 1.0, 1100.0, 4.2),
            ("dp_k_anonymity", 0.39 * e, nan, nan),
        )
    ])  # fmt: skip


def test_the_explorable_opens_at_its_start_with_every_value_formatted_once():
    frame = _frame()
    page = epsilon_explorable(frame, start=1.0, key="eps-x")._repr_html_()
    assert f'<figure class="{EXPLORABLE_CLASS}" id="eps-x">' in page
    slider = re.search(r'<input type="range"[^>]*>', page).group(0)
    assert 'min="0"' in slider and 'max="1"' in slider and 'value="1"' in slider
    rows = re.findall(r"<tr><th scope=\"row\">.*?</tr>", page)
    assert [re.sub(r"<[^>]+>", "", r.split("</th>")[0]) for r in rows] == [
        "Laplace", "DP cell suppression", "DP k-anonymity"]  # fmt: skip
    shown = [re.findall(r'class="dadp-explorable-value">([^<]*)<', r) for r in rows]
    assert shown[0] == ["&lt; 10\u207b\u00b9\u00b2", number(800.0, 3), number(1.0, 3)]
    assert shown[2] == [number(0.39, 3), MISSING, MISSING]
    data = json.loads(re.search(r"data = (\{.*?\});\n", page).group(1))
    assert data["eps"] == ["0.5", "1"]
    assert data["cells"]["tx2019"][0][0][1][0] == number(2 * 1600.0, 3)  # 800/0.5 on TX (x2)
    assert '<select id="eps-x-dataset">' in page  # two datasets: a dropdown


def test_bars_follow_the_values_delta_linear_bias_on_a_shared_log_scale():
    page = epsilon_explorable(_frame(), start=0.5, key="eps-x")._repr_html_()
    data = json.loads(re.search(r"data = (\{.*?\});\n", page).group(1))
    bars = {(e, m): data["cells"]["ma2019"][e][m] for e in (0, 1) for m in (0, 1)}
    assert bars[(0, 1)][0][1] == 1.0  # delta 1: a full bar
    # Laplace's bias halves from epsilon 0.5 to 1: its bar shrinks, on the log scale
    assert bars[(1, 0)][1][1] < bars[(0, 0)][1][1]
    assert data["cells"]["ma2019"][0][2][1] == ["\u2014", 0.0]  # no bias: no bar


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (lambda f: f.drop(columns="alpha_exact"), ValueError, "lacks the columns"),
        (lambda f: f.iloc[:0], ValueError, "has no rows"),
        (lambda f: f.to_dict(), TypeError, "DataFrame"),
    ],
)
def test_a_frame_that_is_no_profile_is_refused(change, error, message):
    with pytest.raises(error, match=message):
        epsilon_explorable(change(_frame()), start=1.0, key="eps-x")


def test_a_start_off_the_grid_or_a_bad_key_is_refused():
    with pytest.raises(ValueError, match="start"):
        epsilon_explorable(_frame(), start=0.7, key="eps-x")
    with pytest.raises(ValueError, match="key"):
        epsilon_explorable(_frame(), start=1.0, key="a b")
