"""The catalog of findings: lookup, evaluation (once per process) and glue values."""

from __future__ import annotations

import functools

import pandas as pd

from dadp_lite.errata import baselines, cell_suppression, experiments, fairness, k_anonymity
from dadp_lite.errata import swapping as swapping_part
from dadp_lite.errata.record import Finding, Result

__all__ = [
    "FINDINGS",
    "exact_findings",
    "findings_of",
    "get",
    "glue_values",
    "result",
    "status_key",
    "summary",
    "word_counts",
]

#: Every erratum of the errata page, in the page's order (the book's chapter order).
FINDINGS: tuple[Finding, ...] = (
    baselines.FINDINGS
    + cell_suppression.FINDINGS
    + swapping_part.FINDINGS
    + k_anonymity.FINDINGS
    + fairness.FINDINGS
    + experiments.FINDINGS
)
_BY_ID = {f.id: f for f in FINDINGS}
if len(_BY_ID) != len(FINDINGS):  # pragma: no cover - a programming error, caught at import
    raise RuntimeError("two findings share an id")


def get(finding_id: str) -> Finding:
    """The finding with this id; a ValueError lists the known ids otherwise."""
    if not isinstance(finding_id, str):
        raise TypeError(f"finding_id must be a string, got {type(finding_id).__name__}")
    try:
        return _BY_ID[finding_id]
    except KeyError:
        raise ValueError(f"unknown finding {finding_id!r}; known: {', '.join(_BY_ID)}") from None


def findings_of(*slugs: str) -> tuple[Finding, ...]:
    """The findings shown by the chapter(s) ``slugs`` (e.g. ``"06-swapping-privacy"``), in
    catalog order; a chapter without findings gets an empty tuple."""
    if not slugs:
        raise ValueError("findings_of needs at least one chapter slug")
    for slug in slugs:
        if not isinstance(slug, str):
            raise TypeError(f"a chapter slug must be a string, got {type(slug).__name__}")
    return tuple(f for f in FINDINGS if f.chapter in slugs)


def exact_findings() -> tuple[Finding, ...]:
    """The findings computed exactly: their setting names no number of repetitions
    (theorems, proofs, formulas and printed columns against exact values). Together they
    evaluate in seconds, cheap enough for a page that runs at every build."""
    return tuple(f for f in FINDINGS if "reps" not in f.setting)


def word_counts(findings: tuple[Finding, ...] = FINDINGS) -> dict[str, int]:
    """How many of ``findings`` have each status word (words with none are left out)."""
    counts: dict[str, int] = {}
    for f in findings:
        word = result(f.id).status.word
        counts[word] = counts.get(word, 0) + 1
    return counts


@functools.cache
def result(finding_id: str) -> Result:
    """The finding's numbers and status at its setting, computed once per process."""
    return get(finding_id).evaluate()


def status_key(finding_id: str) -> str:
    """The glue key of a finding's status word, ``status-<id>``, on the page and in chapters."""
    return f"status-{get(finding_id).id}"


def glue_values(finding: Finding | str) -> dict[str, float | int | str]:
    """Everything the errata page glues for one finding.

    ``<id>.<value name>`` for each computed value; ``status-<id>`` the status word;
    ``<id>.label`` the word with its qualifier; ``<id>.qualifier`` the qualifier alone ("-"
    if none); ``<id>.basis`` the comparison it rests on.
    """
    finding = get(finding) if isinstance(finding, str) else finding
    res = result(finding.id)
    out: dict[str, float | int | str] = {f"{finding.id}.{k}": v for k, v in res.values.items()}
    out[status_key(finding.id)] = res.status.word
    out[f"{finding.id}.label"] = res.status.label
    out[f"{finding.id}.qualifier"] = res.status.qualifier or "-"
    out[f"{finding.id}.basis"] = res.status.basis
    return out


def summary(findings: tuple[Finding, ...] = FINDINGS) -> pd.DataFrame:
    """One row per finding: title, chapter, status word, qualifier and the comparison."""
    rows = []
    for f in findings:
        status = result(f.id).status
        rows.append({"finding": f.title, "status": status.word, "qualifier": status.qualifier,
                     "basis": status.basis, "chapter": f.chapter})  # fmt: skip
    return pd.DataFrame(rows)
