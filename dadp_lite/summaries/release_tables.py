"""What the data-release chapter found, as glue values.

The chapter recomputes the paper's Tables 1-3 (:func:`dadp_lite.experiments.data_release_table`
and :func:`~dadp_lite.experiments.compare_with_paper`), reads the printed columns against
exact values, and searches the encodings of the records for the paper's histogram
(:mod:`dadp_lite.experiments.encodings`). These functions turn its tables into the phrases
its prose shows; every status word comes from :mod:`dadp_lite.errata`'s rules or from the
encoding search's own verdict columns, never from a literal chosen here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from dadp_lite.data import dataset_label
from dadp_lite.errata import Status, reproduced_status
from dadp_lite.experiments.encodings import COLUMN_LABELS
from dadp_lite.plotting import MECHANISM_LABELS
from dadp_lite.theory.fairness import SwappingSpread

__all__ = [
    "comparison_scope",
    "encoding_columns",
    "encoding_verdicts",
    "epsilons_phrase",
    "laplace_position",
    "places",
    "relative_bias",
    "rounded_releases",
    "status_word",
    "swapping_alpha",
    "swapping_structure",
    "words",
]

#: What a finding's status reads when this run has nothing to compare it with.
NOT_COMPARED = "not compared"


def words(items: Iterable[str]) -> str:
    """``items`` as a comma-separated phrase (``["race", "sex"]`` -> ``"race, sex"``)."""
    return ", ".join(str(i) for i in items)


def status_word(status: Status | None) -> str:
    """The status's word, or "not compared" where the run had nothing to judge (``None``)."""
    if status is None:
        return NOT_COMPARED
    if not isinstance(status, Status):
        raise TypeError(f"status must be a Status or None, got {type(status).__name__}")
    return status.word


def epsilons_phrase(epsilons: Iterable[float], *, none: str = "no epsilon") -> str:
    """``"0.5, 1, 2"`` for the given epsilons, or ``none`` if there are none."""
    return ", ".join(f"{float(e):g}" for e in epsilons) or none


def places(datasets: Iterable[str], epsilons: Iterable[float], *, none: str = "none") -> str:
    """``"MA at epsilon = 0.5; TX at epsilon = 0.5"`` for paired datasets and epsilons."""
    pairs = list(zip(datasets, epsilons, strict=True))
    return "; ".join(f"{dataset_label(d)} at epsilon = {float(e):g}" for d, e in pairs) or none


def comparison_scope(dataset_names: Sequence[str], epsilons: Sequence[float]) -> dict[str, str]:
    """``cmp_scope``: the rows the paper prints that this run compares with."""
    if dataset_names and epsilons:
        scope = (f"{', '.join(dataset_label(n) for n in dataset_names)} at epsilon = "
                 f"{epsilons_phrase(epsilons)}")  # fmt: skip
    else:
        scope = (
            "none in this run (the paper prints no table for these datasets and epsilons), so "
            "the comparisons below are left out"
        )
    return {"cmp_scope": scope}


def laplace_position(paper_sd: float, *, limit: float, compared: bool) -> dict[str, object]:
    """Where the printed Laplace bias lies against the exact one, ``paper_sd`` = (exact -
    printed) / SE: ``lap_paper_sd`` (its size), ``lap_paper_side`` ("below" or "above") and
    ``lap_inference``, what follows (beyond ``limit`` below the exact value, no simulation
    of this histogram gives the printed number, by part 1 of the chapter's proposition)."""
    if compared and not math.isfinite(paper_sd):
        raise ValueError(f"paper_sd must be finite where compared, got {paper_sd!r}")
    if not compared:
        inference = "The paper prints no number for this dataset."
    elif paper_sd > limit:
        inference = (
            "By part 1 of the proposition the statistic sits above the exact value on average, "
            "so no simulation of this histogram gives the printed number: the paper's histogram "
            "differs from ours."
        )
    else:
        inference = "A simulation of this histogram can give the printed number."
    return {
        "lap_paper_sd": abs(float(paper_sd)) if compared else 0.0,
        "lap_paper_side": "below" if paper_sd > 0 else "above",
        "lap_inference": inference,
    }


def relative_bias(ratio_to_laplace: Mapping[str, np.ndarray]) -> dict[str, str]:
    """``rel_conclusion``: against which mechanisms Laplace has the smaller bias at every
    epsilon (ratio of the other's bias to Laplace's above 1), the larger (below 1), and
    whether the paper's conclusion that Laplace has the smallest bias holds."""
    if not ratio_to_laplace:
        raise ValueError("ratio_to_laplace is empty")
    ratios = {m: np.asarray(r, dtype=float) for m, r in ratio_to_laplace.items()}
    above = [MECHANISM_LABELS[m] for m, r in ratios.items() if (r > 1).all()]
    below = [MECHANISM_LABELS[m] for m, r in ratios.items() if (r < 1).all()]
    text = (
        f"Laplace has the smaller bias at every epsilon of this run against "
        f"{words(above) or 'no other mechanism'}"
        + (f", and the larger against {words(below)}" if below else "")
        + ". The paper's "
    )
    if len(above) == len(ratios):
        text += "conclusion that Laplace has the smallest bias holds here."
    else:
        text += (
            "conclusion that Laplace has the smallest bias holds against those named first only."
        )
    return {"rel_conclusion": text}


def swapping_structure(spreads: Mapping[str, SwappingSpread]) -> dict[str, str]:
    """``sw_structure``: on which histograms both extremes of DP swapping's bias lie in the
    group of the largest cell, with each histogram's ``(x_n, m, x_1)``."""
    if not spreads:
        raise ValueError("spreads is empty")
    inside = [dataset_label(n) for n, s in spreads.items() if s.in_largest_group]
    outside = [dataset_label(n) for n, s in spreads.items() if not s.in_largest_group]
    parts = []
    if inside:
        parts.append(f"both extremes lie in the group of the largest cell on {words(inside)}")
    if outside:
        parts.append(f"not on {words(outside)}")
    triples = "; ".join(f"({s.largest}, {s.group_min}, {s.smallest}) on {dataset_label(n)}"
                        for n, s in spreads.items())  # fmt: skip
    return {"sw_structure": "; ".join(parts) + f", with (x_n, m, x_1) = {triples}"}


def swapping_alpha(
    compared: pd.DataFrame, spreads: Mapping[str, SwappingSpread], *, n_datasets: int
) -> dict[str, str]:
    """DP swapping's printed alpha against the exact one, per dataset.

    ``compared`` has one row per printed (dataset, epsilon) with ``alpha_exact``,
    ``paper_alpha``, ``alpha``, ``alpha_se``, ``exact / paper`` and ``implied x_n`` (the
    largest cell at which the exact alpha equals the printed one). Returns
    ``sw_below_eps`` (epsilons where the printed alpha is below the exact one on all
    ``n_datasets`` datasets), ``sw_alpha_ratios`` (exact / printed where below),
    ``sw_alpha_verdicts`` (:func:`dadp_lite.errata.reproduced_status` per dataset, with
    spread sqrt(2) SE), ``sw_implied`` (the implied largest cell at the first epsilon) and
    ``sw_implied_direction`` (smaller or larger than ours, per epsilon).
    """
    low = compared[compared["paper_alpha"] < compared["alpha_exact"]]
    everywhere = low.groupby("epsilon").size() == n_datasets
    verdicts, ratios, implied, directions = [], [], [], []
    for name, rows in compared.groupby("dataset", sort=False):
        label, judged = dataset_label(name), rows[rows["alpha_se"] > 0]
        if len(judged):
            s = reproduced_status(judged["alpha"], judged["paper_alpha"],
                                  math.sqrt(2) * judged["alpha_se"])  # fmt: skip
            verdicts.append(f"{s.word} on {label} (largest |z| = {abs(s.measure):.1f})")
        low_n = low[low["dataset"] == name]["exact / paper"]
        if len(low_n):
            ratios.append(f"{low_n.min():.2f}-{low_n.max():.2f} on {label}")
        largest = spreads[name].largest
        implied.append(f"{rows['implied x_n'].iloc[0]:.0f} records on {label} (ours: {largest})")
        smaller = rows[rows["implied x_n"] < largest]["epsilon"]
        larger = rows[rows["implied x_n"] > largest]["epsilon"]
        if larger.empty:
            where = "smaller than ours at every epsilon"
        elif smaller.empty:
            where = "larger than ours at every epsilon"
        else:
            where = (f"smaller at epsilon = {epsilons_phrase(smaller)} and larger at "
                     f"{epsilons_phrase(larger)}")  # fmt: skip
        directions.append(f"{where} on {label}")
    return {
        "sw_below_eps": epsilons_phrase(everywhere[everywhere].index),
        "sw_alpha_ratios": "; ".join(ratios) or "nowhere",
        "sw_alpha_verdicts": "; ".join(verdicts) or NOT_COMPARED,
        "sw_implied": "; ".join(implied) or NOT_COMPARED,
        "sw_implied_direction": "; ".join(directions) or NOT_COMPARED,
    }


def encoding_verdicts(
    reading: pd.DataFrame, *, within: float, identified_share: float
) -> dict[str, str]:
    """``enc_verdicts``: per dataset, the encoding that best fits the two selection
    columns, its runner-up, its bootstrap share and whether it is identified.

    ``reading`` is :func:`dadp_lite.experiments.encodings.paper_reading` with a column
    ``n_cells`` (cells of the best encoding's histogram) added; ``within`` is the tolerance
    as a relative deviation (0.05) and ``identified_share`` the bootstrap share an
    identified encoding must win.
    """
    limit = math.log1p(within)
    sentences = []
    for r in reading.itertuples():
        fits, identified = r.score <= limit, bool(r.identified)
        tied = f", tied with {r.tied - 1} other label(s))" if r.tied > 1 else ")"
        text = (
            f"{dataset_label(r.dataset)}: the best fit of the two selection columns is "
            f"'{r.encoding}' ({r.n_cells} cells; off by {100 * math.expm1(r.score):.1f}%, the "
            f"runner-up '{r.runner_up}' by {100 * math.expm1(r.runner_up_score):.1f}%; it wins "
            f"{100 * r.share:.0f}% of the bootstrap replicates{tied}"
        )
        if identified and fits:
            text += ". That is the paper's reading, identified."
        else:
            reasons = []
            if not fits:
                reasons.append(f"the best fit is off by more than {100 * within:.0f}%")
            if not identified:
                share = 100 * identified_share
                reasons.append(f"it wins fewer than {share:.0f}% of the replicates")
            text += ". The paper's histogram is not identified: " + " and ".join(reasons) + "."
        sentences.append(text)
    return {"enc_verdicts": " ".join(sentences) or "Nothing to compare in this run."}


def _column_list(rows: pd.DataFrame) -> str:
    return "; ".join(f"{dataset_label(r.dataset)} {COLUMN_LABELS[r.column]}"
                     for r in rows.itertuples()) or "none"  # fmt: skip


def _ratio_range(low: float, high: float) -> str:
    return f"{low:.2f}-{high:.2f}" if math.isfinite(low) and math.isfinite(high) else "none"


def encoding_columns(columns: pd.DataFrame, *, swapping_column: str) -> dict[str, object]:
    """What the encoding search shows column by column, from
    :func:`dadp_lite.experiments.encodings.column_summary`: the bias columns reproduced out
    of sample (``enc_reproduced_list``, ``enc_reproduced_n`` of ``enc_columns_n``), those
    fitted only by the encoding chosen on them (``enc_in_sample_only``), those whose best
    fit counts income at the cut as above it (``enc_ge_list``), the number identified
    (``enc_identified_n``), and DP swapping's alpha column (``swapping_column``) out of and
    in sample (``sw_enc_verdict``)."""
    held = columns[columns["column"] != swapping_column]
    reproduced = held["reproduced"].astype(bool)
    within = held["best_within"].astype(bool)
    greater_equal = held[held["best_encoding"].str.contains(">=", regex=False) & within]
    verdicts = []
    for r in columns[columns["column"] == swapping_column].itertuples():
        word = "reproduced" if r.reproduced else "not reproduced"  # the search's own verdict
        verdicts.append(
            f"{dataset_label(r.dataset)}: {word} out of sample "
            f"({_ratio_range(r.held_out_ratio_min, r.held_out_ratio_max)}); the best of the "
            f"candidates on this column alone gives {_ratio_range(r.ratio_min, r.ratio_max)}"
        )
    return {
        "enc_reproduced_list": _column_list(held[reproduced]),
        "enc_in_sample_only": _column_list(held[within & ~reproduced]),
        "enc_ge_list": _column_list(greater_equal),
        "enc_identified_n": int(held["identified"].astype(bool).sum()),
        "enc_reproduced_n": int(reproduced.sum()),
        "enc_columns_n": len(held),
        "sw_enc_verdict": "; ".join(verdicts) or "nothing to compare in this run",
    }


def rounded_releases(search: pd.DataFrame, reading: pd.DataFrame) -> dict[str, str]:
    """``enc_rounded``: under each dataset's best fit, the largest over the smallest ratio
    of the Laplace column across epsilon, for plain and for rounded releases (``search``:
    the rows of the encoding search, columns ``dataset``, ``encoding``, ``column``,
    ``ratio``)."""
    parts = []
    for r in reading.itertuples():
        rows = search[(search["dataset"] == r.dataset) & (search["encoding"] == r.encoding)]
        plain = rows[rows["column"] == "laplace"]["ratio"]
        rounded = rows[rows["column"] == "laplace_rounded"]["ratio"]
        parts.append(f"{plain.max() / plain.min():.2f} for plain and "
                     f"{rounded.max() / rounded.min():.2f} for rounded releases on "
                     f"{dataset_label(r.dataset)}")  # fmt: skip
    return {"enc_rounded": "; ".join(parts) or "not compared"}
