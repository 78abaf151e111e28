"""One figure style for the whole book, and a few helpers.

Colours are fixed per mechanism (Okabe-Ito palette, colour-blind safe) so the same mechanism
has the same colour in every figure; epsilons get a sequential palette. Chapters never set
titles: captions live in the cell metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np

__all__ = [
    "MECHANISM_COLORS",
    "MECHANISM_LABELS",
    "epsilon_colors",
    "errorband",
    "mechanism_color",
    "use_style",
]

MECHANISM_COLORS: dict[str, str] = {
    "laplace": "#0072B2",
    "discrete_gaussian": "#56B4E9",
    "cell_suppression": "#D55E00",
    "dp_cell_suppression": "#D55E00",
    "swapping": "#009E73",
    "dp_swapping": "#009E73",
    "k_anonymity": "#CC79A7",
    "dp_k_anonymity": "#CC79A7",
    "baseline": "#000000",
    "bound": "#E69F00",
    "exact": "#000000",
}

MECHANISM_LABELS: dict[str, str] = {
    "laplace": "Laplace",
    "discrete_gaussian": "discrete Gaussian",
    "cell_suppression": "cell suppression",
    "dp_cell_suppression": "DP cell suppression",
    "swapping": "swapping",
    "dp_swapping": "DP swapping",
    "k_anonymity": "k-anonymity",
    "dp_k_anonymity": "DP k-anonymity",
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
