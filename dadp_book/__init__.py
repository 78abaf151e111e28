"""The book machinery: MyST chapters -> executed notebooks (papermill) -> HTML, reruns, sweeps.

One job per module, arrows pointing down this list (nothing in the science package imports
from here):

- ``cli``: the ``dadp-book`` command, on click (build, params, run, sweep, glue, course, grade)
- ``build``, ``run``, ``sweep``: the three ways to execute chapters
- ``points``, ``runners``: a sweep's grid points and their records on disk, local/Dask pools
- ``stage``, ``render``, ``glue``: the staged book, Jupyter Book HTML, glued values
- ``execute``: THE papermill executor (kernel environment, kernels on Unix sockets, failure text)
- ``provenance``: hashes and versions that say what a result was computed from
- ``parameters``, ``spec``: the parameter vocabulary, declarations, validation (pydantic)
- ``discovery``, ``yamlio``, ``outputs``, ``errors``: book root and chapters, strict YAML,
  atomic outputs and temporary folders, the one error type
- ``sphinx_ext``: the Sphinx extension listed in ``_config.yml``
- ``course``: the course kit (``course``, ``grade``): otter-grader notebooks and local grading
"""
