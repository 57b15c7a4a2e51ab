"""Fixtures for the compute tests: a fresh project and a checked compute service over it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compute_helpers import REAL_PATH, Compute


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "My Project"
    root.mkdir()
    return root


@pytest.fixture
def compute(project: Path) -> Compute:
    return Compute(project)


@pytest.fixture
def make_compute(project: Path) -> Any:
    def make(search_path: str = REAL_PATH, **settings: Any) -> Compute:
        return Compute(project, search_path, **settings)

    return make
