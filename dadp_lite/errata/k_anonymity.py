"""Errata of DP k-anonymity: privacy theorem and bias (chapters 08 and 09)."""

from __future__ import annotations

import functools
import math
from dataclasses import replace

import numpy as np
import pandas as pd

from dadp_lite.data import ATTRIBUTES
from dadp_lite.definitions import sampling_probability
from dadp_lite.errata.record import Finding, Result, dataset
from dadp_lite.errata.status import (
    VACUOUS_GAP,
    Status,
    bound_status,
    claim_status,
    delta_status,
    digits_status,
    formula_status,
    reproduced_status,
    unclear_status,
)
from dadp_lite.experiments import k_anonymity_sweep
from dadp_lite.mechanisms import CellTable, mondrian_batch, thin_cells
from dadp_lite.paper import PAPER_EPSILONS, PAPER_K, PAPER_REPS, paper_value
from dadp_lite.registry import get
from dadp_lite.theory import k_anonymity as ka

__all__ = ["FINDINGS", "bias_against_paper", "table_runs"]

#: Chapter 09's seed (dataset i of the chapter's list uses SEED + i) and bootstrap size.
SEED = 2023
N_BOOT = 200
#: Chapter 09's grid of k (full profile).
K_VALUES = (2, 4, 6, 8, 10, 15, 20, 30, 50)
#: Decimals of the printed delta column of DP k-anonymity.
DELTA_DECIMALS = 3


def _tag(epsilon: float) -> str:
    return f"{epsilon:g}".replace(".", "p")


@functools.cache
def table_runs(
    names: tuple[str, ...], k: int, epsilons: tuple[float, ...], reps: int, seed: int, n_boot: int
) -> pd.DataFrame:
    """Chapter 09's run at the paper's setting: traditional and DP k-anonymity at one ``k``,
    ``reps`` repetitions, dataset i seeded with ``seed + i``; one row per configuration."""
    runs = [k_anonymity_sweep(dataset(name).records, k_values=[k], epsilons=epsilons, reps=reps,
                              seed=seed + i, n_boot=n_boot).assign(dataset=name)
            for i, name in enumerate(names)]  # fmt: skip
    return pd.concat(runs, ignore_index=True)


def printed_pmf(*, epsilons: tuple[float, ...], w: int, bound: int) -> Result:
    betas = [sampling_probability(e) for e in epsilons]
    status = formula_status([ka.printed_pmf_total(w, b) for b in betas], 1.0)
    corrected = [ka.d_corrected(2, b, e, bound) for b, e in zip(betas, epsilons, strict=True)]
    paper = [paper_value("ma2019", "dp_k_anonymity", e, "delta") for e in epsilons]
    if digits_status(corrected, paper, DELTA_DECIMALS).word == "reproduced":
        status = status.qualified("tables use the binomial pmf")
    values = {f"d-corrected-eps{_tag(e)}": d for e, d in zip(epsilons, corrected, strict=True)}
    values["total-first"] = ka.printed_pmf_total(w, betas[0])
    return Result(status, values)


def privacy_theorem(*, dataset_name: str, epsilons: tuple[float, ...], bound: int) -> Result:
    hist = dataset(dataset_name).histogram
    entry = get("dp_k_anonymity")
    printed, exact, values = [], [], {}
    for e in epsilons:
        beta = sampling_probability(e)
        d = ka.d_corrected(2, beta, e, bound)
        for adjacency in ("replace", "add_remove"):
            printed.append(d)
            exact.append(entry.delta(hist, epsilon=e, adjacency=adjacency))
        values[f"beta-eps{_tag(e)}"] = beta
    return Result(delta_status(printed, exact), values)


def sum_index(*, epsilons: tuple[float, ...], bound: int) -> Result:
    """The sum in d runs from j = 0, but f is defined for j in [w] = {1, ..., w}: the two
    ranges give different d (from j = 1 the sum is empty at w = 1 and d = 1)."""
    betas = [sampling_probability(e) for e in epsilons]
    from_one = [ka.d_sum_from_one(2, b, e, bound) for b, e in zip(betas, epsilons, strict=True)]
    from_zero = [ka.d_corrected(2, b, e, bound) for b, e in zip(betas, epsilons, strict=True)]
    status = unclear_status(from_one, from_zero)
    paper = [paper_value("ma2019", "dp_k_anonymity", e, "delta") for e in epsilons]
    if digits_status(from_zero, paper, DELTA_DECIMALS).word == "reproduced":
        status = status.qualified("the tables sum from j = 0")
    return Result(status, {"from-one-min": min(from_one), "from-zero-first": from_zero[0]})


def proof_last_step(*, epsilons: tuple[float, ...], max_bound: int) -> Result:
    """The proof's last line writes ``1 - min P(S) = d``; the numbers give only "<=": the
    cell that gains a record is judged with the threshold of one record more."""
    proof, d = [], []
    for e in epsilons:
        beta = sampling_probability(e)
        for bound in range(1, max_bound + 1):
            proof.append(ka.d_proof_set(beta, e, bound))
            d.append(ka.d_corrected(2, beta, e, bound))
    status = formula_status(d, proof)
    if status.word == "wrong" and bound_status(d, proof, loose_factor=None).word == "valid":
        status = status.qualified("holds as an inequality")
    gap = np.array(d) - np.array(proof)
    values = {"gap-max": gap.max(), "rows-differ": int((gap > 1e-12).sum()), "rows": len(gap)}
    return Result(status, values)


def beta_choice(*, epsilon: float, bound: int, factors: tuple[float, ...]) -> Result:
    """The main text says the theorem implies beta from epsilon; the theorem holds for every
    beta. At ``epsilon`` it is evaluated at ``factor * (1 - e^-eps)``: every beta whose d is
    a valid (at least the exact delta, beta) and non-vacuous guarantee is one the theorem
    admits, and the claimed identity "admitted beta = 1 - e^-eps" is checked against them."""
    implied = sampling_probability(epsilon)
    betas = [f * implied for f in factors]
    d = [ka.d_corrected(2, b, epsilon, bound) for b in betas]
    exact = [ka.subsampling_delta(b, epsilon, 4, "replace") for b in betas]
    admitted = [b for b, dv, x in zip(betas, d, exact, strict=True)
                if bound_status(dv, x, loose_factor=None).word == "valid"
                and 1 - dv >= VACUOUS_GAP]  # fmt: skip
    if not admitted:
        raise AssertionError("no beta gives a valid, non-vacuous d: the finding no longer holds")
    status = formula_status(np.full(len(admitted), implied), admitted)
    first = min(admitted)
    if status.word == "wrong":
        status = replace(status.qualified("the theorem holds for every beta"), basis=(
            f"at beta = {first:.4g} the theorem's d = {d[betas.index(first)]:.4g} is a valid "
            f"bound (exact delta {exact[betas.index(first)]:.4g}); the text's beta is "
            f"{implied:.4g}"))  # fmt: skip
    values = {"beta-implied": implied, "beta-other": first,
              "d-other": d[betas.index(first)], "exact-other": exact[betas.index(first)],
              "admitted-n": len(admitted), "tried-n": len(betas)}  # fmt: skip
    return Result(status, values)


def bias_theorem(
    *, dataset_names: tuple[str, ...], epsilons: tuple[float, ...], k: int, reps: int, seed: int
) -> Result:
    x = dataset(dataset_names[0]).histogram.counts
    printed = [ka.indicator_bias_as_printed(x, k, sampling_probability(e)) for e in epsilons]
    exact = [ka.indicator_bias(x, k, sampling_probability(e)) for e in epsilons]
    status = formula_status(np.concatenate(printed), np.concatenate(exact))
    shares = []
    for name in dataset_names:
        table = CellTable.from_records(dataset(name).records, ATTRIBUTES, attributes=ATTRIBUTES)
        for e in epsilons:
            counts, first = thin_cells(table, sampling_probability(e),
                                       rng=np.random.default_rng(seed), reps=reps)  # fmt: skip
            merged = mondrian_batch(table, counts, first, k).merged()
            shares.append(float((merged & ~(counts < k)).mean()))
    if max(shares) > 0:
        status = status.qualified("about an indicator, not the release")
    return Result(status, {"merged-share-min": min(shares), "merged-share-max": max(shares)})


def bias_against_paper(
    names: tuple[str, ...], k: int, epsilons: tuple[float, ...], reps: int, seed: int,
    n_boot: int,
) -> tuple[Status, pd.DataFrame]:  # fmt: skip
    """Our l1 bias of DP k-anonymity (:func:`table_runs`) against the printed one: the
    status (``reproduced_status``, spread of two runs of the statistic) and the DP rows."""
    runs = table_runs(names, k, epsilons, reps, seed, n_boot)
    dp = runs[runs.mechanism == "dp_k_anonymity"]
    paper = [paper_value(r.dataset, "dp_k_anonymity", r.epsilon, "l1_bias")
             for r in dp.itertuples()]  # fmt: skip
    spread = math.sqrt(2) * dp.bias_l1_se.to_numpy()  # two runs of the same statistic
    return reproduced_status(dp.bias_l1.to_numpy(), paper, spread), dp


def tables_bias(
    *, dataset_names: tuple[str, ...], k: int, epsilons: tuple[float, ...], reps: int,
    seed: int, n_boot: int,
) -> Result:  # fmt: skip
    status, dp = bias_against_paper(dataset_names, k, epsilons, reps, seed, n_boot)
    paper_alpha = [paper_value(r.dataset, "dp_k_anonymity", r.epsilon, "alpha")
                   for r in dp.itertuples()]  # fmt: skip
    ratio = dp.alpha.to_numpy() / np.array(paper_alpha)
    values = {"alpha-ratio-min": ratio.min(), "alpha-ratio-max": ratio.max()}
    for name in dataset_names:
        m = dataset(name).histogram.total
        values[f"bound-first-{name}"] = (1 - sampling_probability(epsilons[0])) * m
    return Result(status, values)


def improves_claim(
    *, dataset_names: tuple[str, ...], k_values: tuple[int, ...], epsilon: float, reps: int,
    seed: int,
) -> Result:  # fmt: skip
    """The paper's claim that DP k-anonymity has a smaller error than the deterministic
    mechanism at small epsilon, checked for every (dataset, k) of chapter 09's grid."""
    holds, values = [], {}
    for i, name in enumerate(dataset_names):
        sweep = k_anonymity_sweep(dataset(name).records, k_values=k_values, epsilons=[epsilon],
                                  reps=reps, seed=seed + i, n_boot=2)  # fmt: skip
        trad = sweep[sweep.mechanism == "k_anonymity"].set_index("k")["l1_error"]
        dp = sweep[sweep.mechanism == "dp_k_anonymity"].set_index("k")["l1_error"]
        better = [bool(dp[k] < trad[k]) for k in k_values]
        holds += better
        if any(better):
            values[f"better-min-k-{name}"] = min(k for k, b in zip(k_values, better) if b)
    status = claim_status(holds)
    status = status.qualified(f"holds in {sum(holds)} of {len(holds)} settings")
    values.update({"worse-n": len(holds) - sum(holds), "settings-n": len(holds)})
    return Result(status, values)


_ALL = ("ma2019", "tx2019", "national2019")
_EPS = tuple(PAPER_EPSILONS)

FINDINGS: tuple[Finding, ...] = (
    Finding("ka-printed-pmf", "f(j; w, β) in the DP k-anonymity theorem",
            "08-k-anonymity-privacy", {"epsilons": _EPS, "w": 5, "bound": 5}, printed_pmf),
    Finding("ka-sum-index", "The range of the sum in d", "08-k-anonymity-privacy",
            {"epsilons": _EPS, "bound": 5}, sum_index),
    Finding("ka-proof-last-step", "Proof of the DP k-anonymity theorem, last step",
            "08-k-anonymity-privacy", {"epsilons": _EPS, "max_bound": 12}, proof_last_step),
    Finding("ka-beta-choice", "β = 1 − exp(−ε), implied by the theorem?",
            "08-k-anonymity-privacy",
            {"epsilon": _EPS[0], "bound": 12, "factors": (0.5, 0.75, 1.0, 1.25, 1.5)},
            beta_choice),
    Finding("ka-privacy-theorem", "Privacy theorem of DP k-anonymity", "08-k-anonymity-privacy",
            {"dataset_name": "ma2019", "epsilons": _EPS, "bound": 5}, privacy_theorem),
    Finding("ka-bias-theorem", "Bias theorem of DP k-anonymity", "09-k-anonymity-bias",
            {"dataset_names": _ALL, "epsilons": _EPS, "k": PAPER_K, "reps": 50, "seed": SEED},
            bias_theorem),
    Finding("ka-tables-bias", "DP k-anonymity bias in Tables 1-3", "09-k-anonymity-bias",
            {"dataset_names": _ALL, "k": PAPER_K, "epsilons": _EPS, "reps": PAPER_REPS,
             "seed": SEED, "n_boot": N_BOOT}, tables_bias),
    Finding("ka-improves-claim", "DP k-anonymity against the deterministic mechanism",
            "09-k-anonymity-bias",
            {"dataset_names": _ALL, "k_values": K_VALUES, "epsilon": _EPS[0],
             "reps": PAPER_REPS, "seed": SEED}, improves_claim),
)  # fmt: skip
