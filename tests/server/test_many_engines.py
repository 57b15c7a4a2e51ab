"""Issue 9: many agents, one home. Real `reckoner serve` processes over stdio (the SDK's own
client and raw pipes) and `reckoner call` share one home at once, each on its own lane with
its own record; a server killed mid-call is resumed by the next one to start.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp_helpers import RawStdioServer, http_server, receipt_of, stdio_params

from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive

STEPS = 3


def _calls(tag: str) -> list[tuple[str, dict[str, Any]]]:
    """One client's whole record; every slot it names carries its tag."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("record_start", {"title": f"record of {tag}"}),
        ("set", {"name": f"{tag}_V", "value": {"num": 12, "dim": "volt"}}),
    ]
    for step in range(STEPS):
        calls.append(("set", {"name": f"{tag}_R", "value": {"num": 100 + step, "dim": "ohm"}}))
        calls.append(("eval", {"formula": f"@{tag}_V/@{tag}_R", "target": f"{tag}_I"}))
    calls.append(("record_message", {"text": f"done by {tag}"}))
    calls.append(("record_end", {"text": f"end of {tag}"}))
    return calls


def _cli_call(home: Path, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "reckoner", "call", tool, json.dumps(args), "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stderr == "", done.stderr
    receipt: dict[str, Any] = json.loads(done.stdout)
    return receipt


def _slot_names(row: dict[str, Any]) -> set[str]:
    content = row.get("content") or {}
    names = {content.get("name"), content.get("target"), *(content.get("vars") or {})}
    return {name for name in names if isinstance(name, str)}


def _assert_own_complete_record(home: Path, tag: str, record_id: str) -> None:
    rows = [json.loads(line) for line in (home / "records" / f"{record_id}.jsonl").open()]
    assert rows[0] == {"seq": 0, "version": 1}
    rows = rows[1:]
    expected = _calls(tag)
    assert [row["seq"] for row in rows] == list(range(1, len(expected) + 1))
    assert [row["tool"] for row in rows] == [tool for tool, _ in expected]
    assert all(row["ok"] is True for row in rows), rows
    assert rows[0]["content"]["title"] == f"record of {tag}"
    # None interleaved: every slot this record names is this client's own.
    for row in rows:
        assert all(name.startswith(f"{tag}_") for name in _slot_names(row)), row


def test_three_stdio_servers_and_reckoner_call_each_run_their_own_record(
    tmp_path: Path,
) -> None:
    """Spec: docs/guide/mcp-clients.md (issue 9)."""
    home = tmp_path / "home"
    seen_ids: dict[str, str] = {}

    async def client_session(client: Client, tag: str) -> None:
        for tool, args in _calls(tag):
            receipt = receipt_of(await client.call_tool(tool, args))
            assert receipt["ok"] is True, (tag, tool, receipt)
            if tool == "record_start":
                listing = RecordArchive(HomeLayout(home)).index()
                seen_ids[tag] = next(e.id for e in listing.open_records if e.title.endswith(tag))
            await anyio.sleep(0)

    def cli_session() -> None:
        for tool, args in _calls("cli"):
            receipt = _cli_call(home, tool, args)
            assert receipt["ok"] is True, (tool, receipt)
            if tool == "record_start":
                listing = RecordArchive(HomeLayout(home)).index()
                seen_ids["cli"] = next(e.id for e in listing.open_records if e.lane == 4)

    async def main() -> None:
        # Entered in order: all three servers hold their lanes (1-3) before the group runs.
        async with (
            Client(stdio_params(home)) as first,
            Client(stdio_params(home)) as second,
            Client(stdio_params(home)) as third,
            anyio.create_task_group() as group,
        ):
            group.start_soon(client_session, first, "a")
            group.start_soon(client_session, second, "b")
            group.start_soon(client_session, third, "c")
            group.start_soon(anyio.to_thread.run_sync, cli_session)

    anyio.run(main)
    assert len(set(seen_ids.values())) == 4
    for tag, record_id in seen_ids.items():
        _assert_own_complete_record(home, tag, record_id)
    listing = RecordArchive(HomeLayout(home)).index()
    assert listing.open_records == [] and len(listing.closed) == 4
    assert listing.unreadable == []


def _receipt(result: dict[str, Any]) -> dict[str, Any]:
    receipt = result["structuredContent"]
    assert isinstance(receipt, dict)
    return receipt


def test_a_server_killed_mid_call_is_resumed_by_the_next_server_by_replay(
    tmp_path: Path,
) -> None:
    """Spec: docs/guide/mcp-clients.md (issue 9)."""
    home = tmp_path / "home"
    servers = [RawStdioServer(home) for _ in range(3)]
    replacement: RawStdioServer | None = None
    try:
        for server in servers:
            server.initialize()
        for index, server in enumerate(servers):
            assert _receipt(server.call_tool("record_start", {"title": f"lane {index}"}))["ok"]
        victim = servers[1]
        seen: list[dict[str, Any]] = []
        for step in range(12):
            for index, server in enumerate(servers):
                args = {"name": f"s{index}_{step}", "value": {"array": list(range(200))}}
                receipt = _receipt(server.call_tool("set", args))
                assert receipt["ok"] is True
                if server is victim:
                    seen.append(receipt)
        # A call under way when SIGKILL lands: its answer is never read.
        victim.send(
            {
                "jsonrpc": "2.0",
                "id": 10_000,
                "method": "tools/call",
                "params": {"name": "set", "arguments": {"name": "late", "value": {"num": 1}}},
            }
        )
        os.kill(victim.process.pid, signal.SIGKILL)
        victim.process.wait(timeout=30)

        replacement = RawStdioServer(home)
        replacement.initialize()
        # The replacement took the killed server's lane and resumed its record.
        started = _receipt(replacement.call_tool("record_start", {"title": "again"}))
        assert started["code"] == "ENGINE_OPEN_RECORD_FOUND"
        assert "'lane 1'" in started["error"]
        for receipt in seen:
            got = _receipt(replacement.call_tool("get", {"name": receipt["name"]}))
            assert got["ok"] is True and got["name"] == receipt["name"]
        assert _receipt(replacement.call_tool("record_end", {}))["ok"] is True
        for server in (servers[0], servers[2]):
            assert _receipt(server.call_tool("record_end", {}))["ok"] is True
    finally:
        for server in [*servers, *([replacement] if replacement else [])]:
            if server.process.poll() is None:
                server.close()
    listing = RecordArchive(HomeLayout(home)).index()
    assert listing.open_records == []
    titles = {entry.title: entry.id for entry in listing.closed}
    assert set(titles) == {"lane 0", "lane 1", "lane 2"}
    rows = [json.loads(line) for line in (home / "records" / f"{titles['lane 1']}.jsonl").open()]
    stored = {
        (row["content"]["name"], row["content"]["value"] is not None)
        for row in rows
        if row.get("tool") == "set" and row.get("ok") is True
    }
    # Every receipt the killed client saw has its row in the resumed, closed record.
    assert {(receipt["name"], True) for receipt in seen} <= stored
    assert [row["seq"] for row in rows[1:]] == list(range(1, len(rows)))


CLOSER = """
import sys, time
from pathlib import Path
from reckoner import Engine
home, lane, go = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
engine = Engine(home, lane=lane, clock=lambda: 1_700_000_000_000)
print("ready", flush=True)
while not go.exists():
    pass
print(engine.call("record_end", {})["ok"], flush=True)
engine.close()
"""


def test_two_processes_closing_in_the_same_millisecond_never_collide(
    tmp_path: Path,
) -> None:
    """Both records carry one id (written by engines that shared no id lock); both close.
    Spec: docs/guide/mcp-clients.md (issue 9)."""
    from reckoner.storage.record_format import encode_row, header_line

    fixed = "1700000000000"
    for attempt in range(3):
        home = tmp_path / f"home{attempt}"
        layout = HomeLayout(home)
        layout.prepare()
        for lane in (1, 2):
            path = layout.for_lane(lane).open_record
            path.parent.mkdir(exist_ok=True)
            start = {
                "seq": 1,
                "at": 1,
                "tool": "record_start",
                "ok": True,
                "content": {"title": f"lane {lane}", "record": fixed},
            }
            path.write_bytes(header_line() + encode_row(start))
        go = tmp_path / f"go{attempt}"
        closers = [
            subprocess.Popen(
                [sys.executable, "-c", CLOSER, str(home), str(lane), str(go)],
                stdout=subprocess.PIPE,
                text=True,
            )
            for lane in (1, 2)
        ]
        for closer in closers:
            assert closer.stdout is not None and closer.stdout.readline().strip() == "ready"
        go.touch()
        for closer in closers:
            out, _ = closer.communicate(timeout=60)
            assert out.strip() == "True"
        closed = sorted(path.name for path in (home / "records").iterdir())
        assert closed == [f"{fixed}-2.jsonl", f"{fixed}.jsonl"]
        titles = set()
        for name in closed:
            rows = [json.loads(line) for line in (home / "records" / name).open()]
            assert [row["tool"] for row in rows[1:]] == ["record_start", "record_end"]
            titles.add(rows[1]["content"]["title"])
        assert titles == {"lane 1", "lane 2"}
        assert layout.lanes_with_open_files() == []


STARTER = """
import sys
from pathlib import Path
from reckoner import Engine
home, go = sys.argv[1], Path(sys.argv[2])
engine = Engine(home, clock=lambda: 1_700_000_000_000)
print("ready", flush=True)
while not go.exists():
    pass
assert engine.call("record_start", {"title": f"lane {engine.lane}"})["ok"]
assert engine.call("record_end", {})["ok"]
print(engine.lane, flush=True)
"""


def test_two_processes_starting_and_closing_in_one_millisecond_get_two_ids(
    tmp_path: Path,
) -> None:
    """Spec: docs/guide/mcp-clients.md (issue 9)."""
    home = tmp_path / "home"
    go = tmp_path / "go"
    starters = []
    for _ in range(2):
        starter = subprocess.Popen(
            [sys.executable, "-c", STARTER, str(home), str(go)], stdout=subprocess.PIPE, text=True
        )
        assert starter.stdout is not None and starter.stdout.readline().strip() == "ready"
        starters.append(starter)
    go.touch()
    lanes = sorted(int(starter.communicate(timeout=60)[0]) for starter in starters)
    assert lanes == [1, 2]
    closed = sorted(path.name for path in (home / "records").iterdir())
    assert closed == ["1700000000000-2.jsonl", "1700000000000.jsonl"]


def test_an_http_server_and_a_stdio_server_share_a_home(tmp_path: Path) -> None:
    """Spec: docs/guide/mcp-clients.md (issue 9)."""
    home = tmp_path / "home"
    with http_server(home) as url:

        async def main() -> None:
            async with (
                Client(url) as over_http,
                Client(stdio_params(home)) as over_stdio,
                anyio.create_task_group() as group,
            ):
                group.start_soon(_run_record, over_http, "h")
                group.start_soon(_run_record, over_stdio, "s")

        anyio.run(main)
    listing = RecordArchive(HomeLayout(home)).index()
    assert listing.open_records == []
    for entry in listing.closed:
        tag = entry.title[-1] if entry.title else ""
        _assert_own_complete_record(home, tag, entry.id)
    assert sorted(entry.title or "" for entry in listing.closed) == ["record of h", "record of s"]


async def _run_record(client: Client, tag: str) -> None:
    for tool, args in _calls(tag):
        receipt = receipt_of(await client.call_tool(tool, args))
        assert receipt["ok"] is True, (tag, tool, receipt)
        await anyio.sleep(0)
