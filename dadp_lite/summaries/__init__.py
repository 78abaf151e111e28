"""What each chapter found, as glue values: the sentences and numbers a chapter shows.

A chapter's "main result" box, its overview and its "What the numbers say" section are
written from values computed here, not from f-strings in the chapter's cells: each module
serves one chapter topic with functions that take the chapter's own results (tables, exact
values, simulations) and return ``{glue name: value}``, where a value is a plain number or
a finished phrase (status words come from :mod:`dadp_lite.errata`'s rules, never typed).
The functions are tested like the rest of the package; the chapter glues what they return
with :func:`glue_all`.

This layer sits above :mod:`dadp_lite.errata` (it applies the errata's rules) and below the
book machinery.
"""

from __future__ import annotations

from collections.abc import Mapping

from dadp_lite.errata.record import plain

__all__ = ["glue_all", "plain_values"]


def plain_values(values: Mapping[str, object]) -> dict[str, float | int | str]:
    """``values`` with every value a plain ``float``, ``int`` or ``str`` (numpy scalars
    converted; a non-finite number or another type raises, naming the key)."""
    out: dict[str, float | int | str] = {}
    for key, value in values.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"a glue name must be a non-empty string, got {key!r}")
        try:
            out[key] = plain(value)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{key}: {error}") from None
    return out


def glue_all(values: Mapping[str, object]) -> None:
    """Glue every value of ``values`` under its name (``display=False``), for the chapter's
    text to show with ``{glue:text}`name```. Needs ``myst_nb`` (the book extra)."""
    from myst_nb import glue

    for key, value in plain_values(values).items():
        glue(key, value, display=False)
