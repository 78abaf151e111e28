"""Traditional and DP disclosure-avoidance mechanisms.

Every mechanism is a pure function of (input, parameters, rng, reps) returning all
repetitions at once (first axis = repetitions). Mechanisms sample; they do not summarise
(:mod:`dadp_lite.metrics`), plot (:mod:`dadp_lite.plotting`) or compute exact answers
(:mod:`dadp_lite.theory`). :mod:`dadp_lite.registry` lists them with their exact bias and
delta.
"""

from dadp_lite.mechanisms.cell_suppression import (
    VARIANTS,
    cell_suppression,
    cell_suppression_main_text,
    dp_cell_suppression,
)
from dadp_lite.mechanisms.discrete_gaussian import (
    discrete_gaussian,
    sample_discrete_gaussian,
    sigma_squared_fraction,
)
from dadp_lite.mechanisms.k_anonymity import (
    dp_k_anonymity,
    k_anonymity,
    reconstruct,
    reconstruct_batch,
)
from dadp_lite.mechanisms.laplace import laplace
from dadp_lite.mechanisms.mondrian import (
    CellTable,
    EquivalenceClass,
    Interval,
    MondrianBatch,
    mondrian,
    mondrian_anonypy,
    mondrian_batch,
    thin_cells,
)
from dadp_lite.mechanisms.swapping import (
    UNITS,
    dp_swapping,
    swap_count,
    swapping,
    swapping_chunks,
    swapping_reference,
)

__all__: list[str] = [
    "UNITS",
    "VARIANTS",
    "CellTable",
    "EquivalenceClass",
    "Interval",
    "MondrianBatch",
    "cell_suppression",
    "cell_suppression_main_text",
    "discrete_gaussian",
    "dp_cell_suppression",
    "dp_k_anonymity",
    "dp_swapping",
    "k_anonymity",
    "laplace",
    "mondrian",
    "mondrian_anonypy",
    "mondrian_batch",
    "reconstruct",
    "reconstruct_batch",
    "sample_discrete_gaussian",
    "sigma_squared_fraction",
    "swap_count",
    "swapping",
    "swapping_chunks",
    "swapping_reference",
    "thin_cells",
]
