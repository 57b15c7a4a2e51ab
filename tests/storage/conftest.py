"""Shared fixtures for the storage tests: a prepared home in a tmp dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from reckoner.storage.home import HomeLayout


@pytest.fixture
def layout(tmp_path: Path) -> HomeLayout:
    home = HomeLayout(tmp_path / "home")
    home.prepare()
    return home
