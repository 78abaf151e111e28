"""Audits of registered mechanisms across a grid of epsilons, and over other pairs.

:func:`audit_profile` gives, for one registry record, the three views of its privacy side
by side at every epsilon of a grid: the paper's printed delta, the exact delta (the
record's worst case, and the audited pair's own, which the record's pair attains) and the
audited lower bound. :func:`search_pairs` audits the worst-case pair and a few random
neighbouring pairs at one epsilon, as an auditor without the theory would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import numpy as np
import pandas as pd

from dadp_lite._validate import check_epsilons, check_positive_int
from dadp_lite.audit.auditor import AuditResult, audit
from dadp_lite.audit.bounds import exact_epsilon, trials_to_certify
from dadp_lite.audit.pairs import random_neighbour_pairs
from dadp_lite.histogram import Histogram
from dadp_lite.registry import Mechanism, NeighbourPair

__all__ = ["audit_profile", "exact_curves", "refutations", "search_pairs"]

#: An exact delta at most this is treated as 0 (pure DP at the pair's own epsilon).
PURE = 1e-12


def _settings(
    entry: Mechanism, pair: NeighbourPair, settings: Mapping[str, object], epsilon: float | None
) -> dict[str, object]:
    return entry.bind({**settings, **pair.settings}, epsilon=epsilon)


# A settings bag holds values of any type (the record checks them); where one of them fills
# a typed keyword of a record's method, it is passed as that keyword, with the type the
# method declares.
def _neighbour_pair(
    entry: Mechanism, universe: Histogram, settings: Mapping[str, object]
) -> NeighbourPair:
    """``entry.neighbour_pair(universe, **settings)``."""
    rest = dict(settings)
    epsilon = cast("float | None", rest.pop("epsilon", None))
    return entry.neighbour_pair(universe, epsilon=epsilon, **rest)


def _delta(
    entry: Mechanism, universe: Histogram, epsilon: float, settings: Mapping[str, object]
) -> float:
    """``entry.delta(universe, epsilon=epsilon, **settings)``."""
    rest = dict(settings)
    adjacency = cast("str | None", rest.pop("adjacency", None))
    return entry.delta(universe, epsilon=epsilon, adjacency=adjacency, **rest)


def _bounds(
    result: AuditResult, epsilon: float, confidences: Mapping[str, float]
) -> dict[str, object]:
    """Per confidence level ``name``: the bounds and the one event behind the delta bound.

    The event that certifies the largest delta depends on the confidence (the bounds of
    events with different counts cross), so the event, its counts and the plug-in estimate
    are reported per level, each from the same event as that level's ``delta_lower``.
    """
    row: dict[str, object] = {}
    for name, confidence in confidences.items():
        row[f"delta_lower_{name}"] = result.delta_lower(epsilon, confidence)
        row[f"epsilon_lower_{name}"] = result.epsilon_lower(0.0, confidence)
        test = result.best_test(epsilon=epsilon, confidence=confidence)
        p_hat, q_hat = (0.0, 0.0) if test is None else test.frequencies
        row[f"delta_estimate_{name}"] = max(p_hat - float(np.exp(epsilon)) * q_hat, 0.0)
        row[f"test_{name}"] = "" if test is None else f"{test.event} (favours {test.favours})"
        row[f"hits_{name}"], row[f"hits_other_{name}"], row[f"certifying_trials_{name}"] = (
            (0, 0, 0) if test is None else (test.hits, test.hits_other, test.trials)
        )
    row["certified_events"] = len(result.tests)
    return row


def _exact_row(
    entry: Mechanism,
    universe: Histogram,
    pair: NeighbourPair,
    settings: Mapping[str, object],
    epsilon: float,
) -> dict[str, object]:
    merged = {**settings, **pair.settings}
    pair_exact = float(entry.delta_of_pair(pair, epsilon=epsilon, **settings))
    row: dict[str, object] = {
        "exact": _delta(entry, universe, epsilon, merged),
        "pair_exact": pair_exact,
        "printed": entry.printed(universe, epsilon=epsilon, **merged),
        "reading": entry.reading(universe, epsilon=epsilon, **merged),
        "epsilon_exact": np.nan,
    }
    if entry.private and pair_exact <= PURE:  # pure at its own epsilon: how pure?
        profile = lambda at: float(entry.delta_of_pair(pair, epsilon=epsilon, at=at, **settings))  # noqa: E731
        row["epsilon_exact"] = exact_epsilon(profile, 0.0, tol=PURE)
    return row


def _pair_columns(entry: Mechanism, pair: NeighbourPair) -> dict[str, object]:
    return {
        "mechanism": entry.name,
        "pair": pair.describe(),
        "pair_settings": ", ".join(f"{k} = {v}" for k, v in pair.settings.items()),
        "reason": pair.reason,
    }


def audit_profile(
    entry: Mechanism,
    universe: Histogram,
    *,
    epsilons: Sequence[float],
    trials: int,
    seed: int,
    settings: Mapping[str, object],
    confidences: Mapping[str, float],
) -> pd.DataFrame:
    """Printed, exact and audited delta of one record on its worst-case pair, per epsilon.

    A private mechanism is audited once per epsilon, its noise calibrated there (the
    paper's curve delta(epsilon)), certifying delta at that epsilon and epsilon at
    delta = 0. A traditional mechanism has no noise to calibrate: one audit certifies
    delta at every epsilon of the grid. Audit j of a record draws from
    ``SeedSequence([seed, entry.seed_key, j])``. ``confidences`` names the levels at which
    bounds are reported (columns ``delta_lower_<name>`` and ``epsilon_lower_<name>``).

    Other columns: ``exact`` (the record's worst case over counts up to the universe's
    largest), ``pair_exact`` (the audited pair's own delta), ``printed``, ``reading``,
    ``epsilon_exact`` (the pair's exact epsilon at delta = 0, when it is pure at its own
    epsilon) and, per confidence level ``name``, ``test_<name>`` (the event behind that
    level's delta bound), its counts ``hits_<name>`` and ``hits_other_<name>`` out of
    ``certifying_trials_<name>`` and its plug-in ``delta_estimate_<name>``.
    """
    grid = [float(e) for e in np.atleast_1d(check_epsilons(epsilons))]
    trials = check_positive_int(trials, "trials")
    settings = dict(settings)
    rows: list[dict[str, object]] = []
    if not entry.private:
        pair = _neighbour_pair(entry, universe, settings)
        result = audit(
            entry, pair, settings=_settings(entry, pair, settings, None), epsilons=grid,
            deltas=[0.0], trials=trials, seed=np.random.SeedSequence([seed, entry.seed_key, 0]),
        )  # fmt: skip
    for j, epsilon in enumerate(grid):
        if entry.private:
            pair = entry.neighbour_pair(universe, epsilon=epsilon, **settings)
            result = audit(
                entry, pair, settings=_settings(entry, pair, settings, epsilon),
                epsilons=[epsilon], deltas=[0.0], trials=trials,
                seed=np.random.SeedSequence([seed, entry.seed_key, j]),
            )  # fmt: skip
        rows.append(
            {
                **_pair_columns(entry, pair),
                "epsilon": epsilon,
                "trials": trials,
                **_exact_row(entry, universe, pair, settings, epsilon),
                **_bounds(result, epsilon, confidences),
            }
        )
    return pd.DataFrame(rows)


def search_pairs(
    entry: Mechanism,
    universe: Histogram,
    *,
    epsilon: float,
    n_pairs: int,
    trials: int,
    seed: int,
    settings: Mapping[str, object],
    confidences: Mapping[str, float],
) -> pd.DataFrame:
    """Audit the record's worst-case pair and ``n_pairs`` random neighbouring pairs.

    Random pairs come from :func:`dadp_lite.audit.random_neighbour_pairs` under the
    record's adjacency, with the worst pair's settings and at least ``k`` records when the
    mechanism takes a ``k`` (Mondrian cannot run on fewer). One row per pair: ``kind``
    (``worst`` or ``random``), the pair, the audited bounds and the record's worst-case
    exact delta (an upper bound for every pair with counts up to the universe's largest).
    """
    worst = entry.neighbour_pair(universe, epsilon=epsilon if entry.private else None, **settings)
    merged = {**settings, **worst.settings}
    rng = np.random.default_rng([seed, entry.seed_key])
    k = cast(float, merged.get("k", 0))  # a number where the record takes a k (it checks)
    minimum = int(np.ceil(k)) if "k" in entry.select(merged) else 0
    others = random_neighbour_pairs(
        universe, worst.adjacency, n_pairs=n_pairs, rng=rng,
        qi=cast("Sequence[str] | None", merged.get("qi")), min_records=minimum,
    )  # fmt: skip
    exact = _delta(entry, universe, epsilon, merged)
    rows = []
    for j, pair in enumerate([worst, *others]):
        pair = NeighbourPair(pair.x, pair.x_prime, pair.adjacency, worst.settings, pair.reason)
        result = audit(
            entry, pair, settings=_settings(entry, pair, settings, epsilon), epsilons=[epsilon],
            trials=trials, seed=np.random.SeedSequence([seed, entry.seed_key, 1000 + j]),
        )  # fmt: skip
        row = {**_pair_columns(entry, pair), "kind": "worst" if j == 0 else "random"}
        for name, confidence in confidences.items():
            row[f"delta_lower_{name}"] = result.delta_lower(epsilon, confidence)
        rows.append({**row, "epsilon": epsilon, "exact": exact})
    return pd.DataFrame(rows)


def exact_curves(
    entry: Mechanism,
    universe: Histogram,
    *,
    epsilons: Sequence[float],
    settings: Mapping[str, object],
) -> pd.DataFrame:
    """Exact, printed and read delta of a private record on a (fine) grid of epsilons.

    The exact value is the record's worst-case pair's own delta (closed forms and
    enumeration, fast at every epsilon); :func:`audit_profile` checks that it equals the
    record's worst case (``exact_delta``, with ``dp_accounting`` for the additive
    mechanisms) on the audit grid.
    """
    rows = []
    for epsilon in (float(e) for e in np.atleast_1d(check_epsilons(epsilons))):
        pair = entry.neighbour_pair(universe, epsilon=epsilon, **settings)
        merged = {**settings, **pair.settings}
        rows.append(
            {
                "mechanism": entry.name,
                "epsilon": epsilon,
                "exact": float(entry.delta_of_pair(pair, epsilon=epsilon, **settings)),
                "printed": entry.printed(universe, epsilon=epsilon, **merged),
                "reading": entry.reading(universe, epsilon=epsilon, **merged),
            }
        )
    return pd.DataFrame(rows)


def refutations(
    profile: pd.DataFrame,
    claim: str,
    *,
    confidence: float,
    tolerance: float = 0.0,
    level: str = "check",
) -> pd.DataFrame:
    """Where a claimed delta lies below the exact one, does the audit alone say so?

    ``profile`` is :func:`audit_profile` output (one mechanism) with bounds at
    ``confidence`` under the level name ``level`` (columns ``delta_lower_<level>``,
    ``hits_<level>``, ...); ``claim`` names the claimed delta (``"printed"`` or
    ``"reading"``). For every epsilon where the claim is below the exact delta by more than
    ``tolerance``: the audited bound, whether it is above the claim (the outputs alone prove
    the claim wrong) and the trials per side that would make it so
    (:func:`~dadp_lite.audit.trials_to_certify`), from the observed frequencies of the same
    event that gives the audited bound.
    """
    needed_columns = [f"{c}_{level}" for c in ("delta_lower", "hits", "hits_other",
                                               "certifying_trials")]  # fmt: skip
    missing = [c for c in needed_columns if c not in profile.columns]
    if missing:
        raise ValueError(f"profile has no columns {missing}: level {level!r} was not audited")
    rows = profile[profile[claim] < profile["exact"] - tolerance]
    out = []
    for _, row in rows.iterrows():
        trials = max(row[f"certifying_trials_{level}"], 1)
        p_hat, q_hat = row[f"hits_{level}"] / trials, row[f"hits_other_{level}"] / trials
        needed = trials_to_certify(
            p_hat, q_hat, epsilon=row["epsilon"], target=row[claim], confidence=confidence,
            n_tests=max(int(row["certified_events"]), 1),
        )  # fmt: skip
        out.append(
            {
                "mechanism": row["mechanism"],
                "claim": claim,
                "epsilon": row["epsilon"],
                "exact": row["exact"],
                "claimed delta": row[claim],
                "audited": row[f"delta_lower_{level}"],
                "certified wrong": bool(row[f"delta_lower_{level}"] > row[claim]),
                "trials per side needed": needed,
            }
        )
    return pd.DataFrame(out)
