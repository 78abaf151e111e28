"""The black-box auditor: outputs on a neighbouring pair -> certified lower bounds.

Procedure (see the privacy-audit chapter for why it is valid):

1. draw ``trials`` outputs on each of D and D' and split each side in two halves;
2. on the **selection** half, build candidate events (threshold tests on scalar
   statistics; likelihood-ratio rankings of discrete outputs) and, for every target
   (a delta at some epsilon, or an epsilon at some delta), keep the single event, its
   complement or not, and the favoured dataset whose Clopper-Pearson bound is largest,
   the bounds taken at a level that holds for all candidates at once (Bonferroni over
   the candidates), so that the rare events seen a few times by chance do not win;
3. on the **certification** half, count the kept events afresh and bound their
   probabilities with Clopper-Pearson at ``alpha = (1 - confidence) / (2 m)``, m being the
   number of distinct kept events (Bonferroni over the events certified and the two
   probabilities of each).

Everything the selection half tried is free; only the m certified events pay. Each
certified event gives a bound at every epsilon at once, so the result reports, at any
epsilon or delta, the best bound over the m events, valid simultaneously for all of them
with probability at least ``confidence``.

Outputs must be finite numbers: a NaN or an infinite output is refused, not dropped or
counted as an outcome, because an audit that ignored them could certify "no violation"
for a mechanism that is broken (a deterministic release that returns NaN half the time
would pass). ``confidence`` lies in (0, 1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np
import pandas as pd

from dadp_lite._types import FloatArray, FloatOrArray
from dadp_lite._validate import check_positive_int, check_probability
from dadp_lite.audit.bounds import certified_delta, certified_epsilon, clopper_pearson
from dadp_lite.audit.events import (
    Candidates,
    Target,
    ratio_candidates,
    row_ids,
    select,
    threshold_candidates,
)
from dadp_lite.audit.sampling import CHUNK, Outputs, sample_pair
from dadp_lite.histogram import Histogram
from dadp_lite.registry import NeighbourPair

__all__ = ["AuditResult", "CertifiedTest", "audit", "audit_samples", "default_tests"]

#: A test on the outputs ``(n, width)``: n numbers (a statistic) or n rows (a view).
Statistic = Callable[[Outputs], Outputs]
#: :func:`~dadp_lite.audit.bounds.certified_delta` or
#: :func:`~dadp_lite.audit.bounds.certified_epsilon`: lower, upper, where -> bound.
_Certified = Callable[[FloatArray, FloatArray, FloatArray], FloatOrArray]
#: Largest number of distinct outputs a likelihood-ratio family ranks.
MAX_OUTCOMES = 50_000


@dataclass(frozen=True)
class CertifiedTest:
    """One event certified on the second half: what it is, which dataset it favours, its
    counts there (``hits`` under the favoured dataset, ``hits_other`` under the other, out of
    ``trials`` each) and the targets it was selected for."""

    family: str
    event: str
    favours: str
    hits: int
    hits_other: int
    trials: int
    selected_for: tuple[str, ...]

    def bounds(self, alpha: float) -> tuple[float, float]:
        """Clopper-Pearson ``(lower on the favoured side, upper on the other)`` at ``alpha``."""
        lower, _ = clopper_pearson(self.hits, self.trials, alpha)
        _, upper = clopper_pearson(self.hits_other, self.trials, alpha)
        return lower, upper

    @property
    def frequencies(self) -> tuple[float, float]:
        """Observed frequencies ``(p_hat, q_hat)`` in the certification half."""
        return self.hits / self.trials, self.hits_other / self.trials


@dataclass(frozen=True)
class AuditResult:
    """Certified events of one audit; bounds at any epsilon or delta (module docstring)."""

    tests: tuple[CertifiedTest, ...]
    trials: int
    confidence: float
    targets: tuple[str, ...]
    skipped: tuple[str, ...] = field(default=())

    def alpha(self, confidence: float | None = None) -> float:
        """Level of each Clopper-Pearson bound: ``(1 - confidence) / (2 m)``."""
        confidence = self.confidence if confidence is None else confidence
        confidence = _check_confidence(confidence)
        return (1.0 - confidence) / (2 * max(len(self.tests), 1))

    def _bounds(self, confidence: float | None) -> tuple[FloatArray, FloatArray]:
        alpha = self.alpha(confidence)
        pairs = [t.bounds(alpha) for t in self.tests] or [(0.0, 1.0)]
        lower, upper = (np.array(v, dtype=float) for v in zip(*pairs, strict=True))
        return lower, upper

    def _table(
        self, values: object, confidence: float | None, bound: _Certified
    ) -> tuple[FloatArray, FloatArray]:
        lower, upper = self._bounds(confidence)
        grid: FloatArray = np.asarray(values, dtype=float)
        table = bound(lower[:, None], upper[:, None], grid.ravel()[None, :])
        return np.asarray(table), grid

    @overload
    def delta_lower(self, epsilon: float, confidence: float | None = None) -> float: ...
    @overload
    def delta_lower(self, epsilon: object, confidence: float | None = None) -> FloatOrArray: ...
    def delta_lower(self, epsilon: object, confidence: float | None = None) -> FloatOrArray:
        """Certified lower bound on delta at ``epsilon`` (scalar or array)."""
        table, grid = self._table(epsilon, confidence, certified_delta)
        best = table.max(axis=0).reshape(grid.shape)
        return float(best) if grid.ndim == 0 else best

    @overload
    def epsilon_lower(self, delta: float, confidence: float | None = None) -> float: ...
    @overload
    def epsilon_lower(self, delta: object, confidence: float | None = None) -> FloatOrArray: ...
    def epsilon_lower(self, delta: object, confidence: float | None = None) -> FloatOrArray:
        """Certified lower bound on epsilon at ``delta`` (scalar or array)."""
        table, grid = self._table(delta, confidence, certified_epsilon)
        best = table.max(axis=0).reshape(grid.shape)
        return float(best) if grid.ndim == 0 else best

    def best_test(
        self,
        *,
        epsilon: float | None = None,
        delta: float | None = None,
        confidence: float | None = None,
    ) -> CertifiedTest | None:
        """The certified event that gives the bound at ``epsilon`` (or at ``delta``)."""
        if (epsilon is None) == (delta is None):
            raise ValueError("give exactly one of epsilon and delta")
        if not self.tests:
            return None
        values, bound = (epsilon, certified_delta) if delta is None else (delta, certified_epsilon)
        table, _ = self._table(values, confidence, bound)
        return self.tests[int(np.argmax(table[:, 0]))]

    def delta_estimate(self, epsilon: float) -> float:
        """Plug-in ``p_hat - e^epsilon q_hat`` of the event that certifies delta at epsilon."""
        test = self.best_test(epsilon=epsilon)
        if test is None:
            return 0.0
        p_hat, q_hat = test.frequencies
        return max(p_hat - float(np.exp(epsilon)) * q_hat, 0.0)

    def summary(self, confidence: float | None = None) -> pd.DataFrame:
        """One row per certified event: the event, its counts and its bounds."""
        lower, upper = self._bounds(confidence)
        rows = [
            {
                "selected for": "; ".join(t.selected_for),
                "family": t.family,
                "event": t.event,
                "favours": t.favours,
                "hits": t.hits,
                "hits other": t.hits_other,
                "trials": t.trials,
                "p lower": lo,
                "q upper": up,
            }
            for t, lo, up in zip(self.tests, lower, upper, strict=False)
        ]
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        return (
            f"AuditResult({len(self.tests)} certified event(s), {self.trials} trials per side, "
            f"confidence {self.confidence:g})"
        )


# --------------------------------------------------------------- default tests
def _counts_of(data: object) -> FloatArray:
    counts: FloatArray = np.asarray(
        data.counts if isinstance(data, Histogram) else data, dtype=float
    )
    return counts


def default_tests(
    x: object | None, x_prime: object | None, width: int
) -> tuple[dict[str, Statistic], dict[str, Statistic]]:
    """Statistics and views used when the caller names none.

    If the outputs are histograms of the inputs' length: the shift along the change
    ``sum_i d_i (o_i - m_i)`` (d = x' - x, m = (x + x')/2), its "corner" ``min_i d_i (o_i -
    m_i)`` over changed cells (two or more of them), the total (when the pair changes it);
    views: the changed cells, and the whole output. A one-number output is its own
    statistic and view. Otherwise: only the whole output as a view.
    """
    whole = {"whole output": lambda o: o}
    if width == 1:
        return {"output": lambda o: o[:, 0]}, whole
    if x is None or x_prime is None:
        return {}, whole
    a, b = (_counts_of(h) for h in (x, x_prime))
    if a.shape != (width,) or b.shape != (width,):
        return {}, whole
    d, mid = b - a, (a + b) / 2
    changed = np.flatnonzero(d)
    if changed.size == 0:
        raise ValueError("x and x_prime are equal: there is nothing to audit")
    terms = [(int(i), float(d[i]), float(mid[i])) for i in changed]

    def shift(o: Outputs) -> Outputs:
        return np.asarray(sum(di * (o[:, i] - mi) for i, di, mi in terms))  # terms: not empty

    def corner(o: Outputs) -> Outputs:
        return np.asarray(np.minimum.reduce([di * (o[:, i] - mi) for i, di, mi in terms]))

    stats: dict[str, Statistic] = {"shift": shift}
    if changed.size >= 2:
        stats["corner"] = corner
    if d.sum() != 0:
        stats["total"] = lambda o: o.sum(axis=1)
    views = {"changed cells": lambda o: o[:, changed]}
    if changed.size < width:
        views.update(whole)
    return stats, views


# ------------------------------------------------------------------- the audit
def _targets(epsilons: Sequence[float], deltas: Sequence[float]) -> list[Target]:
    eps = [float(e) for e in np.atleast_1d(np.asarray(epsilons, dtype=float))]
    dels = [float(d) for d in np.atleast_1d(np.asarray(deltas, dtype=float))]
    if any(not np.isfinite(e) or e < 0 for e in eps):
        raise ValueError("epsilons must be finite and >= 0")
    if any(not 0 <= d < 1 for d in dels):
        raise ValueError("deltas must lie in [0, 1)")
    targets = [Target(epsilon=e) for e in eps] + [Target(delta=d) for d in dels]
    if not targets:
        raise ValueError("give at least one target: epsilons (for delta) or deltas (for epsilon)")
    return targets


def _families(
    halves: Sequence[Outputs], statistics: Mapping[str, Statistic], views: Mapping[str, Statistic]
) -> tuple[list[Candidates], list[str]]:
    families: list[Candidates] = []
    skipped: list[str] = []
    for name, statistic in statistics.items():
        parts = [np.asarray(statistic(h), dtype=float).ravel() for h in halves]
        if any(p.size != h.shape[0] for p, h in zip(parts, halves, strict=True)):
            raise ValueError(f"statistic {name!r} must return one number per trial")
        families.append(threshold_candidates(name, parts))
    for name, view in views.items():
        ids = row_ids([np.asarray(view(h)).reshape(h.shape[0], -1) for h in halves], MAX_OUTCOMES)
        if ids is None:
            skipped.append(f"likelihood ratio: {name} (too many distinct outputs)")
        else:
            families.append(ratio_candidates(name, ids))
    return families, skipped


def _check_confidence(confidence: object) -> float:
    """A confidence in (0, 1): at 1 every Clopper-Pearson bound is trivial."""
    value = check_probability(confidence, "confidence")
    if value >= 1:
        raise ValueError(
            "confidence must lie in (0, 1): bounds that hold with probability 1 are the "
            f"trivial ones (0 and 1), so nothing could be certified; got {confidence!r}"
        )
    return value


def _check_outputs(outputs: Outputs, name: str) -> Outputs:
    """Numeric outputs, one row per trial, every value finite (module docstring)."""
    if outputs.dtype.kind not in "iufb":
        raise TypeError(f"{name} must hold numbers, got dtype {outputs.dtype}")
    if outputs.dtype.kind == "f":
        nan, inf = int(np.isnan(outputs).sum()), int(np.isinf(outputs).sum())
        if nan or inf:
            raise ValueError(
                f"{name} holds {nan} NaN and {inf} inf value(s) among {outputs.size}: an "
                "audit of non-finite outputs would certify nothing (a broken mechanism "
                "would pass); fix the mechanism, or map those outputs to a number first"
            )
    return outputs


def audit_samples(
    outputs_x: object,
    outputs_x_prime: object,
    *,
    epsilons: Sequence[float] = (),
    deltas: Sequence[float] = (),
    confidence: float = 0.95,
    statistics: Mapping[str, Statistic] | None = None,
    views: Mapping[str, Statistic] | None = None,
    x: object | None = None,
    x_prime: object | None = None,
) -> AuditResult:
    """Audit outputs already drawn on D (``outputs_x``) and D' (``outputs_x_prime``).

    Both have one row per trial and the same number of trials. ``epsilons``: where to
    certify delta; ``deltas``: where to certify epsilon. ``statistics`` (name -> function
    of the ``(n, width)`` outputs returning n numbers) and ``views`` (name -> function
    returning a ``(n, k)`` array of discrete values) replace :func:`default_tests`, which
    needs the inputs ``x`` and ``x_prime``.
    """
    out_x, out_y = (np.asarray(o) for o in (outputs_x, outputs_x_prime))
    if out_x.ndim == 0 or out_y.ndim == 0:
        raise ValueError("outputs_x and outputs_x_prime must hold one row per trial")
    out_x, out_y = (o.reshape(o.shape[0], -1) for o in (out_x, out_y))
    if out_x.shape != out_y.shape:
        raise ValueError(f"outputs differ in shape: {out_x.shape} and {out_y.shape}")
    out_x = _check_outputs(out_x, "outputs_x")
    out_y = _check_outputs(out_y, "outputs_x_prime")
    trials = check_positive_int(out_x.shape[0], "trials", minimum=4)
    confidence = _check_confidence(confidence)
    targets = _targets(epsilons, deltas)
    default_stats, default_views = default_tests(x, x_prime, out_x.shape[1])
    statistics = default_stats if statistics is None else dict(statistics)
    views = default_views if views is None else dict(views)
    half = trials // 2
    halves = [out_x[:half], out_y[:half], out_x[half : 2 * half], out_y[half : 2 * half]]
    families, skipped = _families(halves, statistics, views)
    # selection scores hold simultaneously over every candidate tried (4 uses of each
    # event), so that a rare event seen a few times by luck cannot outscore a frequent one
    n_candidates = 4 * sum(f.a.size for f in families) * len(targets)
    choices = select(families, targets, (1.0 - confidence) / (2 * max(n_candidates, 1)))
    chosen: dict[tuple[int, int, bool, bool], list[str]] = {}
    for target, choice in zip(targets, choices, strict=True):
        if choice is not None:
            key = (choice.family, choice.index, choice.complement, choice.favours_x)
            chosen.setdefault(key, []).append(target.label)
    tests = tuple(_certify(families[f], j, comp, fav, half, labels)
                  for (f, j, comp, fav), labels in chosen.items())  # fmt: skip
    labels = tuple(t.label for t in targets)
    return AuditResult(tests, trials, confidence, labels, tuple(skipped))


def _certify(
    family: Candidates,
    index: int,
    complement: bool,
    favours_x: bool,
    n: int,
    labels: Sequence[str],
) -> CertifiedTest:
    in_x, in_y = family.certify(index)
    if complement:
        in_x, in_y = n - in_x, n - in_y
    hits, other = (in_x, in_y) if favours_x else (in_y, in_x)
    event = family.describe(index, complement)
    favours = "D" if favours_x else "D'"
    return CertifiedTest(family.family, event, favours, hits, other, n, tuple(labels))


def audit(
    release: object,
    x: object,
    x_prime: object | None = None,
    *,
    settings: Mapping[str, object] | None = None,
    epsilons: Sequence[float] = (),
    deltas: Sequence[float] = (),
    trials: int = 100_000,
    seed: int | np.random.SeedSequence = 0,
    confidence: float = 0.95,
    statistics: Mapping[str, Statistic] | None = None,
    views: Mapping[str, Statistic] | None = None,
    chunk_size: int = CHUNK,
) -> AuditResult:
    """Audit a mechanism from its outputs alone: certified lower bounds on (epsilon, delta).

    Parameters
    ----------
    release
        A registered mechanism (name or :class:`~dadp_lite.registry.Mechanism`) or a
        function ``release(counts, rng)`` / ``release(counts, rng, reps)`` (see
        :mod:`dadp_lite.audit.sampling`).
    x, x_prime
        The neighbouring inputs: Histograms for a registered mechanism, count arrays (or
        Histograms) for a function; or a :class:`~dadp_lite.registry.NeighbourPair` as
        ``x`` alone (its settings are merged into ``settings``).
    settings
        The mechanism's parameters, e.g. ``{"epsilon": 1.0, "k": 6}``.
    epsilons, deltas
        Where to certify delta (at each epsilon) and epsilon (at each delta).
    trials, seed, confidence
        Outputs drawn per side, the seed of all draws, and the probability with which all
        bounds of the result hold together (Bonferroni inside the audit).
    statistics, views
        Distinguishing tests (see :func:`audit_samples` and :func:`default_tests`).

    Returns
    -------
    AuditResult
        ``delta_lower(epsilon)``, ``epsilon_lower(delta)``, ``best_test(...)``,
        ``summary()``.
    """
    confidence = _check_confidence(confidence)
    settings = dict(settings or {})
    if isinstance(x, NeighbourPair):
        if x_prime is not None:
            raise ValueError("give either a NeighbourPair or x and x_prime, not both")
        pair = x
        settings = {**settings, **pair.settings}
        x, x_prime = pair.x, pair.x_prime
    if x_prime is None:
        raise ValueError("x_prime is missing")
    out_x, out_y = sample_pair(
        release, x, x_prime, trials=trials, seed=seed, settings=settings, chunk_size=chunk_size
    )
    return audit_samples(
        out_x, out_y, epsilons=epsilons, deltas=deltas, confidence=confidence,
        statistics=statistics, views=views, x=x, x_prime=x_prime,
    )  # fmt: skip
