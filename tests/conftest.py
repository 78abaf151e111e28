"""Shared fixtures. Data come from $DADP_DATA_DIR (CI) or the user cache."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def root() -> Path:
    """The book's root folder."""
    return ROOT


@pytest.fixture(scope="session")
def ma_records():
    """Recoded MA records (verified)."""
    import dadp_lite as dl

    return dl.load_records("ma2019")


@pytest.fixture(scope="session")
def ma_histogram(ma_records):
    """The paper's five-feature histogram of MA (540 cells)."""
    import dadp_lite as dl

    return dl.histogram_of(ma_records)
