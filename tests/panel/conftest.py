"""Fixtures of the panel's tests: an empty home, and the panel's app in a test client bound
as ``reckoner panel`` binds by default."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from reckoner.panel.app import create_app
from reckoner.panel.background import BackgroundPanel

HOST = "127.0.0.1"
PORT = 8765


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    (root / "records").mkdir(parents=True)
    return root


@pytest.fixture
def client(home: Path) -> Iterator[TestClient]:
    app = create_app(home, bound_host=HOST, bound_port=PORT)
    with TestClient(app, base_url=f"http://{HOST}:{PORT}") as test_client:
        yield test_client


@pytest.fixture
def panel(home: Path) -> Iterator[BackgroundPanel]:
    """The real panel server on a loopback port, polling every 200 ms (the default is 5 s)."""
    with BackgroundPanel(home, poll_ms=200) as running:
        yield running
