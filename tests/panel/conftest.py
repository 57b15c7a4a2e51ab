"""Fixtures of the panel's tests: an empty home, and the panel's app in a test client bound
as ``reckoner panel`` binds by default, sending its token (``panel_access``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from panel_access import panel_app, signed_in
from reckoner.panel.background import BackgroundPanel


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    (root / "records").mkdir(parents=True)
    return root


@pytest.fixture
def client(home: Path) -> Iterator[TestClient]:
    with signed_in(panel_app(home)) as test_client:
        yield test_client


@pytest.fixture
def panel(home: Path) -> Iterator[BackgroundPanel]:
    """The real panel server on a loopback port, polling every 200 ms (the default is 5 s)."""
    with BackgroundPanel(home, poll_ms=200) as running:
        yield running
