"""Records of k-anonymity (Mondrian with reconstruction): DP and traditional."""

from __future__ import annotations

from dadp_lite.data import ATTRIBUTES
from dadp_lite.definitions import sampling_probability
from dadp_lite.mechanisms import dp_k_anonymity, k_anonymity
from dadp_lite.paper import PAPER_K
from dadp_lite.registry.record import Mechanism, Parameter, register
from dadp_lite.theory import k_anonymity as th

__all__ = ["DPKAnonymity", "KAnonymity"]

_K_CLASS = Parameter("k", PAPER_K, "minimum class size of Mondrian", (0, 1.5, "6"))
_KA_QI = Parameter(
    "ka_qi", ATTRIBUTES, "quasi-identifiers of Mondrian", ((), ("planet",)), argument="qi"
)
_COLOR = "#CC79A7"


@register
class DPKAnonymity(Mechanism):
    """DP k-anonymity: Bernoulli subsampling (beta = 1 - e^-eps), then Mondrian and
    reconstruction."""

    name = "dp_k_anonymity"
    label = "DP k-anonymity"
    color = _COLOR
    kind = "dp"
    source = "main text"
    seed_key = 4
    sampler = dp_k_anonymity
    takes = "records"
    scales_with = "records"  # the reconstruction draws one value per record
    calibration = sampling_probability
    parameters = (_K_CLASS, _KA_QI)
    adjacencies = ("replace", "add_remove")
    adjacency = "replace"
    exact_delta = th.exact_delta_dp_k_anonymity
    exact_method = "Bernoulli subsampling: beta for every B"
    printed_delta = th.printed_delta_dp_k_anonymity
    printed_rule = "d(k, beta, eps) as printed, beta = 1 - e^-eps, B = {bound}"
    printed_reading = th.printed_reading_dp_k_anonymity
    reference_delta = th.reference_delta_dp_k_anonymity
    in_tables = True
    worst_pair = th.worst_pair_dp_k_anonymity
    pair_delta = th.pair_delta_dp_k_anonymity


@register
class KAnonymity(Mechanism):
    """Traditional k-anonymity: Mondrian and reconstruction on every record."""

    name = "k_anonymity"
    label = "k-anonymity"
    color = _COLOR
    kind = "traditional"
    source = "appendix"
    seed_key = 10
    sampler = k_anonymity
    takes = "records"
    scales_with = "records"  # the reconstruction draws one value per record
    parameters = (_K_CLASS, _KA_QI)
    adjacencies = ("add_remove",)
    adjacency = "add_remove"
    exact_delta = th.exact_delta_k_anonymity
    exact_method = "the number of records is released exactly"
    reference_delta = th.reference_delta_k_anonymity
    worst_pair = th.worst_pair_k_anonymity
    pair_delta = th.pair_delta_k_anonymity
