"""dadp_lite.tables: one look for reader tables, and Tables 1-3 in the paper's layout."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import dadp_lite as dl
from dadp_lite import tables
from dadp_lite.paper import PAPER_TABLE_MECHANISMS


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"epsilon": [0.5, 1.0], "bias": [12.3456, np.nan], "n": [3, 4]})


def test_show_hides_the_index_states_the_rounding_and_carries_the_class():
    html = tables.show(_frame(), caption="Bias in records.", digits=2).to_html()
    assert 'class="dadp-table"' in html
    assert (
        "<caption>Bias in records. Numbers to 2 decimals. "
        f"{tables.MISSING}: no value for this row.</caption>"
    ) in html
    assert "row_heading" not in html and "index_name" not in html  # no index column
    assert ">12.35<" in html and ">0.50<" in html and ">3<" in html  # ints stay ints
    assert f">{tables.MISSING}<" in html  # a missing value is a dash, not "nan"


def test_missing_values_are_a_dash_explained_in_the_caption_never_nan():
    frame = pd.DataFrame(
        {
            "mechanism": ["a", None, "c"],
            "printed": [1.5, np.nan, pd.NA],
            "count": pd.array([1, pd.NA, 3], dtype="Int64"),
        }
    )
    styler = tables.show(frame, caption="Printed values.", digits=1, missing="not printed")
    html = styler.to_html()
    assert "nan" not in html.lower() and "&lt;NA&gt;" not in html and "None" not in html
    assert html.count(f">{tables.MISSING}<") == 4
    assert styler.caption.endswith(f"{tables.MISSING}: not printed.")
    complete = tables.show(frame.dropna(), caption="Complete.", missing="not printed")
    assert tables.MISSING not in complete.caption  # no dash, no footnote


def test_a_series_is_shown_as_one_column_table():
    series = pd.Series([0.25, 0.5], index=pd.Index([1, 2], name="k"), name="rho")
    html = tables.show(series, caption="Rho by k.", digits=2).to_html()
    assert 'class="dadp-table"' in html and ">rho<" in html and ">k<" in html
    assert "dtype" not in html and ">0.25<" in html


def test_show_keeps_a_meaningful_index_as_columns():
    frame = _frame().set_index("epsilon")
    html = tables.show(frame, caption="By epsilon.", digits=1).to_html()
    assert ">\u03b5<" in html and ">0.5<" in html  # the header in words


def test_show_per_column_digits_and_significant_digits():
    styler = tables.show(_frame(), caption="Mixed.", digits={"epsilon": "g", "bias": 1})
    html = styler.to_html()
    assert ">0.5<" in html and ">12.3<" in html
    assert "1 decimal (bias)" in styler.caption


def test_show_is_deterministic():
    first = tables.show(_frame(), caption="Same.", digits=2).to_html()
    assert first == tables.show(_frame(), caption="Same.", digits=2).to_html()


def test_show_marks_number_like_text_as_numbers_and_groups_rows():
    frame = pd.DataFrame({"m": ["a", "a", "b"], "ci": ["1.0 [0.5, 1.5]"] * 3})
    html = tables.show(frame, caption="Groups.", group_by="m").to_html()
    assert html.count("dadp-group-start") == 2  # the first row of b, both cells
    assert "dadp-num" in html  # the interval column is right-aligned, one line
    assert html.count(">a<") == 1  # repeated group labels are blanked


@pytest.mark.parametrize(
    ("frame", "kwargs", "error", "match"),
    [
        ([1, 2], {"caption": "x"}, TypeError, "DataFrame or Series"),
        (_frame(), {"caption": "  "}, ValueError, "caption"),
        (_frame(), {"caption": "x", "digits": -1}, ValueError, ">= 0"),
        (_frame(), {"caption": "x", "digits": 1.5}, TypeError, "digits"),
        (_frame(), {"caption": "x", "digits": "zz"}, ValueError, "format spec"),
        (_frame(), {"caption": "x", "digits": {"nope": 2}}, ValueError, "nope"),
        (_frame(), {"caption": "x", "group_by": "nope"}, ValueError, "group_by"),
    ],
)
def test_show_refuses_bad_input_with_a_clear_error(frame, kwargs, error, match):
    with pytest.raises(error, match=match):
        tables.show(frame, **kwargs)


def test_show_refuses_duplicate_columns():
    frame = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(ValueError, match="duplicate"):
        tables.show(frame, caption="x")


@pytest.fixture(scope="module")
def release():
    dataset = dl.Dataset.load("ma2019")
    return dl.experiments.compare_with_paper(
        dl.experiments.data_release_table(
            dataset, epsilons=dl.PAPER_EPSILONS, reps=4, seed=1, k=6, qi=["race"], n_boot=5
        )
    )


def test_release_table_in_the_papers_layout(release):
    styler = tables.release_table(release)
    html = styler.to_html()
    assert styler.caption.startswith("Table 1, MA:")
    assert "in records" in styler.caption and "Rounding:" in styler.caption
    assert "nan" not in html.lower()  # a value the paper does not print is a dash
    for group in ("\u03b4", "\u2113\u2081 bias (records)", "\u03b1 (records)"):
        assert f">{group}<" in html
    assert html.count(">ours \u00b1 95% CI<") == 2 and html.count(">paper<") == 3
    assert "row_heading" not in html
    body = styler.data
    assert len(body) == len(PAPER_TABLE_MECHANISMS) * len(dl.PAPER_EPSILONS)
    labels = [label for label in body[("", "mechanism")] if label]
    assert labels == [dl.registry.get(m).label for m in PAPER_TABLE_MECHANISMS]
    interval = body[("\u2113\u2081 bias (records)", "ours \u00b1 95% CI")].iloc[0]
    assert re.fullmatch(r"\d+\.\d \u00b1 \d+\.\d", interval), interval


def test_release_table_refuses_other_frames(release):
    with pytest.raises(ValueError, match="lacks the columns"):
        tables.release_table(release.drop(columns="paper_alpha"))
    with pytest.raises(ValueError, match="several datasets"):
        tables.release_table(pd.concat([release, release.assign(dataset="tx2019")]))
    with pytest.raises(ValueError, match="no rows"):
        tables.release_table(release.iloc[:0])
    with pytest.raises(TypeError, match="DataFrame"):
        tables.release_table(release.to_dict())


def test_readable_shows_labels_instead_of_names():
    frame = pd.DataFrame({"dataset": ["ma2019"], "mechanism": ["dp_swapping"], "x": [1.0]})
    shown = tables.readable(frame)
    assert shown.to_dict("list") == {"dataset": ["MA"], "mechanism": ["DP swapping"], "x": [1.0]}
    assert frame["dataset"].iloc[0] == "ma2019"  # a copy
    with pytest.raises(TypeError, match="frame"):
        tables.readable([1])


def test_row_numbers_are_never_a_column_even_after_a_filter():
    frame = pd.DataFrame({"k": [2, 3, 4, 5], "bias": [0.5, 0.25, 0.125, 0.0625]})
    html = tables.show(frame[frame["k"] > 2], caption="Filtered.").to_html()
    assert ">index<" not in html and ">1<" not in html.split("<tbody>")[1].split("</td>")[0]
    assert html.count("<tr>") == 4  # header and three rows, no index cells
    labelled = pd.Series([1.5, 2.5], index=["a", "b"], name="value")
    assert ">a<" in tables.show(labelled, caption="Labels.").to_html()  # labels stay


def test_headers_are_words_with_units_never_snake_case():
    frame = pd.DataFrame(
        {"epsilon": [0.5], "bias_l1": [1.0], "max_abs_z": [2.5], "dp_swapping": [1.5]}
    )
    html = tables.show(frame, caption="Headers.").to_html()
    assert ">\u03b5<" in html and ">\u2113\u2081 bias (records)<" in html
    assert ">largest absolute z<" in html and ">DP swapping<" in html
    assert not re.search(r">[a-z0-9]+(_[a-z0-9]+)+<", html)
    wide = pd.DataFrame([[0.1, 0.2]], columns=pd.Index([0.5, 4.0], name="epsilon"))
    html = tables.show(wide, caption="By epsilon.").to_html()
    assert ">\u03b5 = 0.5<" in html and ">\u03b5 = 4<" in html and "0.500000" not in html
    with pytest.raises(ValueError, match="read the same"):
        tables.show(pd.DataFrame({"bias_l1": [1.0], "l1_bias": [2.0]}), caption="x")


def test_whole_numbers_are_integers_booleans_words_datasets_labels():
    frame = pd.DataFrame(
        {
            "dataset": ["ma2019", "national2019"],
            "count": [540.0, 12750.0],
            "share": [0.5, 0.25],
            "holds": [True, False],
            "adjacency": ["qi_replace", "add_remove"],
        }
    )
    styler = tables.show(frame, caption="Counts.", digits=3)
    html = styler.to_html()
    assert ">540<" in html and ">12,750<" in html and "540.000" not in html
    assert ">yes<" in html and ">no<" in html and "True" not in html
    assert ">MA<" in html and ">Outlier<" in html and "ma2019" not in html
    assert ">change one record's QI<" in html and "qi_replace" not in html
    assert "count" not in styler.caption  # integers need no rounding sentence
    mixed = pd.DataFrame({"alpha": [1.5, 540.9999999, 2.0]})
    html = tables.show(mixed, caption="Mixed.", digits=2).to_html()
    assert ">541<" in html and ">1.50<" in html and ">2.00<" in html  # 541.00 reads 541


def test_an_unbounded_count_in_an_integer_column_reads_as_a_word():
    """A count that no number of trials reaches (inf in an integer column) reads as ∞,
    not an OverflowError (chapter 14 at epsilon 8)."""
    from dadp_lite.tables import _format_number

    fmt = _format_number("int")
    assert fmt(float("inf")) == "∞"
    assert fmt(1234.0) == "1234"  # the tables group digits from 10,000 on
