"""Shared fixtures of the article tests: a home holding the hand-written record, and an
empty output folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from article_helpers import HAND_ID, hand_rows, write_record

from chromium import page_of
from panel_access import http_client
from reckoner.panel.background import BackgroundPanel


@pytest.fixture
def home(tmp_path: Path) -> Path:
    write_record(tmp_path / "home", HAND_ID, hand_rows())
    return tmp_path / "home"


@pytest.fixture
def out(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


@pytest.fixture
def panel(home: Path) -> Iterator[BackgroundPanel]:
    """The panel over ``home``, served on loopback from a background thread."""
    with BackgroundPanel(home, poll_ms=300) as running:
        yield running


@pytest.fixture
def http(panel: BackgroundPanel) -> Iterator[httpx.Client]:
    """An HTTP client of ``panel`` that carries its token."""
    with http_client(panel, timeout=60) as client:
        yield client


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A Chromium page of the session's browser, large enough for the article dialog."""
    with page_of(browser, size=(1200, 1000)) as opened:
        yield opened
