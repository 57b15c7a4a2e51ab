"""`reckoner serve` over stdio, driven by the MCP SDK's own client and by raw pipes.

Every test talks to a real server subprocess (issue 4). The tests that only call tools share
the module's one client session (`shared_client`, tests/server/conftest.py), each in a record
of its own title; the tests about the process (its stdout, its exit, a client hanging up, a
signal, its flags) each start their own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_helpers import (
    WRONG_ARGUMENTS,
    RawStdioServer,
    assert_only_protocol,
    receipt_of,
    serve_command,
    stdio_params,
)
from mcp_types import TextContent
from shared_servers import SharedClient, SharedRawServer, rows_titled

from home_rows import record_rows
from reckoner.contract.codes import ErrorCode
from reckoner.core.quoting import ANGLE
from reckoner.server.texts import SKILLS, persona, skill_text
from reckoner.server.tools import TOOL_NAMES
from reckoner.wire import dumps_text

VOLT = [2, 1, -3, -1, 0, 0, 0]
OHM = [2, 1, -3, -2, 0, 0, 0]


def test_a_whole_record_through_the_six_tools_over_stdio(shared_client: SharedClient) -> None:
    """docs/reference/tools.md/2.2 and 7.2 over MCP: a record from start to end, each receipt as the
    result.
    Spec: docs/reference/tools.md (the tool surface)."""

    async def main(client: Client) -> list[dict[str, Any]]:
        receipts = []
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == list(TOOL_NAMES)
        calls: list[tuple[str, dict[str, Any]]] = [
            ("record_start", {"title": "Ohm's law over MCP"}),
            ("set", {"name": "V", "value": {"num": 12, "dim": "volt"}}),
            ("set", {"name": "R", "value": {"num": 4, "dim": "ohm"}}),
            ("record_message", {"text": "Current from Ohm's law."}),
            ("eval", {"formula": "@V / @R", "target": "I"}),
            ("eval", {"formula": "@V + @R", "target": "bad"}),
            ("get", {"name": "I"}),
            ("record_end", {"text": "I = 3 A."}),
        ]
        for tool, args in calls:
            receipts.append(receipt_of(await client.call_tool(tool, args)))
        return receipts

    receipts = shared_client.run(main)
    assert receipts[0] == {"ok": True}
    assert receipts[1] == {"ok": True, "name": "V", "rev": 1, "value": {"num": 12, "dim": VOLT}}
    assert receipts[2] == {"ok": True, "name": "R", "rev": 1, "value": {"num": 4, "dim": OHM}}
    assert receipts[3] == {"ok": True}
    assert receipts[4] == {"ok": True, "target": "I", "rev": 1}
    assert receipts[5]["ok"] is False
    assert receipts[5]["code"] == ErrorCode.INCOMPATIBLE_DIMENSION.value
    assert receipts[6] == {"ok": True, "name": "I", "value": {"num": 3, "dim": "ampere"}}
    assert receipts[7] == {"ok": True}

    rows = rows_titled(shared_client.home, "Ohm's law over MCP")
    assert [(r["seq"], r["tool"], r["ok"]) for r in rows] == [
        (1, "record_start", True),
        (2, "set", True),
        (3, "set", True),
        (4, "record_message", True),
        (5, "eval", True),
        (6, "eval", False),
        (7, "get", True),
        (8, "record_end", True),
    ]
    assert rows[4]["content"]["formula"] == "@V / @R"


def test_unknown_tool_is_an_engine_receipt(shared_client: SharedClient) -> None:
    """An unknown tool reaches Engine.call: ENGINE_INVALID_ARGS, never a protocol error.
    Spec: docs/reference/tools.md (receipts)."""

    async def main(client: Client) -> dict[str, Any]:
        return receipt_of(await client.call_tool("solve", {"equation": "x^2 = 4"}))

    receipt = shared_client.run(main)
    assert receipt["ok"] is False
    assert receipt["code"] == ErrorCode.INVALID_ARGS.value
    assert "solve" in receipt["error"]


def test_every_wrong_argument_reaches_the_engine(shared_client: SharedClient) -> None:
    """Missing, extra and wrongly typed arguments come back as the engine's receipt with
    isError set, and change nothing (docs/reference/codes.md).
    Spec: docs/reference/codes.md (the error codes)."""

    async def main(client: Client) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
        receipt_of(await client.call_tool("record_start", {"title": "wrong arguments"}))
        before = receipt_of(
            await client.call_tool("set", {"name": "R", "value": {"num": 4, "dim": "ohm"}})
        )
        answers = [
            receipt_of(await client.call_tool(tool, args)) for tool, args, _ in WRONG_ARGUMENTS
        ]
        after = receipt_of(await client.call_tool("get", {"name": "R"}))
        assert receipt_of(await client.call_tool("record_end", {})) == {"ok": True}
        return answers, before, after

    answers, before, after = shared_client.run(main)
    for (tool, args, code), receipt in zip(WRONG_ARGUMENTS, answers, strict=True):
        assert receipt["ok"] is False, (tool, args, receipt)
        assert receipt["code"] == code.value, (tool, args, receipt)
        assert isinstance(receipt["error"], str) and receipt["error"].strip()
    assert before["rev"] == 1
    assert after == {"ok": True, "name": "R", "value": {"num": 4, "dim": "ohm"}}
    rows = rows_titled(shared_client.home, "wrong arguments")
    # Every refusal left its own row and no slot write (docs/guide/records.md); the last row
    # is the record_end that hands the shared server back.
    assert [r["ok"] for r in rows[2:-1]] == [False] * len(WRONG_ARGUMENTS) + [True]
    assert rows[-1]["tool"] == "record_end"


def test_complex_and_array_readings_with_text_go_back_through_set_over_stdio(
    shared_client: SharedClient,
) -> None:
    """Issue 27 over a real MCP client: a complex or an array reading with `digits` carries
    its quotable `text`, and `set` takes the reading back through the tool's input schema
    unchanged, text and all.
    Spec: docs/reference/tools.md (issue 27)."""

    async def run(client: Client) -> list[dict[str, Any]]:
        receipts = []

        async def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            receipt = receipt_of(await client.call_tool(tool, args))
            receipts.append(receipt)
            return receipt

        await call("record_start", {"title": "readings given back"})
        value = {"array": [[1.5, {"re": 3, "im": -4}]], "unit": "mA"}
        await call("set", {"name": "a", "value": value})
        for form in (None, "polar"):
            reading = await call("get", {"name": "a", "unit": "mA", "digits": 4, "form": form})
            await call("set", {"name": "b", "value": reading["value"]})
        z = await call("eval", {"formula": "3-4i", "target": "z", "read": {"digits": 3}})
        await call("set", {"name": "c", "value": z["value"]})
        wrong = {**z["value"], "text": "3.00-4.01i"}
        await call("set", {"name": "d", "value": wrong})
        assert receipt_of(await client.call_tool("record_end", {})) == {"ok": True}
        return receipts

    receipts = shared_client.run(run)
    _, _, rect, back, polar, back_polar, z, back_z, refused = receipts
    assert rect["value"]["text"] == [["1.500", "3.000-4.000i"]]
    assert polar["value"]["text"] == [[f"1.500{ANGLE}0.000", f"5.000{ANGLE}-0.9273"]]
    assert z["value"] == {"re": 3, "im": -4, "text": "3.00-4.00i", "dim": "dim-less"}
    assert back["ok"] and back_polar["ok"] and back_z["ok"]
    assert back["value"]["array"] == [[0.0015, {"re": 0.003, "im": -0.004}]]
    assert refused["code"] == "ENGINE_INVALID_ARGS"
    assert "spells re 3.0 and im -4.01" in refused["error"]


def test_a_call_with_no_arguments_object_reaches_the_engine(
    shared_raw_server: SharedRawServer,
) -> None:
    """A tools/call without an arguments member is judged by the engine, not the transport.
    Spec: docs/reference/tools.md (receipts)."""
    server = shared_raw_server.server
    request_id = server.request("tools/call", {"name": "record_start"})
    result = server.response(request_id)["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == ErrorCode.INVALID_ARGS.value
    # A non-object arguments member is the one shape the protocol itself rejects.
    request_id = server.request("tools/call", {"name": "record_start", "arguments": [1]})
    assert "error" in server.response(request_id)
    ok = server.call_tool("record_start", {"title": "still serving"})
    assert ok["structuredContent"] == {"ok": True}
    assert server.call_tool("record_end", {})["isError"] is False
    assert_only_protocol(shared_raw_server.stdout_since())


def test_a_20_mb_formula_is_refused_and_the_server_survives(shared_client: SharedClient) -> None:
    """A formula 2,000 times over the 10,000-character limit is one short refusal.
    Spec: docs/guide/formulas.md (the charset and the literals)."""
    huge = "1+" * (10 * 1024 * 1024) + "1"

    async def main(client: Client) -> tuple[Any, dict[str, Any], dict[str, Any]]:
        receipt_of(await client.call_tool("record_start", {"title": "a huge formula"}))
        refused = await client.call_tool("eval", {"formula": huge, "target": "x"})
        after = receipt_of(await client.call_tool("eval", {"formula": "1+1", "target": "x"}))
        value = receipt_of(await client.call_tool("get", {"name": "x"}))
        assert receipt_of(await client.call_tool("record_end", {})) == {"ok": True}
        return refused, after, value

    refused, after, value = shared_client.run(main)
    receipt = receipt_of(refused)
    assert receipt["ok"] is False
    assert receipt["code"] == ErrorCode.INVALID_FORMULA.value
    assert "10,000" in receipt["error"] or "10000" in receipt["error"]
    assert len(dumps_text(receipt)) < 2_000
    assert after == {"ok": True, "target": "x", "rev": 1}
    assert value["value"]["num"] == 2


def test_invalid_utf8_on_stdin_never_stops_the_server(shared_raw_server: SharedRawServer) -> None:
    """Bytes that are not UTF-8, alone or inside a formula, are survived; stdout stays protocol.
    The server is the module's raw-pipe one: its exit code 0 is checked when the module's
    tests are done with it, after everything they sent."""
    server = shared_raw_server.server
    assert server.call_tool("record_start", {"title": "bad bytes"})["isError"] is False
    server.send_bytes(b"\xff\xfe\x80 not even json \xc3\x28\n")
    bad = (
        b'{"jsonrpc":"2.0","id":900,"method":"tools/call","params":{"name":"eval",'
        b'"arguments":{"formula":"1+\xff","target":"x"}}}\n'
    )
    server.send_bytes(bad)
    result = server.response(900)["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == ErrorCode.INVALID_FORMULA.value
    ok = server.call_tool("eval", {"formula": "2*3", "target": "x"})
    assert ok["structuredContent"] == {"ok": True, "target": "x", "rev": 1}
    assert server.call_tool("record_end", {})["isError"] is False
    assert server.process.poll() is None
    assert b"Traceback" not in shared_raw_server.stderr_since()
    assert_only_protocol(shared_raw_server.stdout_since())


def test_stdout_carries_only_protocol_even_at_debug_level(tmp_path: Path) -> None:
    """With every log switched on, stdout still holds JSON-RPC messages only (issue 4)."""
    home = tmp_path / "home"
    server = RawStdioServer(home, env={"RECKONER_LOG_LEVEL": "debug"})
    try:
        server.initialize()
        server.response(server.request("tools/list", {}))
        server.response(server.request("prompts/list", {}))
        server.response(server.request("resources/read", {"uri": "reckoner://skills/template"}))
        for tool, args in [
            ("record_start", {"title": "protocol only"}),
            ("set", {"name": "a", "value": {"num": 2}}),
            ("eval", {"formula": "@a^10", "target": "b"}),
            ("eval", {"formula": "@nope", "target": "b"}),
            ("get", {"name": "b"}),
            ("record_end", {}),
        ]:
            server.call_tool(tool, args)
        server.send_bytes(b"{broken json\n")
        server.response(server.request("ping", {}))
    finally:
        server.close()
    assert server.process.returncode == 0
    assert len(server.stdout_lines) >= 11
    assert_only_protocol(server.stdout_lines)


def test_client_disconnecting_mid_call_leaves_a_recoverable_record(tmp_path: Path) -> None:
    """The client hangs up while a long eval runs: the record stays whole, and the next
    server start replays it (docs/guide/records.md).
    Spec: docs/guide/records.md (recovery by replay)."""
    home = tmp_path / "home"
    server = RawStdioServer(home)
    server.initialize()
    server.call_tool("record_start", {"title": "hang up mid-call"})
    server.call_tool("set", {"name": "n", "value": {"num": 400000}})
    server.call_tool("eval", {"formula": "@n * 2", "target": "m"})
    # A slow step (a 100,000-step sum the core cannot vectorise, the longest the work budget
    # MAX_CALL_WORK admits), and the client is gone before its answer.
    server.request(
        "tools/call",
        {"name": "eval", "arguments": {"formula": "$sum_{k=1}^{100000}(k^1)", "target": "s"}},
    )
    server.stdin.close()
    assert server.process.stdout is not None
    server.process.stdout.close()
    assert server.process.wait(timeout=120) == 0
    assert server.process.stderr is not None
    err = server.process.stderr.read()
    # Issue 8: a client hanging up is at most one line, never a traceback.
    assert b"Traceback" not in err and len(err.strip().splitlines()) <= 1, err

    rows = record_rows(home)
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
    assert [r["tool"] for r in rows[:3]] == ["record_start", "set", "eval"]
    sum_finished = len(rows) == 4
    if sum_finished:
        assert rows[3]["content"]["target"] == "s"

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Client(stdio_params(home)) as client:
            m = receipt_of(await client.call_tool("get", {"name": "m"}))
            s = receipt_of(await client.call_tool("get", {"name": "s"}))
        return m, s

    m, s = anyio.run(main)
    assert m == {"ok": True, "name": "m", "value": {"num": 800000, "dim": "dim-less"}}
    if sum_finished:
        assert s["value"]["num"] == 100000 * 100001 / 2
    else:
        assert s["code"] == ErrorCode.SLOT_NOT_FOUND.value


def test_skills_are_served_as_prompts_and_resources_and_the_persona_as_instructions(
    tmp_path: Path,
) -> None:
    """reckoner-interface and reckoner-template as prompts and reckoner://skills/*; the
    pure preset's rules as the server instructions."""

    async def main() -> None:
        async with Client(stdio_params(tmp_path / "home", "--preset", "reckoner")) as client:
            assert client.instructions == persona("reckoner")
            prompts = await client.list_prompts()
            assert sorted(p.name for p in prompts.prompts) == [
                "reckoner-interface",
                "reckoner-template",
            ]
            resources = await client.list_resources()
            assert sorted(str(r.uri) for r in resources.resources) == [
                "reckoner://skills/interface",
                "reckoner://skills/template",
            ]
            for skill in SKILLS:
                prompt = await client.get_prompt(skill.name)
                content = prompt.messages[0].content
                assert isinstance(content, TextContent)
                assert content.text == skill_text(skill)
                read = await client.read_resource(skill.uri)
                assert read.contents[0].mime_type == "text/markdown"
                assert getattr(read.contents[0], "text", None) == skill_text(skill)

    anyio.run(main)


def test_tool_schemas_document_every_argument(shared_client: SharedClient) -> None:
    """Each tool's input schema describes every argument; each description names what the
    tool answers and its most common mistake."""

    async def main(client: Client) -> None:
        for tool in (await client.list_tools()).tools:
            schema = tool.input_schema
            assert schema["type"] == "object"
            for name, prop in schema["properties"].items():
                assert prop.get("description"), (tool.name, name)
            assert "Answers" in (tool.description or "")
            assert "Most common mistake" in (tool.description or "")
            if tool.name == "set":
                shapes = schema["$defs"]["value"]["anyOf"]
                assert {s["title"] for s in shapes} == {
                    "real",
                    "complex, rectangular",
                    "complex, polar (radians)",
                    "array",
                    "object",
                }

    shared_client.run(main)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1"])
def test_http_refuses_a_non_loopback_host(tmp_path: Path, host: str) -> None:
    """The server has no authentication, so --http binds loopback only; one sentence, exit 2."""
    done = subprocess.run(
        [*serve_command(tmp_path / "home"), "--http", "--host", host, "--port", "0"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"loopback" in done.stderr and b"Traceback" not in done.stderr


def test_python_dash_m_reckoner_serve_is_the_console_script(tmp_path: Path) -> None:
    """`python -m reckoner` runs the same CLI as the `reckoner` script."""
    done = subprocess.run(
        [sys.executable, "-m", "reckoner", "serve", "--help"], capture_output=True, timeout=60
    )
    assert done.returncode == 0
    assert b"--http" in done.stdout and b"--preset" in done.stdout


@pytest.mark.parametrize("transport", [[], ["--http", "--port", "0", "--shared-record"]])
def test_sigterm_stops_the_server_and_frees_the_home(tmp_path: Path, transport: list[str]) -> None:
    """A terminated server leaves even while its client keeps stdin open, closes its engine,
    and the home opens again at once (docs/guide/records.md: the open record is resumed)."""
    import signal

    home = tmp_path / "home"
    server = RawStdioServer(home) if not transport else None
    if server is not None:
        server.initialize()
        server.call_tool("record_start", {"title": "terminated"})
        server.call_tool("set", {"name": "x", "value": {"num": 3}})
        process = server.process
    else:
        process = subprocess.Popen(
            [*serve_command(home), *transport],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stderr is not None
        assert b"/mcp" in process.stderr.readline()
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)  # stdin is still open: the signal alone ends it
    assert process.returncode == 128 + signal.SIGTERM
    assert b"Traceback" not in err
    assert "engine closed" in "".join(p.read_text() for p in (home / "logs").glob("*.log"))

    async def main() -> dict[str, Any]:
        async with Client(stdio_params(home)) as client:
            return receipt_of(await client.call_tool("get", {"name": "x"}))

    answer = anyio.run(main)
    if server is not None:
        assert answer["value"]["num"] == 3
    else:
        assert answer["code"] == ErrorCode.OPEN_RECORD_NOT_FOUND.value
