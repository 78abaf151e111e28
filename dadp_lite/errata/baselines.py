"""Findings of the setting, Lemma 1 and the two baselines (chapters 01 to 03)."""

from __future__ import annotations

import functools
import math

import numpy as np

from dadp_lite.data import dataset_label
from dadp_lite.definitions import discrete_gaussian_sigma
from dadp_lite.errata.record import Finding, Result, dataset, shown
from dadp_lite.errata.show import listing, number
from dadp_lite.errata.status import (
    VACUOUS_GAP,
    Reading,
    Status,
    bound_status,
    delta_status,
    digits_status,
    readings_status,
    typo_status,
    vacuous,
)
from dadp_lite.paper import PAPER_EPSILONS, paper_value
from dadp_lite.registry import get
from dadp_lite.theory import accounting, baselines, lemma, privacy

__all__ = ["DG_COLUMN_DECIMALS", "FINDINGS", "dg_exact_deltas", "printed_epsilons"]

#: Printed digits of the discrete Gaussian delta column (0.363, 0.132, 0.017, 3E-4), by the
#: paper's epsilon.
DG_COLUMN_DECIMALS = {0.5: 3, 1.0: 3, 2.0: 3, 4.0: 4}


def printed_epsilons(epsilons: tuple[float, ...]) -> tuple[float, ...]:
    """The values of ``epsilons`` at which the paper prints its tables (in that order)."""
    return tuple(e for e in epsilons if any(math.isclose(e, p) for p in PAPER_EPSILONS))


def _paper_epsilon(epsilon: float) -> float:
    return next(p for p in PAPER_EPSILONS if math.isclose(epsilon, p))


@functools.cache
def dg_exact_deltas(epsilons: tuple[float, ...], adjacency: str, variance: str) -> np.ndarray:
    """Exact delta of the discrete Gaussian histogram mechanism at each epsilon, by
    enumerating the outputs of the changed cells: ``variance="stated"`` is the text's
    ``N_Z(0, 4/eps^2)`` (sigma = 2/eps), ``"table"`` the variance ``20/eps`` that the
    printed delta column implies."""
    sigma = {"stated": discrete_gaussian_sigma, "table": baselines.discrete_gaussian_table_sigma}
    return np.array([
        accounting.discrete_gaussian_delta_enumerated(
            e, sigma=float(sigma[variance](e)), adjacency=adjacency)
        for e in epsilons])  # fmt: skip


# ----------------------------------------------------------------------- findings
def unnamed_adjacency(*, dataset_names: tuple[str, ...], epsilon: float,
                      qi: tuple[str, ...]) -> Result:  # fmt: skip
    """The paper's privacy statements under the two relations its proofs use: DP swapping's
    exact delta (per cell) under QI-replace adjacency (the swapping proof's) and under
    replace-one (the cell-suppression and k-anonymity proofs'). The paper's delta column
    for DP swapping, below 1, can hold only under the first: it is the reading its numbers
    support."""
    hist = dataset(dataset_names[0]).histogram
    entry = get("dp_swapping")
    deltas = {a: entry.delta(hist, epsilon=epsilon, adjacency=a, qi=qi)
              for a in ("qi_replace", "replace", "add_remove")}  # fmt: skip
    at = f"at ε = {number(epsilon)}"
    qi_reading = Reading(
        "QI-replace adjacency, as in the swapping proof and the paper's δ column",
        "holds" if deltas["qi_replace"] < 1 else "false",
        f"DP swapping's exact δ is {number(deltas['qi_replace'])} {at}: a guarantee exists",
        supported=True)  # fmt: skip
    replace_reading = Reading(
        "replace-one or add/remove adjacency, as in the other proofs",
        "false" if min(deltas["replace"], deltas["add_remove"]) >= 1 else "holds",
        f"DP swapping's exact δ is {number(deltas['replace'])} {at}: no guarantee at all",
    )
    status = readings_status([qi_reading, replace_reading])
    values = {"delta-qi-replace": deltas["qi_replace"], "delta-replace": deltas["replace"],
              "delta-add-remove": deltas["add_remove"], "epsilon": epsilon,
              "dataset": dataset_label(dataset_names[0]), "qi": listing(qi)}  # fmt: skip
    return Result(status, values)


def lemma_sufficient(
    *, n_pairs: int, support_size: int, epsilons: tuple[float, ...], seed: int,
    log_ratio_scale: float, zero_probability: float, rr_outcomes: int, rr_keep: float,
    below: float, laplace_scale: float,
) -> Result:  # fmt: skip
    """Lemma 1 as a statement: its delta ``P(S^c)`` is never below the exact delta (random
    pairs, drawn as chapter 02 draws them), and how far above it can be just below a pure-DP
    threshold (randomized response, Laplace)."""
    rng = np.random.default_rng(seed)
    p, q = lemma.random_distribution_pairs(n_pairs, support_size, rng=rng,
                                           log_ratio_scale=log_ratio_scale,
                                           zero_probability=zero_probability)  # fmt: skip
    eps = np.asarray(epsilons, dtype=float)
    pair_lemma = lemma.lemma_delta(p, q, eps)
    pair_exact = np.array([privacy.hockey_stick(a, b, eps) for a, b in zip(p, q, strict=True)])
    status = bound_status(np.ravel(pair_lemma), np.ravel(pair_exact), loose_factor=None)
    rr = {"n_outcomes": rr_outcomes, "keep_probability": rr_keep}
    rr_eps = math.log(rr_keep * (rr_outcomes - 1) / (1 - rr_keep)) - below
    rr_lemma = lemma.randomized_response_lemma_delta(rr_eps, **rr)
    rr_exact = accounting.randomized_response_delta_closed_form(rr_eps, **rr)
    lap = {"scale": laplace_scale, "adjacency": "add_remove"}
    lap_eps = 1 / laplace_scale - below
    lap_lemma = lemma.laplace_lemma_delta(lap_eps, **lap)
    lap_exact = accounting.laplace_histogram_delta(lap_eps, **lap)
    if status.word == "holds":
        status = Status("holds", (
            f"its δ is at least the exact δ on all {number(pair_lemma.size)} pairs and "
            f"values of ε tried; just below a pure-DP threshold it is "
            f"{number(rr_lemma / rr_exact, 3)} times the exact δ"), status.measure,
            "its δ can exceed the exact δ by any factor")  # fmt: skip
    values = {"n-pairs": n_pairs, "n-checks": int(pair_lemma.size), "n-epsilons": len(eps),
              "rr-eps": shown(rr_eps, 4), "rr-lemma": shown(rr_lemma, 3),
              "rr-exact": shown(rr_exact, 3), "rr-ratio": shown(rr_lemma / rr_exact, 3),
              "lap-eps": shown(lap_eps, 4), "lap-lemma": shown(lap_lemma, 3),
              "lap-exact": shown(lap_exact, 3), "lap-ratio": shown(lap_lemma / lap_exact, 3),
              "share-strict": shown(100 * float(np.mean(pair_lemma > pair_exact + 1e-9)), 3),
              }  # fmt: skip
    return Result(status, values)


def lemma_proof_line(*, rr_outcomes: int, rr_keep: float, below: float) -> Result:
    """The proof's last line, ``P(O) <= P'(O) + delta`` for every event O, against the
    line with the factor ``e^eps``, on randomized response just above its pure-DP
    threshold (where the lemma's delta is 0)."""
    p, q = accounting.randomized_response_distributions(rr_outcomes, rr_keep)
    eps = math.log(rr_keep * (rr_outcomes - 1) / (1 - rr_keep)) + below
    delta = lemma.randomized_response_lemma_delta(
        eps, n_outcomes=rr_outcomes, keep_probability=rr_keep
    )
    as_printed = privacy.hockey_stick(p, q, 0.0)  # max_O P(O) - P'(O)
    corrected = privacy.hockey_stick(p, q, eps)  # max_O P(O) - e^eps P'(O)
    printed = bound_status(delta, as_printed, loose_factor=None)
    fixed = bound_status(delta, corrected, loose_factor=None)
    status = typo_status(printed, fixed, typo="missing factor e^ε")
    if status.word == "typo":
        status = Status("typo", (
            f"as printed the last line fails: at ε = {number(eps, 4)} the lemma's δ is "
            f"{number(delta)} but Pr[M(D) ∈ O] − Pr[M(D′) ∈ O] reaches {number(as_printed, 3)}; "
            f"with the factor e^ε the largest excess is {number(corrected, 3)}"),
            status.measure, readings=status.readings)  # fmt: skip
    values = {"epsilon": shown(eps, 4), "lemma-delta": delta,
              "printed-line-excess": shown(as_printed, 3),
              "corrected-line-excess": shown(corrected, 3)}  # fmt: skip
    return Result(status, values)


def alpha_laplace_bound(*, dataset_name: str, epsilons: tuple[float, ...]) -> Result:
    """The alpha_Lap theorem on a real histogram at every epsilon of chapter 03: the bound
    against the true alpha of projected Laplace (unprojected Laplace is unbiased: alpha 0,
    the bound holds trivially)."""
    x = dataset(dataset_name).histogram.counts
    bounds = np.array([baselines.laplace_alpha_as_printed(x, epsilon=e) for e in epsilons])
    trues = np.array([baselines.projected_laplace_alpha(x, epsilon=e) for e in epsilons])
    projected = bound_status(bounds, trues)
    plain = bound_status(bounds, np.zeros_like(bounds))
    status = projected.tried(
        projected.as_reading("projected Laplace (negative counts set to 0)"),
        plain.as_reading("Laplace without projection (unbiased: α = 0)"),
    ).qualified("the projection is not stated")  # fmt: skip
    ratio = bounds / trues
    values = {"bound-first": bounds[0], "true-first": shown(trues[0], 3),
              "epsilon-first": epsilons[0], "ratio-min": shown(ratio.min(), 3),
              "ratio-max": shown(ratio.max(), 3), "x-max": int(x.max()),
              "dataset": dataset_label(dataset_name)}  # fmt: skip
    return Result(status, values)


def dg_guarantee(*, epsilons: tuple[float, ...]) -> Result:
    """The printed ``(eps^2/2 + eps sqrt(2 log(1/delta)), delta)`` guarantee of
    ``N_Z(0, 4/eps^2)``, solved for delta, against the exact delta (replace-one adjacency,
    enumerated), under both readings of the noise: variance ``4/eps^2`` (Canonne et al.'s
    notation, sigma = 2/eps) and standard deviation ``4/eps^2`` (the text's words)."""
    eps = np.asarray(epsilons, dtype=float)
    printed = np.atleast_1d(baselines.discrete_gaussian_delta_as_printed(eps))
    exact = dg_exact_deltas(tuple(epsilons), "replace", "stated")
    variance = delta_status(printed, exact)
    status = variance.tried(variance.as_reading("variance 4/ε² (σ = 2/ε)"))
    enumerable = 4 / eps**2 <= accounting.ENUMERABLE_SIGMA_MAX  # σ = 4/ε² at the smallest ε
    if enumerable.any():
        literal = np.array([accounting.discrete_gaussian_delta_enumerated(
            e, sigma=float(4 / e**2), adjacency="replace") for e in eps[enumerable]])  # fmt: skip
        deviation = delta_status(printed[enumerable], literal)
        where = "" if enumerable.all() else f" (at ε ≥ {number(eps[enumerable].min(), 3)})"
        status = status.tried(
            deviation.as_reading(f"standard deviation 4/ε², as the text says{where}")
        )
        if deviation.word == "false":
            status = readings_status(status.readings)
    if vacuous(printed):
        vacuous_from = baselines.discrete_gaussian_vacuous_from(VACUOUS_GAP)
        status = status.qualified(f"no guarantee from ε = {number(vacuous_from, 3)}")
    values = {"vacuous-from": shown(baselines.discrete_gaussian_vacuous_from(VACUOUS_GAP), 3)}
    for e, d, t in zip(eps, printed, exact, strict=True):
        tag = f"{e:g}".replace(".", "p")
        values[f"printed-eps{tag}"], values[f"exact-eps{tag}"] = d, t
    values["epsilon-first"], values["epsilon-last"] = eps[0], eps[-1]
    values["printed-first"], values["exact-first"] = printed[0], exact[0]
    values["printed-last"], values["exact-last"] = printed[-1], exact[-1]
    return Result(status, values)


def dg_delta_column(*, epsilons: tuple[float, ...]) -> Result:
    """The tables' discrete Gaussian delta column (0.363, 0.132, 0.017, 3E-4) as a delta of
    the noise the text states (``N_Z(0, 4/eps^2)``) and of the noise the experiments imply
    (variance ``20/eps``, whose zCDP conversion gives exactly these digits), against the
    exact delta of each (replace-one, enumerated). One unit of the last printed digit is
    the printing's round-off. The catalog evaluates it at the paper's epsilons, where alone
    the column exists, so it reads the same whatever grid chapter 03 runs with."""
    eps = printed_epsilons(epsilons)
    if not eps:
        return Result(None, reason="the paper prints this column at ε = 0.5, 1, 2 and 4 only")
    decimals = [DG_COLUMN_DECIMALS[_paper_epsilon(e)] for e in eps]
    column = np.array([paper_value("ma2019", "discrete_gaussian", e, "delta") for e in eps])
    unit = 10.0 ** -min(decimals)
    stated = dg_exact_deltas(eps, "replace", "stated")
    implied = dg_exact_deltas(eps, "replace", "table")
    conversion = np.atleast_1d(baselines.discrete_gaussian_delta_table_reading(np.array(eps)))
    digits = digits_status(conversion, column, decimals)
    on_stated = delta_status(column, stated, tol=unit)
    on_implied = delta_status(column, implied, tol=unit)
    supported = digits.word == "reproduced"
    status = readings_status([
        on_stated.as_reading("the noise the text states, variance 4/ε²"),
        on_implied.as_reading("variance 20/ε, whose zCDP conversion (ρ = ε/10) gives the "
                              "printed digits", supported=supported),
    ])  # fmt: skip
    below = [e for e, c, x in zip(eps, column, stated, strict=True) if c < x - unit]
    values = {"below-eps": listing(number(e) for e in below),
              "conversion-digits": digits.word}  # fmt: skip
    for e, c, x, y in zip(eps, column, stated, implied, strict=True):
        tag = f"{e:g}".replace(".", "p")
        values[f"column-eps{tag}"] = c
        values[f"exact-eps{tag}"], values[f"implied-eps{tag}"] = x, y
    values["epsilon-last"], values["column-last"] = eps[-1], column[-1]
    values["exact-last"], values["implied-last"] = stated[-1], implied[-1]
    return Result(status, values)


_EPS = tuple(PAPER_EPSILONS)

FINDINGS: tuple[Finding, ...] = (
    Finding("unnamed-adjacency", "Which datasets are neighbours", "01-setting-and-data",
            "adjacency", unnamed_adjacency,
            parameters={"dataset_names": "DATASETS", "epsilon": "EPSILON", "qi": "QI"}),
    Finding("lemma-1-sufficient", "Lemma 1, a sufficient condition",
            "02-sufficient-condition-lemma", "lemma-1", lemma_sufficient,
            parameters={"n_pairs": "N_PAIRS", "support_size": "SUPPORT_SIZE",
                        "epsilons": "EPSILONS", "seed": "SEED",
                        "log_ratio_scale": "LOG_RATIO_SCALE",
                        "zero_probability": "ZERO_PROBABILITY", "rr_outcomes": "RR_OUTCOMES",
                        "rr_keep": "RR_KEEP", "below": "BELOW",
                        "laplace_scale": "LAPLACE_SCALE"}),
    Finding("lemma-1-proof-line", "Proof of Lemma 1, last line",
            "02-sufficient-condition-lemma", "lemma-1", lemma_proof_line,
            parameters={"rr_outcomes": "RR_OUTCOMES", "rr_keep": "RR_KEEP", "below": "BELOW"}),
    Finding("alpha-laplace-bound", "The α bound of the Laplace mechanism",
            "03-laplace-and-discrete-gaussian", "alpha-laplace", alpha_laplace_bound,
            parameters={"dataset_name": "DATASET", "epsilons": "EPSILONS"}),
    Finding("dg-guarantee", "The discrete Gaussian's guarantee",
            "03-laplace-and-discrete-gaussian", "dg-guarantee", dg_guarantee,
            parameters={"epsilons": "EPSILONS"}),
    Finding("dg-delta-column", "The discrete Gaussian δ column",
            "03-laplace-and-discrete-gaussian", "dg-tables", dg_delta_column,
            fixed={"epsilons": _EPS}),  # printed at the paper's ε only, whatever the grid
)  # fmt: skip
