"""What the alpha-fairness chapter measured, as glue values (numbers only).

Each function takes one of the chapter's result tables (or a row of one) and returns
``{glue name: value}``: the verification's worst ratios, the Monte Carlo floor of the
simulated Laplace alpha, and on how many datasets the swapping truth is exactly half its
bound. The chapter's findings (the bounds against the truth, the tightness remark) are
glued by :func:`dadp_lite.errata.glue_findings`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dadp_lite.data import dataset_label

__all__ = ["half_bound_values", "laplace_floor_values", "verification_values"]


def verification_values(verification: pd.DataFrame) -> dict:
    """The largest simulated-against-exact gaps, as shares of their Bernstein limits: per
    cell (``worst_cell_ratio``) and for the pair estimate of alpha (``worst_alpha_ratio``);
    above 1 the check fails."""
    return {
        "worst_cell_ratio": float(verification["largest gap / limit"].max()),
        "worst_alpha_ratio": float(verification["alpha gap / limit"].max()),
    }


def laplace_floor_values(row: Mapping[str, Any]) -> dict:
    """The Laplace row of the floor table (dataset, epsilon, alpha exact, simulated and
    predicted): its numbers, and the share of the simulated alpha that is Monte Carlo
    noise (``floor_share``, 1 - exact / simulated)."""
    exact, simulated = float(row["alpha exact"]), float(row["alpha simulated"])
    return {
        "lap_eps": float(row["epsilon"]),
        "lap_alpha_exact": exact,
        "lap_alpha_sim": simulated,
        "lap_alpha_pred": float(row["alpha predicted"]),
        "first_dataset_name": dataset_label(str(row["dataset"])),
        "floor_share": 1 - exact / simulated,
    }


def half_bound_values(half: pd.DataFrame) -> dict:
    """On how many datasets DP swapping's true alpha is exactly half the printed bound
    (``sw_half_n``: "printed / true" equal to 2, relative 1e-12) out of how many
    (``sw_half_datasets``); ``half`` has one row per dataset."""
    exactly = np.isclose(half["printed / true"], 2.0, rtol=1e-12, atol=0)
    return {"sw_half_n": int(exactly.sum()), "sw_half_datasets": len(half)}
