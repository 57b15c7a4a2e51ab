"""Which engine answers a request: a lane of its own for each MCP session of `serve --http`.

Each session gets its own engine (its own lane of the home, open record and slot table) on
its first tool call, exactly as a separate process would, and gives it back when the session
ends: the client's DELETE, the transport closing it, the idle timeout or the server stopping.
Its open record stays on disk, so the next session to open resumes it (the lowest lane whose
open record nobody holds, as a restarted process does). A session that only lists tools or
reads the skills holds no lane. `--shared-record` keeps one engine for every session
(``OneEngine`` in ``app``). The decisions: docs/decisions/sessions.md.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio.to_thread
from mcp.server import ServerRequestContext
from mcp.server.connection import Connection

from reckoner.core.errors import Failure
from reckoner.pitfalls.mcp import session_key
from reckoner.server.app import PresetToolCaller
from reckoner.server.home_engine import UNSERVABLE_CODE, HomeEngine
from reckoner.server.in_flight import in_worker
from reckoner.service import Engine
from reckoner.storage.home import MAX_LANES

SESSION_IDLE_SECONDS = 30 * 60
"""A session with no request in flight for this long is ended and its lane released: the
installed SDK's own default (``DEFAULT_SESSION_IDLE_TIMEOUT``), named here for the server."""

RESUME_WAIT_SECONDS = 5.0
"""How long a new session waits for ended sessions still giving their lanes back, so it
resumes their open record rather than starting on a fresh lane beside it."""

DRAIN_SECONDS = 600.0
"""How long an ended session's lane waits for its calls still running (a compute run) to
append their rows before the engine closes; a row that comes later is not written."""

SESSIONLESS_KEY = "process"
"""``session_key`` of a request with no HTTP session (the stateless protocol revision): such
requests share one lane for the server's life, since no session ends for them."""

_log = logging.getLogger(__name__)

_calling: ContextVar[HomeEngine | None] = ContextVar("reckoner_calling_lane", default=None)


def calling_engine() -> Engine | None:
    """The engine of the session whose call runs in this thread (a preset tool's row goes to
    its record); None outside a session's call or while its home is unusable."""
    lane = _calling.get()
    return lane.open() if lane is not None else None


def too_many_sessions() -> str:
    """The one sentence of a session beyond the limit."""
    return (
        f"this server already serves {MAX_LANES} sessions, each with its own record (the "
        f"limit: one lane per session, {MAX_LANES} lanes per home), so this call did "
        f"nothing; end another session, or restart the server with --shared-record so that "
        f"sessions share one record"
    )


@dataclass
class _Lane:
    """One session's engine and its calls running (the engine's own mutex keeps its rows
    whole and in order; parallel calls of the session go on beside each other)."""

    engine: HomeEngine
    running: int = 0
    idle: threading.Condition = field(default_factory=threading.Condition)

    def begin(self) -> None:
        with self.idle:
            self.running += 1

    def end(self) -> None:
        with self.idle:
            self.running -= 1
            self.idle.notify_all()

    def close_when_idle(self) -> None:
        with self.idle:
            self.idle.wait_for(lambda: self.running == 0, timeout=DRAIN_SECONDS)
        self.engine.close()  # waits for a call under way on the engine itself


class SessionLanes:
    """A lane per MCP session key: calls of one session go to its own engine, calls of
    different sessions run in parallel on theirs."""

    def __init__(
        self,
        home: Path | str | None,
        prepare: list[Callable[[Engine], object]] | None = None,
    ) -> None:
        self.home = HomeEngine(home).home  # resolved once, the same for every lane
        self._prepare = list(prepare or [])
        self._table = threading.Condition()
        self._lanes: dict[str, _Lane] = {}
        self._bound: set[str] = set()
        self._releasing = 0
        self._closed = False
        self._warned_unbound = False

    # -- the calls -------------------------------------------------------------------------

    async def answer(self, ctx: ServerRequestContext[Any], tool: str, args: Any) -> dict[str, Any]:
        """An engine tool's receipt from the calling session's own engine."""
        lane = await self._lane_of(ctx)
        if isinstance(lane, str):
            return Failure(UNSERVABLE_CODE, lane).receipt()
        lane.begin()
        try:
            return await in_worker(ctx, lambda: lane.engine.call(tool, args))
        finally:
            lane.end()

    async def answer_beside(
        self, ctx: ServerRequestContext[Any], caller: PresetToolCaller, args: Any
    ) -> dict[str, Any]:
        """A preset tool (compute) run beside the session's engine, its row into its record."""
        lane = await self._lane_of(ctx)
        if isinstance(lane, str):
            return Failure(UNSERVABLE_CODE, lane).receipt()

        def run() -> dict[str, Any]:
            _calling.set(lane.engine)  # this worker thread's context only
            return caller.call(args)

        lane.begin()
        try:
            return await in_worker(ctx, run)
        finally:
            lane.end()

    # -- lanes opened and given back -------------------------------------------------------

    async def _lane_of(self, ctx: ServerRequestContext[Any]) -> _Lane | str:
        key = session_key(ctx)
        if key not in self._bound and key != SESSIONLESS_KEY:
            self._bind_end(ctx, key)
        lane = await anyio.to_thread.run_sync(self._lane_for, key)
        if not isinstance(lane, str):
            # Opening replays the record; another session's calls go on meanwhile.
            await anyio.to_thread.run_sync(lane.engine.open)
        return lane

    def _bind_end(self, ctx: ServerRequestContext[Any], key: str) -> None:
        """Give the lane back when the SDK tears the session's connection down."""
        connection = _connection_of(ctx)
        with self._table:
            self._bound.add(key)
        if connection is None:
            if not self._warned_unbound:
                self._warned_unbound = True
                _log.warning(
                    "the MCP SDK hides the session's connection: lanes are released "
                    "only when the server stops"
                )
            return

        async def ended() -> None:
            self.release(key)

        connection.exit_stack.push_async_callback(ended)

    def _lane_for(self, key: str) -> _Lane | str:
        with self._table:
            lane = self._lanes.get(key)
            if lane is not None:
                return lane
            if self._closed:
                return "internal error: the reckoner server is shutting down; start it again"
            if key != SESSIONLESS_KEY and key not in self._bound:
                return "this session has ended; open a new session to continue"
            self._table.wait_for(lambda: self._releasing == 0, timeout=RESUME_WAIT_SECONDS)
            if len(self._lanes) >= MAX_LANES:
                return too_many_sessions()
            engine = HomeEngine(self.home)
            for prepare in self._prepare:
                engine.when_open(prepare)
            lane = _Lane(engine)
            self._lanes[key] = lane
            return lane

    def release(self, key: str) -> None:
        """End ``key``'s session: its lane closes once its running calls have written their
        rows (in a thread of its own: the session's teardown does not wait for a long run)."""
        with self._table:
            self._bound.discard(key)
            lane = self._lanes.pop(key, None)
            if lane is None:
                return
            self._releasing += 1
        threading.Thread(
            target=self._close_lane, args=(lane,), name="reckoner-lane-release", daemon=True
        ).start()

    def _close_lane(self, lane: _Lane) -> None:
        try:
            lane.close_when_idle()
        finally:
            with self._table:
                self._releasing -= 1
                self._table.notify_all()

    def close(self) -> None:
        """The server stops: every lane closes (open records stay resumable on disk)."""
        with self._table:
            self._closed = True
            lanes = list(self._lanes.values())
            self._lanes.clear()
            self._bound.clear()
        for lane in lanes:
            lane.close_when_idle()
        with self._table:
            self._table.wait_for(lambda: self._releasing == 0, timeout=DRAIN_SECONDS)

    def held(self) -> int:
        """How many sessions hold a lane now."""
        with self._table:
            return len(self._lanes)


def _connection_of(ctx: ServerRequestContext[Any]) -> Connection | None:
    # SDK 2.3 hands handlers a ServerRequestContext without the Connection whose exit_stack
    # is its documented per-session teardown hook (Context.connection is not built yet); the
    # per-request ServerSession holds it.
    connection = getattr(ctx.session, "_connection", None)
    return connection if isinstance(connection, Connection) else None
