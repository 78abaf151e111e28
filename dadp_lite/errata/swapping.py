"""Findings of DP swapping: privacy theorem and bias (chapters 06 and 07)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dadp_lite.data import dataset_label, feature_domains
from dadp_lite.errata.record import Finding, Result, Value, dataset, shown
from dadp_lite.errata.runs import swapping_sweeps
from dadp_lite.errata.show import number
from dadp_lite.errata.status import (
    MUCH_FACTOR,
    Status,
    bound_status,
    claim_status,
    delta_status,
    formula_status,
    readings_status,
)
from dadp_lite.theory import swapping as sw

__all__ = ["FINDINGS", "n_qi"]


def n_qi(qi: tuple[str, ...]) -> int:
    """The number of QI values: the product of the QI attributes' domain sizes."""
    domains = feature_domains()
    unknown = [name for name in qi if name not in domains]
    if unknown:
        raise ValueError(f"qi: unknown attribute(s) {unknown}; known: {sorted(domains)}")
    return math.prod(len(domains[name]) for name in qi)


def _tag(epsilon: float) -> str:
    return f"{epsilon:g}".replace(".", "p")


def privacy(*, epsilons: tuple[float, ...], qi: tuple[str, ...]) -> Result:
    """The printed delta against the exact delta of the two mechanisms the paper calls DP
    swapping, under the adjacency of its proof (QI-replace): the main text's, which moves a
    whole cell, and the appendix's, which moves each record."""
    eps = np.asarray(epsilons, dtype=float)
    n_q = n_qi(qi)
    printed = np.atleast_1d(sw.dp_swapping_delta_as_printed(eps, n_q))
    cell = np.atleast_1d(sw.dp_swapping_delta(eps, n_q, unit="cell", adjacency="qi_replace"))
    record = np.atleast_1d(sw.dp_swapping_delta(eps, n_q, unit="record", adjacency="qi_replace"))
    on_cell, on_record = delta_status(printed, cell), delta_status(printed, record)
    status = readings_status([
        on_cell.as_reading("the main text's mechanism, which moves a whole cell (the proof's)"),
        on_record.as_reading("the appendix's algorithm, which moves each record"),
    ])  # fmt: skip
    values = {"word-cell": on_cell.word, "word-record": on_record.word,
              "n-q": n_q, "epsilon-first": eps[0], "epsilon-last": eps[-1],
              "printed-first": printed[0], "cell-first": cell[0],
              "printed-last": printed[-1], "cell-last": cell[-1], "record-max": record.max(),
              "gap-min": shown((cell - printed).min(), 3),
              "gap-max": shown((cell - printed).max(), 3)}  # fmt: skip
    for e, p, c in zip(eps, printed, cell, strict=True):
        values[f"printed-eps{_tag(e)}"], values[f"cell-eps{_tag(e)}"] = p, c
    return Result(status, values)


def proof_ratio(*, epsilons: tuple[float, ...], qi: tuple[str, ...]) -> Result:
    """The proof's claim that the likelihood ratio on its set S is at most ``e^eps``,
    against the exact ratio of one output in S: a group with counts (0, 2) against (1, 1),
    both records at the second QI value (exact output laws of the per-cell mechanism). The
    ratio is ``e^eps + n_Q - 1``. The exact delta of chapter 06 is derived without this
    step, so the step is a gap of the proof, not of the value."""
    n_q = n_qi(qi)
    x = np.zeros((1, n_q), dtype=int)
    x_prime = np.zeros((1, n_q), dtype=int)
    x[0, 1], x_prime[0, :2] = 2, (1, 1)
    together = tuple(x.ravel())  # both records at the second QI value: an output in S
    ratios = np.array([sw.dp_swapping_output_distribution(x, e, "cell")[together]
                       / sw.dp_swapping_output_distribution(x_prime, e, "cell")[together]
                       for e in epsilons])  # fmt: skip
    claimed = np.exp(np.asarray(epsilons, dtype=float))
    step = bound_status(claimed, ratios, loose_factor=None)
    status = step
    if step.word == "false":
        status = Status("proof gap", f"the ratio on S reaches {number(ratios[0], 3)} where the "
                        f"proof claims at most e^ε = {number(claimed[0], 3)} (ε = "
                        f"{number(epsilons[0])})", step.measure)  # fmt: skip
    values = {"ratio-first": shown(ratios[0], 3), "claimed-first": shown(claimed[0], 3),
              "epsilon-first": epsilons[0], "n-q": n_q}  # fmt: skip
    return Result(status, values)


def bias_and_l1(*, dataset_name: str, epsilons: tuple[float, ...], qi: tuple[str, ...]) -> Result:
    """The bias proposition and the l1 theorem against the exact expected release, every
    cell and epsilon of chapter 07 (exact for both units: they have the same expectation)."""
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
    return Result(status, {"groups-once-factor": shown(factor.mean(), 3), "n-q": hist.n_qi(qi),
                           "dataset": dataset_label(dataset_name)})  # fmt: skip


def _error_ratio(numerator: ArrayLike, denominator: ArrayLike) -> np.ndarray:
    """``numerator / denominator`` for errors (>= 0), element by element: 1 where both are
    0 (equal errors), unbounded where only the denominator is 0 (at a large epsilon DP
    swapping may move no record at all)."""
    num, den = np.broadcast_arrays(np.asarray(numerator, float), np.asarray(denominator, float))
    ratio = np.full(num.shape, np.inf)
    np.divide(num, den, out=ratio, where=den > 0)
    return np.where((num == 0) & (den == 0), 1.0, ratio)


def _ratio_shown(ratio: float) -> Value:
    """A ratio of errors in 3 significant digits, or the word for one that has no bound."""
    return shown(float(ratio), 3) if np.isfinite(ratio) else shown(number(np.inf))


def traditional_vs_dp(
    *, dataset_names: tuple[str, ...], rates: tuple[float, ...], epsilons: tuple[float, ...],
    reps: int, seed: int, qi: tuple[str, ...],
) -> Result:  # fmt: skip
    """The paper's claim that traditional and DP swapping have close errors, "close"
    read as within :data:`~dadp_lite.errata.MUCH_FACTOR` of each other, on chapter 07's
    sweep of the first dataset. Two readings: the closest pair the sweep has (the largest
    traditional error against the smallest DP error), and each DP setting against
    traditional swapping that moves the same share of records."""
    name = dataset_names[0]
    sweep = swapping_sweeps(
        dataset_names, rates=rates, epsilons=epsilons, reps=reps, seed=seed, qi=qi
    )[name]
    trad = sweep[sweep["mechanism"] == "swapping"].sort_values("fraction")
    dp = sweep[sweep["mechanism"] == "dp_swapping"]
    trad_max, dp_min = float(trad["l1_error"].max()), float(dp["l1_error"].min())
    closest = float(_error_ratio(max(trad_max, dp_min), min(trad_max, dp_min)))
    dp_error = dp["l1_error"].to_numpy()
    trad_error = np.interp(dp["fraction"].to_numpy(), trad["fraction"].to_numpy(),
                           trad["l1_error"].to_numpy())  # fmt: skip
    matched = _error_ratio(dp_error, trad_error)
    apart = np.maximum(matched, _error_ratio(trad_error, dp_error))  # either way round
    pair = claim_status([closest < MUCH_FACTOR])
    same_share = claim_status([bool(r < MUCH_FACTOR) for r in apart])
    readings = [pair.as_reading("the closest pair of the sweep"),
                same_share.as_reading("at the same share of records moved")]  # fmt: skip
    status = readings_status(readings) if pair.word != same_share.word else pair.tried(*readings)
    values = {"traditional-max": shown(trad_max, 3), "dp-min": shown(dp_min, 3),
              "ratio": _ratio_shown(closest), "matched-min": _ratio_shown(matched.min()),
              "matched-max": _ratio_shown(matched.max()), "dataset": dataset_label(name),
              "epsilon-max": max(epsilons), "factor": MUCH_FACTOR}  # fmt: skip
    return Result(status, values)


FINDINGS: tuple[Finding, ...] = (
    Finding("swapping-privacy", "The privacy theorem of DP swapping", "06-swapping-privacy",
            "sw-privacy", privacy, parameters={"epsilons": "EPSILONS", "qi": "QI"}),
    Finding("swapping-proof-ratio", "Its proof: the likelihood ratio on S",
            "06-swapping-privacy", "sw-privacy", proof_ratio,
            parameters={"epsilons": "EPSILONS", "qi": "QI"}),
    Finding("swapping-bias-l1", "The bias of DP swapping and its ℓ₁ norm", "07-swapping-bias",
            "sw-bias", bias_and_l1,
            parameters={"dataset_name": "DATASET", "epsilons": "EPSILONS", "qi": "QI"}),
    Finding("swapping-traditional-vs-dp", "Traditional against DP swapping", "07-swapping-bias",
            "sw-errors-close", traditional_vs_dp,
            parameters={"dataset_names": "DATASETS", "rates": "RATES", "epsilons": "EPSILONS",
                        "reps": "REPS", "seed": "SEED", "qi": "QI"}),
)  # fmt: skip
