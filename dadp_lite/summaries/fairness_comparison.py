"""What the comparison chapter (chapter "Is Laplace always fairer?") measured, as glue
values (numbers only).

The chapter's findings (the theorem about the printed bounds, the sentence that reads it
about the mechanisms) are glued by :func:`dadp_lite.errata.glue_findings`; this module
counts what the chapter's own simulations and real tables show.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["confirmation_values", "real_table_values"]


def confirmation_values(checks: pd.DataFrame) -> dict:
    """How many simulated counterexamples were asserted (``n_asserted``, the "asserted"
    column: the repetitions reached the check's design)."""
    return {"n_asserted": int(checks["asserted"].astype(bool).sum())}


def real_table_values(real: pd.DataFrame) -> dict:
    """The real tables against the theorem's hypothesis and its printed bounds: on how many
    datasets 2 <= x_1 holds (``real_hypothesis`` of ``real_datasets``), and in how many of
    the ``real_configs`` (dataset, epsilon) rows the printed Laplace bound exceeds the
    printed swapping bound (``real_printed_fail``). ``real`` has one row per dataset and
    epsilon with columns dataset, x_1, "Lap printed" and "SW printed"."""
    return {
        "real_hypothesis": int((real.drop_duplicates("dataset")["x_1"] >= 2).sum()),
        "real_datasets": int(real["dataset"].nunique()),
        "real_configs": len(real),
        "real_printed_fail": int((real["Lap printed"] > real["SW printed"]).sum()),
    }
