"""The MCP tests' shared servers: one `reckoner serve` per module for the tests that only
call tools on it (tests/server/shared_servers.py; docs/decisions/tests.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from shared_servers import SharedClient, SharedRawServer, handed_out


@pytest.fixture(scope="module")
def _shared_client_holder() -> Iterator[dict[str, Any]]:
    holder: dict[str, Any] = {}
    yield holder
    if holder.get("server") is not None:
        holder["server"].close()


@pytest.fixture
def shared_client(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _shared_client_holder: dict[str, Any],
) -> Iterator[SharedClient]:
    """The module's SDK client session over stdio, as the last test left it: no record
    open, the session answering."""

    def start() -> SharedClient:
        return SharedClient(tmp_path_factory.mktemp("shared-client") / "home")

    yield from handed_out(_shared_client_holder, start, request.node.name)


@pytest.fixture(scope="module")
def _shared_raw_holder() -> Iterator[dict[str, Any]]:
    holder: dict[str, Any] = {}
    yield holder
    if holder.get("server") is not None:
        holder["server"].close()


@pytest.fixture
def shared_raw_server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _shared_raw_holder: dict[str, Any],
) -> Iterator[SharedRawServer]:
    """The module's raw-pipe server, as the last test left it: alive, nothing unread, no
    record open."""

    def start() -> SharedRawServer:
        return SharedRawServer(tmp_path_factory.mktemp("shared-raw") / "home")

    yield from handed_out(_shared_raw_holder, start, request.node.name)
