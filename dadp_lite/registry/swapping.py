"""Records of swapping: DP swapping (per cell, per record) and traditional swapping."""

from __future__ import annotations

from dadp_lite.definitions import keep_probability
from dadp_lite.mechanisms import dp_swapping, swapping, swapping_chunks
from dadp_lite.paper import PAPER_QI
from dadp_lite.registry._helpers import ALL_ADJACENCIES
from dadp_lite.registry.record import Mechanism, Parameter, register
from dadp_lite.theory import swapping as th

__all__ = ["DPSwapping", "DPSwappingRecord", "Swapping"]

_QI = Parameter("qi", PAPER_QI, "quasi-identifier(s) whose values are swapped", ((), ("planet",)))
_RATE = Parameter("rate", None, "fraction of records swapped, in [0, 1]", (-0.1, 1.5, "half"))
_COLOR = "#009E73"


# ------------------------------------------------------------------ DP swapping
class _DPSwapping(Mechanism):
    """What both DP swapping units share; the unit is the ``fixed`` keyword ``unit``,
    passed to the sampler and to every exact answer."""

    color = _COLOR
    kind = "dp"
    sampler = dp_swapping
    takes = "histogram"
    calibration = keep_probability
    parameters = (_QI,)
    exact_bias = th.exact_bias_dp_swapping
    adjacencies = ALL_ADJACENCIES
    adjacency = "qi_replace"
    exact_delta = th.exact_delta_dp_swapping
    printed_delta = th.printed_delta_dp_swapping
    printed_rule = "1 - (1 - g^2)/(n_Q - 1) - ((1 - g)/(n_Q - 1))^2, n_Q = {n_q}"
    reference_delta = th.reference_delta_dp_swapping
    worst_pair = th.worst_pair_dp_swapping
    pair_delta = th.pair_delta_dp_swapping


@register
class DPSwapping(_DPSwapping):
    """DP swapping of the main text: each cell's records keep or draw their QI value."""

    name = "dp_swapping"
    label = "DP swapping"
    source = "main text"
    seed_key = 3
    fixed = {"unit": "cell"}
    exact_method = "worst case over counts <= B = {bound} (closed form)"
    printed_reading = th.printed_delta_dp_swapping
    in_tables = True


@register
class DPSwappingRecord(_DPSwapping):
    """DP swapping of the appendix: k-ary randomized response per record."""

    name = "dp_swapping_record"
    label = "DP swapping (per record)"
    source = "appendix"
    seed_key = 6
    fixed = {"unit": "record"}
    exact_method = "k-ary randomized response per record"


# ----------------------------------------------------------- traditional swapping
@register
class Swapping(Mechanism):
    """Traditional swapping: a fraction ``rate`` of records exchange their QI values."""

    name = "swapping"
    label = "swapping"
    color = _COLOR
    kind = "traditional"
    source = "appendix"
    seed_key = 9
    sampler = swapping
    takes = "histogram"
    scales_with = "records"  # floor(rate N / 2) swap steps on N records
    run_chunks = swapping_chunks  # the loop over swap steps runs once for all chunks
    parameters = (_QI, _RATE)
    adjacencies = ("replace", "add_remove")
    adjacency = "replace"
    exact_delta = th.exact_delta_swapping
    exact_method = "the non-QI marginal is released exactly"
    reference_delta = th.reference_delta_swapping
    worst_pair = th.worst_pair_swapping
    pair_delta = th.pair_delta_swapping
