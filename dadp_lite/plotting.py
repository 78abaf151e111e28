"""One figure style for the whole book, and a few helpers.

Colours are fixed per mechanism (the registry's Okabe-Ito palette, colour-blind safe) so the
same mechanism has the same colour in every figure; epsilons get a sequential palette.
Chapters never set titles: captions live in the cell metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dadp_lite.data import dataset_label
from dadp_lite.registry import REGISTRY

__all__ = [
    "MECHANISM_COLORS",
    "MECHANISM_LABELS",
    "epsilon_colors",
    "errorband",
    "mechanism_color",
    "plot_k_anonymity_sweep",
    "use_style",
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


def use_style() -> None:
    """Apply the book's matplotlib style (shipped as ``dadp.mplstyle``)."""
    style = resources.files("dadp_lite").joinpath("dadp.mplstyle")
    with resources.as_file(style) as path:
        plt.style.use(str(path))


def mechanism_color(name: str) -> str:
    """The fixed colour of a mechanism (ValueError for an unknown name)."""
    try:
        return MECHANISM_COLORS[name]
    except KeyError:
        raise ValueError(f"unknown mechanism {name!r}; known: {sorted(MECHANISM_COLORS)}") from None


def epsilon_colors(epsilons: Sequence[float]) -> dict[float, tuple]:
    """A sequential colour per epsilon (light = small epsilon, dark = large)."""
    cmap = mpl.colormaps["viridis"]
    positions = np.linspace(0.85, 0.1, len(epsilons)) if len(epsilons) > 1 else [0.4]
    return {float(e): cmap(p) for e, p in zip(sorted(epsilons), positions)}


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
    k-anonymity one colour per epsilon; one legend below the panels.
    """
    names = list(dict.fromkeys(sweep["dataset"]))
    axes = fig.subplots(1, len(names), squeeze=False)[0]
    epsilons = sorted(sweep["epsilon"].dropna().unique())
    colors = epsilon_colors(epsilons)
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
                marker="o",
                ms=3,
            )
        ks = sorted(part["k"].unique())
        ax.set(xscale="log", xlabel="k (minimum class size)", ylabel=ylabel)
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.minorticks_off()
        label = dataset_label(name)
        ax.text(0.03, 0.96, label, transform=ax.transAxes, va="top", weight="bold")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="lower center", ncol=len(labels), fontsize="small", frameon=False
    )
    fig.tight_layout(rect=(0, 0.08, 1, 1))
