"""The paper's experiments as tidy tables: data release (Tables 1-3) and classification.

Both experiments release the histogram ``race(9) x sex(2) x tenure(3) x age_bracket x
income_over_50k(2)`` of one NIST excerpt over its full universe with five mechanisms:

``laplace``
    ``x + Lap(2/epsilon)`` per cell, negative counts clipped to 0 (the paper's projection);
``discrete_gaussian``
    ``x + N_Z(0, sigma^2)``, ``sigma = 2/epsilon``, clipped to 0;
``dp_cell_suppression``
    the main text's per-cell variant, threshold ``k`` (default 6);
``dp_swapping``
    quasi-identifier ``qi`` (default race, n_Q = 9), whole cells move (``unit="cell"``);
``dp_k_anonymity``
    Bernoulli(1 - e^-epsilon) subsample, Mondrian with ``k``, reconstruction; the QIs are
    ``ka_qi`` (default: all five features, as in the k-anonymity chapters).

Seeding. One ``SeedSequence(seed)``; the releases of a configuration (dataset, mechanism,
epsilon) come from a child keyed by those *values* (:func:`release_seed`), so a row does not
depend on which other rows are computed, and the classification experiment trains on
exactly the releases summarised by the data-release table for the same seed. The bootstrap
of a configuration uses a second, separate child.

Bootstrap. The L1 norm of the empirical bias and the empirical alpha are non-linear in the
per-cell means, so their Monte Carlo uncertainty has no simple standard error. We resample
the repetitions with replacement ``n_boot`` times (multinomial weights, one matrix
product, seeded by its own child seed) and take the standard deviation of the resampled
statistic as its standard error; the interval is the statistic +- 1.96 of those (normal
bootstrap interval; ``interval="percentile"`` gives the 2.5 and 97.5 percentiles
instead). The interval says how much the paper's statistic moves when the whole
experiment is rerun with other seeds, which is what a comparison with a printed number
needs. It is *not* an interval for the exact L1 bias or alpha: both statistics are biased
upwards by the Monte Carlo noise itself (``E|mean| > |E mean|``; a maximum of noisy means
exceeds the maximum of the means), and no resampling interval removes that. The columns
``bias_l1_expected_empirical`` and ``alpha_expected_empirical`` quantify this floor, and
``bias_l1_signed`` is an unbiased estimator of the exact L1 bias with an exact standard
error (see :func:`data_release_table`).
"""

from __future__ import annotations

import math
import numbers
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np
import pandas as pd
from scipy import special

from dadp_lite._validate import check_epsilon, check_positive_int, check_probability
from dadp_lite.data import AGE_EDGES, feature_domains, load_records
from dadp_lite.histogram import Histogram
from dadp_lite.metrics import bootstrap_bias_replicates, round_counts
from dadp_lite.simulate import make_rng, simulate

__all__ = [
    "ATTRIBUTES",
    "CLASSIFICATION_FEATURES",
    "CLOSED_FORM_MECHANISMS",
    "INTERVALS",
    "MECHANISMS",
    "ReleaseSetup",
    "cell_design",
    "classification_accuracy",
    "classification_baseline",
    "closed_form_bias",
    "compare_with_paper",
    "data_release_table",
    "display_release_table",
    "expected_abs_normal",
    "fit_weighted_logistic",
    "paper_tables",
    "printed_delta_reading",
    "privacy_deltas",
    "release",
    "release_seed",
    "summarise_release",
    "weighted_accuracy",
]

ATTRIBUTES = ("race", "sex", "tenure", "age_bracket", "income_over_50k")
CLASSIFICATION_FEATURES = ("race", "sex", "tenure", "age_bracket")
TARGET = "income_over_50k"
MECHANISMS = (
    "laplace",
    "discrete_gaussian",
    "dp_cell_suppression",
    "dp_swapping",
    "dp_k_anonymity",
)
#: Mechanisms with an exact per-cell bias (independent of simulation).
CLOSED_FORM_MECHANISMS = ("laplace", "discrete_gaussian", "dp_cell_suppression", "dp_swapping")


# --------------------------------------------------------------------------- setup
@dataclass(frozen=True)
class ReleaseSetup:
    """One dataset ready for release: its name, records and full-universe histogram."""

    name: str
    records: pd.DataFrame
    histogram: Histogram

    @classmethod
    def load(
        cls,
        dataset: str | pd.DataFrame,
        *,
        age_edges: Sequence[int] = AGE_EDGES,
        name: str | None = None,
    ) -> ReleaseSetup:
        """Load a registered dataset by name (``age_edges`` sets the brackets) or wrap
        already recoded records (then ``name`` labels it, default ``"custom"``)."""
        edges = tuple(int(e) for e in age_edges)
        if isinstance(dataset, str):
            records = load_records(dataset, age_edges=edges)
            label = dataset if name is None else name
        elif isinstance(dataset, pd.DataFrame):
            records = dataset
            label = "custom" if name is None else name
        else:
            kind = type(dataset).__name__
            raise TypeError(f"dataset must be a dataset name or a records DataFrame, got {kind}")
        hist = Histogram.from_records(records, ATTRIBUTES, feature_domains(edges))
        return cls(label, records, hist)


def _setup(dataset, age_edges) -> ReleaseSetup:
    if isinstance(dataset, ReleaseSetup):
        return dataset
    return ReleaseSetup.load(dataset, age_edges=age_edges)


def _check_mechanisms(mechanisms: Sequence[str]) -> tuple[str, ...]:
    if isinstance(mechanisms, str):
        mechanisms = (mechanisms,)
    mechanisms = tuple(mechanisms)
    if not mechanisms:
        raise ValueError("mechanisms must name at least one mechanism")
    unknown = [m for m in mechanisms if m not in MECHANISMS]
    if unknown:
        raise ValueError(f"mechanisms holds unknown name(s) {unknown}; known: {MECHANISMS}")
    return mechanisms


def _check_epsilons(epsilons: Sequence[float]) -> tuple[float, ...]:
    if isinstance(epsilons, numbers.Real):
        epsilons = (epsilons,)
    values = tuple(check_epsilon(e) for e in epsilons)
    if not values:
        raise ValueError("epsilons must hold at least one value")
    return values


def _check_qi(qi: Sequence[str], name: str) -> tuple[str, ...]:
    qi = (qi,) if isinstance(qi, str) else tuple(qi)
    unknown = [q for q in qi if q not in ATTRIBUTES]
    if not qi or unknown:
        raise ValueError(f"{name} must name attributes among {ATTRIBUTES}, got {qi}")
    return qi


def _check_k(k: object) -> int:
    return check_positive_int(k, "k")


# --------------------------------------------------------------------------- releases
def release_seed(seed: int, dataset: str, mechanism: str, epsilon: float) -> np.random.SeedSequence:
    """Child of ``SeedSequence(seed)`` keyed by the configuration's values (see module doc)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed must be a non-negative integer, got {seed!r}")
    key = (zlib.crc32(str(dataset).encode()), MECHANISMS.index(mechanism), round(epsilon * 1e6))
    return np.random.SeedSequence(int(seed), spawn_key=key)


def _mechanism_call(
    mechanism: str, setup: ReleaseSetup, *, k: int, qi: tuple, ka_qi: tuple
) -> tuple[Callable, object, dict]:
    """(function, data, fixed parameters) of one mechanism, for :func:`simulate`."""
    from dadp_lite.mechanisms.cell_suppression import dp_cell_suppression
    from dadp_lite.mechanisms.discrete_gaussian import discrete_gaussian
    from dadp_lite.mechanisms.k_anonymity import dp_k_anonymity
    from dadp_lite.mechanisms.laplace import laplace
    from dadp_lite.mechanisms.swapping import dp_swapping

    counts = setup.histogram.counts
    if mechanism == "laplace":
        return laplace, counts, {"project": True}
    if mechanism == "discrete_gaussian":
        return discrete_gaussian, counts, {"project": True}
    if mechanism == "dp_cell_suppression":
        return dp_cell_suppression, counts, {"k": k, "variant": "per_cell"}
    if mechanism == "dp_swapping":
        return dp_swapping, setup.histogram, {"qi": qi, "unit": "cell"}
    domains = dict(zip(setup.histogram.attributes, setup.histogram.domains, strict=True))
    return dp_k_anonymity, setup.records, {"qi": ka_qi, "k": k, "domains": domains}


def release(
    mechanism: str,
    dataset: str | pd.DataFrame | ReleaseSetup,
    *,
    epsilon: float,
    reps: int,
    seed: int,
    k: int = 6,
    qi: Sequence[str] = ("race",),
    ka_qi: Sequence[str] = ATTRIBUTES,
    age_edges: Sequence[int] = AGE_EDGES,
) -> np.ndarray:
    """``reps`` releases of one mechanism, shape ``(reps, n_cells)`` (float64).

    Runs through :func:`dadp_lite.simulate.simulate` with the seed
    :func:`release_seed` ``(seed, dataset name, mechanism, epsilon)``.
    """
    (mechanism,) = _check_mechanisms((mechanism,))
    setup = _setup(dataset, age_edges)
    epsilon = check_epsilon(epsilon)
    reps = check_positive_int(reps, "reps")
    func, data, params = _mechanism_call(
        mechanism, setup, k=_check_k(k), qi=_check_qi(qi, "qi"), ka_qi=_check_qi(ka_qi, "ka_qi")
    )
    out = simulate(
        func,
        data,
        reps=reps,
        seed=release_seed(seed, setup.name, mechanism, epsilon),
        progress=False,
        epsilon=epsilon,
        **params,
    )
    return np.asarray(out, dtype=float)


# --------------------------------------------------------------------------- theory
def closed_form_bias(
    mechanism: str,
    histogram: Histogram,
    *,
    epsilon: float,
    k: int = 6,
    qi: Sequence[str] = ("race",),
) -> np.ndarray | None:
    """Exact per-cell bias of a mechanism, or ``None`` where no closed form exists.

    Laplace (projected): ``(1/epsilon) exp(-epsilon x_i / 2)``; discrete Gaussian
    (projected): a sum over its pmf; DP cell suppression (per-cell variant):
    ``(k/2 - x_i) P(x_i + eta_i < k)``; DP swapping: from the QI transition matrix. All
    come from :mod:`dadp_lite.theory`; DP k-anonymity (Mondrian + reconstruction) has none.
    """
    (mechanism,) = _check_mechanisms((mechanism,))
    epsilon = check_epsilon(epsilon)
    if mechanism == "laplace":
        from dadp_lite.theory.baselines import projected_laplace_bias

        return np.asarray(projected_laplace_bias(histogram.counts, epsilon=epsilon), dtype=float)
    if mechanism == "discrete_gaussian":
        from dadp_lite.theory.baselines import projected_discrete_gaussian_bias

        bias = projected_discrete_gaussian_bias(histogram.counts, sigma=2 / epsilon)
        return np.asarray(bias, dtype=float)
    if mechanism == "dp_cell_suppression":
        from dadp_lite.theory.cell_suppression import dp_cell_suppression_bias

        return dp_cell_suppression_bias(histogram.counts, k=_check_k(k), epsilon=epsilon)
    if mechanism == "dp_swapping":
        from dadp_lite.theory.swapping import dp_swapping_expected_release

        qi = _check_qi(qi, "qi")
        return dp_swapping_expected_release(histogram, qi, epsilon) - histogram.counts
    return None


def privacy_deltas(
    mechanism: str,
    histogram: Histogram,
    *,
    epsilon: float,
    k: int = 6,
    qi: Sequence[str] = ("race",),
) -> dict:
    """Delta as the paper computes it and the exact/tight delta, with their provenance.

    ``B`` (the bound on the counts in the printed formulas) is the histogram's largest
    count. Keys: ``delta_paper`` and ``delta_paper_rule`` (which printed formula, with
    which arguments), ``delta_exact``, ``delta_adjacency``, ``delta_exact_method``.
    """
    (mechanism,) = _check_mechanisms((mechanism,))
    epsilon = check_epsilon(epsilon)
    k = _check_k(k)
    bound = int(histogram.counts.max())
    if mechanism == "laplace":
        from dadp_lite.theory.accounting import laplace_histogram_delta

        return {
            "delta_paper": 0.0,
            "delta_paper_rule": "stated (epsilon, 0)-DP",
            "delta_exact": float(
                laplace_histogram_delta(epsilon, scale=2 / epsilon, adjacency="replace")
            ),
            "delta_adjacency": "replace",
            "delta_exact_method": "dp_accounting PLD, two unit shifts",
        }
    if mechanism == "discrete_gaussian":
        from dadp_lite.theory.accounting import discrete_gaussian_histogram_delta
        from dadp_lite.theory.baselines import discrete_gaussian_delta_as_printed

        return {
            "delta_paper": float(discrete_gaussian_delta_as_printed(epsilon)),
            "delta_paper_rule": "eps = eps^2/2 + eps sqrt(2 log(1/delta)) solved for delta",
            "delta_exact": float(
                discrete_gaussian_histogram_delta(epsilon, sigma=2 / epsilon, adjacency="replace")
            ),
            "delta_adjacency": "replace",
            "delta_exact_method": "dp_accounting PLD, two unit shifts",
        }
    if mechanism == "dp_cell_suppression":
        from dadp_lite.theory.cell_suppression import (
            dp_cell_suppression_delta_as_printed,
            dp_cell_suppression_delta_closed_form,
        )

        return {
            "delta_paper": float(dp_cell_suppression_delta_as_printed(epsilon, k, bound)),
            "delta_paper_rule": f"1 - exp(-eps (B - k)) / 4, B = max count = {bound}",
            "delta_exact": float(
                dp_cell_suppression_delta_closed_form(
                    epsilon, k=k, bound=bound, adjacency="replace", variant="per_cell"
                )
            ),
            "delta_adjacency": "replace",
            "delta_exact_method": f"worst case over counts <= B = {bound} (closed form)",
        }
    if mechanism == "dp_swapping":
        from dadp_lite.theory.swapping import dp_swapping_cell_delta, dp_swapping_delta_as_printed

        n_q = histogram.n_qi(_check_qi(qi, "qi"))
        return {
            "delta_paper": float(dp_swapping_delta_as_printed(epsilon, n_q)),
            "delta_paper_rule": f"1 - (1 - g^2)/(n_Q - 1) - ((1 - g)/(n_Q - 1))^2, n_Q = {n_q}",
            "delta_exact": float(dp_swapping_cell_delta(epsilon, n_q, bound=bound)),
            "delta_adjacency": "qi_replace",
            "delta_exact_method": f"worst case over counts <= B = {bound} (closed form)",
        }
    from dadp_lite.mechanisms.k_anonymity import sampling_probability
    from dadp_lite.theory.k_anonymity import d_as_printed, subsampling_delta

    beta = sampling_probability(epsilon)
    with np.errstate(invalid="ignore", over="ignore"):  # huge binomial coefficients, w ~ B
        printed = float(d_as_printed(k, beta, epsilon, bound))
    # Exact delta = beta for every bound >= 1: the pair (1, 0) -> (0, 1) attains it and a
    # coupling (the changed record is dropped with probability 1 - beta) caps the total
    # variation at beta. Enumerating counts <= 8 therefore gives the answer for any B.
    return {
        "delta_paper": printed,
        "delta_paper_rule": f"d(k, beta, eps) as printed, beta = 1 - e^-eps, B = {bound}",
        "delta_exact": float(subsampling_delta(beta, epsilon, min(bound, 8), "replace")),
        "delta_adjacency": "replace",
        "delta_exact_method": "Bernoulli subsampling, enumeration (= beta for every B)",
    }


# --------------------------------------------------------------------------- statistics
def expected_abs_normal(mean: np.ndarray, se: np.ndarray) -> np.ndarray:
    """``E|Z|`` for ``Z ~ N(mean, se^2)`` (folded normal), elementwise; ``|mean|`` if se = 0.

    The expected contribution of a cell to the L1 norm of a Monte Carlo bias estimate whose
    true bias is ``mean`` and whose standard error is ``se``.
    """
    mean = np.asarray(mean, dtype=float)
    se = np.asarray(se, dtype=float)
    if np.any(se < 0):
        raise ValueError("se must be non-negative")
    safe = np.where(se > 0, se, 1.0)
    folded = safe * math.sqrt(2 / math.pi) * np.exp(-0.5 * (mean / safe) ** 2) + mean * (
        1 - 2 * special.ndtr(-mean / safe)
    )
    return np.where(se > 0, folded, np.abs(mean))


INTERVALS = ("normal", "percentile")


def _interval(point: float, replicates: np.ndarray, confidence: float, kind: str) -> tuple:
    """(lo, hi) of a bootstrap interval: point +- z SD (``normal``) or percentiles."""
    if kind == "normal":
        half = float(special.ndtri(0.5 + confidence / 2)) * float(replicates.std(ddof=1))
        return point - half, point + half
    tail = 50 * (1 - confidence)
    lo, hi = np.percentile(replicates, [tail, 100 - tail])
    return float(lo), float(hi)


def _closed_form_columns(released, true, exact, se, confidence) -> dict:
    """Columns comparing a simulation with the exact bias vector ``exact``."""
    reps = released.shape[0]
    sign = np.sign(exact)
    signed = (released - true[None, :]) @ sign  # per repetition: sum_i sign(b_i) (x~_i - x_i)
    signed_se = float(signed.std(ddof=1) / math.sqrt(reps))
    l1_exact = float(np.abs(exact).sum())
    gap = released.mean(axis=0) - true - exact
    positive = se > 0
    z_cells = np.where(positive, gap / np.where(positive, se, 1.0), 0.0)
    z_crit = float(special.ndtri(0.5 + confidence / 2))
    from dadp_lite.theory.baselines import expected_empirical_alpha

    return {
        "bias_l1_exact": l1_exact,
        "bias_l1_expected_empirical": float(expected_abs_normal(exact, se).sum()),
        "bias_l1_signed": float(signed.mean()),
        "bias_l1_signed_se": signed_se,
        "z_bias_l1": (float(signed.mean()) - l1_exact) / signed_se if signed_se > 0 else 0.0,
        "z_cells_max": float(np.abs(z_cells).max()),
        "cells_tested": int(positive.sum()),
        "cell_coverage": float(np.mean(np.abs(z_cells[positive]) <= z_crit))
        if positive.any()
        else float("nan"),
        "alpha_exact": float(exact.max() - exact.min()),
        # a 1001-point grid agrees with the default 4001 to ~1e-12 here, at a quarter of the cost
        "alpha_expected_empirical": expected_empirical_alpha(exact, se, grid=1001),
    }


_CLOSED_FORM_KEYS = (
    "bias_l1_exact",
    "bias_l1_expected_empirical",
    "bias_l1_signed",
    "bias_l1_signed_se",
    "z_bias_l1",
    "z_cells_max",
    "cells_tested",
    "cell_coverage",
    "alpha_exact",
    "alpha_expected_empirical",
)


def summarise_release(
    released: np.ndarray,
    true: np.ndarray,
    *,
    exact_bias: np.ndarray | None,
    rng: np.random.Generator,
    n_boot: int = 1000,
    confidence: float = 0.95,
    interval: str = "normal",
) -> dict:
    """Bias and fairness summary of one configuration (see :func:`data_release_table`)."""
    released = np.asarray(released, dtype=float)
    true = np.asarray(true, dtype=float)
    confidence = check_probability(confidence, "confidence")
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {INTERVALS}, got {interval!r}")
    reps = released.shape[0]
    boot_l1, boot_alpha = bootstrap_bias_replicates(released, true, rng=rng, n_boot=n_boot)
    bias = released.mean(axis=0) - true
    se = released.std(axis=0, ddof=1) / math.sqrt(reps)
    errors = np.abs(released - true[None, :]).sum(axis=1)
    l1, alpha = float(np.abs(bias).sum()), float(bias.max() - bias.min())
    l1_lo, l1_hi = _interval(l1, boot_l1, confidence, interval)
    alpha_lo, alpha_hi = _interval(alpha, boot_alpha, confidence, interval)
    row = {
        "reps": reps,
        "bias_l1": l1,
        "bias_l1_lo": l1_lo,
        "bias_l1_hi": l1_hi,
        "bias_l1_boot_sd": float(boot_l1.std(ddof=1)),
        "alpha": alpha,
        "alpha_lo": alpha_lo,
        "alpha_hi": alpha_hi,
        "alpha_boot_sd": float(boot_alpha.std(ddof=1)),
        "l1_error": float(errors.mean()),
        "l1_error_se": float(errors.std(ddof=1) / math.sqrt(reps)),
    }
    if exact_bias is None:
        row.update(dict.fromkeys(_CLOSED_FORM_KEYS, float("nan")))
    else:
        exact = np.asarray(exact_bias, dtype=float)
        row.update(_closed_form_columns(released, true, exact, se, confidence))
    return row


def data_release_table(
    dataset: str | pd.DataFrame | ReleaseSetup,
    *,
    epsilons: Sequence[float],
    reps: int,
    seed: int,
    k: int = 6,
    qi: Sequence[str] = ("race",),
    ka_qi: Sequence[str] = ATTRIBUTES,
    mechanisms: Sequence[str] = MECHANISMS,
    age_edges: Sequence[int] = AGE_EDGES,
    n_boot: int = 1000,
    confidence: float = 0.95,
    interval: str = "normal",
) -> pd.DataFrame:
    """The paper's data-release table: one row per (mechanism, epsilon).

    Columns
    -------
    ``dataset, mechanism, epsilon, reps``
        The configuration.
    ``delta_paper, delta_paper_rule``
        Delta from the paper's printed formula (``B`` = the histogram's largest count) and
        the rule used; see :func:`privacy_deltas`.
    ``delta_exact, delta_adjacency, delta_exact_method``
        Exact or tight delta at the same epsilon, the adjacency it is for, and how.
    ``bias_l1, bias_l1_lo, bias_l1_hi, bias_l1_boot_sd``
        The paper's statistic ``||mean release - x||_1``, its bootstrap interval
        (``confidence``, ``interval`` kind; see the module docstring) and bootstrap SD.
    ``alpha, alpha_lo, alpha_hi, alpha_boot_sd``
        Empirical alpha (max - min of the mean bias), likewise.
    ``l1_error, l1_error_se``
        Mean over repetitions of ``||release - x||_1`` (not the bias; for reference).
    ``bias_l1_exact, alpha_exact``
        Exact L1 bias and alpha (closed-form mechanisms only, else NaN).
    ``bias_l1_expected_empirical, alpha_expected_empirical``
        What ``bias_l1`` and ``alpha`` are expected to be given the exact bias and the
        per-cell standard errors: exact value + Monte Carlo floor.
    ``bias_l1_signed, bias_l1_signed_se, z_bias_l1``
        ``mean_r sum_i sign(b_i)(x~_ri - x_i)`` with ``b`` the exact bias: an unbiased
        estimator of ``||b||_1`` (a linear statistic, so its SE is exact), and its z-score
        against ``bias_l1_exact``.
    ``z_cells_max, cells_tested, cell_coverage``
        Largest per-cell |z| of the simulated against the exact bias, the number of cells
        with a positive SE, and the share of them whose normal ``confidence`` interval
        covers the exact bias.
    """
    setup = _setup(dataset, age_edges)
    epsilons = _check_epsilons(epsilons)
    mechanisms = _check_mechanisms(mechanisms)
    reps = check_positive_int(reps, "reps", minimum=2)
    k, qi, ka_qi = _check_k(k), _check_qi(qi, "qi"), _check_qi(ka_qi, "ka_qi")
    true = setup.histogram.counts.astype(float)
    rows = []
    for mechanism in mechanisms:
        for epsilon in epsilons:
            released = release(
                mechanism, setup, epsilon=epsilon, reps=reps, seed=seed, k=k, qi=qi, ka_qi=ka_qi
            )
            boot_seed = release_seed(seed, setup.name, mechanism, epsilon).spawn(1)[0]
            exact = closed_form_bias(mechanism, setup.histogram, epsilon=epsilon, k=k, qi=qi)
            summary = summarise_release(
                released, true, exact_bias=exact, rng=make_rng(boot_seed), n_boot=n_boot,
                confidence=confidence, interval=interval,
            )  # fmt: skip
            deltas = privacy_deltas(mechanism, setup.histogram, epsilon=epsilon, k=k, qi=qi)
            rows.append(
                {"dataset": setup.name, "mechanism": mechanism, "epsilon": epsilon,
                 **deltas, **summary}
            )  # fmt: skip
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- the paper
def paper_tables() -> pd.DataFrame:
    """The numbers printed in the paper's Tables 1-3 (see ``dadp_lite/reference``)."""
    source = resources.files("dadp_lite").joinpath("reference", "paper_tables.csv")
    with resources.as_file(source) as path:
        return pd.read_csv(path)


def compare_with_paper(table: pd.DataFrame) -> pd.DataFrame:
    """Join a :func:`data_release_table` with the paper's numbers, adding ratios ours/paper.

    ``z_paper_bias_l1`` and ``z_paper_alpha`` are ``(ours - paper) / (sqrt(2) boot SD)``:
    how far apart the two numbers are if both were draws of the same statistic with our
    Monte Carlo spread (|z| of a few: indistinguishable; hundreds: a different
    computation). Rows without a printed counterpart keep NaN in the paper's columns.
    """
    needed = {"dataset", "mechanism", "epsilon", "delta_paper", "bias_l1", "alpha"}
    missing = needed - set(table.columns)
    if missing:
        raise ValueError(f"table lacks column(s) {sorted(missing)}")
    paper = paper_tables().rename(
        columns={"delta": "paper_delta", "l1_bias": "paper_bias_l1", "alpha": "paper_alpha"}
    )
    merged = table.merge(paper, on=["dataset", "mechanism", "epsilon"], how="left")
    with np.errstate(divide="ignore", invalid="ignore"):
        merged["ratio_bias_l1"] = merged["bias_l1"] / merged["paper_bias_l1"]
        merged["ratio_alpha"] = merged["alpha"] / merged["paper_alpha"]
        for stat, paper_col in (("bias_l1", "paper_bias_l1"), ("alpha", "paper_alpha")):
            if f"{stat}_boot_sd" in merged:
                spread = math.sqrt(2) * merged[f"{stat}_boot_sd"]
                merged[f"z_paper_{stat}"] = (merged[stat] - merged[paper_col]) / spread
    return merged


def printed_delta_reading(mechanism: str, epsilon: float, *, k: int = 6, bound: int) -> float:
    """The reading of the paper's formulas that reproduces its printed delta, or NaN.

    * ``dp_swapping``: the theorem's formula with n_Q = 9 (race), as printed;
    * ``dp_k_anonymity``: ``d(k, beta, epsilon)`` with ``f`` read as the Binomial(w, beta)
      pmf (:func:`dadp_lite.theory.k_anonymity.d_corrected`), ``w`` up to ``bound``;
    * ``discrete_gaussian``: the zCDP conversion with ``rho = epsilon / 10``
      (:func:`dadp_lite.theory.baselines.zcdp_delta`), i.e. Gaussian noise of variance
      ``20 / epsilon`` on a query of sensitivity 2. Not what the text states (see
      :func:`dadp_lite.theory.baselines.discrete_gaussian_delta_as_printed`).

    Other mechanisms: NaN (Laplace's 0 and cell suppression's 0.999 need no reading).
    """
    (mechanism,) = _check_mechanisms((mechanism,))
    epsilon = check_epsilon(epsilon)
    if mechanism == "dp_swapping":
        from dadp_lite.theory.swapping import dp_swapping_delta_as_printed

        return float(dp_swapping_delta_as_printed(epsilon, 9))
    if mechanism == "dp_k_anonymity":
        from dadp_lite.mechanisms.k_anonymity import sampling_probability
        from dadp_lite.theory.k_anonymity import d_corrected

        return float(d_corrected(_check_k(k), sampling_probability(epsilon), epsilon, bound))
    if mechanism == "discrete_gaussian":
        from dadp_lite.theory.baselines import zcdp_delta

        return float(zcdp_delta(epsilon, rho=epsilon / 10))
    return float("nan")


def _with_interval(table: pd.DataFrame, stat: str, digits: int) -> pd.Series:
    def fmt(column: str) -> pd.Series:
        return table[column].map(lambda v: f"{v:.{digits}f}")

    return fmt(stat) + " [" + fmt(f"{stat}_lo") + ", " + fmt(f"{stat}_hi") + "]"


def display_release_table(table: pd.DataFrame) -> pd.DataFrame:
    """A :func:`compare_with_paper` table in the paper's layout, ours beside the paper's."""
    from dadp_lite.plotting import MECHANISM_LABELS

    return pd.DataFrame(
        {
            "mechanism": table["mechanism"].map(MECHANISM_LABELS),
            "epsilon": table["epsilon"],
            "delta (formula)": table["delta_paper"].round(3),
            "delta printed": table["paper_delta"],
            "delta exact": table["delta_exact"].round(4),
            "adjacency": table["delta_adjacency"],
            "L1 bias [95% CI]": _with_interval(table, "bias_l1", 1),
            "L1 exact": table["bias_l1_exact"].round(1),
            "L1 paper": table["paper_bias_l1"],
            "L1 ratio": table["ratio_bias_l1"].round(2),
            "alpha [95% CI]": _with_interval(table, "alpha", 2),
            "alpha exact": table["alpha_exact"].round(2),
            "alpha exact + floor": table["alpha_expected_empirical"].round(2),
            "alpha paper": table["paper_alpha"],
        }
    )


# --------------------------------------------------------------------------- classification
def cell_design(
    histogram: Histogram,
    features: Sequence[str] = CLASSIFICATION_FEATURES,
    target: str = TARGET,
) -> tuple[np.ndarray, np.ndarray]:
    """One-hot design matrix and label of every cell of the histogram's universe.

    Returns ``X`` of shape ``(n_cells, sum of domain sizes)`` (one column per value of each
    feature, all domain values included) and ``y`` of shape ``(n_cells,)``.
    """
    features = tuple(features)
    unknown = [f for f in (*features, target) if f not in histogram.attributes]
    if unknown or not features:
        raise ValueError(f"features and target must be attributes of the histogram: {unknown}")
    if target in features:
        raise ValueError(f"target {target!r} must not be a feature")
    cells = histogram.cell_table()
    blocks = []
    for name in features:
        domain = np.asarray(histogram.domains[histogram.attributes.index(name)])
        blocks.append((cells[name].to_numpy()[:, None] == domain[None, :]).astype(float))
    return np.hstack(blocks), cells[target].to_numpy().astype(np.int64)


def fit_weighted_logistic(
    design: np.ndarray, labels: np.ndarray, weights: np.ndarray, *, C: float = 1.0
):
    """sklearn ``LogisticRegression`` fitted on cells with ``sample_weight`` = counts.

    Cells with weight 0 are dropped (they contribute nothing to the objective). The
    ``newton-cholesky`` solver minimises the same L2-penalised objective as sklearn's
    default ``lbfgs`` and is faster here. Returns ``None`` when the weighted data hold a
    single class (no classifier can be fitted); callers then predict that class.
    """
    from sklearn.linear_model import LogisticRegression

    weights = np.asarray(weights, dtype=float)
    keep = weights > 0
    classes = np.unique(labels[keep])
    if classes.size < 2:
        return None
    model = LogisticRegression(C=C, solver="newton-cholesky", max_iter=200, tol=1e-8)
    return model.fit(design[keep], labels[keep], sample_weight=weights[keep])


def weighted_accuracy(
    predictions: np.ndarray, labels: np.ndarray, counts: np.ndarray
) -> tuple[float, float]:
    """(accuracy, balanced accuracy) of per-cell predictions on the records of ``counts``.

    Every record of cell i gets prediction ``predictions[i]``; balanced accuracy is the
    mean of the two class recalls (a class absent from the records is skipped).
    """
    counts = np.asarray(counts, dtype=float)
    correct = counts * (np.asarray(predictions) == np.asarray(labels))
    total = counts.sum()
    if total <= 0:
        raise ValueError("counts hold no records")
    recalls = []
    for value in (0, 1):
        mask = labels == value
        if counts[mask].sum() > 0:
            recalls.append(correct[mask].sum() / counts[mask].sum())
    return float(correct.sum() / total), float(np.mean(recalls))


def _predict(model, design: np.ndarray, labels: np.ndarray, weights: np.ndarray) -> np.ndarray:
    if model is None:  # one class only (or no records): predict it (0 if no records)
        present = labels[np.asarray(weights) > 0]
        return np.full(labels.shape, int(present[0]) if present.size else 0)
    return model.predict(design)


def _accuracies(released: np.ndarray, design, labels, true, C: float) -> np.ndarray:
    """(reps, 2) accuracy and balanced accuracy of classifiers trained on each release.

    BLAS runs single-threaded here: the problems are tiny and thread start-up costs more
    than it saves (about twice as fast on two cores).
    """
    from threadpoolctl import threadpool_limits

    counts = round_counts(released)
    out = np.empty((counts.shape[0], 2))
    with threadpool_limits(1):
        for r, weights in enumerate(counts):
            model = fit_weighted_logistic(design, labels, weights, C=C)
            out[r] = weighted_accuracy(_predict(model, design, labels, weights), labels, true)
    return out


def classification_baseline(
    dataset: str | pd.DataFrame | ReleaseSetup,
    *,
    features: Sequence[str] = CLASSIFICATION_FEATURES,
    age_edges: Sequence[int] = AGE_EDGES,
    C: float = 1.0,
) -> dict:
    """Non-private baseline (trained on the true histogram) and the majority-class rate."""
    setup = _setup(dataset, age_edges)
    design, labels = cell_design(setup.histogram, features)
    true = setup.histogram.counts
    model = fit_weighted_logistic(design, labels, true, C=C)
    accuracy, balanced = weighted_accuracy(_predict(model, design, labels, true), labels, true)
    positive = true[labels == 1].sum() / true.sum()
    return {
        "dataset": setup.name,
        "baseline_accuracy": accuracy,
        "baseline_balanced_accuracy": balanced,
        "majority_rate": float(max(positive, 1 - positive)),
        "positive_rate": float(positive),
    }


def classification_accuracy(
    dataset: str | pd.DataFrame | ReleaseSetup,
    *,
    epsilons: Sequence[float],
    reps: int,
    seed: int,
    k: int = 6,
    qi: Sequence[str] = ("race",),
    ka_qi: Sequence[str] = ATTRIBUTES,
    mechanisms: Sequence[str] = MECHANISMS,
    features: Sequence[str] = CLASSIFICATION_FEATURES,
    age_edges: Sequence[int] = AGE_EDGES,
    C: float = 1.0,
    n_jobs: int = 1,
    per_rep: bool = False,
) -> pd.DataFrame:
    """Logistic regression trained on released data, evaluated on the original records.

    For each (mechanism, epsilon) the ``reps`` releases of :func:`release` (same seeds as
    :func:`data_release_table`) are turned into non-negative integer counts
    (:func:`dadp_lite.metrics.round_counts`), i.e. a reconstructed dataset, and a
    ``LogisticRegression`` predicting ``income_over_50k`` from one-hot ``features`` is fitted
    on the weighted cells (equivalent to fitting on the reconstructed records). Accuracy
    and balanced accuracy are measured on the original records.

    Returns one row per (mechanism, epsilon) with mean and standard error over repetitions
    of both metrics, plus the non-private baseline and the majority-class rate
    (:func:`classification_baseline`); with ``per_rep=True``, one row per repetition.
    ``n_jobs > 1`` fits the configurations in joblib worker processes (same results).
    """
    setup = _setup(dataset, age_edges)
    epsilons = _check_epsilons(epsilons)
    mechanisms = _check_mechanisms(mechanisms)
    reps = check_positive_int(reps, "reps", minimum=2)
    n_jobs = check_positive_int(n_jobs, "n_jobs")
    k, qi, ka_qi = _check_k(k), _check_qi(qi, "qi"), _check_qi(ka_qi, "ka_qi")
    design, labels = cell_design(setup.histogram, features)
    true = setup.histogram.counts
    configs = [(m, e) for m in mechanisms for e in epsilons]
    releases = [
        release(m, setup, epsilon=e, reps=reps, seed=seed, k=k, qi=qi, ka_qi=ka_qi)
        for m, e in configs
    ]
    if n_jobs == 1:
        scores = [_accuracies(r, design, labels, true, C) for r in releases]
    else:
        from joblib import Parallel, delayed

        scores = Parallel(n_jobs=n_jobs)(
            delayed(_accuracies)(r, design, labels, true, C) for r in releases
        )
    base = classification_baseline(setup, features=features, C=C)
    frames = []
    for (mechanism, epsilon), score in zip(configs, scores, strict=True):
        frame = pd.DataFrame(
            {"rep": np.arange(reps), "accuracy": score[:, 0], "balanced_accuracy": score[:, 1]}
        )
        frame.insert(0, "epsilon", epsilon)
        frame.insert(0, "mechanism", mechanism)
        frames.append(frame)
    long = pd.concat(frames, ignore_index=True)
    long.insert(0, "dataset", setup.name)
    if per_rep:
        return long.assign(**{key: value for key, value in base.items() if key != "dataset"})
    grouped = long.groupby(["dataset", "mechanism", "epsilon"], sort=False)
    summary = grouped.agg(
        accuracy=("accuracy", "mean"),
        accuracy_se=("accuracy", lambda v: v.std(ddof=1) / math.sqrt(v.size)),
        balanced_accuracy=("balanced_accuracy", "mean"),
        balanced_accuracy_se=("balanced_accuracy", lambda v: v.std(ddof=1) / math.sqrt(v.size)),
        reps=("accuracy", "size"),
    ).reset_index()
    return summary.assign(**{key: value for key, value in base.items() if key != "dataset"})
