"""Black-box privacy audits: what outputs alone prove about a mechanism's (epsilon, delta).

An audit runs a mechanism many times on two neighbouring inputs, chooses distinguishing
events on one half of the outputs and certifies them on the other half with
Clopper-Pearson bounds. The result is a *lower* bound on delta at a given epsilon (and on
epsilon at a given delta) that holds with the stated confidence. It can prove that a
mechanism is less private than claimed; it can never prove that a mechanism is private.

Entry points: :func:`audit` (a registered mechanism or any ``release(counts, rng)``),
:func:`audit_samples` (outputs drawn elsewhere), :func:`trials_to_certify` (planning) and
:func:`random_neighbour_pairs` (a small search over other pairs); for registered
mechanisms, :func:`audit_profile` (printed, exact and audited delta across a grid of
epsilons) and :func:`search_pairs` (the worst-case pair against random pairs).
"""

from dadp_lite.audit.auditor import (
    AuditResult,
    CertifiedTest,
    audit,
    audit_samples,
    default_tests,
)
from dadp_lite.audit.bounds import (
    certified_delta,
    certified_epsilon,
    clopper_pearson,
    exact_epsilon,
    trials_to_certify,
)
from dadp_lite.audit.pairs import random_neighbour_pairs
from dadp_lite.audit.profiles import audit_profile, exact_curves, refutations, search_pairs
from dadp_lite.audit.sampling import as_sampler, sample_pair

__all__ = [
    "AuditResult",
    "CertifiedTest",
    "as_sampler",
    "audit",
    "audit_profile",
    "audit_samples",
    "certified_delta",
    "certified_epsilon",
    "clopper_pearson",
    "default_tests",
    "exact_curves",
    "exact_epsilon",
    "random_neighbour_pairs",
    "refutations",
    "sample_pair",
    "search_pairs",
    "trials_to_certify",
]
