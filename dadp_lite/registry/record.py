"""The registry's contract: the class every mechanism's record subclasses, its parameters.

A record is a subclass of :class:`Mechanism` (an abstract base class) registered with the
decorator :func:`register`: its class attributes join a sampler of
:mod:`dadp_lite.mechanisms` to its exact answers in :mod:`dadp_lite.theory`, which take the
histogram first and keywords after, so the record names them as they are (no adapter).
ARCHITECTURE.md ("The mechanism registry") lists every attribute, what it is for and who
reads it; ``dadp_lite/registry/_template.py`` is the commented record a new mechanism
copies. :func:`register` checks a record when it is registered: declared values, the
functions it must name, and that each function accepts the arguments the record passes.

The record runs its sampler itself (:meth:`Mechanism.release`, the one adapter of the
registry): the sampler takes the input named by ``takes`` (the histogram's counts, the
histogram, the records or the whole dataset), the record's ``fixed`` keyword arguments
(e.g. ``variant="per_cell"``) and the mechanism's parameters, renamed to the sampler's
argument names where a :class:`Parameter` says so. :meth:`Mechanism.bind` is the one place
that turns settings into a mechanism's keyword arguments.
"""

from __future__ import annotations

import inspect
import types
from abc import ABC
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, cast

import numpy as np

from dadp_lite._validate import check_epsilon, check_positive_int, check_rng
from dadp_lite.dataset import Dataset
from dadp_lite.histogram import Histogram, NeighbourPair

__all__ = [
    "FUNCTIONS",
    "INPUTS",
    "KINDS",
    "SCALES",
    "SOURCES",
    "Mechanism",
    "Parameter",
    "register",
]

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
    invalid: tuple[object, ...] = ()
    argument: str | None = None


def _vocabulary() -> set[str]:
    """Every name a setting may have: ``epsilon`` and every registered parameter."""
    from dadp_lite import registry  # the live registry (a test may put a copy in its place)

    return {"epsilon"} | {p.name for m in registry.REGISTRY.values() for p in m.parameters}


def _repeat(released: np.ndarray[Any, Any], rng: object, reps: object) -> np.ndarray[Any, Any]:
    """A deterministic release repeated ``reps`` times, shape ``(reps, n_cells)``; ``rng``
    is checked like every mechanism's, though a deterministic one draws nothing."""
    check_rng(rng)
    reps = check_positive_int(reps, "reps")
    return np.broadcast_to(released.astype(float), (reps, released.size)).copy()


#: The functions a record names: ``True`` where every record must name one. The exact
#: answers take the histogram first (``pair_delta`` the two histograms of a pair), then
#: keywords: ``epsilon`` (and ``adjacency`` for the deltas, ``at`` for a pair's), the
#: record's parameters by their settings names, and the record's ``fixed`` keywords.
FUNCTIONS: dict[str, bool] = {
    "sampler": True,
    "run_chunks": False,
    "calibration": False,
    "exact_bias": False,
    "exact_delta": True,
    "reference_delta": True,
    "printed_delta": False,
    "printed_reading": False,
    "worst_pair": True,
    "pair_delta": True,
}
#: What every record declares (no default).
IDENTITY = ("name", "label", "color", "kind", "source", "seed_key", "adjacency", "adjacencies")

M = TypeVar("M", bound="type[Mechanism]")


class Mechanism(ABC):
    """The contract of a registered mechanism: subclass it, set the class attributes
    (ARCHITECTURE.md, "The mechanism registry"), decorate the class with :func:`register`.

    Functions are named as they are (``exact_bias = theory.exact_bias_laplace``): a plain
    function set on a record is stored as a static method, so the record never passes
    itself. A method defined in a record's body (a shared base such as a deterministic
    record's) receives ``self`` as usual.
    """

    # identity
    name: ClassVar[str]
    label: ClassVar[str]
    color: ClassVar[str]
    kind: ClassVar[str]
    source: ClassVar[str]
    seed_key: ClassVar[int]
    # the release
    sampler: Callable[..., np.ndarray[Any, Any]]
    takes: ClassVar[str] = "counts"
    scales_with: ClassVar[str] = "histogram"
    fixed: ClassVar[Mapping[str, object]] = types.MappingProxyType({})
    deterministic: ClassVar[bool] = False
    run_chunks: Callable[..., np.ndarray[Any, Any]] | None = None
    calibration: Callable[..., object] | None = None
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    # exact answers
    exact_bias: Callable[..., np.ndarray[Any, Any]] | None = None
    adjacencies: ClassVar[tuple[str, ...]]
    adjacency: ClassVar[str]
    exact_delta: Callable[..., float]
    exact_method: ClassVar[str] = ""
    printed_delta: Callable[..., float] | None = None
    printed_rule: ClassVar[str] = ""
    printed_reading: Callable[..., float] | None = None
    reference_delta: Callable[..., float]
    reference_tolerance: ClassVar[float] = 1e-9
    in_tables: ClassVar[bool] = False
    # audits
    worst_pair: Callable[..., NeighbourPair]
    pair_delta: Callable[..., float | np.ndarray[Any, Any]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for attribute in FUNCTIONS:
            value = cls.__dict__.get(attribute)
            own = f"{cls.__qualname__}.{attribute}"
            if isinstance(value, types.FunctionType) and value.__qualname__ != own:
                setattr(cls, attribute, staticmethod(value))

    def __init__(self) -> None:
        cls = type(self).__name__
        missing = [a for a in IDENTITY if not hasattr(self, a)]
        missing += [a for a, required in FUNCTIONS.items() if required and not hasattr(self, a)]
        if missing:
            raise TypeError(
                f"{cls} does not set {', '.join(missing)} (every record sets them: "
                "ARCHITECTURE.md, 'The mechanism registry')"
            )
        for value, attribute, choices in (
            (self.kind, "kind", KINDS),
            (self.source, "source", SOURCES),
            (self.takes, "takes", INPUTS),
            (self.scales_with, "scales_with", SCALES),
            (self.adjacency, "adjacency", self.adjacencies),
        ):
            if value not in choices:
                raise ValueError(
                    f"{self.name}: {attribute} must be one of {choices}, got {value!r}"
                )
        if self.deterministic and self.run_chunks is not None:
            raise ValueError(f"{self.name}: a deterministic sampler has no chunks to run")
        self._check_signatures()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} record {self.name!r}>"

    def _check_signatures(self) -> None:
        """Every function accepts the arguments the record passes it (a TypeError naming
        the function, its signature and the call otherwise)."""
        params = {p.name: p.default for p in self.parameters}
        fixed = dict(self.fixed)
        eps = {"epsilon": 1.0} if self.private else {}
        data: tuple[object, ...] = ("histogram",)
        delta = {"epsilon": 1.0, "adjacency": self.adjacency, **params, **fixed}
        answer = {"epsilon": 1.0, **params, **fixed}
        renamed = {p.argument or p.name: p.default for p in self.parameters}
        draws = {} if self.deterministic else {"rng": None, "reps": 1}
        if self.takes == "records":
            renamed |= {"attributes": (), "domains": {}}
        calls: dict[str, tuple[tuple[object, ...], dict[str, object]]] = {
            "sampler": (("data",), {**fixed, **renamed, **eps, **draws}),
            "run_chunks": (("data", "chunks"), {**fixed, **renamed, **eps}),
            "exact_bias": (data, {**eps, **params, **fixed}),
            "exact_delta": (data, delta),
            "reference_delta": (data, delta),
            "printed_delta": (data, answer),
            "printed_reading": (data, answer),
            "worst_pair": (data, answer),
            "pair_delta": (("x", "x_prime"), {**answer, "at": None}),
        }
        for attribute, (args, keywords) in calls.items():
            function = getattr(self, attribute)
            if function is None:
                continue
            try:
                signature = inspect.signature(function)
            except (TypeError, ValueError):  # pragma: no cover - a builtin without one
                continue
            try:
                signature.bind(*args, **keywords)
            except TypeError as error:
                shown = ", ".join([*map(str, args), *(f"{k}=..." for k in keywords)])
                raise TypeError(
                    f"{self.name}: {attribute}{signature} cannot be called as "
                    f"{attribute}({shown}): {error}"
                ) from None

    def replace(self, **changes: object) -> Mechanism:
        """An unregistered copy of this record with some attributes changed (a subclass
        of the record's class, checked like any record)."""
        cls = type(self)
        variant = type(cls.__name__, (cls,), {"__qualname__": cls.__qualname__, **changes})
        return variant()  # type: ignore[no-any-return]

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
        return np.asarray(self.exact_bias(histogram, **values, **self.fixed), dtype=float)

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
        if adjacency not in self.adjacencies:
            known = ", ".join(self.adjacencies)
            raise ValueError(f"{self.name} has no exact delta under {adjacency!r}; has {known}")
        values = self.select(settings)
        return float(
            self.exact_delta(
                histogram, epsilon=epsilon, adjacency=adjacency, **values, **self.fixed
            )
        )

    def printed(self, histogram: Histogram, *, epsilon: float, **settings: object) -> float:
        """The paper's printed delta formula evaluated on ``histogram`` (NaN if none)."""
        if self.printed_delta is None:
            return float("nan")
        values = self.select(settings)
        return float(self.printed_delta(histogram, epsilon=epsilon, **values, **self.fixed))

    def reading(self, histogram: Histogram, *, epsilon: float, **settings: object) -> float:
        """The reading of the paper that reproduces its printed delta column (NaN where the
        printed value needs no reading)."""
        if self.printed_reading is None:
            return float("nan")
        values = self.select(settings)
        return float(self.printed_reading(histogram, epsilon=epsilon, **values, **self.fixed))

    def neighbour_pair(
        self, histogram: Histogram, *, epsilon: float | None = None, **settings: object
    ) -> NeighbourPair:
        """A neighbouring pair inside ``histogram``'s universe, counts up to its largest
        count, that attains :meth:`delta` under the record's adjacency."""
        return self.worst_pair(histogram, epsilon=epsilon, **self.select(settings), **self.fixed)

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
        values = self.select({**settings, **pair.settings})
        return self.pair_delta(pair.x, pair.x_prime, epsilon=epsilon, at=at, **values, **self.fixed)

    def context(self, histogram: Histogram, **params: object) -> dict[str, object]:
        """Values the printed formulas are stated in: ``bound`` B (largest count), ``n_q``
        (size of the QI universe, for mechanisms with a ``qi``) and the parameters."""
        out: dict[str, object] = {"bound": int(histogram.counts.max()), **params}
        qi = params.get("qi")
        if qi is not None:
            out["n_q"] = histogram.n_qi(cast("Sequence[str]", qi))
        return out


def register(cls: M) -> M:
    """Class decorator: check the record (see :class:`Mechanism`) and put one instance of it
    in :data:`dadp_lite.registry.REGISTRY` (the live one: a test may put a copy in its
    place), kept in ``seed_key`` order. A name or seed key already taken raises ValueError."""
    from dadp_lite import registry  # the live registry (created before the families load)

    record = cls()
    for other in registry.REGISTRY.values():
        if other.name == record.name:
            raise ValueError(f"{record.name!r} is registered already ({type(other).__name__})")
        if other.seed_key == record.seed_key:
            raise ValueError(
                f"{record.name}: seed_key {record.seed_key} is {other.name}'s; the next free "
                f"one is {max(m.seed_key for m in registry.REGISTRY.values()) + 1}"
            )
    ordered = sorted([*registry.REGISTRY.values(), record], key=lambda m: m.seed_key)
    registry.REGISTRY.clear()
    registry.REGISTRY.update((m.name, m) for m in ordered)
    return cls
