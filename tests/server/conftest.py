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


def _shared_fixture(name: str, kind: type[Any], folder: str, doc: str) -> Any:
    """The fixture `name`: the module's one server of `kind` (started on first use in a
    fresh home under a folder named `folder`), handed out by `handed_out`."""

    @pytest.fixture(name=name)
    def fixture(
        request: pytest.FixtureRequest,
        tmp_path_factory: pytest.TempPathFactory,
        _module_servers: dict[str, Any],
    ) -> Iterator[Any]:
        def start() -> Any:
            return kind(tmp_path_factory.mktemp(folder) / "home")

        yield from handed_out(_module_servers, start, request)

    fixture.__doc__ = doc
    return fixture


shared_client = _shared_fixture(
    "shared_client",
    SharedClient,
    "shared-client",
    "The module's SDK client session over stdio, as the last test left it: no record open, "
    "the session answering.",
)
shared_raw_server = _shared_fixture(
    "shared_raw_server",
    SharedRawServer,
    "shared-raw",
    "The module's raw-pipe server, as the last test left it: alive, nothing unread, no "
    "record open.",
)
shared_http_server = _shared_fixture(
    "shared_http_server",
    SharedHttpServer,
    "shared-http",
    "The module's `reckoner serve --http` (default flags), as the last test left it: "
    "running, no record open.",
)
