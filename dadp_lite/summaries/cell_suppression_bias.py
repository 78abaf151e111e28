"""What the chapter on the bias of DP cell suppression found, as glue values."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dadp_lite import errata

__all__ = ["NOT_COMPARED", "empirical_alpha"]

#: The phrase glued when our empirical alpha is not set against the paper's.
NOT_COMPARED = "not compared (the paper's alpha is at its own k and repetitions)"


def empirical_alpha(
    ours: pd.Series, ours_se: pd.Series, paper: pd.Series, *, comparable: bool
) -> dict[str, str]:
    """Our empirical alpha of per-cell DP cell suppression against the paper's printed one.

    ``ours``, ``ours_se`` (bootstrap SE) and ``paper`` are indexed by epsilon. When the run
    is ``comparable`` (the paper's k and repetitions) and shares an epsilon with the paper,
    the errata's ``reproduced_status`` judges the shared epsilons with sqrt(2) times our SE
    as the spread of a difference of two runs; returns ``cs-bias-alpha-word`` (the word, or
    :data:`NOT_COMPARED`) and, when compared, the finding's status ``cs-empirical-alpha``.
    """
    for name, series in (("ours", ours), ("ours_se", ours_se), ("paper", paper)):
        if not isinstance(series, pd.Series):
            raise TypeError(f"{name} must be a pandas Series, got {type(series).__name__}")
    if not ours.index.equals(ours_se.index):
        raise ValueError("ours and ours_se must share one index (epsilon)")
    shared = ours.index.intersection(paper.index)
    if not comparable or len(shared) == 0:
        return {"cs-bias-alpha-word": NOT_COMPARED}
    status = errata.reproduced_status(ours[shared], paper[shared], np.sqrt(2) * ours_se[shared])
    return {"cs-bias-alpha-word": status.word, errata.status_key("cs-empirical-alpha"): status.word}
