"""What the privacy-audit chapter's own analyses show, as numbers and verdicts.

Its findings (the traditional methods' leak, DP swapping audited) are computed once by
:mod:`dadp_lite.errata` from the shared audits (:func:`dadp_lite.errata.runs.audit_profiles`).
Each function here takes one of the chapter's result tables and returns ``{glue name:
value}``: numbers, and verdict keys for the chapter's phrasebooks, never sentences.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "TIGHTNESS_VERDICTS",
    "bug_values",
    "discrete_gaussian_values",
    "fraction_values",
    "swapping_refutation_values",
    "tightness_check_values",
    "tightness_values",
    "traditional_values",
]

#: The verdicts of :func:`tightness_check_values`.
TIGHTNESS_VERDICTS: tuple[str, ...] = ("ran", "skipped")


def swapping_refutation_values(wrong: pd.DataFrame, trials: int) -> dict:
    """DP swapping's rows of the refutation table (columns mechanism, "certified wrong",
    "trials per side needed"): the most trials per side a refutation still missing would
    need (``trials``, the audit's own count, if none is finite). How many are certified is
    the finding ``swapping-audit``."""
    rows = wrong[wrong["mechanism"] == "dp_swapping"]
    needed = rows.loc[~rows["certified wrong"].astype(bool), "trials per side needed"]
    finite = needed[np.isfinite(needed)]
    return {"aud-sw-needed-max": float(finite.max()) if len(finite) else float(trials)}


def discrete_gaussian_values(wrong: pd.DataFrame, curves: pd.DataFrame) -> dict:
    """The discrete Gaussian: the epsilon where the exact curve (columns mechanism,
    epsilon, exact) peaks (``aud-dg-peak``), and the smallest epsilon at which the audit
    proves the tables' column below the exact delta of the stated noise
    (``aud-dg-eps-min``: NaN where there is none; glue it with ``myst_nb.glue``, since
    :func:`dadp_lite.summaries.glue_all` refuses NaN), with ``aud-dg-certified`` (1 if
    there is one, else 0, a verdict for the chapter's phrasebook)."""
    curve = curves[curves["mechanism"] == "discrete_gaussian"]
    rows = wrong[wrong["mechanism"] == "discrete_gaussian"]
    certified = rows.loc[rows["certified wrong"].astype(bool), "epsilon"]
    return {
        "aud-dg-peak": float(curve.loc[curve["exact"].idxmax(), "epsilon"]),
        "aud-dg-eps-min": float(certified.min()) if len(certified) else float("nan"),
        "aud-dg-certified": int(len(certified) > 0),
    }


def traditional_values(trad: pd.DataFrame) -> dict:
    """The traditional methods' audits (column "trials needed"): the most trials per side
    a target takes. The delta they certify is the finding ``traditional-leak``."""
    return {"aud-trad-needed": float(trad["trials needed"].max())}


def tightness_values(tightness: pd.DataFrame) -> dict:
    """The tightness study's largest trial count (columns "trials per side", "fraction of
    epsilon"): the count, and the share of Laplace's epsilon certified there."""
    largest = int(np.argmax(tightness["trials per side"]))
    return {
        "aud-lap-trials": int(tightness["trials per side"].iloc[largest]),
        "aud-lap-fraction": float(tightness["fraction of epsilon"].iloc[largest]),
    }


def tightness_check_values(designed: bool) -> dict:
    """Whether the tightness check ran (``aud-tight-check``, one of
    :data:`TIGHTNESS_VERDICTS`): it runs only inside its design (shortfall small enough,
    expected counts large enough)."""
    return {"aud-tight-check": "ran" if designed else "skipped"}


def fraction_values(fractions: pd.DataFrame) -> dict:
    """The lowest and the median share of the exact value that an audit certifies, over
    every mechanism and epsilon with a share (a mechanism-by-epsilon table, NaN skipped)."""
    values = fractions.to_numpy(dtype=float)
    return {
        "aud-fraction-min": float(np.nanmin(values)),
        "aud-fraction-median": float(np.nanmedian(values)),
    }


def bug_values(buggy: pd.DataFrame) -> dict:
    """The delta certified for each buggy student mechanism (index: the bug's name;
    column "delta (figure)"), as ``aud-bug-<name with dashes>``."""
    return {
        f"aud-bug-{bug.replace(' ', '-')}": float(delta)
        for bug, delta in buggy["delta (figure)"].items()
    }
