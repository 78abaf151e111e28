"""dadp_lite.summaries.privacy_audits: the audit chapter's numbers and verdicts, both ways."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dadp_lite.summaries import privacy_audits as pa


def _wrong(certified, needed):
    return pd.DataFrame(
        {
            "mechanism": "dp_swapping",
            "epsilon": [0.5, 1.0, 2.0],
            "certified wrong": certified,
            "trials per side needed": needed,
        }
    )


def test_swapping_refutations_count_the_certified_and_the_trials_still_needed():
    some = pa.swapping_refutation_values(_wrong([True, True, False], [0, 0, 5e6]), 1000)
    assert some == {"aud-sw-needed-max": 5e6}
    none = pa.swapping_refutation_values(_wrong([False] * 3, [np.inf] * 3), 1000)
    assert none["aud-sw-needed-max"] == 1000.0  # no finite count: the audit's own


def test_discrete_gaussian_values_are_nan_where_nothing_is_certified():
    curves = pd.DataFrame(
        {
            "mechanism": "discrete_gaussian",
            "epsilon": [1.0, 2.0, 3.0],
            "printed": [0.5, 0.9999, 0.99999],
            "exact": [0.1, 0.3, 0.2],
        }
    )
    wrong = pd.DataFrame(
        {"mechanism": "discrete_gaussian", "epsilon": [1.0, 2.0], "certified wrong": [False, True]}
    )
    values = pa.discrete_gaussian_values(wrong, curves)
    assert values == {"aud-dg-peak": 2.0, "aud-dg-eps-min": 2.0, "aud-dg-certified": 1}
    none = pa.discrete_gaussian_values(wrong.assign(**{"certified wrong": False}), curves)
    assert math.isnan(none["aud-dg-eps-min"]) and none["aud-dg-certified"] == 0


def test_traditional_tightness_and_fraction_values():
    trad = pd.DataFrame({"delta_lower_figure": [0.99, 0.995], "trials needed": [100, 4000]})
    assert pa.traditional_values(trad) == {"aud-trad-needed": 4000.0}
    tight = pd.DataFrame(
        {"trials per side": [10, 1000, 100], "fraction of epsilon": [0.1, 0.9, 0.5]}
    )
    assert pa.tightness_values(tight) == {"aud-lap-trials": 1000, "aud-lap-fraction": 0.9}
    fractions = pd.DataFrame({0.5: [0.2, np.nan], 1.0: [0.8, 0.6]})
    assert pa.fraction_values(fractions) == {"aud-fraction-min": 0.2, "aud-fraction-median": 0.6}


def test_tightness_check_and_bug_values():
    assert pa.tightness_check_values(True) == {"aud-tight-check": "ran"}
    assert pa.tightness_check_values(False) == {"aud-tight-check": "skipped"}
    assert set(pa.TIGHTNESS_VERDICTS) == {"ran", "skipped"}
    buggy = pd.DataFrame({"delta (figure)": [0.25, 1.0]}, index=["data threshold", "shared noise"])
    assert pa.bug_values(buggy) == {"aud-bug-data-threshold": 0.25, "aud-bug-shared-noise": 1.0}
