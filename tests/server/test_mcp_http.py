"""`reckoner serve --http`: streamable HTTP on loopback; clients without a session (the SDK's
own negotiation) share one lane, so one record at a time.

The tests that only call tools share the module's one server (`shared_http_server`,
tests/server/conftest.py), each with clients and a record of its own; the client leaving
mid-call has a server of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client
from mcp_helpers import WRONG_ARGUMENTS, http_server, receipt_of
from shared_servers import SharedHttpServer, rows_titled

from home_rows import record_rows
from reckoner.contract.codes import ErrorCode

SESSION_CALLS = 40


async def _end_record(url: str) -> None:
    """Close the lane's record, so the shared server is handed on as it was found."""
    async with Client(url) as client:
        assert receipt_of(await client.call_tool("record_end", {})) == {"ok": True}


def test_a_whole_record_through_the_six_tools_over_streamable_http(
    shared_http_server: SharedHttpServer,
) -> None:
    """The six tools over HTTP answer exactly as over stdio; failures set isError.
    Spec: docs/reference/tools.md (the tool surface)."""
    url = shared_http_server.url

    async def main() -> list[dict[str, Any]]:
        async with Client(url) as client:
            return [
                receipt_of(await client.call_tool(tool, args))
                for tool, args in [
                    ("record_start", {"title": "over HTTP"}),
                    ("set", {"name": "f", "value": {"num": 50, "dim": "hertz"}}),
                    ("eval", {"formula": "1 / @f", "target": "T"}),
                    ("get", {"name": "T"}),
                    ("eval", {"formula": "@T + @f", "target": "bad"}),
                    ("frobnicate", {}),
                    ("record_end", {}),
                ]
            ]

    receipts = anyio.run(main)
    assert receipts[0] == {"ok": True}
    assert receipts[3] == {"ok": True, "name": "T", "value": {"num": 0.02, "dim": "second"}}
    assert receipts[4]["code"] == ErrorCode.INCOMPATIBLE_DIMENSION.value
    assert receipts[5]["code"] == ErrorCode.INVALID_ARGS.value
    assert receipts[6] == {"ok": True}
    assert [r["tool"] for r in rows_titled(shared_http_server.home, "over HTTP")] == [
        "record_start",
        "set",
        "eval",
        "get",
        "eval",
        "record_end",
    ]


def test_two_http_sessions_calling_at_once_never_interleave_or_lose_a_row(
    shared_http_server: SharedHttpServer,
) -> None:
    """Calls from two sessions are serialised on the one engine: every row whole, seq
    contiguous, every call present, each session's calls in its own order.
    Spec: docs/guide/records.md (trace rows)."""
    url, home = shared_http_server.url, shared_http_server.home
    ready: dict[str, anyio.Event] = {}

    async def session(tag: str, receipts: list[dict[str, Any]]) -> None:
        async with Client(url) as client:
            await client.list_tools()
            # Both sessions are connected before either calls, so the calls truly overlap.
            ready[tag].set()
            for event in ready.values():
                await event.wait()
            for i in range(SESSION_CALLS):
                name = f"{tag}{i}"
                receipts.append(
                    receipt_of(
                        await client.call_tool(
                            "set", {"name": name, "value": {"num": i, "dim": "metre"}}
                        )
                    )
                )
                receipts.append(
                    receipt_of(
                        await client.call_tool(
                            "eval", {"formula": f"@{name} * 2", "target": f"{name}_twice"}
                        )
                    )
                )

    async def main() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with Client(url) as opener:
            receipt_of(await opener.call_tool("record_start", {"title": "two sessions"}))
        ready.update(a=anyio.Event(), b=anyio.Event())
        a: list[dict[str, Any]] = []
        b: list[dict[str, Any]] = []
        async with anyio.create_task_group() as group:
            group.start_soon(session, "a", a)
            group.start_soon(session, "b", b)
        return a, b

    a, b = anyio.run(main)
    rows = rows_titled(home, "two sessions")
    anyio.run(_end_record, url)
    assert all(r["ok"] is True for r in a + b)
    assert [r["seq"] for r in rows] == list(range(1, 2 + 4 * SESSION_CALLS))
    for tag in ("a", "b"):
        mine = [
            r["content"]
            for r in rows[1:]
            if str(r["content"].get("name", r["content"].get("target", ""))).startswith(tag)
        ]
        expected: list[str] = []
        for i in range(SESSION_CALLS):
            expected += [f"{tag}{i}", f"{tag}{i}_twice"]
        assert [c.get("name", c.get("target")) for c in mine] == expected
    # The two sessions really overlapped: their rows are mixed, not one block after the other.
    tags = [str(r["content"].get("name", r["content"].get("target")))[0] for r in rows[1:]]
    assert tags != sorted(tags)


def test_http_body_over_the_transport_limit_is_refused_and_the_server_survives(
    shared_http_server: SharedHttpServer,
) -> None:
    """A 20 MB formula over HTTP is refused by the transport's 4 MB body limit before anything
    reads it into the engine; the next session works."""
    url = shared_http_server.url
    huge = "1+" * (10 * 1024 * 1024) + "1"
    body = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"eval",'
        '"arguments":{"formula":"' + huge + '","target":"x"}}}'
    )
    response = httpx.post(
        url,
        content=body,
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
        },
        timeout=60,
    )
    assert response.status_code == 413

    async def main() -> dict[str, Any]:
        async with Client(url) as client:
            receipt_of(await client.call_tool("record_start", {"title": "after the flood"}))
            evaluated = receipt_of(
                await client.call_tool("eval", {"formula": "1+1", "target": "x"})
            )
            assert receipt_of(await client.call_tool("record_end", {})) == {"ok": True}
            return evaluated

    assert anyio.run(main) == {"ok": True, "target": "x", "rev": 1}


def test_every_wrong_argument_reaches_the_engine_over_http(
    shared_http_server: SharedHttpServer,
) -> None:
    """Over HTTP too, the engine, not the transport, judges every argument
    (docs/reference/codes.md).
    Spec: docs/reference/codes.md (the error codes)."""
    url = shared_http_server.url

    async def main() -> list[dict[str, Any]]:
        async with Client(url) as client:
            receipt_of(await client.call_tool("record_start", {"title": "wrong over HTTP"}))
            await client.call_tool("set", {"name": "R", "value": {"num": 4, "dim": "ohm"}})
            answers = [
                receipt_of(await client.call_tool(tool, args)) for tool, args, _ in WRONG_ARGUMENTS
            ]
            assert receipt_of(await client.call_tool("record_end", {})) == {"ok": True}
            return answers

    answers = anyio.run(main)
    for (tool, args, code), receipt in zip(WRONG_ARGUMENTS, answers, strict=True):
        assert receipt["ok"] is False and receipt["code"] == code.value, (tool, args, receipt)


def test_invalid_utf8_body_over_http_is_refused_and_the_server_survives(
    shared_http_server: SharedHttpServer,
) -> None:
    """Bytes that are not UTF-8 get a JSON-RPC parse error or a 4xx, never a dead server."""
    url = shared_http_server.url
    response = httpx.post(
        url,
        content=b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":\xff\xfe}',
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
        },
        timeout=60,
    )
    assert 400 <= response.status_code < 500

    async def main() -> dict[str, Any]:
        async with Client(url) as client:
            started = receipt_of(await client.call_tool("record_start", {"title": "still up"}))
            assert receipt_of(await client.call_tool("record_end", {})) == {"ok": True}
            return started

    assert anyio.run(main) == {"ok": True}


def test_http_client_leaving_mid_call_leaves_the_record_whole(tmp_path: Path) -> None:
    """A session that gives up on a long eval and disconnects: the server finishes the call or
    never starts it, the record stays whole, and the next session continues it.
    Spec: docs/guide/records.md (recovery by replay)."""
    home = tmp_path / "home"
    with http_server(home) as url:

        async def impatient() -> None:
            async with Client(url) as client:
                receipt_of(await client.call_tool("record_start", {"title": "impatient"}))
                ones = {"array": [1] * 10}
                receipt_of(await client.call_tool("set", {"name": "a", "value": ones}))
                # A sum the client gives up on: an array at every step takes the steps one by
                # one (about 0.3 s), where a scalar body is answered all at once in a
                # millisecond, before the client could leave.
                with anyio.move_on_after(0.05):
                    await client.call_tool(
                        "eval", {"formula": "$sum_{k=1}^{40000}(@a*k)", "target": "s"}
                    )

        async def next_session() -> dict[str, Any]:
            async with Client(url) as client:
                receipt_of(await client.call_tool("set", {"name": "after", "value": {"num": 1}}))
                return receipt_of(await client.call_tool("get", {"name": "s"}))

        try:
            anyio.run(impatient)
        except BaseExceptionGroup as group:
            # The SDK client's own race, not the server's: should the answer land just as
            # the client leaves, its request task delivers it into the stream it has closed.
            if group.subgroup(anyio.BrokenResourceError) is None or group.subgroup(
                lambda error: not isinstance(error, anyio.BrokenResourceError | BaseExceptionGroup)
            ):
                raise
        s = anyio.run(next_session)
    rows = record_rows(home)
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
    tools = [r["tool"] for r in rows]
    if "eval" in tools:
        assert tools == ["record_start", "set", "eval", "set", "get"]
        assert s["value"]["array"] == [40000 * 40001 / 2] * 10
    else:
        assert tools == ["record_start", "set", "set", "get"]
        assert s["code"] == ErrorCode.SLOT_NOT_FOUND.value
