"""What records share: every adjacency, and the building blocks of exact answers
(:mod:`dadp_lite.theory._contract`: bounds, neighbouring pairs, profiles)."""

from __future__ import annotations

from dadp_lite.theory._contract import (
    bound,
    make_pair,
    need_cells,
    profile_points,
    shaped_like,
)

__all__ = [
    "ALL_ADJACENCIES",
    "bound",
    "make_pair",
    "need_cells",
    "profile_points",
    "shaped_like",
]

#: Every adjacency of :data:`dadp_lite.definitions.ADJACENCIES`, for records derived under all.
ALL_ADJACENCIES = ("replace", "add_remove", "qi_replace")
