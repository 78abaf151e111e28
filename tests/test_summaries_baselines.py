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


LAPLACE = dict(printed_bound=[5.0, 5.0], true_alpha=[2.0, 1.0], simulated_mean=[3.0, 2.0],
               simulated_sd=[0.5, 0.5], replicates=3)  # fmt: skip


def test_laplace_alpha_compares_the_paper_at_its_own_repetitions():
    from dadp_lite.paper import PAPER_REPS

    out = s.laplace_alpha(**LAPLACE, paper=[3.1, float("nan")], reps=PAPER_REPS)
    assert out["status-alpha-laplace-bound"] == "loose"  # 5 against 1: far above
    assert out["alpha_noise_word"] == out["status-laplace-alpha-noise"] == "reproduced"
    assert out["z_paper_max"] == pytest.approx(0.1 / (0.5 * (1 + 1 / 3) ** 0.5))
    far = s.laplace_alpha(**LAPLACE, paper=[30.0, float("nan")], reps=PAPER_REPS)
    assert far["alpha_noise_word"] != "reproduced"


def test_laplace_alpha_at_other_repetitions_is_not_compared():
    out = s.laplace_alpha(**LAPLACE, paper=[3.1, 2.2], reps=7)
    assert out["alpha_noise_word"] == s.NOT_COMPARED
    assert "status-laplace-alpha-noise" not in out and "z_paper_max" in out


def test_laplace_alpha_without_printed_values_has_no_z():
    out = s.laplace_alpha(**LAPLACE, paper=[float("nan")] * 2, reps=200)
    assert out["alpha_noise_word"] == s.NOT_COMPARED and "z_paper_max" not in out


def test_laplace_alpha_bound_below_the_truth_is_wrong():
    out = s.laplace_alpha(**{**LAPLACE, "printed_bound": [1.0, 1.0]}, paper=[3.0, 2.0], reps=7)
    assert out["status-alpha-laplace-bound"] == "wrong"
