"""Issue 22: one `reckoner serve --http`, many agents. Each MCP session holds a lane of its
own (its own open record and slot table) from its first tool call until it ends; the next
session resumes the record it left open; `--shared-record` keeps one record for all.

Real SDK clients with sessions (the handshake protocol revisions: ``mode="legacy"``) over
streamable HTTP on loopback against a real server subprocess.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp_helpers import http_server, receipt_of, serve_command

from home_rows import open_rows
from reckoner import Engine
from reckoner.contract.codes import ErrorCode
from reckoner.storage.home import MAX_LANES, HomeLayout
from reckoner.storage.record_archive import RecordArchive

SESSIONS = 8
STEPS = 6


def session_client(url: str) -> Client:
    """A client that opens an MCP session (Mcp-Session-Id), as Claude Code and most do."""
    return Client(url, mode="legacy")


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return receipt_of(await client.call_tool(tool, args))


def slot_names(row: dict[str, Any]) -> set[str]:
    content = row.get("content") or {}
    names = {content.get("name"), content.get("target")}
    return {name for name in names if isinstance(name, str)}


def test_two_sessions_each_start_their_own_record_and_never_share_a_slot(
    tmp_path: Path,
) -> None:
    """Issue 22, Why 1: B's record_start is not refused with A's title, and B's `set x = 2`
    leaves A's x at 1; each record file holds its own session's rows only.
    Spec: docs/guide/mcp-clients.md (issue 22)."""
    home = tmp_path / "home"
    with http_server(home) as url:

        async def main() -> dict[str, Any]:
            async with session_client(url) as a, session_client(url) as b:
                answers = {
                    "a_start": await call(a, "record_start", {"title": "record of A"}),
                    "b_start": await call(b, "record_start", {"title": "record of B"}),
                    "a_set": await call(a, "set", {"name": "x", "value": {"num": 1}}),
                    "b_set": await call(b, "set", {"name": "x", "value": {"num": 2}}),
                }
                answers["a_get"] = await call(a, "get", {"name": "x"})
                answers["b_get"] = await call(b, "get", {"name": "x"})
                answers["a_message"] = await call(a, "record_message", {"text": "A was here"})
                return answers

        answers = anyio.run(main)
    assert answers["a_start"] == {"ok": True} and answers["b_start"] == {"ok": True}
    assert answers["a_get"]["value"]["num"] == 1
    assert answers["b_get"]["value"]["num"] == 2
    rows = open_rows(home)
    assert set(rows) == {"record of A", "record of B"}
    tools_a = [(r["tool"], r["content"].get("name")) for r in rows["record of A"]]
    tools_b = [(r["tool"], r["content"].get("name")) for r in rows["record of B"]]
    assert tools_a == [("record_start", None), ("set", "x"), ("get", "x"), ("record_message", None)]
    assert tools_b == [("record_start", None), ("set", "x"), ("get", "x")]
    assert rows["record of A"][1]["content"]["value"]["num"] == 1
    assert rows["record of B"][1]["content"]["value"]["num"] == 2


def _steps(tag: str, index: int) -> list[tuple[str, dict[str, Any]]]:
    """One session's calls: its own names and one name (x) every session writes."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("record_start", {"title": f"record of {tag}"}),
        ("set", {"name": "x", "value": {"num": index, "dim": "ohm"}}),
    ]
    for step in range(STEPS):
        calls.append(("set", {"name": f"{tag}_V", "value": {"num": 10 + step, "dim": "volt"}}))
        calls.append(("eval", {"formula": f"@{tag}_V / @x", "target": f"{tag}_I"}))
        calls.append(("eval", {"formula": f"@{tag}_I * {step + 1}", "target": "y"}))
    return calls


def test_eight_sessions_writing_at_once_keep_every_row_where_it_belongs_and_replay_equals_live(
    tmp_path: Path,
) -> None:
    """Issue 22, Tests: eight sessions at once, no crosstalk; each lane's record replayed by a
    fresh Engine gives back exactly the slots its session read live (docs/guide/records.md).
    Spec: docs/guide/mcp-clients.md (issue 22)."""
    home = tmp_path / "home"
    live: dict[str, dict[str, dict[str, Any]]] = {}
    with http_server(home) as url:

        async def session(tag: str, index: int, ready: list[anyio.Event]) -> None:
            async with session_client(url) as client:
                await client.list_tools()
                ready[index].set()
                for event in ready:
                    await event.wait()  # every session connected: the calls truly overlap
                for tool, args in _steps(tag, index + 1):
                    receipt = await call(client, tool, args)
                    assert receipt["ok"] is True, (tag, tool, receipt)
                live[tag] = {
                    name: await call(client, "get", {"name": name})
                    for name in ("x", "y", f"{tag}_V", f"{tag}_I")
                }

        async def main() -> None:
            ready = [anyio.Event() for _ in range(SESSIONS)]
            async with anyio.create_task_group() as group:
                for index in range(SESSIONS):
                    group.start_soon(session, f"s{index}", index, ready)

        anyio.run(main)
    tags = [f"s{index}" for index in range(SESSIONS)]
    assert sorted(live) == tags
    listing = RecordArchive(HomeLayout(home)).index()
    lanes = {entry.title: entry.lane for entry in listing.open_records}
    assert sorted(lanes) == sorted(f"record of {tag}" for tag in tags)
    assert sorted(lanes.values()) == list(range(1, SESSIONS + 1))
    rows = open_rows(home)
    for index, tag in enumerate(tags):
        mine = rows[f"record of {tag}"]
        expected = [*_steps(tag, index + 1), *(("get", {}) for _ in range(4))]
        assert [r["seq"] for r in mine] == list(range(1, len(expected) + 1))
        assert [r["tool"] for r in mine] == [tool for tool, _ in expected]
        assert all(r["ok"] is True for r in mine)
        for row in mine:
            assert slot_names(row) <= {"x", "y", f"{tag}_V", f"{tag}_I"}, row
        assert live[tag]["x"]["value"] == {"num": index + 1, "dim": "ohm"}
    for tag in tags:
        with Engine(home, lane=lanes[f"record of {tag}"]) as engine:
            replayed = {name: engine.call("get", {"name": name}) for name in live[tag]}
        assert replayed == live[tag], tag


def test_a_session_that_ends_gives_its_lane_back_and_the_next_session_resumes_its_record(
    tmp_path: Path,
) -> None:
    """Issue 22: the client's DELETE ends the session, its engine closes and its lane's lock
    is freed with the record left open; a new session resumes that record (lowest lane).
    Spec: docs/guide/mcp-clients.md (issue 22)."""
    home = tmp_path / "home"
    with http_server(home) as url:

        async def first() -> None:
            async with session_client(url) as client:
                assert await call(client, "record_start", {"title": "left open"}) == {"ok": True}
                await call(client, "set", {"name": "x", "value": {"num": 7, "dim": "metre"}})

        async def second() -> tuple[dict[str, Any], dict[str, Any]]:
            async with session_client(url) as client:
                again = await call(client, "record_start", {"title": "another"})
                return again, await call(client, "get", {"name": "x"})

        anyio.run(first)
        again, got = anyio.run(second)
        listing = RecordArchive(HomeLayout(home)).index()
    assert again["code"] == ErrorCode.OPEN_RECORD_FOUND.value
    assert "'left open'" in again["error"]
    assert got["value"] == {"num": 7, "dim": "metre"}
    assert [(entry.title, entry.lane) for entry in listing.open_records] == [("left open", 1)]
    assert not (home / "open" / "lane-2.jsonl").exists()
    tools = [row["tool"] for row in open_rows(home)["left open"]]
    assert tools == ["record_start", "set", "record_start", "get"]


def test_with_shared_record_every_session_writes_one_record(tmp_path: Path) -> None:
    """`serve --http --shared-record` keeps the one record per server: B's record_start is
    refused with A's title and B's set is what A reads.
    Spec: docs/guide/mcp-clients.md (issue 22)."""
    home = tmp_path / "home"
    with http_server(home, extra=("--shared-record",)) as url:

        async def main() -> tuple[dict[str, Any], dict[str, Any]]:
            async with session_client(url) as a, session_client(url) as b:
                await call(a, "record_start", {"title": "one for all"})
                refused = await call(b, "record_start", {"title": "mine"})
                await call(a, "set", {"name": "x", "value": {"num": 1}})
                await call(b, "set", {"name": "x", "value": {"num": 2}})
                return refused, await call(a, "get", {"name": "x"})

        refused, got = anyio.run(main)
    assert refused["code"] == ErrorCode.OPEN_RECORD_FOUND.value
    assert "'one for all'" in refused["error"]
    assert got["value"]["num"] == 2
    assert list(open_rows(home)) == ["one for all"]


def test_the_session_beyond_the_lane_limit_is_told_the_limit_and_the_fix(
    tmp_path: Path,
) -> None:
    """64 sessions hold 64 lanes; the 65th gets one sentence per call naming the limit and
    the fix, writes nothing, and gets a lane as soon as another session ends: it resumes
    that session's record.
    Spec: docs/guide/mcp-clients.md (issue 22)."""
    home = tmp_path / "home"
    with http_server(home) as url:

        async def holder(index: int, held: anyio.Event, leave: anyio.Event) -> None:
            async with session_client(url) as client:
                answer = await call(client, "record_start", {"title": f"held {index}"})
                assert answer["ok"] is True, answer
                held.set()
                await leave.wait()

        async def main() -> tuple[list[dict[str, Any]], dict[str, Any]]:
            held = [anyio.Event() for _ in range(MAX_LANES)]
            leave = [anyio.Event() for _ in range(MAX_LANES)]
            async with anyio.create_task_group() as group:
                for index in range(MAX_LANES):
                    group.start_soon(holder, index, held[index], leave[index])
                for event in held:
                    await event.wait()
                async with session_client(url) as late:
                    refused = [
                        await call(late, "record_start", {"title": "one too many"}),
                        await call(late, "set", {"name": "z", "value": {"num": 1}}),
                    ]
                    leave[0].set()  # one session ends (DELETE): its lane is free
                    with anyio.fail_after(20):
                        while True:
                            answer = await call(late, "record_message", {"text": "late"})
                            if answer["ok"] is True:
                                break
                            await anyio.sleep(0.1)
                for event in leave:
                    event.set()
            return refused, answer

        refused, answer = anyio.run(main)
    for receipt in refused:
        assert receipt["ok"] is False and receipt["code"] == ErrorCode.UNKNOWN_ERROR.value
        assert f"already serves {MAX_LANES} sessions" in receipt["error"]
        assert "end another session" in receipt["error"] and "--shared-record" in receipt["error"]
    assert answer == {"ok": True}
    rows = open_rows(home)
    assert sorted(rows) == sorted(f"held {index}" for index in range(MAX_LANES))
    assert [row["tool"] for row in rows["held 0"]] == ["record_start", "record_message"]
    assert all(len(rows[f"held {index}"]) == 1 for index in range(1, MAX_LANES))


def test_a_pinned_lane_with_a_lane_per_session_is_refused_in_one_sentence(
    tmp_path: Path,
) -> None:
    """`--lane` names one record, which serve --http without --shared-record cannot honour.
    Spec: docs/guide/mcp-clients.md (issue 22)."""
    done = subprocess.run(
        [*serve_command(tmp_path / "home"), "--http", "--port", "0", "--lane", "3"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "--lane 3 pins one lane" in lines[0] and "--shared-record" in lines[0]
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert not (tmp_path / "home" / ".lock").exists()
