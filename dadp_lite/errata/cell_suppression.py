"""Findings of DP cell suppression: privacy theorem and bias (chapters 04 and 05)."""

from __future__ import annotations

import math

import numpy as np

from dadp_lite.data import dataset_label
from dadp_lite.errata.record import Finding, Result, dataset, shown
from dadp_lite.errata.show import number, one_minus_power
from dadp_lite.errata.status import (
    Status,
    bound_status,
    delta_status,
    formula_status,
    proof_status,
    readings_status,
    vacuous,
)
from dadp_lite.mechanisms import cell_suppression, cell_suppression_main_text
from dadp_lite.theory import cell_suppression as cs

__all__ = ["FINDINGS", "RESOLVED_GAP"]

#: ``1 - delta`` below this is not resolved from a computed delta in double precision.
RESOLVED_GAP = 1e-8
_VARIANT_ADJACENCY = [(v, a) for v in ("per_cell", "noisy_threshold")
                      for a in ("replace", "add_remove")]  # fmt: skip
_NAMES = {("per_cell", "replace"): "noise per cell, replace-one (the proof's setting)",
          ("per_cell", "add_remove"): "noise per cell, add/remove",
          ("noisy_threshold", "replace"): "one noisy threshold (the appendix), replace-one",
          ("noisy_threshold", "add_remove"): "one noisy threshold, add/remove"}  # fmt: skip


def _resolved_status(printed: np.ndarray, exact: np.ndarray) -> Status:
    """:func:`delta_status` of printed against exact deltas, its looseness measured only
    where ``1 - printed`` is at least :data:`RESOLVED_GAP`: closer to 1, double precision
    cannot resolve ``1 - delta`` from the computed delta (a gap of 3e-15 carries an error
    of a few per cent, and the ratio of two such gaps is noise). Every point still counts
    for ``false``. Where no point is resolved, only ``holds`` or ``false`` is possible."""
    every = delta_status(printed, exact)
    if every.word == "false":
        return every
    resolved = 1 - printed >= RESOLVED_GAP
    if resolved.any():
        return delta_status(printed[resolved], exact[resolved])
    basis = (f"printed δ at least the exact δ at every point; 1 − δ is below "
             f"{number(RESOLVED_GAP)} at each, too close to 1 to measure how loose")  # fmt: skip
    return Status("holds", basis, 1.0)


def privacy_theorem(
    *, epsilons: tuple[float, ...], k_values: tuple[int, ...], bounds: tuple[int, ...],
    n_cells: int, dataset_names: tuple[str, ...], k: int,
) -> Result:  # fmt: skip
    """The printed delta against the exact worst-case delta over chapter 04's grid (every
    ``k < B``), for each variant and adjacency; and the printed delta on the first dataset,
    whose largest count is the theorem's ``B``. The status is that of the per-cell variant
    under replace-one adjacency, the setting of the proof; the other three are readings."""
    grid = np.asarray(epsilons, dtype=float)
    cases = [(kk, b) for kk in k_values for b in bounds if kk < b]
    printed = np.concatenate([cs.dp_cell_suppression_delta_as_printed(grid, kk, b)
                              for kk, b in cases])  # fmt: skip
    readings, statuses = [], {}
    for variant, adjacency in _VARIANT_ADJACENCY:
        exact = np.concatenate([cs.dp_cell_suppression_exact_delta(
            grid, k=kk, bound=b, adjacency=adjacency, variant=variant, n_cells=n_cells)
            for kk, b in cases])  # fmt: skip
        statuses[variant, adjacency] = status = _resolved_status(printed, exact)
        proof_setting = (variant, adjacency) == _VARIANT_ADJACENCY[0]
        readings.append(status.as_reading(_NAMES[variant, adjacency], supported=proof_setting))
    proved = statuses[_VARIANT_ADJACENCY[0]]
    status = proved.tried(*readings)
    bound = int(dataset(dataset_names[0]).histogram.counts.max())
    gap = cs.dp_cell_suppression_log10_gap_as_printed(grid[0], k, bound)
    if vacuous(cs.dp_cell_suppression_delta_as_printed(grid[0], k, bound)):
        status = status.qualified("no guarantee on real data")
    values = {
        "factor-max": shown(proved.measure, 3), "n-grid": len(cases) * len(grid),
        "data": dataset_label(dataset_names[0]), "data-bound": bound, "k": k,
        "data-epsilon": grid[0], "data-log10-gap": shown(gap, 3),
        "data-delta": one_minus_power(gap) if gap < -3 else number(1 - 10**gap),
    }  # fmt: skip
    return Result(status, values)


def privacy_proof(*, epsilons: tuple[float, ...], enum_bound: int) -> Result:
    """The proof's safe set ``{o : o_a = o_b = k/2}``: the smallest replace-one pair (even
    ``k``, counts up to ``enum_bound``, chapter 04's epsilons) on which its ratio claim
    fails; the lemma's delta through that set against the printed delta, and the exact
    delta, which keeps the theorem true."""
    found = cs.proof_set_counterexample(list(epsilons), max_bound=enum_bound)
    if found is None:  # every epsilon is above the threshold of k = 2: halve it
        found = cs.proof_set_counterexample([cs.proof_set_threshold(2, bound=3) / 2],
                                            max_bound=enum_bound)  # fmt: skip
    if found is None:
        raise AssertionError("no counterexample to the proof's ratio claim at this setting")
    step = bound_status(found.printed_delta, found.lemma_delta, loose_factor=None)
    result = delta_status(found.printed_delta, found.worst_delta)
    status = proof_status(step, result, step_name="the proof's safe set")
    if status.word == "proof gap":
        status = Status("proof gap", (
            f"on the pair {found.x} against {found.x_prime} (k = {found.k}, B = {found.bound}, "
            f"ε = {number(found.epsilon)}) the likelihood ratio on the proof's safe set is "
            f"{number(found.ratio, 3)}, above e^ε = {number(math.exp(found.epsilon), 3)}; "
            f"Lemma 1 with the true safe set gives δ = {number(found.lemma_delta, 3)}, above "
            f"the printed {number(found.printed_delta, 3)}; the exact δ, "
            f"{number(found.worst_delta, 3)}, is below it"), step.measure)  # fmt: skip
    values = {
        "k": found.k, "bound": found.bound, "epsilon": found.epsilon,
        "x": "({}, {})".format(*found.x), "x-prime": "({}, {})".format(*found.x_prime),
        "ratio": shown(found.ratio, 3), "e-epsilon": shown(math.exp(found.epsilon), 3),
        "proof-mass": shown(found.proof_mass, 3), "true-mass": shown(found.true_mass, 3),
        "lemma-delta": shown(found.lemma_delta, 3), "pair-delta": shown(found.pair_delta, 3),
        "worst-delta": shown(found.worst_delta, 3),
        "printed-delta": shown(found.printed_delta, 3),
    }  # fmt: skip
    return Result(status, values)


def two_definitions(*, dataset_name: str, k: int, epsilons: tuple[float, ...]) -> Result:
    """The main text's mechanisms (``max(x, k/2)``; noise per cell) against the appendix's
    (``floor(k/2)`` below ``k``; one noisy threshold): what each releases on a real
    histogram, and whether the bias display holds for each."""
    x = dataset(dataset_name).histogram.counts
    main, appendix = cell_suppression_main_text(x, k=k), cell_suppression(x, k=k)
    printed = np.concatenate([cs.dp_cell_suppression_bias_as_printed(x, k=k, epsilon=e)
                              for e in epsilons])  # fmt: skip
    exact = {v: np.concatenate([cs.dp_cell_suppression_bias(x, k=k, epsilon=e, variant=v)
                                for e in epsilons])
             for v in ("per_cell", "noisy_threshold")}  # fmt: skip
    status = readings_status([
        formula_status(printed, exact["per_cell"]).as_reading(
            "the main text's: suppressed cells set to k/2, noise per cell"),
        formula_status(printed, exact["noisy_threshold"]).as_reading(
            "the appendix's: suppressed cells set to ⌊k/2⌋, one noisy threshold"),
    ])  # fmt: skip
    e0 = epsilons[0]
    values = {
        "l1-main-text": shown(np.abs(main - x).sum(), 4),
        "l1-appendix": shown(np.abs(appendix - x).sum(), 4),
        "dp-l1-per-cell": np.abs(cs.dp_cell_suppression_bias(x, k=k, epsilon=e0)).sum(),
        "dp-l1-noisy-threshold": np.abs(cs.dp_cell_suppression_bias(
            x, k=k, epsilon=e0, variant="noisy_threshold")).sum(),
        "max-gap": shown(np.abs(exact["noisy_threshold"] - printed).max(), 3),
        "epsilon-first": e0, "k": k, "dataset": dataset_label(dataset_name),
    }  # fmt: skip
    return Result(status, values)


def bias_expression(*, dataset_name: str, k: int, epsilons: tuple[float, ...]) -> Result:
    """The bias display ``(k/2 - x_i) P(x_i + eta_i < k)`` against the exact bias of the
    main text's mechanism it is stated for (every cell, every epsilon)."""
    x = dataset(dataset_name).histogram.counts
    printed = np.concatenate([cs.dp_cell_suppression_bias_as_printed(x, k=k, epsilon=e)
                              for e in epsilons])  # fmt: skip
    exact = np.concatenate([cs.dp_cell_suppression_bias(x, k=k, epsilon=e) for e in epsilons])
    status = formula_status(printed, exact).qualified("for the main text's mechanism")
    values = {"n-cells": int(x.size), "n-epsilons": len(epsilons),
              "largest-gap": shown(float(np.abs(printed - exact).max()), 2)}  # fmt: skip
    return Result(status, values)


def l1_bound(*, dataset_names: tuple[str, ...], k: int, epsilons: tuple[float, ...]) -> Result:
    """The Cauchy-Schwarz bound on the l1 bias against the exact l1 bias, every dataset
    and epsilon."""
    bounds, exacts, values = [], [], {}
    for name in dataset_names:
        x = dataset(name).histogram.counts
        b = [cs.dp_cell_suppression_l1_bound_as_printed(x, k=k, epsilon=e) for e in epsilons]
        e_ = [np.abs(cs.dp_cell_suppression_bias(x, k=k, epsilon=e)).sum() for e in epsilons]
        bounds += b
        exacts += e_
    ratio = np.array(bounds) / np.array(exacts)
    values = {"ratio-min": shown(ratio.min(), 3), "ratio-max": shown(ratio.max(), 3),
              "n-settings": len(ratio)}  # fmt: skip
    return Result(bound_status(bounds, exacts), values)


FINDINGS: tuple[Finding, ...] = (
    Finding("cs-privacy-theorem", "The privacy theorem of DP cell suppression",
            "04-cell-suppression-privacy", "cs-privacy", privacy_theorem,
            parameters={"epsilons": "EPSILONS", "k_values": "K_VALUES", "bounds": "BOUNDS",
                        "n_cells": "N_CELLS", "dataset_names": "DATASETS", "k": "K"}),
    Finding("cs-privacy-proof", "Its proof: the safe set", "04-cell-suppression-privacy",
            "cs-privacy", privacy_proof,
            parameters={"epsilons": "EPSILONS", "enum_bound": "ENUM_BOUND"}),
    Finding("cs-two-definitions", "Two definitions of cell suppression",
            "05-cell-suppression-bias", "cs-definition", two_definitions,
            parameters={"dataset_name": "DATASET", "k": "K", "epsilons": "EPSILONS"}),
    Finding("cs-bias-expression", "The bias of DP cell suppression",
            "05-cell-suppression-bias", "cs-bias", bias_expression,
            parameters={"dataset_name": "DATASET", "k": "K", "epsilons": "EPSILONS"}),
    Finding("cs-l1-bound", "The ℓ₁ bound on the bias", "05-cell-suppression-bias",
            "cs-l1-bound", l1_bound,
            parameters={"dataset_names": "DATASETS", "k": "K", "epsilons": "EPSILONS"}),
)  # fmt: skip
