"""dadp_lite.interactive: the Vega-Lite specs of the sweep charts, their HTML, the bundle."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("altair")

from dadp_lite.interactive import (  # noqa: E402
    BUNDLE_NAME,
    CHART_CLASS,
    FONT_PX,
    STYLE_NAME,
    InteractiveChart,
    bundle_version,
    sweep_chart,
    write_bundle,
)
from dadp_lite.interactive.data import number_text  # noqa: E402
from dadp_lite.registry import REGISTRY  # noqa: E402


def _sweep() -> pd.DataFrame:
    """A k-anonymity-like sweep: traditional rows have no epsilon."""
    rows = []
    for dataset in ("ma2019", "tx2019"):
        for k in (2, 6, 50):
            rows.append(dict(dataset=dataset, mechanism="k_anonymity", epsilon=np.nan, k=k,
                             l1_error=10.0 * k, l1_error_se=1.0,
                             l1_error_exact=9.5 * k))  # fmt: skip
            for eps in (0.5, 4.0):
                rows.append(dict(dataset=dataset, mechanism="dp_k_anonymity", epsilon=eps, k=k,
                                 l1_error=100.0 / eps + k, l1_error_se=2.0,
                                 l1_error_exact=100.0 / eps + k - 1))  # fmt: skip
    return pd.DataFrame(rows)


def _params(spec: dict) -> dict[str, dict]:
    return {p["name"]: p for p in spec.get("params", [])}


def _layers(spec: dict) -> list[dict]:
    return spec["layer"]


def _rows(spec: dict) -> list[dict]:
    return next(iter(spec["datasets"].values()))


def _layer(spec: dict, mark: str) -> dict:
    return next(layer for layer in _layers(spec) if layer["mark"]["type"] == mark)


def _filters(layer: dict) -> list[str]:
    return [t["filter"] for t in layer.get("transform", []) if "filter" in t]


def test_controls_are_dropdowns_bound_to_params_that_filter_the_data():
    chart = sweep_chart(_sweep(), x="k", y="l1_error", se="l1_error_se",
                        controls=["dataset", "epsilon"], x_scale="log")  # fmt: skip
    spec = chart.to_dict()
    params = _params(spec)
    assert set(params) == {"ctl_dataset", "ctl_epsilon"}
    dataset = params["ctl_dataset"]["bind"]
    assert dataset["input"] == "select" and dataset["options"] == ["MA", "TX"]
    epsilon = params["ctl_epsilon"]["bind"]
    assert epsilon["options"] == [0.5, 4.0] and epsilon["labels"] == ["0.5", "4"]
    assert params["ctl_epsilon"]["value"] == 0.5
    for layer in _layers(spec):  # every layer honours the dropdowns
        filters = " ".join(_filters(layer))
        assert "ctl_dataset" in filters and "ctl_epsilon" in filters
        # rows without an epsilon (traditional k-anonymity) pass whatever epsilon is chosen
        assert '!isValid(datum["epsilon"])' in filters


def test_all_option_offers_null_labelled_all():
    spec = sweep_chart(_sweep(), x="k", y="l1_error", controls=["dataset", "mechanism"],
                       all_option=["mechanism"]).to_dict()  # fmt: skip
    bind = _params(spec)["ctl_mechanism"]["bind"]
    assert bind["options"][0] is None and bind["labels"][0] == "all"
    assert bind["options"][1:] == [REGISTRY["k_anonymity"].label, REGISTRY["dp_k_anonymity"].label]


def test_tooltips_give_value_and_interval_and_the_band_uses_the_interval():
    spec = sweep_chart(_sweep(), x="k", y="l1_error", se="l1_error_se", z=2.0,
                       controls=["dataset", "epsilon"],
                       references={"l1_error_exact": "exact"}).to_dict()  # fmt: skip
    assert _layer(spec, "point")["encoding"]["tooltip"] == {"field": "tip", "type": "nominal"}
    row = next(r for r in _rows(spec) if r["series"] == "DP k-anonymity" and r["x"] == 2
               and r["kind"] == "estimate" and r["epsilon"] == 0.5)  # fmt: skip
    assert row["lower"] == pytest.approx(row["value"] - 4.0)
    assert row["upper"] == pytest.approx(row["value"] + 4.0)
    assert row["tip"] == {"mechanism": "DP k-anonymity", "epsilon": "0.5", "k": "2",
                          "dataset": "MA", "l1_error": "202", "±2 SE": "[198, 206]",
                          "exact": "201"}  # fmt: skip
    band = _layer(spec, "area")["encoding"]
    assert band["y"]["field"] == "lower" and band["y2"]["field"] == "upper"


def test_no_tooltip_shows_nan_a_missing_value_is_left_out_or_said_in_words():
    """Traditional rows have no epsilon, some rows no exact value, some no printed value:
    no tooltip field is NaN, empty or undefined; the paper's missing value is 'not printed'."""
    frame = _sweep().assign(paper=lambda f: np.where(f["k"] == 6, np.nan, 50.0))
    frame.loc[frame["k"] == 50, "l1_error_exact"] = np.nan
    frame.loc[frame["k"] == 2, "l1_error_se"] = np.nan
    spec = sweep_chart(frame, x="k", y="l1_error", se="l1_error_se",
                       controls=["dataset", "epsilon"], references={"l1_error_exact": "exact"},
                       printed="paper").to_dict()  # fmt: skip
    assert "NaN" not in json.dumps(spec) and "nan" not in json.dumps(_rows(spec)).lower()
    tips = [r["tip"] for r in _rows(spec) if "tip" in r]
    assert tips and all(v and isinstance(v, str) for tip in tips for v in tip.values())
    traditional = [r["tip"] for r in _rows(spec) if r["series"] == "k-anonymity" and "tip" in r]
    assert traditional and all("epsilon" not in tip for tip in traditional)
    assert all(tip["paper"] == "not printed" for tip in tips if tip["k"] == "6")
    assert all("exact" not in tip for tip in tips if tip["k"] == "50")
    assert all("±1 SE" not in tip for tip in tips if tip["k"] == "2")
    # the paper's values are crosses in the points layer, only where printed
    crosses = [r for r in _rows(spec) if r["kind"] == "paper"]
    assert crosses and {r["x"] for r in crosses} == {2, 50}
    assert _layer(spec, "point")["encoding"]["shape"]["condition"]["value"] == "cross"


def test_every_layer_reads_the_estimate_rows_so_none_is_ever_empty():
    """Vega warns 'Infinite extent' for a layer left empty by a dropdown (a mechanism with
    no exact value): the lines and points layers hold the estimate rows too."""
    frame = _sweep()
    frame.loc[frame["mechanism"] == "k_anonymity", "l1_error_exact"] = np.nan
    spec = sweep_chart(frame, x="k", y="l1_error", se="l1_error_se",
                       controls=["dataset", "mechanism"],
                       references={"l1_error_exact": "exact"}).to_dict()  # fmt: skip
    for layer in _layers(spec):
        kinds = [r["kind"] for r in _rows(spec) if _passes(" && ".join(_filters(layer)), r)]
        assert "estimate" in kinds, layer["mark"]
    assert {r["series"] for r in _rows(spec) if r["kind"] == "reference"} == {"DP k-anonymity"}


def _passes(expression: str, row: dict) -> bool:
    """The layers' kind filters (``datum.kind === 'x'``), ignoring the controls."""
    import re as _re

    kinds = _re.findall(r"datum\.kind === '(\w+)'", expression)
    if not kinds:
        return True
    negated = "!(datum.kind" in expression
    return (row["kind"] in kinds) != negated


def test_yardsticks_are_grey_dashed_lines_with_their_own_tooltip():
    frame = _sweep().assign(baseline=123.0)
    spec = sweep_chart(frame, x="k", y="l1_error", rules={"baseline": "non-private baseline"})
    spec = spec.to_dict()
    rules = [r for r in _rows(spec) if r["kind"] == "rule"]
    assert rules and all(r["tip"] == {"yardstick": "non-private baseline", "value": "123"}
                         for r in rules)  # fmt: skip
    line = _layer(spec, "line")["encoding"]
    assert line["color"]["condition"]["value"] == "#555555"
    assert line["strokeDash"]["scale"]["domain"] == ["ours", "non-private baseline"]
    dashes = line["strokeDash"]["scale"]["range"]
    assert dashes[0] != dashes[1]


def test_series_take_the_registry_colours_and_labels_unless_overridden():
    spec = sweep_chart(_sweep(), x="k", y="l1_error", colors={"k_anonymity": "black"}).to_dict()
    color = next(layer["encoding"]["color"] for layer in _layers(spec))
    scale = dict(zip(color["scale"]["domain"], color["scale"]["range"]))
    assert scale == {"k-anonymity": "black", "DP k-anonymity": REGISTRY["dp_k_anonymity"].color}


def test_shapes_follow_a_series_value_and_the_others_take_unused_shapes():
    frame = _sweep().assign(unit=lambda f: np.where(f["epsilon"] == 0.5, "cell", "record"))
    spec = sweep_chart(frame, x="k", y="l1_error", series=["mechanism", "unit"],
                       shapes={"cell": "circle", "record": "square"}).to_dict()  # fmt: skip
    shape = _layer(spec, "point")["encoding"]["shape"]
    marks = dict(zip(shape["scale"]["domain"], shape["scale"]["range"]))
    assert marks["DP k-anonymity, cell"] == "circle"
    assert marks["DP k-anonymity, record"] == "square"
    assert marks["k-anonymity, record"] == "square"
    plain = sweep_chart(_sweep(), x="k", y="l1_error").to_dict()
    shape = _layer(plain, "point")["encoding"]["shape"]["scale"]["range"]
    assert len(set(shape)) == len(shape) and "cross" not in shape  # crosses are the paper's
    with pytest.raises(ValueError, match="shapes"):
        sweep_chart(_sweep(), x="k", y="l1_error", shapes={"k_anonymity": "star"})


def test_the_page_carries_only_the_columns_it_draws():
    frame = _sweep().assign(unused=1.0, other="x")
    spec = sweep_chart(frame, x="k", y="l1_error", se="l1_error_se").to_dict()
    keys = {k for row in _rows(spec) for k in row}
    assert keys == {"series", "dataset", "x", "kind", "curve", "value", "lower", "upper", "tip"}


def test_the_chart_fills_its_column_and_has_a_title_and_a_description():
    spec = sweep_chart(_sweep(), x="k", y="l1_error", se="l1_error_se", x_title="k",
                       y_title="mean L1 error (records)", controls=["dataset", "epsilon"],
                       printed="l1_error_exact").to_dict()  # fmt: skip
    assert spec["width"] == "container"
    assert spec["autosize"]["type"] == "fit-x"
    title = spec["title"]
    assert "mean L1 error (records) against k" in title["text"]["expr"]
    assert "crosses" in title["subtitle"]
    description = spec["description"]
    for words in ("mean L1 error (records)", "k-anonymity", "DP k-anonymity", "dataset, epsilon"):
        assert words in description
    legend = _layer(spec, "line")["encoding"]["color"]["legend"]
    assert legend["orient"] == "bottom" and "width <" in legend["columns"]["expr"]
    given = sweep_chart(_sweep(), x="k", y="l1_error", title="T", description="D").to_dict()
    assert given["description"] == "D" and '"T"' in given["title"]["text"]["expr"]


#: The book's body text in px (the theme's 1rem; tests/test_browser.py measures it on the
#: page): no text of a chart may be smaller (issue 30).
BODY_TEXT_PX = 16


def _font_sizes(node, path: str = "") -> dict[str, float]:
    """Every ``...FontSize``/``fontSize`` value of a Vega-Lite spec, by its path."""
    found = {}
    if isinstance(node, dict):
        for key, value in node.items():
            if key.lower().endswith("fontsize"):
                found[f"{path}.{key}"] = value
            else:
                found |= _font_sizes(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found |= _font_sizes(value, f"{path}[{i}]")
    return found


def test_chart_text_is_as_large_as_the_body_text():
    spec = sweep_chart(_sweep(), x="k", y="l1_error", se="l1_error_se", controls=["dataset"],
                       printed="l1_error_exact").to_dict()  # fmt: skip
    sizes = _font_sizes(spec)
    axis, legend = ".config.axis.", ".config.legend.labelFontSize"
    titles = (".title.fontSize", ".title.subtitleFontSize")
    for key in (axis + "labelFontSize", axis + "titleFontSize", legend, *titles):
        assert key in sizes, f"{key} not set: {sorted(sizes)}"
    small = {key: size for key, size in sizes.items() if size < BODY_TEXT_PX}
    assert not small, f"chart text below {BODY_TEXT_PX} px: {small}"
    assert FONT_PX >= BODY_TEXT_PX


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.0, "0"), (0.5, "0.5"), (4.0, "4"), (12.3456, "12.35"), (12345.6, "12,346"),
     (-0.001234, "-0.001234"), (1.5e-5, "1.5 × 10⁻⁵")],
)  # fmt: skip
def test_numbers_in_tooltips_are_plain(value, text):
    assert number_text(value) == text


def test_a_mapping_of_frames_gets_a_dataset_column():
    sweep = _sweep().drop(columns="dataset")
    spec = sweep_chart({"ma2019": sweep, "tx2019": sweep}, x="k", y="l1_error").to_dict()
    assert _params(spec)["ctl_dataset"]["bind"]["options"] == ["MA", "TX"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (dict(x="k", y="missing_column"), "missing_column"),
        (dict(x="k", y="l1_error", se="no_se"), "no_se"),
        (dict(x="k", y="l1_error", controls=["variant"]), "variant"),
        (dict(x="k", y="l1_error", references={"nope": "exact"}), "nope"),
        (dict(x="k", y="l1_error", se="l1_error_se", interval=("a", "b")), "not both"),
        (dict(x="k", y="l1_error", x_scale="sqrt"), "x_scale"),
        (dict(x="k", y="l1_error", all_option=["epsilon"]), "epsilon"),
        (dict(x="k", y="l1_error", width="wide"), "width"),
        (dict(x="k", y="l1_error", se="l1_error_se", z=0), "z"),
    ],
)
def test_bad_input_raises_a_value_error_naming_it(arguments, message):
    with pytest.raises(ValueError, match=message):
        sweep_chart(_sweep(), **arguments)


def test_an_unknown_setting_is_a_type_error():
    with pytest.raises(TypeError, match="colour"):
        sweep_chart(_sweep(), x="k", y="l1_error", colour="red")


def test_bad_data_is_refused():
    with pytest.raises(TypeError, match="DataFrame"):
        sweep_chart([1, 2], x="k", y="l1_error")
    with pytest.raises(ValueError, match="no rows"):
        sweep_chart(_sweep().iloc[:0], x="k", y="l1_error")


def test_html_embeds_with_the_local_vega_embed_and_no_external_source():
    chart = sweep_chart(_sweep(), x="k", y="l1_error", se="l1_error_se")
    html = chart.to_html()
    assert f'<div class="{CHART_CLASS}"' in html and "vegaEmbed(" in html
    assert not re.search(r"<script[^>]*\bsrc=", html), "the chart must not load a script"
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "actions: false" in html  # no menu linking to the online editor
    body = html.split("<script>", 1)[1]
    assert "</script>" not in body.replace("</script>\n", "", 1)
    bundle = chart._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"} and bundle["text/html"] == html
    assert isinstance(chart, InteractiveChart)


def test_html_escapes_a_closing_script_tag_in_the_data():
    frame = _sweep().assign(dataset="</script><b>x")
    html = sweep_chart(frame, x="k", y="l1_error").to_html()
    assert html.count("</script>") == 1


def test_log_axis_runs_a_band_below_zero_down_to_the_lowest_value_drawn():
    frame = _sweep().assign(l1_error_se=1e6)
    spec = sweep_chart(frame, x="k", y="l1_error", se="l1_error_se", y_scale="log").to_dict()
    estimates = [r for r in _rows(spec) if r["kind"] == "estimate"]
    floor = min(r["value"] for r in estimates)
    assert all(r["lower"] == floor and r["upper"] > 1e5 for r in estimates)


def test_the_charts_style_sheet_is_a_source_file():
    from pathlib import Path

    style = Path(__file__).resolve().parents[1] / "_static" / STYLE_NAME
    assert f".{CHART_CLASS}" in style.read_text()


def test_bundle_is_written_once_with_vega_embed(tmp_path):
    pytest.importorskip("vl_convert")
    path = write_bundle(tmp_path)
    assert path.name == BUNDLE_NAME
    text = path.read_text()
    assert f"Vega-Lite {bundle_version()}" in text.splitlines()[0]
    assert "window.vegaEmbed" in text
    assert not re.search(r"\bimport\s*\(|\bimport\s+[\w{*]", text[:2000])
    stamp = path.stat().st_mtime_ns
    assert write_bundle(tmp_path) == path and path.stat().st_mtime_ns == stamp
