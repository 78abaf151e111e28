"""dadp_lite.plotting: one figure style, and no series told apart by colour alone."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from dadp_lite import plotting  # noqa: E402
from dadp_lite.registry import REGISTRY  # noqa: E402


def test_every_mechanism_has_its_own_marker_and_line_style_in_registry_order():
    names = list(REGISTRY)
    markers = [plotting.mechanism_marker(n) for n in names]
    styles = [plotting.mechanism_linestyle(n) for n in names]
    assert len(set(markers)) == min(len(names), len(plotting.MARKERS))
    assert markers[0] == plotting.MARKERS[0] and styles[0] == "-"
    assert len({str(s) for s in styles[: len(plotting.LINESTYLES)]}) == len(plotting.LINESTYLES)
    with pytest.raises(ValueError, match="unknown mechanism"):
        plotting.mechanism_marker("nope")
    with pytest.raises(ValueError, match="unknown mechanism"):
        plotting.mechanism_linestyle("nope")


def test_epsilons_differ_in_marker_as_well_as_shade():
    epsilons = [4.0, 0.5, 2.0, 1.0]
    markers = plotting.epsilon_markers(epsilons)
    colors = plotting.epsilon_colors(epsilons)
    assert set(markers) == set(colors) == {0.5, 1.0, 2.0, 4.0}
    assert len(set(markers.values())) == 4 and markers[0.5] == plotting.MARKERS[0]


def test_kinds_of_curve_differ_in_dash_or_marker_and_make_legend_handles():
    styles = {k: (str(v.get("ls")), v.get("marker")) for k, v in plotting.CURVE_STYLES.items()}
    for a, b in (("ours", "exact"), ("exact", "baseline"), ("exact", "exact + floor")):
        assert styles[a] != styles[b], (a, b)
    assert plotting.curve_style("paper")["marker"] == "x"
    handles = plotting.curve_handles(["ours", "exact", "paper"], labels=["ours", "exact", "paper"])
    assert [h.get_label() for h in handles] == ["ours", "exact", "paper"]
    with pytest.raises(ValueError, match="kind of curve"):
        plotting.curve_style("nope")
    with pytest.raises(ValueError, match="labels"):
        plotting.curve_handles(["ours"], labels=["a", "b"])


def test_the_style_draws_legend_handles_long_enough_for_a_dash_pattern():
    plotting.use_style()
    assert matplotlib.rcParams["legend.handlelength"] >= 3


def test_k_anonymity_sweep_marks_each_epsilon_with_its_own_marker():
    rows = [dict(dataset="ma2019", mechanism="k_anonymity", epsilon=np.nan, k=k,
                 l1_error=1.0 * k, l1_error_se=0.1) for k in (2, 6)]  # fmt: skip
    rows += [dict(dataset="ma2019", mechanism="dp_k_anonymity", epsilon=e, k=k,
                  l1_error=e + k, l1_error_se=0.1)
             for e in (0.5, 1.0, 4.0) for k in (2, 6)]  # fmt: skip
    fig = plt.figure()
    plotting.plot_k_anonymity_sweep(fig, pd.DataFrame(rows), "l1_error", "L1 error")
    markers = {line.get_label(): line.get_marker() for line in fig.axes[0].get_lines()}
    dp = [m for label, m in markers.items() if "epsilon" in label]
    assert len(dp) == 3 and len(set(dp)) == 3
    plt.close(fig)


def _audit_frames():
    """Small profiles and curves frames with the columns the audit figures read."""
    rows, curve_rows = [], []
    for name, entry in REGISTRY.items():
        for i, eps in enumerate((0.5, 1.0, 2.0)):
            rows.append(
                {
                    "mechanism": name,
                    "epsilon": eps,
                    "exact": 0.5,
                    "printed": 0.4,
                    "reading": np.nan,
                    "delta_lower_figure": 0.3,
                    "delta_estimate_figure": 0.35,
                    "fraction reached": 0.6,
                    "measured on": ("delta", "epsilon", "-")[i],
                }
            )
            if entry.private:
                curve_rows.append({k: rows[-1][k] for k in ("mechanism", "epsilon", "exact")})
                curve_rows[-1] |= {"printed": 0.4, "reading": 0.45}
    return pd.DataFrame(rows), pd.DataFrame(curve_rows)


def test_privacy_profiles_draw_a_panel_per_mechanism_and_a_legend_of_distinct_styles():
    profiles, curves = _audit_frames()
    fig = plotting.plot_privacy_profiles(profiles, curves, epsilons=[0.5, 2.0], confidence=0.95)
    assert len(fig.axes) == len(REGISTRY)
    assert fig.get_figwidth() == plotting.COLUMN_WIDTH
    handles = fig.legends[0].legend_handles
    styles = {(h.get_linestyle(), h.get_marker(), h.get_color()) for h in handles}
    assert len(handles) == 4 and len(styles) == 4  # exact, printed, reading, audited
    plt.close(fig)


def test_audit_tightness_sets_each_epsilon_at_its_own_height():
    profiles, _ = _audit_frames()
    tightness = pd.DataFrame({"trials per side": [1000, 10000], "certified epsilon": [0.5, 0.9]})
    fig = plotting.plot_audit_tightness(
        tightness, profiles, epsilon=1.0, share=0.8, confidence=0.95, epsilons=[0.5, 1.0, 2.0]
    )
    right = fig.axes[1]
    points = [(line.get_ydata()[0], line.get_marker()) for line in right.get_lines()]
    assert len(points) == 2 * len(REGISTRY)  # the "-" rows are left out
    first = [y for y, _ in points[:2]]
    assert first[0] != first[1]  # two epsilons of one mechanism: two heights
    assert {m for _, m in points} == {"o", "s"}


def _accuracy_results():
    rows = [dict(dataset=d, mechanism=m, epsilon=e, accuracy=0.7, accuracy_se=0.01,
                 baseline_accuracy=0.72, majority_rate=0.62)
            for d in ("ma2019", "tx2019") for m in ("laplace", "dp_swapping")
            for e in (0.5, 4.0)]  # fmt: skip
    return pd.DataFrame(rows)


def test_accuracy_panels_tell_mechanisms_and_yardsticks_apart_without_colour():
    fig = plt.figure()
    rules = {"baseline_accuracy": ("non-private baseline", "baseline"),
             "majority_rate": ("majority class", "majority")}  # fmt: skip
    plotting.accuracy_panels(fig, _accuracy_results(), "accuracy", ylabel="accuracy",
                             rules=rules)  # fmt: skip
    assert len(fig.axes) == 2
    handles, labels = fig.axes[0].get_legend_handles_labels()
    lines = {label: getattr(h, "lines", [h])[0] for h, label in zip(handles, labels)}
    lap, sw = lines["Laplace"], lines["DP swapping"]
    dashes = lambda line: line._unscaled_dash_pattern  # noqa: E731 - matplotlib's own record
    assert lap.get_marker() != sw.get_marker() and dashes(lap) != dashes(sw)
    base, majority = lines["non-private baseline"], lines["majority class"]
    assert dashes(base) != dashes(majority)
    assert base.get_ydata()[0] == 0.72 and majority.get_ydata()[0] == 0.62
    plt.close(fig)


def test_accuracy_panels_refuse_a_missing_column_or_style():
    fig = plt.figure()
    with pytest.raises(ValueError, match="ceiling"):
        plotting.accuracy_panels(fig, _accuracy_results(), "accuracy", ylabel="a",
                                 rules={"ceiling": ("ceiling", "ceiling")})  # fmt: skip
    with pytest.raises(ValueError, match="unknown style"):
        plotting.accuracy_panels(fig, _accuracy_results(), "accuracy", ylabel="a",
                                 rules={"majority_rate": ("m", "dotted")})  # fmt: skip
    plt.close(fig)


def _release_table():
    rows = [dict(mechanism=m, epsilon=e, alpha=2.0, alpha_lo=1.5, alpha_hi=2.5,
                 alpha_exact=1.8, paper_alpha=2.2)
            for m in ("laplace", "discrete_gaussian") for e in (0.5, 1.0)]  # fmt: skip
    return pd.DataFrame(rows)


def test_release_curves_match_the_papers_values_to_their_mechanism_by_shape():
    fig, ax = plt.subplots()
    plotting.release_curves(ax, _release_table(), "alpha", references={"alpha_exact": "exact"})
    printed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "None"]
    assert len(printed) == 2
    shapes = [ln.get_marker() for ln in printed]
    assert shapes == [plotting.mechanism_marker(m) for m in ("laplace", "discrete_gaussian")]
    assert len(set(shapes)) == 2 and all(ln.get_markerfacecolor() == "none" for ln in printed)
    assert list(printed[0].get_ydata()) == [2.2, 2.2]
    handles = plotting.release_handles(["exact"])
    assert [h.get_label() for h in handles] == ["ours", "exact", "paper (hollow marker)"]
    plt.close(fig)


def test_release_curves_refuse_a_missing_column_or_kind():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="alpha_floor"):
        plotting.release_curves(ax, _release_table(), "alpha", references={"alpha_floor": "exact"})
    with pytest.raises(ValueError, match="unknown kind"):
        plotting.release_curves(ax, _release_table(), "alpha", references={"alpha_exact": "wavy"})


def _cell_suppression_sweep(datasets=("ma2019", "tx2019"), epsilons=(0.5, 2.0)) -> pd.DataFrame:
    """A small sweep in the shape of ``experiments.cell_suppression_sweep`` (+ dataset)."""
    rows = []
    for name in datasets:
        for k in (2, 4, 6):
            for mechanism in ("cell_suppression", "cell_suppression_main_text"):
                rows.append(dict(dataset=name, mechanism=mechanism, variant="traditional",
                                 epsilon=np.nan, k=k, l1_error=k, l1_error_se=0.0,
                                 alpha_exact=np.nan))  # fmt: skip
            for variant in ("per_cell", "noisy_threshold"):
                for e in epsilons:
                    rows.append(dict(dataset=name, mechanism="dp_cell_suppression",
                                     variant=variant, epsilon=e, k=k, l1_error=k + 1 / e,
                                     l1_error_se=0.1, alpha_exact=k))  # fmt: skip
    return pd.DataFrame(rows)


def test_cell_suppression_sweep_draws_a_panel_per_dataset_and_variant_without_colour_only():
    sweep = _cell_suppression_sweep(epsilons=(0.5, 1.0, 2.0))
    fig = plt.figure()
    plotting.plot_cell_suppression_sweep(
        fig, sweep, "l1_error", "L1 error",
        traditional=("cell_suppression", "cell_suppression_main_text"), exact="alpha_exact",
    )  # fmt: skip
    assert len(fig.axes) == 4  # 2 datasets x 2 variants
    assert [t.get_text() for t in fig.axes[0].texts] == ["per cell"]
    assert [t.get_text() for t in fig.axes[1].texts] == ["noisy threshold"]
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    dp = [line for label, line in lines.items() if "epsilon" in label]
    assert len(dp) == 3 and len({line.get_marker() for line in dp}) == 3
    trad = [lines["cell suppression"], lines["cell suppression (main text)"]]
    assert trad[0].get_linestyle() != trad[1].get_linestyle()  # dash as well as shade
    exact = [line for line in fig.axes[0].get_lines() if line.get_label().startswith("_")]
    assert len(exact) == 3 and all(line.get_linestyle() == "--" for line in exact)
    legend = [t.get_text() for t in fig.legends[0].get_texts() if t.get_text().strip()]
    assert "empirical" in legend and "exact" in legend and len(legend) == 3 + 2 + 2
    plt.close(fig)


def test_cell_suppression_sweep_rejects_bad_input_by_name():
    sweep = _cell_suppression_sweep()
    fig = plt.figure()
    with pytest.raises(TypeError, match="sweep must be a pandas DataFrame"):
        plotting.plot_cell_suppression_sweep(fig, sweep.to_dict(), "l1_error", "L1")
    with pytest.raises(ValueError, match="sweep is empty"):
        plotting.plot_cell_suppression_sweep(fig, sweep.iloc[:0], "l1_error", "L1")
    with pytest.raises(ValueError, match="no column 'alpha'"):
        plotting.plot_cell_suppression_sweep(fig, sweep, "alpha", "alpha")
    with pytest.raises(ValueError, match="'nope'"):
        plotting.plot_cell_suppression_sweep(fig, sweep, "l1_error", "L1", exact="nope")
    with pytest.raises(ValueError, match="traditional: at most 2"):
        plotting.plot_cell_suppression_sweep(fig, sweep, "l1_error", "L1", traditional=("a",) * 3)
    only_trad = sweep[sweep["mechanism"] != "dp_cell_suppression"]
    with pytest.raises(ValueError, match="no row of dp_cell_suppression"):
        plotting.plot_cell_suppression_sweep(fig, only_trad, "l1_error", "L1")
    plt.close(fig)


def _swapping_sweep(units=("cell", "record"), epsilons=(0.5, 2.0)) -> pd.DataFrame:
    """A small sweep in the shape of ``experiments.swapping_sweep`` (+ dataset)."""
    rows = []
    for name in ("ma2019", "tx2019", "national2019"):
        rows += [dict(dataset=name, mechanism="swapping", unit="-", epsilon=np.nan,
                      fraction=f, l1_error=10 * f, l1_error_se=1.0)
                 for f in (0.2, 1.0)]  # fmt: skip
        rows += [dict(dataset=name, mechanism="dp_swapping", unit=u, epsilon=e,
                      fraction=1 / (1 + e), l1_error=1000 / e, l1_error_se=5.0)
                 for u in units for e in epsilons]  # fmt: skip
    return pd.DataFrame(rows)


def test_swapping_sweep_tells_units_by_dash_and_fill_and_epsilons_by_marker():
    fig = plt.figure()
    plotting.plot_swapping_sweep(fig, _swapping_sweep(epsilons=(0.5, 1.0, 4.0)), "l1_error", "L1")
    assert len(fig.axes) == 3 and all(ax.get_yscale() == "symlog" for ax in fig.axes)
    legend = fig.legends[0]  # in the free fourth slot, one column: the order of the handles
    handles = [h for h in legend.legend_handles if h.get_label().strip()]
    labels = [h.get_label() for h in handles]
    assert labels[:3] == ["swapping", "DP swapping, per cell", "DP swapping, per record"]
    cell, record = handles[1], handles[2]
    assert cell.get_linestyle() != record.get_linestyle()
    assert cell.get_markerfacecolor() != record.get_markerfacecolor()
    eps_markers = [h.get_marker() for h in handles[3:]]
    assert labels[3:] == ["epsilon = 0.5", "epsilon = 1", "epsilon = 4"]
    assert len(set(eps_markers)) == 3
    plt.close(fig)


def test_swapping_sweep_rejects_bad_input_by_name():
    fig = plt.figure()
    with pytest.raises(ValueError, match="at most 2 units"):
        plotting.plot_swapping_sweep(fig, _swapping_sweep(units=("a", "b", "c")), "l1_error", "L1")
    with pytest.raises(ValueError, match="'alpha'"):
        plotting.plot_swapping_sweep(fig, _swapping_sweep(), "alpha", "alpha")
    sweep = _swapping_sweep()
    with pytest.raises(ValueError, match="no row of dp_swapping"):
        plotting.plot_swapping_sweep(fig, sweep[sweep["mechanism"] == "swapping"], "l1_error", "L1")
    with pytest.raises(TypeError, match="DataFrame"):
        plotting.plot_swapping_sweep(fig, [1, 2], "l1_error", "L1")
    plt.close(fig)


# ------------------------------------------------------- the column width and panel grid
#: The text column of a chapter page at a 1,280 px window (px): a wider PNG is scaled down.
COLUMN_PX = 672


def test_the_style_sets_no_text_below_its_minimum_and_fits_the_column():
    plotting.use_style()
    rc = matplotlib.rcParams
    keys = ["font.size", "axes.labelsize", "axes.titlesize", "xtick.labelsize",
            "ytick.labelsize", "legend.fontsize", "legend.title_fontsize"]  # fmt: skip
    sizes = {key: matplotlib.font_manager.FontProperties(size=rc[key]).get_size() for key in keys}
    assert min(sizes.values()) == plotting.MIN_TEXT_PT, sizes
    assert plotting.MIN_TEXT_PT * rc["figure.dpi"] / 72 >= 16  # the body text's 16 px
    assert plotting.COLUMN_WIDTH * rc["figure.dpi"] <= COLUMN_PX
    assert rc["figure.figsize"][0] <= plotting.COLUMN_WIDTH


def test_panel_axes_put_panels_two_to_a_row_in_a_figure_as_wide_as_the_column():
    fig = plt.figure()
    axes, free = plotting.panel_axes(fig, 3, row_height=2.5, sharex=True)
    assert len(axes) == len(fig.axes) == 3 and free is not None
    assert tuple(fig.get_size_inches()) == (plotting.COLUMN_WIDTH, 5.0)
    assert axes[1].xaxis.get_tick_params()["labelbottom"]  # nothing below it
    axes, free = plotting.panel_axes(plt.figure(), 4)
    assert len(axes) == 4 and free is None
    with pytest.raises(ValueError, match="n must be"):
        plotting.panel_axes(plt.figure(), 0)
    with pytest.raises(ValueError, match="ncols must be"):
        plotting.panel_axes(plt.figure(), 2, ncols=0)
    plt.close("all")


def test_panel_legend_goes_into_the_free_slot_or_below_within_the_width():
    from matplotlib.lines import Line2D

    fig = plt.figure()
    axes, free = plotting.panel_axes(fig, 3)
    plotting.panel_legend(fig, [Line2D([], [], label=f"eps {i}") for i in range(3)], free=free)
    box = free.get_position(fig)
    legend = fig.legends[0].get_window_extent().transformed(fig.transFigure.inverted())
    assert box.x0 <= legend.x0 and legend.x1 <= box.x1 and box.y0 <= legend.y0
    fig = plt.figure()
    axes, free = plotting.panel_axes(fig, 2)
    long = [Line2D([], [], label=f"a rather long legend label number {i}") for i in range(4)]
    plotting.panel_legend(fig, long, free=free, ncol=4)  # four columns would not fit
    legend = fig.legends[0]
    assert legend._ncols < 4
    assert legend.get_window_extent().width <= fig.get_figwidth() * fig.dpi
    top = legend.get_window_extent().y1 / (fig.get_figheight() * fig.dpi)
    assert axes[0].get_position().y0 > top  # below the panels
    plt.close("all")


def _png_width(fig) -> int:
    from io import BytesIO

    from PIL import Image

    buffer = BytesIO()
    fig.savefig(buffer, format="png", dpi=fig.dpi, bbox_inches="tight")
    plt.close(fig)
    return Image.open(buffer).size[0]


def test_the_shared_figures_are_never_wider_than_the_column():
    plotting.use_style()
    profiles, curves = _audit_frames()
    tightness = pd.DataFrame({"trials per side": [1000, 10000], "certified epsilon": [0.5, 0.9]})
    figures = {
        "profiles": plotting.plot_privacy_profiles(profiles, curves, epsilons=[0.5, 2.0],
                                                   confidence=0.95),
        "tightness": plotting.plot_audit_tightness(tightness, profiles, epsilon=1.0, share=0.8,
                                                   confidence=0.95, epsilons=[0.5, 1.0, 2.0]),
    }  # fmt: skip
    for name, draw, args in [
        ("swapping", plotting.plot_swapping_sweep, (_swapping_sweep(epsilons=(0.5, 1, 2, 4)),
                                                    "l1_error", "mean L1 error (records)")),
        ("cell suppression", plotting.plot_cell_suppression_sweep,
         (_cell_suppression_sweep(datasets=("ma2019", "tx2019", "national2019")), "l1_error",
          "L1 error")),
    ]:  # fmt: skip
        figures[name] = plt.figure()
        draw(figures[name], *args)
    wide = {name: px for name, fig in figures.items() if (px := _png_width(fig)) > COLUMN_PX}
    assert not wide, f"wider than the {COLUMN_PX} px column, scaled down: {wide}"
