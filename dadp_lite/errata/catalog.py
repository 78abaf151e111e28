"""The catalog of findings and claims: lookup, evaluation at a chapter's values (once per
process, and once per build through the store), glue values, and the claim counts.

One computation per finding: a chapter evaluates its findings at its own parameter values;
the errata and landing pages evaluate them at the values the build ran each chapter with.
Same function, same settings, same seed: the same numbers on every page. Within a process a
result is computed once; with the environment variable ``DADP_FINDINGS_STORE`` naming a
folder (the build sets it), a result is also stored there as JSON, keyed by the finding,
its settings, the science library's sources and the bytes of every file its settings name,
so a page that runs after the chapter reads the chapter's result instead of recomputing it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from dadp_lite.errata import baselines, cell_suppression, experiments, fairness, k_anonymity
from dadp_lite.errata import swapping as swapping_part
from dadp_lite.errata.claims import CLAIMS
from dadp_lite.errata.record import Claim, Finding, Result, Value
from dadp_lite.errata.status import CLAIM_ORDER, MUCH_FACTOR, NOT_JUDGED, Reading, Status

__all__ = [
    "CLAIMS",
    "FINDINGS",
    "STORE_VARIABLE",
    "claim_class",
    "claim_classes",
    "claim_of",
    "class_counts",
    "evaluate",
    "findings_of",
    "findings_of_claim",
    "get",
    "get_claim",
    "glue_book",
    "glue_findings",
    "glue_values",
    "status_key",
    "VERDICT_WORDS",
    "verdicts",
]

#: Every finding, in the book's chapter order.
FINDINGS: tuple[Finding, ...] = (
    baselines.FINDINGS
    + cell_suppression.FINDINGS
    + swapping_part.FINDINGS
    + k_anonymity.FINDINGS
    + fairness.FINDINGS
    + experiments.FINDINGS
)
#: The environment variable naming the folder where results are stored between kernels.
STORE_VARIABLE = "DADP_FINDINGS_STORE"
_BY_ID = {f.id: f for f in FINDINGS}
_CLAIMS = {c.id: c for c in CLAIMS}
if len(_BY_ID) != len(FINDINGS):  # pragma: no cover - a programming error, caught at import
    raise RuntimeError("two findings share an id")
if len(_CLAIMS) != len(CLAIMS):  # pragma: no cover
    raise RuntimeError("two claims share an id")
_UNKNOWN = sorted({f.claim for f in FINDINGS} - set(_CLAIMS))
if _UNKNOWN:  # pragma: no cover
    raise RuntimeError(f"findings name unknown claims: {_UNKNOWN}")


def get(finding_id: str | Finding) -> Finding:
    """The finding with this id; a ValueError lists the known ids otherwise."""
    if isinstance(finding_id, Finding):
        return finding_id
    if not isinstance(finding_id, str):
        raise TypeError(f"finding_id must be a string, got {type(finding_id).__name__}")
    try:
        return _BY_ID[finding_id]
    except KeyError:
        raise ValueError(f"unknown finding {finding_id!r}; known: {', '.join(_BY_ID)}") from None


def get_claim(claim_id: str) -> Claim:
    """The claim with this id; a ValueError lists the known ids otherwise."""
    try:
        return _CLAIMS[claim_id]
    except (KeyError, TypeError):
        raise ValueError(f"unknown claim {claim_id!r}; known: {', '.join(_CLAIMS)}") from None


def claim_of(finding: str | Finding) -> Claim:
    """The claim a finding is about."""
    return _CLAIMS[get(finding).claim]


def findings_of(*slugs: str) -> tuple[Finding, ...]:
    """The findings shown by the chapter(s) ``slugs`` (e.g. ``"06-swapping-privacy"``), in
    catalog order; a chapter without findings gets an empty tuple."""
    if not slugs:
        raise ValueError("findings_of needs at least one chapter slug")
    for slug in slugs:
        if not isinstance(slug, str):
            raise TypeError(f"a chapter slug must be a string, got {type(slug).__name__}")
    return tuple(f for f in FINDINGS if f.chapter in slugs)


def findings_of_claim(claim_id: str) -> tuple[Finding, ...]:
    """The findings about one claim, in catalog order."""
    get_claim(claim_id)
    return tuple(f for f in FINDINGS if f.claim == claim_id)


def status_key(finding_id: str) -> str:
    """The glue key of a finding's status word, ``status-<id>``, on every page."""
    return f"status-{get(finding_id).id}"


# ------------------------------------------------------------------ evaluation
def _canonical(settings: Mapping[str, object]) -> str:
    return json.dumps(settings, sort_keys=True, default=repr)


@functools.cache
def _sources_sha256() -> str:
    """One hash over the science library's files (path and bytes)."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(package).as_posix()
        if path.is_file() and "__pycache__" not in relative and path.suffix != ".pyc":
            digest.update(f"{relative}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _files_named(value: object) -> Iterable[str]:
    if isinstance(value, str):
        if os.path.sep in value or value.endswith((".csv", ".parquet")):
            yield value
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _files_named(item)


def _store_key(finding: Finding, settings: Mapping[str, object]) -> str:
    digest = hashlib.sha256()
    digest.update(f"{finding.id}\0{_canonical(settings)}\0{_sources_sha256()}".encode())
    for name in sorted(set(_files_named(list(settings.values())))):
        try:
            digest.update(hashlib.sha256(Path(name).read_bytes()).hexdigest().encode())
        except OSError:
            digest.update(b"missing")
    return digest.hexdigest()[:32]


def _to_json(result: Result) -> dict:
    status = result.status
    return {
        "status": None if status is None else {
            "word": status.word, "basis": status.basis, "measure": status.measure,
            "qualifier": status.qualifier,
            "readings": [[r.name, r.word, r.basis, r.supported] for r in status.readings],
        },
        "values": {k: [v.number, v.text] for k, v in result.values.items()},
        "reason": result.reason,
    }  # fmt: skip


def _from_json(content: dict) -> Result:
    raw = content["status"]
    status = None if raw is None else Status(
        raw["word"], raw["basis"], float(raw["measure"]), raw["qualifier"],
        tuple(Reading(*r) for r in raw["readings"]),
    )  # fmt: skip
    values = {k: Value(n, t) for k, (n, t) in content["values"].items()}
    return Result(status, values, content["reason"])


def _store() -> Path | None:
    folder = os.environ.get(STORE_VARIABLE)
    return Path(folder) if folder else None


def _load(path: Path, finding: Finding, settings: Mapping[str, object]) -> Result | None:
    try:
        content = json.loads(path.read_text())
        if content.get("finding") != finding.id or content.get("settings") != _canonical(settings):
            return None
        return _from_json(content["result"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _save(path: Path, finding: Finding, settings: Mapping[str, object], result: Result) -> None:
    content = {"finding": finding.id, "settings": _canonical(settings), "result": _to_json(result)}
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w") as handle:
            json.dump(content, handle, sort_keys=True)
        os.replace(tmp, path)


_MEMO: dict[tuple[str, str], Result] = {}


def evaluate(finding: str | Finding, values: Mapping[str, object]) -> Result:
    """The finding's result at a chapter's parameter ``values`` (a mapping from parameter
    name to value, e.g. ``{"REPS": 200, "SEED": 2023, ...}``; names the finding does not
    take are ignored). Computed once per process and setting, and read from the store
    (``DADP_FINDINGS_STORE``) when another kernel of the build computed it."""
    finding = get(finding)
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be a mapping of parameter names, got {type(values).__name__}")
    settings = finding.settings(values)
    key = (finding.id, _canonical(settings))
    if key in _MEMO:
        return _MEMO[key]
    folder = _store()
    path = folder / f"{finding.id}-{_store_key(finding, settings)}.json" if folder else None
    result = _load(path, finding, settings) if path is not None else None
    if result is None:
        result = finding.evaluate(settings)
        if path is not None:
            _save(path, finding, settings, result)
    _MEMO[key] = result
    return result


# ------------------------------------------------------------------------ glue
def glue_values(finding: str | Finding, result: Result) -> dict[str, str]:
    """Everything a page glues for one finding, as finished text: ``<id>.<value>`` for each
    value, ``status-<id>`` the word, ``<id>.qualifier`` the qualifier (``"-"`` if none),
    ``<id>.basis`` the comparison it rests on, ``<id>.readings`` the readings tried with
    their words (``"-"`` if none). A finding not judged at these values shows
    :data:`~dadp_lite.errata.status.NOT_JUDGED` and its reason as basis."""
    finding = get(finding)
    out = {f"{finding.id}.{k}": v.text for k, v in result.values.items()}
    out[status_key(finding.id)] = result.word
    status = result.status
    out[f"{finding.id}.qualifier"] = (status.qualifier if status else "") or "-"
    out[f"{finding.id}.basis"] = status.basis if status else result.reason
    readings = status.readings if status else ()
    out[f"{finding.id}.readings"] = "; ".join(
        f"{r.name}: {r.word}" + (" (the paper's numbers support it)" if r.supported else "")
        for r in readings
    ) or "-"  # fmt: skip
    return out


def glue_findings(chapter: str, **values: object) -> dict[str, Result]:
    """Evaluate every finding the chapter ``chapter`` shows at its parameter ``values`` and
    glue them (``display=False``; needs ``myst_nb``). Returns ``{finding id: result}``."""
    from myst_nb import glue

    results = {}
    for finding in findings_of(chapter):
        results[finding.id] = result = evaluate(finding, values)
        for key, text in glue_values(finding, result).items():
            glue(key, text, display=False)
    return results


# ---------------------------------------------------------------------- claims
def claim_class(words: Iterable[str]) -> str | None:
    """The class of a claim whose findings have these words: the first of
    :data:`~dadp_lite.errata.status.CLAIM_ORDER` among them (None if none is judged)."""
    present = set(words)
    return next((w for w in CLAIM_ORDER if w in present), None)


def claim_classes(results: Mapping[str, Result]) -> dict[str, str | None]:
    """``{claim id: class}`` from the results of the findings (by finding id); a claim
    none of whose findings is in ``results`` or judged gets None."""
    words: dict[str, list[str]] = {c.id: [] for c in CLAIMS}
    for finding_id, result in results.items():
        if result.judged:
            words[get(finding_id).claim].append(result.word)
    return {claim: claim_class(found) for claim, found in words.items()}


def class_counts(results: Mapping[str, Result]) -> dict[str, int]:
    """How many claims fall in each class (every word of ``CLAIM_ORDER``, zeros included),
    plus ``"claims"``, the number of claims judged."""
    classes = [c for c in claim_classes(results).values() if c is not None]
    counts = {word: classes.count(word) for word in CLAIM_ORDER}
    counts["claims"] = len(classes)
    return counts


def glue_book(chapter_values: Mapping[str, Mapping[str, object]]) -> dict[str, Result]:
    """Evaluate and glue every finding of the book at the values each chapter runs with
    (``{slug: {NAME: value}}``, what the build passes to the errata and landing pages),
    and glue the claims: ``claim-<id>`` (its class, or :data:`NOT_JUDGED`),
    ``claims-<word>`` (how many claims have each class; spaces as hyphens) and
    ``claims-judged``. Returns ``{finding id: result}``. Needs ``myst_nb``."""
    from myst_nb import glue

    missing = sorted({f.chapter for f in FINDINGS} - set(chapter_values))
    if missing:
        raise ValueError(f"chapter_values lacks the chapter(s) {', '.join(missing)}")
    results = {}
    for finding in FINDINGS:
        results[finding.id] = result = evaluate(finding, chapter_values[finding.chapter])
        for key, text in glue_values(finding, result).items():
            glue(key, text, display=False)
    for claim, word in claim_classes(results).items():
        glue(f"claim-{claim}", word or NOT_JUDGED, display=False)
    counts = class_counts(results)
    for word in CLAIM_ORDER:
        glue(f"claims-{word.replace(' ', '-')}", counts[word], display=False)
    glue("claims-judged", counts["claims"], display=False)
    glue("claims-total", len(CLAIMS), display=False)
    for topic, word in verdicts(results).items():
        glue(f"verdict-{topic}", word, display=False)
    return results


#: The verdict words on the paper's conclusion (:func:`verdicts`).
VERDICT_WORDS = ("stands", "stands in part", "does not stand", "not judged")


def verdicts(results: Mapping[str, Result]) -> dict[str, str]:
    """Whether the paper's conclusion stands, in words the pages glue (one of
    :data:`VERDICT_WORDS`), from the findings that test it: ``release`` (Laplace and the
    discrete Gaussian release with less bias and alpha: ``release-ranking``),
    ``classification`` (``classification-ranking``: "much closer" reproduced, or only
    "closer", or neither) and ``overall`` (both stand; one of them; neither)."""

    def word(finding_id: str) -> str | None:
        result = results.get(finding_id)
        return result.word if result is not None and result.judged else None

    release = {"reproduced": "stands", "not reproduced": "does not stand"}.get(
        word("release-ranking") or "", "not judged")  # fmt: skip
    found = results.get("classification-ranking")
    if found is None or not found.judged:
        classification = "not judged"
    elif found.word == "reproduced":
        classification = "stands"
    else:
        readings = found.status.readings if found.status is not None else ()
        closer = [r for r in readings if r.name.startswith("“closer”")]
        classification = ("stands in part" if closer and closer[0].word == "reproduced"
                          or release == "stands" and found.word != "reproduced"
                          and _worst_is_one(found) else "does not stand")  # fmt: skip
    judged = [w for w in (release, classification) if w != "not judged"]
    if not judged:
        overall = "not judged"
    elif all(w == "stands" for w in judged):
        overall = "stands"
    elif any(w in ("stands", "stands in part") for w in judged):
        overall = "stands in part"
    else:
        overall = "does not stand"
    return {"release": release, "classification": classification, "overall": overall}


def _worst_is_one(result: Result) -> bool:
    """True if one mechanism alone costs the classifier much (its largest loss at least
    :data:`~dadp_lite.errata.status.MUCH_FACTOR` times every other mechanism's)."""
    try:
        return float(result.number("worst-value")) >= MUCH_FACTOR * float(
            result.number("worst-rest"))  # fmt: skip
    except KeyError:
        return False
