"""Issue 22: long tools never hold the engine, a cancelled call stops its work, long calls
report progress.

Real SDK clients with sessions (``mode="legacy"``) over streamable HTTP on loopback against
a real `reckoner serve --http` subprocess; compute runs the machine's Python on a script that
sleeps, and the lookup asks the loopback fake of the Anthropic API (tests/provider_fakes.py),
which holds its search turn. "While it runs" is judged by what is still running (the run's
processes, the call's answer not yet in), never by a stopwatch.

The tests that only call tools share one server per mode for the module (`lanes_server`,
`shared_record_server`), each test with sessions, a marker and a question of its own, and
each ending the records it opened; the stopping server and the stdio server have their own.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp_helpers import RawStdioServer, http_server, receipt_of
from shared_servers import SharedHttpServer, handed_out, open_titles

from home_rows import open_rows
from process_census import escaping_script, new_marker, wait_until_none_with, wait_until_some_with
from provider_fakes import FakeAnthropic, Source, reply_json
from reckoner.contract.presets import SEARCH_AND_COMPUTE_PRESET

RUN_SECONDS = 8
"""How long a run or a held search turn lasts in the slow variants: a fixed length, as a
real long call has."""
HANG_SECONDS = 60.0
"""A generous deadline, only so that a broken server fails the test instead of hanging it."""

LENGTHS = [
    pytest.param(None, id="until released"),
    pytest.param(RUN_SECONDS, id=f"{RUN_SECONDS} s", marks=pytest.mark.slow),
]
"""How long the long call lasts: by default until the test has seen what it waited for (then
it releases the call, so the call cannot end before the test looked, however loaded the
machine); in the slow variant RUN_SECONDS, whatever the test is doing."""

MODES = {"lane per session": (), "shared record": ("--shared-record",)}
SERVERS = {"lane per session": "lanes_server", "shared record": "shared_record_server"}
"""The module's shared server of each mode (by fixture name)."""


@pytest.fixture(scope="module")
def provider() -> Iterator[FakeAnthropic]:
    fake = FakeAnthropic()
    yield fake
    fake.close()


def _shared_server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    servers: dict[str, Any],
    provider: FakeAnthropic,
    *extra: str,
) -> Iterator[SharedHttpServer]:
    def start() -> SharedHttpServer:
        root = tmp_path_factory.mktemp("long-calls")
        (root / "proj").mkdir()
        options = serve_options(root / "proj", *extra)
        return SharedHttpServer(root / "home", serve_env(provider), options)

    yield from handed_out(servers, start, request)


@pytest.fixture
def lanes_server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _module_servers: dict[str, Any],
    provider: FakeAnthropic,
) -> Iterator[SharedHttpServer]:
    """The module's search-and-compute server, a lane per session; its project is
    ``home.parent / "proj"``."""
    yield from _shared_server(request, tmp_path_factory, _module_servers, provider)


@pytest.fixture
def shared_record_server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _module_servers: dict[str, Any],
    provider: FakeAnthropic,
) -> Iterator[SharedHttpServer]:
    """The module's search-and-compute server with --shared-record."""
    extra = MODES["shared record"]
    yield from _shared_server(request, tmp_path_factory, _module_servers, provider, *extra)


def end_open_records(server: SharedHttpServer) -> None:
    """End the records this test left open, each through a new session, which resumes the
    lowest lane with an open record (docs/guide/mcp-clients.md), so that the server is
    handed on as the test found it."""

    async def main() -> None:
        with anyio.fail_after(HANG_SECONDS):
            while open_titles(server.home):
                # A lane whose session just ended may still be closing: then this session
                # starts on a free lane, finds no record there, and the next one tries again.
                async with session_client(server.url) as client:
                    ended = await call(client, "record_end", {})
                assert ended == {"ok": True} or ended["code"] == "ENGINE_OPEN_RECORD_NOT_FOUND"

    anyio.run(main)


def serve_env(provider: FakeAnthropic | None = None) -> dict[str, str]:
    """This interpreter's Python first on PATH (the compute engine), and the provider's SDK
    pointed at the fake by its own variables."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {"PATH": path}
    if provider is not None:
        env |= {"ANTHROPIC_API_KEY": "sk-ant-test-calls", "ANTHROPIC_BASE_URL": provider.root}
    return env


def serve_options(project: Path, *extra: str) -> tuple[str, ...]:
    return ("--preset", SEARCH_AND_COMPUTE_PRESET, "--project", str(project), *extra)


def session_client(url: str) -> Client:
    return Client(url, mode="legacy")


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return receipt_of(await client.call_tool(tool, args))


def run_args(code: str) -> dict[str, Any]:
    return {"op": "run", "engine": "python", "code": code}


def sleeping_script(marker: str, seconds: float = RUN_SECONDS, until: Path | None = None) -> str:
    """A run that leaves a setsid child and a double-forked daemon holding ``marker``, then
    sleeps ``seconds`` (or less: until the file ``until`` exists) and prints done."""
    wait = f"time.sleep({seconds})"
    if until is not None:
        wait = (
            f"end = time.monotonic() + {seconds}\n"
            f"while not os.path.exists({str(until)!r}) and time.monotonic() < end:\n"
            "    time.sleep(0.02)"
        )
    return escaping_script(marker, f"{wait}\nprint('done', flush=True)")


def long_script(marker: str, length: float | None, release: Path) -> str:
    """The long run of a LENGTHS variant: RUN_SECONDS, or until the test creates ``release``."""
    if length is None:
        return sleeping_script(marker, HANG_SECONDS, until=release)
    return sleeping_script(marker, length)


async def rows_of_tool(home: Path, title: str, tool: str, count: int) -> list[dict[str, Any]]:
    """The record's rows of ``tool`` once there are ``count`` of them (a cancelled call's
    row is written after its answer was dropped)."""
    with anyio.fail_after(HANG_SECONDS):
        while True:
            rows = [r for r in open_rows(home).get(title, []) if r["tool"] == tool]
            if len(rows) >= count:
                return rows
            await anyio.sleep(0.05)


# -- long tools never hold the engine ---------------------------------------------------------


async def _b_gets_while_a_is_held(
    url: str,
    mode: str,
    long_call: Callable[[Client], Awaitable[dict[str, Any]]],
    held: Callable[[], Awaitable[None]],
    release: Callable[[], Awaitable[Any]],
) -> tuple[dict[str, Any], bool, Any, dict[str, Any]]:
    """Session A starts `long_call`; once `held` says it is under way, session B gets a
    slot, and `release` lets A's call end. Answers B's receipt, whether A had its answer
    when B had B's, what `release` saw, and A's receipt."""
    async with session_client(url) as a, session_client(url) as b:
        await call(a, "record_start", {"title": "record of A"})
        if mode == "lane per session":
            await call(b, "record_start", {"title": "record of B"})
        await call(b, "set", {"name": "x", "value": {"num": 2, "unit": "V"}})
        answered: dict[str, Any] = {}

        async def in_a() -> None:
            answered.update(await long_call(a))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(in_a)
            with anyio.fail_after(HANG_SECONDS):
                await held()
                got = await call(b, "get", {"name": "x"})
            a_answered = bool(answered)
            seen = await release()
        return got, a_answered, seen, answered


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("mode", MODES)
def test_a_get_of_another_session_answers_while_a_compute_run_is_still_running(
    tmp_path: Path, mode: str, length: float | None, request: pytest.FixtureRequest
) -> None:
    """Issue 22, Why 2: session B's get is answered while session A's compute run is still
    running: its processes alive, its answer not in yet. The run lasts until B's answer is
    in (by default) or 8 s (the slow variant)."""
    server: SharedHttpServer = request.getfixturevalue(SERVERS[mode])
    home, url, marker = server.home, server.url, new_marker()
    stop = tmp_path / "release"

    async def run(a: Client) -> dict[str, Any]:
        return await call(a, "compute", run_args(long_script(marker, length, stop)))

    async def running() -> None:
        assert await anyio.to_thread.run_sync(wait_until_some_with, marker, 2)

    async def release() -> list[int]:
        alive: list[int] = await anyio.to_thread.run_sync(wait_until_some_with, marker, 2, 0.0)
        stop.touch()
        return alive

    got, a_answered, alive, ran = anyio.run(
        _b_gets_while_a_is_held, url, mode, run, running, release
    )
    assert got["ok"] is True and got["value"]["num"] == 2
    assert not a_answered and len(alive) >= 2, "B's get waited for A's run"
    assert ran["ok"] is True and ran["stdout"].strip().endswith("done")
    # The run's row is in the calling session's record, after B's rows if they share it.
    rows = open_rows(home)
    end_open_records(server)
    assert [r["tool"] for r in rows["record of A"] if r["tool"] == "compute"] == ["compute"]
    if mode == "lane per session":
        assert [r["tool"] for r in rows["record of B"]] == ["record_start", "set", "get"]
    else:
        assert [r["tool"] for r in rows["record of A"]][-3:] == ["set", "get", "compute"]


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("mode", MODES)
def test_a_get_of_another_session_answers_while_a_lookup_waits_on_a_slow_provider(
    mode: str, length: float | None, provider: FakeAnthropic, request: pytest.FixtureRequest
) -> None:
    """Issue 22, Why 2: session A's lookup waits on a provider that holds its search turn
    (until B's answer is in, by default; 8 s in the slow variant); session B's get is
    answered meanwhile, and A's lookup then lands in A's record."""
    provider.clear()
    provider.script.sources = [Source("https://en.wikipedia.org/wiki/Copper", "Copper")]
    provider.script.extract_text = reply_json("Copper's density is 8.96 g/cm3.", [0])
    provider.script.search_delay = HANG_SECONDS if length is None else length
    server: SharedHttpServer = request.getfixturevalue(SERVERS[mode])
    home, url = server.home, server.url
    # A question of this variant's own: the home's lookup cache answers one asked before.
    question = {"question": f"What is the density of copper ({length or 'held'})?"}

    async def search(a: Client) -> dict[str, Any]:
        return await call(a, "search", question)

    async def waiting() -> None:
        while not provider.searches():
            await anyio.sleep(0.05)  # the lookup is waiting on the provider

    async def release() -> None:
        provider.release()

    got, a_answered, _, found = anyio.run(
        _b_gets_while_a_is_held, url, mode, search, waiting, release
    )
    assert got["ok"] is True and got["value"]["num"] == 2
    assert not a_answered, "B's get waited for A's lookup"
    assert found["ok"] is True and "8.96" in found["answer"]
    rows = open_rows(home)["record of A"]
    end_open_records(server)
    assert [r["tool"] for r in rows if r["tool"] == "search"] == ["search"]


@pytest.mark.parametrize("length", LENGTHS)
def test_two_parallel_calls_of_one_session_both_proceed(
    tmp_path: Path, length: float | None, lanes_server: SharedHttpServer
) -> None:
    """Issue 22 (models issue parallel tool calls): an eval of the same session is answered
    while its compute run is still running, and both rows land in its record. The run lasts
    until the eval's answer is in (by default) or 8 s (the slow variant)."""
    home, url, marker = lanes_server.home, lanes_server.url, new_marker()
    release = tmp_path / "release"

    async def main() -> tuple[dict[str, Any], bool, dict[str, Any]]:
        async with session_client(url) as a:
            await call(a, "record_start", {"title": "parallel"})
            await call(a, "set", {"name": "V", "value": {"num": 3, "unit": "V"}})
            ran: dict[str, Any] = {}

            async def run() -> None:
                code = long_script(marker, length, release)
                ran.update(await call(a, "compute", run_args(code)))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(run)
                assert await anyio.to_thread.run_sync(wait_until_some_with, marker, 2)
                with anyio.fail_after(HANG_SECONDS):
                    evaluated = await call(a, "eval", {"formula": "2*@V", "target": "W"})
                run_answered = bool(ran)
                release.touch()
            return evaluated, run_answered, ran

    evaluated, run_answered, ran = anyio.run(main)
    assert evaluated == {"ok": True, "target": "W", "rev": 1}
    assert not run_answered, "the eval waited for the compute run of its own session"
    assert ran["ok"] is True
    tools = [r["tool"] for r in open_rows(home)["parallel"]]
    end_open_records(lanes_server)
    assert tools == ["record_start", "set", "eval", "compute"]


# -- cancellation -----------------------------------------------------------------------------


def test_a_cancelled_compute_run_leaves_no_process_and_a_cancelled_row_and_a_retry_is_a_new_row(
    tmp_path: Path, lanes_server: SharedHttpServer
) -> None:
    """Issue 22, Why 3: notifications/cancelled 2 s into an 8 s run kills its whole tree
    (setsid child and daemon included); its row says cancelled by its client and is never
    ok: true; the same call again is a second attempt and a second row."""
    home, url, marker = lanes_server.home, lanes_server.url, new_marker()
    project = home.parent / "proj"
    quick = tmp_path / "quick-now"
    code = sleeping_script(marker, until=quick)

    async def main() -> tuple[bool, list[int], list[dict[str, Any]], dict[str, Any]]:
        async with session_client(url) as client:
            await call(client, "record_start", {"title": "cancelled run"})
            with anyio.move_on_after(2) as waited:  # the SDK sends notifications/cancelled
                await client.call_tool("compute", run_args(code))
            left = await anyio.to_thread.run_sync(wait_until_none_with, marker, 20.0)
            rows = await rows_of_tool(home, "cancelled run", "compute", 1)
            quick.touch()
            with anyio.fail_after(HANG_SECONDS):
                retry = await call(client, "compute", run_args(code))
            return waited.cancelled_caught, left, rows, retry

    cancelled, left, rows, retry = anyio.run(main)
    assert cancelled, "the run answered before the client cancelled it"
    assert left == [], f"processes of the cancelled run left: {left}"
    [row] = rows
    assert row["ok"] is False and row["content"]["cancelled"] is True
    assert row["content"]["code"] == "MATH_REFUSED"
    assert "the run was cancelled by its client" in row["content"]["error"]
    assert "process tree was killed" in row["content"]["error"]
    receipt = json.loads((project / row["content"]["receipt"]).read_text())
    assert receipt["cancelled"] is True and receipt["stopped"] == row["content"]["error"]
    assert retry["ok"] is True and retry["attempt"] == 2
    compute_rows = [r for r in open_rows(home)["cancelled run"] if r["tool"] == "compute"]
    end_open_records(lanes_server)
    assert [(r["ok"], r["content"]["attempt"]) for r in compute_rows] == [(False, 1), (True, 2)]


def test_a_stopping_server_cancels_its_running_compute_run_and_still_writes_its_row(
    tmp_path: Path,
) -> None:
    """Issue 22, Cancellation (the server's shutdown cancels running calls too): SIGTERM
    during a run kills its whole tree, and its row, written before the server exits, says
    it was cancelled as the server stopped."""
    home, project, marker = tmp_path / "home", tmp_path / "proj", new_marker()
    project.mkdir()
    servers: list[subprocess.Popen[bytes]] = []
    with http_server(home, serve_env(), extra=serve_options(project), process_sink=servers) as url:

        async def main() -> None:
            async with session_client(url) as client:
                await call(client, "record_start", {"title": "stopped"})
                async with anyio.create_task_group() as tasks:

                    async def run() -> None:
                        with contextlib.suppress(Exception):
                            await client.call_tool("compute", run_args(sleeping_script(marker)))

                    tasks.start_soon(run)
                    assert await anyio.to_thread.run_sync(wait_until_some_with, marker, 2)
                    servers[0].terminate()
                    await anyio.to_thread.run_sync(servers[0].wait, HANG_SECONDS)
                    tasks.cancel_scope.cancel()

        with contextlib.suppress(Exception):
            anyio.run(main)
        left = wait_until_none_with(marker, 20.0)
    assert left == [], f"processes of the run left: {left}"
    [row] = [r for r in open_rows(home)["stopped"] if r["tool"] == "compute"]
    assert row["ok"] is False and row["content"]["cancelled"] is True
    assert "the run was cancelled as the server stopped" in row["content"]["error"]


def test_over_stdio_a_cancelled_compute_run_leaves_no_process_and_a_cancelled_row(
    tmp_path: Path,
) -> None:
    """Issue 22, Cancellation, on the stdio server (one session per process): the same
    notifications/cancelled kills the run's tree and its row says so; the server goes on."""
    home, project, marker = tmp_path / "home", tmp_path / "proj", new_marker()
    project.mkdir()
    server = RawStdioServer(home, {**os.environ, **serve_env()}, serve_options(project))
    try:
        server.initialize()
        assert server.call_tool("record_start", {"title": "stdio"})["isError"] is False
        run = server.request("tools/call", {"name": "compute", "arguments": run_args(
            sleeping_script(marker))})  # fmt: skip
        assert wait_until_some_with(marker, 2)
        server.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": run, "reason": "stop"}})  # fmt: skip
        left = wait_until_none_with(marker, 20.0)
        rows = anyio.run(rows_of_tool, home, "stdio", "compute", 1)
        answered = server.call_tool("record_message", {"text": "after the cancel"})
    finally:
        server.close()
    assert left == [], f"processes of the cancelled run left: {left}"
    [row] = rows
    assert row["ok"] is False and row["content"]["cancelled"] is True
    assert "the run was cancelled by its client" in row["content"]["error"]
    assert answered["isError"] is False


class RawSession:
    """A streamable HTTP MCP session spoken by hand, so the test chooses every request id
    (the SDK client numbers its own and cancels only what it is still waiting for)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.Client(timeout=HANG_SECONDS)
        self.headers = {"accept": "application/json, text/event-stream"}

    def post(self, message: dict[str, Any]) -> dict[str, Any] | None:
        answer = self.http.post(self.url, json=message, headers=self.headers)
        answer.raise_for_status()
        if "mcp-session-id" in answer.headers:
            self.headers["mcp-session-id"] = answer.headers["mcp-session-id"]
        for line in answer.text.splitlines():
            if line.startswith("data: "):
                data: dict[str, Any] = json.loads(line[6:])
                if data.get("id") == message.get("id"):
                    return data
        return None

    def open(self) -> None:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "raw-test", "version": "0"}
        answer = self.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        assert answer is not None and "result" in answer
        self.headers["mcp-protocol-version"] = answer["result"]["protocolVersion"]
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, request_id: int, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        params = {"name": tool, "arguments": args}
        message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        answer = self.post(message)
        assert answer is not None
        result: dict[str, Any] = answer["result"]["structuredContent"]
        return result

    def cancel(self, request_id: int) -> None:
        params = {"requestId": request_id, "reason": "the user pressed stop"}
        self.post({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})


def test_a_cancellation_arriving_after_the_row_was_written_leaves_the_row_as_written(
    lanes_server: SharedHttpServer,
) -> None:
    """Issue 22, Cancellation: a call whose row was already written when the cancellation
    arrived stays written (the row was acknowledged to the disk), and the session goes on."""
    home, url = lanes_server.home, lanes_server.url
    raw = RawSession(url)
    raw.open()
    assert raw.call(2, "record_start", {"title": "late cancel"}) == {"ok": True}
    ran = raw.call(3, "compute", run_args("print(6 * 7)"))
    set_x = raw.call(4, "set", {"name": "x", "value": {"num": 1}})
    before = open_rows(home)["late cancel"]
    raw.cancel(3)
    raw.cancel(4)
    got = raw.call(5, "get", {"name": "x"})
    after = open_rows(home)["late cancel"]
    # The session ends its record and itself (its lane back), as the SDK client would.
    assert raw.call(6, "record_end", {}) == {"ok": True}
    raw.http.delete(url, headers=raw.headers)
    raw.http.close()
    assert ran["ok"] is True and ran["stdout"].strip() == "42" and set_x["ok"] is True
    assert after[: len(before)] == before
    assert [(r["tool"], r["ok"]) for r in after] == [
        ("record_start", True),
        ("compute", True),
        ("set", True),
        ("get", True),
    ]
    assert got["ok"] is True and got["value"]["num"] == 1


# -- progress ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "length",
    [
        pytest.param(None, id="until it reported running"),
        pytest.param(7, id="7 s", marks=pytest.mark.slow),
    ],
)
def test_a_compute_run_reports_its_start_its_progress_and_its_end_to_the_progress_callback(
    tmp_path: Path, length: float | None, lanes_server: SharedHttpServer
) -> None:
    """Issue 22, Progress: with a progressToken (the SDK sends one with a progress callback)
    a run reports started, still running every few seconds, and how it ended, in order, the
    progress value rising each time. The run lasts until the callback has had its first
    still-running report (by default) or 7 s, two of them (the slow variant)."""
    url, marker = lanes_server.url, new_marker()
    release = tmp_path / "release"
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))
        if "still running after" in (message or ""):
            release.touch()

    async def main() -> dict[str, Any]:
        async with session_client(url) as client:
            await call(client, "record_start", {"title": "progress"})
            with anyio.fail_after(HANG_SECONDS):
                result = await client.call_tool(
                    "compute",
                    run_args(long_script(marker, length, release)),
                    progress_callback=on_progress,
                )
            assert await call(client, "record_end", {}) == {"ok": True}
            return receipt_of(result)

    ran = anyio.run(main)
    assert ran["ok"] is True
    messages = [message or "" for _, _, message in seen]
    assert messages[0] == f"python run {ran['runId']} (attempt 1) started"
    assert any("still running after" in m for m in messages[1:-1]), messages
    assert messages[-1].startswith(f"python run {ran['runId']} finished after")
    assert messages[-1].endswith("with exit 0")
    values = [progress for progress, _, _ in seen]
    assert values == sorted(set(values)), values
