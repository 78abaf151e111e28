"""dadp_lite: the helper package of dadp-book (flat public API)."""

from dadp_lite import mechanisms, theory
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
from dadp_lite.histogram import Histogram, histogram_of
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
    "chunk_generators",
    "dataset_path",
    "empirical_bias",
    "feature_domains",
    "histogram_of",
    "l1_error",
    "l1_norm",
    "load_raw",
    "load_records",
    "make_rng",
    "mechanisms",
    "project_nonnegative",
    "recode",
    "round_counts",
    "simulate",
    "theory",
    "use_style",
]
