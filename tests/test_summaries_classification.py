"""dadp_lite.summaries.classification: the classification chapter's numbers and verdicts,
on small tables whose answers are known."""

import pandas as pd
import pytest

from dadp_lite.summaries import classification as sc


def _baselines(majority=(0.6, 0.7), accuracy=(0.65, 0.69)):
    return pd.DataFrame(
        {"majority_rate": majority, "baseline_accuracy": accuracy, "ceiling": (0.7, 0.75),
         "baseline_balanced_accuracy": (0.6, 0.55)},
        index=pd.Index(["ma2019", "tx2019"], name="dataset"),
    )  # fmt: skip


def test_baseline_values_count_the_datasets_where_the_baseline_beats_the_majority():
    values = sc.baseline_values(_baselines())
    assert (values["baseline_beats_n"], values["datasets_n"]) == (1, 2)
    assert values["first_name"] == "MA" and values["first_ceiling"] == 0.7
    assert values["headroom_pp"] == pytest.approx(5.0)
    both = sc.baseline_values(_baselines(accuracy=(0.65, 0.71)))
    assert both["baseline_beats_n"] == 2


def _margins():
    rows = [("laplace", "dp_swapping", "ma2019", 0.5, 5.0, 0.1, 3.0, 0.1),
            ("laplace", "dp_swapping", "ma2019", 4.0, 2.0, 0.1, 0.05, 0.1),
            ("laplace", "dp_cell_suppression", "ma2019", 0.5, 0.3, 0.1, 0.2, 0.1),
            ("laplace", "dp_cell_suppression", "ma2019", 4.0, 1.0, 0.1, -0.5, 0.1)]  # fmt: skip
    columns = ["leader", "other", "dataset", "epsilon", "margin", "margin_se", "excess",
               "excess_se"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def test_margin_values_give_the_design():
    assert sc.margin_values(_margins(), limit=2.0) == {"n_settings": 2, "margin_limit": 2.0}


def _results(swapping_loss=7.0):
    rows = []
    for mech, loss in [("laplace", 0.5), ("dp_k_anonymity", 1.0), ("dp_swapping", swapping_loss)]:
        for eps, scale in [(0.5, 1.0), (4.0, 0.5)]:
            rows.append(dict(dataset="ma2019", mechanism=mech, epsilon=eps,
                             accuracy=0.72 - scale * loss / 100, baseline_accuracy=0.72,
                             balanced_accuracy=0.7 - scale * loss / 100))  # fmt: skip
    return pd.DataFrame(rows)


def test_loss_values_say_why_for_swapping_race_only():
    values = sc.loss_values(_results(), epsilon=0.5, qi=["race"])
    assert values == {"hurts_balanced_min": pytest.approx(0.63), "hurts_why": "swapping-race"}
    assert sc.loss_values(_results(), epsilon=0.5, qi=["sex"])["hurts_why"] == "other"
    other = sc.loss_values(_results(swapping_loss=0.1), epsilon=0.5, qi=["race"])
    assert other["hurts_why"] == "other"  # DP k-anonymity loses most
    assert other["hurts_balanced_min"] == pytest.approx(0.69)
    assert set(sc.HURTS_VERDICTS) == {"swapping-race", "other"}


def test_bad_inputs_are_refused_by_name():
    with pytest.raises(ValueError, match="results lacks"):
        sc.loss_values(_results().drop(columns="accuracy"), epsilon=0.5, qi=["race"])
    with pytest.raises(ValueError, match="epsilon"):
        sc.loss_values(_results(), epsilon=2.0, qi=["race"])
    with pytest.raises(ValueError, match="empty"):
        sc.baseline_values(_baselines().iloc[:0])
    with pytest.raises(TypeError, match="margins"):
        sc.margin_values([], limit=1.0)
