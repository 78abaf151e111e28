"""dadp_lite.summaries.swapping_privacy: one and several items, bad input named."""

from __future__ import annotations

import pytest

from dadp_lite.summaries import swapping_privacy


def test_one_attribute_and_one_size_stand_alone():
    assert swapping_privacy.settings(["race"], [9]) == {"sw-qi": "race", "sw-enum-nq": "9"}


def test_several_attributes_cross_and_sizes_list_with_and():
    out = swapping_privacy.settings(["race", "sex"], [2, 3, 4])
    assert out == {"sw-qi": "race x sex", "sw-enum-nq": "2, 3 and 4"}
    assert swapping_privacy.settings(["race"], [2, 3])["sw-enum-nq"] == "2 and 3"


@pytest.mark.parametrize(
    ("qi", "sizes", "error", "match"),
    [
        ([], [2], ValueError, "qi must be a non-empty list"),
        ("race", [2], ValueError, "qi must be a non-empty list"),
        ([1], [2], TypeError, "qi: attribute names"),
        (["race"], [], ValueError, "enum_n_q must be a non-empty"),
        (["race"], [2.5], TypeError, "enum_n_q: sizes must be integers"),
    ],
)
def test_bad_input_is_named(qi, sizes, error, match):
    with pytest.raises(error, match=match):
        swapping_privacy.settings(qi, sizes)
