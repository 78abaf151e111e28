"""Chapter 04's findings and settings as glue values: the privacy theorem of DP cell
suppression on real data, and the enumeration's settings as the reader sees them."""

from __future__ import annotations

from collections.abc import Sequence

from dadp_lite.errata import Status, status_key, vacuous

__all__ = ["listed", "theorem_on_data"]


def listed(values: Sequence[object]) -> str:
    """``values`` as the text reads them: ``"2, 3 and 4"`` (``"7"`` for one value)."""
    if isinstance(values, str) or not len(values):
        raise ValueError(f"values must be a non-empty sequence, got {values!r}")
    words = [f"{v:g}" if isinstance(v, float) else str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def theorem_on_data(theorem: Status, printed_delta: float) -> dict[str, object]:
    """The theorem's status word (``status-cs-privacy-theorem``) and its qualifier
    (``cs-priv-theorem-qualifier``): "vacuous on real data" when the printed delta on a real
    histogram is vacuous by the errata's rule, else "not vacuous on real data"."""
    if not isinstance(theorem, Status):
        raise TypeError(f"theorem must be an errata Status, got {type(theorem).__name__}")
    empty = vacuous(printed_delta)
    return {
        status_key("cs-privacy-theorem"): theorem.word,
        "cs-priv-theorem-qualifier": "vacuous on real data"
        if empty
        else "not vacuous on real data",
    }
