"""One `reckoner serve` for a module's tests, where what a test checks does not depend on a
fresh process (docs/decisions/tests.md, "one server per module").

Over stdio one process has one client, so the module shares one SDK client session (held
open on a thread's event loop) or one raw-pipe server; over streamable HTTP it shares the
server and each test opens its own sessions. A test gets it only as the last test
left it usable: the process alive, nothing unread on its stdout, and no record open in its
home. A test that leaves it otherwise fails by name, and the next test gets a fresh server on
a fresh home, so no test's outcome depends on another's. Every test keeps its own record
(its own title) and reads its rows back by that title.
"""

from __future__ import annotations

import select
import subprocess
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TypeVar

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client
from mcp_helpers import RawStdioServer, assert_only_protocol, http_server, stdio_params

from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive

T = TypeVar("T")

STRAY_SECONDS = 2.0
"""How long the check after a test waits for a message nobody read: a generous bound on a
message already written, not a deadline on the server's work."""


def open_titles(home: Path) -> list[str]:
    """The titles of the records open in ``home`` (what a test must not leave behind)."""
    if not home.exists():
        return []
    return [entry.title for entry in RecordArchive(HomeLayout(home)).index().open_records]


def rows_titled(home: Path, title: str) -> list[dict[str, Any]]:
    """The rows of the one record of ``home`` titled ``title``, open or closed."""
    archive = RecordArchive(HomeLayout(home))
    listing = archive.index()
    ids = [entry.id for entry in [*listing.open_records, *listing.closed] if entry.title == title]
    assert len(ids) == 1, f"{len(ids)} records titled {title!r} in {home}"
    view = archive.read(ids[0])
    assert view is not None
    return view.rows


class SharedClient:
    """An SDK client session over stdio on one server, shared by a module's tests.

    The client caches no listing (``cache=None``): every ``list_tools`` a test makes is a
    request the server answers, as with a client of its own.
    """

    def __init__(self, home: Path) -> None:
        self.home = home
        self._stack = ExitStack()
        portal = self._stack.enter_context(start_blocking_portal())
        self._portal = portal
        client = Client(stdio_params(home), cache=None)
        self.client = self._stack.enter_context(portal.wrap_async_context_manager(client))

    def run(self, work: Callable[[Client], Awaitable[T]]) -> T:
        """Run ``work(client)`` on the session's event loop and return its result."""
        return self._portal.call(work, self.client)

    def left_behind(self) -> str | None:
        """What makes the server unfit for the next test, or None."""
        titles = open_titles(self.home)
        if titles:
            return f"left the record(s) {titles} open on the module's shared server"
        try:
            self.run(_answers)
        except Exception as failure:  # the session itself is broken: say how
            return f"left the module's shared server unable to answer ({failure!r})"
        return None

    def close(self) -> None:
        self._stack.close()


async def _answers(client: Client) -> None:
    """A request the server answers the same in every state (tools/list, uncached)."""
    await client.list_tools()


class SharedRawServer:
    """A raw-pipe server shared by a module's tests; its stderr goes to a file, so a test
    can read what the server logged while it ran (``stderr_since``)."""

    def __init__(self, home: Path) -> None:
        self.home = home
        home.parent.mkdir(parents=True, exist_ok=True)
        self._stderr_path = home.parent / "stderr.log"
        self._stderr = self._stderr_path.open("wb")
        self.server = RawStdioServer(home, stderr=self._stderr)
        self.server.initialize()
        self.begin()

    def begin(self) -> None:
        """Mark where the next test's stdout and stderr start."""
        self._stdout_mark = len(self.server.stdout_lines)
        self._stderr_mark = self._stderr_path.stat().st_size

    def stderr_since(self) -> bytes:
        """What the server wrote to stderr since this test began."""
        with self._stderr_path.open("rb") as log:
            log.seek(self._stderr_mark)
            return log.read()

    def stdout_since(self) -> list[bytes]:
        """The stdout lines read since this test began."""
        return self.server.stdout_lines[self._stdout_mark :]

    def left_behind(self) -> str | None:
        """What makes the server unfit for the next test, or None."""
        if self.server.process.poll() is not None:
            return f"left the module's shared server exited ({self.server.process.returncode})"
        titles = open_titles(self.home)
        if titles:
            return f"left the record(s) {titles} open on the module's shared server"
        ping = self.server.request("ping", {})
        assert self.server.process.stdout is not None
        ready, _, _ = select.select([self.server.process.stdout], [], [], STRAY_SECONDS)
        if not ready:
            return "left the module's shared server unable to answer a ping"
        first = self.server.read_message()
        if first.get("id") != ping:
            return f"left a message unread on the module's shared server's stdout: {first}"
        return None

    def close(self) -> None:
        """Stop the server: it exits 0, and every line it wrote to stdout was protocol."""
        self.server.close()
        self._stderr.close()
        assert self.server.process.returncode == 0, self.server.process.returncode
        assert_only_protocol(self.server.stdout_lines)


class SharedHttpServer:
    """`reckoner serve --http` on loopback, shared by a module's tests: streamable HTTP serves
    many sessions from one process (docs/guide/mcp-clients.md), so each test brings its own
    clients; what it must close is its records."""

    def __init__(
        self, home: Path, env: dict[str, str] | None = None, extra: tuple[str, ...] = ()
    ) -> None:
        self.home = home
        self._stack = ExitStack()
        self._stderr: list[bytes] = []
        processes: list[subprocess.Popen[bytes]] = []
        self.url = self._stack.enter_context(
            http_server(home, env, stderr_sink=self._stderr, process_sink=processes, extra=extra)
        )
        self._process = processes[0]
        self.begin()

    def begin(self) -> None:
        """Mark where the next test's stderr lines start."""
        self._stderr_mark = len(self._stderr)

    def stderr_since(self) -> str:
        """What the server wrote to stderr since this test began (as far as it has been read:
        the server logs a request before it answers it)."""
        return b"".join(self._stderr[self._stderr_mark :]).decode()

    def left_behind(self) -> str | None:
        """What makes the server unfit for the next test, or None."""
        if self._process.poll() is not None:
            return f"left the module's shared server exited ({self._process.returncode})"
        titles = open_titles(self.home)
        if titles:
            return f"left the record(s) {titles} open on the module's shared server"
        return None

    def close(self) -> None:
        """Stop the server (http_server checks that stdout stayed empty); no traceback in
        anything it logged."""
        self._stack.close()
        logged = b"".join(self._stderr).decode()
        assert "Traceback" not in logged, logged


Shared = TypeVar("Shared", SharedClient, SharedRawServer, SharedHttpServer)


def handed_out(
    servers: dict[str, Any], start: Callable[[], Shared], request: pytest.FixtureRequest
) -> Iterator[Shared]:
    """The body of a test's fixture: the module's server of that fixture (started on first
    use), checked after the test; a test that left it unfit fails naming what it left, and
    the server is replaced for the next test."""
    kind = request.fixturename
    if servers.get(kind) is None:
        servers[kind] = start()
    shared: Shared = servers[kind]
    if isinstance(shared, SharedRawServer | SharedHttpServer):
        shared.begin()
    yield shared
    problem = shared.left_behind()
    if problem is not None:
        servers[kind] = None
        try:
            shared.close()
        except Exception as failure:  # the test fails either way: say both
            problem += f"; and closing it: {failure!r}"
        pytest.fail(f"{request.node.name} {problem}", pytrace=False)
