"""The mechanism registry: one record per mechanism, every "for each mechanism" loops here.

A :class:`Mechanism` says how to release the mechanism on a :class:`~dadp_lite.dataset.Dataset`
(all repetitions at once), which parameters it takes (with defaults), what it looks like
in figures (label, colour), its exact per-cell bias and its exact delta per adjacency
(computed by :mod:`dadp_lite.theory`), what the paper prints for its delta and which
reading of the paper reproduces the printed column, and an independent reference
computation of each exact delta on small histograms (enumeration, or a closed form against
``dp_accounting``) that the contract test (``tests/test_registry.py``) compares with it.

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
)
from dadp_lite.paper import PAPER_K, PAPER_QI
from dadp_lite.theory import accounting, baselines
from dadp_lite.theory import cell_suppression as cs
from dadp_lite.theory import k_anonymity as ka
from dadp_lite.theory import swapping as sw
from dadp_lite.theory.privacy import deterministic_worst_case_delta, worst_case_delta

__all__ = ["KINDS", "REGISTRY", "Mechanism", "Parameter", "get", "names"]

#: ``baseline`` = a classical DP mechanism; ``dp`` = the paper's DP version of a
#: traditional method; ``traditional`` = the method as agencies use it (no epsilon).
KINDS = ("baseline", "dp", "traditional")


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
