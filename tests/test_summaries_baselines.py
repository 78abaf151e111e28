"""Chapter 03's summaries (dadp_lite.summaries.baselines): both branches of each wording."""

from __future__ import annotations

import pytest

from dadp_lite import errata
from dadp_lite.summaries import baselines as s
from dadp_lite.theory import discrete_gaussian_delta_as_printed, discrete_gaussian_vacuous_from


def test_guarantee_on_a_grid_that_reaches_vacuity_names_the_computed_threshold():
    eps = [0.5, 1.0, 2.0, 4.0]
    out = s.dg_guarantee(eps, discrete_gaussian_delta_as_printed(eps), [0.01, 0.03, 0.1, 0.18])
    threshold = discrete_gaussian_vacuous_from(errata.VACUOUS_GAP)
    assert out["dg_vacuous_from"] == threshold and 1.9 < threshold < 2
    assert out["dg_guarantee_qualifier"] == f"vacuous from ε = {threshold:.2f}"
    assert out["status-dg-guarantee"] == "loose"  # delta = 1 against 0.18


def test_guarantee_on_a_grid_below_the_threshold_is_never_vacuous():
    eps = [0.5, 1.0]
    printed = discrete_gaussian_delta_as_printed(eps)
    out = s.dg_guarantee(eps, printed, printed)  # printed = exact: valid
    assert out["dg_guarantee_qualifier"] == "never vacuous on this grid"
    assert out["status-dg-guarantee"] == "valid"


def test_guarantee_below_the_exact_value_is_wrong():
    out = s.dg_guarantee([0.5], [0.1], [0.2])
    assert out["status-dg-guarantee"] == "wrong"


@pytest.mark.parametrize("arrays", [([0.5, 1.0], [0.1], [0.1]), ([], [], [])])
def test_guarantee_refuses_arrays_of_different_or_no_length(arrays):
    with pytest.raises(ValueError, match="one length"):
        s.dg_guarantee(*arrays)


def test_delta_column_below_the_exact_value_names_its_epsilons():
    out = s.dg_delta_column([0.5, 2.0, 4.0], [0.363, 0.017, 3e-4], [0.016, 0.097, 0.176],
                            round_off=5e-5)  # fmt: skip
    assert out["status-dg-delta-column"] == "wrong"
    assert out["column_below_eps"] == "2, 4"
    assert (out["column_last"], out["exact_last"], out["column_eps_last"]) == (3e-4, 0.176, 4.0)


def test_delta_column_within_its_round_off_is_not_below():
    out = s.dg_delta_column([1.0], [0.10], [0.10004], round_off=5e-5)
    assert out["column_below_eps"] == "no epsilon"
    assert out["status-dg-delta-column"] == "valid"


@pytest.mark.parametrize("round_off", [-1.0, float("nan")])
def test_delta_column_refuses_a_bad_round_off(round_off):
    with pytest.raises(ValueError, match="round_off"):
        s.dg_delta_column([1.0], [0.1], [0.1], round_off=round_off)
