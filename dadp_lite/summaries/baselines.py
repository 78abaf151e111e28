"""Chapter 03's findings as glue values: the discrete Gaussian guarantee and the tables'
delta column, judged by the errata's rules."""

from __future__ import annotations

import numpy as np

from dadp_lite.errata import (
    VACUOUS_GAP,
    bound_status,
    delta_status,
    reproduced_status,
    status_key,
)
from dadp_lite.errata.baselines import dg_guarantee_qualifier
from dadp_lite.paper import PAPER_REPS
from dadp_lite.theory.baselines import discrete_gaussian_vacuous_from

__all__ = ["NOT_COMPARED", "dg_delta_column", "dg_guarantee", "laplace_alpha"]

#: What the chapter says of the paper's Laplace alpha when it cannot compare it.
NOT_COMPARED = "not compared (the paper's alpha is at its own dataset and repetitions)"


def _same_length(**arrays: object) -> dict[str, np.ndarray]:
    out = {name: np.atleast_1d(np.asarray(a, dtype=float)) for name, a in arrays.items()}
    sizes = {a.size for a in out.values()}
    if len(sizes) != 1 or 0 in sizes:
        raise ValueError(f"{', '.join(out)} must be non-empty and of one length, got {sizes}")
    return out


def dg_guarantee(epsilons: object, printed: object, exact: object) -> dict[str, object]:
    """The printed discrete Gaussian guarantee against its exact delta on a grid of
    ``epsilons``: the status word (glued under ``status-dg-guarantee``), the qualifier
    (``dg_guarantee_qualifier``: where the guarantee is vacuous, or "never vacuous on this
    grid") and ``dg_vacuous_from``, the epsilon from which it is vacuous (computed exactly,
    whatever the grid)."""
    a = _same_length(epsilons=epsilons, printed=printed, exact=exact)
    qualifier = dg_guarantee_qualifier(a["epsilons"])
    return {
        status_key("dg-guarantee"): delta_status(a["printed"], a["exact"]).word,
        "dg_guarantee_qualifier": qualifier or "never vacuous on this grid",
        "dg_vacuous_from": discrete_gaussian_vacuous_from(VACUOUS_GAP),
    }


def dg_delta_column(
    epsilons: object, column: object, exact: object, *, round_off: float
) -> dict[str, object]:
    """The tables' delta column against the exact delta of the stated noise: the status word
    (``status-dg-delta-column``, with ``round_off`` the printed digits' half unit), the
    epsilons where the column prints less than the exact value (``column_below_eps``, "no
    epsilon" if none) and the last epsilon's two values (``column_last``, ``exact_last``,
    ``column_eps_last``)."""
    a = _same_length(epsilons=epsilons, column=column, exact=exact)
    if not np.isfinite(round_off) or round_off < 0:
        raise ValueError(f"round_off must be a non-negative number, got {round_off!r}")
    below = a["epsilons"][a["column"] < a["exact"] - round_off]
    return {
        status_key("dg-delta-column"): delta_status(a["column"], a["exact"], tol=round_off).word,
        "column_below_eps": ", ".join(f"{e:g}" for e in below) or "no epsilon",
        "column_last": a["column"][-1],
        "exact_last": a["exact"][-1],
        "column_eps_last": a["epsilons"][-1],
    }


def laplace_alpha(
    *,
    printed_bound: object,
    true_alpha: object,
    simulated_mean: object,
    simulated_sd: object,
    paper: object,
    reps: int,
    replicates: int,
) -> dict[str, object]:
    """The alpha_Lap bound against the true alpha (``status-alpha-laplace-bound``) and the
    paper's Laplace alpha against the mean of ``replicates`` simulated ``reps``-repetition
    experiments, with one run's spread against our mean as the scale: the word
    (``alpha_noise_word``, and ``status-laplace-alpha-noise`` when compared) and the largest
    ``|z|`` (``z_paper_max``). The paper's values are compared only where it prints one
    (``paper`` NaN elsewhere) and only at its own number of repetitions; otherwise the word
    is :data:`NOT_COMPARED`."""
    a = _same_length(
        printed_bound=printed_bound,
        true_alpha=true_alpha,
        simulated_mean=simulated_mean,
        simulated_sd=simulated_sd,
        paper=paper,
    )
    if (
        isinstance(replicates, bool)
        or not isinstance(replicates, int | np.integer)
        or replicates < 2
    ):
        raise ValueError(f"replicates must be an integer >= 2, got {replicates!r}")
    out: dict[str, object] = {
        status_key("alpha-laplace-bound"): bound_status(a["printed_bound"], a["true_alpha"]).word,
        "alpha_noise_word": NOT_COMPARED,
    }
    spread = a["simulated_sd"] * np.sqrt(1 + 1 / replicates)  # one run against our mean
    z = (a["paper"] - a["simulated_mean"]) / spread
    if np.isfinite(z).any():
        out["z_paper_max"] = float(np.abs(z[np.isfinite(z)]).max())
    printed = np.isfinite(a["paper"])
    if printed.any() and reps == PAPER_REPS:
        word = reproduced_status(a["simulated_mean"][printed], a["paper"][printed],
                                 spread[printed]).word  # fmt: skip
        out[status_key("laplace-alpha-noise")] = out["alpha_noise_word"] = word
    return out
