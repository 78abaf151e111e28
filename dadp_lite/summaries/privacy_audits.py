"""What the privacy-audit chapter found, as glue values.

Each function takes one of the chapter's result tables and returns ``{glue name: value}``:
the verdicts on the printed deltas, what the audits refute, what the traditional methods
leak, and how tight the audits are.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dadp_lite import errata
from dadp_lite.theory.baselines import discrete_gaussian_vacuous_from

__all__ = [
    "bug_values",
    "discrete_gaussian_values",
    "fraction_values",
    "swapping_refutation_values",
    "tightness_check_values",
    "tightness_values",
    "traditional_values",
    "verdict_values",
]


def verdict_values(verdicts: pd.DataFrame) -> dict:
    """The status word of every judged claim (``aud-status-<mechanism>-<claim>``; columns
    mechanism, claim, status), and the errata's findings it settles: the swapping theorem
    (DP swapping's printed delta) and the discrete Gaussian's table column (its reading)."""
    values = {f"aud-status-{r.mechanism}-{r.claim}": r.status for r in verdicts.itertuples()}
    values[errata.status_key("swapping-cell-privacy")] = values["aud-status-dp_swapping-printed"]
    values[errata.status_key("dg-delta-column")] = values["aud-status-discrete_gaussian-reading"]
    return values


def swapping_refutation_values(wrong: pd.DataFrame, trials: int) -> dict:
    """DP swapping's rows of the refutation table (columns mechanism, epsilon, "certified
    wrong", "trials per side needed"): at how many grid values of epsilon the audit proves
    the printed delta wrong, up to which epsilon, and the most trials per side a refutation
    still missing would need (``trials``, the audit's own count, if none is finite)."""
    rows = wrong[wrong["mechanism"] == "dp_swapping"]
    certified = rows[rows["certified wrong"]]
    needed = rows.loc[~rows["certified wrong"], "trials per side needed"]
    finite = needed[np.isfinite(needed)]
    return {
        "aud-sw-n-certified": len(certified),
        "aud-sw-n-grid": len(rows),
        "aud-sw-eps-max": float(certified["epsilon"].max()) if len(certified) else 0.0,
        "aud-sw-needed-max": float(finite.max()) if len(finite) else float(trials),
    }


def discrete_gaussian_values(wrong: pd.DataFrame, curves: pd.DataFrame, gap: float) -> dict:
    """The discrete Gaussian: the epsilon from which its printed delta is vacuous (within
    ``gap`` of 1; :func:`~dadp_lite.theory.discrete_gaussian_vacuous_from`, the same value
    as chapter 3 and the errata), the epsilon where the exact curve (columns mechanism,
    epsilon, exact) peaks, and the smallest epsilon at which the audit proves the tables'
    column wrong: NaN where there is none (glue it with ``myst_nb.glue``:
    :func:`dadp_lite.summaries.glue_all` refuses NaN)."""
    curve = curves[curves["mechanism"] == "discrete_gaussian"]
    rows = wrong[wrong["mechanism"] == "discrete_gaussian"]
    certified = rows.loc[rows["certified wrong"], "epsilon"]
    return {
        "aud-dg-vacuous": discrete_gaussian_vacuous_from(gap),
        "aud-dg-peak": float(curve.loc[curve["exact"].idxmax(), "epsilon"]),
        "aud-dg-eps-min": float(certified.min()) if len(certified) else float("nan"),
    }


def traditional_values(trad: pd.DataFrame) -> dict:
    """The traditional methods' audits (columns delta_lower_figure, "trials needed"): the
    smallest delta certified, and the most trials per side a target takes."""
    return {
        "aud-trad-min": float(trad["delta_lower_figure"].min()),
        "aud-trad-needed": float(trad["trials needed"].max()),
    }


def tightness_values(tightness: pd.DataFrame) -> dict:
    """The tightness study's largest trial count (columns "trials per side", "fraction of
    epsilon"): the count, and the share of Laplace's epsilon certified there."""
    largest = int(np.argmax(tightness["trials per side"]))
    return {
        "aud-lap-trials": int(tightness["trials per side"].iloc[largest]),
        "aud-lap-fraction": float(tightness["fraction of epsilon"].iloc[largest]),
    }


def tightness_check_values(designed: bool) -> dict:
    """Whether the tightness check ran (``aud-tight-check``): it runs only inside its
    design (shortfall small enough, expected counts large enough)."""
    return {"aud-tight-check": "ran" if designed else "was skipped, being outside its design"}


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
