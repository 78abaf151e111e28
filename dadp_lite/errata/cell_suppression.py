"""Errata of DP cell suppression: privacy theorem and bias (chapters 04 and 05)."""

from __future__ import annotations

import math

import numpy as np

from dadp_lite.errata.record import Finding, Result, dataset
from dadp_lite.errata.status import (
    bound_status,
    delta_status,
    formula_status,
    reproduced_status,
    unclear_status,
    vacuous,
)
from dadp_lite.experiments import cell_suppression_sweep
from dadp_lite.mechanisms import cell_suppression, cell_suppression_main_text
from dadp_lite.paper import PAPER_EPSILONS, PAPER_K, PAPER_REPS, paper_value
from dadp_lite.theory import cell_suppression as cs

__all__ = ["FINDINGS"]

#: Chapter 05's seed (full profile).
SEED = 2023
_VARIANT_ADJACENCY = [(v, a) for v in ("per_cell", "noisy_threshold")
                      for a in ("replace", "add_remove")]  # fmt: skip


def two_definitions(*, dataset_name: str, k: int, epsilon: float) -> Result:
    x = dataset(dataset_name).histogram.counts
    main, appendix = cell_suppression_main_text(x, k=k), cell_suppression(x, k=k)
    status = unclear_status(main, appendix)
    per_cell, threshold = (
        np.abs(cs.dp_cell_suppression_bias(x, k=k, epsilon=epsilon, variant=v)).sum()
        for v in ("per_cell", "noisy_threshold")
    )
    values = {"l1-main-text": np.abs(main - x).sum(), "l1-appendix": np.abs(appendix - x).sum(),
              "dp-l1-per-cell": per_cell, "dp-l1-noisy-threshold": threshold}  # fmt: skip
    return Result(status, values)


def privacy_theorem(
    *, k: int, bound: int, epsilons: tuple[float, ...], epsilon: float, n_cells: int,
    dataset_name: str, data_epsilon: float,
) -> Result:  # fmt: skip
    """The theorem for the mechanism it is proved for (per cell, replace-one adjacency) over
    ``epsilons``; the other three cases and the example values at ``epsilon``."""
    grid = np.asarray(epsilons, dtype=float)
    proved = cs.dp_cell_suppression_exact_delta(grid, k=k, bound=bound, adjacency="replace",
                                                variant="per_cell", n_cells=n_cells)  # fmt: skip
    status = delta_status(cs.dp_cell_suppression_delta_as_printed(grid, k, bound), proved)
    exact = {
        (v, a): cs.dp_cell_suppression_exact_delta(
            epsilon, k=k, bound=bound, adjacency=a, variant=v, n_cells=n_cells)
        for v, a in _VARIANT_ADJACENCY
    }  # fmt: skip
    printed = cs.dp_cell_suppression_delta_as_printed(epsilon, k, bound)
    others = [d for key, d in exact.items() if key != ("per_cell", "replace")]
    if not np.allclose(others, others[0], rtol=0, atol=1e-12):
        raise AssertionError("the three other cases no longer share one exact delta")
    data_bound = int(dataset(dataset_name).histogram.counts.max())
    on_data = cs.dp_cell_suppression_delta_as_printed(data_epsilon, k, data_bound)
    if vacuous(on_data):
        status = status.qualified("vacuous on real data")
    example = exact[("per_cell", "replace")]
    values = {
        "exact-per-cell-replace": example, "exact-other": others[0], "printed": printed,
        "example-status": delta_status(printed, example).word,
        "other-status": delta_status(printed, others).word, "data-bound": data_bound,
        "data-log10-gap": cs.dp_cell_suppression_log10_gap_as_printed(data_epsilon, k, data_bound),
    }  # fmt: skip
    return Result(status, values)


def privacy_proof(*, epsilons: tuple[float, ...], max_bound: int, k: int) -> Result:
    """The proof's safe set ``{o : o_a = o_b = k/2}``: the smallest pair on which its ratio
    claim fails (replace-one, two cells, even k, counts up to ``max_bound``, ``epsilons``),
    the lemma's delta of that pair against the printed delta, and the largest epsilon at
    which the claim fails at ``k``."""
    found = cs.proof_set_counterexample(epsilons, max_bound=max_bound)
    if found is None:
        raise AssertionError("no counterexample to the proof's ratio claim at this setting")
    status = bound_status(found.printed_delta, found.lemma_delta, loose_factor=None)
    if delta_status(found.printed_delta, found.worst_delta).word != "wrong":
        status = status.qualified("the theorem holds; its proof does not")
    values = {
        "k": found.k, "bound": found.bound, "epsilon": found.epsilon,
        "x": "({}, {})".format(*found.x), "x-prime": "({}, {})".format(*found.x_prime),
        "ratio": found.ratio, "e-epsilon": math.exp(found.epsilon),
        "proof-mass": found.proof_mass, "true-mass": found.true_mass,
        "lemma-delta": found.lemma_delta, "pair-delta": found.pair_delta,
        "worst-delta": found.worst_delta, "printed-delta": found.printed_delta,
        "threshold-k": cs.proof_set_threshold(k, bound=max_bound),
    }  # fmt: skip
    return Result(status, values)


def bias_expression(*, dataset_name: str, k: int, epsilons: tuple[float, ...],
                    epsilon: float) -> Result:  # fmt: skip
    x = dataset(dataset_name).histogram.counts
    printed = np.concatenate([cs.dp_cell_suppression_bias_as_printed(x, k=k, epsilon=e)
                              for e in epsilons])  # fmt: skip
    exact = {v: np.concatenate([cs.dp_cell_suppression_bias(x, k=k, epsilon=e, variant=v)
                                for e in epsilons])
             for v in ("per_cell", "noisy_threshold")}  # fmt: skip
    status = formula_status(printed, exact["per_cell"])
    if formula_status(printed, exact["noisy_threshold"]).word == "wrong":
        status = status.qualified("main-text mechanism only")
    values = {
        "threshold-max-gap": np.abs(exact["noisy_threshold"] - printed).max(),
        "printed-l1": np.abs(cs.dp_cell_suppression_bias_as_printed(x, k=k, epsilon=epsilon)).sum(),
        "threshold-l1": np.abs(cs.dp_cell_suppression_bias(
            x, k=k, epsilon=epsilon, variant="noisy_threshold")).sum(),
    }  # fmt: skip
    return Result(status, values)


def l1_bound(*, dataset_names: tuple[str, ...], k: int, epsilons: tuple[float, ...]) -> Result:
    bounds, exacts, values = [], [], {}
    for name in dataset_names:
        x = dataset(name).histogram.counts
        b = [cs.dp_cell_suppression_l1_bound_as_printed(x, k=k, epsilon=e) for e in epsilons]
        e_ = [np.abs(cs.dp_cell_suppression_bias(x, k=k, epsilon=e)).sum() for e in epsilons]
        ratio = np.array(b) / np.array(e_)
        values[f"ratio-min-{name}"], values[f"ratio-max-{name}"] = ratio.min(), ratio.max()
        bounds += b
        exacts += e_
    return Result(bound_status(bounds, exacts), values)


def empirical_alpha(
    *, dataset_names: tuple[str, ...], k_values: tuple[int, ...], epsilons: tuple[float, ...],
    reps: int, seed: int, dataset_name: str, k: int, n_boot: int,
) -> Result:  # fmt: skip
    gaps = []
    for name in dataset_names:
        x = dataset(name).histogram.counts
        sweep = cell_suppression_sweep(x, k_values=k_values, epsilons=epsilons, reps=reps,
                                       seed=seed, variants=["per_cell"], n_boot=2)  # fmt: skip
        sweep = sweep[sweep.mechanism == "dp_cell_suppression"]
        exact = [np.ptp(cs.dp_cell_suppression_bias(x, k=r.k, epsilon=r.epsilon))
                 for r in sweep.itertuples()]  # fmt: skip
        gaps.extend(sweep.alpha.to_numpy() - exact)
    x = dataset(dataset_name).histogram.counts
    ours = cell_suppression_sweep(x, k_values=[k], epsilons=epsilons, reps=reps, seed=seed,
                                  variants=["per_cell"], n_boot=n_boot)  # fmt: skip
    ours = ours[ours.mechanism == "dp_cell_suppression"]
    paper = [paper_value(dataset_name, "dp_cell_suppression", e, "alpha") for e in epsilons]
    spread = math.sqrt(2) * ours.alpha_se.to_numpy()  # two runs of the same statistic
    status = reproduced_status(ours.alpha.to_numpy(), paper, spread)
    if np.mean(gaps) > 0:
        status = status.qualified("biased upwards")
    values = {"gap-mean": np.mean(gaps)}
    for e, a in zip(epsilons, ours.alpha, strict=True):
        tag = f"{e:g}".replace(".", "p")
        values[f"exact-eps{tag}"] = np.ptp(cs.dp_cell_suppression_bias(x, k=k, epsilon=e))
        values[f"ours-eps{tag}"] = a
    return Result(status, values)


_MA, _EPS = "ma2019", tuple(PAPER_EPSILONS)
_ALL = ("ma2019", "tx2019", "national2019")

FINDINGS: tuple[Finding, ...] = (
    Finding("cs-two-definitions", "Two definitions of cell suppression",
            "05-cell-suppression-bias",
            {"dataset_name": _MA, "k": PAPER_K, "epsilon": 1.0}, two_definitions),
    Finding("cs-privacy-theorem", "Privacy theorem of DP cell suppression",
            "04-cell-suppression-privacy",
            {"k": PAPER_K, "bound": 10, "epsilons": _EPS, "epsilon": 1.0, "n_cells": 3,
             "dataset_name": _MA, "data_epsilon": _EPS[0]}, privacy_theorem),
    Finding("cs-privacy-proof", "Proof of the privacy theorem: the safe set",
            "04-cell-suppression-privacy",
            {"epsilons": _EPS, "max_bound": 10, "k": PAPER_K}, privacy_proof),
    Finding("cs-bias-expression", "Bias expression (k/2 − xᵢ) pᵢ",
            "05-cell-suppression-bias",
            {"dataset_name": _MA, "k": PAPER_K, "epsilons": _EPS, "epsilon": 1.0},
            bias_expression),
    Finding("cs-l1-bound", "Cauchy-Schwarz bound on the ℓ₁ bias", "05-cell-suppression-bias",
            {"dataset_names": _ALL, "k": PAPER_K, "epsilons": _EPS}, l1_bound),
    Finding("cs-empirical-alpha", "Empirical α of DP cell suppression",
            "05-cell-suppression-bias",
            {"dataset_names": _ALL, "k_values": tuple(range(2, 21)), "epsilons": _EPS,
             "reps": PAPER_REPS, "seed": SEED, "dataset_name": _MA, "k": PAPER_K,
             "n_boot": 100}, empirical_alpha),
)  # fmt: skip
