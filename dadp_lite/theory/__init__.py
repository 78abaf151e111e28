"""Closed forms, exact enumeration and tight privacy curves (see each submodule)."""

from dadp_lite.theory.privacy import (
    ADJACENCIES,
    binomial_pmf,
    check_distribution,
    exact_delta,
    histograms_up_to,
    hockey_stick,
    neighbours,
    worst_case_delta,
)

__all__ = [
    "ADJACENCIES",
    "binomial_pmf",
    "check_distribution",
    "exact_delta",
    "histograms_up_to",
    "hockey_stick",
    "neighbours",
    "worst_case_delta",
]
