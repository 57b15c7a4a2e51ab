"""The MCP tests' shared servers: one `reckoner serve` per module for the tests that only
call tools on it (tests/server/shared_servers.py; docs/decisions/tests.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from shared_servers import SharedClient, SharedHttpServer, SharedRawServer, handed_out


@pytest.fixture(scope="module")
def _module_servers() -> Iterator[dict[str, Any]]:
    """The module's shared servers by fixture name; each stopped (and checked) at its end."""
    servers: dict[str, Any] = {}
    yield servers
    for server in servers.values():
        if server is not None:
            server.close()


@pytest.fixture
def shared_client(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _module_servers: dict[str, Any],
) -> Iterator[SharedClient]:
    """The module's SDK client session over stdio, as the last test left it: no record
    open, the session answering."""

    def start() -> SharedClient:
        return SharedClient(tmp_path_factory.mktemp("shared-client") / "home")

    yield from handed_out(_module_servers, start, request)


@pytest.fixture
def shared_raw_server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _module_servers: dict[str, Any],
) -> Iterator[SharedRawServer]:
    """The module's raw-pipe server, as the last test left it: alive, nothing unread, no
    record open."""

    def start() -> SharedRawServer:
        return SharedRawServer(tmp_path_factory.mktemp("shared-raw") / "home")

    yield from handed_out(_module_servers, start, request)


@pytest.fixture
def shared_http_server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _module_servers: dict[str, Any],
) -> Iterator[SharedHttpServer]:
    """The module's `reckoner serve --http` (default flags), as the last test left it:
    running, no record open."""

    def start() -> SharedHttpServer:
        return SharedHttpServer(tmp_path_factory.mktemp("shared-http") / "home")

    yield from handed_out(_module_servers, start, request)
