"""Running the MCP server on a transport: stdio (the default) or streamable HTTP on loopback.

Nothing here writes to stdout: over stdio it carries protocol messages only, and the SDK
diverts the process's own fd 1 to stderr while it serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, cast

import anyio
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.message import SessionMessage
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect

from reckoner.access import HTTP_TOKEN_VARIABLE, BearerGate
from reckoner.contract.registry import tools_of
from reckoner.contract.search import SEARCH_TOOL
from reckoner.host.calls import cancel_running
from reckoner.server.app import OneEngine, build_server
from reckoner.server.defaults import DEFAULT_HTTP_PORT, MCP_PATH
from reckoner.server.held_arguments import HeldArguments, rewriting_http_app
from reckoner.server.home_engine import HomeEngine
from reckoner.server.in_flight import CANCELLED_AT_SHUTDOWN, allow_worker_threads
from reckoner.server.sessions import SESSION_IDLE_SECONDS, SessionLanes, calling_engine
from reckoner.server.stdio_lines import Refused, bounded_lines, read_message
from reckoner.service import Engine
from reckoner.storage.home import LANE_ENV, HomeError, resolve_lane

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
    "off": logging.CRITICAL + 1,
}


SHUTDOWN_GRACE_SECONDS = 3
"""How long a stopping HTTP server waits for open requests before it cancels them."""


class ServeError(Exception):
    """A server that cannot start, with the one sentence that says why."""


_HANG_UPS: tuple[type[BaseException], ...] = (
    ClientDisconnect,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    BrokenPipeError,
    ConnectionResetError,
)
"""What the transports raise when the client went away; the SDK logs them with a traceback."""


class HangUpsInOneLine(logging.Filter):
    """A client that hangs up mid-request, or a request still open when the server stops, is
    not a fault of the server: one line, no traceback.

    The call it made, if one had started, still finishes and keeps its row (``in_worker``).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        failure = record.exc_info[1] if record.exc_info else None
        if isinstance(failure, _HANG_UPS):
            what = "a client hung up mid-request"
        elif isinstance(failure, asyncio.CancelledError):
            what = "a request still open at shutdown was cancelled"
        else:
            return True
        said = " ".join(record.getMessage().split())
        record.msg = what + " (%s: %s)"
        record.args = (said, type(failure).__name__)
        record.exc_info = None
        record.exc_text = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _configure_stderr_logging() -> None:
    # The SDK and uvicorn log through `logging`; send all of it to stderr, never stdout.
    level_name = os.environ.get("RECKONER_LOG_LEVEL", "").strip().lower()
    level = _LEVELS.get(level_name, logging.WARNING)
    root = logging.getLogger()
    if not any(getattr(h, "stream", None) is sys.stderr for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler.addFilter(HangUpsInOneLine())
        root.addHandler(handler)
    root.setLevel(level)


def check_loopback(host: str) -> None:
    """Refuse a non-loopback address: the server has no authentication of its own."""
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ServeError(
            f"--host {host!r} is not a loopback address; reckoner serves MCP over HTTP on "
            "loopback only (127.0.0.1, ::1 or localhost), because it has no authentication"
        )


def bind_loopback(host: str, port: int) -> socket.socket:
    """Bind the listening socket up front so a taken port is one clear sentence."""
    check_loopback(host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ServeError(
            f"cannot listen on {host}:{port} ({exc.strerror}); pick another port with --port"
        ) from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


def host_guard(host: str, port: int) -> TransportSecuritySettings:
    """The Host and Origin values the HTTP server answers to: its own address and port only.

    Built for every bound address, because the SDK switches its DNS-rebinding guard on by
    itself only for 127.0.0.1, ::1 and localhost, not for the rest of 127.0.0.0/8.
    """
    shown = {f"[{host}]" if ":" in host else host, "127.0.0.1", "localhost", "[::1]"}
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(f"{name}:{port}" for name in shown),
        allowed_origins=sorted(f"http://{name}:{port}" for name in shown),
    )


def _claim_stdin() -> int:
    """The protocol's stdin on a private descriptor, fd 0 pointed at /dev/null meanwhile
    (what the SDK does for a stdin it opens itself)."""
    private = os.dup(0)
    try:
        diversion = os.open(os.devnull, os.O_RDONLY)
        os.dup2(diversion, 0)
        os.close(diversion)
    except OSError:
        pass  # nothing else reads stdin; the diversion is a guard, not a need
    return private


class _Unread:
    """The SDK transport's own stdin: yields no line and ends when told, so the SDK keeps
    stdout (its claim of fd 1 and its writer) while stdio_lines reads stdin."""

    def __init__(self) -> None:
        self.done = anyio.Event()

    def __aiter__(self) -> _Unread:
        return self

    async def __anext__(self) -> str:
        await self.done.wait()
        raise StopAsyncIteration


async def _read_messages(fd: int, held: HeldArguments | None, inbox: Any, outbox: Any) -> None:
    """Every stdin line to the session as its message, or answered at once with its error."""
    async with inbox:
        async for line in bounded_lines(fd):
            if not line:
                continue  # a blank line is framing, not a message
            read = read_message(line, held)
            if isinstance(read, Refused):
                await outbox.send(read.reply())
            else:
                await inbox.send(read)


async def serve_stdio(server: Server[Any], held: HeldArguments | None = None) -> None:
    allow_worker_threads()
    fd = _claim_stdin()
    unread = _Unread()
    inbox, messages = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    try:
        async with stdio_server(stdin=cast(Any, unread)) as (_, write_stream):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_read_messages, fd, held, inbox, write_stream)
                await server.run(messages, write_stream, server.create_initialization_options())
                tasks.cancel_scope.cancel()
            unread.done.set()
    except* BrokenPipeError:
        # The client closed our stdout while a call was finishing (it hung up mid-call): the
        # call's row is written; the answer has nobody to go to, which is no server fault.
        pass
    finally:
        os.close(fd)


HTTP_REFUSAL = (
    "This MCP server answers only requests that carry its token; send the header "
    f"Authorization: Bearer <token> with the token its {HTTP_TOKEN_VARIABLE} (or --token) "
    "holds."
)
# A JSON-RPC error, so an MCP client shows the sentence rather than a bare status; -32001 is
# in the range JSON-RPC leaves to the server.
_UNAUTHORIZED = {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": HTTP_REFUSAL}}


async def serve_http(
    server: Server[Any],
    sock: socket.socket,
    held: HeldArguments | None = None,
    token: str | None = None,
) -> None:
    """Serve ``server`` on ``sock``; with ``token``, only requests carrying it as a bearer."""
    import uvicorn

    allow_worker_threads()
    host, port = sock.getsockname()[:2]
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=host_guard(str(host), int(port)),
        session_idle_timeout=SESSION_IDLE_SECONDS,
    )
    _cancel_calls_at_shutdown(app)
    if held is not None:
        app = rewriting_http_app(app, held)
    served: Any = app if token is None else BearerGate(app, token, _UNAUTHORIZED)
    config = uvicorn.Config(
        served,
        log_config=None,
        access_log=False,
        lifespan="on",
        # A client that never finishes its request must not keep SIGTERM from stopping the
        # server; a tool call under way is cancelled then (the lifespan's end, below), and
        # still writes its row: in_worker never abandons one.
        timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
    )
    shown_host = f"[{host}]" if ":" in str(host) else host
    guarded = " (requests need its bearer token)" if token is not None else ""
    print(
        f"reckoner: MCP over streamable HTTP at http://{shown_host}:{port}{MCP_PATH}{guarded}",
        file=sys.stderr,
        flush=True,
    )
    await uvicorn.Server(config).serve(sockets=[sock])


def _cancel_calls_at_shutdown(app: Starlette) -> None:
    """A stopping HTTP server cancels the calls still running once its grace has passed,
    before the SDK tears their sessions down, so each says it stopped as the server did
    (a compute run's tree is killed; each row is still written)."""
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(target: Starlette) -> AsyncIterator[None]:
        async with inner(target):
            try:
                yield
            finally:
                cancel_running(CANCELLED_AT_SHUTDOWN)

    app.router.lifespan_context = lifespan


def _preset_tools(
    home: Path,
    calling: Callable[[], Engine | None],
    preset: str,
    project: Path | str | None,
    options: dict[str, Any] | None,
) -> dict[str, Any]:
    """The callers of the preset's own tools that run beside the engine (compute), built
    only for a preset that serves them; None marks one switched off. ``calling`` is the
    engine of the call under way, whose record gets the row and whose log the warnings."""
    from reckoner.contract.compute import COMPUTE_TOOL

    if COMPUTE_TOOL not in tools_of(preset):
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

    service = mount(home, project=project, preset=preset, options=options, row_sink=row, log=log)
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


def serve(
    home: Path | str | None,
    *,
    pitfalls: bool = False,
    pitfalls_project_dir: str | None = None,
    http: bool = False,
    http_token: str | None = None,
    host: str = "127.0.0.1",
    port: int = DEFAULT_HTTP_PORT,
    preset: str = "reckoner",
    lane: int | str | None = None,
    project: Path | str | None = None,
    compute_options: dict[str, Any] | None = None,
    shared_record: bool = False,
) -> None:
    """Serve the home's engine(s) until the client (stdio) or a signal (HTTP) ends it.

    Over HTTP each MCP session gets a lane of its own (``reckoner.server.sessions``) unless
    ``shared_record``, which serves one engine to every session, as stdio always does.
    A home the engine cannot open does not stop the server: it serves anyway and answers
    every tool call with a receipt naming the cause (issue 9). Raises ``ServeError`` when the
    HTTP address cannot be used, or a lane is pinned where each session takes its own.

    ``pitfalls`` mounts the pitfalls memory; its project library is ``pitfalls_project_dir``
    under the working directory (None: the default, "": the global library only).
    ``project`` is the compute tool's project root (default: the working directory);
    ``compute_options`` override ``state.json``'s compute settings for this run.
    ``http_token``: over HTTP, every request without ``Authorization: Bearer <it>`` is 401.
    """
    _configure_stderr_logging()
    per_session = http and not shared_record
    if per_session:
        _lane_per_session(lane)
    sock = bind_loopback(host, port) if http else None
    engine: HomeEngine | None = None
    lanes: SessionLanes | None = None
    prepare: list[Callable[[Engine], object]] = []
    if SEARCH_TOOL in tools_of(preset):
        from reckoner.lookup.service import attach_search

        prepare.append(attach_search)
    if per_session:
        lanes = SessionLanes(home, prepare)
        home_dir, calling = lanes.home, calling_engine
    else:
        engine = _one_engine(home, lane)
        home_dir, calling = engine.home, engine.open

    def close_engines() -> None:
        if lanes is not None:
            lanes.close()
        if engine is not None:
            engine.close()

    try:
        preset_tools = _preset_tools(home_dir, calling, preset, project, compute_options)
    except BaseException:
        close_engines()
        if sock is not None:
            sock.close()
        raise

    def stop_preset_tools() -> None:
        # A computation still running when the server goes would outlive it: stop it.
        for caller in preset_tools.values():
            stop = getattr(caller, "close", None)
            if stop is not None:
                stop()

    # A terminated server still closes its engine (log line, lock, file handle) on the way out.
    def on_sigterm(signum: int, frame: object) -> None:
        cancel_running(CANCELLED_AT_SHUTDOWN)
        stop_preset_tools()
        if sock is None:
            # Over stdio, leave from the handler itself: an exception raised here would land
            # in whichever task runs and be reported at loop shutdown, and the transport's
            # reader thread stays blocked on stdin until the client hangs up. close() waits
            # for a call under way to finish first.
            close_engines()
            sys.stderr.flush()
            os._exit(128 + signum)
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        if engine is not None:
            for attach in prepare:
                engine.when_open(attach)
        held = HeldArguments()
        mount = None
        if pitfalls:
            from reckoner.pitfalls.mcp import PitfallsMount
            from reckoner.pitfalls.tiers import DEFAULT_PROJECT_DIR, Pitfalls

            project_dir = (
                DEFAULT_PROJECT_DIR if pitfalls_project_dir is None else pitfalls_project_dir
            )
            mount = PitfallsMount(
                Pitfalls.open(home_dir, project=Path.cwd(), project_dir=project_dir)
            )
        server = build_server(
            lanes if lanes is not None else OneEngine(cast(HomeEngine, engine)),
            preset=preset,
            held=held,
            pitfalls=mount,
            preset_tools=preset_tools,
        )
        if sock is not None:
            anyio.run(serve_http, server, sock, held, http_token)
        else:
            anyio.run(serve_stdio, server, held)
    finally:
        stop_preset_tools()
        close_engines()
        signal.signal(signal.SIGTERM, previous)
