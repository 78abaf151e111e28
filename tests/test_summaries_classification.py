"""dadp_lite.summaries.classification: the classification chapter's numbers and phrases,
on small tables whose answers are known."""

import pandas as pd
import pytest

from dadp_lite.errata import Status
from dadp_lite.summaries import classification as sc


def _baselines(majority=(0.6, 0.7), accuracy=(0.65, 0.69)):
    return pd.DataFrame(
        {"majority_rate": majority, "baseline_accuracy": accuracy, "ceiling": (0.7, 0.75),
         "baseline_balanced_accuracy": (0.6, 0.55)},
        index=pd.Index(["ma2019", "tx2019"], name="dataset"),
    )  # fmt: skip


def test_baseline_values_count_the_datasets_where_the_baseline_beats_the_majority():
    values = sc.baseline_values(_baselines())
    assert values["baseline_beats"] == "beats the majority-class rate on 1 of 2 datasets"
    assert values["first_name"] == "MA" and values["first_ceiling"] == 0.7
    assert values["headroom_pp"] == pytest.approx(5.0)
    both = sc.baseline_values(_baselines(accuracy=(0.65, 0.71)))
    assert both["baseline_beats"] == "beats the majority-class rate on 2 of 2 datasets"


def _margins():
    rows = [("laplace", "dp_swapping", "ma2019", 0.5, 5.0, 0.1, 3.0, 0.1),
            ("laplace", "dp_swapping", "ma2019", 4.0, 2.0, 0.1, 0.05, 0.1),
            ("laplace", "dp_cell_suppression", "ma2019", 0.5, 0.3, 0.1, 0.2, 0.1),
            ("laplace", "dp_cell_suppression", "ma2019", 4.0, 1.0, 0.1, -0.5, 0.1)]  # fmt: skip
    columns = ["leader", "other", "dataset", "epsilon", "margin", "margin_se", "excess",
               "excess_se"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def test_margin_values_find_the_smallest_margin_and_count_the_clear_excesses():
    claim, ahead = Status("not reproduced", "basis", 0.0), Status("reproduced", "b", 0.0)
    values = sc.margin_values(_margins(), limit=2.0, claim=claim, ahead=ahead)
    assert values["n_margins"] == 4 and values["n_settings"] == 2
    assert values["n_much"] == 1  # 3.0 - 2 * 0.1 > 0; 0.05 - 0.2 and 0.2 - 0.2 are not
    assert values["smallest_margin"] == 0.3
    assert values["smallest_lower"] == pytest.approx(0.1)
    assert values["smallest_upper"] == pytest.approx(0.5)
    assert values["smallest_where"] == "Laplace against DP cell suppression on MA at epsilon = 0.5"
    assert values["claim_basis"] == "basis" and values["ahead_word"] == "reproduced"


def _results(swapping_loss=7.0):
    rows = []
    for mech, loss in [("laplace", 0.5), ("dp_k_anonymity", 1.0), ("dp_swapping", swapping_loss)]:
        for eps, scale in [(0.5, 1.0), (4.0, 0.5)]:
            rows.append(dict(dataset="ma2019", mechanism=mech, epsilon=eps,
                             accuracy=0.72 - scale * loss / 100, baseline_accuracy=0.72,
                             balanced_accuracy=0.7 - scale * loss / 100))  # fmt: skip
    return pd.DataFrame(rows)


def test_loss_values_name_the_mechanism_that_loses_most_and_say_why_for_swapping_race():
    values = sc.loss_values(_results(), epsilon=0.5, qi=["race"])
    assert values["worst_label"] == "DP swapping"
    assert values["worst_value"] == pytest.approx(7.0)
    assert values["worst_rest"] == pytest.approx(1.0)
    assert values["worst_laplace"] == pytest.approx(0.5)
    assert values["worst_why"] == sc.SWAPPING_RACE_WHY
    assert values["hurts_balanced_min"] == pytest.approx(0.63)
    assert sc.loss_values(_results(), epsilon=0.5, qi=["sex"])["worst_why"] == ""


def test_loss_values_without_a_reason_when_another_mechanism_loses_most():
    values = sc.loss_values(_results(swapping_loss=0.1), epsilon=0.5, qi=["race"])
    assert values["worst_label"] == "DP k-anonymity" and values["worst_why"] == ""
    assert values["worst_rest"] == pytest.approx(0.5)


def test_bad_inputs_are_refused_by_name():
    with pytest.raises(ValueError, match="results lacks"):
        sc.loss_values(_results().drop(columns="accuracy"), epsilon=0.5, qi=["race"])
    with pytest.raises(ValueError, match="epsilon"):
        sc.loss_values(_results(), epsilon=2.0, qi=["race"])
    with pytest.raises(ValueError, match="empty"):
        sc.baseline_values(_baselines().iloc[:0])
    with pytest.raises(TypeError, match="margins"):
        sc.margin_values([], limit=1.0, claim=None, ahead=None)
