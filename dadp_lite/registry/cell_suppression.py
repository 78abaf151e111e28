"""Records of cell suppression: DP (both variants) and traditional (both forms)."""

from __future__ import annotations

from typing import Any

import numpy as np

from dadp_lite.definitions import laplace_scale
from dadp_lite.histogram import Histogram, NeighbourPair
from dadp_lite.mechanisms import (
    cell_suppression,
    cell_suppression_main_text,
    dp_cell_suppression,
)
from dadp_lite.paper import PAPER_K
from dadp_lite.registry._helpers import bound, make_pair, need_cells, profile_points, shaped_like
from dadp_lite.registry.record import Mechanism, Parameter, register
from dadp_lite.theory import cell_suppression as th
from dadp_lite.theory.privacy import deterministic_worst_case_delta, distinguishing_pair

__all__ = [
    "CellSuppression",
    "CellSuppressionMainText",
    "DPCellSuppression",
    "DPCellSuppressionThreshold",
    "Deterministic",
]

_K = Parameter("k", PAPER_K, "suppression threshold", (0, -1, float("nan"), float("inf"), "6"))


# ------------------------------------------------------------------- DP, both variants
class _DPCellSuppression(Mechanism):
    """What both DP variants share; the variant is the ``fixed`` keyword ``variant``,
    passed to the sampler and to every exact answer."""

    color = "#D55E00"
    kind = "dp"
    sampler = dp_cell_suppression
    calibration = laplace_scale
    parameters = (_K,)
    exact_bias = th.exact_bias_dp_cell_suppression
    adjacencies = ("replace", "add_remove")
    adjacency = "replace"
    exact_delta = th.exact_delta_dp_cell_suppression
    exact_method = "worst case over counts <= B = {bound} (closed form)"
    printed_delta = th.printed_delta_dp_cell_suppression
    printed_rule = "1 - exp(-eps (B - k)) / 4, B = max count = {bound}"
    reference_delta = th.reference_delta_dp_cell_suppression
    worst_pair = th.worst_pair_dp_cell_suppression
    pair_delta = th.pair_delta_dp_cell_suppression


@register
class DPCellSuppression(_DPCellSuppression):
    """DP cell suppression of the main text: own noise per cell."""

    name = "dp_cell_suppression"
    label = "DP cell suppression"
    source = "main text"
    seed_key = 2
    fixed = {"variant": "per_cell"}
    in_tables = True


@register
class DPCellSuppressionThreshold(_DPCellSuppression):
    """DP cell suppression of the appendix: one noisy threshold."""

    name = "dp_cell_suppression_threshold"
    label = "DP cell suppression (noisy threshold)"
    source = "appendix"
    seed_key = 5
    fixed = {"variant": "noisy_threshold"}


# ---------------------------------------------------------- traditional, both forms
class Deterministic(Mechanism):
    """A deterministic cell-wise release: its exact answers come from running the sampler
    on counts up to the histogram's largest (delta 1 if some count and its neighbour get
    different outputs, else 0)."""

    kind = "traditional"
    deterministic = True
    adjacencies = ("replace", "add_remove")
    adjacency = "replace"
    exact_method = "deterministic: 1 if neighbours' outputs differ"

    def _release(self, counts: np.ndarray[Any, Any], params: dict[str, Any]) -> Any:
        return self.sampler(counts, **params)

    def exact_delta(
        self, histogram: Histogram, *, epsilon: float | None = None, adjacency: str, **params: Any
    ) -> float:
        outputs = self._release(np.arange(bound(histogram) + 1), params)
        return 1.0 if np.any(np.diff(outputs) != 0) else 0.0

    def reference_delta(
        self, histogram: Histogram, *, epsilon: float | None = None, adjacency: str, **params: Any
    ) -> float:
        def release(x: np.ndarray[Any, Any]) -> Any:
            return self._release(x, params)

        return deterministic_worst_case_delta(release, 2, bound(histogram), adjacency)

    def worst_pair(
        self, histogram: Histogram, *, epsilon: float | None = None, **params: Any
    ) -> NeighbourPair:
        need_cells(histogram, 2)

        def release(c: np.ndarray[Any, Any]) -> Any:
            return self._release(c, params)

        found = distinguishing_pair(release, 2, bound(histogram), "replace")
        if found is None:
            raise ValueError("no replace-one pair with counts up to the bound changes the output")
        reason = "a deterministic release: the first pair whose outputs differ"
        x_cells, y_cells = (dict(enumerate(int(v) for v in h)) for h in found)
        return make_pair(histogram, x_cells, y_cells, "replace", reason)

    def pair_delta(
        self,
        x: Histogram,
        x_prime: Histogram,
        *,
        epsilon: float | None = None,
        at: object = None,
        **params: Any,
    ) -> float | np.ndarray[Any, Any]:
        outputs = (self._release(h.counts, params) for h in (x, x_prime))
        differ = not np.array_equal(*outputs)
        where = profile_points(0.0 if epsilon is None else epsilon, at)
        return shaped_like(where, 1.0 if differ else 0.0)


@register
class CellSuppression(Deterministic):
    """Traditional cell suppression as the appendix states it."""

    name = "cell_suppression"
    label = "cell suppression"
    color = "#D55E00"
    source = "appendix"
    seed_key = 7
    sampler = cell_suppression
    parameters = (_K,)
    exact_bias = th.exact_bias_cell_suppression


@register
class CellSuppressionMainText(Deterministic):
    """Traditional cell suppression as the main text states it."""

    name = "cell_suppression_main_text"
    label = "cell suppression (main text)"
    color = "#D55E00"
    source = "main text"
    seed_key = 8
    sampler = cell_suppression_main_text
    parameters = (_K,)
    exact_bias = th.exact_bias_cell_suppression_main_text
