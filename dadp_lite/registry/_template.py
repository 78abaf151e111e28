"""Template of a registry record: copy the class into a family module and fill it in.

The recipe is ARCHITECTURE.md's "Adding a mechanism"; this file shows its last step, the
record: a subclass of :class:`~dadp_lite.registry.Mechanism`, decorated with
:func:`~dadp_lite.registry.register`, setting every attribute of the contract, with what
reads it. Copy the class into ``dadp_lite/registry/<family>.py`` (a new family module also
goes into the import line and ``FAMILIES`` of ``dadp_lite/registry/__init__.py``), delete
the attributes you leave at their defaults, and name the sampler and the theory's functions
as they are: they take the histogram first and keywords after, in the order the record calls
them, so no adapter is written here. ``register`` checks the record when the module loads
(a TypeError names a missing attribute, or a function that cannot take the arguments the
record passes it); ``tests/test_registry.py`` then checks the record and
``tests/test_recipe.py`` shows the whole recipe on a projected Gaussian.

This module is never imported by the package: the names under ``TYPE_CHECKING`` stand for
the files the recipe's earlier steps write. ``tests/test_registry.py`` checks that the
class below sets every attribute of :class:`Mechanism`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dadp_lite.registry.record import Mechanism, Parameter, register

if TYPE_CHECKING:  # the recipe's earlier steps (ARCHITECTURE.md, "Adding a mechanism")
    from dadp_lite.definitions import my_noise_scale  # step 2: epsilon -> noise
    from dadp_lite.mechanisms import my_mechanism, my_mechanism_chunks  # step 1: sampler
    from dadp_lite.theory import my_mechanism as th  # step 3: exact answers


@register
class MyMechanism(Mechanism):
    """One sentence: what the mechanism does (the class's docstring)."""

    # identity: the registry key (also the "mechanism" column of every table), the label
    # and colour of figures (Okabe-Ito; a DP version shares its traditional method's
    # colour), the kind ("baseline", "dp" or "traditional": traditional mechanisms take no
    # epsilon), where it is stated ("main text", "appendix" or "book"; book/performance.md
    # draws appendix variants with squares), and a seed key no other record has: it fixes
    # the mechanism's random stream forever (dadp_lite.experiments.release_seed), so never
    # change it once results exist (register names the next free one if it is taken).
    name = "my_mechanism"
    label = "my mechanism"
    color = "#E69F00"
    kind = "dp"
    source = "book"
    seed_key = 11
    # how to release it on a Dataset: the sampler (in its module's __all__, so
    # dadp_lite.mechanisms and dadp_lite re-export it), what it takes first ("counts",
    # "histogram", "records" with attributes= and domains=, or "dataset"), keyword
    # arguments this record fixes (passed to the sampler and to every exact answer below,
    # e.g. a variant), whether it is deterministic (no rng and reps: its one output is
    # repeated), and an optional run_chunks(input, chunks, **params) that releases every
    # chunk of dadp_lite.simulate in one call, bit for bit the chunks one by one. Releases
    # are counts of shape (reps, n_cells), float64 or int64 (the discrete Gaussian), never
    # negative (the contract test).
    # scales_with: what the release's cost grows with, "histogram" (the cells only) or
    # "records" (a loop or a draw per record); book/performance.md checks it.
    sampler = my_mechanism
    takes = "counts"
    scales_with = "histogram"
    fixed = {"project": True}
    deterministic = False
    run_chunks = my_mechanism_chunks
    # epsilon -> noise, a function of dadp_lite.definitions that the sampler's module
    # imports (samplers and the theory may not import each other); None if traditional
    calibration = my_noise_scale
    # parameters beyond epsilon, rng and reps: name, default (None: required; the paper's
    # values come from dadp_lite.paper), a phrase, values the sampler must refuse (the
    # contract test tries each), and the sampler's own argument name if it differs from
    # the name settings use. The exact answers receive them by the settings name.
    parameters = (Parameter("k", 6, "threshold", (0, -1, float("nan"), "6")),)
    # exact answers, each a function of dadp_lite.theory named as it is:
    #   exact_bias(histogram, *, epsilon, k, project) -> per-cell bias E[release] - x, or
    #     None where unknown (then no simulation check; traditional: no epsilon);
    #   exact_delta(histogram, *, epsilon, adjacency, k, project) -> worst-case delta over
    #     histograms with counts up to histogram.counts.max(), for each adjacency of
    #     `adjacencies` ("replace", "add_remove", "qi_replace"); `adjacency` is the one of
    #     the statement; exact_method says how it is computed ({bound}, {n_q} and the
    #     parameters are filled in by the tables).
    exact_bias = th.exact_bias_my_mechanism
    adjacencies = ("replace",)
    adjacency = "replace"
    exact_delta = th.exact_delta_my_mechanism
    exact_method = "closed form over counts <= B = {bound}"
    # what the paper prints: printed_delta(histogram, *, epsilon, k, project) and the rule
    # in words, and printed_reading (same arguments), the reading that reproduces the
    # printed column of Tables 1-3 (None where it prints nothing: the tables and chapter
    # 14 then show no printed value)
    printed_delta = th.printed_delta_my_mechanism
    printed_rule = "stated (epsilon, 0)-DP"
    printed_reading = None
    # the independent check of exact_delta: reference_delta(histogram, *, epsilon,
    # adjacency, k, project), e.g. an enumeration with dadp_lite.theory.privacy's
    # worst_case_delta; tests/test_registry.py compares them on a small histogram within
    # reference_tolerance
    reference_delta = th.reference_delta_my_mechanism
    reference_tolerance = 1e-9
    # a row of the data-release tables (dadp_lite.experiments.TABLE_MECHANISMS)?
    in_tables = False
    # audits (dadp_lite.audit, chapter 14), required for every record:
    #   worst_pair(histogram, *, epsilon, k, project) -> a NeighbourPair inside the
    #     histogram's universe, counts <= its largest, attaining exact_delta
    #     (dadp_lite.theory._contract.make_pair builds one from {flat cell: count});
    #   pair_delta(x, x_prime, *, epsilon, at, k, project) -> the exact delta of that one
    #     pair, noise calibrated at epsilon, evaluated at `at` (None: epsilon; a number or
    #     an array, and a float or an array back).
    worst_pair = th.worst_pair_my_mechanism
    pair_delta = th.pair_delta_my_mechanism
