"""Records of the classical baselines: Laplace and the discrete Gaussian (projected >= 0)."""

from __future__ import annotations

from dadp_lite.definitions import discrete_gaussian_sigma, laplace_scale
from dadp_lite.mechanisms import discrete_gaussian, laplace
from dadp_lite.registry._helpers import ALL_ADJACENCIES
from dadp_lite.registry.record import Mechanism, register
from dadp_lite.theory import accounting
from dadp_lite.theory import baselines as th

__all__ = ["DiscreteGaussian", "Laplace"]


@register
class Laplace(Mechanism):
    """Laplace noise of scale 2/epsilon per cell, projected onto counts >= 0."""

    name = "laplace"
    label = "Laplace"
    color = "#0072B2"
    kind = "baseline"
    source = "main text"
    seed_key = 0
    sampler = laplace
    fixed = {"project": True}
    calibration = laplace_scale
    exact_bias = th.exact_bias_laplace
    adjacencies = ALL_ADJACENCIES
    adjacency = "replace"
    exact_delta = th.exact_delta_laplace
    exact_method = "dp_accounting PLD, two unit shifts"
    printed_delta = th.printed_delta_laplace
    printed_rule = "stated (epsilon, 0)-DP"
    reference_delta = th.reference_delta_laplace
    reference_tolerance = accounting.pld_error_bound("replace")
    in_tables = True
    worst_pair = th.worst_pair_unit_shift
    pair_delta = th.pair_delta_laplace


@register
class DiscreteGaussian(Mechanism):
    """Discrete Gaussian noise per cell, projected onto counts >= 0."""

    name = "discrete_gaussian"
    label = "discrete Gaussian"
    color = "#56B4E9"
    kind = "baseline"
    source = "main text"
    seed_key = 1
    sampler = discrete_gaussian
    fixed = {"project": True}
    calibration = discrete_gaussian_sigma
    exact_bias = th.exact_bias_discrete_gaussian
    adjacencies = ALL_ADJACENCIES
    adjacency = "replace"
    exact_delta = th.exact_delta_discrete_gaussian
    exact_method = "dp_accounting PLD, two unit shifts"
    printed_delta = th.printed_delta_discrete_gaussian
    printed_rule = "eps = eps^2/2 + eps sqrt(2 log(1/delta)) solved for delta"
    printed_reading = th.printed_reading_discrete_gaussian
    reference_delta = th.reference_delta_discrete_gaussian
    reference_tolerance = accounting.pld_error_bound("replace")
    in_tables = True
    worst_pair = th.worst_pair_unit_shift
    pair_delta = th.pair_delta_discrete_gaussian
