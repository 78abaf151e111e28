"""Traditional and DP disclosure-avoidance mechanisms.

Every mechanism is a pure function of (input, parameters, rng, reps) returning all
repetitions at once (first axis = repetitions).
"""

from dadp_lite.mechanisms.cell_suppression import (
    cell_suppression,
    cell_suppression_main_text,
    cell_suppression_sweep,
    dp_cell_suppression,
)
from dadp_lite.mechanisms.discrete_gaussian import (
    discrete_gaussian,
    discrete_gaussian_sigma,
    sample_discrete_gaussian,
    sigma_squared_fraction,
)
from dadp_lite.mechanisms.k_anonymity import (
    dp_k_anonymity,
    k_anonymity,
    k_anonymity_sweep,
    plot_k_anonymity_sweep,
    reconstruct,
    reconstruct_batch,
    sampling_probability,
)
from dadp_lite.mechanisms.laplace import laplace, laplace_scale
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
    dp_swapping,
    swap_count,
    swapping,
    swapping_reference,
)

__all__: list[str] = [
    "CellTable",
    "EquivalenceClass",
    "Interval",
    "MondrianBatch",
    "dp_k_anonymity",
    "k_anonymity",
    "k_anonymity_sweep",
    "plot_k_anonymity_sweep",
    "mondrian",
    "mondrian_anonypy",
    "mondrian_batch",
    "reconstruct",
    "reconstruct_batch",
    "sampling_probability",
    "thin_cells",
    "cell_suppression",
    "cell_suppression_main_text",
    "cell_suppression_sweep",
    "discrete_gaussian",
    "discrete_gaussian_sigma",
    "dp_cell_suppression",
    "dp_swapping",
    "laplace",
    "laplace_scale",
    "sample_discrete_gaussian",
    "sigma_squared_fraction",
    "swap_count",
    "swapping",
    "swapping_reference",
]
