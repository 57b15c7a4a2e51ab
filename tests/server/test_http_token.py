"""Issue 21, case 11 for ``reckoner serve --http``: with RECKONER_HTTP_TOKEN (or --token) set,
every MCP request without ``Authorization: Bearer <token>`` is 401; unset, the server works
as before. A real server subprocess and the official MCP SDK client on loopback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_helpers import http_server, receipt_of, serve_command

TOKEN = "http-test-token-0123456789"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


def _client(url: str, headers: dict[str, str] | None = None) -> Client:
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    return Client(transport)


async def _tools_and_a_call(client: Client) -> tuple[list[str], dict[str, Any]]:
    async with client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        started = receipt_of(await client.call_tool("record_start", {"title": "with a token"}))
        return tools, started


def _refusal_of(failure: BaseException) -> str:
    """The message of the one MCP error an SDK failure group holds."""
    while isinstance(failure, BaseExceptionGroup):
        (failure,) = failure.exceptions
    return str(failure)


@pytest.mark.parametrize("how", ["variable", "flag"])
def test_with_a_token_set_the_sdk_client_without_the_header_is_refused_and_with_it_works(
    tmp_path: Path, how: str
) -> None:
    env = {"RECKONER_HTTP_TOKEN": TOKEN} if how == "variable" else {"RECKONER_HTTP_TOKEN": ""}
    extra = ("--token", TOKEN) if how == "flag" else ()
    home = tmp_path / "home"
    with http_server(home, env, extra=extra) as url:
        with pytest.raises(BaseException) as refused:
            anyio.run(_tools_and_a_call, _client(url))
        assert "answers only requests that carry its token" in _refusal_of(refused.value)
        for headers in ({}, {"authorization": "Bearer not-the-token-at-all"}):
            raw = httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **headers})
            assert raw.status_code == 401, raw.text
            assert "Authorization: Bearer" in raw.json()["error"]["message"]
        tools, started = anyio.run(
            _tools_and_a_call, _client(url, {"Authorization": f"Bearer {TOKEN}"})
        )
    assert {"set", "get", "eval", "record_start"} <= set(tools)
    assert started == {"ok": True}


def _record_files(home: Path) -> dict[str, int]:
    """Every file of the home but its logs, with its size."""
    return {
        str(path.relative_to(home)): path.stat().st_size
        for path in home.rglob("*")
        if path.is_file() and "logs" not in path.parts
    }


def test_a_refused_tool_call_never_reaches_the_engine(tmp_path: Path) -> None:
    """record_start without the token changes no file of the home; with it, it does."""
    home = tmp_path / "home"
    with http_server(home, {"RECKONER_HTTP_TOKEN": TOKEN}) as url:
        before = _record_files(home)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "record_start", "arguments": {"title": "sneaked in"}},
        }
        assert httpx.post(url, json=call, headers=MCP_HEADERS).status_code == 401
        assert _record_files(home) == before
        anyio.run(_tools_and_a_call, _client(url, {"Authorization": f"Bearer {TOKEN}"}))
        assert _record_files(home) != before


def test_without_the_variable_the_http_server_works_as_before(tmp_path: Path) -> None:
    with http_server(tmp_path / "home", {"RECKONER_HTTP_TOKEN": ""}) as url:
        tools, started = anyio.run(_tools_and_a_call, _client(url))
    assert "eval" in tools and started == {"ok": True}


@pytest.mark.parametrize(
    ("extra", "env", "words"),
    [
        (("--http", "--token", "short"), {}, "is 5 characters long"),
        (("--http",), {"RECKONER_HTTP_TOKEN": "no spaces in tokens please"}, "holds a character"),
        (("--token", TOKEN), {}, "guards the HTTP transport only"),
    ],
    ids=["flag-too-short", "variable-bad-characters", "token-without-http"],
)
def test_an_unusable_token_is_one_sentence_and_no_server_starts(
    tmp_path: Path, extra: tuple[str, ...], env: dict[str, str], words: str
) -> None:
    result = subprocess.run(
        serve_command(tmp_path / "home", "--port", "0", *extra),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert result.returncode != 0
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1
