"""Running the MCP server on a transport: stdio (the default) or streamable HTTP on loopback.

Nothing here writes to stdout: over stdio it carries protocol messages only, and the SDK
diverts the process's own fd 1 to stderr while it serves.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.stdio import stdio_server

from reckoner.server.app import SerialEngine, build_server
from reckoner.server.defaults import DEFAULT_HTTP_PORT, MCP_PATH
from reckoner.service import Engine

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
    "off": logging.CRITICAL + 1,
}


class ServeError(Exception):
    """A server that cannot start, with the one sentence that says why."""


def _configure_stderr_logging() -> None:
    # The SDK and uvicorn log through `logging`; send all of it to stderr, never stdout.
    level_name = os.environ.get("RECKONER_LOG_LEVEL", "").strip().lower()
    level = _LEVELS.get(level_name, logging.WARNING)
    root = logging.getLogger()
    if not any(getattr(h, "stream", None) is sys.stderr for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
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


async def serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(server: Server[Any], sock: socket.socket) -> None:
    import uvicorn

    host, port = sock.getsockname()[:2]
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=str(host))
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on")
    shown_host = f"[{host}]" if ":" in str(host) else host
    print(
        f"reckoner: MCP over streamable HTTP at http://{shown_host}:{port}{MCP_PATH}",
        file=sys.stderr,
        flush=True,
    )
    await uvicorn.Server(config).serve(sockets=[sock])


def _preset_tools(
    engine: Engine, preset: str, project: Path | str | None, options: dict[str, Any] | None
) -> dict[str, Any]:
    """The callers of the preset's own tools, built only for a preset that serves them."""
    from reckoner.core.contract import COMPUTE_TOOL, tools_of

    if COMPUTE_TOOL not in tools_of(preset):
        return {}
    from reckoner.compute.mount import mount

    def row(ok: bool, content: dict[str, Any]) -> None:
        engine.append_preset_row(COMPUTE_TOOL.name, ok, content)

    def log(message: str) -> None:
        engine.log.warn(message)

    service = mount(
        engine.home, project=project, preset=preset, options=options, row_sink=row, log=log
    )
    if service.settings.mode == "off":
        return {}  # off is a true no-op: the tool is not even listed
    return {COMPUTE_TOOL.name: service}


def serve(
    home: Path | str | None,
    *,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = DEFAULT_HTTP_PORT,
    preset: str = "reckoner",
    project: Path | str | None = None,
    compute_options: dict[str, Any] | None = None,
) -> None:
    """Open the home's engine and serve it until the client (stdio) or a signal (HTTP) ends it.

    ``project`` is the compute tool's project root (default: the working directory);
    ``compute_options`` override ``state.json``'s compute settings for this run.

    Raises ``ServeError`` or the engine's ``OSError`` (home locked or unusable) before serving.
    """
    _configure_stderr_logging()
    sock = bind_loopback(host, port) if http else None
    try:
        engine = Engine(home=home)
    except BaseException:
        if sock is not None:
            sock.close()
        raise

    try:
        preset_tools = _preset_tools(engine, preset, project, compute_options)
    except BaseException:
        engine.close()
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
        stop_preset_tools()
        if sock is None:
            # Over stdio, leave from the handler itself: an exception raised here would land
            # in whichever task runs and be reported at loop shutdown, and the transport's
            # reader thread stays blocked on stdin until the client hangs up. close() waits
            # for a call under way to finish first.
            engine.close()
            sys.stderr.flush()
            os._exit(128 + signum)
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        server = build_server(
            SerialEngine(engine),
            preset=preset,
            preset_tools=preset_tools,
        )
        if sock is not None:
            anyio.run(serve_http, server, sock)
        else:
            anyio.run(serve_stdio, server)
    finally:
        stop_preset_tools()
        engine.close()
        signal.signal(signal.SIGTERM, previous)
