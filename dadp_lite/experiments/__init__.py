"""The paper's experiments and the book's Monte Carlo studies, as tidy tables.

- :mod:`~dadp_lite.experiments.release`: seeded releases of any registered mechanism;
- :mod:`~dadp_lite.experiments.tables`: the data-release table (Tables 1-3);
- :mod:`~dadp_lite.experiments.epsilon_profile`: the tables' exact delta, l1 bias and alpha
  over a grid of epsilon (chapter 12's explorable);
- :mod:`~dadp_lite.experiments.encodings`: which encoding of the records reproduces the
  printed bias columns (exact, no sampling);
- :mod:`~dadp_lite.experiments.classification`: the logistic-regression experiment;
- :mod:`~dadp_lite.experiments.sweeps`: error and fairness against k, swap rate, epsilon;
- :mod:`~dadp_lite.experiments.comparisons`: simulation against exact values (z-scores);
- :mod:`~dadp_lite.experiments.fairness`: counterexamples confirmed by simulation;
- :mod:`~dadp_lite.experiments.alpha_study`: exact release moments and simulations over a
  grid of configurations, summarised per configuration (the alpha chapter);
- :mod:`~dadp_lite.experiments.decomposition`: DP k-anonymity's bias split into thinning
  and reconstruction.
"""

from dadp_lite.experiments.alpha_study import (
    ALPHA_MECHANISMS,
    ReleaseMoments,
    bias_check,
    monte_carlo_floor,
    release_moments,
    simulate_grid,
)
from dadp_lite.experiments.classification import (
    CLASSICAL_MECHANISMS,
    CLASSIFICATION_FEATURES,
    TARGET,
    cell_design,
    classification_accuracy,
    classification_baseline,
    classification_margins,
    fit_weighted_logistic,
    weighted_accuracy,
)
from dadp_lite.experiments.comparisons import (
    SimulatedAlpha,
    bias_z_scores,
    bias_z_scores_by_count,
    simulated_alpha,
)
from dadp_lite.experiments.decomposition import k_anonymity_bias_parts
from dadp_lite.experiments.epsilon_profile import (
    PROFILE_COLUMNS,
    baseline_exceptions,
    baselines_ahead,
    epsilon_grid,
    exact_profile,
)
from dadp_lite.experiments.fairness import CounterexampleCheck, confirm_counterexample
from dadp_lite.experiments.release import release, release_seed
from dadp_lite.experiments.sweeps import (
    cell_suppression_sweep,
    k_anonymity_sweep,
    swapping_sweep,
)
from dadp_lite.experiments.tables import (
    TABLE_MECHANISMS,
    compare_with_paper,
    data_release_table,
    expected_abs_normal,
    privacy_deltas,
)

__all__ = [
    "ALPHA_MECHANISMS",
    "PROFILE_COLUMNS",
    "baseline_exceptions",
    "baselines_ahead",
    "epsilon_grid",
    "exact_profile",
    "ReleaseMoments",
    "bias_check",
    "monte_carlo_floor",
    "release_moments",
    "simulate_grid",
    "CLASSIFICATION_FEATURES",
    "TABLE_MECHANISMS",
    "TARGET",
    "CounterexampleCheck",
    "SimulatedAlpha",
    "bias_z_scores",
    "bias_z_scores_by_count",
    "cell_design",
    "cell_suppression_sweep",
    "CLASSICAL_MECHANISMS",
    "classification_accuracy",
    "classification_baseline",
    "classification_margins",
    "compare_with_paper",
    "confirm_counterexample",
    "data_release_table",
    "expected_abs_normal",
    "fit_weighted_logistic",
    "k_anonymity_bias_parts",
    "k_anonymity_sweep",
    "privacy_deltas",
    "release",
    "release_seed",
    "simulated_alpha",
    "swapping_sweep",
    "weighted_accuracy",
]
