"""What the DP k-anonymity bias chapter measured, as glue values: the parts of its alpha.

The chapter's findings (the bias theorem, the remark on small epsilon) are glued by
:func:`dadp_lite.errata.glue_findings`; this module returns the numbers of the chapter's
own decomposition of alpha, never sentences.
"""

from __future__ import annotations

import pandas as pd

from dadp_lite.data import dataset_label

__all__ = ["alpha_parts_values"]


def alpha_parts_values(alpha_parts: pd.DataFrame, n_epsilons: int) -> dict:
    """Our alpha taken apart. ``alpha_parts`` has one row per dataset and epsilon (the
    first dataset's ``n_epsilons`` rows first) with alpha, the smallest-bias cell's count,
    thinning and reconstruction, the largest bias and the indicator alpha. Returns the
    first dataset's parts at its first and last epsilon (losses as positive numbers) and
    the largest indicator alpha; an IndexError if ``alpha_parts`` has fewer rows."""
    first, last = alpha_parts.iloc[0], alpha_parts.iloc[n_epsilons - 1]
    return {
        "alpha_first": float(first["alpha"]),
        "alpha_first_dataset": dataset_label(first["dataset"]),
        "alpha_first_eps": float(first["epsilon"]),
        "alpha_first_thin": float(-first["min cell: thinning"]),
        "alpha_first_recon": float(-first["min cell: reconstruction"]),
        "alpha_first_count": float(first["min cell: count"]),
        "alpha_last_eps": float(last["epsilon"]),
        "alpha_last_thin": float(-last["min cell: thinning"]),
        "alpha_last_recon": float(-last["min cell: reconstruction"]),
        "alpha_last_max": float(last["max cell: bias"]),
        "indicator_alpha_max": float(alpha_parts["indicator alpha"].max()),
    }
