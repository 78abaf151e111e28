"""Other neighbouring pairs than the worst case: a small random search.

The registry names, for each mechanism, a pair that attains its exact delta
(:meth:`dadp_lite.registry.Mechanism.neighbour_pair`). An auditor without that knowledge
would try pairs at random; :func:`random_neighbour_pairs` draws such pairs inside a
universe, so a chapter can audit them and compare.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dadp_lite._validate import check_choice, check_positive_int, check_rng
from dadp_lite.definitions import ADJACENCIES
from dadp_lite.histogram import Histogram
from dadp_lite.registry import NeighbourPair
from dadp_lite.theory.privacy import neighbours

__all__ = ["random_neighbour_pairs"]


def random_neighbour_pairs(
    universe: Histogram,
    adjacency: str,
    *,
    n_pairs: int,
    rng: np.random.Generator,
    bound: int | None = None,
    support: int = 3,
    qi: Sequence[str] | None = None,
    min_records: int = 0,
) -> list[NeighbourPair]:
    """``n_pairs`` random neighbouring pairs in ``universe``'s cells.

    Each first histogram puts uniform counts in ``1..bound`` (default: the universe's
    largest count) on ``support`` random cells; its neighbour is drawn uniformly among all
    its neighbours under ``adjacency`` with counts up to ``bound`` (``qi`` names the
    quasi-identifiers for ``"qi_replace"``). Pairs in which either histogram holds fewer
    than ``min_records`` records are drawn again (``support * bound`` must reach it).
    """
    check_choice(adjacency, "adjacency", ADJACENCIES)
    n_pairs = check_positive_int(n_pairs, "n_pairs")
    rng = check_rng(rng)
    bound = int(universe.counts.max()) if bound is None else check_positive_int(bound, "bound")
    support = min(check_positive_int(support, "support"), universe.n_cells)
    min_records = check_positive_int(min_records, "min_records", minimum=0)
    if support * bound < min_records + 1:
        raise ValueError(f"support * bound = {support * bound} cannot hold {min_records} records")
    groups = None
    if adjacency == "qi_replace":
        if qi is None:
            raise ValueError("adjacency 'qi_replace' needs qi")
        groups = universe.qi_group_index(qi)
    pairs: list[NeighbourPair] = []
    while len(pairs) < n_pairs:
        counts = np.zeros(universe.n_cells, dtype=np.int64)
        cells = rng.choice(universe.n_cells, size=support, replace=False)
        counts[cells] = rng.integers(1, bound + 1, size=support)
        options = list(neighbours(counts, adjacency, bound, groups))
        if not options:
            continue
        other = options[int(rng.integers(len(options)))]
        if min(counts.sum(), other.sum()) < min_records:
            continue
        pair = NeighbourPair(
            universe.with_counts(counts), universe.with_counts(other), adjacency, {}, "random"
        )
        pairs.append(pair)
    return pairs
