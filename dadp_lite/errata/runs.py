"""The Monte Carlo runs that findings rest on, computed once per process.

A chapter that shows a finding draws its tables and figures from the same run: it calls
these functions with its parameters (lists become tuples), the finding calls them with the
same values, and the run is computed once in the chapter's kernel. Seeds follow the
chapters' own conventions, so a run here is the run of the chapter.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dadp_lite.audit import audit_profile
from dadp_lite.audit.examples import teaching_cases
from dadp_lite.data import ATTRIBUTES, feature_domains
from dadp_lite.definitions import sampling_probability
from dadp_lite.errata.record import dataset
from dadp_lite.experiments import (
    CounterexampleCheck,
    classification_accuracy,
    compare_with_paper,
    confirm_counterexample,
    data_release_table,
    k_anonymity_sweep,
    swapping_sweep,
)
from dadp_lite.experiments import encodings as enc
from dadp_lite.histogram import Histogram
from dadp_lite.mechanisms import CellTable, laplace, mondrian_batch, thin_cells
from dadp_lite.metrics import alpha_fairness, empirical_bias
from dadp_lite.paper import PAPER_EPSILONS, PAPER_K, PAPER_QI, PAPER_REPS, paper_tables
from dadp_lite.registry import REGISTRY
from dadp_lite.simulate import simulate
from dadp_lite.theory.fairness import ComparisonSearch, comparison_search
from dadp_lite.verification import FALSE_FAILURE, z_limit

__all__ = [
    "FIGURE_CONFIDENCE",
    "UNIVERSE_ATTRIBUTES",
    "AuditSetup",
    "audit_profiles",
    "audit_setup",
    "classification_runs",
    "comparison_picks",
    "counterexample_checks",
    "fairness_search",
    "k_anonymity_merges",
    "k_anonymity_sweeps",
    "laplace_alpha_replicates",
    "release_encodings",
    "release_tables",
    "swapping_sweeps",
]


def _tuple(value: object) -> tuple:
    if isinstance(value, str) or not hasattr(value, "__iter__"):
        raise TypeError(f"expected a list or tuple, got {value!r}")
    return tuple(value)  # type: ignore[arg-type]


@functools.cache
def _release_tables(names, epsilons, reps, seed, k, qi, n_boot) -> dict[str, pd.DataFrame]:
    return {
        dataset(name).name: compare_with_paper(data_release_table(
            dataset(name), epsilons=list(epsilons), reps=reps, seed=seed, k=k, qi=list(qi),
            n_boot=n_boot))
        for name in names
    }  # fmt: skip


def release_tables(
    names, *, epsilons, reps: int, seed: int, k: int, qi, n_boot: int
) -> dict[str, pd.DataFrame]:
    """Chapter 12's data-release tables: one per dataset, keyed by the dataset's name (an
    excerpt's name, or a file's name for a path; every mechanism of Tables 1-3 at every
    epsilon, with the printed values beside ours). Do not modify the frames."""
    return _release_tables(_tuple(names), _tuple(epsilons), reps, seed, k, _tuple(qi), n_boot)


@functools.cache
def _release_encodings(names, epsilons) -> tuple[pd.DataFrame, pd.DataFrame]:
    if not names or not epsilons:
        search, columns, _ = enc.empty_results()
        return search, columns
    eps, qi = list(epsilons), list(PAPER_QI)
    search = pd.concat(
        [enc.encoding_search(list(names), epsilons=eps, reps=PAPER_REPS, k=PAPER_K, qi=qi),
         enc.alpha_search(list(names), epsilons=eps, reps=PAPER_REPS, qi=qi)],
        ignore_index=True,
    )  # fmt: skip
    return search, enc.column_summary(search)


def release_encodings(names, *, epsilons) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Chapter 12's search of the encodings of the records against the printed columns
    (:mod:`dadp_lite.experiments.encodings`), at the paper's repetitions, k and QI: the
    bias columns and DP swapping's alpha, for the datasets of ``names`` and the epsilons
    the paper prints. Returns ``(search, column summary)`` (empty frames where nothing of
    ``names`` and ``epsilons`` is printed). Do not modify the frames."""
    tables = paper_tables()
    printed = tuple(n for n in _tuple(names) if n in set(tables["dataset"]))
    eps = tuple(float(e) for e in _tuple(epsilons) if float(e) in PAPER_EPSILONS)
    return _release_encodings(printed, eps)


@functools.cache
def _k_anonymity_sweeps(names, k_values, epsilons, reps, seed, n_boot) -> pd.DataFrame:
    runs = [k_anonymity_sweep(dataset(name).records, k_values=list(k_values),
                              epsilons=list(epsilons), reps=reps, seed=seed + index,
                              n_boot=n_boot).assign(dataset=name)
            for index, name in enumerate(names)]  # fmt: skip
    return pd.concat(runs, ignore_index=True)


def k_anonymity_sweeps(names, *, k_values, epsilons, reps: int, seed: int,
                       n_boot: int) -> pd.DataFrame:  # fmt: skip
    """Chapter 09's sweep of traditional and DP k-anonymity, every dataset (the i-th seeded
    with ``seed + i``), in one frame with a ``dataset`` column. Do not modify it."""
    return _k_anonymity_sweeps(_tuple(names), _tuple(k_values), _tuple(epsilons), reps, seed,
                               n_boot)  # fmt: skip


@functools.cache
def _k_anonymity_merges(names, epsilons, k, reps, seed) -> pd.DataFrame:
    rows = []
    for name in names:
        table = CellTable.from_records(dataset(name).records, ATTRIBUTES, attributes=ATTRIBUTES)
        for e in epsilons:
            counts, first = thin_cells(table, float(sampling_probability(e)),
                                       rng=np.random.default_rng(seed), reps=reps)  # fmt: skip
            merged = mondrian_batch(table, counts, first, k).merged()
            below = counts < k
            rows.append({"dataset": name, "epsilon": e, "below k": below.mean(),
                         "merged by Mondrian": merged.mean(),
                         "merged although >= k": (merged & ~below).mean()})  # fmt: skip
    return pd.DataFrame(rows)


def k_anonymity_merges(names, *, epsilons, k: int, reps: int, seed: int) -> pd.DataFrame:
    """Chapter 09's count of the cells Mondrian merges after the subsample (all attributes
    as QI), per dataset and epsilon, each seeded with ``seed``: the shares, over cells and
    repetitions, of cells below ``k``, merged, and merged although at least ``k``. Do not
    modify the frame."""
    return _k_anonymity_merges(_tuple(names), _tuple(epsilons), k, reps, seed)


@functools.cache
def _swapping_sweeps(names, rates, epsilons, reps, seed, qi) -> dict[str, pd.DataFrame]:
    return {name: swapping_sweep(dataset(name).histogram, rates=list(rates),
                                 epsilons=list(epsilons), reps=reps, seed=seed, qi=list(qi))
            for name in names}  # fmt: skip


def swapping_sweeps(names, *, rates, epsilons, reps: int, seed: int,
                    qi) -> dict[str, pd.DataFrame]:  # fmt: skip
    """Chapter 07's sweep of traditional and DP swapping, one frame per dataset (every
    dataset with the same seed). Do not modify the frames."""
    return _swapping_sweeps(_tuple(names), _tuple(rates), _tuple(epsilons), reps, seed,
                            _tuple(qi))  # fmt: skip


@functools.cache
def _fairness_search(n_cells, max_count, epsilons, k_values, n_qs) -> ComparisonSearch:
    return comparison_search(n_cells=list(n_cells), max_count=max_count,
                             epsilons=list(epsilons), k_values=list(k_values),
                             n_qs=list(n_qs))  # fmt: skip


def fairness_search(*, n_cells, max_count: int, epsilons, k_values, n_qs) -> ComparisonSearch:
    """Chapter 11's search of small histograms that meet the comparison theorem's
    hypothesis (:func:`dadp_lite.theory.comparison_search`). Do not modify its frames."""
    return _fairness_search(_tuple(n_cells), max_count, _tuple(epsilons), _tuple(k_values),
                            _tuple(n_qs))  # fmt: skip


def comparison_picks(search: ComparisonSearch) -> pd.DataFrame:
    """Chapter 11's picks: per comparison, the smallest counterexample to the true-alpha
    reading, at its (epsilon, k) of largest ``epsilon * excess``."""
    violations = search.violations[search.violations["quantity"] == "true"]
    picks = []
    for _, rows in violations.groupby("comparison", sort=False):
        first = rows[rows["counts"] == rows.iloc[0]["counts"]]
        picks.append(first.loc[(first["epsilon"] * first["excess"]).idxmax()])
    return pd.DataFrame(picks, columns=violations.columns).reset_index(drop=True)


@functools.cache
def _counterexample_checks(search_key, max_sim_reps, seed):
    picks = comparison_picks(_fairness_search(*search_key))
    limit = z_limit(max(len(picks), 1))
    checks = tuple(
        confirm_counterexample(
            row["counts"], comparison=row["comparison"], epsilon=row["epsilon"], seed=seed + i,
            k=None if np.isnan(row["k"]) else row["k"],
            n_q=None if np.isnan(row["n_q"]) else int(row["n_q"]), max_reps=max_sim_reps,
            pilot_reps=min(5_000, max_sim_reps), target_z=2 * limit,
        )
        for i, row in picks.iterrows()
    )  # fmt: skip
    return picks, checks


def counterexample_checks(
    *, n_cells, max_count: int, epsilons, k_values, n_qs, max_sim_reps: int, seed: int
) -> tuple[pd.DataFrame, tuple[CounterexampleCheck, ...]]:
    """Chapter 11's simulations: the picks of :func:`comparison_picks` on
    :func:`fairness_search`, and for each (the i-th seeded with ``seed + i``) the
    simulation that confirms it, sized so that the expected z is twice
    ``z_limit(len(picks))`` (at most ``max_sim_reps`` repetitions). Do not modify them."""
    key = (_tuple(n_cells), max_count, _tuple(epsilons), _tuple(k_values), _tuple(n_qs))
    return _counterexample_checks(key, max_sim_reps, seed)


@functools.cache
def _classification_runs(names, epsilons, reps, seed, k, qi) -> pd.DataFrame:
    return pd.concat([classification_accuracy(dataset(name), epsilons=list(epsilons),
                                              reps=reps, seed=seed, k=k, qi=list(qi))
                      for name in names], ignore_index=True)  # fmt: skip


def classification_runs(names, *, epsilons, reps: int, seed: int, k: int,
                        qi) -> pd.DataFrame:  # fmt: skip
    """Chapter 13's classification experiment on every dataset, in one frame. Do not
    modify it (copy first)."""
    return _classification_runs(_tuple(names), _tuple(epsilons), reps, seed, k, _tuple(qi))


@functools.cache
def _laplace_alpha_replicates(name, epsilons, reps, replicates, seed) -> dict[str, np.ndarray]:
    x = dataset(name).histogram.counts
    means, sds = [], []
    for i, eps in enumerate(epsilons):
        runs = []
        for r in range(replicates):
            seed_r = np.random.SeedSequence([seed, 100 + i, r])
            released = simulate(laplace, x, reps=reps, seed=seed_r, progress=False,
                                epsilon=eps, project=True)  # fmt: skip
            runs.append(alpha_fairness(empirical_bias(released, x).mean))
        means.append(np.mean(runs))
        sds.append(np.std(runs, ddof=1))
    return {"mean": np.array(means), "sd": np.array(sds)}


def laplace_alpha_replicates(
    name: str, epsilons, *, reps: int, replicates: int, seed: int
) -> dict[str, np.ndarray]:
    """Empirical alpha of projected Laplace in ``replicates`` independent ``reps``-repetition
    experiments per epsilon, the i-th epsilon's r-th experiment seeded with
    ``SeedSequence([seed, 100 + i, r])`` (chapters 03 and 12): the mean and the run-to-run
    standard deviation per epsilon."""
    return _laplace_alpha_replicates(name, _tuple(epsilons), reps, replicates, seed)


@dataclass(frozen=True)
class AuditSetup:
    """The setting of chapter 14's audits: the small universe (sex x race, one cell of
    ``bound`` records), the records' settings, and the two confidences: ``check`` (all the
    chapter's audits together fail by chance with probability at most 1e-6) and
    ``figure`` (the figures' and tables'); ``n_audits``, the number of audits the chapter
    runs."""

    universe: Histogram
    settings: dict
    check: float
    figure: float
    n_audits: int = 1

    @property
    def confidences(self) -> dict[str, float]:
        """Both confidences by level name, as :func:`dadp_lite.audit.audit_profile` takes them."""
        return {"figure": self.figure, "check": self.check}


#: Confidence of chapter 14's figures and tables.
FIGURE_CONFIDENCE = 0.95
#: The universe of chapter 14's audits.
UNIVERSE_ATTRIBUTES = ("sex", "race")


def audit_setup(*, epsilons, bound: int, k: int, qi, rate: float, search_pairs: int,
                tightness_trials, epsilon: float) -> AuditSetup:  # fmt: skip
    """Chapter 14's audit setting from its parameters (the number of audits the chapter
    runs fixes the check's confidence)."""
    domains = feature_domains()
    counts = np.zeros(len(domains["sex"]) * len(domains["race"]), dtype=int)
    counts[0] = bound  # the largest count bounds every pair considered
    universe = Histogram(counts, UNIVERSE_ATTRIBUTES,
                         tuple(domains[a] for a in UNIVERSE_ATTRIBUTES))  # fmt: skip
    settings = {"k": k, "qi": tuple(qi), "ka_qi": UNIVERSE_ATTRIBUTES, "rate": rate}
    private = [e for e in REGISTRY.values() if e.private]
    traditional = [e for e in REGISTRY.values() if not e.private]
    n_audits = (len(private) * len(_tuple(epsilons)) + len(traditional)
                + len(REGISTRY) * (search_pairs + 1) + len(_tuple(tightness_trials))
                + 2 * len(teaching_cases(epsilon)))  # fmt: skip
    return AuditSetup(universe, settings, 1 - FALSE_FAILURE / n_audits, FIGURE_CONFIDENCE,
                      n_audits)  # fmt: skip


@functools.cache
def _audit_profiles(epsilons, trials, bound, k, qi, rate, seed, search_pairs, tightness_trials,
                    epsilon) -> pd.DataFrame:  # fmt: skip
    setup = audit_setup(epsilons=epsilons, bound=bound, k=k, qi=qi, rate=rate,
                        search_pairs=search_pairs, tightness_trials=tightness_trials,
                        epsilon=epsilon)  # fmt: skip
    return pd.concat([audit_profile(entry, setup.universe, epsilons=list(epsilons),
                                    trials=trials, seed=seed, settings=setup.settings,
                                    confidences=setup.confidences)
                      for entry in REGISTRY.values()], ignore_index=True)  # fmt: skip


def audit_profiles(
    *, epsilons, trials: int, bound: int, k: int, qi, rate: float, seed: int,
    search_pairs: int, tightness_trials, epsilon: float,
) -> pd.DataFrame:  # fmt: skip
    """Chapter 14's audits: every registered mechanism on its worst-case pair in the audit
    universe, at every epsilon, ``trials`` outputs per side. Do not modify the frame."""
    return _audit_profiles(_tuple(epsilons), trials, bound, k, _tuple(qi), rate, seed,
                           search_pairs, _tuple(tightness_trials), epsilon)  # fmt: skip
