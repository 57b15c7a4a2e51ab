"""The listening sockets of the MCP HTTP server and the panel: the one place a port of this
machine is opened, its address judged and shown, and its server given a stop.

An address is taken with or without the brackets of its URL spelling (``[::1]`` and ``::1``
are one address); it is bound bare and shown bracketed. Each door keeps its own words for
a failure (the server refuses a non-loopback address, the panel warns): this module says
what happened, the door says what to do about it.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any, Literal

SHUTDOWN_GRACE_SECONDS = 3
"""How long a stopping server waits for the requests under way before it leaves them: a
request stuck on a file (a FIFO, a hung mount) or a client that never finishes its body must
not keep SIGTERM from stopping it."""

LOOPBACK_NAMES: tuple[str, ...] = ("127.0.0.1", "localhost", "[::1]")
"""How a client on this machine may name a loopback server in a Host header or a URL."""

WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", "[::]", ""})
"""Bind addresses that mean every interface."""

_BACKLOG = 128


class BindError(Exception):
    """The address cannot be listened on; ``reason`` is the system's word for why."""

    def __init__(self, host: str, port: int, reason: str) -> None:
        super().__init__(f"cannot listen on {host}:{port} ({reason})")
        self.host, self.port, self.reason = host, port, reason


def bare_host(host: str) -> str:
    """An address without the brackets of its URL spelling."""
    return host.strip("[]")


def url_host(host: str) -> str:
    """An address as a URL or a Host header spells it: an IPv6 literal in brackets."""
    bare = bare_host(host)
    return f"[{bare}]" if ":" in bare else bare


def is_loopback(host: str) -> bool:
    """Whether a bind address accepts connections from this machine only."""
    bare = bare_host(host)
    if bare == "localhost":
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0 picks a free one), bound up front so a
    taken port is one clear sentence before any server starts; BindError otherwise."""
    bare = bare_host(host)
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bare, port))
    except OSError as failure:
        sock.close()
        raise BindError(host, port, str(failure.strerror)) from None
    sock.listen(_BACKLOG)
    sock.setblocking(False)
    return sock


def bound_port(sock: socket.socket) -> int:
    """The port a socket from ``bind`` listens on (the free one, when 0 was asked)."""
    return int(sock.getsockname()[1])


def uvicorn_config(
    app: Any, *, lifespan: Literal["on", "off"], logging_configured: bool, grace: bool
) -> Any:
    """uvicorn's settings for either door: no access log (a request line names a record or
    carries a token), and its own lifespan choice.

    ``logging_configured``: the process routes ``logging`` itself (the MCP server, to stderr),
    so uvicorn installs no handlers; otherwise uvicorn logs warnings its own way. ``grace``:
    uvicorn cancels the requests still open SHUTDOWN_GRACE_SECONDS after a stop (the panel
    keeps its own timer instead, because a request blocked in a thread cannot be cancelled).
    """
    import uvicorn

    logs: dict[str, Any] = {"log_config": None} if logging_configured else {"log_level": "warning"}
    return uvicorn.Config(
        app,
        access_log=False,
        lifespan=lifespan,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS if grace else None,
        **logs,
    )
