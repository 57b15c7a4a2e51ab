"""`reckoner serve --http` takes an IPv6 loopback address with or without the brackets of
its URL spelling, as the panel does (issue 24: one network module); a non-loopback address
is refused with the same sentence either way, and a taken port is one sentence too. Real
server subprocesses and the official MCP SDK client."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_helpers import http_server, receipt_of, serve_command

NOT_LOOPBACK = (
    "is not a loopback address; reckoner serves MCP over HTTP on loopback only (127.0.0.1, "
    "::1 or localhost), because it has no authentication"
)


@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_an_ipv6_loopback_host_is_served_with_or_without_brackets(
    tmp_path: Path, host: str
) -> None:
    with http_server(tmp_path / "home", host=host) as url:
        assert url.startswith("http://[::1]:") and url.endswith("/mcp")

        async def main() -> dict[str, object]:
            async with Client(url) as client:
                return receipt_of(await client.call_tool("record_start", {"title": "v6"}))

        assert anyio.run(main) == {"ok": True}


@pytest.mark.parametrize("host", ["2001:db8::1", "[2001:db8::1]"])
def test_a_non_loopback_ipv6_host_is_refused_with_the_one_sentence(
    tmp_path: Path, host: str
) -> None:
    done = subprocess.run(
        [*serve_command(tmp_path / "home"), "--http", "--host", host, "--port", "0"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == f"reckoner: --host {host!r} {NOT_LOOPBACK}\n"


def test_a_taken_port_is_one_sentence_naming_the_address(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*serve_command(tmp_path / "home"), "--http", "--port", str(port)],
            capture_output=True,
            timeout=60,
        )
    assert done.returncode == 2 and done.stdout == b""
    said = done.stderr.decode()
    assert said.startswith(f"reckoner: cannot listen on 127.0.0.1:{port} (")
    assert said.endswith("); pick another port with --port\n") and "Traceback" not in said
