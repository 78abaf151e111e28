"""Errata of the alpha-fairness bounds and the comparison theorem (chapters 10 and 11)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dadp_lite.data import DATASETS
from dadp_lite.errata.baselines import ALPHA_REPLICATES, ALPHA_SEED, laplace_alpha_replicates
from dadp_lite.errata.record import Finding, Result, dataset
from dadp_lite.errata.status import (
    ROUND_OFF,
    bound_status,
    formula_status,
    reproduced_status,
)
from dadp_lite.experiments import confirm_counterexample, simulated_alpha
from dadp_lite.mechanisms import laplace
from dadp_lite.paper import PAPER_EPSILONS, PAPER_K, PAPER_QI, PAPER_REPS, paper_value
from dadp_lite.simulate import simulate
from dadp_lite.theory import baselines, fairness
from dadp_lite.theory.cell_suppression import suppression_probabilities

__all__ = ["FINDINGS"]

#: Seeds of chapters 10 and 11 (full profile).
SEED_BOUNDS = 20230810
SEED_COMPARISON = 20230811


def bounds_loose(*, dataset_name: str, k: int, epsilon: float, qi: tuple[str, ...]) -> Result:
    hist = dataset(dataset_name).histogram
    x = hist.counts
    pairs = {
        "lap": (baselines.laplace_alpha_as_printed(x, epsilon=epsilon),
                baselines.projected_laplace_alpha(x, epsilon=epsilon)),
        "cs": (fairness.alpha_cell_suppression_as_printed(x, k=k, epsilon=epsilon),
               fairness.alpha_cell_suppression(x, k=k, epsilon=epsilon)),
        "sw": (fairness.alpha_swapping_as_printed(x, n_q=hist.n_qi(qi), epsilon=epsilon),
               fairness.alpha_swapping(hist.to_qi_matrix(qi), epsilon=epsilon)),
    }  # fmt: skip
    status = bound_status([b for b, _ in pairs.values()], [t for _, t in pairs.values()])
    values = {"lap-bound": pairs["lap"][0], "lap-alpha": pairs["lap"][1]}
    values.update({f"{name}-ratio": b / t for name, (b, t) in pairs.items()})
    return Result(status, values)


def tight_claim(*, k: int, epsilons: tuple[float, ...]) -> Result:
    """The proof's claim that the cell-suppression bound is tight when ``x_n = k/2``, on
    the family ``(x_1, k/2)``, ``x_1 = 0 .. k/2 - 1`` (chapter 10's family)."""
    family = np.array([[x1, k // 2] for x1 in range(k // 2)])
    bounds, trues, excess = [], [], []
    for e in epsilons:
        bound = fairness.alpha_cell_suppression_as_printed(family, k=k, epsilon=e)
        true = fairness.alpha_cell_suppression(family, k=k, epsilon=e)
        p = suppression_probabilities(family, k=k, epsilon=e)
        formula = (k / 2 - family[:, 0]) * (p[:, 0] - p[:, 1])
        if formula_status(bound - true, formula).word != "valid":
            raise AssertionError("the excess is no longer (k/2 - x_1)(p_1 - p_n)")
        bounds += list(bound)
        trues += list(true)
        excess += list((bound - true) / bound)
    return Result(formula_status(bounds, trues), {"excess-max-pct": 100 * max(excess)})


def swapping_bound(*, dataset_names: tuple[str, ...], epsilon: float,
                   qi: tuple[str, ...]) -> Result:  # fmt: skip
    printed, true, values, half = [], [], {}, []
    for name in dataset_names:
        hist = dataset(name).histogram
        n_q = hist.n_qi(qi)
        printed.append(fairness.alpha_swapping_as_printed(hist.counts, n_q=n_q, epsilon=epsilon))
        true.append(fairness.alpha_swapping(hist.to_qi_matrix(qi), epsilon=epsilon))
        extremes = fairness.swapping_bias_spread(hist.to_qi_matrix(qi))
        if not extremes.in_largest_group:
            raise AssertionError(f"{name}: the bias extremes left the largest cell's group")
        if not math.isclose(extremes.printed_ratio, printed[-1] / true[-1], rel_tol=ROUND_OFF):
            raise AssertionError(f"{name}: the spread formula no longer gives alpha_SW")
        values[f"ratio-{name}"] = extremes.printed_ratio
        values[f"group-min-{name}"] = extremes.group_min
        values[f"x1-{name}"] = extremes.smallest
        if math.isclose(extremes.printed_ratio, 2.0, rel_tol=ROUND_OFF):
            half.append(DATASETS[name].paper_label)
    values["half-on"] = " and ".join(half) if half else "none"
    values["sharp-factor"] = n_q / (n_q - 1)
    return Result(bound_status(printed, true), values)


def simulated_floor(
    *, dataset_name: str, epsilon: float, reps: int, seed: int, replicates: int,
    replicate_seed: int,
) -> Result:  # fmt: skip
    x = dataset(dataset_name).histogram.counts
    bias = baselines.projected_laplace_bias(x, epsilon=epsilon)
    se = np.sqrt(baselines.projected_laplace_variance(x, epsilon=epsilon) / reps)
    sim = simulate(laplace, x, reps=reps, seed=np.random.SeedSequence(seed + 1).spawn(1)[0],
                   chunk_size=reps, progress=False, epsilon=epsilon, project=True)  # fmt: skip
    ours = simulated_alpha(sim, x).alpha
    runs = laplace_alpha_replicates(dataset_name, (epsilon,), reps, replicates, replicate_seed)
    spread = math.sqrt(2) * float(runs["sd"][0])  # two runs of the same statistic
    paper = paper_value(dataset_name, "laplace", epsilon, "alpha")
    true = float(np.ptp(bias))
    status = reproduced_status(ours, paper, spread)
    if reproduced_status(true, paper, spread).word == "not reproduced":
        status = status.qualified("the Monte Carlo floor, not alpha")
    values = {"floor": baselines.expected_empirical_alpha(bias, se), "simulated": ours,
              "true": true, "paper": paper}  # fmt: skip
    return Result(status, values)


def _picks(search: fairness.ComparisonSearch) -> pd.DataFrame:
    """Chapter 11's picks: per comparison, the smallest counterexample to the true-alpha
    reading, at its (epsilon, k) of largest ``epsilon * excess``."""
    violations = search.violations[search.violations["quantity"] == "true"]
    picks = []
    for _, rows in violations.groupby("comparison", sort=False):
        first = rows[rows["counts"] == rows.iloc[0]["counts"]]
        picks.append(first.loc[(first["epsilon"] * first["excess"]).idxmax()])
    return pd.DataFrame(picks).reset_index(drop=True)


def _confirm(picks: pd.DataFrame, seed: int, max_reps: int) -> list[float]:
    zs = []
    for i, row in picks.iterrows():
        check = confirm_counterexample(
            row["counts"], comparison=row["comparison"], epsilon=row["epsilon"], seed=seed + i,
            k=None if np.isnan(row["k"]) else row["k"],
            n_q=None if np.isnan(row["n_q"]) else int(row["n_q"]), max_reps=max_reps,
        )  # fmt: skip
        zs.append(check.z)
    return zs


def comparison_theorem(
    *, max_count: int, seed: int, max_sim_reps: int, dataset_names: tuple[str, ...],
    epsilons: tuple[float, ...], qi: tuple[str, ...],
) -> Result:  # fmt: skip
    search = fairness.comparison_search(max_count=max_count)
    picks = _picks(search).set_index("comparison")
    cs, sw = picks.loc["laplace_vs_cell_suppression"], picks.loc["laplace_vs_swapping"]
    status = bound_status([cs.alpha_other, sw.alpha_other], [cs.alpha_lap, sw.alpha_lap],
                          loose_factor=None)  # fmt: skip
    summary = search.summary.set_index("quantity").loc["printed"]
    if (summary["violations"] == 0).all():
        status = status.qualified("holds for the printed bounds")
    zs = _confirm(picks.reset_index(), seed, max_sim_reps)
    counts, n_q = tuple(sw.counts), int(sw.n_q)
    matrix = tuple(counts[i : i + n_q] for i in range(0, len(counts), n_q))
    real, fails = [], set()
    for name in dataset_names:
        hist = dataset(name).histogram
        real.append(int(hist.counts.min()))
        for e in epsilons:
            lap = baselines.laplace_alpha_as_printed(hist.counts, epsilon=e)
            swp = fairness.alpha_swapping_as_printed(hist.counts, n_q=hist.n_qi(qi), epsilon=e)
            if lap > swp:
                fails.add(e)
    first = dataset(dataset_names[0]).histogram
    values = {
        "cs-counts": str(tuple(cs.counts)), "cs-k": int(cs.k), "cs-epsilon": float(cs.epsilon),
        "cs-alpha-lap": cs.alpha_lap, "cs-alpha-other": cs.alpha_other,
        "sw-matrix": str(matrix), "sw-alpha-lap": sw.alpha_lap, "sw-alpha-other": sw.alpha_other,
        "z-floor": int(min(zs)), "x1-max": max(real),
        "printed-fail-eps": ", ".join(f"{e:g}" for e in sorted(fails)) or "none",
        "first-lap-printed-last": baselines.laplace_alpha_as_printed(
            first.counts, epsilon=epsilons[-1]),
        "first-sw-printed-last": fairness.alpha_swapping_as_printed(
            first.counts, n_q=first.n_qi(qi), epsilon=epsilons[-1]),
    }  # fmt: skip
    return Result(status, values)


_ALL = ("ma2019", "tx2019", "national2019")
_EPS = tuple(PAPER_EPSILONS)

FINDINGS: tuple[Finding, ...] = (
    Finding("alpha-bounds-loose", "α bounds of cell suppression, swapping and Laplace",
            "10-alpha-fairness-bounds",
            {"dataset_name": "ma2019", "k": PAPER_K, "epsilon": _EPS[0], "qi": PAPER_QI},
            bounds_loose),
    Finding("cs-alpha-tight-claim", "Tightness of the cell-suppression α bound",
            "10-alpha-fairness-bounds", {"k": PAPER_K, "epsilons": _EPS}, tight_claim),
    Finding("swapping-alpha-bound", "The swapping α bound", "10-alpha-fairness-bounds",
            {"dataset_names": _ALL, "epsilon": _EPS[0], "qi": PAPER_QI}, swapping_bound),
    Finding("simulated-alpha-floor", "Simulated α of Laplace", "10-alpha-fairness-bounds",
            {"dataset_name": "ma2019", "epsilon": _EPS[0], "reps": PAPER_REPS,
             "seed": SEED_BOUNDS, "replicates": ALPHA_REPLICATES, "replicate_seed": ALPHA_SEED},
            simulated_floor),
    Finding("comparison-theorem", "Fairness comparison theorem", "11-fairness-comparison",
            {"max_count": 5, "seed": SEED_COMPARISON, "max_sim_reps": 2_000_000,
             "dataset_names": _ALL, "epsilons": _EPS, "qi": PAPER_QI}, comparison_theorem),
)  # fmt: skip
