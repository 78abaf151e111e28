"""dadp_lite.summaries: plain glue values, refused values named by their key."""

import math

import numpy as np
import pytest

from dadp_lite.summaries import plain_values


def test_plain_values_converts_numpy_scalars():
    values = plain_values({"a": np.float64(0.5), "b": np.int64(3), "c": "loose"})
    assert values == {"a": 0.5, "b": 3, "c": "loose"}
    assert type(values["a"]) is float and type(values["b"]) is int


@pytest.mark.parametrize("bad", [math.nan, math.inf, [1, 2], None])
def test_plain_values_names_the_key_of_a_bad_value(bad):
    with pytest.raises((TypeError, ValueError), match="^x: "):
        plain_values({"x": bad})


def test_plain_values_refuses_an_empty_name():
    with pytest.raises(TypeError, match="glue name"):
        plain_values({"": 1.0})
