"""dadp_lite: the science library of dadp-book.

Start with ``ARCHITECTURE.md`` at the repository's root: the data flow, the layers and
what each module does, and which paper result each module serves. In short, data flows
down this list and imports point up it (a module imports only modules listed above it):

- :mod:`~dadp_lite.data`, :mod:`~dadp_lite.histogram`, :mod:`~dadp_lite.dataset`: the
  NIST excerpts (or any file in their schema), located, verified, validated, recoded
  under an :class:`~dadp_lite.data.Encoding` and counted over the full universe;
- :mod:`~dadp_lite.mechanisms`: every mechanism as a vectorised sampler;
- :mod:`~dadp_lite.theory`: exact answers (closed forms, enumeration, ``dp_accounting``);
- :mod:`~dadp_lite.registry`: one record per mechanism joining the two;
- :mod:`~dadp_lite.experiments`: Monte Carlo studies and the paper's tables;
- :mod:`~dadp_lite.audit`: black-box privacy audits (``dadp_lite.audit.audit(release, x,
  x_prime, ...)`` certifies lower bounds on (epsilon, delta) from outputs alone);
- :mod:`~dadp_lite.plotting`, :mod:`~dadp_lite.tables`: one look for figures and tables;
The build machinery is the separate package ``dadp_book``; nothing here imports it.

The names below are the flat public API that chapters use; every name of
:mod:`~dadp_lite.mechanisms` is one of them (generated from its ``__all__``).
"""

from dadp_lite import audit, experiments, mechanisms, registry, tables, theory, words
from dadp_lite.data import (
    AGE_EDGES,
    ATTRIBUTES,
    DATASETS,
    DataError,
    Encoding,
    dataset_label,
    dataset_path,
    feature_domains,
    load_raw,
    load_records,
    recode,
    source_info,
    write_excerpt,
)
from dadp_lite.dataset import Dataset
from dadp_lite.experiments import (
    classification_accuracy,
    classification_baseline,
    compare_with_paper,
    data_release_table,
    release,
)
from dadp_lite.histogram import Histogram, histogram_of
from dadp_lite.mechanisms import *  # noqa: F403  (every sampler, generated)
from dadp_lite.metrics import (
    BiasEstimate,
    alpha_fairness,
    empirical_bias,
    l1_error,
    l1_norm,
    project_nonnegative,
    release_summary,
    round_counts,
)
from dadp_lite.paper import PAPER_EPSILONS, PAPER_K, PAPER_QI, PAPER_REPS, paper_tables
from dadp_lite.plotting import use_style
from dadp_lite.simulate import chunk_generators, make_rng, simulate
from dadp_lite.verification import FALSE_FAILURE, chernoff_log_bound, chernoff_log_limit, z_limit

__version__ = "0.2.0"

__all__ = [
    "AGE_EDGES",
    "ATTRIBUTES",
    "DATASETS",
    "FALSE_FAILURE",
    "PAPER_EPSILONS",
    "PAPER_K",
    "PAPER_QI",
    "PAPER_REPS",
    "BiasEstimate",
    "DataError",
    "Dataset",
    "Encoding",
    "Histogram",
    "alpha_fairness",
    "audit",
    "chunk_generators",
    "classification_accuracy",
    "classification_baseline",
    "compare_with_paper",
    "data_release_table",
    "dataset_label",
    "dataset_path",
    "empirical_bias",
    "experiments",
    "feature_domains",
    "histogram_of",
    "l1_error",
    "l1_norm",
    "load_raw",
    "load_records",
    "make_rng",
    "mechanisms",
    "paper_tables",
    "project_nonnegative",
    "recode",
    "registry",
    "release",
    "release_summary",
    "round_counts",
    "simulate",
    "source_info",
    "tables",
    "words",
    "theory",
    "use_style",
    "write_excerpt",
    "chernoff_log_bound",
    "chernoff_log_limit",
    "z_limit",
]
__all__ += mechanisms.__all__
