"""Chapter 04's summaries (dadp_lite.summaries.cell_suppression_privacy)."""

from __future__ import annotations

import pytest

from dadp_lite import errata
from dadp_lite.summaries import cell_suppression_privacy as s


@pytest.mark.parametrize(
    ("values", "text"),
    [([7], "7"), ([2, 4], "2 and 4"), ([2, 3, 4], "2, 3 and 4"), ((0.5, 2.0), "0.5 and 2")],
)
def test_listed(values, text):
    assert s.listed(values) == text


@pytest.mark.parametrize("values", [[], "234"])
def test_listed_refuses_an_empty_sequence_or_a_string(values):
    with pytest.raises(ValueError):
        s.listed(values)


def test_theorem_on_data_vacuous_and_not():
    theorem = errata.delta_status(0.9, 0.5)
    vacuous = s.theorem_on_data(theorem, 1 - 1e-9)
    assert vacuous["cs-priv-theorem-qualifier"] == "vacuous on real data"
    assert vacuous["status-cs-privacy-theorem"] == theorem.word
    assert (
        s.theorem_on_data(theorem, 0.5)["cs-priv-theorem-qualifier"] == "not vacuous on real data"
    )


def test_theorem_on_data_refuses_a_word():
    with pytest.raises(TypeError, match="Status"):
        s.theorem_on_data("loose", 0.5)
