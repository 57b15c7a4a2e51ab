"""Issue 21, case 14: every line written to `reckoner serve`'s stdin gets an answer within a
deadline: a JSON-RPC parse error (-32700) for a line that is not JSON, an invalid request
(-32600) for JSON that is not a request or a line over the limit, and the engine's receipt
for what the engine accepts (values nested up to MAX_VALUE_DEPTH). The session goes on
after each, and stdout carries protocol only.

The raw-pipe tests send their lines to one server for the module (the promise is that the
session goes on after each line, so one process answering them all is the promise itself);
the SDK client's test has its own.
Spec: docs/guide/mcp-clients.md (issue 21)."""

from __future__ import annotations

import json
import select
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_helpers import RawStdioServer, assert_only_protocol, receipt_of, stdio_params
from shared_servers import SharedRawServer

from reckoner.contract.codes import ErrorCode
from reckoner.contract.limits import MAX_VALUE_DEPTH
from reckoner.server.stdio_lines import MAX_LINE_BYTES, MAX_MESSAGE_DEPTH

ANSWER_SECONDS = 20.0


def _answer(server: RawStdioServer) -> dict[str, Any]:
    """The next message on stdout, which must come within the deadline."""
    assert server.process.stdout is not None
    ready, _, _ = select.select([server.process.stdout], [], [], ANSWER_SECONDS)
    assert ready, f"no answer within {ANSWER_SECONDS} s"
    return server.read_message()


def _nested_objects(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"num": 1}
    for _ in range(levels):
        value = {"object": {"k": value}}
    return value


def _nested_arrays(levels: int) -> dict[str, Any]:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return {"array": value}


def _levels(value: dict[str, Any], form: str) -> int:
    """How many levels a value echoed in a receipt nests, in its form."""
    text = json.dumps(value)
    return text.count('"object"') if form == "object" else text.count("[") - text.count('"dim"')


@pytest.fixture
def server(shared_raw_server: SharedRawServer) -> RawStdioServer:
    """The module's one raw-pipe server (tests/server/conftest.py): every line a test sends
    is a request to the same process, which must answer it and go on, test after test."""
    return shared_raw_server.server


def _assert_clean(shared: SharedRawServer) -> None:
    """What this test made the server write: protocol only on stdout, no traceback on
    stderr (the module's last check, when the server exits, sees every line again)."""
    assert b"Traceback" not in shared.stderr_since()
    assert_only_protocol(shared.stdout_since())


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"garbage", -32700),
        (b"[", -32700),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', -32700),
        (b"\xff\xfe not even utf-8", -32700),
        (b"{}", -32600),
        (b"42", -32600),
        (b'[{"jsonrpc": "2.0", "id": 3, "method": "ping"}]', -32600),
        (b'{"jsonrpc": "1.0", "method": "ping"}', -32600),
    ],
)
def test_a_line_that_is_no_request_is_answered_with_its_json_rpc_error_and_the_session_goes_on(
    server: RawStdioServer, shared_raw_server: SharedRawServer, line: bytes, code: int
) -> None:
    """JSON-RPC 2.0, section 5.1: -32700 parse error, -32600 invalid request, id null."""
    server.send_bytes(line + b"\n")
    answer = _answer(server)
    assert answer["id"] is None and answer["error"]["code"] == code
    message = answer["error"]["message"]
    assert message.startswith("the ") and "Traceback" not in message
    ping = server.request("ping", {})
    assert server.response(ping)["result"] == {}
    _assert_clean(shared_raw_server)


def test_an_invalid_request_with_an_id_is_answered_under_that_id(server: RawStdioServer) -> None:
    server.send({"jsonrpc": "2.0", "id": 77, "method": 5})
    answer = _answer(server)
    assert answer["id"] == 77 and answer["error"]["code"] == -32600
    assert "method" in answer["error"]["message"]


def test_a_line_over_the_limit_is_answered_with_an_error_and_the_session_goes_on(
    server: RawStdioServer, shared_raw_server: SharedRawServer
) -> None:
    """A line past MAX_LINE_BYTES is skipped to its newline unread, never held whole."""
    head = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"eval",'
    huge = head + b'"arguments":{"formula":"' + b"1+" * (MAX_LINE_BYTES // 2) + b'1"}}}\n'
    writer = threading.Thread(target=server.send_bytes, args=(huge,))
    writer.start()
    answer = _answer(server)
    writer.join(timeout=ANSWER_SECONDS)
    assert answer["id"] is None and answer["error"]["code"] == -32600
    assert f"{MAX_LINE_BYTES:,}-byte limit" in answer["error"]["message"]
    assert server.call_tool("record_start", {"title": "after a huge line"})["isError"] is False
    assert server.call_tool("record_end", {})["isError"] is False
    _assert_clean(shared_raw_server)


def test_a_message_deeper_than_the_transport_limit_is_refused_under_its_id(
    server: RawStdioServer,
) -> None:
    arguments = {"name": "x", "value": _nested_arrays(MAX_MESSAGE_DEPTH)}
    server.send(
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tools/call",
            "params": {"name": "set", "arguments": arguments},
        }
    )
    answer = _answer(server)
    assert answer["id"] == 9 and answer["error"]["code"] == -32600
    assert str(MAX_MESSAGE_DEPTH) in answer["error"]["message"]
    assert server.response(server.request("ping", {}))["result"] == {}


def _receipt_from_text(result: Any) -> dict[str, Any]:
    """The receipt a tool result's text carries; structured content, when sent, is the same."""
    (text,) = result["content"]
    receipt: dict[str, Any] = json.loads(text["text"])
    assert result["isError"] is (receipt["ok"] is not True)
    structured = result.get("structuredContent")
    assert structured is None or structured == receipt
    return receipt


# The Python SDK's own client cannot write a request deeper than its serializer's 255 levels,
# so the object form past 120 levels (two JSON levels a level) is sent over raw pipes.
CLIENT_CASES = [("array", 100), ("array", 130), ("array", MAX_VALUE_DEPTH), ("object", 100),
                ("object", 120), ("array", MAX_VALUE_DEPTH + 1)]  # fmt: skip
RAW_CASES = [("object", 130), ("object", MAX_VALUE_DEPTH), ("object", MAX_VALUE_DEPTH + 1)]
FORMS = {"array": _nested_arrays, "object": _nested_objects}


def test_deeply_nested_sets_get_their_receipts_over_stdio_through_a_real_client(
    tmp_path: Path,
) -> None:
    """Issue 21 case 14: a `set` nested 100-130 levels, and up to the engine's own limit,
    is answered with its receipt; one level past the limit is the engine's refusal; the
    session goes on after every one."""

    async def main() -> list[dict[str, Any]]:
        receipts: list[dict[str, Any]] = []
        async with Client(stdio_params(tmp_path / "home")) as client:
            with anyio.fail_after(ANSWER_SECONDS):
                receipt_of(await client.call_tool("record_start", {"title": "deep values"}))
            for form, levels in CLIENT_CASES:
                with anyio.fail_after(ANSWER_SECONDS):
                    result = await client.call_tool(
                        "set", {"name": "v", "value": FORMS[form](levels)}
                    )
                receipts.append(_receipt_from_text(result.model_dump(by_alias=True)))
            with anyio.fail_after(ANSWER_SECONDS):
                got = await client.call_tool("get", {"name": "v"})
            receipts.append(_receipt_from_text(got.model_dump(by_alias=True)))
            with anyio.fail_after(ANSWER_SECONDS):
                shallow = receipt_of(
                    await client.call_tool("set", {"name": "w", "value": {"num": 2}})
                )
            assert shallow["ok"] is True  # a shallow receipt is structured as before
        return receipts

    *sets, got = anyio.run(main)
    for (form, levels), receipt in zip(CLIENT_CASES, sets, strict=True):
        if levels <= MAX_VALUE_DEPTH:
            assert receipt["ok"] is True, (form, levels, receipt)
        else:
            assert receipt["code"] == ErrorCode.INVALID_ARGS.value, (form, levels)
            assert str(MAX_VALUE_DEPTH) in receipt["error"]
    assert got["ok"] is True and _levels(got["value"], "object") == 120  # the last one kept


def test_deeply_nested_objects_get_their_receipts_over_raw_stdio(
    server: RawStdioServer, shared_raw_server: SharedRawServer
) -> None:
    """The object form, two JSON levels a level, up to the engine's limit and one past it."""
    assert server.call_tool("record_start", {"title": "deep objects"})["isError"] is False
    for form, levels in RAW_CASES:
        arguments = {"name": "v", "value": FORMS[form](levels)}
        asked = server.request("tools/call", {"name": "set", "arguments": arguments})
        answer = _answer(server)
        assert answer["id"] == asked, answer
        receipt = _receipt_from_text(answer["result"])
        if levels <= MAX_VALUE_DEPTH:
            assert receipt["ok"] is True and _levels(receipt["value"], form) == levels
        else:
            assert receipt["code"] == ErrorCode.INVALID_ARGS.value
    got = _receipt_from_text(server.call_tool("get", {"name": "v"}))
    assert _levels(got["value"], "object") == MAX_VALUE_DEPTH
    assert server.call_tool("record_end", {})["isError"] is False
    _assert_clean(shared_raw_server)
