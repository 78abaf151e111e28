"""The mechanism registry: one record per mechanism, every "for each mechanism" loops here.

A record is a subclass of :class:`Mechanism` (:mod:`~dadp_lite.registry.record`) registered
with the decorator :func:`register`; it says how to release the mechanism
on a :class:`~dadp_lite.dataset.Dataset` (its sampler, the input the sampler takes and the
arguments the record fixes), which parameters it takes (with defaults), what it looks like
in figures (label, colour), its exact per-cell bias and its exact delta per adjacency
(computed by :mod:`dadp_lite.theory`), what the paper prints for its delta and which
reading of the paper reproduces the printed column, an independent reference computation
of each exact delta on small histograms (enumeration, or a closed form against
``dp_accounting``) that the contract test (``tests/test_registry.py``) compares with it,
and, for audits (:mod:`dadp_lite.audit`), a neighbouring pair that attains its exact
delta and the exact delta of any one pair.

One module per family holds its record classes, which name the theory's answers as they
are: :mod:`~dadp_lite.registry.baselines` (Laplace, discrete Gaussian),
:mod:`~dadp_lite.registry.cell_suppression`, :mod:`~dadp_lite.registry.swapping` and
:mod:`~dadp_lite.registry.k_anonymity`. Adding a mechanism: ARCHITECTURE.md, "Adding a
mechanism", and the commented template ``dadp_lite/registry/_template.py``.

Functions of a record take the dataset's histogram first and keyword arguments after:
``exact_bias(histogram, epsilon=..., **params)``, ``exact_delta(histogram, epsilon=...,
adjacency=..., **params)``, ``reference_delta(histogram, epsilon=..., adjacency=...,
**params)`` (on a small histogram: its largest count is the bound of the enumeration);
``params`` are the record's parameters and its ``fixed`` keywords.
Traditional mechanisms take no ``epsilon`` in ``release`` and ``exact_bias``. Colours are
the Okabe-Ito palette (colour-blind safe); a DP version shares its traditional method's
colour.
"""

from __future__ import annotations

# the pair type, defined with the histograms it holds (the theory names worst pairs)
from dadp_lite.histogram import NeighbourPair as NeighbourPair
from dadp_lite.registry.record import (
    FUNCTIONS,
    INPUTS,
    KINDS,
    SCALES,
    SOURCES,
    Mechanism,
    Parameter,
    register,
)

__all__ = [
    "FAMILIES",
    "FUNCTIONS",
    "INPUTS",
    "KINDS",
    "REGISTRY",
    "SCALES",
    "SOURCES",
    "Mechanism",
    "Parameter",
    "get",
    "names",
    "register",
]

#: Every mechanism of the book by name, in ``seed_key`` order: the paper's five of Tables
#: 1-3 (0-4), the appendix's DP variants (5, 6), the traditional methods (7-10), then
#: mechanisms added later. :func:`register` fills it as the family modules load.
REGISTRY: dict[str, Mechanism] = {}

# The family modules, loaded after REGISTRY exists: each registers its records.
from dadp_lite.registry import baselines, cell_suppression, k_anonymity, swapping  # noqa: E402

#: The family modules, each holding the record classes of one family.
FAMILIES = (baselines, cell_suppression, swapping, k_anonymity)


def names(*, kind: str | None = None, in_tables: bool | None = None) -> tuple[str, ...]:
    """Registered mechanism names, in registry order, optionally filtered."""
    return tuple(
        m.name
        for m in REGISTRY.values()
        if (kind is None or m.kind == kind) and (in_tables is None or m.in_tables == in_tables)
    )


def get(name: str | Mechanism, argument: str = "mechanism") -> Mechanism:
    """The registry record of ``name`` (a record is returned as it is); a ValueError
    naming ``argument`` and listing the known names otherwise."""
    if isinstance(name, Mechanism):
        return name
    if not isinstance(name, str):
        raise TypeError(f"{argument} must name a mechanism (str), got {type(name).__name__}")
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(REGISTRY)
        raise ValueError(f"{argument}: unknown mechanism {name!r}; known: {known}") from None
