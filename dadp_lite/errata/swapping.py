"""Errata of DP swapping: privacy theorem and bias (chapters 06 and 07)."""

from __future__ import annotations

import math

import numpy as np

from dadp_lite.data import feature_domains
from dadp_lite.errata.record import Finding, Result, dataset
from dadp_lite.errata.status import (
    LOOSE_FACTOR,
    bound_status,
    claim_status,
    delta_status,
    formula_status,
    unclear_status,
)
from dadp_lite.experiments import swapping_sweep
from dadp_lite.paper import PAPER_EPSILONS, PAPER_QI, PAPER_REPS
from dadp_lite.theory import swapping as sw

__all__ = ["FINDINGS", "PAPER_N_Q"]

#: The paper's number of QI values (race, nine values), behind its delta column.
PAPER_N_Q = math.prod(len(feature_domains()[name]) for name in PAPER_QI)
#: Chapter 07's seed (full profile).
SEED = 2023


def _tag(epsilon: float) -> str:
    return f"{epsilon:g}".replace(".", "p")


def two_units(*, epsilon: float, n_q: int) -> Result:
    cell = sw.dp_swapping_delta(epsilon, n_q, unit="cell", adjacency="qi_replace")
    record = sw.dp_swapping_delta(epsilon, n_q, unit="record", adjacency="qi_replace")
    return Result(unclear_status(cell, record), {"delta-cell": cell, "delta-record": record})


def cell_privacy(*, epsilons: tuple[float, ...], n_q: int) -> Result:
    exact = sw.dp_swapping_cell_delta(np.asarray(epsilons), n_q)
    printed = sw.dp_swapping_delta_as_printed(np.asarray(epsilons), n_q)
    values = {}
    for e, x, p in zip(epsilons, exact, printed, strict=True):
        values[f"exact-eps{_tag(e)}"], values[f"printed-eps{_tag(e)}"] = x, p
        values[f"gap-eps{_tag(e)}"] = x - p
    return Result(delta_status(printed, exact), values)


def record_privacy(*, epsilons: tuple[float, ...], n_q: int) -> Result:
    exact = sw.dp_swapping_delta(np.asarray(epsilons), n_q, unit="record", adjacency="qi_replace")
    printed = sw.dp_swapping_delta_as_printed(np.asarray(epsilons), n_q)
    return Result(delta_status(printed, exact), {"exact-max": np.max(exact)})


def proof_ratio(*, epsilons: tuple[float, ...], n_q: int) -> Result:
    """The proof's claim that the likelihood ratio on its set S is at most ``e^eps``,
    against the exact ratio of one output in S: a group with counts (0, 2) against (1, 1),
    both records at the second QI value (exact output laws of the per-cell mechanism). The
    ratio is ``gamma / (gamma u) = e^eps + n_Q - 1``."""
    x = np.zeros((1, n_q), dtype=int)
    x_prime = np.zeros((1, n_q), dtype=int)
    x[0, 1], x_prime[0, :2] = 2, (1, 1)
    together = tuple(x.ravel())  # both records at the second QI value: an output in S
    ratios = np.array([sw.dp_swapping_output_distribution(x, e, "cell")[together]
                       / sw.dp_swapping_output_distribution(x_prime, e, "cell")[together]
                       for e in epsilons])  # fmt: skip
    claimed = np.exp(np.asarray(epsilons, dtype=float))
    status = bound_status(claimed, ratios, loose_factor=None)
    if status.word == "wrong":
        status = status.qualified("the exact delta is derived without it")
    values = {}
    for e, r, c in zip(epsilons, ratios, claimed, strict=True):
        values[f"ratio-eps{_tag(e)}"], values[f"claimed-eps{_tag(e)}"] = r, c
    values["n-q"] = n_q
    return Result(status, values)


def other_adjacencies(*, epsilons: tuple[float, ...], n_q: int) -> Result:
    eps = np.asarray(epsilons)
    printed = sw.dp_swapping_delta_as_printed(eps, n_q)
    exact = {(u, a): sw.dp_swapping_delta(eps, n_q, unit=u, adjacency=a)
             for u in ("cell", "record") for a in ("replace", "add_remove")}  # fmt: skip
    status = delta_status(np.tile(printed, len(exact)), np.concatenate(list(exact.values())))
    return Result(status, {"exact-min": min(np.min(d) for d in exact.values())})


def bias_and_l1(*, dataset_name: str, epsilons: tuple[float, ...], qi: tuple[str, ...]) -> Result:
    hist = dataset(dataset_name).histogram
    printed, exact, printed_l1, exact_l1, once = [], [], [], [], []
    for e in epsilons:
        bias = sw.dp_swapping_expected_release(hist, qi, e) - hist.counts
        printed.append(sw.dp_swapping_bias_as_printed(hist, qi, e))
        exact.append(bias)
        printed_l1.append(sw.dp_swapping_bias_l1_as_printed(hist, qi, e))
        exact_l1.append(np.abs(bias).sum())
        once.append(sw.dp_swapping_bias_l1_groups_once(hist, qi, e))
    status = formula_status(np.concatenate(printed + [printed_l1]),
                            np.concatenate(exact + [exact_l1]))  # fmt: skip
    factor = np.array(exact_l1) / np.array(once)
    return Result(status, {"groups-once-factor": factor.mean(), "n-q": hist.n_qi(qi)})


def traditional_vs_dp(
    *, dataset_name: str, rate: float, epsilon: float, reps: int, seed: int,
    qi: tuple[str, ...],
) -> Result:  # fmt: skip
    """The paper's claim that traditional and DP swapping have close errors, "close"
    meaning within :data:`LOOSE_FACTOR` of each other, at the largest traditional error
    (swap rate 1) and the smallest DP error (the largest epsilon)."""
    hist = dataset(dataset_name).histogram
    sweep = swapping_sweep(hist, rates=[rate], epsilons=[epsilon], reps=reps, seed=seed, qi=qi,
                           n_boot=2)  # fmt: skip
    trad = float(sweep.query("mechanism == 'swapping'")["l1_error"].iloc[0])
    dp = float(sweep.query("mechanism == 'dp_swapping'")["l1_error"].min())
    ratio = max(trad, dp) / min(trad, dp)
    status = claim_status([ratio < LOOSE_FACTOR])
    return Result(status, {"traditional": trad, "dp-min": dp, "ratio": ratio})


_EPS = tuple(PAPER_EPSILONS)

FINDINGS: tuple[Finding, ...] = (
    Finding("swapping-two-units", "Two mechanisms under one name", "06-swapping-privacy",
            {"epsilon": _EPS[0], "n_q": PAPER_N_Q}, two_units),
    Finding("swapping-cell-privacy", "Privacy theorem, per-cell version, QI-only adjacency",
            "06-swapping-privacy", {"epsilons": _EPS, "n_q": PAPER_N_Q},
            cell_privacy),
    Finding("swapping-record-privacy", "Privacy theorem, per-record version, QI-only adjacency",
            "06-swapping-privacy", {"epsilons": _EPS, "n_q": PAPER_N_Q}, record_privacy),
    Finding("swapping-proof-ratio", "Proof of the privacy theorem: the ratio on S",
            "06-swapping-privacy", {"epsilons": _EPS, "n_q": PAPER_N_Q}, proof_ratio),
    Finding("swapping-other-adjacencies", "Privacy theorem under replace-one or add/remove",
            "06-swapping-privacy", {"epsilons": _EPS, "n_q": PAPER_N_Q}, other_adjacencies),
    Finding("swapping-bias-l1", "Bias proposition and ℓ₁ theorem", "07-swapping-bias",
            {"dataset_name": "ma2019", "epsilons": _EPS, "qi": PAPER_QI}, bias_and_l1),
    Finding("swapping-traditional-vs-dp", "Traditional against DP swapping", "07-swapping-bias",
            {"dataset_name": "ma2019", "rate": 1.0, "epsilon": _EPS[-1], "reps": PAPER_REPS,
             "seed": SEED, "qi": PAPER_QI}, traditional_vs_dp),
)  # fmt: skip
