"""dadp_lite.words: numbers and lists as a reader reads them."""

from __future__ import annotations

import pytest

from dadp_lite import words


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (0.5, 3, "0.5"),
        (2.0, 3, "2"),
        (0.123456, 3, "0.123"),
        (2.813e-08, 3, "2.81 \u00d7 10\u207b\u2078"),
        (1e-5, 2, "10\u207b\u2075"),
        (12750.4, 3, "12,750"),
        (139590.0, 4, "139,590"),
        (7.38905, 3, "7.39"),
        (0.9999999935, 3, "1"),
        (-0.00321, 2, "-0.0032"),
        (float("nan"), 3, words.MISSING),
    ],
)
def test_number_reads_as_a_person_writes_it(value, digits, text):
    assert words.number(value, digits) == text


def test_number_refuses_bad_input():
    with pytest.raises(ValueError, match="digits"):
        words.number(1.0, 0)
    with pytest.raises(TypeError, match="value"):
        words.number("1", 3)


def test_lists_read_as_prose():
    assert words.listing(["a"]) == "a"
    assert words.listing(["a", "b"]) == "a and b"
    assert words.listing([1, 2, 3]) == "1, 2 and 3"
    assert words.values([0.5, 1.0, 2.0, 4.0]) == "0.5, 1, 2 and 4"
    assert words.datasets(["ma2019", "tx2019", "national2019"]) == "MA, TX and Outlier"
    assert words.features(["race", "income_over_50k"]) == "race and income over 50,000"
    with pytest.raises(ValueError, match="empty"):
        words.listing([])
