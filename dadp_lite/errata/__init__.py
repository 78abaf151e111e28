"""The errata: every place where the paper's printed statements or numbers disagree with
ours, computed at the setting each is stated at.

- :mod:`~dadp_lite.errata.status`: the status words (:data:`STATUS_WORDS`) and the rules
  that turn a comparison of printed and exact numbers into a word (:func:`delta_status`,
  :func:`bound_status`, :func:`formula_status`, :func:`reproduced_status`,
  :func:`digits_status`, :func:`claim_status`, :func:`margin_status`,
  :func:`unclear_status`). Chapters call the
  same rules, so page and chapter agree on a word whenever they agree on the numbers.
- :mod:`~dadp_lite.errata.catalog`: :data:`FINDINGS`, one :class:`Finding` per erratum
  (stable id, chapter, setting, computation); :func:`findings_of` a chapter,
  :func:`result` of a finding (computed once per process), :func:`glue_values` for the
  errata page.
- one module per part of the book computes its findings from ``dadp_lite`` functions:
  exact computations where the book has them, simulations at the stated setting with the
  chapter's seed where a number is a simulation statistic.

In a chapter, apply the finding's rule to the chapter's numbers and glue the word under the
finding's key; ``tests/test_errata.py`` checks that it equals the page's::

    from dadp_lite import errata

    status = errata.delta_status(printed_delta, exact_delta)  # the rule of the finding
    glue(errata.status_key("dp-swapping-delta"), status.word, display=False)

``errata.findings_of(slug)`` lists a chapter's findings (``.id``, ``.title``, ``.setting``).
Nothing in the package imports this one; the errata page (``book/errata.md``), chapters and
tests do.
"""

from dadp_lite.errata.catalog import (
    FINDINGS,
    exact_findings,
    findings_of,
    get,
    glue_values,
    result,
    status_key,
    summary,
    word_counts,
)
from dadp_lite.errata.record import Finding, Result
from dadp_lite.errata.status import (
    LOOSE_FACTOR,
    STATUS_WORDS,
    VACUOUS_GAP,
    Status,
    bound_status,
    claim_status,
    delta_status,
    digits_status,
    formula_status,
    margin_status,
    reproduced_status,
    unclear_status,
    vacuous,
)

__all__ = [
    "FINDINGS",
    "LOOSE_FACTOR",
    "STATUS_WORDS",
    "VACUOUS_GAP",
    "Finding",
    "Result",
    "Status",
    "bound_status",
    "claim_status",
    "delta_status",
    "digits_status",
    "exact_findings",
    "findings_of",
    "formula_status",
    "get",
    "glue_values",
    "margin_status",
    "reproduced_status",
    "result",
    "status_key",
    "summary",
    "unclear_status",
    "vacuous",
    "word_counts",
]
