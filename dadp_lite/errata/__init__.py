"""The errata: every claim of the paper the book checks, the findings about each, their
status words, and the one computation behind each finding.

- :mod:`~dadp_lite.errata.status`: the status words (:data:`STATUS_WORDS`, meanings in
  :data:`MEANINGS`) and the rules that turn a comparison of printed and exact numbers into
  a word (:func:`delta_status`, :func:`bound_status`, :func:`formula_status`,
  :func:`typo_status`, :func:`proof_status`, :func:`readings_status`,
  :func:`reproduced_status`, :func:`digits_status`, :func:`claim_status`,
  :func:`margin_status`).
- :mod:`~dadp_lite.errata.claims`: :data:`CLAIMS`, the paper's claims, each counted once.
- :mod:`~dadp_lite.errata.catalog`: :data:`FINDINGS`, one :class:`Finding` per finding
  (stable id, the one chapter that shows it, its claim, the map from that chapter's
  parameters to its setting); :func:`evaluate` a finding at a chapter's values (once per
  process, and once per build through the store); :func:`glue_findings` in a chapter;
  :func:`claim_classes` and :func:`class_counts` for the counts.
- :mod:`~dadp_lite.errata.runs`: the Monte Carlo runs findings rest on, shared with the
  chapters that show them.
- one module per part of the book computes its findings from ``dadp_lite`` functions.

In a chapter, after its computations::

    from dadp_lite import errata

    errata.glue_findings("13-classification", DATASETS=DATASETS, EPSILONS=EPSILONS,
                         REPS=REPS, SEED=SEED, K=K, QI=QI)

glues ``status-<id>``, ``<id>.<value>``, ``<id>.qualifier``, ``<id>.basis`` and
``<id>.readings`` for every finding of the chapter, as finished text; the errata and landing
pages glue the same keys from the same computation at the values the build ran the chapter
with, so every page shows the same text (``tests/test_errata.py`` checks it on the HTML).
Nothing in the package imports this one; pages, chapters and tests do.
"""

from dadp_lite.errata.catalog import (
    CLAIMS,
    FINDINGS,
    STORE_VARIABLE,
    VERDICT_WORDS,
    claim_class,
    claim_classes,
    claim_of,
    class_counts,
    evaluate,
    findings_of,
    findings_of_claim,
    get,
    get_claim,
    glue_book,
    glue_findings,
    glue_values,
    status_key,
    verdicts,
)
from dadp_lite.errata.record import Claim, Finding, Result, Value, shown
from dadp_lite.errata.show import number
from dadp_lite.errata.status import (
    CLAIM_ORDER,
    LOOSE_FACTOR,
    LOOSE_MARGIN,
    MEANINGS,
    MUCH_FACTOR,
    NOT_JUDGED,
    STATUS_WORDS,
    VACUOUS_GAP,
    Reading,
    Status,
    bound_status,
    claim_status,
    delta_status,
    digits_status,
    formula_status,
    margin_status,
    proof_status,
    readings_status,
    reproduced_status,
    typo_status,
    vacuous,
)

__all__ = [
    "CLAIMS",
    "CLAIM_ORDER",
    "FINDINGS",
    "LOOSE_FACTOR",
    "LOOSE_MARGIN",
    "MEANINGS",
    "MUCH_FACTOR",
    "NOT_JUDGED",
    "STATUS_WORDS",
    "STORE_VARIABLE",
    "VACUOUS_GAP",
    "Claim",
    "Finding",
    "Reading",
    "Result",
    "Status",
    "Value",
    "bound_status",
    "claim_class",
    "claim_classes",
    "claim_of",
    "claim_status",
    "class_counts",
    "delta_status",
    "digits_status",
    "evaluate",
    "findings_of",
    "findings_of_claim",
    "formula_status",
    "get",
    "get_claim",
    "glue_book",
    "glue_findings",
    "glue_values",
    "margin_status",
    "number",
    "proof_status",
    "readings_status",
    "reproduced_status",
    "shown",
    "status_key",
    "typo_status",
    "vacuous",
    "VERDICT_WORDS",
    "verdicts",
]
