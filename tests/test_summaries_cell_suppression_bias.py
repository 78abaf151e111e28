"""dadp_lite.summaries.cell_suppression_bias: both branches of every wording choice."""

from __future__ import annotations

import pandas as pd
import pytest

from dadp_lite.summaries import cell_suppression_bias as summary

EPS = [0.5, 1.0, 2.0]


def _series(values, index=EPS):
    return pd.Series(values, index=pd.Index(index, name="epsilon"), dtype=float)


def test_close_values_are_reproduced_and_set_the_finding_status():
    out = summary.empirical_alpha(
        _series([10.0, 8.0, 6.0]), _series([0.5] * 3), _series([10.2, 7.9, 6.1]), comparable=True
    )
    assert out == {"cs-bias-alpha-word": "reproduced", "status-cs-empirical-alpha": "reproduced"}


def test_values_many_standard_errors_apart_are_not_reproduced():
    out = summary.empirical_alpha(
        _series([10.0, 8.0, 6.0]), _series([0.01] * 3), _series([12.0, 8.0, 6.0]), comparable=True
    )
    assert out["cs-bias-alpha-word"] == "not reproduced"
    assert out["status-cs-empirical-alpha"] == "not reproduced"


def test_only_shared_epsilons_are_judged():
    paper = _series([10.0, 50.0], index=[0.5, 4.0])  # 4.0 is not ours: ignored
    out = summary.empirical_alpha(
        _series([10.0, 8.0, 6.0]), _series([0.5] * 3), paper, comparable=True
    )
    assert out["cs-bias-alpha-word"] == "reproduced"


@pytest.mark.parametrize(("comparable", "paper_index"), [(False, EPS), (True, [8.0, 16.0, 32.0])])
def test_not_comparable_or_no_shared_epsilon_says_so_without_a_status(comparable, paper_index):
    out = summary.empirical_alpha(
        _series([10.0, 8.0, 6.0]),
        _series([0.5] * 3),
        _series([99.0, 99.0, 99.0], index=paper_index),
        comparable=comparable,
    )
    assert out == {"cs-bias-alpha-word": summary.NOT_COMPARED}


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="paper must be a pandas Series"):
        summary.empirical_alpha(_series([1.0] * 3), _series([1.0] * 3), [1.0], comparable=True)
    with pytest.raises(ValueError, match="share one index"):
        summary.empirical_alpha(
            _series([1.0] * 3), _series([1.0] * 2, index=EPS[:2]), _series([1.0] * 3),
            comparable=True,
        )  # fmt: skip
