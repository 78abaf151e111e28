"""Where the bias of DP k-anonymity comes from: thinning against Mondrian and reconstruction.

DP k-anonymity releases ``r = g_k(s)``, the reconstruction of Mondrian's partition of the
subsample ``s`` (each cell ``s_i ~ Binomial(x_i, beta)``). Its per-cell bias splits exactly
into two parts,

``E[r_i] - x_i = (E[s_i] - x_i) + E[r_i - s_i] = -(1 - beta) x_i + E[r_i - s_i]``:

the *thinning* part, known exactly, and the *reconstruction* part (Mondrian's merging and
the redistribution of merged classes), estimated by simulation from the same repetitions
that give the release. :func:`k_anonymity_bias_parts` returns both per cell.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from dadp_lite._validate import check_epsilon, check_positive_int
from dadp_lite.data import ATTRIBUTES
from dadp_lite.definitions import sampling_probability
from dadp_lite.mechanisms import CellTable, mondrian_batch, reconstruct_batch, thin_cells
from dadp_lite.simulate import make_rng

__all__ = ["k_anonymity_bias_parts"]


def k_anonymity_bias_parts(
    records: pd.DataFrame | CellTable,
    *,
    k: int,
    epsilon: float,
    reps: int,
    seed: int | np.random.SeedSequence,
    qi: Sequence[str] = ATTRIBUTES,
    attributes: Sequence[str] = ATTRIBUTES,
) -> pd.DataFrame:
    """Per-cell bias of DP k-anonymity split into its thinning and reconstruction parts.

    Runs ``reps`` repetitions of Algorithm 5 (subsample with ``beta = 1 - e^-epsilon``,
    Mondrian with ``k``, reconstruction; all QIs categorical) and keeps each repetition's
    subsample. One row per cell of the universe of ``attributes``, with columns ``count``
    (``x_i``), ``thinning`` (``-(1 - beta) x_i``, exact), ``reconstruction`` (mean of
    ``r_i - s_i``) and ``reconstruction_se`` (its standard error over repetitions),
    ``thinning_noise`` (mean ``s_i`` minus ``beta x_i``, the Monte Carlo error of the
    thinning part), ``bias`` (mean ``r_i`` minus ``x_i``, the empirical bias; equal to
    ``thinning + thinning_noise + reconstruction``) and ``merged`` (share of repetitions
    in which the cell's class covers more than one QI combination).
    """
    epsilon = check_epsilon(epsilon)
    reps = check_positive_int(reps, "reps")
    beta = sampling_probability(epsilon)
    table = (records if isinstance(records, CellTable)
             else CellTable.from_records(records, qi, attributes=attributes))  # fmt: skip
    rng = make_rng(seed)
    kept, first = thin_cells(table, beta, rng=rng, reps=reps)
    batch = mondrian_batch(table, kept, first, k)
    released = reconstruct_batch(batch, rng=rng).astype(float)
    subsample = np.zeros_like(released)
    subsample[:, table.flat_index] = kept
    merged = np.zeros(released.shape[1])
    merged[table.flat_index] = batch.merged().mean(axis=0)
    x = np.zeros(released.shape[1])
    x[table.flat_index] = table.counts
    moved = released - subsample
    se = moved.std(axis=0, ddof=1) / np.sqrt(reps) if reps > 1 else np.full(x.shape, np.inf)
    thinning = -(1 - beta) * x
    noise = subsample.mean(axis=0) - beta * x
    return pd.DataFrame(
        {
            "count": x,
            "thinning": thinning,
            "thinning_noise": noise,
            "reconstruction": moved.mean(axis=0),
            "reconstruction_se": se,
            "bias": released.mean(axis=0) - x,
            "merged": merged,
        }
    )
