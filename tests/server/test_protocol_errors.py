"""Issue 9, "protocol errors by the book": an unknown prompt is JSON-RPC -32602 and an
unknown resource -32002, each naming the valid ones, on every protocol revision the SDK
negotiates, over stdio and HTTP, with nothing but protocol on stdout and no traceback."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_helpers import RawStdioServer, assert_only_protocol, stdio_params
from mcp_types import INVALID_PARAMS
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from shared_servers import SharedHttpServer

from reckoner.server.texts import SKILLS

RESOURCE_NOT_FOUND = -32002
UNKNOWN_PROMPT = "no-such-skill"
UNKNOWN_URI = "reckoner://skills/no-such-skill"


def _assert_names_every_valid_one(message: str, names: list[str], unknown: str) -> None:
    assert unknown in message
    for name in names:
        assert name in message, (name, message)
    assert "Traceback" not in message and "Internal" not in message


def _assert_prompt_error(code: int, message: str) -> None:
    assert code == INVALID_PARAMS
    _assert_names_every_valid_one(message, [s.name for s in SKILLS], UNKNOWN_PROMPT)


def _assert_resource_error(code: int, message: str) -> None:
    assert code == RESOURCE_NOT_FOUND
    _assert_names_every_valid_one(message, [s.uri for s in SKILLS], UNKNOWN_URI)


def _assert_clean(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr
    assert " ERROR " not in stderr, stderr


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_unknown_prompt_and_resource_on_each_handshake_revision_over_stdio(
    tmp_path: Path, version: str
) -> None:
    """Raw JSON-RPC over the real server's pipes, offering each handshake revision.
    Spec: docs/guide/mcp-clients.md (issue 9)."""
    server = RawStdioServer(tmp_path / "home")
    try:
        assert server.initialize(version)["result"]["protocolVersion"] == version
        prompt = server.response(server.request("prompts/get", {"name": UNKNOWN_PROMPT}))
        resource = server.response(server.request("resources/read", {"uri": UNKNOWN_URI}))
        # The server is still whole afterwards: a known prompt is served.
        known = server.response(server.request("prompts/get", {"name": SKILLS[0].name}))
    finally:
        _, err = server.close()
    _assert_prompt_error(prompt["error"]["code"], prompt["error"]["message"])
    _assert_resource_error(resource["error"]["code"], resource["error"]["message"])
    assert known["result"]["messages"]
    assert_only_protocol(server.stdout_lines)
    _assert_clean(err.decode())


async def _both_errors(client: Client) -> list[tuple[int, str]]:
    errors: list[tuple[int, str]] = []
    for ask in (
        lambda: client.get_prompt(UNKNOWN_PROMPT),
        lambda: client.read_resource(UNKNOWN_URI),
    ):
        with pytest.raises(MCPError) as caught:
            await ask()
        errors.append((caught.value.code, caught.value.message))
    return errors


CLIENT_MODES = ["legacy", *MODERN_PROTOCOL_VERSIONS]
"""The SDK client's own negotiation: the newest handshake revision, then each modern one."""


def _expected_version(mode: str) -> str:
    return HANDSHAKE_PROTOCOL_VERSIONS[-1] if mode == "legacy" else mode


@pytest.mark.parametrize("mode", CLIENT_MODES)
def test_unknown_prompt_and_resource_through_the_sdk_client_over_stdio(
    tmp_path: Path, mode: str
) -> None:
    """Spec: docs/guide/mcp-clients.md (issue 9)."""
    errlog = tmp_path / "stderr.txt"

    async def main() -> tuple[str, list[tuple[int, str]]]:
        with errlog.open("w") as sink:
            async with Client(
                stdio_client(stdio_params(tmp_path / "home"), errlog=sink), mode=mode
            ) as client:
                return client.protocol_version, await _both_errors(client)

    version, errors = anyio.run(main)
    assert version == _expected_version(mode)
    _assert_prompt_error(*errors[0])
    _assert_resource_error(*errors[1])
    _assert_clean(errlog.read_text())


@pytest.mark.parametrize("mode", CLIENT_MODES)
def test_unknown_prompt_and_resource_over_streamable_http(
    shared_http_server: SharedHttpServer, mode: str
) -> None:
    """Each revision's client is a session of its own on the module's one HTTP server
    (tests/server/conftest.py): a client of each revision negotiates it afresh.
    Spec: docs/guide/mcp-clients.md (issue 9)."""

    async def main() -> tuple[str, list[tuple[int, str]]]:
        async with Client(shared_http_server.url, mode=mode) as client:
            return client.protocol_version, await _both_errors(client)

    version, errors = anyio.run(main)
    assert version == _expected_version(mode)
    _assert_prompt_error(*errors[0])
    _assert_resource_error(*errors[1])
    _assert_clean(shared_http_server.stderr_since())
