"""Starting real `reckoner serve` processes for the MCP tests: stdio via the SDK client or raw
pipes, and streamable HTTP on loopback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from mcp.client.stdio import StdioServerParameters

from reckoner.contract.codes import ErrorCode

HANDSHAKE_VERSION = "2025-06-18"


def serve_command(home: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "reckoner", "serve", "--home", str(home), *extra]


def stdio_params(home: Path, *extra: str) -> StdioServerParameters:
    command = serve_command(home, *extra)
    return StdioServerParameters(command=command[0], args=command[1:])


def receipt_of(result: Any) -> dict[str, Any]:
    """The receipt a tool result carries, checked against its text twin and isError."""
    from reckoner.wire import dumps_text

    receipt = result.structured_content
    assert isinstance(receipt, dict)
    assert len(result.content) == 1
    assert result.content[0].type == "text"
    assert result.content[0].text == dumps_text(receipt)
    assert result.is_error is (receipt.get("ok") is not True)
    return receipt


class RawStdioServer:
    """A `reckoner serve` child spoken to over raw pipes, byte for byte."""

    def __init__(
        self,
        home: Path,
        env: dict[str, str] | None = None,
        extra: tuple[str, ...] = (),
        stderr: IO[bytes] | int = subprocess.PIPE,
    ) -> None:
        """``stderr`` a file instead of the pipe, for a server that outlives one test."""
        self.process = subprocess.Popen(
            serve_command(home, *extra),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env={**os.environ, **(env or {})},
        )
        self.stdout_lines: list[bytes] = []
        self._next_id = 1

    @property
    def stdin(self) -> IO[bytes]:
        assert self.process.stdin is not None
        return self.process.stdin

    def send_bytes(self, data: bytes) -> None:
        self.stdin.write(data)
        self.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(json.dumps(message).encode() + b"\n")

    def request(self, method: str, params: dict[str, Any]) -> int:
        request_id = self._next_id
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return request_id

    def read_message(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the server closed stdout"
        self.stdout_lines.append(line)
        message = json.loads(line)
        assert isinstance(message, dict)
        return message

    def response(self, request_id: int) -> dict[str, Any]:
        """Read messages until the response to ``request_id``."""
        while True:
            message = self.read_message()
            if message.get("id") == request_id:
                return message

    def initialize(self, version: str = HANDSHAKE_VERSION) -> dict[str, Any]:
        answer = self.response(
            self.request(
                "initialize",
                {
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "raw-test", "version": "0"},
                },
            )
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call_tool(self, name: str, arguments: Any) -> dict[str, Any]:
        answer = self.response(self.request("tools/call", {"name": name, "arguments": arguments}))
        result = answer["result"]
        assert isinstance(result, dict)
        return result

    def close(self, timeout: float = 30) -> tuple[bytes, bytes]:
        """Close stdin, wait for exit, and return the rest of stdout and all of stderr."""
        out, err = self.process.communicate(timeout=timeout)
        self.stdout_lines.extend(out.splitlines(keepends=True))
        return out, err


def assert_only_protocol(lines: list[bytes]) -> None:
    """Every line the server wrote to stdout is one JSON-RPC 2.0 message."""
    for line in lines:
        message = json.loads(line)
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line[:200]


@contextmanager
def http_server(
    home: Path,
    env: dict[str, str] | None = None,
    *,
    host: str = "127.0.0.1",
    stderr_sink: list[bytes] | None = None,
    extra: tuple[str, ...] = (),
    process_sink: list[subprocess.Popen[bytes]] | None = None,
) -> Iterator[str]:
    """`reckoner serve --http --port 0` on loopback (``extra`` options after those); yields
    the MCP URL it announces.

    ``stderr_sink`` receives every stderr line, complete once the context has exited;
    ``process_sink`` the server's process, for a test that stops it itself.
    """
    process = subprocess.Popen(
        serve_command(home, "--http", "--host", host, "--port", "0", *extra),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    sink = stderr_sink if stderr_sink is not None else []
    if process_sink is not None:
        process_sink.append(process)
    drain: threading.Thread | None = None
    try:
        assert process.stderr is not None
        deadline = time.monotonic() + 60
        url = None
        while url is None and time.monotonic() < deadline:
            raw = process.stderr.readline()
            sink.append(raw)
            line = raw.decode()
            if not line and process.poll() is not None:
                raise AssertionError(f"server exited with {process.returncode}")
            match = re.search(r"(http://\S+/mcp)", line)
            if match:
                url = match.group(1)
        assert url is not None, "the server never announced its URL"
        # Keep draining stderr so a chatty server can never block on a full pipe.
        stderr = process.stderr
        drain = threading.Thread(target=lambda: sink.extend(stderr), daemon=True)
        drain.start()
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        if drain is not None:
            drain.join(timeout=10)
        assert process.stdout is not None
        out = process.stdout.read()
        process.stdout.close()
        # Over HTTP stdout carries nothing at all: logs go to stderr and the home's logs/.
        assert out == b"", out[:200]


# Every wrong argument type the schemas rule out, sent anyway: the engine judges each one.
WRONG_ARGUMENTS: list[tuple[str, Any, ErrorCode]] = [
    ("set", {"value": {"num": 1}}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "x"}, ErrorCode.INVALID_ARGS),
    ("set", {"name": 7, "value": {"num": 1}}, ErrorCode.INVALID_IDENTIFIER),
    ("set", {"name": "@x", "value": {"num": 1}}, ErrorCode.INVALID_IDENTIFIER),
    ("set", {"name": "x", "value": 12}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "x", "value": "12 V"}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "x", "value": {"num": "12"}}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "x", "value": {"num": True}}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "x", "value": {"num": None}}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "x", "value": {"num": 1, "re": 2}}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "x", "value": {"re": 1}}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "x", "value": {"array": "1,2"}}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "x", "value": {"object": [1]}}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "x", "value": {"num": 1, "dim": 5}}, ErrorCode.INVALID_DIMENSION),
    ("set", {"name": "x", "value": {"num": 1, "dim": [1, 2]}}, ErrorCode.INVALID_DIMENSION),
    ("set", {"name": "x", "value": {"num": 1, "dim": "kOhm"}}, ErrorCode.INVALID_DIMENSION),
    ("set", {"name": "x", "value": {"num": 1}, "unit": "V"}, ErrorCode.INVALID_ARGS),
    ("get", {}, ErrorCode.INVALID_ARGS),
    ("get", {"name": ["R"]}, ErrorCode.INVALID_IDENTIFIER),
    ("get", {"name": "R", "form": 1}, ErrorCode.INVALID_ARGS),
    ("get", {"name": "R", "form": "cartesian"}, ErrorCode.INVALID_ARGS),
    ("get", {"name": "R", "digits": "4"}, ErrorCode.INVALID_ARGS),
    ("get", {"name": "R", "digits": 0}, ErrorCode.INVALID_ARGS),
    ("get", {"name": "R", "digits": 2.5}, ErrorCode.INVALID_ARGS),
    ("get", {"name": "R", "dim": {"ohm": 1}}, ErrorCode.INVALID_DIMENSION),
    ("eval", {"target": "y"}, ErrorCode.INVALID_ARGS),
    ("eval", {"formula": 42, "target": "y"}, ErrorCode.INVALID_ARGS),
    ("eval", {"formula": "1+1"}, ErrorCode.INVALID_ARGS),
    ("eval", {"formula": "1+1", "target": None}, ErrorCode.INVALID_ARGS),
    ("eval", {"formula": "1+1", "target": 3}, ErrorCode.INVALID_IDENTIFIER),
    ("eval", {"formula": "1+1", "target": "2y"}, ErrorCode.INVALID_IDENTIFIER),
    ("record_start", {"title": "again"}, ErrorCode.OPEN_RECORD_FOUND),
    ("record_message", {}, ErrorCode.INVALID_ARGS),
    ("record_message", {"text": 5}, ErrorCode.INVALID_ARGS),
    ("record_message", {"text": ""}, ErrorCode.INVALID_ARGS),
    ("record_message", {"text": "ok", "hide": "yes"}, ErrorCode.INVALID_ARGS),
    ("record_end", {"text": 5}, ErrorCode.INVALID_ARGS),
    # Issue 14's keys, wrong: a unit's type, grammar and vector, dim beside it, read's shape.
    ("set", {"name": "R", "value": {"num": 1, "unit": 5}}, ErrorCode.INVALID_DIMENSION),
    ("set", {"name": "R", "value": {"num": 1, "unit": "degC/s"}}, ErrorCode.INVALID_DIMENSION),
    ("set", {"name": "R", "value": {"num": 1, "unit": "m", "dim": "ohm"}}, ErrorCode.INVALID_ARGS),
    ("get", {"name": "R", "unit": "mA"}, ErrorCode.INCOMPATIBLE_DIMENSION),
    ("get", {"name": "R", "unit": "kOhm", "dim": "ohm"}, ErrorCode.INVALID_ARGS),
    ("eval", {"formula": "@R", "target": "R", "read": []}, ErrorCode.INVALID_ARGS),
    # Issue 14's read on set and read lists, wrong: each refuses the whole call.
    ("eval", {"formula": "@R", "target": "R", "read": [{}] * 5}, ErrorCode.INVALID_ARGS),
    ("eval", {"formula": "@R", "target": "R", "read": [{}, "kOhm"]}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "R", "value": {"num": 1}, "read": []}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "R", "value": {"num": 1}, "read": "degC"}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "R", "value": {"num": 1}, "read": [{"colour": 1}]}, ErrorCode.INVALID_ARGS),
    ("set", {"name": "R", "value": None, "read": {}}, ErrorCode.INVALID_ARGS),
    (
        "set",
        {"name": "R", "value": {"num": 1, "unit": "ohm"}, "read": [{}, {"unit": "V"}]},
        ErrorCode.INCOMPATIBLE_DIMENSION,
    ),
    (
        "eval",
        {"formula": "@R", "target": "R", "read": {"unit": "V"}},
        ErrorCode.INCOMPATIBLE_DIMENSION,
    ),
]
