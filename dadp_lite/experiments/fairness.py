"""Confirmation by simulation of counterexamples to the fairness comparison theorem.

:func:`dadp_lite.theory.fairness.comparison_search` finds, by exact computation, histograms
where projected Laplace has a larger alpha than DP cell suppression or DP swapping. Here
both mechanisms are simulated on such a histogram with enough repetitions that the
difference of their simulated alphas is many standard errors away from zero. Each alpha is
estimated without bias as the difference of the mean biases of the two cells where that
mechanism's exact bias is largest and smallest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dadp_lite._validate import check_counts, check_epsilon, check_positive_int
from dadp_lite.experiments.comparisons import SimulatedAlpha, simulated_alpha
from dadp_lite.histogram import Histogram
from dadp_lite.mechanisms import dp_cell_suppression, dp_swapping, laplace
from dadp_lite.simulate import simulate
from dadp_lite.theory.baselines import projected_laplace_bias
from dadp_lite.theory.cell_suppression import check_threshold, dp_cell_suppression_bias
from dadp_lite.theory.fairness import swapping_bias

__all__ = ["CounterexampleCheck", "confirm_counterexample"]


@dataclass(frozen=True)
class CounterexampleCheck:
    """Simulation of one counterexample: exact and simulated alphas of both mechanisms.

    ``z`` = (simulated alpha_Lap - simulated alpha_other) / combined SE. Each alpha is
    estimated without bias from the two cells where that mechanism's exact bias is largest
    and smallest (a difference of two means, so ``z`` is close to normal with mean
    ``expected_z`` and variance 1 at the large numbers of repetitions used).
    ``expected_z`` = (exact alpha_Lap - exact alpha_other) / combined SE.
    """

    alpha_lap_exact: float
    alpha_other_exact: float
    alpha_lap: SimulatedAlpha
    alpha_other: SimulatedAlpha
    z: float
    reps: int
    expected_z: float


def _qi_histogram(flat: np.ndarray, n_q: int) -> Histogram:
    groups = flat.size // n_q
    return Histogram(flat, ("group", "qi"), (tuple(range(groups)), tuple(range(n_q))))


def _other_release(comparison, x, epsilon, k, n_q, unit):
    """The other mechanism's exact per-cell bias, sampler, input and parameters."""
    if comparison == "laplace_vs_cell_suppression":
        bias = dp_cell_suppression_bias(x, k=k, epsilon=epsilon, variant="per_cell")
        return bias, dp_cell_suppression, x, {"k": k, "epsilon": epsilon}
    hist = _qi_histogram(x, n_q)
    bias = swapping_bias(x.reshape(-1, n_q), epsilon=epsilon).ravel()
    return bias, dp_swapping, hist, {"qi": ("qi",), "epsilon": epsilon, "unit": unit}


def confirm_counterexample(
    counts: object,
    *,
    comparison: str,
    epsilon: float,
    seed: int,
    k: float | None = None,
    n_q: int | None = None,
    unit: str = "cell",
    pilot_reps: int = 5_000,
    max_reps: int = 2_000_000,
    target_z: float = 8.0,
) -> CounterexampleCheck:
    """Simulate projected Laplace and the other mechanism on ``counts``.

    ``comparison`` is ``"laplace_vs_cell_suppression"`` (needs ``k``) or
    ``"laplace_vs_swapping"`` (needs ``n_q``; ``counts`` is the QI matrix flattened row by
    row, as in :func:`comparison_search`). A pilot run of ``pilot_reps`` sets the number of
    repetitions so that the expected z reaches ``target_z`` (at most ``max_reps``); the
    final run uses fresh seeds. Both mechanisms run through :func:`dadp_lite.simulate`.
    """
    if comparison not in ("laplace_vs_cell_suppression", "laplace_vs_swapping"):
        raise ValueError(f"unknown comparison {comparison!r}")
    epsilon = check_epsilon(epsilon)
    x = check_counts(counts)
    if comparison == "laplace_vs_cell_suppression":
        k = check_threshold(k)
    else:
        n_q = check_positive_int(n_q, "n_q", minimum=2)
        if x.size % n_q:
            raise ValueError(f"counts has {x.size} cells, not a multiple of n_q={n_q}")
    pilot_reps = check_positive_int(pilot_reps, "pilot_reps", minimum=100)
    max_reps = check_positive_int(max_reps, "max_reps", minimum=pilot_reps)
    lap_bias = projected_laplace_bias(x, epsilon=epsilon)
    cells = (int(np.argmax(lap_bias)), int(np.argmin(lap_bias)))
    other_bias, mechanism, data, params = _other_release(comparison, x, epsilon, k, n_q, unit)
    other_cells = (int(np.argmax(other_bias)), int(np.argmin(other_bias)))
    other_exact = float(other_bias[other_cells[0]] - other_bias[other_cells[1]])
    lap_exact = float(lap_bias[cells[0]] - lap_bias[cells[1]])
    pilot_seed, lap_seed, other_seed = np.random.SeedSequence(seed).spawn(3)

    def run(reps, lap_ss, other_ss):
        chunk = min(reps, 100_000)
        lap = simulate(laplace, x, reps=reps, seed=lap_ss, chunk_size=chunk, progress=False,
                       epsilon=epsilon, project=True)  # fmt: skip
        other = simulate(mechanism, data, reps=reps, seed=other_ss, chunk_size=chunk,
                         progress=False, **params)  # fmt: skip
        return simulated_alpha(lap, x, cells), simulated_alpha(other, x, other_cells)

    a_lap, a_other = run(pilot_reps, *pilot_seed.spawn(2))
    sd = math.hypot(a_lap.se, a_other.se) * math.sqrt(pilot_reps)
    gap = lap_exact - other_exact
    needed = math.ceil((target_z * sd / gap) ** 2) if gap > 0 else max_reps
    reps = int(min(max(needed, pilot_reps), max_reps))
    a_lap, a_other = run(reps, lap_seed, other_seed)
    se = math.hypot(a_lap.se, a_other.se)
    z = (a_lap.alpha - a_other.alpha) / se
    expected = gap / se if se > 0 else math.inf
    return CounterexampleCheck(lap_exact, other_exact, a_lap, a_other, float(z), reps, expected)
