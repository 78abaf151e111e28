"""The mechanism registry: one record per mechanism, every "for each mechanism" loops here.

A :class:`Mechanism` says how to release the mechanism on a :class:`~dadp_lite.dataset.Dataset`
(all repetitions at once), which parameters it takes (with defaults), what it looks like
in figures (label, colour), its exact per-cell bias and its exact delta per adjacency
(computed by :mod:`dadp_lite.theory`), what the paper prints for its delta and which
reading of the paper reproduces the printed column, and an independent reference
computation of each exact delta on small histograms (enumeration, or a closed form against
``dp_accounting``) that the contract test (``tests/test_registry.py``) compares with it.

For audits (:mod:`dadp_lite.audit`) a record also names a neighbouring pair that attains
its exact delta (``worst_pair(histogram, epsilon=..., **params)``, a :class:`NeighbourPair`
inside the histogram's universe with counts up to its largest count) and the exact delta of
any one pair (``pair_delta(x, x_prime, epsilon=..., at=..., **params)``: the noise is
calibrated at ``epsilon`` and the divergence evaluated at ``at``, default ``epsilon``).

Adding a mechanism: write its sampler in :mod:`dadp_lite.mechanisms` (and its exact answers
in :mod:`dadp_lite.theory`), then add one :class:`Mechanism` to :data:`REGISTRY` below. The
contract test then checks the new entry (release against exact bias by simulation, exact
delta against the reference, refusal of bad parameter values) without new test code.

Callables of a record take the dataset's histogram first and keyword arguments after:
``exact_bias(histogram, epsilon=..., **params)``, ``exact_delta[adjacency](histogram,
epsilon=..., **params)``, ``reference_delta(histogram, epsilon=..., adjacency=...,
**params)`` (on a small histogram: its largest count is the bound of the enumeration);
``release(dataset, rng=..., reps=..., epsilon=..., **params)``. Traditional mechanisms take
no ``epsilon`` in ``release`` and ``exact_bias``. Colours are the Okabe-Ito palette
(colour-blind safe); a DP version shares its traditional method's colour.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from dadp_lite._validate import check_positive_int, check_rng
from dadp_lite.data import ATTRIBUTES
from dadp_lite.dataset import Dataset
from dadp_lite.definitions import discrete_gaussian_sigma, laplace_scale, sampling_probability
from dadp_lite.histogram import Histogram
from dadp_lite.mechanisms import (
    cell_suppression,
    cell_suppression_main_text,
    discrete_gaussian,
    dp_cell_suppression,
    dp_k_anonymity,
    dp_swapping,
    k_anonymity,
    laplace,
    swapping,
    swapping_chunks,
)
from dadp_lite.paper import PAPER_K, PAPER_QI
from dadp_lite.theory import accounting, baselines
from dadp_lite.theory import cell_suppression as cs
from dadp_lite.theory import k_anonymity as ka
from dadp_lite.theory import swapping as sw
from dadp_lite.theory.privacy import (
    deterministic_worst_case_delta,
    distinguishing_pair,
    worst_case_delta,
)

__all__ = [
    "KINDS",
    "PRINTED_STATUSES",
    "REGISTRY",
    "Mechanism",
    "NeighbourPair",
    "Parameter",
    "get",
    "names",
]

#: ``baseline`` = a classical DP mechanism; ``dp`` = the paper's DP version of a
#: traditional method; ``traditional`` = the method as agencies use it (no epsilon).
KINDS = ("baseline", "dp", "traditional")
#: The book's verdict on a printed delta under the record's adjacency (see book/errata.md):
#: ``valid`` (never below the exact delta; possibly loose), ``wrong`` (below it somewhere),
#: ``unclear`` (the paper's statement rests on an assumption the book does not accept), and
#: ``""`` when the paper prints no delta.
PRINTED_STATUSES = ("valid", "wrong", "unclear", "")


@dataclass(frozen=True)
class Parameter:
    """A parameter of a mechanism beyond ``epsilon``, ``rng`` and ``reps``.

    ``name`` is the name experiments pass (``ka_qi`` for k-anonymity's quasi-identifiers,
    so one call can set swapping's ``qi`` and k-anonymity's at once) and ``argument`` the
    name the sampler itself uses (and its error messages name), when different;
    ``default`` is None when the value is required; ``invalid`` lists values the mechanism
    must refuse.
    """

    name: str
    default: object
    doc: str
    invalid: tuple = ()
    argument: str | None = None


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring histograms of one universe to audit a mechanism on.

    ``settings`` holds the parameter values the pair needs (for example ``k = 1`` for a
    dataset of one record) and ``reason`` says in one sentence why this pair is the one.
    """

    x: Histogram
    x_prime: Histogram
    adjacency: str
    settings: Mapping[str, object] = field(default_factory=dict)
    reason: str = ""

    @property
    def changed(self) -> np.ndarray:
        """Indices of the cells whose counts differ."""
        return np.flatnonzero(self.x.counts != self.x_prime.counts)

    def describe(self) -> str:
        """The cells that differ as ``cell: count -> count`` (flat cell indices)."""
        a, b = self.x.counts, self.x_prime.counts
        return ", ".join(f"{i}: {a[i]} -> {b[i]}" for i in self.changed)


@dataclass(frozen=True)
class Mechanism:
    """Everything the book knows about one mechanism (see the module docstring)."""

    name: str
    label: str
    color: str
    kind: str
    source: str
    seed_key: int
    release: Callable[..., np.ndarray]
    parameters: tuple[Parameter, ...] = ()
    exact_bias: Callable[..., np.ndarray] | None = None
    exact_delta: Mapping[str, Callable[..., float]] = field(default_factory=dict)
    adjacency: str | None = None
    exact_method: str = ""
    printed_delta: Callable[..., float] | None = None
    printed_rule: str = ""
    printed_reading: Callable[..., float] | None = None
    reference_delta: Callable[..., float] | None = None
    reference_tolerance: float = 1e-9
    in_tables: bool = False
    worst_pair: Callable[..., NeighbourPair] | None = None
    pair_delta: Callable[..., float | np.ndarray] | None = None

    @property
    def private(self) -> bool:
        """True if the mechanism takes a privacy parameter ``epsilon``."""
        return self.kind != "traditional"

    def defaults(self) -> dict[str, object]:
        """``{parameter name: default}`` (None for required parameters)."""
        return {p.name: p.default for p in self.parameters}

    def select(self, settings: Mapping[str, object]) -> dict[str, object]:
        """This mechanism's parameters from ``settings`` (others are ignored), defaults
        filled in; a required parameter missing from ``settings`` raises ValueError."""
        values = {}
        for p in self.parameters:
            value = settings.get(p.name, p.default)
            if value is None:
                raise ValueError(f"{self.name} needs the parameter {p.name!r} ({p.doc})")
            values[p.name] = value
        return values

    def bind(self, **params: object) -> dict[str, object]:
        """Like :meth:`select`, but an unknown parameter name raises ValueError."""
        known = {p.name for p in self.parameters} | ({"epsilon"} if self.private else set())
        unknown = sorted(set(params) - known)
        if unknown:
            raise ValueError(
                f"{self.name} takes no parameter(s) {unknown}; it takes {sorted(known)}"
            )
        values = self.select(params)
        if self.private:
            values["epsilon"] = params.get("epsilon")
            if values["epsilon"] is None:
                raise ValueError(f"{self.name} needs epsilon")
        return values

    def _values(self, epsilon: float | None, settings: Mapping[str, object]) -> dict:
        values = self.select(settings)
        if self.private:
            values["epsilon"] = epsilon
        return values

    def bias(
        self, histogram: Histogram, *, epsilon: float | None = None, **settings: object
    ) -> np.ndarray | None:
        """Exact per-cell bias on ``histogram``, or None where no exact form is known.

        ``settings`` may hold other mechanisms' parameters too (see :meth:`select`).
        """
        if self.exact_bias is None:
            return None
        values = self._values(epsilon, settings)
        return np.asarray(self.exact_bias(histogram, **values), dtype=float)

    def delta(
        self,
        histogram: Histogram,
        *,
        epsilon: float,
        adjacency: str | None = None,
        **settings: object,
    ) -> float:
        """Exact delta over histograms with counts up to the largest count of ``histogram``,
        under ``adjacency`` (default: the adjacency of the paper's proof)."""
        adjacency = self.adjacency if adjacency is None else adjacency
        if adjacency not in self.exact_delta:
            known = ", ".join(self.exact_delta)
            raise ValueError(f"{self.name} has no exact delta under {adjacency!r}; has {known}")
        values = self.select(settings)
        return float(self.exact_delta[adjacency](histogram, epsilon=epsilon, **values))

    def printed(self, histogram: Histogram, *, epsilon: float, **settings: object) -> float:
        """The paper's printed delta formula evaluated on ``histogram`` (NaN if none)."""
        if self.printed_delta is None:
            return float("nan")
        return float(self.printed_delta(histogram, epsilon=epsilon, **self.select(settings)))

    def reading(self, histogram: Histogram, *, epsilon: float, **settings: object) -> float:
        """The reading of the paper that reproduces its printed delta column (NaN where the
        printed value needs no reading)."""
        if self.printed_reading is None:
            return float("nan")
        return float(self.printed_reading(histogram, epsilon=epsilon, **self.select(settings)))

    def neighbour_pair(
        self, histogram: Histogram, *, epsilon: float | None = None, **settings: object
    ) -> NeighbourPair:
        """A neighbouring pair inside ``histogram``'s universe, counts up to its largest
        count, that attains :meth:`delta` under the record's adjacency."""
        if self.worst_pair is None:
            raise ValueError(f"{self.name} names no worst-case pair")
        return self.worst_pair(histogram, epsilon=epsilon, **self.select(settings))

    def delta_of_pair(
        self,
        pair: NeighbourPair,
        *,
        epsilon: float | None = None,
        at: object = None,
        **settings: object,
    ) -> float | np.ndarray:
        """Exact delta of one pair (noise calibrated at ``epsilon``, divergence evaluated
        at ``at``, default ``epsilon``); the pair's own settings override ``settings``."""
        if self.pair_delta is None:
            raise ValueError(f"{self.name} has no exact delta of a single pair")
        values = self.select({**settings, **pair.settings})
        return self.pair_delta(pair.x, pair.x_prime, epsilon=epsilon, at=at, **values)

    def context(self, histogram: Histogram, **params: object) -> dict[str, object]:
        """Values the printed formulas are stated in: ``bound`` B (largest count), ``n_q``
        (size of the QI universe, for mechanisms with a ``qi``) and the parameters."""
        out: dict[str, object] = {"bound": int(histogram.counts.max()), **params}
        if "qi" in params:
            out["n_q"] = histogram.n_qi(params["qi"])
        return out


# ------------------------------------------------------------------ parameters
_K = Parameter("k", PAPER_K, "suppression threshold", (0, -1, float("nan"), float("inf"), "6"))
_K_CLASS = Parameter("k", PAPER_K, "minimum class size of Mondrian", (0, 1.5, "6"))
_QI = Parameter("qi", PAPER_QI, "quasi-identifier(s) whose values are swapped", ((), ("planet",)))
_KA_QI = Parameter(
    "ka_qi", ATTRIBUTES, "quasi-identifiers of Mondrian", ((), ("planet",)), argument="qi"
)
_RATE = Parameter("rate", None, "fraction of records swapped, in [0, 1]", (-0.1, 1.5, "half"))


def _bound(histogram: Histogram) -> int:
    return int(histogram.counts.max())


def _domains(dataset: Dataset) -> dict[str, tuple]:
    hist = dataset.histogram
    return dict(zip(hist.attributes, hist.domains, strict=True))


def _constant(value: float) -> Callable[..., float]:
    def delta(histogram: Histogram, **_: object) -> float:
        return value

    return delta


def _repeat(released: np.ndarray, rng: object, reps: object) -> np.ndarray:
    """A deterministic release repeated ``reps`` times, shape ``(reps, n_cells)``; ``rng``
    is checked like every mechanism's, though a deterministic one draws nothing."""
    check_rng(rng)
    reps = check_positive_int(reps, "reps")
    return np.broadcast_to(released.astype(float), (reps, released.size)).copy()


# ------------------------------------------------------------------ baselines
def _laplace_release(dataset: Dataset, *, rng, reps, epsilon):
    return laplace(dataset.histogram.counts, epsilon=epsilon, rng=rng, reps=reps, project=True)


def _laplace_delta(adjacency: str) -> Callable[..., float]:
    def delta(histogram: Histogram, *, epsilon: float) -> float:
        scale = laplace_scale(epsilon)
        return float(accounting.laplace_histogram_delta(epsilon, scale=scale, adjacency=adjacency))

    return delta


def _laplace_reference(histogram: Histogram, *, epsilon: float, adjacency: str) -> float:
    scale = laplace_scale(epsilon)
    return float(accounting.laplace_delta_closed_form(epsilon, scale=scale, adjacency=adjacency))


def _dg_release(dataset: Dataset, *, rng, reps, epsilon):
    counts = dataset.histogram.counts
    return discrete_gaussian(counts, epsilon=epsilon, rng=rng, reps=reps, project=True)


def _dg_delta(adjacency: str) -> Callable[..., float]:
    def delta(histogram: Histogram, *, epsilon: float) -> float:
        sigma = discrete_gaussian_sigma(epsilon)
        value = accounting.discrete_gaussian_histogram_delta(
            epsilon, sigma=sigma, adjacency=adjacency
        )
        return float(value)

    return delta


def _dg_reference(histogram: Histogram, *, epsilon: float, adjacency: str) -> float:
    sigma = discrete_gaussian_sigma(epsilon)
    return float(
        accounting.discrete_gaussian_delta_enumerated(epsilon, sigma=sigma, adjacency=adjacency)
    )


# ------------------------------------------------------------- cell suppression
def _cs_release(variant: str):
    def release(dataset: Dataset, *, rng, reps, epsilon, k):
        counts = dataset.histogram.counts
        return dp_cell_suppression(
            counts, k=k, epsilon=epsilon, rng=rng, reps=reps, variant=variant
        )

    return release


def _cs_bias(variant: str):
    def bias(histogram: Histogram, *, epsilon: float, k: float) -> np.ndarray:
        return cs.dp_cell_suppression_bias(histogram.counts, k=k, epsilon=epsilon, variant=variant)

    return bias


def _cs_delta(variant: str, adjacency: str):
    """Our closed form where it applies (k below the largest count), else enumeration."""

    def delta(histogram: Histogram, *, epsilon: float, k: float) -> float:
        bound = _bound(histogram)
        closed = k <= bound - 1 if (variant, adjacency) == ("per_cell", "replace") else k < bound
        kwargs = {"k": k, "bound": bound, "adjacency": adjacency, "variant": variant}
        if closed:
            return float(cs.dp_cell_suppression_delta_closed_form(epsilon, **kwargs))
        return float(cs.dp_cell_suppression_exact_delta(epsilon, **kwargs))

    return delta


def _cs_reference(variant: str):
    law = {
        "per_cell": cs.per_cell_output_distribution,
        "noisy_threshold": cs.noisy_threshold_output_distribution,
    }[variant]

    def reference(histogram: Histogram, *, epsilon: float, adjacency: str, k: float) -> float:
        bound = _bound(histogram)
        return float(
            worst_case_delta(
                lambda x: law(x, k=k, epsilon=epsilon, bound=bound), 2, bound, adjacency, epsilon
            )
        )

    return reference


def _cs_printed(histogram: Histogram, *, epsilon: float, k: float) -> float:
    return float(cs.dp_cell_suppression_delta_as_printed(epsilon, k, _bound(histogram)))


def _traditional_cs_release(function):
    def release(dataset: Dataset, *, rng, reps, k):
        return _repeat(function(dataset.histogram.counts, k=k), rng, reps)

    return release


def _traditional_cs_bias(form: str):
    def bias(histogram: Histogram, *, k: float) -> np.ndarray:
        return cs.cell_suppression_bias(histogram.counts, k=k, form=form)

    return bias


def _deterministic_delta(function) -> Callable[..., float]:
    """Exact delta of a deterministic cell-wise mechanism over counts up to the data's
    largest count: 1 if some count and its neighbour get different outputs, else 0."""

    def delta(histogram: Histogram, *, epsilon: float | None = None, **params: object) -> float:
        outputs = function(np.arange(_bound(histogram) + 1), **params)
        return 1.0 if np.any(np.diff(outputs) != 0) else 0.0

    return delta


def _deterministic_reference(function) -> Callable[..., float]:
    def reference(histogram: Histogram, *, epsilon: float, adjacency: str, **params) -> float:
        release = lambda x: function(x, **params)  # noqa: E731
        return deterministic_worst_case_delta(release, 2, _bound(histogram), adjacency)

    return reference


# ---------------------------------------------------------------------- swapping
def _sw_release(unit: str):
    def release(dataset: Dataset, *, rng, reps, epsilon, qi):
        return dp_swapping(dataset.histogram, qi=qi, epsilon=epsilon, rng=rng, reps=reps, unit=unit)

    return release


def _sw_bias(histogram: Histogram, *, epsilon: float, qi: Sequence[str]) -> np.ndarray:
    return sw.dp_swapping_expected_release(histogram, qi, epsilon) - histogram.counts


def _sw_delta(unit: str, adjacency: str):
    def delta(histogram: Histogram, *, epsilon: float, qi: Sequence[str]) -> float:
        n_q = histogram.n_qi(qi)
        value = sw.dp_swapping_delta(
            epsilon, n_q, unit=unit, adjacency=adjacency, bound=_bound(histogram)
        )
        return float(value)

    return delta


def _sw_reference(unit: str):
    def reference(
        histogram: Histogram, *, epsilon: float, adjacency: str, qi: Sequence[str]
    ) -> float:
        n_q = histogram.n_qi(qi)
        return float(
            sw.dp_swapping_exact_delta(
                epsilon, n_q=n_q, n_groups=histogram.n_cells // n_q, bound=_bound(histogram),
                unit=unit, adjacency=adjacency,
            )
        )  # fmt: skip

    return reference


def _sw_printed(histogram: Histogram, *, epsilon: float, qi: Sequence[str]) -> float:
    return float(sw.dp_swapping_delta_as_printed(epsilon, histogram.n_qi(qi)))


def _traditional_sw_release(dataset: Dataset, *, rng, reps, qi, rate):
    return swapping(dataset.histogram, qi=qi, rate=rate, rng=rng, reps=reps)


def _traditional_sw_chunks(dataset: Dataset, chunks, *, qi, rate):
    """All chunks in one loop over steps (bit for bit the chunks one by one)."""
    return swapping_chunks(dataset.histogram, chunks, qi=qi, rate=rate)


_traditional_sw_release.run_chunks = _traditional_sw_chunks


def _non_qi_marginal_reference(
    histogram: Histogram, *, epsilon: float, adjacency: str, qi: Sequence[str], **_: object
) -> float:
    """Swapping exchanges QI values between records, so the non-QI marginal is released
    exactly; neighbours that change it (replace, add/remove) are told apart surely."""
    marginal = lambda x: histogram.to_qi_matrix(qi, x).sum(axis=-1)  # noqa: E731
    return deterministic_worst_case_delta(marginal, histogram.n_cells, _bound(histogram), adjacency)


# ------------------------------------------------------------------- k-anonymity
def _ka_release(dataset: Dataset, *, rng, reps, epsilon, k, ka_qi):
    return dp_k_anonymity(
        dataset.records, qi=ka_qi, k=k, epsilon=epsilon, rng=rng, reps=reps,
        attributes=dataset.histogram.attributes, domains=_domains(dataset),
    )  # fmt: skip


def _ka_delta(histogram: Histogram, *, epsilon: float, **_: object) -> float:
    """beta = 1 - e^-eps for every bound >= 1 (the pair (1, 0) -> (0, 1) attains it and a
    coupling caps the total variation there); Mondrian and reconstruction are
    post-processing."""
    return float(sampling_probability(epsilon))


def _ka_reference(histogram: Histogram, *, epsilon: float, adjacency: str, **_: object) -> float:
    beta = sampling_probability(epsilon)
    return float(ka.subsampling_delta(beta, epsilon, _bound(histogram), adjacency))


def _ka_printed(histogram: Histogram, *, epsilon: float, k: int, **_: object) -> float:
    with np.errstate(invalid="ignore", over="ignore"):  # huge binomial coefficients, w ~ B
        return ka.d_as_printed(k, sampling_probability(epsilon), epsilon, _bound(histogram))


def _ka_reading(histogram: Histogram, *, epsilon: float, k: int, **_: object) -> float:
    return ka.d_corrected(k, sampling_probability(epsilon), epsilon, _bound(histogram))


def _traditional_ka_release(dataset: Dataset, *, rng, reps, k, ka_qi):
    return k_anonymity(
        dataset.records, qi=ka_qi, k=k, rng=rng, reps=reps,
        attributes=dataset.histogram.attributes, domains=_domains(dataset),
    )  # fmt: skip


def _total_reference(histogram: Histogram, *, epsilon: float, adjacency: str, **_) -> float:
    """k-anonymity with reconstruction releases exactly as many records as it got, so
    add/remove neighbours are told apart surely."""
    return deterministic_worst_case_delta(lambda x: x.sum(), 2, _bound(histogram), adjacency)


# ----------------------------------------------------------- neighbouring pairs
def _placed(histogram: Histogram, cells: Mapping[int, int]) -> Histogram:
    """``histogram``'s universe with the given counts in the given flat cells, 0 elsewhere."""
    counts = np.zeros(histogram.n_cells, dtype=np.int64)
    for cell, count in cells.items():
        counts[cell] = count
    return histogram.with_counts(counts)


def _pair(histogram, x_cells, y_cells, adjacency, reason, **settings) -> NeighbourPair:
    x, y = _placed(histogram, x_cells), _placed(histogram, y_cells)
    return NeighbourPair(x, y, adjacency, settings, reason)


def _need_cells(histogram: Histogram, n: int) -> None:
    if histogram.n_cells < n:
        raise ValueError(f"the universe needs at least {n} cells, has {histogram.n_cells}")


def _at(epsilon: float | None, at: object) -> np.ndarray:
    return np.asarray(epsilon if at is None else at, dtype=float)


def _shaped_like(at: np.ndarray, value: float) -> float | np.ndarray:
    return float(value) if at.ndim == 0 else np.full(at.shape, float(value))


def _shift_adjacency(x: Histogram, x_prime: Histogram) -> str:
    """``add_remove`` for a unit change of one cell, ``replace`` for +1/-1 in two cells."""
    d = x_prime.counts - x.counts
    changed = d[d != 0]
    if changed.size == 1 and abs(changed[0]) == 1:
        return "add_remove"
    if changed.size == 2 and sorted(changed) == [-1, 1]:
        return "replace"
    raise ValueError("x and x_prime are not neighbours (one cell +-1, or one record moved)")


def _shift_pair(histogram: Histogram, *, epsilon=None, **_) -> NeighbourPair:
    _need_cells(histogram, 2)
    b = _bound(histogram)
    reason = (
        "every replace-one pair has the same exact delta; counts at the bound keep the "
        "projection onto counts >= 0 (post-processing) out of the way"
    )
    return _pair(histogram, {0: b, 1: b - 1}, {0: b - 1, 1: b}, "replace", reason)


def _laplace_pair_delta(x, x_prime, *, epsilon, at=None):
    """Closed form for unprojected Laplace (projection can only lower it)."""
    adjacency = _shift_adjacency(x, x_prime)
    scale = laplace_scale(epsilon)
    return accounting.laplace_delta_closed_form(_at(epsilon, at), scale=scale, adjacency=adjacency)


def _dg_pair_delta(x, x_prime, *, epsilon, at=None):
    """Exact enumeration for the unprojected discrete Gaussian (projection can only lower it)."""
    adjacency = _shift_adjacency(x, x_prime)
    sigma = discrete_gaussian_sigma(epsilon)
    values = _at(epsilon, at)
    out = [
        accounting.discrete_gaussian_delta_enumerated(v, sigma=sigma, adjacency=adjacency)
        for v in values.ravel()
    ]
    return float(out[0]) if values.ndim == 0 else np.asarray(out).reshape(values.shape)


def _cs_pair(variant: str):
    """The pair of the privacy chapter's closed form where it applies (checked against
    the enumeration by the contract test), else the enumeration's worst pair."""

    def pair(histogram: Histogram, *, epsilon, k) -> NeighbourPair:
        n = 2 if variant == "per_cell" else min(3, histogram.n_cells)
        _need_cells(histogram, n)
        b = _bound(histogram)
        if variant == "per_cell" and k <= b - 1:
            cells = ({0: b, 1: b - 1}, {0: b - 1, 1: b})
            reason = "the count at the bound leaves while its neighbour reaches it (closed form)"
        elif variant == "noisy_threshold" and k < b and n == 3:
            cells = ({2: b}, {0: 1, 2: b - 1})
            reason = "a record leaves the count at the bound for an empty cell (closed form)"
        else:
            worst = cs.dp_cell_suppression_worst_case(
                epsilon, k=k, bound=b, variant=variant, n_cells=max(n, 2)
            )
            cells = (dict(enumerate(worst.x)), dict(enumerate(worst.x_prime)))
            reason = "the worst pair found by enumerating every neighbouring pair (counts <= B)"
        return _pair(histogram, *cells, "replace", reason)

    return pair


def _cs_pair_delta(variant: str):
    def pair_delta(x, x_prime, *, epsilon, k, at=None):
        return cs.dp_cell_suppression_pair_delta(
            x.counts, x_prime.counts, k=k, epsilon=epsilon, variant=variant, at=at
        )

    return pair_delta


def _deterministic_pair(function):
    def pair(histogram: Histogram, *, epsilon=None, **params) -> NeighbourPair:
        _need_cells(histogram, 2)
        release = lambda c: function(c, **params)  # noqa: E731
        found = distinguishing_pair(release, 2, _bound(histogram), "replace")
        if found is None:
            raise ValueError("no replace-one pair with counts up to the bound changes the output")
        reason = "a deterministic release: the first pair whose outputs differ"
        x_cells, y_cells = (dict(enumerate(int(v) for v in h)) for h in found)
        return _pair(histogram, x_cells, y_cells, "replace", reason)

    return pair


def _deterministic_pair_delta(function):
    def pair_delta(x, x_prime, *, epsilon=None, at=None, **params):
        outputs = (function(h.counts, **params) for h in (x, x_prime))
        differ = not np.array_equal(*outputs)
        return _shaped_like(_at(0.0 if epsilon is None else epsilon, at), 1.0 if differ else 0.0)

    return pair_delta


def _sw_groups(histogram: Histogram, qi: Sequence[str], x: Histogram, y: Histogram):
    """QI matrices of x and y restricted to the groups where they differ."""
    mx, my = histogram.to_qi_matrix(qi, x.counts), histogram.to_qi_matrix(qi, y.counts)
    rows = np.flatnonzero(np.any(mx != my, axis=1))
    return mx[rows], my[rows]


def _sw_pair(unit: str):
    def pair(histogram: Histogram, *, epsilon=None, qi) -> NeighbourPair:
        if histogram.n_qi(qi) < 2:
            raise ValueError("the universe needs at least two QI values")
        if unit == "cell" and _bound(histogram) >= 2:
            rows = ({0: 2}, {0: 1, 1: 1})
            reason = "a cell of count 2 against the same two records split (the privacy chapter)"
        else:
            rows = ({0: 1}, {1: 1})
            reason = "one record changes its QI value: randomized response with loss up to epsilon"
        cells = histogram.to_qi_matrix(qi, np.arange(histogram.n_cells))[0]  # group 0
        x_cells, y_cells = ({int(cells[j]): c for j, c in r.items()} for r in rows)
        return _pair(histogram, x_cells, y_cells, "qi_replace", reason)

    return pair


def _sw_pair_delta(unit: str):
    def pair_delta(x, x_prime, *, epsilon, qi, at=None):
        mx, my = _sw_groups(x, qi, x, x_prime)
        if mx.size == 0:
            return _shaped_like(_at(epsilon, at), 0.0)
        return sw.dp_swapping_pair_delta(mx, my, epsilon, unit, at=at)

    return pair_delta


def _traditional_sw_pair(histogram: Histogram, *, epsilon=None, qi, rate) -> NeighbourPair:
    cells = histogram.to_qi_matrix(qi, np.arange(histogram.n_cells))
    if cells.shape[0] < 2:
        raise ValueError("the universe needs two non-QI groups for a record to change group")
    reason = "one record changes a non-QI value: the non-QI marginal, released exactly, differs"
    return _pair(histogram, {int(cells[0, 0]): 1}, {int(cells[1, 0]): 1}, "replace", reason)


def _traditional_sw_pair_delta(x, x_prime, *, epsilon=None, at=None, qi, rate):
    mx, my = x.to_qi_matrix(qi, x.counts), x.to_qi_matrix(qi, x_prime.counts)
    differ = not np.array_equal(mx.sum(axis=1), my.sum(axis=1))
    return _shaped_like(_at(0.0 if epsilon is None else epsilon, at), 1.0 if differ else np.nan)


def _ka_pair(histogram: Histogram, *, epsilon=None, **_) -> NeighbourPair:
    _need_cells(histogram, 2)
    reason = "a lone record (k = 1): released exactly when sampled (the privacy chapter)"
    return _pair(histogram, {0: 1}, {1: 1}, "replace", reason, k=1)


def _ka_pair_delta(x, x_prime, *, epsilon, at=None, **_):
    """Exact for the Bernoulli subsample; the whole mechanism is post-processing of it, so
    this bounds the pair's delta from above, with equality for a lone record and k = 1."""
    beta = sampling_probability(epsilon)
    return ka.subsampling_pair_delta(tuple(x.counts), tuple(x_prime.counts), beta, _at(epsilon, at))


def _traditional_ka_pair(histogram: Histogram, *, epsilon=None, k, ka_qi) -> NeighbourPair:
    b = _bound(histogram)
    if histogram.n_cells * b < k + 1:
        raise ValueError(f"the universe cannot hold k + 1 = {k + 1} records with counts <= {b}")
    full, rest = divmod(int(k), b)
    x_cells = {i: b for i in range(full)} | ({full: rest} if rest else {})
    y_cells = dict(x_cells)
    y_cells[full] = y_cells.get(full, 0) + 1
    reason = "k records against k + 1: the number of records is released exactly"
    return _pair(histogram, x_cells, y_cells, "add_remove", reason)


def _total_pair_delta(x, x_prime, *, epsilon=None, at=None, **_):
    differ = x.total != x_prime.total
    return _shaped_like(_at(0.0 if epsilon is None else epsilon, at), 1.0 if differ else np.nan)


# ---------------------------------------------------------------------- registry
_ONE = _constant(1.0)
_ALL = ("replace", "add_remove", "qi_replace")
_CS_RULE = "1 - exp(-eps (B - k)) / 4, B = max count = {bound}"
_SW_RULE = "1 - (1 - g^2)/(n_Q - 1) - ((1 - g)/(n_Q - 1))^2, n_Q = {n_q}"
_WORST_CLOSED = "worst case over counts <= B = {bound} (closed form)"
_DETERMINISTIC = "deterministic: 1 if neighbours' outputs differ"

_ENTRIES = (
    Mechanism(
        name="laplace",
        label="Laplace",
        color="#0072B2",
        kind="baseline",
        source="main text",
        seed_key=0,
        release=_laplace_release,
        exact_bias=lambda h, *, epsilon: baselines.projected_laplace_bias(
            h.counts, epsilon=epsilon
        ),
        exact_delta={a: _laplace_delta(a) for a in _ALL},
        adjacency="replace",
        exact_method="dp_accounting PLD, two unit shifts",
        printed_delta=_constant(0.0),
        printed_rule="stated (epsilon, 0)-DP",
        reference_delta=_laplace_reference,
        reference_tolerance=accounting.pld_error_bound("replace"),
        in_tables=True,
        worst_pair=_shift_pair,
        pair_delta=_laplace_pair_delta,
    ),
    Mechanism(
        name="discrete_gaussian",
        label="discrete Gaussian",
        color="#56B4E9",
        kind="baseline",
        source="main text",
        seed_key=1,
        release=_dg_release,
        exact_bias=lambda h, *, epsilon: baselines.projected_discrete_gaussian_bias(
            h.counts, sigma=discrete_gaussian_sigma(epsilon)
        ),
        exact_delta={a: _dg_delta(a) for a in _ALL},
        adjacency="replace",
        exact_method="dp_accounting PLD, two unit shifts",
        printed_delta=lambda h, *, epsilon: float(
            baselines.discrete_gaussian_delta_as_printed(epsilon)
        ),
        printed_rule="eps = eps^2/2 + eps sqrt(2 log(1/delta)) solved for delta",
        printed_reading=lambda h, *, epsilon: float(
            baselines.discrete_gaussian_delta_table_reading(epsilon)
        ),
        reference_delta=_dg_reference,
        reference_tolerance=accounting.pld_error_bound("replace"),
        in_tables=True,
        worst_pair=_shift_pair,
        pair_delta=_dg_pair_delta,
    ),
    Mechanism(
        name="dp_cell_suppression",
        label="DP cell suppression",
        color="#D55E00",
        kind="dp",
        source="main text",
        seed_key=2,
        release=_cs_release("per_cell"),
        parameters=(_K,),
        exact_bias=_cs_bias("per_cell"),
        exact_delta={a: _cs_delta("per_cell", a) for a in ("replace", "add_remove")},
        adjacency="replace",
        exact_method=_WORST_CLOSED,
        printed_delta=_cs_printed,
        printed_rule=_CS_RULE,
        reference_delta=_cs_reference("per_cell"),
        in_tables=True,
        worst_pair=_cs_pair("per_cell"),
        pair_delta=_cs_pair_delta("per_cell"),
    ),
    Mechanism(
        name="dp_swapping",
        label="DP swapping",
        color="#009E73",
        kind="dp",
        source="main text",
        seed_key=3,
        release=_sw_release("cell"),
        parameters=(_QI,),
        exact_bias=_sw_bias,
        exact_delta={a: _sw_delta("cell", a) for a in _ALL},
        adjacency="qi_replace",
        exact_method=_WORST_CLOSED,
        printed_delta=_sw_printed,
        printed_rule=_SW_RULE,
        printed_reading=_sw_printed,
        reference_delta=_sw_reference("cell"),
        in_tables=True,
        worst_pair=_sw_pair("cell"),
        pair_delta=_sw_pair_delta("cell"),
    ),
    Mechanism(
        name="dp_k_anonymity",
        label="DP k-anonymity",
        color="#CC79A7",
        kind="dp",
        source="main text",
        seed_key=4,
        release=_ka_release,
        parameters=(_K_CLASS, _KA_QI),
        exact_delta={a: _ka_delta for a in ("replace", "add_remove")},
        adjacency="replace",
        exact_method="Bernoulli subsampling: beta for every B",
        printed_delta=_ka_printed,
        printed_rule="d(k, beta, eps) as printed, beta = 1 - e^-eps, B = {bound}",
        printed_reading=_ka_reading,
        reference_delta=_ka_reference,
        in_tables=True,
        worst_pair=_ka_pair,
        pair_delta=_ka_pair_delta,
    ),
    Mechanism(
        name="dp_cell_suppression_threshold",
        label="DP cell suppression (noisy threshold)",
        color="#D55E00",
        kind="dp",
        source="appendix",
        seed_key=5,
        release=_cs_release("noisy_threshold"),
        parameters=(_K,),
        exact_bias=_cs_bias("noisy_threshold"),
        exact_delta={a: _cs_delta("noisy_threshold", a) for a in ("replace", "add_remove")},
        adjacency="replace",
        exact_method=_WORST_CLOSED,
        printed_delta=_cs_printed,
        printed_rule=_CS_RULE,
        reference_delta=_cs_reference("noisy_threshold"),
        worst_pair=_cs_pair("noisy_threshold"),
        pair_delta=_cs_pair_delta("noisy_threshold"),
    ),
    Mechanism(
        name="dp_swapping_record",
        label="DP swapping (per record)",
        color="#009E73",
        kind="dp",
        source="appendix",
        seed_key=6,
        release=_sw_release("record"),
        parameters=(_QI,),
        exact_bias=_sw_bias,
        exact_delta={a: _sw_delta("record", a) for a in _ALL},
        adjacency="qi_replace",
        exact_method="k-ary randomized response per record",
        printed_delta=_sw_printed,
        printed_rule=_SW_RULE,
        reference_delta=_sw_reference("record"),
        worst_pair=_sw_pair("record"),
        pair_delta=_sw_pair_delta("record"),
    ),
    Mechanism(
        name="cell_suppression",
        label="cell suppression",
        color="#D55E00",
        kind="traditional",
        source="appendix",
        seed_key=7,
        release=_traditional_cs_release(cell_suppression),
        parameters=(_K,),
        exact_bias=_traditional_cs_bias("appendix"),
        exact_delta={a: _deterministic_delta(cell_suppression) for a in ("replace", "add_remove")},
        adjacency="replace",
        exact_method=_DETERMINISTIC,
        reference_delta=_deterministic_reference(cell_suppression),
        worst_pair=_deterministic_pair(cell_suppression),
        pair_delta=_deterministic_pair_delta(cell_suppression),
    ),
    Mechanism(
        name="cell_suppression_main_text",
        label="cell suppression (main text)",
        color="#D55E00",
        kind="traditional",
        source="main text",
        seed_key=8,
        release=_traditional_cs_release(cell_suppression_main_text),
        parameters=(_K,),
        exact_bias=_traditional_cs_bias("main_text"),
        exact_delta={
            a: _deterministic_delta(cell_suppression_main_text) for a in ("replace", "add_remove")
        },
        adjacency="replace",
        exact_method=_DETERMINISTIC,
        reference_delta=_deterministic_reference(cell_suppression_main_text),
        worst_pair=_deterministic_pair(cell_suppression_main_text),
        pair_delta=_deterministic_pair_delta(cell_suppression_main_text),
    ),
    Mechanism(
        name="swapping",
        label="swapping",
        color="#009E73",
        kind="traditional",
        source="appendix",
        seed_key=9,
        release=_traditional_sw_release,
        parameters=(_QI, _RATE),
        exact_delta={"replace": _ONE, "add_remove": _ONE},
        adjacency="replace",
        exact_method="the non-QI marginal is released exactly",
        reference_delta=_non_qi_marginal_reference,
        worst_pair=_traditional_sw_pair,
        pair_delta=_traditional_sw_pair_delta,
    ),
    Mechanism(
        name="k_anonymity",
        label="k-anonymity",
        color="#CC79A7",
        kind="traditional",
        source="appendix",
        seed_key=10,
        release=_traditional_ka_release,
        parameters=(_K_CLASS, _KA_QI),
        exact_delta={"add_remove": _ONE},
        adjacency="add_remove",
        exact_method="the number of records is released exactly",
        reference_delta=_total_reference,
        worst_pair=_traditional_ka_pair,
        pair_delta=_total_pair_delta,
    ),
)

#: Every mechanism of the book by name, in a fixed order (the paper's five first).
REGISTRY: dict[str, Mechanism] = {m.name: m for m in _ENTRIES}


def names(*, kind: str | None = None, in_tables: bool | None = None) -> tuple[str, ...]:
    """Registered mechanism names, in registry order, optionally filtered."""
    return tuple(
        m.name
        for m in REGISTRY.values()
        if (kind is None or m.kind == kind) and (in_tables is None or m.in_tables == in_tables)
    )


@functools.cache
def _known() -> str:
    return ", ".join(REGISTRY)


def get(name: str, argument: str = "mechanism") -> Mechanism:
    """The registry record of ``name``; a ValueError naming ``argument`` and listing the
    known names otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"{argument} must name a mechanism (str), got {type(name).__name__}")
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"{argument}: unknown mechanism {name!r}; known: {_known()}") from None
