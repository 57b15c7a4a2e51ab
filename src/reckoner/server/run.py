"""Running the MCP server: which engines it holds, which preset tools beside them, and
how a stop (the client gone, SIGTERM) closes every one of them.

The transports are ``reckoner.server.stdio`` (the default) and ``reckoner.server.http``
(streamable HTTP on loopback); nothing here writes to stdout.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from reckoner.contract.presets import PURE_PRESET
from reckoner.contract.registry import tools_of
from reckoner.contract.search import SEARCH_TOOL
from reckoner.host.calls import cancel_running
from reckoner.server.app import Engines, OneEngine, PresetToolCaller, build_server
from reckoner.server.defaults import DEFAULT_HTTP_PORT
from reckoner.server.held_arguments import HeldArguments
from reckoner.server.home_engine import HomeEngine
from reckoner.server.http import ServeError, listen_loopback, serve_http
from reckoner.server.in_flight import CANCELLED_AT_SHUTDOWN
from reckoner.server.logs import configure_stderr_logging
from reckoner.server.sessions import SessionLanes, calling_engine
from reckoner.server.stdio import serve_stdio
from reckoner.service import Engine
from reckoner.storage.home import LANE_ENV, HomeError, resolve_lane

if TYPE_CHECKING:  # the pitfalls memory loads only when served
    from reckoner.pitfalls.mcp import PitfallsMount


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """How one `reckoner serve` serves (its flags).

    ``http`` serves streamable HTTP on ``host:port`` (loopback only), where every request
    without ``Authorization: Bearer <http_token>`` is 401 when a token is given; each MCP
    session gets a lane of its own unless ``shared_record``. ``lane`` pins the lane of the
    one engine (stdio, --shared-record). ``project`` is the compute tool's project root
    (default: the working directory); ``compute_options`` override ``state.json``'s compute
    settings for this run. ``pitfalls`` mounts the pitfalls memory, its project library
    ``pitfalls_project_dir`` under the working directory (None: the default, "": the global
    library only).
    """

    http: bool = False
    http_token: str | None = None
    host: str = "127.0.0.1"
    port: int = DEFAULT_HTTP_PORT
    shared_record: bool = False
    preset: str = PURE_PRESET
    lane: int | str | None = None
    project: Path | str | None = None
    compute_options: dict[str, Any] | None = None
    pitfalls: bool = False
    pitfalls_project_dir: str | None = None

    @property
    def per_session(self) -> bool:
        """Whether every session takes a lane of its own."""
        return self.http and not self.shared_record


def _preset_tools(
    home: Path, calling: Callable[[], Engine | None], options: ServeOptions
) -> dict[str, PresetToolCaller | None]:
    """The callers of the preset's own tools that run beside the engine (compute), built
    only for a preset that serves them; None marks one switched off. ``calling`` is the
    engine of the call under way, whose record gets the row and whose log the warnings."""
    from reckoner.contract.compute import COMPUTE_TOOL

    if COMPUTE_TOOL not in tools_of(options.preset):
        return {}
    from reckoner.compute.mount import mount

    def row(ok: bool, content: dict[str, Any]) -> None:
        opened = calling()
        if opened is not None:
            opened.append_preset_row(COMPUTE_TOOL.name, ok, content)

    def log(message: str) -> None:
        opened = calling()
        if opened is not None:
            opened.log.warn(message)
        else:
            print(f"reckoner: {message}", file=sys.stderr, flush=True)

    service = mount(
        home,
        project=options.project,
        preset=options.preset,
        options=options.compute_options,
        row_sink=row,
        log=log,
    )
    if service.settings.mode == "off":
        return {COMPUTE_TOOL.name: None}  # off is a true no-op: the tool is not even listed
    return {COMPUTE_TOOL.name: service}


def _one_engine(home: Path | str | None, lane: int | str | None) -> HomeEngine:
    """The engine every session shares (stdio, --shared-record), opened now."""
    engine = HomeEngine(home, lane=lane)
    if engine.open() is None:
        # One line for whoever reads the host's log; the client sees it in every receipt.
        print(
            f"reckoner: serving without an engine, every tool call answers why: {engine.failure}",
            file=sys.stderr,
            flush=True,
        )
    return engine


def _lane_per_session(lane: int | str | None) -> None:
    """Refuse a pinned lane where every session takes its own."""
    try:
        pinned = resolve_lane(lane)
    except HomeError as error:
        raise ServeError(str(error)) from None
    if pinned is not None:
        source = "--lane" if lane is not None and str(lane).strip() else LANE_ENV
        raise ServeError(
            f"{source} {pinned} pins one lane, but serve --http gives each session a lane of "
            f"its own; leave {source} unset, or add --shared-record to serve one record on "
            f"lane {pinned} to every session"
        )


class _Held:
    """What a running server holds and must close on the way out: the one engine or the
    lanes, and the preset tools that run beside them."""

    def __init__(self, home: Path | str | None, options: ServeOptions) -> None:
        self.prepare: list[Callable[[Engine], object]] = []
        if SEARCH_TOOL in tools_of(options.preset):
            from reckoner.lookup.service import attach_search

            self.prepare.append(attach_search)
        self.engine: HomeEngine | None = None
        self.lanes: SessionLanes | None = None
        calling: Callable[[], Engine | None]
        if options.per_session:
            self.lanes = SessionLanes(home, self.prepare)
            self.home, calling = self.lanes.home, calling_engine
        else:
            self.engine = _one_engine(home, options.lane)
            self.home, calling = self.engine.home, self.engine.open
        try:
            self.preset_tools = _preset_tools(self.home, calling, options)
        except BaseException:
            self.close_engines()
            raise

    def engines(self) -> Engines:
        """The engines the MCP server answers from, the preset's preparation attached."""
        if self.lanes is not None:
            return self.lanes
        assert self.engine is not None
        for attach in self.prepare:
            self.engine.when_open(attach)
        return OneEngine(self.engine)

    def stop_preset_tools(self) -> None:
        # A computation still running when the server goes would outlive it: stop it.
        for caller in self.preset_tools.values():
            stop = getattr(caller, "close", None)
            if stop is not None:
                stop()

    def close_engines(self) -> None:
        if self.lanes is not None:
            self.lanes.close()
        if self.engine is not None:
            self.engine.close()


def _on_sigterm(held: _Held, stdio: bool) -> Callable[[int, object], None]:
    """A terminated server still closes its engine (log line, lock, file handle) on the way
    out."""

    def handler(signum: int, frame: object) -> None:
        cancel_running(CANCELLED_AT_SHUTDOWN)
        held.stop_preset_tools()
        if stdio:
            # Over stdio, leave from the handler itself: an exception raised here would land
            # in whichever task runs and be reported at loop shutdown, and the transport's
            # reader thread stays blocked on stdin until the client hangs up. close() waits
            # for a call under way to finish first.
            held.close_engines()
            sys.stderr.flush()
            os._exit(128 + signum)
        raise SystemExit(128 + signum)

    return handler


def _pitfalls_mount(home: Path, options: ServeOptions) -> PitfallsMount | None:
    """The pitfalls memory the server mounts with ``--pitfalls``, else None."""
    if not options.pitfalls:
        return None
    from reckoner.pitfalls.mcp import PitfallsMount
    from reckoner.pitfalls.tiers import DEFAULT_PROJECT_DIR, Pitfalls

    chosen = options.pitfalls_project_dir
    project_dir = DEFAULT_PROJECT_DIR if chosen is None else chosen
    return PitfallsMount(Pitfalls.open(home, project=Path.cwd(), project_dir=project_dir))


def serve(home: Path | str | None, options: ServeOptions | None = None) -> None:
    """Serve the home's engine(s) until the client (stdio) or a signal (HTTP) ends it.

    Over HTTP each MCP session gets a lane of its own (``reckoner.server.sessions``) unless
    ``shared_record``, which serves one engine to every session, as stdio always does.
    A home the engine cannot open does not stop the server: it serves anyway and answers
    every tool call with a receipt naming the cause (issue 9). Raises ``ServeError`` when the
    HTTP address cannot be used, or a lane is pinned where each session takes its own.
    """
    options = options or ServeOptions()
    configure_stderr_logging()
    if options.per_session:
        _lane_per_session(options.lane)
    sock = listen_loopback(options.host, options.port) if options.http else None
    try:
        held = _Held(home, options)
    except BaseException:
        if sock is not None:
            sock.close()
        raise
    previous = signal.signal(signal.SIGTERM, _on_sigterm(held, stdio=sock is None))
    try:
        _run(held, options, sock)
    finally:
        held.stop_preset_tools()
        held.close_engines()
        signal.signal(signal.SIGTERM, previous)


def _run(held: _Held, options: ServeOptions, sock: socket.socket | None) -> None:
    """The MCP server over what is held, on its transport until it ends."""
    arguments = HeldArguments()
    engines = held.engines()
    server = build_server(
        engines,
        preset=options.preset,
        held=arguments,
        pitfalls=_pitfalls_mount(held.home, options),
        preset_tools=held.preset_tools,
    )
    if sock is not None:
        anyio.run(serve_http, server, sock, arguments, options.http_token)
    else:
        anyio.run(serve_stdio, server, arguments)
