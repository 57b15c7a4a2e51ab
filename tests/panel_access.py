"""How a test reaches the panel with its token: one place, so every fixture signs in alike.

A test client or an ``httpx`` client sends ``Authorization: Bearer <token>``; a browser opens
the panel's ``login_url`` (see ``reckoner.panel.login``), as a user opens the printed link.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.testclient import TestClient

from reckoner.panel.app import PanelOptions, create_app
from reckoner.panel.background import BackgroundPanel

HOST = "127.0.0.1"
PORT = 8765
BASE = f"http://{HOST}:{PORT}"
TOKEN = "panel-test-token-0123456789"
BEARER = {"authorization": f"Bearer {TOKEN}"}


def panel_app(home: Path, **options: Any) -> Starlette:
    """The panel's app bound as ``reckoner panel`` binds by default, with ``TOKEN``."""
    return create_app(home, PanelOptions(HOST, PORT, TOKEN, **options))


def signed_in(app: Starlette, **options: Any) -> TestClient:
    """A test client of ``app`` (made by ``panel_app``) that sends the token on every request."""
    return TestClient(app, base_url=BASE, headers=BEARER, **options)


def http_client(panel: BackgroundPanel, **options: Any) -> httpx.Client:
    """An HTTP client of a running panel that sends its token on every request."""
    return httpx.Client(base_url=panel.url.rstrip("/"), headers=panel.headers, **options)
