"""Template of a registry record: copy it into a family module and fill it in.

The recipe is ARCHITECTURE.md's "Adding a mechanism"; this file shows its last step, the
record, with every field of :class:`~dadp_lite.registry.Mechanism` and what reads it.
Copy the body of :func:`my_record` into ``dadp_lite/registry/<family>.py`` as a module
constant (``MY_MECHANISM = Mechanism(...)``), add it to that module's ``RECORDS`` (and a
new family module to ``FAMILIES`` in ``dadp_lite/registry/__init__.py``), and delete the
fields you leave at their defaults. ``tests/test_registry.py`` then checks the record and
``tests/test_recipe.py`` shows the whole recipe on a projected Gaussian.

This module is never imported by the package: the names under ``TYPE_CHECKING`` stand for
the files the recipe's earlier steps write. ``tests/test_registry.py`` checks that the
record below names every field of :class:`Mechanism`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dadp_lite.registry._helpers import constant, make_pair
from dadp_lite.registry.record import Mechanism, Parameter

if TYPE_CHECKING:  # the recipe's earlier steps (ARCHITECTURE.md, "Adding a mechanism")
    from dadp_lite.definitions import my_noise_scale  # step 2: epsilon -> noise
    from dadp_lite.histogram import Histogram
    from dadp_lite.mechanisms import my_mechanism, my_mechanism_chunks  # step 1: sampler
    from dadp_lite.registry.record import NeighbourPair
    from dadp_lite.theory import my_mechanism as theory  # step 3: exact answers


def _bias(histogram: Histogram, *, epsilon: float, k: int) -> float:
    # Exact per-cell bias E[release] - x on the histogram, shape (n_cells,).
    return theory.bias(histogram.counts, epsilon=epsilon, k=k)


def _delta(histogram: Histogram, *, epsilon: float, k: int) -> float:
    # Exact worst-case delta over histograms with counts up to histogram.counts.max().
    return theory.delta(epsilon, k=k, bound=int(histogram.counts.max()))


def _reference(histogram: Histogram, *, epsilon: float, adjacency: str, k: int) -> float:
    # The same delta computed independently (enumeration on the small histogram the
    # contract test passes, e.g. with dadp_lite.theory.privacy.worst_case_delta).
    return theory.delta_enumerated(epsilon, k=k, bound=int(histogram.counts.max()))


def _worst_pair(histogram: Histogram, *, epsilon: float | None, k: int) -> NeighbourPair:
    # Two neighbours inside the histogram's universe, counts <= its largest count, whose
    # exact delta is _delta's (cells given as {flat cell: count}, 0 elsewhere).
    b = int(histogram.counts.max())
    reason = "one sentence: why this pair attains the worst case"
    return make_pair(histogram, {0: b, 1: b - 1}, {0: b - 1, 1: b}, "replace", reason)


def _pair_delta(x, x_prime, *, epsilon: float, k: int, at=None) -> float:
    # Exact delta of this one pair: noise calibrated at epsilon, the divergence evaluated
    # at `at` (a number or an array; None means epsilon). Return a float or an array.
    return theory.pair_delta(x.counts, x_prime.counts, epsilon=epsilon, k=k, at=at)


def my_record() -> Mechanism:
    """The record, every field shown (those at their default may be left out)."""
    return Mechanism(
        # identity: the registry key (also the "mechanism" column of every table), the
        # label and colour of figures (Okabe-Ito; a DP version shares its traditional
        # method's colour), the kind ("baseline", "dp" or "traditional": traditional
        # mechanisms take no epsilon), where it is stated ("main text", "appendix" or
        # "book"; book/performance.md draws appendix variants with squares), and a seed
        # key no other record has: it fixes the mechanism's random stream forever
        # (dadp_lite.experiments.release_seed), so never change it once results exist.
        name="my_mechanism",
        label="my mechanism",
        color="#E69F00",
        kind="dp",
        source="book",
        seed_key=11,
        # how to release it on a Dataset: the sampler (re-exported by dadp_lite.mechanisms
        # and dadp_lite), what it takes first ("counts", "histogram", "records" with
        # attributes= and domains=, or "dataset"), keyword arguments this record fixes,
        # whether it is deterministic (no rng and reps: its one output is repeated), and an
        # optional run_chunks(input, chunks, **params) that releases every chunk of
        # dadp_lite.simulate in one call, bit for bit the chunks one by one. Releases are
        # counts: float64 of shape (reps, n_cells), never negative (the contract test).
        # scales_with: what the release's cost grows with, "histogram" (the cells only)
        # or "records" (a loop or a draw per record); book/performance.md checks it.
        sampler=my_mechanism,
        takes="counts",
        scales_with="histogram",
        fixed={"project": True},
        deterministic=False,
        run_chunks=my_mechanism_chunks,
        # epsilon -> noise, a function of dadp_lite.definitions that the sampler's module
        # imports (samplers and the theory may not import each other); None if traditional
        calibration=my_noise_scale,
        # parameters beyond epsilon, rng and reps: name, default (None: required; the
        # paper's values come from dadp_lite.paper), a phrase, values the sampler must
        # refuse (the contract test tries each), and the sampler's own argument name if
        # it differs from the name settings use.
        parameters=(Parameter("k", 6, "threshold", (0, -1, float("nan"), "6")),),
        # exact answers: bias (None where unknown; then no simulation check), delta per
        # adjacency derived ("replace", "add_remove", "qi_replace"), the adjacency of the
        # statement, and how the delta is computed ({bound}, {n_q} and parameters are
        # filled in by the tables)
        exact_bias=_bias,
        exact_delta={"replace": _delta},
        adjacency="replace",
        exact_method="closed form over counts <= B = {bound}",
        # what the paper prints: its delta formula and the rule in words, and the reading
        # that reproduces the printed column of Tables 1-3 (None where it prints nothing:
        # the tables and chapter 14 then show no printed value)
        printed_delta=constant(0.0),
        printed_rule="stated (epsilon, 0)-DP",
        printed_reading=None,
        # the independent check of exact_delta (tests/test_registry.py compares them on a
        # small histogram within reference_tolerance)
        reference_delta=_reference,
        reference_tolerance=1e-9,
        # a row of the data-release tables (dadp_lite.experiments.TABLE_MECHANISMS)?
        in_tables=False,
        # audits (dadp_lite.audit, chapter 14): a pair attaining the exact delta and the
        # exact delta of any one pair; required for every record
        worst_pair=_worst_pair,
        pair_delta=_pair_delta,
    )
