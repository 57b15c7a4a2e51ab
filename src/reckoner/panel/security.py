"""The panel's guard: which Host and Origin a request may carry (DNS rebinding, CSRF), and
how large its body may be.

A local web app is still reachable by any page the user visits: a foreign page can post a
form to it, and a rebinding DNS name can make the browser treat the panel as that page's
own origin. The guard refuses both before any endpoint runs. A body is counted as it
arrives, so an over-large one is refused without ever being held in memory.
"""

from __future__ import annotations

import ipaddress

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reckoner.access import header_of
from reckoner.host.network import (
    LOOPBACK_NAMES,
    WILDCARD_HOSTS,
    bare_host,
    is_loopback,
    url_host,
)
from reckoner.wire import dumps

_STATE_CHANGING = frozenset({"POST", "PUT", "DELETE", "PATCH"})


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(bare_host(host))
    except ValueError:
        return False
    return True


class HostPolicy:
    """The Host header values the panel answers to, derived from the bound address."""

    def __init__(self, bound_host: str, bound_port: int) -> None:
        self.port = bound_port
        self.wildcard = bound_host in WILDCARD_HOSTS
        names: set[str] = {url_host(bound_host).lower()}
        if is_loopback(bound_host) or self.wildcard:
            names.update(LOOPBACK_NAMES)
        self._names = frozenset(names)

    def allows(self, host_header: str) -> bool:
        host, port = _split_host_port(host_header.strip().lower())
        if port != self.port:
            return False
        if host in self._names:
            return True
        # Bound to every interface, the panel is reached by some address of this machine.
        # Rebinding needs a DNS name, so any IP literal is safe to answer; names are not.
        return self.wildcard and _is_ip_literal(host)

    def allows_origin(self, origin: str) -> bool:
        scheme, sep, rest = origin.partition("://")
        if not sep or scheme.lower() != "http" or "/" in rest:
            return False
        return self.allows(rest)


def _split_host_port(value: str) -> tuple[str, int | None]:
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return value, None
        host, rest = value[: end + 1], value[end + 1 :]
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port_text = value.partition(":")
    if not port_text:
        # A Host without a port means the scheme default, which the panel never binds.
        return host, 80
    return (host, int(port_text)) if port_text.isdigit() else (host, None)


async def send_refusal(send: Send, status: int, sentence: str, *, close: bool = False) -> None:
    """Answer ``{"error": sentence}`` in place of the app; ``close`` ends the connection, so
    the rest of a refused body is not read."""
    body = dumps({"error": sentence})
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class GuardMiddleware:
    """Refuses a foreign Host (421), a foreign Origin on a state change (403), and a
    state-changing request that is not JSON (415) before the app sees it; with
    ``max_body_bytes``, a body over it too (413, see BodyLimitMiddleware)."""

    def __init__(
        self,
        app: ASGIApp,
        policy: HostPolicy,
        max_body_bytes: int | None = None,
        body_advice: str = "send less",
    ) -> None:
        if max_body_bytes is not None:
            app = BodyLimitMiddleware(app, max_body_bytes, body_advice)
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        await send_refusal(send, *refusal)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        host = header_of(scope, b"host")
        if host is None or not self.policy.allows(host):
            shown = "no Host header" if host is None else f"the Host header {host!r}"
            return (
                421,
                f"This panel answers only to its own address on port {self.policy.port}, "
                f"not to {shown}; open it through the URL it printed at start.",
            )
        method = str(scope.get("method", "GET")).upper()
        if method not in _STATE_CHANGING:
            return None
        origin = header_of(scope, b"origin")
        if origin is not None and not self.policy.allows_origin(origin):
            return (
                403,
                f"A change from the origin {origin!r} was refused; the panel accepts "
                "changes only from its own page.",
            )
        if header_of(scope, b"sec-fetch-site") == "cross-site":
            return (
                403,
                "A change sent from another site was refused; the panel accepts changes "
                "only from its own page.",
            )
        content_type = (header_of(scope, b"content-type") or "").split(";")[0].strip().lower()
        if method in ("PUT", "POST", "PATCH") and content_type != "application/json":
            shown = content_type or "none"
            return (
                415,
                f"A {method} body must be JSON sent with Content-Type application/json, "
                f"not {shown}; send the settings as a JSON object.",
            )
        return None


class _BodyTooLarge(Exception):
    """Raised out of ``receive`` once a body passes the limit; the middleware answers 413."""


class BodyLimitMiddleware:
    """Refuses a body over ``limit`` bytes with 413 and one JSON sentence: at once when
    Content-Length says so, otherwise as soon as the bytes received pass it.

    Starlette's own limit answers plain text, and replaces any answer to a request whose
    declared length is over it with that text, so the panel counts for itself.
    """

    def __init__(self, app: ASGIApp, limit: int, advice: str) -> None:
        self.app = app
        self.limit = limit
        self.advice = advice

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await send_refusal(send, 413, self._sentence(f"{declared} bytes, over"), close=True)
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _BodyTooLarge
            return message

        async def watching_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, watching_send)
        except _BodyTooLarge:
            if not started:
                await send_refusal(send, 413, self._sentence("over"), close=True)

    def _sentence(self, size: str) -> str:
        return f"The request body is {size} the panel's limit of {self.limit} bytes; {self.advice}."


def _content_length(scope: Scope) -> int | None:
    value = (header_of(scope, b"content-length") or "").strip()
    return int(value) if value.isdigit() else None
