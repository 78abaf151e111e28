"""One figure style for the whole book, and a few helpers.

Colours are fixed per mechanism (the registry's Okabe-Ito palette, colour-blind safe) so the
same mechanism has the same colour in every figure; epsilons get a sequential palette.
Colour is never the only cue: every mechanism also has a marker and a line style (in the
registry's order), every epsilon a marker, and the recurring kinds of curve ("ours",
"exact", "baseline", "bound", the paper's printed values) a dash pattern or marker of their
own (:data:`CURVE_STYLES`), drawn with legend handles long enough to tell them apart.
Chapters never set titles: captions live in the cell metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from itertools import product

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dadp_lite.data import dataset_label
from dadp_lite.registry import REGISTRY

__all__ = [
    "CURVE_STYLES",
    "YARDSTICK_STYLES",
    "MECHANISM_COLORS",
    "MECHANISM_LABELS",
    "MECHANISM_LINESTYLES",
    "MECHANISM_MARKERS",
    "curve_handles",
    "curve_style",
    "epsilon_colors",
    "epsilon_markers",
    "errorband",
    "accuracy_panels",
    "release_curves",
    "release_handles",
    "mechanism_color",
    "mechanism_linestyle",
    "mechanism_marker",
    "plot_audit_tightness",
    "plot_k_anonymity_sweep",
    "plot_privacy_profiles",
    "use_style",
    # the column width and panels that stay legible in it
    "COLUMN_WIDTH",
    "MIN_TEXT_PT",
    "panel_axes",
    "panel_legend",
    # sweeps of chapters 05 and 07
    "TRADITIONAL_STYLES",
    "UNIT_STYLES",
    "plot_cell_suppression_sweep",
    "plot_swapping_sweep",
]

#: Colours of things that are not mechanisms but recur in figures.
_EXTRA_COLORS = {"baseline": "#000000", "bound": "#E69F00", "exact": "#000000"}
#: Fixed colour per registry mechanism (the record's ``color``) and per recurring line.
MECHANISM_COLORS: dict[str, str] = {
    **{name: entry.color for name, entry in REGISTRY.items()},
    **_EXTRA_COLORS,
}
#: Legend label per registry mechanism (the record's ``label``) and the baseline.
MECHANISM_LABELS: dict[str, str] = {
    **{name: entry.label for name, entry in REGISTRY.items()},
    "baseline": "non-private baseline",
}
#: Filled markers, told apart by shape alone (in the registry's order, then per epsilon).
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p")
#: Line styles told apart at a glance (solid, dashed, dash-dot, dotted, long dash, ...).
LINESTYLES = ("-", (0, (6, 3)), (0, (7, 2, 1.5, 2)), (0, (1.2, 2)), (0, (12, 4)),
              (0, (4, 2, 1, 2, 1, 2)))  # fmt: skip
#: A marker per mechanism, in the registry's order (the same in every figure).
MECHANISM_MARKERS: dict[str, str] = {
    name: MARKERS[i % len(MARKERS)] for i, name in enumerate(REGISTRY)
}
#: A line style per mechanism, in the registry's order.
MECHANISM_LINESTYLES: dict[str, object] = {
    name: LINESTYLES[i % len(LINESTYLES)] for i, name in enumerate(REGISTRY)
}
#: How a recurring kind of curve is drawn (plot keyword arguments): our estimate solid,
#: exact values dashed, the Monte Carlo floor dotted, a baseline dash-dot, a bound long
#: dashes, the paper's printed values crosses.
CURVE_STYLES: dict[str, dict] = {
    "ours": {"ls": "-"},
    "exact": {"ls": (0, (6, 3))},
    "exact + floor": {"ls": (0, (1.2, 2))},
    "baseline": {"ls": (0, (7, 2, 1.5, 2))},
    "bound": {"ls": (0, (12, 4))},
    "printed": {"ls": (0, (12, 4))},
    "paper": {"ls": "none", "marker": "x", "ms": 6, "mew": 1.6},
}


#: The width in inches of a figure that fills the HTML book's text column without being
#: scaled down: the column is 672 px wide in a 1,280 px window and the style draws at 110
#: dpi (6.1 in); a little is left for what the tight bounding box adds. Text drawn at
#: :data:`MIN_TEXT_PT` is then as large as the body text (16 px).
COLUMN_WIDTH = 6.0


def _style_path():
    return resources.files("dadp_lite").joinpath("dadp.mplstyle")


#: The style's keys of text sizes (besides ``font.size``).
_TEXT_SIZE_KEYS = ("fontsize", "labelsize", "titlesize")


def _min_text_pt() -> float:
    """The smallest text size (points) the style file sets."""
    sizes = []
    for line in _style_path().read_text().splitlines():
        key, _, value = line.partition("#")[0].partition(":")
        if key.strip() == "font.size" or key.strip().endswith(_TEXT_SIZE_KEYS):
            sizes.append(float(value))
    return min(sizes)


#: The smallest text the style draws (points; read from ``dadp.mplstyle``): tick labels,
#: axis labels, legends, titles, annotations. No figure sets a smaller one.
MIN_TEXT_PT: float = _min_text_pt()


def use_style() -> None:
    """Apply the book's matplotlib style (shipped as ``dadp.mplstyle``)."""
    with resources.as_file(_style_path()) as path:
        plt.style.use(str(path))


def mechanism_color(name: str) -> str:
    """The fixed colour of a mechanism (ValueError for an unknown name)."""
    try:
        return MECHANISM_COLORS[name]
    except KeyError:
        raise ValueError(f"unknown mechanism {name!r}; known: {sorted(MECHANISM_COLORS)}") from None


def mechanism_marker(name: str) -> str:
    """The fixed marker of a mechanism (ValueError for an unknown name)."""
    try:
        return MECHANISM_MARKERS[name]
    except KeyError:
        raise ValueError(
            f"unknown mechanism {name!r}; known: {sorted(MECHANISM_MARKERS)}"
        ) from None


def mechanism_linestyle(name: str) -> object:
    """The fixed line style of a mechanism (ValueError for an unknown name)."""
    try:
        return MECHANISM_LINESTYLES[name]
    except KeyError:
        raise ValueError(
            f"unknown mechanism {name!r}; known: {sorted(MECHANISM_LINESTYLES)}"
        ) from None


def curve_style(kind: str) -> dict:
    """Plot keyword arguments of a kind of curve of :data:`CURVE_STYLES` (``"exact"``...)."""
    try:
        return dict(CURVE_STYLES[kind])
    except KeyError:
        raise ValueError(f"unknown kind of curve {kind!r}; known: {sorted(CURVE_STYLES)}") from None


def curve_handles(kinds: Sequence[str], *, color: str = "black", labels: Sequence[str] = ()):
    """Legend handles for kinds of curve (``["ours", "exact", "paper"]``), in ``color``;
    ``labels`` replaces the kinds' names in the legend."""
    from matplotlib.lines import Line2D

    names = list(labels) or list(kinds)
    if len(names) != len(kinds):
        raise ValueError(f"labels: {len(names)} given for {len(kinds)} kinds of curve")
    return [Line2D([], [], color=color, label=n, **curve_style(k)) for k, n in zip(kinds, names)]


def epsilon_colors(epsilons: Sequence[float]) -> dict[float, tuple]:
    """A sequential colour per epsilon (light = small epsilon, dark = large)."""
    cmap = mpl.colormaps["viridis"]
    positions = np.linspace(0.85, 0.1, len(epsilons)) if len(epsilons) > 1 else [0.4]
    return {float(e): cmap(p) for e, p in zip(sorted(epsilons), positions)}


def epsilon_markers(epsilons: Sequence[float]) -> dict[float, str]:
    """A marker per epsilon (small epsilon first), so epsilons differ in shape as well as
    in the shade of :func:`epsilon_colors`."""
    order = sorted(float(e) for e in epsilons)
    return {e: MARKERS[i % len(MARKERS)] for i, e in enumerate(order)}


def errorband(ax, x, mean, se, *, label: str, color=None, z: float = 1.0, **line_kwargs):
    """Plot ``mean`` with a shaded band of +- ``z`` standard errors; returns the line."""
    x, mean, se = (np.asarray(v, dtype=float) for v in (x, mean, se))
    (line,) = ax.plot(x, mean, label=label, color=color, **line_kwargs)
    ax.fill_between(x, mean - z * se, mean + z * se, color=line.get_color(), alpha=0.2, lw=0)
    return line


def plot_k_anonymity_sweep(fig, sweep: pd.DataFrame, metric: str, ylabel: str) -> None:
    """One panel per dataset of ``metric`` (+- its ``_se`` column) against k.

    ``sweep`` is the concatenation of :func:`dadp_lite.experiments.k_anonymity_sweep`
    outputs with a ``dataset`` column. Traditional k-anonymity in its fixed colour, DP
    k-anonymity one colour and one marker per epsilon; panels two to a row
    (:func:`panel_axes`, the figure resized to the column) and one legend
    (:func:`panel_legend`).
    """
    names = list(dict.fromkeys(sweep["dataset"]))
    axes, free = panel_axes(fig, len(names))
    epsilons = sorted(sweep["epsilon"].dropna().unique())
    colors, markers = epsilon_colors(epsilons), epsilon_markers(epsilons)
    for ax, name in zip(axes, names, strict=True):
        part = sweep[sweep["dataset"] == name]
        trad = part[part["mechanism"] == "k_anonymity"]
        errorband(
            ax,
            trad["k"],
            trad[metric],
            trad[metric + "_se"],
            label=MECHANISM_LABELS["k_anonymity"],
            color=mechanism_color("k_anonymity"),
            lw=3,
        )
        for eps in epsilons:
            dp = part[(part["mechanism"] == "dp_k_anonymity") & (part["epsilon"] == eps)]
            errorband(
                ax,
                dp["k"],
                dp[metric],
                dp[metric + "_se"],
                color=colors[eps],
                label=f"{MECHANISM_LABELS['dp_k_anonymity']}, epsilon = {eps:g}",
                marker=markers[float(eps)],
                ms=4,
            )
        ks = sorted(part["k"].unique())
        ax.set(xscale="log", xlabel="k (minimum class size)", ylabel=ylabel)
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.minorticks_off()
        label = dataset_label(name)
        ax.text(0.03, 0.96, label, transform=ax.transAxes, va="top", weight="bold")
    panel_legend(fig, axes[0].get_legend_handles_labels()[0], free=free)


def plot_privacy_profiles(
    profiles: pd.DataFrame, curves: pd.DataFrame, *, epsilons: Sequence[float], confidence: float
):
    """Delta against epsilon, one panel per registered mechanism, two to a row, and one
    legend (:func:`panel_legend`):
    the exact worst case (black), the printed delta (dashed) and the tables' reading where
    it differs (dotted), and the audited lower bound (markers, bar up to the estimate).

    ``profiles`` holds the audits (``dadp_lite.audit.audit_profile``; columns mechanism,
    epsilon, exact, printed, reading, delta_lower_figure, delta_estimate_figure),
    ``curves`` the exact curves of the private mechanisms on a fine grid
    (``dadp_lite.audit.exact_curves``); ``confidence`` is the audits' figure confidence.
    """
    from matplotlib.ticker import NullFormatter

    fig = plt.figure()
    axes, free = panel_axes(fig, len(REGISTRY), row_height=2.3, sharex=True, sharey=True)
    orange = mechanism_color("bound")
    for ax, entry in zip(axes, REGISTRY.values(), strict=True):
        part = profiles[profiles["mechanism"] == entry.name]
        line = curves[curves["mechanism"] == entry.name] if entry.private else part
        ax.plot(line["epsilon"], line["exact"], color="k", lw=1.5)
        ax.plot(line["epsilon"], line["printed"], "--", color=orange)
        if line["reading"].notna().any() and not np.allclose(line["reading"], line["printed"]):
            ax.plot(line["epsilon"], line["reading"], ":", color=orange, lw=2)
        upper = np.maximum(part["delta_estimate_figure"] - part["delta_lower_figure"], 0)
        ax.errorbar(
            part["epsilon"],
            part["delta_lower_figure"],
            yerr=[0 * upper, upper],
            fmt="o",
            ms=4,
            color=entry.color,
            capsize=2,
        )
        ax.text(0.03, 0.97, entry.label, transform=ax.transAxes, va="top")
        ax.set(xscale="log", ylim=(-0.03, 1.2), yticks=[0, 0.25, 0.5, 0.75, 1])
    ticks = [e for e in (0.1, 0.25, 0.5, 1, 2, 4) if min(epsilons) <= e <= max(epsilons)]
    axes[0].set_xticks(ticks, [f"{e:g}" for e in ticks])
    axes[0].xaxis.set_minor_formatter(NullFormatter())
    handles = [
        plt.Line2D([], [], color="k", label="exact (worst case)"),
        plt.Line2D([], [], ls="--", color=orange, label="printed"),
        plt.Line2D([], [], ls=":", lw=2, color=orange, label="tables' reading"),
        plt.Line2D(
            [],
            [],
            marker="o",
            ls="",
            color="grey",
            label=f"audited, {confidence:.0%}\n(bar: estimate)",
        ),
    ]
    for i, ax in enumerate(axes):
        if i >= len(axes) - len(axes) % 2 - (len(axes) % 2 == 0) * 2:  # the last row
            ax.set_xlabel("epsilon")
        if i % 2 == 0:
            ax.set_ylabel("delta")
    panel_legend(fig, handles, free=free)
    return fig


def plot_audit_tightness(
    tightness: pd.DataFrame,
    profiles: pd.DataFrame,
    *,
    epsilon: float,
    share: float,
    confidence: float,
    epsilons: Sequence[float],
):
    """How tight the audits are, two panels one above the other. Top: the certified
    epsilon of Laplace calibrated at ``epsilon`` against the trials per side
    (``tightness``: columns "trials per side", "certified epsilon"), with the true epsilon
    and the required ``share`` of it. Bottom: per mechanism and epsilon, the "fraction
    reached" of ``profiles`` (circle: of delta, square: of epsilon, per its "measured on"
    column; "-" rows are left out), one colour and one marker offset per epsilon."""
    fig, (left, right) = plt.subplots(2, 1, figsize=(COLUMN_WIDTH, 8.6), height_ratios=(1, 1.6))
    left.plot(
        tightness["trials per side"],
        tightness["certified epsilon"],
        "o-",
        color=mechanism_color("laplace"),
        label=f"certified epsilon at delta = 0 ({confidence:.0%})",
    )
    left.axhline(epsilon, color="grey", lw=1, label="true epsilon")
    left.axhline(share * epsilon, color="grey", ls="--", lw=1, label=f"{share:.0%} of it")
    left.set(xscale="log", xlabel="trials per side", ylabel="epsilon", ylim=(0, 1.1 * epsilon))
    left.legend(loc="lower right")
    colors = epsilon_colors(epsilons)
    order = sorted(colors)
    # each epsilon a row of its own inside the mechanism's band: position as well as colour
    offset = {e: 0.3 - 0.6 * i / max(len(order) - 1, 1) for i, e in enumerate(order)}
    rows = {name: i for i, name in enumerate(REGISTRY)}
    fraction = profiles.set_index(["mechanism", "epsilon", "measured on"])["fraction reached"]
    for (name, eps, on), value in fraction.items():
        if on != "-":
            y = -rows[name] + offset[float(eps)]
            right.plot(value, y, "o" if on == "delta" else "s", color=colors[eps], ms=5)
    labels = [REGISTRY[n].label.replace(" (", "\n(") for n in rows]  # the top keeps its room
    right.set_yticks([-i for i in rows.values()], labels)
    right.set(
        xlabel="fraction of the exact value reached\n(circle: delta, square: epsilon)",
        xlim=(0, 1.03),
    )
    right.legend(
        handles=[
            plt.Line2D([], [], marker="o", ls="", color=colors[e], label=f"epsilon = {e:g}")
            for e in order
        ],
        title="top to bottom in each row",
        loc="lower left",
    )
    fig.tight_layout()
    return fig


#: How a classifier's yardsticks are drawn (horizontal rules): the non-private baseline
#: black, the majority class and the cell-majority ceiling grey, each its own dash pattern.
YARDSTICK_STYLES: dict[str, dict] = {
    "baseline": {"color": "black", **CURVE_STYLES["baseline"]},
    "majority": {"color": "grey", **CURVE_STYLES["exact"]},
    "ceiling": {"color": "grey", **CURVE_STYLES["exact + floor"]},
}


def accuracy_panels(
    fig, results: pd.DataFrame, metric: str, *, ylabel: str, rules: dict[str, tuple[str, str]]
) -> None:
    """One panel per dataset of ``metric`` (+- 1 standard error, column ``<metric>_se``)
    against epsilon (log scale), one curve per mechanism in its colour, marker and line
    style; a horizontal rule per yardstick; panels two to a row (:func:`panel_axes`) and
    one legend (:func:`panel_legend`).

    ``results`` has columns ``dataset``, ``mechanism``, ``epsilon``, ``metric``,
    ``<metric>_se`` and the yardsticks' columns (constant within a dataset). ``rules`` maps
    a yardstick's column to its legend label and a style of :data:`YARDSTICK_STYLES`
    (``{"baseline_accuracy": ("non-private baseline", "baseline")}``).
    """
    needed = ["dataset", "mechanism", "epsilon", metric, f"{metric}_se", *rules]
    missing = [c for c in needed if c not in results.columns]
    if missing:
        raise ValueError(f"results lacks the column(s) {missing}")
    unknown = [style for _, style in rules.values() if style not in YARDSTICK_STYLES]
    if unknown:
        raise ValueError(f"rules: unknown style(s) {unknown}; known: {sorted(YARDSTICK_STYLES)}")
    names = list(dict.fromkeys(results["dataset"]))
    axes, free = panel_axes(fig, len(names), row_height=3.2)
    epsilons = sorted(results["epsilon"].unique())
    for ax, name in zip(axes, names, strict=True):
        part = results[results["dataset"] == name]
        for mech, m in part.groupby("mechanism", sort=False):
            ax.errorbar(m["epsilon"], m[metric], yerr=m[f"{metric}_se"], capsize=2, ms=4,
                        marker=mechanism_marker(mech), ls=mechanism_linestyle(mech),
                        color=mechanism_color(mech), label=MECHANISM_LABELS[mech])  # fmt: skip
        for column, (label, style) in rules.items():
            ax.axhline(part[column].iloc[0], label=label, **YARDSTICK_STYLES[style])
        ax.set(xscale="log", xlabel=f"epsilon ({dataset_label(name)})", ylabel=ylabel)
        ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
        ax.minorticks_off()
    panel_legend(fig, axes[0].get_legend_handles_labels()[0], free=free)


#: How the paper's printed values are drawn beside a mechanism's curve: the mechanism's own
#: marker, hollow and larger, so a printed value is matched to its mechanism by shape.
PRINTED_MARK = {"ls": "none", "mfc": "none", "ms": 8, "mew": 1.4}


def release_curves(
    ax, table: pd.DataFrame, stat: str, *, references: dict[str, str], mechanisms=None
) -> None:
    """Per mechanism of ``table`` (a data-release table: columns ``mechanism``, ``epsilon``,
    ``stat``, ``<stat>_lo``, ``<stat>_hi``, ``paper_<stat>`` and the ``references``): ours
    as a solid line with the mechanism's marker and a band for the interval, each reference
    column in its kind of curve (``{"alpha_exact": "exact"}``, see :data:`CURVE_STYLES`),
    and the paper's printed values as the mechanism's marker, hollow (:data:`PRINTED_MARK`).
    ``mechanisms`` restricts and orders the mechanisms drawn (default: all, in order)."""
    needed = ["mechanism", "epsilon", stat, f"{stat}_lo", f"{stat}_hi", f"paper_{stat}",
              *references]  # fmt: skip
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks the column(s) {missing}")
    for kind in references.values():
        curve_style(kind)  # raises on an unknown kind
    names = list(dict.fromkeys(table["mechanism"])) if mechanisms is None else list(mechanisms)
    for mech in names:
        t, color, marker = (
            table[table["mechanism"] == mech],
            mechanism_color(mech),
            mechanism_marker(mech),
        )
        ax.plot(t["epsilon"], t[stat], color=color, marker=marker, label=MECHANISM_LABELS[mech])
        ax.fill_between(t["epsilon"], t[f"{stat}_lo"], t[f"{stat}_hi"], color=color,
                        alpha=0.25, lw=0)  # fmt: skip
        for column, kind in references.items():
            ax.plot(t["epsilon"], t[column], color=color, **curve_style(kind))
        ax.plot(t["epsilon"], t[f"paper_{stat}"], color=color, marker=marker, **PRINTED_MARK)


def release_handles(kinds: Sequence[str], *, labels: Sequence[str] = ()) -> list:
    """Legend handles, in black, for the curves of :func:`release_curves`: "ours", the
    reference ``kinds`` (labelled by ``labels`` if given), and "paper (hollow marker)"."""
    from matplotlib.lines import Line2D

    names = list(labels) or list(kinds)
    if len(names) != len(kinds):
        raise ValueError(f"labels: {len(names)} given for {len(kinds)} kinds of curve")
    return [
        Line2D([], [], color="black", label="ours"),
        *(Line2D([], [], color="black", label=n, **curve_style(k)) for k, n in zip(kinds, names)),
        Line2D([], [], color="black", marker="o", label="paper (hollow marker)", **PRINTED_MARK),
    ]


def panel_axes(fig, n: int, *, ncols: int = 2, row_height: float = 2.8, **subplot_kw):
    """``n`` panels on ``fig`` in rows of at most ``ncols``, the figure resized to
    :data:`COLUMN_WIDTH` by ``row_height`` inches a row, so that its text stays as large as
    the body text. Returns the ``n`` axes (a list, row by row) and the free slot of the last
    row (a ``SubplotSpec`` for :func:`panel_legend`, or None when the rows are full). With
    ``sharex``, a panel with no panel below it keeps its tick labels."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if not isinstance(ncols, int) or ncols < 1:
        raise ValueError(f"ncols must be a positive integer, got {ncols!r}")
    rows, cols = -(-n // ncols), min(ncols, n)
    fig.set_size_inches(COLUMN_WIDTH, rows * row_height)
    grid = list(fig.subplots(rows, cols, squeeze=False, **subplot_kw).flat)
    axes, spares = grid[:n], grid[n:]
    free = spares[0].get_subplotspec() if spares else None
    for ax in spares:
        fig.delaxes(ax)
    for i, ax in enumerate(axes):
        if i + cols >= n:  # nothing below it
            ax.xaxis.set_tick_params(labelbottom=True)
    return axes, free


def panel_legend(fig, handles: list, *, free=None, ncol: int = 2) -> None:
    """One legend for all panels, then the layout: in the ``free`` slot of
    :func:`panel_axes` if there is one and the legend fits it, else below the panels in at
    most ``ncol`` columns (fewer where the labels would not fit the figure's width), read
    row by row in the order of ``handles``."""
    from matplotlib.lines import Line2D

    fig.tight_layout()
    if free is not None:
        box = free.get_position(fig)
        legend = fig.legend(handles=handles, loc="center", bbox_to_anchor=box.bounds,
                            frameon=False)  # fmt: skip
        extent = legend.get_window_extent().transformed(fig.transFigure.inverted())
        if extent.width <= box.width * 1.15 and extent.height <= box.height * 1.1:
            return
        legend.remove()
    width = fig.get_figwidth() * fig.dpi - 24  # a tight bounding box pads 0.1 in a side
    for cols in range(min(ncol, len(handles)), 0, -1):
        rows = -(-len(handles) // cols)
        padded = handles + [Line2D([], [], alpha=0, label=" ")] * (rows * cols - len(handles))
        ordered = [padded[r * cols + c] for c in range(cols) for r in range(rows)]
        legend = fig.legend(handles=ordered, loc="lower center", ncol=cols, frameon=False)
        if legend.get_window_extent().width <= width or cols == 1:
            break
        legend.remove()
    height = legend.get_window_extent().height / (fig.get_figheight() * fig.dpi)
    fig.tight_layout(rect=(0, min(height + 0.01, 0.5), 1, 1))


# ------------------------------------------------------------ sweeps of chapters 05 and 07
#: How the traditional (non-private) curves of a sweep are drawn, in the order they are
#: named: black solid first, then grey dotted (told apart by dash as well as shade).
TRADITIONAL_STYLES: tuple[dict, ...] = (
    {"color": "black", "ls": "-", "lw": 1.8},
    {"color": "0.45", "ls": (0, (1.2, 2)), "lw": 1.8},
)
#: How the units of DP swapping are drawn, in the order they appear: the first solid with
#: filled markers, the second dashed with open markers.
UNIT_STYLES: tuple[dict, ...] = (
    {"ls": "-", "fill": True},
    {"ls": (0, (6, 3)), "fill": False},
)


def _sweep_columns(sweep: pd.DataFrame, columns: Sequence[str]) -> None:
    """TypeError unless ``sweep`` is a DataFrame; ValueError if it is empty or lacks one of
    ``columns`` (named)."""
    if not isinstance(sweep, pd.DataFrame):
        raise TypeError(f"sweep must be a pandas DataFrame, got {type(sweep).__name__}")
    if sweep.empty:
        raise ValueError("sweep is empty")
    missing = [c for c in columns if c not in sweep.columns]
    if missing:
        raise ValueError(f"sweep has no column {missing[0]!r}; columns: {list(sweep.columns)}")


def plot_cell_suppression_sweep(
    fig,
    sweep: pd.DataFrame,
    metric: str,
    ylabel: str,
    *,
    traditional: Sequence[str] = ("cell_suppression",),
    exact: str | None = None,
) -> None:
    """A grid of panels of ``metric`` (+- its ``_se`` column as a band) against k: one row
    per dataset, one column per variant of DP cell suppression.

    ``sweep`` concatenates :func:`dadp_lite.experiments.cell_suppression_sweep` outputs with
    a ``dataset`` column. DP cell suppression is drawn one colour and one marker per
    epsilon; ``exact`` names a column of exact values drawn dashed in the same colour;
    each mechanism of ``traditional`` (no epsilon, the same in every column) is drawn in
    :data:`TRADITIONAL_STYLES`. The figure is resized to the column
    (:func:`panel_axes`); one legend below the panels (:func:`panel_legend`).
    """
    needed = ["dataset", "mechanism", "variant", "epsilon", "k", metric, metric + "_se"]
    _sweep_columns(sweep, needed + ([exact] if exact else []))
    if len(traditional) > len(TRADITIONAL_STYLES):
        raise ValueError(f"traditional: at most {len(TRADITIONAL_STYLES)} mechanisms")
    dp = sweep[sweep["mechanism"] == "dp_cell_suppression"]
    if dp.empty:
        raise ValueError("sweep has no row of dp_cell_suppression")
    names = list(dict.fromkeys(sweep["dataset"]))
    variants = list(dict.fromkeys(dp["variant"]))
    epsilons = sorted(dp["epsilon"].unique())
    colors, markers = epsilon_colors(epsilons), epsilon_markers(epsilons)
    grid, _ = panel_axes(fig, len(names) * len(variants), ncols=len(variants),
                         row_height=2.5, sharex=True)  # fmt: skip
    axes = np.array(grid).reshape(len(names), len(variants))
    for (r, name), (c, variant) in product(enumerate(names), enumerate(variants)):
        ax = axes[r, c]
        for eps in epsilons:
            d = dp[(dp["dataset"] == name) & (dp["variant"] == variant) & (dp["epsilon"] == eps)]
            label = f"{MECHANISM_LABELS['dp_cell_suppression']}, epsilon = {eps:g}"
            errorband(ax, d["k"], d[metric], d[metric + "_se"], label=label,
                      color=colors[eps], marker=markers[eps], ms=3.5)  # fmt: skip
            if exact:
                ax.plot(d["k"], d[exact], color=colors[eps], lw=1, **curve_style("exact"))
        for mechanism, style in zip(traditional, TRADITIONAL_STYLES):
            t = sweep[(sweep["dataset"] == name) & (sweep["mechanism"] == mechanism)]
            ax.plot(t["k"], t[metric], label=MECHANISM_LABELS[mechanism], **style)
        ax.set_ylabel(f"{dataset_label(name)}: {ylabel}")
        if r == 0:  # the column's variant above its first panel (captions, not titles)
            ax.text(0.02, 1.03, variant.replace("_", " "), transform=ax.transAxes)
        if r == len(names) - 1:
            ax.set_xlabel("k (records)")
    handles = axes[0, 0].get_legend_handles_labels()[0]
    if exact:
        handles += curve_handles(["ours", "exact"], labels=["empirical", "exact"])
    panel_legend(fig, handles)


def plot_swapping_sweep(fig, sweep: pd.DataFrame, metric: str, ylabel: str) -> None:
    """One panel per dataset of ``metric`` (+- its ``_se`` column) against the fraction of
    records whose QI value is redrawn, on a symmetric log scale.

    ``sweep`` concatenates :func:`dadp_lite.experiments.swapping_sweep` outputs with a
    ``dataset`` column. Traditional swapping is a black band over its swap rates; DP
    swapping is one line per unit (:data:`UNIT_STYLES`: solid with filled markers, dashed
    with open markers) through one point per epsilon, each epsilon with its own colour and
    marker. Panels two to a row (:func:`panel_axes`) and one legend (:func:`panel_legend`).
    """
    from matplotlib.lines import Line2D

    _sweep_columns(sweep, ["dataset", "mechanism", "unit", "epsilon", "fraction", metric,
                           metric + "_se"])  # fmt: skip
    dp = sweep[sweep["mechanism"] == "dp_swapping"]
    if dp.empty:
        raise ValueError("sweep has no row of dp_swapping")
    units = list(dict.fromkeys(dp["unit"]))
    if len(units) > len(UNIT_STYLES):
        raise ValueError(f"sweep: at most {len(UNIT_STYLES)} units of DP swapping")
    names = list(dict.fromkeys(sweep["dataset"]))
    epsilons = sorted(dp["epsilon"].unique())
    colors, markers = epsilon_colors(epsilons), epsilon_markers(epsilons)
    axes, free = panel_axes(fig, len(names), row_height=3.0, sharey=True)
    for ax, name in zip(axes, names, strict=True):
        trad = sweep[(sweep["dataset"] == name) & (sweep["mechanism"] == "swapping")]
        errorband(ax, trad["fraction"], trad[metric], trad[metric + "_se"],
                  label=MECHANISM_LABELS["swapping"], color="black", lw=1.8)  # fmt: skip
        for unit, style in zip(units, UNIT_STYLES):
            d = dp[(dp["dataset"] == name) & (dp["unit"] == unit)].sort_values("fraction")
            ax.plot(d["fraction"], d[metric], color="0.35", ls=style["ls"], lw=1, zorder=1)
            for row in d.itertuples():
                color = colors[row.epsilon]
                ax.errorbar(row.fraction, getattr(row, metric), yerr=getattr(row, metric + "_se"),
                            fmt=markers[row.epsilon], color=color, ms=6, zorder=2,
                            mfc=color if style["fill"] else "none")  # fmt: skip
        ax.set(xlabel="fraction of records\nwhose QI is redrawn", yscale="symlog", xlim=(0, 1.02))
        ax.text(0.0, 1.03, dataset_label(name, kind="long"), transform=ax.transAxes)
    for ax in axes[::2]:
        ax.set_ylabel(ylabel)
    handles = [axes[0].get_legend_handles_labels()[0][0]]
    handles += [Line2D([], [], color="0.35", ls=s["ls"], marker="o", mec="0.35",
                       mfc="0.35" if s["fill"] else "none",
                       label=f"{MECHANISM_LABELS['dp_swapping']}, per {u}")
                for u, s in zip(units, UNIT_STYLES)]  # fmt: skip
    handles += [Line2D([], [], ls="none", marker=markers[e], color=colors[e],
                       label=f"epsilon = {e:g}") for e in epsilons]  # fmt: skip
    panel_legend(fig, handles, free=free, ncol=len(units) + 1)
