"""dadp_lite: the helper package of dadp-book (flat public API)."""

from dadp_lite import experiments, mechanisms, theory
from dadp_lite.data import (
    AGE_EDGES,
    DATASETS,
    DataError,
    dataset_path,
    feature_domains,
    load_raw,
    load_records,
    recode,
)
from dadp_lite.experiments import (
    classification_accuracy,
    classification_baseline,
    compare_with_paper,
    data_release_table,
    paper_tables,
)
from dadp_lite.histogram import Histogram, histogram_of
from dadp_lite.mechanisms.cell_suppression import (
    cell_suppression,
    cell_suppression_main_text,
    dp_cell_suppression,
)
from dadp_lite.mechanisms.discrete_gaussian import discrete_gaussian, sample_discrete_gaussian
from dadp_lite.mechanisms.k_anonymity import dp_k_anonymity, k_anonymity, reconstruct
from dadp_lite.mechanisms.laplace import laplace
from dadp_lite.mechanisms.mondrian import mondrian, mondrian_anonypy
from dadp_lite.mechanisms.swapping import dp_swapping, swapping, swapping_reference
from dadp_lite.metrics import (
    BiasEstimate,
    alpha_fairness,
    empirical_bias,
    l1_error,
    l1_norm,
    project_nonnegative,
    round_counts,
)
from dadp_lite.plotting import use_style
from dadp_lite.simulate import chunk_generators, make_rng, simulate

__version__ = "0.1.0"

__all__ = [
    "AGE_EDGES",
    "DATASETS",
    "BiasEstimate",
    "DataError",
    "Histogram",
    "alpha_fairness",
    "cell_suppression",
    "cell_suppression_main_text",
    "chunk_generators",
    "dataset_path",
    "discrete_gaussian",
    "dp_cell_suppression",
    "dp_swapping",
    "empirical_bias",
    "feature_domains",
    "histogram_of",
    "l1_error",
    "laplace",
    "l1_norm",
    "load_raw",
    "load_records",
    "make_rng",
    "mechanisms",
    "project_nonnegative",
    "recode",
    "round_counts",
    "sample_discrete_gaussian",
    "simulate",
    "swapping",
    "swapping_reference",
    "dp_k_anonymity",
    "k_anonymity",
    "mondrian",
    "mondrian_anonypy",
    "reconstruct",
    "theory",
    "use_style",
    "experiments",
    "classification_accuracy",
    "classification_baseline",
    "compare_with_paper",
    "data_release_table",
    "paper_tables",
]
