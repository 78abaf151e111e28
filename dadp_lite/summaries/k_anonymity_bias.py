"""What the DP k-anonymity bias chapter found, as glue values.

Each function takes one of the chapter's result tables and returns ``{glue name: value}``:
how often Mondrian merges a large cell, how the paper's tables compare with ours and with
the bound every release obeys, and what our alpha is made of.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dadp_lite import errata
from dadp_lite.data import dataset_label
from dadp_lite.verification import z_limit

__all__ = ["alpha_parts_values", "merged_values", "paper_table_values"]


def merged_values(merged: pd.DataFrame) -> dict:
    """The largest share of cells merged although their subsampled count is at least k
    (column "merged although >= k")."""
    return {"merged_big_share": float(merged["merged although >= k"].max())}


def paper_table_values(paper_table: pd.DataFrame, below: pd.Series) -> dict:
    """The paper's DP k-anonymity rows against ours. ``paper_table`` has one row per
    dataset and epsilon (columns dataset, epsilon, "(1-beta)m", "paper bias l1", bias_l1,
    bias_l1_se, "paper alpha", alpha), ``below`` flags the printed biases below the bound.
    The first compared row's bound and printed value, the range of our alpha over the
    printed one, and the errata's status of the printed bias column (our value against
    it, with the spread of two runs, sqrt(2) times our standard error). Without a printed
    value the numbers are NaN (glue them with ``myst_nb.glue``) and the word says so."""
    compared = paper_table.dropna(subset=["paper bias l1"])
    values: dict = {"n_violations": int(below.sum()), "n_paper_cells": len(compared)}
    if not len(compared):
        nan = float("nan")
        values |= {k: nan for k in ("ma_bound", "ma_paper", "ma_eps")}
        values |= {"alpha_ratio_min": nan, "alpha_ratio_max": nan, "ma_dataset": "none"}
        values["tables_bias_word"] = "not compared (no printed value at these settings)"
        return values
    first = compared.iloc[0]
    ratio = compared["alpha"] / compared["paper alpha"]
    status = errata.reproduced_status(
        compared["bias_l1"], compared["paper bias l1"], np.sqrt(2) * compared["bias_l1_se"]
    )
    return values | {
        "ma_bound": float(first["(1-beta)m"]),
        "ma_paper": float(first["paper bias l1"]),
        "ma_eps": float(first["epsilon"]),
        "ma_dataset": dataset_label(first["dataset"]),
        "alpha_ratio_min": float(ratio.min()),
        "alpha_ratio_max": float(ratio.max()),
        errata.status_key("ka-tables-bias"): status.word,
        "tables_bias_word": status.word,
    }


def alpha_parts_values(alpha_parts: pd.DataFrame, n_epsilons: int) -> dict:
    """Our alpha taken apart. ``alpha_parts`` has one row per dataset and epsilon (the
    first dataset's ``n_epsilons`` rows first) with alpha, the smallest-bias cell's count,
    thinning and reconstruction, the largest bias, the thinning floor "(1-beta) max x",
    the largest cell's reconstruction and its standard error, the indicator alpha and the
    paper's alpha. Counts the printed alphas below the thinning floor, and those whose
    needed inflow into the largest cell our estimate refutes (beyond ``z_limit(n)``
    standard errors, n the printed values compared)."""
    has_paper = alpha_parts.dropna(subset=["paper alpha"])
    needed = has_paper["(1-beta) max x"] - has_paper["paper alpha"]
    limit = z_limit(max(len(has_paper), 1))
    inflow = has_paper["largest cell: reconstruction"] + limit * has_paper["largest cell: se"]
    first, last = alpha_parts.iloc[0], alpha_parts.iloc[n_epsilons - 1]
    return {
        "alpha_below_floor": int((needed > 0).sum()),
        "alpha_compared": len(has_paper),
        "alpha_inflow_refuted": int(((needed > 0) & (inflow < needed)).sum()),
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
