"""Findings of the alpha-fairness bounds and the comparison theorem (chapters 10 and 11)."""

from __future__ import annotations

import numpy as np

from dadp_lite.data import dataset_label
from dadp_lite.errata.record import Finding, Result, dataset, shown
from dadp_lite.errata.runs import counterexample_checks, fairness_search
from dadp_lite.errata.show import fraction, number, percent
from dadp_lite.errata.status import (
    LOOSE_FACTOR,
    LOOSE_MARGIN,
    Reading,
    Status,
    bound_status,
    claim_status,
    formula_status,
    readings_status,
)
from dadp_lite.theory import baselines, fairness
from dadp_lite.theory.cell_suppression import suppression_probabilities
from dadp_lite.verification import z_limit

__all__ = ["FINDINGS"]


def alpha_cs_bound(
    *, dataset_names: tuple[str, ...], k: int, epsilons: tuple[float, ...]
) -> Result:
    """The printed alpha of DP cell suppression against its true alpha on every dataset
    and epsilon of chapter 10."""
    bounds, trues, where = [], [], []
    for name in dataset_names:
        x = dataset(name).histogram.counts
        for e in epsilons:
            bounds.append(fairness.alpha_cell_suppression_as_printed(x, k=k, epsilon=e))
            trues.append(fairness.alpha_cell_suppression(x, k=k, epsilon=e))
            where.append((name, e))
    status = bound_status(bounds, trues)
    ratio = np.array(bounds) / np.array(trues)
    i = int(np.argmax(ratio))
    values = {"ratio-min": shown(ratio.min(), 3), "ratio-max": shown(ratio.max(), 3),
              "max-dataset": dataset_label(where[i][0]), "max-epsilon": where[i][1],
              "first-ratio": shown(ratio[0], 3), "first-dataset": dataset_label(where[0][0]),
              "first-epsilon": where[0][1]}  # fmt: skip
    return Result(status, values)


def tight_claim(*, k: int, epsilons: tuple[float, ...]) -> Result:
    """The remark that the cell-suppression bound "is also tight when x_n = k/2", on the
    family ``(x_1, k/2)``, ``x_1 = 0 .. k/2 - 1`` (chapter 10's family, every epsilon).
    Read about the bound, it fails: the bound exceeds the true alpha by
    ``(k/2 - x_1)(p_1 - p_n)``. Read about the last step of the proof's chain (the maximum
    over cells of ``|k/2 - x_j|`` is at ``x_1`` or ``x_n``), it holds, for every
    histogram: the condition adds nothing."""
    family = np.array([[x1, k // 2] for x1 in range(k // 2)])
    bounds, trues, excess = [], [], []
    for e in epsilons:
        bound = fairness.alpha_cell_suppression_as_printed(family, k=k, epsilon=e)
        true = fairness.alpha_cell_suppression(family, k=k, epsilon=e)
        p = suppression_probabilities(family, k=k, epsilon=e)
        formula = (k / 2 - family[:, 0]) * (p[:, 0] - p[:, 1])
        if formula_status(bound - true, formula).word != "holds":
            raise AssertionError("the excess is no longer (k/2 - x_1)(p_1 - p_n)")
        bounds += list(bound)
        trues += list(true)
        excess += list((bound - true) / bound)
    as_bound = formula_status(bounds, trues)
    steps = np.abs(k / 2 - family).max(axis=1)  # max_j |k/2 - x_j| over the two cells
    ends = np.maximum(np.abs(k / 2 - family[:, 0]), np.abs(k / 2 - family[:, 1]))
    as_step = formula_status(steps, ends)
    status = readings_status([
        as_bound.as_reading("the bound equals the true α when xₙ = k/2"),
        Reading("the last step of the proof's chain is an equality", as_step.word,
                "it is, for every histogram, so the condition xₙ = k/2 adds nothing"),
    ])  # fmt: skip
    return Result(status, {"excess-max": percent(max(excess), 2), "k": k})


def alpha_sw_bound(*, dataset_names: tuple[str, ...], epsilons: tuple[float, ...],
                   qi: tuple[str, ...]) -> Result:  # fmt: skip
    """The printed alpha of DP swapping against its true alpha, every dataset and epsilon
    of chapter 10; and the sharpest bound of the same form, ``2 (n_Q - 1)(x_n - x_1) /
    (e^eps + n_Q - 1)``, which a two-group histogram attains: the printed one is
    ``n_Q / (n_Q - 1)`` times it."""
    printed, true = [], []
    n_q = 0
    for name in dataset_names:
        hist = dataset(name).histogram
        n_q = hist.n_qi(qi)
        for e in epsilons:
            printed.append(fairness.alpha_swapping_as_printed(hist.counts, n_q=n_q, epsilon=e))
            true.append(fairness.alpha_swapping(hist.to_qi_matrix(qi), epsilon=e))
    status = bound_status(printed, true)
    ratio = np.array(printed) / np.array(true)
    sharp = n_q / (n_q - 1)
    status = status.qualified(f"{number(sharp, 4)} times the sharpest bound of its form")
    values = {"ratio-min": shown(ratio.min(), 3), "ratio-max": shown(ratio.max(), 3),
              "sharp-factor": shown(sharp, 4), "sharp-fraction": f"{n_q}/{n_q - 1}",
              "loose-from": shown(LOOSE_FACTOR * LOOSE_MARGIN, 3), "n-q": n_q}  # fmt: skip
    return Result(status, values)


def comparison_theorem(*, n_cells, max_count, epsilons, k_values, n_qs) -> Result:
    """Theorem 10 compares the printed bounds alpha_Lap, alpha_CS and alpha_SW (the
    theorems name them the mechanisms' fairness errors): under its hypothesis
    ``2 <= x_1 <= k`` the search of chapter 11 finds no histogram where it fails."""
    search = fairness_search(n_cells=n_cells, max_count=max_count, epsilons=epsilons,
                             k_values=k_values, n_qs=n_qs)  # fmt: skip
    printed = search.summary[search.summary["quantity"] == "printed"]
    checked = int(printed["checked"].sum())
    violations = int(printed["violations"].sum())
    if violations == 0:
        status = Status("holds", f"the printed bounds are ordered as claimed on all "
                        f"{number(checked)} histograms of the search that meet the hypothesis",
                        0.0)  # fmt: skip
    else:
        status = Status("false", f"the printed bounds are misordered on {number(violations)} "
                        "histograms that meet the hypothesis", float(violations))  # fmt: skip
    return Result(status, {"checked": checked})


def comparison_reading(
    *, n_cells, max_count, epsilons, k_values, n_qs, dataset_names, table_epsilons, k, qi,
    max_sim_reps, seed,
) -> Result:  # fmt: skip
    """The sentence that introduces Theorem 10, "it proves the superiority of the Laplace
    mechanism ... in terms of fairness errors", read about the mechanisms' true alpha:
    false on small histograms that meet the hypothesis (chapter 11's search, the smallest
    counterexample of each kind confirmed by simulation); true on the NIST tables (which do
    not meet the hypothesis: they have empty cells)."""
    grid = {"n_cells": n_cells, "max_count": max_count, "epsilons": epsilons,
            "k_values": k_values, "n_qs": n_qs}  # fmt: skip
    search = fairness_search(**grid)
    true = search.summary[search.summary["quantity"] == "true"].set_index("comparison")
    picks, checks = counterexample_checks(**grid, max_sim_reps=max_sim_reps, seed=seed)
    limit = z_limit(max(len(picks), 1))
    zs = [check.z for check in checks]
    violations = int(true["violations"].sum())
    small = Reading("the true α of the mechanisms, on small histograms that meet the hypothesis",
                    "false" if violations else "holds",
                    f"Laplace has the larger true α in {number(violations)} of "
                    f"{number(int(true['checked'].sum()))} configurations")  # fmt: skip
    real = []
    for name in dataset_names:
        hist = dataset(name).histogram
        x = hist.counts
        for e in table_epsilons:
            lap = baselines.projected_laplace_alpha(x, epsilon=e)
            cs = fairness.alpha_cell_suppression(x, k=k, epsilon=e)
            sw = fairness.alpha_swapping(hist.to_qi_matrix(qi), epsilon=e)
            real.append(bool(lap < cs and lap < sw))
    on_data = claim_status(real)
    data = Reading("the true α on the NIST tables", "holds" if on_data.word == "reproduced"
                   else "false", f"Laplace has the smallest true α in "
                   f"{fraction(sum(real), len(real))} settings", supported=True)  # fmt: skip
    bounds = Reading("the printed bounds, which Theorem 10 compares", "holds",
                     "see Theorem 10")  # fmt: skip
    status = readings_status([small, bounds, data])
    values = {"word-small": small.word, "word-bounds": bounds.word, "word-data": data.word,
              "confirmed-n": fraction(sum(z > limit for z in zs), len(zs)),
              "violations-cs": int(true.loc["laplace_vs_cell_suppression", "violations"]),
              "checked-cs": int(true.loc["laplace_vs_cell_suppression", "checked"]),
              "violations-sw": int(true.loc["laplace_vs_swapping", "violations"]),
              "checked-sw": int(true.loc["laplace_vs_swapping", "checked"]),
              "real-n": fraction(sum(real), len(real)),
              "z-min": shown(min(zs), 3) if zs else "-"}  # fmt: skip
    if len(picks):
        first = picks.iloc[0]
        values["smallest-counts"] = str(tuple(int(c) for c in first["counts"]))
        values["smallest-z"] = shown(zs[0], 3)
    for tag, comparison in (("cs", "laplace_vs_cell_suppression"), ("sw", "laplace_vs_swapping")):
        values |= {f"counts-{tag}": "none found", f"z-{tag}": "-", f"reps-{tag}": 0}
        if tag == "sw":
            values["n-q-sw"] = "-"
        for (_, row), check in zip(picks.iterrows(), checks, strict=True):
            if row["comparison"] == comparison:
                counts = str(tuple(int(c) for c in row["counts"]))
                values |= {f"counts-{tag}": counts, f"z-{tag}": shown(check.z, 3),
                           f"reps-{tag}": int(check.reps)}  # fmt: skip
                if tag == "sw":
                    values["n-q-sw"] = int(row["n_q"])
    return Result(status, values)


_SEARCH = {"n_cells": "SEARCH_N_CELLS", "max_count": "MAX_COUNT",
           "epsilons": "SEARCH_EPSILONS", "k_values": "SEARCH_K_VALUES",
           "n_qs": "SEARCH_N_QS"}  # fmt: skip

FINDINGS: tuple[Finding, ...] = (
    Finding("alpha-cs-bound", "The α bound of DP cell suppression", "10-alpha-fairness-bounds",
            "alpha-cs", alpha_cs_bound,
            parameters={"dataset_names": "DATASETS", "k": "K", "epsilons": "EPSILONS"}),
    Finding("cs-alpha-tight-claim", "Tightness of the cell-suppression α bound",
            "10-alpha-fairness-bounds", "alpha-cs-tight", tight_claim,
            parameters={"k": "K", "epsilons": "EPSILONS"}),
    Finding("swapping-alpha-bound", "The α bound of DP swapping", "10-alpha-fairness-bounds",
            "alpha-sw", alpha_sw_bound,
            parameters={"dataset_names": "DATASETS", "epsilons": "EPSILONS", "qi": "QI"}),
    Finding("comparison-theorem", "The fairness comparison theorem", "11-fairness-comparison",
            "comparison", comparison_theorem, parameters=_SEARCH),
    Finding("comparison-reading", "“It proves the superiority of Laplace”",
            "11-fairness-comparison", "comparison-reading", comparison_reading,
            parameters={**_SEARCH, "dataset_names": "DATASETS", "table_epsilons": "EPSILONS",
                        "k": "K", "qi": "QI", "max_sim_reps": "MAX_SIM_REPS",
                        "seed": "SEED"}),
)  # fmt: skip
