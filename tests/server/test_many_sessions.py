"""Issue 22: sessions that run long tools beside each other's short calls on one server.

One `reckoner serve --http --preset reckoner-with-search-and-compute` on loopback, its
Anthropic SDK pointed at the loopback fake (every search turn held a second, so the lookups
of different sessions overlap each other and the other sessions' calls). Several sessions at
once each make an agent's whole calculation: givens, a lookup, a compute run whose printed
number becomes a given, a step, a reading. Each record must then hold exactly its session's
rows, in the order that session made them, the lookup and the compute run among them; seq
must follow the appends; and a fresh engine replaying each lane must read back what the
session read live. Real SDK clients with sessions (``mode="legacy"``).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_helpers import http_server, receipt_of

from home_rows import open_records
from provider_fakes import FakeAnthropic, Source, reply_json
from reckoner import Engine
from reckoner.contract.presets import SEARCH_AND_COMPUTE_PRESET

KEY = "sk-ant-test-many-sessions-SECRET"
TAG = re.compile(r"\bsession (s\d+)\b")


def _answer_for(body: dict[str, Any]) -> str:
    """The extraction turn: the density the fake's source gives, named for the session
    whose question it extracts from, so a row in the wrong record is seen."""
    found = TAG.search(json.dumps(body))
    assert found is not None, "the extraction turn carries the question"
    return reply_json(f"8.96 g/cm3 for session {found.group(1)}", [0])


@pytest.fixture
def provider() -> Any:
    fake = FakeAnthropic()
    fake.script.sources = [Source("https://en.wikipedia.org/wiki/Copper", "Copper")]
    fake.script.extract_text = _answer_for
    fake.script.search_delay = 1.0
    yield fake
    fake.close()


def _calls(tag: str, index: int) -> list[tuple[str, dict[str, Any]]]:
    """One session's calculation; every session also writes the common name ``m``."""
    code = f"print({index} * 1.5)\n"
    return [
        ("record_start", {"title": f"record of {tag}"}),
        ("set", {"name": "L", "value": {"num": 10 + index, "unit": "cm"}}),
        ("search", {"question": f"What is the density of copper, for session {tag}?"}),
        ("compute", {"op": "run", "engine": "python", "code": code}),
        ("eval", {"formula": f"@L * {index}", "target": "m"}),
        ("record_message", {"text": f"session {tag} is done"}),
    ]


async def _receipt(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return receipt_of(await client.call_tool(tool, args))


@pytest.mark.parametrize("sessions", [2, 8])
def test_sessions_with_lookups_and_compute_runs_keep_each_row_in_its_record_and_replay_equals_live(
    tmp_path: Path, provider: FakeAnthropic, sessions: int
) -> None:
    """Issue 22, Tests: N sessions at once, each with a lookup and a compute run among its
    calls; no crosstalk, every row (the compute and search rows included) in the calling
    session's record, seq in append order, replay equal to live.
    Spec: docs/guide/mcp-clients.md (issue 22)."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_BASE_URL": provider.root,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    live: dict[str, dict[str, dict[str, Any]]] = {}
    answers: dict[str, list[dict[str, Any]]] = {}
    extra = ("--preset", SEARCH_AND_COMPUTE_PRESET, "--project", str(project))
    with http_server(home, env, extra=extra) as url:

        async def session(tag: str, index: int, ready: list[anyio.Event]) -> None:
            async with Client(url, mode="legacy") as client:
                await client.list_tools()
                ready[index].set()
                for event in ready:
                    await event.wait()  # every session connected: the calls truly overlap
                answers[tag] = [await _receipt(client, t, a) for t, a in _calls(tag, index + 1)]
                live[tag] = {n: await _receipt(client, "get", {"name": n}) for n in ("L", "m")}

        async def main() -> None:
            ready = [anyio.Event() for _ in range(sessions)]
            async with anyio.create_task_group() as group:
                for index in range(sessions):
                    group.start_soon(session, f"s{index}", index, ready)

        anyio.run(main)

    tags = [f"s{index}" for index in range(sessions)]
    records = open_records(home)
    assert sorted(records) == sorted(f"record of {tag}" for tag in tags)
    for index, tag in enumerate(tags):
        assert all(receipt["ok"] is True for receipt in answers[tag]), answers[tag]
        assert answers[tag][2]["answer"] == f"8.96 g/cm3 for session {tag}"
        assert answers[tag][3]["stdout"].strip() == str((index + 1) * 1.5)
        lane, rows = records[f"record of {tag}"]
        expected = [tool for tool, _ in _calls(tag, index + 1)] + ["get", "get"]
        assert [row["tool"] for row in rows] == expected
        assert [row["seq"] for row in rows] == list(range(1, len(rows) + 1))
        # Every row that names a session names this one: nothing crossed over.
        for row in rows:
            assert set(TAG.findall(json.dumps(row))) <= {tag}, row
        assert TAG.findall(json.dumps(rows[2]["content"])), "the lookup row is this session's"
        assert KEY not in json.dumps(rows)
        with Engine(home, lane=lane) as engine:
            replayed = {name: engine.call("get", {"name": name}) for name in live[tag]}
        assert replayed == live[tag], tag
