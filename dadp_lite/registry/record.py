"""The registry's types: a mechanism's record, its parameters, a neighbouring pair.

A :class:`Mechanism` joins a sampler of :mod:`dadp_lite.mechanisms` to its exact answers in
:mod:`dadp_lite.theory`. ARCHITECTURE.md ("The mechanism registry") lists every field, what
it is for and who reads it; ``dadp_lite/registry/_template.py`` is the commented record a
new mechanism copies.

The record runs its sampler itself (:meth:`Mechanism.release`, the one adapter of the
registry): the sampler takes the input named by ``takes`` (the histogram's counts, the
histogram, the records or the whole dataset), the record's ``fixed`` keyword arguments
(e.g. ``variant="per_cell"``) and the mechanism's parameters, renamed to the sampler's
argument names where a :class:`Parameter` says so. :meth:`Mechanism.bind` is the one place
that turns settings into a mechanism's keyword arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from dadp_lite._validate import check_epsilon, check_positive_int, check_rng
from dadp_lite.dataset import Dataset
from dadp_lite.histogram import Histogram

__all__ = ["INPUTS", "KINDS", "SCALES", "SOURCES", "Mechanism", "NeighbourPair", "Parameter"]

#: ``baseline`` = a classical DP mechanism; ``dp`` = the paper's DP version of a
#: traditional method; ``traditional`` = the method as agencies use it (no epsilon).
KINDS: tuple[str, ...] = ("baseline", "dp", "traditional")
#: Where the mechanism is stated: the paper's main text, its appendix, or neither (a
#: mechanism the book adds). ``book/performance.md`` marks appendix variants with squares.
SOURCES: tuple[str, ...] = ("main text", "appendix", "book")
#: What a sampler takes first: ``counts`` (the histogram's counts, an int array),
#: ``histogram`` (the :class:`~dadp_lite.histogram.Histogram`), ``records`` (the records
#: frame, with ``attributes=`` and ``domains=`` of the dataset's universe as keywords) or
#: ``dataset`` (the :class:`~dadp_lite.dataset.Dataset` itself, for anything else).
INPUTS: tuple[str, ...] = ("counts", "histogram", "records", "dataset")
#: What a release's cost grows with: ``histogram`` (the cells: the same cost at any number
#: of records) or ``records`` (a loop or a draw per record, such as traditional swapping's
#: swap steps or k-anonymity's reconstruction). ``book/performance.md`` tests each kind's
#: scaling against it.
SCALES: tuple[str, ...] = ("histogram", "records")


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


def _vocabulary() -> set[str]:
    """Every name a setting may have: ``epsilon`` and every registered parameter."""
    from dadp_lite import registry  # the live registry (a test may put a copy in its place)

    return {"epsilon"} | {p.name for m in registry.REGISTRY.values() for p in m.parameters}


def _repeat(released: np.ndarray, rng: object, reps: object) -> np.ndarray:
    """A deterministic release repeated ``reps`` times, shape ``(reps, n_cells)``; ``rng``
    is checked like every mechanism's, though a deterministic one draws nothing."""
    check_rng(rng)
    reps = check_positive_int(reps, "reps")
    return np.broadcast_to(released.astype(float), (reps, released.size)).copy()


@dataclass(frozen=True)
class Mechanism:
    """Everything the book knows about one mechanism (fields: ARCHITECTURE.md)."""

    name: str
    label: str
    color: str
    kind: str
    source: str
    seed_key: int
    sampler: Callable[..., np.ndarray]
    takes: str = "counts"
    scales_with: str = "histogram"
    fixed: Mapping[str, object] = field(default_factory=dict)
    deterministic: bool = False
    run_chunks: Callable[..., np.ndarray] | None = None
    calibration: Callable[..., object] | None = None
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

    def __post_init__(self) -> None:
        for value, name, choices in (
            (self.kind, "kind", KINDS),
            (self.source, "source", SOURCES),
            (self.takes, "takes", INPUTS),
            (self.scales_with, "scales_with", SCALES),
        ):
            if value not in choices:
                raise ValueError(f"{self.name}: {name} must be one of {choices}, got {value!r}")
        if self.deterministic and self.run_chunks is not None:
            raise ValueError(f"{self.name}: a deterministic sampler has no chunks to run")

    # ------------------------------------------------------------- parameters
    @property
    def private(self) -> bool:
        """True if the mechanism takes a privacy parameter ``epsilon``."""
        return self.kind != "traditional"

    def defaults(self) -> dict[str, object]:
        """``{parameter name: default}`` (None for required parameters)."""
        return {p.name: p.default for p in self.parameters}

    def _accepted(self) -> list[str]:
        own = [p.name for p in self.parameters]
        return ["epsilon", *own] if self.private else own

    def select(self, settings: Mapping[str, object], *, strict: bool = False) -> dict[str, object]:
        """This mechanism's parameters from ``settings``, defaults filled in.

        ``settings`` may hold other registered mechanisms' parameters and ``epsilon``, which
        are left out; a name that no registered mechanism takes (a typo such as ``K``)
        raises ValueError naming it. With ``strict`` only this mechanism's parameters (and
        ``epsilon`` if it is private) are accepted. A required parameter missing from
        ``settings`` raises ValueError.
        """
        unknown = set(settings) - set(self._accepted())
        if not strict:
            unknown -= _vocabulary()
        if unknown:
            names = ", ".join(repr(name) for name in sorted(unknown))
            accepted = ", ".join(self._accepted()) or "no parameter"
            if strict:
                raise ValueError(f"{self.name} takes no argument {names}; it takes {accepted}")
            raise ValueError(
                f"unknown setting {names}: no registered mechanism takes it; {self.name} "
                f"takes {accepted}"
            )
        values = {}
        for p in self.parameters:
            value = settings.get(p.name, p.default)
            if value is None:
                raise ValueError(f"{self.name} needs the parameter {p.name!r} ({p.doc})")
            values[p.name] = value
        return values

    def bind(
        self,
        settings: Mapping[str, object] | None = None,
        *,
        epsilon: object = None,
        strict: bool = False,
    ) -> dict[str, object]:
        """The keyword arguments of this mechanism's ``release`` and ``exact_bias``: its
        parameters from ``settings`` (:meth:`select`) and, if it is private, ``epsilon``.

        ``epsilon`` may also come in ``settings`` (the keyword wins; with ``strict``, both
        is an error). A private mechanism needs it (checked: finite and > 0); a traditional
        one ignores it, or with ``strict`` refuses it, as it refuses any name it does not
        take.
        """
        settings = dict(settings or {})
        if "epsilon" in settings:
            if strict and epsilon is not None:
                raise ValueError(f"{self.name}: epsilon given twice")
            given = settings.pop("epsilon")
            epsilon = given if epsilon is None else epsilon
        if not self.private and strict and epsilon is not None:
            raise ValueError(f"{self.name} is traditional and takes no epsilon")
        values = self.select(settings, strict=strict)
        if self.private:
            if epsilon is None:
                raise ValueError(f"{self.name} needs epsilon")
            values["epsilon"] = check_epsilon(epsilon)
        return values

    # ---------------------------------------------------------------- release
    def _sampler_input(self, dataset: Dataset) -> tuple[object, dict[str, object]]:
        """The sampler's first argument and the keywords that come with it."""
        if not isinstance(dataset, Dataset):
            raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}")
        hist = dataset.histogram
        if self.takes == "counts":
            return hist.counts, {}
        if self.takes == "histogram":
            return hist, {}
        if self.takes == "records":
            domains = dict(zip(hist.attributes, hist.domains, strict=True))
            return dataset.records, {"attributes": hist.attributes, "domains": domains}
        return dataset, {}

    def _sampler_keywords(self, params: Mapping[str, object]) -> dict[str, object]:
        values = self.bind(params, strict=True)
        argument = {p.name: p.argument or p.name for p in self.parameters}
        return {**self.fixed, **{argument.get(k, k): v for k, v in values.items()}}

    def release(
        self, dataset: Dataset, *, rng: np.random.Generator, reps: int, **params: object
    ) -> np.ndarray:
        """``reps`` releases on ``dataset``, shape ``(reps, n_cells)``, all at once.

        ``params`` are this mechanism's parameters and ``epsilon`` (see :meth:`bind`,
        strict); the sampler gets them with the record's ``fixed`` arguments.
        """
        data, keywords = self._sampler_input(dataset)
        keywords |= self._sampler_keywords(params)
        if self.deterministic:
            return _repeat(self.sampler(data, **keywords), rng, reps)
        return self.sampler(data, rng=rng, reps=reps, **keywords)

    def release_chunks(
        self,
        dataset: Dataset,
        chunks: list[tuple[int, np.random.Generator]],
        **params: object,
    ) -> np.ndarray:
        """All ``(reps, rng)`` chunks of :func:`dadp_lite.simulate.chunk_generators` in one
        call through the record's ``run_chunks``, rows concatenated: bit for bit the chunks
        released one by one (pass it to ``simulate(..., run_chunks=...)``)."""
        if self.run_chunks is None:
            raise ValueError(f"{self.name} declares no run_chunks")
        data, keywords = self._sampler_input(dataset)
        return self.run_chunks(data, chunks, **keywords, **self._sampler_keywords(params))

    # ------------------------------------------------------- exact answers
    def bias(
        self, histogram: Histogram, *, epsilon: float | None = None, **settings: object
    ) -> np.ndarray | None:
        """Exact per-cell bias on ``histogram``, or None where no exact form is known.

        ``settings`` may hold other mechanisms' parameters too (see :meth:`select`).
        """
        if self.exact_bias is None:
            return None
        values = self.bind(settings, epsilon=epsilon)
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
