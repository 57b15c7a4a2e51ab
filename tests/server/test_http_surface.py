"""Issue 8, "security of the surfaces", for `reckoner serve --http`: the Host/Origin guard
holds on every loopback address it binds, a client hanging up is no traceback, and no
error body names a path of this machine. Real server subprocesses, real HTTP."""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp_helpers import HANDSHAKE_VERSION, http_server, receipt_of

from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive

MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": HANDSHAKE_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "rebinder", "version": "0"},
    },
}


# An absolute file path of two or more parts; a URL's path (after a host name) is not one.
MACHINE_PATH = re.compile(r"(?<![\w:/.])/(?:[\w.-]+/)+[\w.-]+")


def _host_port(url: str) -> tuple[str, int]:
    match = re.match(r"http://\[?([^\]/]+?)\]?:(\d+)/", url)
    assert match, url
    return match.group(1), int(match.group(2))


def _nothing_written(home: Path) -> bool:
    listing = RecordArchive(HomeLayout(home)).index()
    return listing.open is None and not listing.closed


def _session_id(response: httpx.Response) -> str:
    session = response.headers.get("mcp-session-id")
    assert session, response.headers
    return session


@pytest.mark.parametrize("host", ["127.0.0.2", "::1", "localhost"])
def test_rebinding_is_refused_on_every_loopback_address(tmp_path: Path, host: str) -> None:
    """A request whose Host is a foreign name (what a DNS-rebinding page sends) is refused
    before the MCP layer, on 127.0.0.2 as on the SDK's own three; nothing is written. The
    right Host works through the real MCP client.
    Spec: docs/guide/mcp-clients.md (issue 8)."""
    home = tmp_path / "home"
    with http_server(home, host=host) as url:
        _, port = _host_port(url)
        refused = []
        for headers in (
            {"host": "evil.example"},
            {"host": f"evil.example:{port}"},
            {"origin": f"http://evil.example:{port}"},
        ):
            with httpx.Client(timeout=30) as client:
                session = client.post(url, json=INITIALIZE, headers=MCP_HEADERS | headers)
                refused.append(session.status_code)
                # Even with a session id learnt some other way, a call is refused too.
                call = client.post(
                    url,
                    json={
                        "jsonrpc": "2.0",
                        "id": 2,
                        "method": "tools/call",
                        "params": {"name": "record_start", "arguments": {"title": "rebound"}},
                    },
                    headers=MCP_HEADERS | headers,
                )
                refused.append(call.status_code)
        assert refused == [421, 421, 421, 421, 403, 403]
        assert _nothing_written(home)

        async def main() -> dict[str, Any]:
            async with Client(url) as client:
                return receipt_of(await client.call_tool("record_start", {"title": "own host"}))

        assert anyio.run(main) == {"ok": True}
    listing = RecordArchive(HomeLayout(home)).index()
    assert listing.open is not None and listing.open.title == "own host"


def _raw_request(host: str, port: int, head: str, body: bytes, *, then_close: bool) -> None:
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(head.encode() + b"\r\n" + body)
        if not then_close:
            sock.recv(65536)


def test_a_client_hanging_up_over_http_is_no_traceback(tmp_path: Path) -> None:
    """Clients that hang up mid-body, mid-call and right after a call: the server logs at
    most a line for each, never a traceback, and the next client is served.
    Spec: docs/guide/mcp-clients.md (issue 8)."""
    home = tmp_path / "home"
    stderr: list[bytes] = []
    with http_server(home, stderr_sink=stderr) as url:
        host, port = _host_port(url)
        opened = httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS, timeout=30)
        session = _session_id(opened)
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\n"
            f"Mcp-Protocol-Version: {HANDSHAKE_VERSION}\r\n"
        )
        initialized = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
        _raw_request(
            host,
            port,
            head + f"Content-Length: {len(initialized)}\r\n",
            initialized.encode(),
            then_close=False,
        )
        # Half a body, then gone.
        _raw_request(host, port, head + "Content-Length: 5000\r\n", b'{"jsonrpc"', then_close=True)
        # A slow call, and the client leaves before its answer.
        slow = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {
                    "name": "eval",
                    "arguments": {"formula": "$sum_{k=1}^{400000}(k^1)", "target": "s"},
                },
            }
        )
        _raw_request(
            host, port, head + f"Content-Length: {len(slow)}\r\n", slow.encode(), then_close=True
        )
        time.sleep(1.0)

        async def main() -> dict[str, Any]:
            async with Client(url) as client:
                return receipt_of(await client.call_tool("record_start", {"title": "next"}))

        assert anyio.run(main) == {"ok": True}
    text = b"".join(stderr).decode()
    assert "Traceback" not in text, text
    # The announcement, plus at most one line for each of the two hang-ups.
    lines = text.strip().splitlines()
    assert len(lines) <= 3, text
    for line in lines[1:]:
        assert "a client hung up mid-request (" in line and "%s" not in line, line


def test_http_error_bodies_name_no_path_of_this_machine(tmp_path: Path) -> None:
    """Every refusal the HTTP server gives a hostile or broken request is free of the home
    path and of any file path of the installation.
    Spec: docs/guide/mcp-clients.md (issue 8)."""
    home = tmp_path / "a-very-recognisable-home"
    with http_server(home) as url:
        base = url.removesuffix("/mcp")
        answers = [
            httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS | {"host": "evil.example"}),
            httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS | {"origin": "http://x.test"}),
            httpx.post(url, content=b"{not json", headers=MCP_HEADERS),
            httpx.post(url, content=b'{"jsonrpc":"2.0","id":1}', headers=MCP_HEADERS),
            httpx.post(url, json=INITIALIZE, headers={"content-type": "text/plain"}),
            httpx.post(url, content=b"x" * (5 * 1024 * 1024), headers=MCP_HEADERS),
            httpx.post(
                url,
                json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                headers=MCP_HEADERS | {"mcp-session-id": "not-a-session"},
            ),
            httpx.get(url, headers={"accept": "text/plain"}),
            httpx.delete(url),
            httpx.get(f"{base}/../../../etc/passwd"),
            httpx.get(f"{base}/mcp/../../etc/passwd"),
            httpx.put(url, content=b"{}", headers=MCP_HEADERS),
        ]
    for answer in answers:
        assert answer.status_code >= 400, (answer.request.url, answer.status_code, answer.text)
        body = answer.text
        assert str(tmp_path) not in body and "a-very-recognisable-home" not in body, body
        assert not MACHINE_PATH.search(body), body
        assert "root:" not in body, body
        assert "Traceback" not in body, body


def test_sigterm_stops_the_http_server_while_a_request_is_stuck(tmp_path: Path) -> None:
    """A client that sends half a body and waits forever: SIGTERM still ends the server
    (the helper waits at most 30 s for it), with no traceback, and the engine is closed
    (the shared record's engine, open from the start; a session's own opens on its first
    call).
    Spec: docs/guide/mcp-clients.md (issue 8)."""
    home = tmp_path / "home"
    stderr: list[bytes] = []
    with http_server(home, stderr_sink=stderr, extra=("--shared-record",)) as url:
        host, port = _host_port(url)
        stuck = socket.create_connection((host, port), timeout=30)
        stuck.sendall(
            (
                f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"
            ).encode()
        )
        time.sleep(0.5)
    stuck.close()
    text = b"".join(stderr).decode()
    assert "Traceback" not in text, text
    assert "engine closed" in "".join(p.read_text() for p in (home / "logs").glob("*.log"))
