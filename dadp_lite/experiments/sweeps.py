"""Monte Carlo sweeps of the traditional and DP mechanisms over their parameters.

Each sweep returns one row per configuration with the mean l1 error ``||x~ - x||_1`` and
the paper's l1 bias and alpha, each with its Monte Carlo standard error and interval
(:func:`dadp_lite.metrics.release_summary`). Every configuration draws from its own child
of one ``SeedSequence(seed)`` keyed by its values, so rows do not depend on the grid's
order; repetitions run through :func:`dadp_lite.simulate.simulate`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dadp_lite._validate import (
    check_choice,
    check_counts,
    check_epsilon,
    check_positive,
    check_positive_int,
    check_probability,
)
from dadp_lite.data import ATTRIBUTES
from dadp_lite.definitions import UNITS, VARIANTS, keep_probability, sampling_probability
from dadp_lite.histogram import Histogram
from dadp_lite.mechanisms import (
    CellTable,
    cell_suppression,
    cell_suppression_main_text,
    dp_cell_suppression,
    dp_k_anonymity,
    dp_swapping,
    k_anonymity,
    swapping,
    swapping_chunks,
)
from dadp_lite.metrics import release_summary
from dadp_lite.paper import PAPER_QI
from dadp_lite.simulate import make_rng, simulate

__all__ = ["cell_suppression_sweep", "k_anonymity_sweep", "swapping_sweep"]


def cell_suppression_sweep(
    counts: object,
    *,
    k_values: Sequence[float],
    epsilons: Sequence[float],
    reps: int,
    seed: int,
    variants: Sequence[str] = VARIANTS,
    n_boot: int = 100,
) -> pd.DataFrame:
    """Monte Carlo sweep of traditional and DP cell suppression over ``k`` and ``epsilon``.

    One row per (mechanism, variant, epsilon, k) with the mean L1 error
    ``||x~ - x||_1`` and its SE, the L1 norm of the empirical bias, the empirical alpha and
    its bootstrap SE. The traditional rows (appendix and main-text forms) are deterministic
    (``epsilon`` is NaN, SEs are 0). Every DP configuration draws from its own child of one
    ``SeedSequence(seed)`` keyed by its values, so rows do not depend on the grid's order;
    repetitions run through :func:`dadp_lite.simulate.simulate`.
    """
    x = check_counts(counts)
    reps = check_positive_int(reps, "reps", minimum=2)
    variants = [check_choice(v, "variant", VARIANTS) for v in variants]
    k_values = [check_positive(k, "k") for k in k_values]
    epsilons = [check_epsilon(e) for e in epsilons]
    rows = []
    for k in k_values:
        for name, release in (
            ("cell_suppression", cell_suppression(x, k=k).astype(float)),
            ("cell_suppression_main_text", cell_suppression_main_text(x, k=k)),
        ):
            bias = release - x
            rows.append(
                {"mechanism": name, "variant": "traditional", "epsilon": np.nan, "k": k,
                 "l1_error": float(np.abs(bias).sum()), "l1_error_se": 0.0,
                 "bias_l1": float(np.abs(bias).sum()),
                 "alpha": float(bias.max() - bias.min()), "alpha_se": 0.0}
            )  # fmt: skip
    root = np.random.SeedSequence(seed)
    for variant in variants:
        for epsilon in epsilons:
            for k in k_values:
                # the child seed depends on the configuration's values, not on grid order
                key = (VARIANTS.index(variant), round(epsilon * 1e6), round(k * 1e6))
                child = np.random.SeedSequence(root.entropy, spawn_key=key)
                sim_seed, boot_seed = child.spawn(2)
                released = simulate(
                    dp_cell_suppression, x, reps=reps, seed=sim_seed, progress=False,
                    k=k, epsilon=epsilon, variant=variant,
                )  # fmt: skip
                summary = release_summary(released, x, rng=make_rng(boot_seed), n_boot=n_boot)
                rows.append(
                    {"mechanism": "dp_cell_suppression", "variant": variant,
                     "epsilon": epsilon, "k": k, **summary}
                )  # fmt: skip
    return pd.DataFrame(rows)


def swapping_sweep(
    hist: Histogram,
    *,
    rates: Sequence[float],
    epsilons: Sequence[float],
    reps: int,
    seed: int,
    qi: Sequence[str] = PAPER_QI,
    units: Sequence[str] = UNITS,
    n_boot: int = 100,
) -> pd.DataFrame:
    """Monte Carlo sweep of traditional swapping over ``rates`` and DP swapping over ``epsilons``.

    One row per configuration: ``mechanism``, ``unit`` ("-" for traditional), ``rate``,
    ``epsilon``, ``fraction`` (the share of records whose QI value is redrawn: ``rate`` for
    traditional swapping, ``1 - gamma`` for DP swapping), the mean L1 error
    ``||x~ - x||_1`` and its SE, the L1 norm of the empirical bias, the empirical alpha and
    its bootstrap SE. Each configuration draws from its own child of ``SeedSequence(seed)``
    keyed by its values; repetitions run through :func:`dadp_lite.simulate.simulate`.
    """
    if not isinstance(hist, Histogram):
        raise TypeError(f"hist must be a Histogram, got {type(hist).__name__}")
    reps = check_positive_int(reps, "reps", minimum=2)
    rates = [check_probability(r, "rate", open_low=False) for r in rates]
    epsilons = [check_epsilon(e) for e in epsilons]
    for unit in units:
        check_choice(unit, "unit", UNITS)
    n_q = hist.n_qi(qi)
    root = np.random.SeedSequence(seed)
    configs = [("swapping", "-", r, math.nan, r) for r in rates] + [
        ("dp_swapping", u, math.nan, e, 1.0 - keep_probability(e, n_q))
        for u in units
        for e in epsilons
    ]
    release_of = {  # each configuration's release function, run_chunks and keyword arguments
        "swapping": lambda unit, rate, epsilon: (
            swapping,
            swapping_chunks,
            {"qi": qi, "rate": rate},
        ),
        "dp_swapping": lambda unit, rate, epsilon: (
            dp_swapping,
            None,
            {"qi": qi, "epsilon": epsilon, "unit": unit},
        ),
    }
    rows = []
    for mechanism, unit, rate, epsilon, fraction in configs:
        key = (list(release_of).index(mechanism), (("-",) + UNITS).index(unit),
               round(0 if math.isnan(rate) else rate * 1e6),
               round(0 if math.isnan(epsilon) else epsilon * 1e6))  # fmt: skip
        sim_seed, boot_seed = np.random.SeedSequence(root.entropy, spawn_key=key).spawn(2)
        func, chunked, params = release_of[mechanism](unit, rate, epsilon)
        released = simulate(
            func, hist, reps=reps, seed=sim_seed, progress=False, run_chunks=chunked, **params
        )
        summary = release_summary(released, hist.counts, rng=make_rng(boot_seed), n_boot=n_boot)
        rows.append({"mechanism": mechanism, "unit": unit, "rate": rate, "epsilon": epsilon,
                     "fraction": fraction, **summary})  # fmt: skip
    return pd.DataFrame(rows)


def k_anonymity_sweep(
    records: pd.DataFrame,
    *,
    k_values: Sequence[int],
    epsilons: Sequence[float],
    reps: int,
    seed: int,
    qi: Sequence[str] = ATTRIBUTES,
    attributes: Sequence[str] = ATTRIBUTES,
    n_boot: int = 200,
    chunk_size: int = 100,
) -> pd.DataFrame:
    """Error and fairness of traditional and DP k-anonymity over a grid of k and epsilon.

    One row per (mechanism, epsilon, k) with: ``l1_error`` (mean over repetitions of
    ``||released - x||_1``) and its standard error; ``bias_l1`` (l1 norm of the empirical
    bias, as in the paper's tables) and ``alpha`` (max - min of the empirical bias), each
    with a bootstrap standard error over repetitions; ``empty`` (repetitions whose
    subsample was empty). Traditional k-anonymity has ``epsilon = nan`` and ``beta = 1``.
    All QIs are categorical (the paper's setting). Seeds: one child of
    ``SeedSequence(seed)`` per row, run through :func:`dadp_lite.simulate.simulate`.
    """
    table = CellTable.from_records(records, qi, attributes=attributes)
    true = np.bincount(table.flat_index, weights=table.counts, minlength=table.n_cells)
    settings = [("k_anonymity", math.nan, k) for k in k_values]
    settings += [("dp_k_anonymity", float(e), k) for e in epsilons for k in k_values]
    children = np.random.SeedSequence(seed).spawn(len(settings))
    release_of = {  # each setting's release function and its keyword arguments
        "k_anonymity": lambda k, epsilon: (k_anonymity, {"qi": tuple(qi), "k": k}),
        "dp_k_anonymity": lambda k, epsilon: (
            dp_k_anonymity,
            {"qi": tuple(qi), "k": k, "epsilon": epsilon},
        ),
    }
    rows = []
    for (mechanism, epsilon, k), child in zip(settings, children, strict=True):
        run_seed, boot_seed = child.spawn(2)
        func, params = release_of[mechanism](k, epsilon)
        released = simulate(
            func, table, reps=reps, seed=run_seed, chunk_size=chunk_size, progress=False, **params
        )
        summary = release_summary(released, true, rng=make_rng(boot_seed), n_boot=n_boot)
        rows.append(
            {
                "mechanism": mechanism,
                "epsilon": epsilon,
                "beta": 1.0 if math.isnan(epsilon) else sampling_probability(epsilon),
                "k": k,
                "reps": reps,
                **summary,
                "empty": int((released.sum(axis=1) == 0).sum()),
            }
        )
    return pd.DataFrame(rows)
