"""A second, independent client: the official TypeScript MCP SDK against `reckoner serve`,
over stdio and over streamable HTTP on loopback.

Many MCP hosts are built on the TypeScript SDK rather than the Python one that the other
server tests use; a server that only one SDK understands would pass those tests and still
fail its users. The SDK is installed on first use with
`npm ci`, at the version `typescript_client/package-lock.json` pins; without Node.js and npm
(`.ci/run` installs them) the tests fail, never skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import http_server, serve_command

from home_rows import record_rows
from reckoner import __version__
from reckoner.contract.codes import ErrorCode
from reckoner.contract.registry import tools_of
from reckoner.server.texts import SKILLS, persona, skill_text
from reckoner.server.tools import INPUT_SCHEMAS
from reckoner.wire import dumps_text

pytestmark = pytest.mark.node

CLIENT = Path(__file__).resolve().parent / "typescript_client"
SDK = CLIENT / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
_install_lock = threading.Lock()


def _installed_node() -> str:
    """Node.js, with the pinned SDK installed beside the client (once, on first use)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "Node.js and npm are missing; install them (apt-get install nodejs npm)"
    with _install_lock:
        if not SDK.is_file():
            installed = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=CLIENT,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            assert installed.returncode == 0, f"npm ci failed: {installed.stderr[-2000:]}"
    return node


def run_typescript_client(
    home: Path, calls: list[tuple[str, Any]], *, transport: str = "stdio"
) -> dict[str, Any]:
    """Run the TypeScript SDK client against a fresh server in ``home`` over ``transport``
    (``stdio``, or ``http`` on loopback); what it received."""
    node = _installed_node()
    if transport == "http":
        with http_server(home) as url:
            return _run_plan(node, {"url": url, "calls": calls})
    command = serve_command(home)
    server = {"command": command[0], "args": command[1:], "env": dict(os.environ)}
    return _run_plan(node, {"server": server, "calls": calls})


def _run_plan(node: str, plan: dict[str, Any]) -> dict[str, Any]:
    """``client.mjs`` run on ``plan``; the JSON document it printed."""
    finished = subprocess.run(
        [node, str(CLIENT / "client.mjs")],
        input=json.dumps(plan),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    received: dict[str, Any] = json.loads(finished.stdout)
    return received


def receipt(entry: dict[str, Any]) -> dict[str, Any]:
    """The receipt of one call as the SDK delivered it, held to its text twin and isError."""
    assert "result" in entry, entry
    result = entry["result"]
    structured = result["structuredContent"]
    assert result["content"] == [{"type": "text", "text": dumps_text(structured)}]
    assert result["isError"] is (structured.get("ok") is not True)
    return dict(structured)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_typescript_sdk_lists_and_calls_what_the_contract_names(
    tmp_path: Path, transport: str
) -> None:
    """docs/reference/tools.md (the six operations), 11 (the persona as instructions, the two skills
    as
    prompts and resources), issue 14 (`unit` and `read`): through the TypeScript SDK the
    server introduces itself, lists each contract tool with the schema the contract derives,
    answers each call with the receipt the engine gives, refuses a bad call as a tool error
    that changes nothing, and files the record.
    Spec: docs/guide/mcp-clients.md (the tool surface and the panel)."""
    home = tmp_path / "home"
    calls: list[tuple[str, Any]] = [
        ("record_start", {"title": "Power in 4.7 kOhm at 12 V"}),
        ("set", {"name": "V", "value": {"num": 12, "unit": "V"}}),
        ("set", {"name": "R", "value": {"num": 4.7, "unit": "kOhm"}}),
        ("set", {"name": "R", "value": {"num": 4.7, "dim": "volt", "unit": "kOhm"}}),
        ("eval", {"formula": "@V^2/@R", "target": "P", "read": {"unit": "mW", "digits": 4}}),
        ("get", {"name": "R", "unit": "Ohm"}),
        ("record_end", {"text": "P = 30.64 mW."}),
    ]
    received = run_typescript_client(home, calls, transport=transport)

    assert received["serverVersion"]["name"] == "reckoner"
    assert received["serverVersion"]["version"] == __version__
    assert received["instructions"] == persona()
    assert "tools" in received["capabilities"]

    tools = {tool["name"]: tool for tool in received["tools"]}
    assert list(tools) == [tool.name for tool in tools_of("reckoner")]
    for name, tool in tools.items():
        assert tool["inputSchema"] == json.loads(json.dumps(INPUT_SCHEMAS[name])), name

    assert {p["name"] for p in received["prompts"]} == {s.name for s in SKILLS}
    assert {r["uri"] for r in received["resources"]} == {s.uri for s in SKILLS}
    first_prompt = next(s for s in SKILLS if s.name == received["prompts"][0]["name"])
    assert received["prompt"]["messages"][0]["content"]["text"] == skill_text(first_prompt)
    first_resource = next(s for s in SKILLS if s.uri == received["resources"][0]["uri"])
    assert received["resource"]["contents"][0]["text"] == skill_text(first_resource)

    start, set_v, set_r, refused, evaluated, got, end = (
        receipt(entry) for entry in received["results"]
    )
    assert start == {"ok": True}
    assert set_v["ok"] and set_v["value"]["dim"] == [2, 1, -3, -1, 0, 0, 0]
    assert set_r["value"] == {"num": 4700, "dim": [2, 1, -3, -2, 0, 0, 0]}
    assert refused["ok"] is False and refused["code"] == ErrorCode.INVALID_ARGS.value
    assert refused["error"].startswith("value gives both dim volt and unit 'kOhm'")
    assert evaluated == {
        "ok": True,
        "target": "P",
        "rev": 1,
        "value": {"num": 30.64, "text": "30.64", "unit": "mW", "dim": "watt"},
    }
    assert got["value"] == {"num": 4700, "unit": "Ohm", "dim": "ohm"}
    assert end == {"ok": True}

    rows = record_rows(home)
    assert [row["tool"] for row in rows] == [tool for tool, _ in calls]
    assert [row["ok"] for row in rows] == [True, True, True, False, True, True, True]
    # The refused set changed nothing: R kept its first revision, which the eval read.
    assert rows[4]["content"]["vars"]["R"] == {"num": 4700, "dim": [2, 1, -3, -2, 0, 0, 0]}


def test_an_unknown_tool_reaches_the_typescript_sdk_as_one_clear_error(
    tmp_path: Path,
) -> None:
    """docs/reference/codes.md: a call the contract does not hold (an unknown tool) is answered as a
    refused receipt naming the tool and the tools there are, and the server goes on.
    Spec: docs/reference/codes.md (the failure shape)."""
    received = run_typescript_client(
        tmp_path / "home",
        [("solve", {"question": "x"}), ("record_start", {"title": "still here"})],
    )
    unknown, after = (receipt(entry) for entry in received["results"])
    assert unknown == {
        "ok": False,
        "code": ErrorCode.INVALID_ARGS.value,
        "error": "unknown tool 'solve'; the tools are "
        + ", ".join(tool.name for tool in tools_of("reckoner")),
    }
    assert after == {"ok": True}
