"""Shared fixtures of the article tests: a home holding the hand-written record, and an
empty output folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from article_helpers import HAND_ID, hand_rows, write_record


@pytest.fixture
def home(tmp_path: Path) -> Path:
    write_record(tmp_path / "home", HAND_ID, hand_rows())
    return tmp_path / "home"


@pytest.fixture
def out(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    return folder
