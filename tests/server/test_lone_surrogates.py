r"""Issue 9, "text is text", over MCP: a lone surrogate (``"\ud800"``, legal JSON) sent by a
client reaches the engine and is stored exactly, over stdio and over HTTP, though the SDK's
own parser refuses it. Raw bytes, since the SDK's client cannot send such text either.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from mcp_helpers import HANDSHAKE_VERSION, RawStdioServer, http_server

from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive


def _call_line(request_id: int, tool: str, arguments_json: str) -> bytes:
    """A tools/call request whose arguments are written as raw JSON text."""
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
        f'"params":{{"name":"{tool}","arguments":{arguments_json}}}}}\n'
    ).encode()


def _closed_rows(home: Path) -> list[dict[str, Any]]:
    archive = RecordArchive(HomeLayout(home))
    listing = archive.index()
    assert listing.open_records == [] and len(listing.closed) == 1
    view = archive.read(listing.closed[0].id)
    assert view is not None
    return view.rows


def test_lone_surrogates_over_stdio_are_stored_exactly(tmp_path: Path) -> None:
    """Spec: docs/guide/mcp-clients.md (issue 9)."""
    home = tmp_path / "home"
    server = RawStdioServer(home)
    try:
        server.initialize()
        calls = [
            ("record_start", r'{"title":"\ud800 title"}'),
            ("record_message", r'{"text":"a\udfffb\u0000c"}'),
            ("set", r'{"name":"\ud800","value":{"num":1}}'),
            ("record_end", r'{"text":"\udbff"}'),
        ]
        answers = []
        for request_id, (tool, arguments) in enumerate(calls, start=100):
            server.send_bytes(_call_line(request_id, tool, arguments))
            answers.append(server.response(request_id)["result"]["structuredContent"])
    finally:
        server.close()
    assert answers[:2] == [{"ok": True}, {"ok": True}]
    assert answers[2]["code"] == "ENGINE_INVALID_IDENTIFIER"  # refused, with its sentence
    assert answers[3] == {"ok": True}
    rows = _closed_rows(home)
    assert rows[0]["content"]["title"] == "\ud800 title"
    assert rows[1]["content"]["text"] == "a\udfffb\x00c"
    assert rows[2]["ok"] is False
    assert rows[3]["content"]["text"] == "\udbff"


def _post(client: httpx.Client, url: str, message: dict[str, Any] | bytes, **headers: str) -> Any:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    response = client.post(
        url,
        content=body,
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": HANDSHAKE_VERSION,
            **headers,
        },
        timeout=60,
    )
    return response


def _answer(response: httpx.Response) -> dict[str, Any]:
    if response.headers["content-type"].startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data: ") and line[6:].strip():
                message: dict[str, Any] = json.loads(line[6:])
                if "id" in message:
                    return message
        raise AssertionError(response.text)
    answer: dict[str, Any] = response.json()
    return answer


def test_lone_surrogates_over_http_are_stored_exactly(tmp_path: Path) -> None:
    """Spec: docs/guide/mcp-clients.md (issue 9)."""
    home = tmp_path / "home"
    with http_server(home) as url, httpx.Client() as client:
        opened = _post(
            client,
            url,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": HANDSHAKE_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "raw-http", "version": "0"},
                },
            },
        )
        assert opened.status_code == 200, opened.text
        session = {"mcp-session-id": opened.headers["mcp-session-id"]}
        _post(client, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, **session)
        answers = []
        for request_id, (tool, arguments) in enumerate(
            [
                ("record_start", r'{"title":"\udc00"}'),
                ("record_message", r'{"text":"x\ud800"}'),
                ("record_end", "{}"),
            ],
            start=2,
        ):
            response = _post(client, url, _call_line(request_id, tool, arguments), **session)
            assert response.status_code == 200, response.text
            answers.append(_answer(response)["result"]["structuredContent"])
    assert answers == [{"ok": True}, {"ok": True}, {"ok": True}]
    rows = _closed_rows(home)
    assert rows[0]["content"]["title"] == "\udc00"
    assert rows[1]["content"]["text"] == "x\ud800"
