"""The settings of the chapter on the privacy of DP swapping, as glue values: its
quasi-identifier and the QI universe sizes of its enumeration, formatted once."""

from __future__ import annotations

from collections.abc import Sequence

from dadp_lite.errata.show import listing

__all__ = ["settings"]


def settings(qi: Sequence[str], enum_n_q: Sequence[int]) -> dict[str, str]:
    """The chapter's quasi-identifier (``sw-qi``: its attributes joined by " x ", the cross
    product of their values) and the QI universe sizes of its enumeration (``sw-enum-nq``:
    "2, 3 and 4"). ValueError for an empty list, TypeError for a non-string attribute or a
    non-integer size."""
    if isinstance(qi, str) or not len(qi):
        raise ValueError(f"qi must be a non-empty list of attribute names, got {qi!r}")
    if not all(isinstance(a, str) and a for a in qi):
        raise TypeError(f"qi: attribute names must be non-empty strings, got {list(qi)!r}")
    if not len(enum_n_q):
        raise ValueError("enum_n_q must be a non-empty list of QI universe sizes")
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in enum_n_q):
        raise TypeError(f"enum_n_q: sizes must be integers, got {list(enum_n_q)!r}")
    return {"sw-qi": " x ".join(qi), "sw-enum-nq": listing(enum_n_q)}
