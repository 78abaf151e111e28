"""Findings of DP k-anonymity: privacy theorem and bias (chapters 08 and 09)."""

from __future__ import annotations

import numpy as np

from dadp_lite.definitions import sampling_probability
from dadp_lite.errata.baselines import printed_epsilons
from dadp_lite.errata.record import Finding, Result, dataset, shown
from dadp_lite.errata.runs import k_anonymity_merges, k_anonymity_sweeps
from dadp_lite.errata.show import fraction, listing, number, percent
from dadp_lite.errata.status import (
    VACUOUS_GAP,
    Reading,
    Status,
    bound_status,
    claim_status,
    delta_status,
    digits_status,
    formula_status,
    readings_status,
    typo_status,
)
from dadp_lite.mechanisms import CellTable, mondrian_batch, reconstruct_batch, thin_cells
from dadp_lite.paper import paper_value
from dadp_lite.theory import k_anonymity as ka

__all__ = ["DELTA_DECIMALS", "FINDINGS", "improvement_against_subsample"]

#: Decimals of the printed delta column of DP k-anonymity.
DELTA_DECIMALS = 3


def _data_bound(name: str) -> int:
    return int(dataset(name).histogram.counts.max())


def _column(epsilons: tuple[float, ...]) -> tuple[tuple[float, ...], np.ndarray]:
    eps = printed_epsilons(epsilons)
    return eps, np.array([paper_value("ma2019", "dp_k_anonymity", e, "delta") for e in eps])


def printed_pmf(*, dataset_name: str, epsilons: tuple[float, ...]) -> Result:
    """``f(j; w, beta)`` as printed (``beta^w`` for ``beta^j``) is not a probability mass
    function; with the binomial pmf, ``d`` is a valid bound (at the data's largest count),
    and its digits are the tables' delta column."""
    bound = _data_bound(dataset_name)
    betas = [sampling_probability(e) for e in epsilons]
    total = ka.printed_pmf_total(5, betas[0])
    corrected = [ka.d_corrected(2, b, e, bound) for b, e in zip(betas, epsilons, strict=True)]
    as_pmf = formula_status([ka.printed_pmf_total(w, betas[0]) for w in range(1, 6)], 1.0)
    status = typo_status(as_pmf, delta_status(corrected, betas),
                         typo="exponent of β in f (β^j, not β^w)")  # fmt: skip
    eps, column = _column(epsilons)
    if eps:
        d_paper = [ka.d_corrected(2, sampling_probability(e), e, bound) for e in eps]
        digits = digits_status(d_paper, column, DELTA_DECIMALS)
        status = status.tried(
            digits.as_reading("the tables' δ column computed with the binomial pmf", supported=True)
        )
    values = {"total-first": shown(total, 3), "w": 5, "epsilon-first": epsilons[0],
              "bound": bound}  # fmt: skip
    return Result(status, values)


def sum_index(*, dataset_name: str, epsilons: tuple[float, ...]) -> Result:
    """The sum in ``d`` runs from ``j = 0``, but ``f`` is defined for ``j`` in
    ``[w] = {1, ..., w}``: as printed, ``d`` needs ``f(0; w, beta)``, which the theorem does
    not define. Read from ``j = 1``, ``d`` is 1 (the sum is empty at ``w = 1``); from
    ``j = 0`` it gives the tables' digits."""
    bound = _data_bound(dataset_name)
    betas = [sampling_probability(e) for e in epsilons]
    from_one = [ka.d_sum_from_one(2, b, e, bound) for b, e in zip(betas, epsilons, strict=True)]
    from_zero = [ka.d_corrected(2, b, e, bound) for b, e in zip(betas, epsilons, strict=True)]
    eps, column = _column(epsilons)
    basis = (f"f is defined for j = 1..w, the sum starts at j = 0; from j = 1, d = "
             f"{number(min(from_one))} (no guarantee); from j = 0, d = "
             f"{number(from_zero[0])} at ε = {number(epsilons[0])}")  # fmt: skip
    readings = [
        Reading(
            "the sum from j = 1, as f's domain says",
            "holds",
            f"d = {number(min(from_one))}: true, but no guarantee",
        )
    ]
    if eps:
        d_paper = [ka.d_corrected(2, sampling_probability(e), e, bound) for e in eps]
        digits = digits_status(d_paper, column, DELTA_DECIMALS)
        readings.append(digits.as_reading("the sum from j = 0, as the tables compute it",
                                          supported=True))  # fmt: skip
    status = Status("typo", basis, float(min(from_one)), readings=tuple(readings))
    return Result(status, {"from-one-min": min(from_one), "from-zero-first": from_zero[0]})


def proof_last_step(*, dataset_name: str, epsilons: tuple[float, ...], enum_bound: int) -> Result:
    """The proof's last line writes ``1 - min P(S) = d``; the numbers give only "<=": the
    cell that gains a record is judged with the threshold of one record more. Chapter 08's
    grid: bounds 1..``enum_bound`` and the data's largest count, first and last epsilon."""
    bounds = sorted(set(range(1, enum_bound + 1)) | {_data_bound(dataset_name)})
    proof, d = [], []
    for e in (epsilons[0], epsilons[-1]):
        beta = sampling_probability(e)
        for bound in bounds:
            proof.append(ka.d_proof_set(beta, e, bound))
            d.append(ka.d_corrected(2, beta, e, bound))
    status = typo_status(formula_status(d, proof), bound_status(d, proof, loose_factor=None),
                         typo="“=” of the last line (it is “≤”)")  # fmt: skip
    gap = np.array(d) - np.array(proof)
    values = {"gap-max": shown(gap.max(), 3), "rows-differ": int((gap > 1e-12).sum()),
              "rows": len(gap)}  # fmt: skip
    return Result(status, values)


def _largest_beta(epsilon: float, bound: int) -> float:
    """The largest beta whose (corrected) d leaves 1 - d at least VACUOUS_GAP, by bisection
    (1 - d falls as beta grows)."""
    lo, hi = 1e-9, 1.0
    if 1 - ka.d_corrected(2, hi, epsilon, bound) >= VACUOUS_GAP:
        return hi
    for _ in range(30):  # beta to within 1e-9
        mid = (lo + hi) / 2
        if 1 - ka.d_corrected(2, mid, epsilon, bound) >= VACUOUS_GAP:
            lo = mid
        else:
            hi = mid
    return lo


def beta_choice(*, dataset_name: str, epsilons: tuple[float, ...]) -> Result:
    """The main text says the values of beta "are implied by the choice of epsilon (see the
    theorem)". Read literally, the theorem implies no beta: every smaller beta also gives a
    valid, non-vacuous d. Read as a cap, it holds: at the data's largest count, the largest
    beta with a non-vacuous d is close to ``1 - e^-eps`` at every epsilon."""
    bound = _data_bound(dataset_name)
    implied = np.array([sampling_probability(e) for e in epsilons])
    cap = np.array([_largest_beta(e, bound) for e in epsilons])
    half = [0.5 * b for b in implied]  # a smaller beta: valid (d >= beta) and not vacuous
    smaller_ok = [bound_status(ka.d_corrected(2, b, e, bound), b, loose_factor=None).word == "holds"
                  and 1 - ka.d_corrected(2, b, e, bound) >= VACUOUS_GAP
                  for b, e in zip(half, epsilons, strict=True)]  # fmt: skip
    literal = Reading("the theorem fixes β", "false" if all(smaller_ok) else "holds",
                      f"β = {number(half[0], 3)} also gives a valid, non-vacuous d at "
                      f"ε = {number(epsilons[0])}")  # fmt: skip
    ratio = cap / implied
    within = float(np.max(np.abs(ratio - 1)))
    cap_reading = Reading(
        "ε caps β: the largest β with a non-vacuous d at the data's size", "holds"
        if within <= 0.25 else "false",
        f"that β is {number(ratio.min(), 3)} to {number(ratio.max(), 3)} times 1 − e^−ε",
        supported=True)  # fmt: skip
    status = readings_status([literal, cap_reading])
    values = {"cap-ratio-min": shown(ratio.min(), 3), "cap-ratio-max": shown(ratio.max(), 3),
              "within-pct": percent(within, 2), "bound": bound,
              "beta-first": shown(implied[0], 3), "half-first": shown(half[0], 3)}  # fmt: skip
    return Result(status, values)


def privacy_theorem(*, dataset_name: str, epsilons: tuple[float, ...]) -> Result:
    """The corrected ``d`` (binomial pmf, sum from 0) at the data's largest count against
    the exact delta of the Bernoulli(beta) subsample, ``beta`` under both adjacencies
    (chapter 08's enumeration). DP k-anonymity post-processes the subsample, so its exact
    delta is at most ``beta`` (equal at k = 1): the factor is a lower bound on how loose
    ``d`` is."""
    bound = _data_bound(dataset_name)
    betas = np.array([sampling_probability(e) for e in epsilons])
    d = np.array([ka.d_corrected(2, b, e, bound) for b, e in zip(betas, epsilons, strict=True)])
    status = delta_status(d, betas).qualified("the exact δ is at most β (equal at k = 1)")
    values = {"beta-first": shown(betas[0], 3), "d-first": shown(d[0], 3),
              "epsilon-first": epsilons[0], "factor": shown(status.measure, 3),
              "bound": bound}  # fmt: skip
    return Result(status, values)


def bias_theorem(
    *, dataset_names: tuple[str, ...], epsilons: tuple[float, ...], k: int, reps: int, seed: int
) -> Result:
    """The theorem's indicator bias against the exact one (every cell, every epsilon; the
    chapter also checks it by simulation), and how often Mondrian merges a cell whose
    subsampled count is at least k (chapter 09's repetitions and seed): the indicator is
    not what the mechanism does to the histogram."""
    x = dataset(dataset_names[0]).histogram.counts
    printed = [ka.indicator_bias_as_printed(x, k, sampling_probability(e)) for e in epsilons]
    exact = [ka.indicator_bias(x, k, sampling_probability(e)) for e in epsilons]
    status = formula_status(np.concatenate(printed), np.concatenate(exact))
    merges = k_anonymity_merges(dataset_names, epsilons=epsilons, k=k, reps=reps, seed=seed)
    shares = merges["merged although >= k"].tolist()
    if max(shares) > 0:
        status = status.qualified("about an indicator, not the released histogram")
    return Result(status, {"merged-share-max": percent(max(shares), 2), "k": k})


def _attributes() -> tuple[str, ...]:
    from dadp_lite.data import ATTRIBUTES

    return tuple(ATTRIBUTES)


def improvement_against_subsample(
    name: str, *, k: int, epsilon: float, reps: int, seed: np.random.SeedSequence
) -> float:
    """Mean over ``reps`` repetitions of ``||r - s||_1``: DP k-anonymity's release ``r``
    against the histogram ``s`` of its own subsample (all attributes as QI, the paper's
    setting)."""
    table = CellTable.from_records(dataset(name).records, _attributes(), attributes=_attributes())
    rng = np.random.default_rng(seed)
    kept, first = thin_cells(table, sampling_probability(epsilon), rng=rng, reps=reps)
    released = reconstruct_batch(mondrian_batch(table, kept, first, k), rng=rng)
    subsample = np.zeros_like(released)
    subsample[:, table.flat_index] = kept
    return float(np.abs(released - subsample).sum(axis=1).mean())


def improves_claim(
    *, dataset_names: tuple[str, ...], k_values: tuple[int, ...], epsilons: tuple[float, ...],
    reps: int, seed: int, n_boot: int,
) -> Result:  # fmt: skip
    """The paper's remark that DP k-anonymity "improves upon the deterministic mechanism for
    small values of epsilon as an artifact of the sampling procedure which considers fewer
    records", at the smallest epsilon of chapter 09's sweep, for every (dataset, k). Read
    as the figure's caption does (errors against the original histogram), and as the
    remark's explanation suggests (the release against its own subsample)."""
    sweep = k_anonymity_sweeps(dataset_names, k_values=k_values, epsilons=epsilons, reps=reps,
                               seed=seed, n_boot=n_boot)  # fmt: skip
    eps = min(epsilons)
    trad = sweep[sweep["mechanism"] == "k_anonymity"].set_index(["dataset", "k"])["l1_error"]
    low = sweep[(sweep["mechanism"] == "dp_k_anonymity") & (sweep["epsilon"] == eps)]
    dp = low.set_index(["dataset", "k"])["l1_error"]
    original = claim_status([bool(dp[key] < trad[key]) for key in trad.index])
    sub = []
    for i, name in enumerate(dataset_names):
        for j, k in enumerate(k_values):
            seed_ij = np.random.SeedSequence([seed, i, j, 11])
            sub.append(improvement_against_subsample(name, k=k, epsilon=eps, reps=reps,
                                                     seed=seed_ij) < trad[(name, k)])  # fmt: skip
    subsample = claim_status(sub)
    readings = [original.as_reading("errors against the original histogram, as the figure "
                                    "reports them", supported=True),
                subsample.as_reading("the release against its own subsample")]  # fmt: skip
    status = (readings_status(readings) if original.word != subsample.word
              else original.tried(*readings))  # fmt: skip
    better = [k for (name, k), flag in (dp < trad).items() if flag]
    values = {"holds-n": fraction(int((dp < trad).sum()), len(trad)),
              "subsample-n": fraction(sum(sub), len(sub)), "epsilon": eps,
              "better-k": listing(sorted(set(better))) if better else "none"}  # fmt: skip
    return Result(status, values)


_DATASETS = {"dataset_names": "DATASETS"}

FINDINGS: tuple[Finding, ...] = (
    Finding("ka-printed-pmf", "f in the privacy theorem of DP k-anonymity",
            "08-k-anonymity-privacy", "ka-privacy", printed_pmf,
            parameters={"dataset_name": "DATASET", "epsilons": "EPSILONS"}),
    Finding("ka-sum-index", "The range of the sum in d", "08-k-anonymity-privacy",
            "ka-privacy", sum_index,
            parameters={"dataset_name": "DATASET", "epsilons": "EPSILONS"}),
    Finding("ka-proof-last-step", "Its proof, last step", "08-k-anonymity-privacy",
            "ka-privacy", proof_last_step,
            parameters={"dataset_name": "DATASET", "epsilons": "EPSILONS",
                        "enum_bound": "ENUM_BOUND"}),
    Finding("ka-beta-choice", "β = 1 − e^−ε, implied by the theorem?",
            "08-k-anonymity-privacy", "ka-beta", beta_choice,
            parameters={"dataset_name": "DATASET", "epsilons": "EPSILONS"}),
    Finding("ka-privacy-theorem", "The privacy theorem of DP k-anonymity",
            "08-k-anonymity-privacy", "ka-privacy", privacy_theorem,
            parameters={"dataset_name": "DATASET", "epsilons": "EPSILONS"}),
    Finding("ka-bias-theorem", "The bias theorem of DP k-anonymity", "09-k-anonymity-bias",
            "ka-bias", bias_theorem,
            parameters={**_DATASETS, "epsilons": "EPSILONS", "k": "K", "reps": "REPS",
                        "seed": "SEED"}),
    Finding("ka-improves-claim", "DP k-anonymity against k-anonymity at small ε",
            "09-k-anonymity-bias", "ka-errors", improves_claim,
            parameters={**_DATASETS, "k_values": "K_VALUES", "epsilons": "EPSILONS",
                        "reps": "REPS", "seed": "SEED", "n_boot": "N_BOOT"}),
)  # fmt: skip
