"""Installing prints no warning wall: setuptools reads ``pyproject.toml`` without a
deprecation (issue 33: the ``project.license`` table printed one three times per install).
"""

from __future__ import annotations

import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_setuptools_reads_the_project_configuration_without_a_warning():
    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        distribution = apply_configuration(Distribution(), ROOT / "pyproject.toml")
    shown = [f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught]
    assert shown == []
    assert distribution.get_name() == "dadp-lite"


def test_the_install_keeps_setuptools_information_note_off_the_terminal():
    """The one line of ``make`` that installs the project editable: no "Editable
    installation" note (information for setuptools' users, printed at every install)."""
    makefile = (ROOT / "Makefile").read_text()
    install = [line for line in makefile.splitlines() if "pip install" in line and " -e ." in line]
    assert install and all('PYTHONWARNINGS="ignore:Editable installation"' in i for i in install)
