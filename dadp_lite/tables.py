"""Tables a reader is meant to read: our numbers beside the paper's, in the paper's layout."""

from __future__ import annotations

import pandas as pd

from dadp_lite.registry import get

__all__ = ["display_release_table"]


def _with_interval(table: pd.DataFrame, stat: str, digits: int) -> pd.Series:
    def fmt(column: str) -> pd.Series:
        return table[column].map(lambda v: f"{v:.{digits}f}")

    return fmt(stat) + " [" + fmt(f"{stat}_lo") + ", " + fmt(f"{stat}_hi") + "]"


def display_release_table(table: pd.DataFrame) -> pd.DataFrame:
    """A :func:`dadp_lite.experiments.compare_with_paper` table in the paper's layout, ours
    beside the paper's."""
    return pd.DataFrame(
        {
            "mechanism": table["mechanism"].map(lambda name: get(name).label),
            "epsilon": table["epsilon"],
            "delta (formula)": table["delta_paper"].round(3),
            "delta printed": table["paper_delta"],
            "delta exact": table["delta_exact"].round(4),
            "adjacency": table["delta_adjacency"],
            "L1 bias [95% CI]": _with_interval(table, "bias_l1", 1),
            "L1 exact": table["bias_l1_exact"].round(1),
            "L1 paper": table["paper_bias_l1"],
            "L1 ratio": table["ratio_bias_l1"].round(2),
            "alpha [95% CI]": _with_interval(table, "alpha", 2),
            "alpha exact": table["alpha_exact"].round(2),
            "alpha exact + floor": table["alpha_expected_empirical"].round(2),
            "alpha paper": table["paper_alpha"],
        }
    )
