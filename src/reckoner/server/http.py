"""Serving MCP over streamable HTTP on loopback: the address rule, the Host and Origin the
server answers to, the bearer token, and a stop that cancels the calls still running.

The socket, the loopback test and uvicorn's settings are the panel's too
(``reckoner.host.network``); the refusal of a non-loopback address is the server's own,
because it has no authentication of its own beyond an optional token.
"""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import AsyncIterator
from typing import Any

from mcp.server import Server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from reckoner.access import HTTP_TOKEN_VARIABLE, BearerGate
from reckoner.host.calls import cancel_running
from reckoner.host.network import (
    LOOPBACK_NAMES,
    BindError,
    bind,
    bound_port,
    is_loopback,
    url_host,
    uvicorn_config,
)
from reckoner.server.defaults import MCP_PATH
from reckoner.server.held_arguments import HeldArguments, rewriting_http_app
from reckoner.server.in_flight import CANCELLED_AT_SHUTDOWN, allow_worker_threads
from reckoner.server.sessions import SESSION_IDLE_SECONDS


class ServeError(Exception):
    """A server that cannot start, with the one sentence that says why."""


def check_loopback(host: str) -> None:
    """Refuse a non-loopback address: the server has no authentication of its own."""
    if not is_loopback(host):
        raise ServeError(
            f"--host {host!r} is not a loopback address; reckoner serves MCP over HTTP on "
            "loopback only (127.0.0.1, ::1 or localhost), because it has no authentication"
        )


def listen_loopback(host: str, port: int) -> socket.socket:
    """The listening socket, bound up front so a taken port is one clear sentence."""
    check_loopback(host)
    try:
        return bind(host, port)
    except BindError as taken:
        raise ServeError(f"{taken}; pick another port with --port") from None


def host_guard(host: str, port: int) -> TransportSecuritySettings:
    """The Host and Origin values the HTTP server answers to: its own address and port only.

    Built for every bound address, because the SDK switches its DNS-rebinding guard on by
    itself only for 127.0.0.1, ::1 and localhost, not for the rest of 127.0.0.0/8.
    """
    shown = {url_host(host), *LOOPBACK_NAMES}
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(f"{name}:{port}" for name in shown),
        allowed_origins=sorted(f"http://{name}:{port}" for name in shown),
    )


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
    host = str(sock.getsockname()[0])
    port = bound_port(sock)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=host_guard(host, port),
        session_idle_timeout=SESSION_IDLE_SECONDS,
    )
    _cancel_calls_at_shutdown(app)
    if held is not None:
        app = rewriting_http_app(app, held)
    served: Any = app if token is None else BearerGate(app, token, _UNAUTHORIZED)
    # A client that never finishes its request must not keep SIGTERM from stopping the
    # server: after the grace a tool call under way is cancelled (the lifespan's end, below),
    # and still writes its row: in_worker never abandons one.
    config = uvicorn_config(served, lifespan="on", logging_configured=True, grace=True)
    guarded = " (requests need its bearer token)" if token is not None else ""
    print(
        f"reckoner: MCP over streamable HTTP at http://{url_host(host)}:{port}{MCP_PATH}{guarded}",
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
