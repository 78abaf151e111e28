"""Traditional swapping (fast grouped sampler vs the literal algorithm) and DP swapping."""

from __future__ import annotations

import importlib
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from dadp_lite.experiments import swapping_sweep
from dadp_lite.histogram import Histogram
from dadp_lite.mechanisms._swapping_fast import _cross_class_swap
from dadp_lite.mechanisms.swapping import (
    _cell_coordinates,
    _cell_distance_coordinates,
    _d_swap,
    dp_swapping,
    swap_count,
    swapping,
    swapping_chunks,
    swapping_reference,
)
from dadp_lite.metrics import BiasEstimate
from dadp_lite.simulate import make_rng, simulate
from dadp_lite.theory.swapping import (
    dp_swapping_bias_as_printed,
    dp_swapping_output_distribution,
    dp_swapping_release_variance,
)

Z_MAX = 4.5


# ------------------------------------------------------------------ exact law of Alg. "Swapping"
def _tiny(counts: dict[tuple, int], domains: dict[str, tuple]) -> Histogram:
    hist = Histogram(
        np.zeros(int(np.prod([len(d) for d in domains.values()])), dtype=np.int64),
        tuple(domains),
        tuple(domains.values()),
    )
    flat = np.zeros(hist.n_cells, dtype=np.int64)
    for values, count in counts.items():
        index = tuple(d.index(v) for d, v in zip(domains.values(), values))
        flat[np.ravel_multi_index(index, hist.shape)] = count
    return hist.with_counts(flat)


def _exact_swapping_law(hist: Histogram, qi: tuple, features: tuple, numeric: tuple, rate: float):
    """Enumerate every run of the appendix algorithm: {released histogram: probability}."""
    cells = np.repeat(np.arange(hist.n_cells), hist.counts)
    coords = np.array(np.unravel_index(cells, hist.shape)).T  # record x attribute (codes)
    qi_axes = [hist.attributes.index(q) for q in qi]
    lam_axes = [hist.attributes.index(f) for f in features]
    spans = [max(len(hist.domains[a]) - 1, 1) for a in lam_axes]
    is_num = [hist.attributes[a] in numeric for a in lam_axes]

    def distance(a, b):
        return sum(
            abs(a[x] - b[x]) / s if num else float(a[x] != b[x])
            for x, s, num in zip(lam_axes, spans, is_num)
        )

    law: Counter = Counter()

    def run(records, free, steps, prob):
        if steps == 0:
            flat = np.ravel_multi_index(tuple(np.array(records).T), hist.shape)
            law[tuple(np.bincount(flat, minlength=hist.n_cells))] += prob
            return
        candidates = [i for i in range(len(records)) if free[i]]
        for i in candidates:
            others = [j for j in candidates if j != i]
            gaps = [distance(records[i], records[j]) for j in others]
            ties = [j for j, g in zip(others, gaps) if g <= min(gaps) + 1e-9]
            for s in ties:
                new = [list(r) for r in records]
                for a in qi_axes:
                    new[i][a], new[s][a] = records[s][a], records[i][a]
                flags = list(free)
                flags[i] = flags[s] = False
                run(new, flags, steps - 1, prob / len(candidates) / len(ties))

    run([list(r) for r in coords], [True] * len(cells), swap_count(hist.total, rate), 1.0)
    return law


def _assert_matches_law(samples: np.ndarray, law: dict) -> None:
    reps = samples.shape[0]
    observed = Counter(map(tuple, samples))
    assert set(observed) <= set(law), "an output the algorithm cannot produce"
    for outcome, p in law.items():
        se = math.sqrt(p * (1 - p) / reps)
        z = (observed.get(outcome, 0) / reps - p) / se if se > 0 else 0.0
        assert abs(z) < Z_MAX, (outcome, p, observed.get(outcome, 0) / reps)


DOMAINS = {"race": (1, 2, 3), "sex": (1, 2), "tenure": (0, 1)}
TINY = {(1, 1, 0): 2, (2, 1, 0): 1, (3, 2, 0): 1, (2, 2, 1): 1, (1, 1, 1): 1, (3, 1, 1): 1}
NUM_DOMAINS = {"race": (1, 2), "age_bracket": (0, 1, 2), "sex": (1, 2)}
NUM_TINY = {(1, 0, 1): 1, (2, 1, 1): 1, (1, 2, 2): 2, (2, 2, 1): 1, (2, 0, 2): 1}


@pytest.mark.parametrize(
    ("counts", "domains", "features", "numeric", "rate"),
    [
        (TINY, DOMAINS, None, (), 1.0),
        (TINY, DOMAINS, None, (), 0.6),
        (TINY, DOMAINS, ("race", "sex", "tenure"), (), 1.0),
        (NUM_TINY, NUM_DOMAINS, None, ("age_bracket",), 1.0),
    ],
)
def test_fast_swapping_matches_exact_law_of_algorithm(counts, domains, features, numeric, rate):
    hist = _tiny(counts, domains)
    qi = ("race",)
    lam = tuple(a for a in hist.attributes if a not in qi) if features is None else features
    law = _exact_swapping_law(hist, qi, lam, numeric, rate)
    samples = swapping(
        hist,
        qi=qi,
        rate=rate,
        rng=np.random.default_rng(11),
        reps=6000,
        features=features,
        numeric=numeric,
    )
    _assert_matches_law(samples, law)


def test_reference_swapping_matches_exact_law_of_algorithm():
    hist = _tiny(TINY, DOMAINS)
    law = _exact_swapping_law(hist, ("race",), ("sex", "tenure"), (), 1.0)
    samples = swapping_reference(
        hist, qi=("race",), rate=1.0, rng=np.random.default_rng(5), reps=1500
    )
    _assert_matches_law(samples, law)


def test_reference_handles_distance_features_without_the_non_qi():
    hist = _tiny(TINY, DOMAINS)
    law = _exact_swapping_law(hist, ("race",), ("race",), (), 1.0)
    samples = swapping_reference(
        hist, qi=("race",), rate=1.0, rng=np.random.default_rng(6), reps=800, features=("race",)
    )
    _assert_matches_law(samples, law)


def test_swapping_keeps_totals_and_non_qi_marginal(ma_histogram):
    out = swapping(ma_histogram, rate=1.0, rng=np.random.default_rng(1), reps=5)
    assert out.shape == (5, ma_histogram.n_cells) and out.dtype == np.int64
    assert np.all(out >= 0)
    groups = ma_histogram.to_qi_matrix(("race",), out).sum(axis=-1)
    assert np.array_equal(
        groups, np.broadcast_to(ma_histogram.to_qi_matrix(("race",)).sum(-1), groups.shape)
    )


def test_swapping_rate_zero_is_identity_and_accepts_records(ma_records, ma_histogram):
    out = swapping(ma_records, rate=0.0, rng=np.random.default_rng(2), reps=3)
    assert np.array_equal(out, np.broadcast_to(ma_histogram.counts, out.shape))


# ------------------------------------------------ fast class loop vs one rng call per step
def _swapping_per_step(hist: Histogram, *, rate: float, rng, reps: int) -> np.ndarray:
    """The class-count sampler as first written: one ``rng.integers`` call and one full
    cumulative sum per step (slow; the fast loop must reproduce it bit for bit)."""
    qi = ("race",)
    features = tuple(a for a in hist.attributes if a not in qi)
    coords, is_numeric = _cell_distance_coordinates(hist, features, ())
    counts = hist.counts
    steps = swap_count(hist.total, rate)
    out = np.broadcast_to(counts, (reps, hist.n_cells)).copy()
    occupied = np.flatnonzero(counts)
    keys, class_of = np.unique(coords[occupied], axis=0, return_inverse=True)
    class_of = class_of.ravel()
    n_classes = keys.shape[0]
    distance = _d_swap(keys[:, None, :], keys[None, :, :], is_numeric)
    class_cells = [occupied[class_of == c] for c in range(n_classes)]
    class_size = np.bincount(class_of, weights=counts[occupied], minlength=n_classes)
    group, qi_index, table = _cell_coordinates(hist, qi)
    unswapped = np.broadcast_to(class_size.astype(np.int64), (reps, n_classes)).copy()
    remaining = np.broadcast_to(counts, (reps, hist.n_cells)).copy()
    rows, total = np.arange(reps), hist.total
    for _ in range(steps):
        target = rng.integers(0, total, size=reps)
        picked = (np.cumsum(unswapped, axis=1) <= target[:, None]).sum(axis=1)
        single = unswapped[rows, picked] == 1
        unswapped[rows, picked] -= 2
        total -= 2
        for r in np.flatnonzero(single):
            unswapped[r, picked[r]] = 0
            _cross_class_swap(
                r, picked[r], unswapped, remaining, distance, class_cells, group, qi_index,
                table, out, rng,
            )  # fmt: skip
    return out


@pytest.mark.parametrize("rate", [0.05, 0.5, 1.0])
def test_fast_class_loop_equals_one_call_per_step(ma_histogram, rate):
    fast_rng, slow_rng = make_rng(17), make_rng(17)
    fast = swapping(ma_histogram, rate=rate, rng=fast_rng, reps=6)
    slow = _swapping_per_step(ma_histogram, rate=rate, rng=slow_rng, reps=6)
    assert np.array_equal(fast, slow)
    assert fast_rng.random() == slow_rng.random()  # the generators end in the same state


@pytest.mark.parametrize("spacing", [0.2, 2.0])
@pytest.mark.parametrize("rate", [0.5, 1.0])
def test_steps_resolved_a_block_at_a_time_equal_one_call_per_step(
    ma_histogram, monkeypatch, spacing, rate
):
    module = importlib.import_module("dadp_lite.mechanisms._swapping_fast")
    # small spacings send most blocks through _block_picks, with many ambiguous steps
    monkeypatch.setattr(module, "_BLOCK_SPACING", spacing)
    fast_rng, slow_rng = make_rng(23), make_rng(23)
    fast = swapping(ma_histogram, rate=rate, rng=fast_rng, reps=5)
    slow = _swapping_per_step(ma_histogram, rate=rate, rng=slow_rng, reps=5)
    assert np.array_equal(fast, slow)
    assert fast_rng.random() == slow_rng.random()


def test_block_path_on_many_records_equals_one_call_per_step(ma_histogram):
    big = ma_histogram.with_counts(ma_histogram.counts * 40)  # ~300,000 records
    fast_rng, slow_rng = make_rng(29), make_rng(29)
    fast = swapping(big, rate=0.3, rng=fast_rng, reps=3)
    slow = _swapping_per_step(big, rate=0.3, rng=slow_rng, reps=3)
    assert np.array_equal(fast, slow)
    assert fast_rng.random() == slow_rng.random()


@pytest.mark.parametrize("sizes", [[1], [3, 2], [2, 1, 4]])
def test_swapping_chunks_equal_chunks_run_one_by_one(ma_histogram, sizes):
    together = swapping_chunks(ma_histogram, [(n, make_rng(i)) for i, n in enumerate(sizes)],
                               rate=0.7)  # fmt: skip
    one_by_one = [swapping(ma_histogram, rate=0.7, rng=make_rng(i), reps=n)
                  for i, n in enumerate(sizes)]  # fmt: skip
    assert np.array_equal(together, np.concatenate(one_by_one))


def test_simulate_uses_run_chunks_with_the_same_result(ma_histogram):
    kwargs = dict(reps=7, seed=5, chunk_size=3, progress=False, rate=0.4)
    assert np.array_equal(simulate(swapping, ma_histogram, run_chunks=swapping_chunks, **kwargs),
                          simulate(swapping, ma_histogram, **kwargs))  # fmt: skip


def test_swapping_chunks_rejects_no_chunks_and_bad_chunks(tiny):
    with pytest.raises(ValueError, match="chunks"):
        swapping_chunks(tiny, [], rate=0.5)
    with pytest.raises(ValueError, match="reps"):
        swapping_chunks(tiny, [(0, make_rng(1))], rate=0.5)


def test_swap_count_is_floor_of_half_rate_n():
    assert swap_count(7634, 0.5) == 1908
    assert swap_count(7, 1.0) == 3
    assert swap_count(10, 0.0) == 0


# ---------------------------------------------------------------------------- DP swapping
@pytest.mark.parametrize("unit", ["cell", "record"])
def test_dp_swapping_matches_exact_output_law(unit):
    hist = _tiny({(1, 1, 0): 2, (2, 1, 0): 1, (3, 2, 1): 2}, DOMAINS)
    law_matrix = dp_swapping_output_distribution(hist.to_qi_matrix(("race",)), 1.0, unit)
    samples = dp_swapping(
        hist, qi=("race",), epsilon=1.0, rng=np.random.default_rng(3), reps=20000, unit=unit
    )
    matrices = hist.to_qi_matrix(("race",), samples).reshape(samples.shape[0], -1)
    _assert_matches_law(matrices, law_matrix)


@pytest.mark.parametrize("unit", ["cell", "record"])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_dp_swapping_bias_matches_proposition(ma_histogram, unit, epsilon):
    reps = 400
    released = dp_swapping(
        ma_histogram, epsilon=epsilon, rng=np.random.default_rng(7), reps=reps, unit=unit
    )
    # exact standard errors: per-cell releases are too skewed for the sample SE
    variance = dp_swapping_release_variance(ma_histogram, ("race",), epsilon, unit)
    mean = released.mean(axis=0) - ma_histogram.counts
    estimate = BiasEstimate(mean, np.sqrt(variance / reps), reps)
    z = estimate.z_scores(dp_swapping_bias_as_printed(ma_histogram, ("race",), epsilon))
    assert np.max(np.abs(z)) < Z_MAX


@pytest.mark.parametrize("unit", ["cell", "record"])
def test_release_variance_matches_enumerated_law(unit):
    hist = _tiny({(1, 1, 0): 3, (2, 1, 0): 1, (3, 2, 1): 2}, DOMAINS)
    law = dp_swapping_output_distribution(hist.to_qi_matrix(("race",)), 0.8, unit)
    outcomes = np.array(list(law), dtype=float)
    probs = np.array(list(law.values()))
    mean = probs @ outcomes
    variance = probs @ (outcomes - mean) ** 2
    formula = hist.to_qi_matrix(
        ("race",), dp_swapping_release_variance(hist, ("race",), 0.8, unit)
    ).ravel()
    np.testing.assert_allclose(formula, variance, atol=1e-12)


def test_record_release_sample_variance_matches_formula(ma_histogram):
    reps = 2000
    released = dp_swapping(
        ma_histogram, epsilon=1.0, rng=np.random.default_rng(9), reps=reps, unit="record"
    )
    exact = dp_swapping_release_variance(ma_histogram, ("race",), 1.0, "record")
    big = exact > 25  # sums of many Bernoullis: near-normal, SE of s^2/sigma^2 ~ sqrt(2/reps)
    ratio = released.var(axis=0, ddof=1)[big] / exact[big]
    assert np.max(np.abs(ratio - 1)) < Z_MAX * np.sqrt(2 / (reps - 1))


@pytest.mark.parametrize("unit", ["cell", "record"])
def test_dp_swapping_keeps_non_qi_marginal(ma_histogram, unit):
    out = dp_swapping(ma_histogram, epsilon=1.0, rng=np.random.default_rng(8), reps=4, unit=unit)
    groups = ma_histogram.to_qi_matrix(("race",), out).sum(axis=-1)
    assert np.array_equal(
        groups, np.broadcast_to(ma_histogram.to_qi_matrix(("race",)).sum(-1), groups.shape)
    )


# ------------------------------------------------------------------------------ bad input
@pytest.fixture
def tiny():
    return _tiny(TINY, DOMAINS)


@pytest.mark.parametrize("qi", [(), ("nope",), ["race", "nope"]])
def test_bad_qi_raises(tiny, qi):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="qi"):
        swapping(tiny, qi=qi, rate=0.5, rng=rng)
    with pytest.raises(ValueError, match="qi"):
        dp_swapping(tiny, qi=qi, epsilon=1.0, rng=rng)


def test_qi_universe_of_one_value_raises():
    hist = Histogram(np.array([1, 2, 3, 4]), ("race", "sex"), ((1,), (1, 2, 3, 4)))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n_Q"):
        swapping(hist, qi=("race",), rate=0.5, rng=rng)
    with pytest.raises(ValueError, match="n_Q"):
        dp_swapping(hist, qi=("race",), epsilon=1.0, rng=rng)


@pytest.mark.parametrize("rate", [-0.1, 1.5, float("nan")])
def test_rate_outside_unit_interval_raises(tiny, rate):
    with pytest.raises(ValueError, match="rate"):
        swapping(tiny, rate=rate, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="rate"):
        swapping_reference(tiny, rate=rate, rng=np.random.default_rng(0))


@pytest.mark.parametrize("epsilon", [0.0, -1.0, float("inf")])
def test_non_positive_epsilon_raises(tiny, epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        dp_swapping(tiny, epsilon=epsilon, rng=np.random.default_rng(0))


def test_bad_unit_rng_data_and_features_raise(tiny):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="unit"):
        dp_swapping(tiny, epsilon=1.0, rng=rng, unit="group")
    with pytest.raises(TypeError, match="rng"):
        dp_swapping(tiny, epsilon=1.0, rng=0)
    with pytest.raises(TypeError, match="data"):
        swapping(np.array([1, 2]), rate=0.5, rng=rng)
    with pytest.raises(ValueError, match="features"):
        swapping(tiny, rate=0.5, rng=rng, features=("sex",))
    with pytest.raises(ValueError, match="reps"):
        swapping(tiny, rate=0.5, rng=rng, reps=0)
    with pytest.raises(ValueError, match="numeric"):
        swapping(tiny, rate=0.5, rng=rng, numeric=("race",))
    with pytest.raises(ValueError, match="unknown attribute"):
        swapping(pd.DataFrame({"race": [1]}), rate=0.5, rng=rng)


def test_swapping_sweep_rows_and_fractions(tiny):
    sweep = swapping_sweep(tiny, rates=[0.5, 1.0], epsilons=[1.0], reps=4, seed=1, n_boot=5)
    assert list(sweep["mechanism"]) == ["swapping", "swapping", "dp_swapping", "dp_swapping"]
    assert np.allclose(sweep["fraction"].iloc[:2], [0.5, 1.0])
    gamma = np.e / (np.e + 2)  # n_Q = 3
    assert np.allclose(sweep["fraction"].iloc[2:], 1 - gamma)
    assert np.all(sweep["l1_error"] >= 0) and np.all(sweep["alpha_se"] >= 0)


def test_swapping_sweep_rejects_bad_unit(tiny):
    with pytest.raises(ValueError, match="unit"):
        swapping_sweep(tiny, rates=[0.5], epsilons=[1.0], reps=4, seed=1, units=("group",))
