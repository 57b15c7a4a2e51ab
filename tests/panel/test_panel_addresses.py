"""The panel takes an IPv6 loopback address with or without the brackets of its URL
spelling, as the MCP server does (issue 24: one network module), and shows it bracketed
once. A real panel on loopback, reached with its token."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from panel_access import http_client
from reckoner.panel.background import BackgroundPanel


@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_an_ipv6_loopback_panel_is_served_with_or_without_brackets(home: Path, host: str) -> None:
    with BackgroundPanel(home, host=host) as panel:
        assert panel.url == f"http://[::1]:{panel.port}/"
        with http_client(panel, timeout=30) as client:
            listing = client.get("/api/reckoner/records-index")
        assert listing.status_code == 200
        assert listing.json()["closed"] == []
        # The guard answers to the address it was bound to, spelled as a Host header.
        foreign = httpx.get(
            f"{panel.url}api/reckoner/records-index",
            headers={**panel.headers, "host": f"evil.example:{panel.port}"},
            timeout=30,
        )
        assert foreign.status_code == 421
