"""Inputs: the NIST excerpts or any file in their schema, validated and recoded.

A dataset is a registered name (``"ma2019"``, ``"tx2019"``, ``"national2019"``: the
paper's MA, TX and Outlier; located, verified against the published SHA-256, downloaded
if needed) or the path of a ``.csv`` or ``.parquet`` file in the excerpt schema (columns
RAC1P, SEX, OWN_RENT, AGEP, PINCP at least). Five modules, one job each:

- :mod:`~dadp_lite.data.schema`: the schema's columns and domains, and the validation of
  every value (errors name the column and the row);
- :mod:`~dadp_lite.data.excerpts`: the registered excerpts (where, which hash, download);
- :mod:`~dadp_lite.data.files`: a name or a path -> a file -> text columns; labels;
  :func:`write_excerpt`;
- :mod:`~dadp_lite.data.encoding`: the :class:`Encoding` (age brackets, income cut,
  universe) that turns the columns into the paper's five features;
- :mod:`~dadp_lite.data.provenance`: :func:`source_info`, a run's input read, hashed and
  validated once.

Recoding under the default encoding (the paper used IPUMS names RACE, SEX, OWNERSHP,
AGE, INCTOT; the SDNist v2 files call them RAC1P, SEX, OWN_RENT, AGEP, PINCP):

``race``
    RAC1P, 9 codes (1-9), kept as they are.
``sex``
    SEX, codes 1 (male) and 2 (female).
``tenure``
    OWN_RENT, codes 0 (group quarters), 1 (owned), 2 (rented).
``age_bracket``
    AGEP cut into brackets by :data:`AGE_EDGES`: five equal-width brackets of 20 years,
    [0, 20), [20, 40), [40, 60), [60, 80), [80, 100). The paper only says its
    classification task divides ages "equitably into 5 age brackets"; equal width is our
    reading, and an :class:`Encoding` chooses another rule.
``income_over_50k``
    1 if PINCP > 50,000 else 0. PINCP is ``N`` for people under 15, who have no income
    and count as 0.
``age``
    the raw AGEP, kept for mechanisms that treat age as numeric.
"""

from dadp_lite.data.encoding import (
    AGE_RULES,
    DEFAULT_ENCODING,
    INCOME_RULES,
    IPUMS_NA_INCOME,
    NO_INCOME_RULES,
    UNIVERSES,
    EncodedRecords,
    Encoding,
    age_bracket_labels,
    encode,
    feature_domains,
    load_records,
    recode,
    resolve_encoding,
    universe_domains,
)
from dadp_lite.data.excerpts import (
    DATASETS,
    ENV_CACHE_DIR,
    ENV_DATA_DIR,
    UPSTREAM_BASE,
    UPSTREAM_COMMIT,
    DatasetInfo,
    dataset_info,
    dataset_path,
    sha256_of,
)
from dadp_lite.data.files import (
    ENV_READS_LOG,
    FILE_SUFFIXES,
    dataset_label,
    dataset_name,
    is_registered,
    load_raw,
    read_excerpt_csv,
    read_excerpt_file,
    read_excerpt_parquet,
    source_path,
    write_excerpt,
)
from dadp_lite.data.provenance import source_info
from dadp_lite.data.schema import (
    AGE_EDGES,
    ATTRIBUTES,
    FEATURES,
    INCOME_THRESHOLD,
    NO_INCOME,
    RAW_COLUMNS,
    DataError,
    ParsedExcerpt,
    check_columns,
    parse_excerpt,
)

__all__ = [
    "AGE_EDGES",
    "AGE_RULES",
    "ATTRIBUTES",
    "DATASETS",
    "DEFAULT_ENCODING",
    "ENV_CACHE_DIR",
    "ENV_DATA_DIR",
    "ENV_READS_LOG",
    "FEATURES",
    "FILE_SUFFIXES",
    "INCOME_RULES",
    "INCOME_THRESHOLD",
    "IPUMS_NA_INCOME",
    "NO_INCOME",
    "NO_INCOME_RULES",
    "RAW_COLUMNS",
    "UNIVERSES",
    "UPSTREAM_BASE",
    "UPSTREAM_COMMIT",
    "DataError",
    "DatasetInfo",
    "EncodedRecords",
    "Encoding",
    "ParsedExcerpt",
    "age_bracket_labels",
    "check_columns",
    "dataset_info",
    "dataset_label",
    "dataset_name",
    "dataset_path",
    "encode",
    "feature_domains",
    "is_registered",
    "load_raw",
    "load_records",
    "parse_excerpt",
    "read_excerpt_csv",
    "read_excerpt_file",
    "read_excerpt_parquet",
    "recode",
    "resolve_encoding",
    "sha256_of",
    "source_info",
    "source_path",
    "universe_domains",
    "write_excerpt",
]
