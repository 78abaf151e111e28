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
    STYLE_NAME,
    InteractiveChart,
    bundle_version,
    sweep_chart,
    write_bundle,
)
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


def _tooltips(spec: dict) -> list[dict]:
    return [t for layer in _layers(spec) for t in layer.get("encoding", {}).get("tooltip", [])]


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
    filters = [t["filter"] for layer in _layers(spec) for t in layer.get("transform", [])
               if "filter" in t]  # fmt: skip
    assert filters and all("ctl_dataset" in f and "ctl_epsilon" in f for f in filters)
    # rows without an epsilon (traditional k-anonymity) pass whatever epsilon is chosen
    assert all('!isValid(datum["epsilon"])' in f for f in filters)


def test_all_option_offers_null_labelled_all():
    spec = sweep_chart(_sweep(), x="k", y="l1_error", controls=["dataset", "mechanism"],
                       all_option=["mechanism"]).to_dict()  # fmt: skip
    bind = _params(spec)["ctl_mechanism"]["bind"]
    assert bind["options"][0] is None and bind["labels"][0] == "all"
    assert bind["options"][1:] == [REGISTRY["k_anonymity"].label, REGISTRY["dp_k_anonymity"].label]


def test_tooltips_give_value_and_interval_and_the_band_uses_the_interval():
    spec = sweep_chart(_sweep(), x="k", y="l1_error", se="l1_error_se", z=2.0,
                       references={"l1_error_exact": "exact"}).to_dict()  # fmt: skip
    fields = {t["field"]: t["title"] for t in _tooltips(spec)}
    assert fields["l1_error"] == "l1_error" and fields["interval_text"] == "±2 SE"
    assert fields["l1_error_exact"] == "exact"
    data = next(iter(spec["datasets"].values()))
    row = next(r for r in data if r["series"] == "DP k-anonymity" and r["k"] == 2)
    assert row["lower"] == pytest.approx(row["l1_error"] - 4.0)
    assert row["upper"] == pytest.approx(row["l1_error"] + 4.0)
    assert any(layer["mark"]["type"] == "area" for layer in _layers(spec))
    calculations = json.dumps([layer.get("transform", []) for layer in _layers(spec)])
    assert "interval_text" in calculations and "datum.lower" in calculations


def test_series_take_the_registry_colours_and_labels_unless_overridden():
    spec = sweep_chart(_sweep(), x="k", y="l1_error", colors={"k_anonymity": "black"}).to_dict()
    color = next(layer["encoding"]["color"] for layer in _layers(spec))
    scale = dict(zip(color["scale"]["domain"], color["scale"]["range"]))
    assert scale == {"k-anonymity": "black", "DP k-anonymity": REGISTRY["dp_k_anonymity"].color}


def test_shapes_follow_a_series_value_and_the_others_take_unused_shapes():
    frame = _sweep().assign(unit=lambda f: np.where(f["epsilon"] == 0.5, "cell", "record"))
    spec = sweep_chart(frame, x="k", y="l1_error", series=["mechanism", "unit"],
                       shapes={"cell": "circle", "record": "square"}).to_dict()  # fmt: skip
    shape = next(
        layer["encoding"]["shape"]
        for layer in _layers(spec)
        if "shape" in layer.get("encoding", {})
    )
    marks = dict(zip(shape["scale"]["domain"], shape["scale"]["range"]))
    assert marks["DP k-anonymity, cell"] == "circle"
    assert marks["DP k-anonymity, record"] == "square"
    assert marks["k-anonymity, record"] == "square"
    with pytest.raises(ValueError, match="shapes"):
        sweep_chart(_sweep(), x="k", y="l1_error", shapes={"k_anonymity": "star"})


def test_the_page_carries_only_the_columns_it_draws():
    frame = _sweep().assign(unused=1.0, other="x")
    spec = sweep_chart(frame, x="k", y="l1_error", se="l1_error_se").to_dict()
    data = next(iter(spec["datasets"].values()))
    assert set(data[0]) == {"series", "mechanism", "dataset", "k", "l1_error", "lower", "upper"}


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
    ],
)
def test_bad_input_raises_a_value_error_naming_it(arguments, message):
    with pytest.raises(ValueError, match=message):
        sweep_chart(_sweep(), **arguments)


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


def test_log_axis_drops_a_band_below_zero():
    frame = _sweep().assign(l1_error_se=1e6)
    spec = sweep_chart(frame, x="k", y="l1_error", se="l1_error_se", y_scale="log").to_dict()
    data = next(iter(spec["datasets"].values()))
    assert all(row["lower"] is None for row in data)


def test_bundle_is_written_once_with_vega_embed_and_the_style(tmp_path):
    pytest.importorskip("vl_convert")
    path = write_bundle(tmp_path)
    assert path.name == BUNDLE_NAME and (tmp_path / STYLE_NAME).is_file()
    text = path.read_text()
    assert f"Vega-Lite {bundle_version()}" in text.splitlines()[0]
    assert "window.vegaEmbed" in text
    assert not re.search(r"\bimport\s*\(|\bimport\s+[\w{*]", text[:2000])
    stamp = path.stat().st_mtime_ns
    assert write_bundle(tmp_path) == path and path.stat().st_mtime_ns == stamp
