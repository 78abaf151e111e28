"""Cell suppression, traditional and differentially private, vectorised over repetitions.

The paper defines cell suppression twice, and the two definitions differ:

* the appendix algorithm ("cellSuppress") releases ``floor(k/2)`` for every cell with
  ``x_i < k`` and ``x_i`` otherwise: :func:`cell_suppression`;
* the main text's one-line definition releases ``max{x_i, k/2}``: small cells are *raised*
  to ``k/2`` and cells in ``[k/2, k)`` are never suppressed: :func:`cell_suppression_main_text`.

The DP version also comes twice (see :func:`dp_cell_suppression`): the main-text equation
draws one Laplace noise per cell and compares the noisy count with ``k`` (``"per_cell"``);
the appendix algorithm draws ONE noisy threshold ``k~ = k + Lap(2/eps)`` per release and
suppresses to ``floor(k~/2)`` (``"noisy_threshold"``).

The module also holds the Monte Carlo sweep of the cell suppression chapters
(:func:`cell_suppression_sweep`): L1 error and alpha-fairness against ``k``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dadp_lite._validate import check_counts, check_epsilon, check_positive_int, check_rng
from dadp_lite.metrics import release_summary
from dadp_lite.simulate import make_rng, simulate

__all__ = [
    "VARIANTS",
    "cell_suppression",
    "cell_suppression_main_text",
    "cell_suppression_sweep",
    "check_threshold",
    "check_variant",
    "dp_cell_suppression",
]

VARIANTS = ("per_cell", "noisy_threshold")


def check_threshold(k: object, name: str = "k") -> float:
    """Return the suppression threshold as a float after checking it is finite and > 0."""
    if isinstance(k, bool) or not isinstance(k, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(k).__name__}")
    value = float(k)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {k!r}")
    return value


def check_variant(variant: object) -> str:
    """Check ``variant`` names one of :data:`VARIANTS`."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    return str(variant)


def cell_suppression(counts: object, *, k: float) -> np.ndarray:
    """Traditional cell suppression as in the paper's appendix algorithm.

    Every cell with ``x_i < k`` is released as ``floor(k/2)``, every other cell as ``x_i``.
    Deterministic; ``counts`` may carry leading batch axes and the result has its shape
    (int64).

    Notes
    -----
    The main text's definition ``max{x_i, k/2}`` is a different mechanism (it raises cells
    below ``k/2`` to ``k/2`` and leaves cells in ``[k/2, k)`` untouched); it is
    :func:`cell_suppression_main_text`.
    """
    k = check_threshold(k)
    x = check_counts(counts)
    return np.where(x < k, np.int64(math.floor(k / 2)), x)


def cell_suppression_main_text(counts: object, *, k: float) -> np.ndarray:
    """Cell suppression as the main text's one-line definition: ``max{x_i, k/2}`` (float)."""
    k = check_threshold(k)
    x = check_counts(counts)
    return np.maximum(x.astype(float), k / 2)


def dp_cell_suppression(
    counts: object,
    *,
    k: float,
    epsilon: float,
    rng: np.random.Generator,
    reps: int = 1,
    variant: str = "per_cell",
) -> np.ndarray:
    """DP cell suppression, all repetitions at once: shape ``(reps, n_cells)``, float.

    Parameters
    ----------
    counts
        The true histogram, shape ``(n_cells,)``.
    k, epsilon
        Suppression threshold (> 0) and privacy parameter (> 0); the noise is
        ``Lap(2/epsilon)`` as in the paper.
    rng, reps
        Source of randomness and number of independent releases.
    variant
        ``"per_cell"`` (main text): cell i gets its own noise ``eta_i`` and is released as
        ``x_i`` if ``x_i + eta_i >= k``, else as ``k/2``.
        ``"noisy_threshold"`` (appendix algorithm): one ``k~ = k + Lap(2/epsilon)`` per
        repetition; cells with ``x_i < k~`` are released as ``floor(k~/2)``, the others
        as ``x_i``.
    """
    variant = check_variant(variant)
    k = check_threshold(k)
    epsilon = check_epsilon(epsilon)
    rng = check_rng(rng)
    reps = check_positive_int(reps, "reps")
    x = check_counts(counts)
    if x.ndim != 1:
        raise ValueError(f"counts must be one histogram of shape (n_cells,), got {x.shape}")
    scale = 2.0 / epsilon
    xf = x.astype(float)[None, :]
    if variant == "per_cell":
        noise = rng.laplace(0.0, scale, size=(reps, x.size))
        return np.where(xf + noise >= k, xf, k / 2)
    threshold = k + rng.laplace(0.0, scale, size=(reps, 1))
    return np.where(xf < threshold, np.floor(threshold / 2), xf)


# --------------------------------------------------------------------------- sweep
def cell_suppression_sweep(
    counts: object,
    *,
    k_values: Sequence[float],
    epsilons: Sequence[float],
    reps: int,
    seed: int,
    variants: Sequence[str] = VARIANTS,
    n_boot: int = 100,
) -> pd.DataFrame:
    """Monte Carlo sweep of traditional and DP cell suppression over ``k`` and ``epsilon``.

    One row per (mechanism, variant, epsilon, k) with the mean L1 error
    ``||x~ - x||_1`` and its SE, the L1 norm of the empirical bias, the empirical alpha and
    its bootstrap SE. The traditional rows (appendix and main-text forms) are deterministic
    (``epsilon`` is NaN, SEs are 0). Every DP configuration draws from its own child of one
    ``SeedSequence(seed)`` keyed by its values, so rows do not depend on the grid's order;
    repetitions run through :func:`dadp_lite.simulate.simulate`.
    """
    x = check_counts(counts)
    reps = check_positive_int(reps, "reps", minimum=2)
    variants = [check_variant(v) for v in variants]
    k_values = [check_threshold(k) for k in k_values]
    epsilons = [check_epsilon(e) for e in epsilons]
    rows = []
    for k in k_values:
        for name, release in (
            ("cell_suppression", cell_suppression(x, k=k).astype(float)),
            ("cell_suppression_main_text", cell_suppression_main_text(x, k=k)),
        ):
            bias = release - x
            rows.append(
                {"mechanism": name, "variant": "traditional", "epsilon": np.nan, "k": k,
                 "l1_error": float(np.abs(bias).sum()), "l1_error_se": 0.0,
                 "bias_l1": float(np.abs(bias).sum()),
                 "alpha": float(bias.max() - bias.min()), "alpha_se": 0.0}
            )  # fmt: skip
    root = np.random.SeedSequence(seed)
    for variant in variants:
        for epsilon in epsilons:
            for k in k_values:
                # the child seed depends on the configuration's values, not on grid order
                key = (VARIANTS.index(variant), round(epsilon * 1e6), round(k * 1e6))
                child = np.random.SeedSequence(root.entropy, spawn_key=key)
                sim_seed, boot_seed = child.spawn(2)
                released = simulate(
                    dp_cell_suppression, x, reps=reps, seed=sim_seed, progress=False,
                    k=k, epsilon=epsilon, variant=variant,
                )  # fmt: skip
                summary = release_summary(released, x, rng=make_rng(boot_seed), n_boot=n_boot)
                rows.append(
                    {"mechanism": "dp_cell_suppression", "variant": variant,
                     "epsilon": epsilon, "k": k, **summary}
                )  # fmt: skip
    return pd.DataFrame(rows)
