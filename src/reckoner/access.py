"""Who may call reckoner's local servers: a secret token, and the one check of it.

Binding loopback keeps other machines out, not other users or processes of this machine: any
of them can connect to 127.0.0.1. The panel (``reckoner panel``) therefore always requires a
per-launch token, and ``reckoner serve --http`` requires one when ``RECKONER_HTTP_TOKEN`` is
set. Both ask ``is_authorized`` and refuse with ``send_unauthorized``; what each does beyond
that (the panel's sign-in link and cookie) is its own.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterable
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from reckoner.wire import dumps

PANEL_TOKEN_VARIABLE = "RECKONER_PANEL_TOKEN"
HTTP_TOKEN_VARIABLE = "RECKONER_HTTP_TOKEN"
MIN_TOKEN_CHARS = 16
MAX_TOKEN_CHARS = 512
# Characters that pass through a URL query and a cookie value unchanged: what token_urlsafe
# makes, plus the two other unreserved URL characters.
_TOKEN_SHAPE = re.compile(rf"[A-Za-z0-9_.~-]{{{MIN_TOKEN_CHARS},{MAX_TOKEN_CHARS}}}")
_BEARER = "bearer"


class TokenError(ValueError):
    """A token the user set that cannot be used, with the one sentence that says why."""


def new_token() -> str:
    """A fresh secret for one launch (256 random bits, URL- and cookie-safe)."""
    return secrets.token_urlsafe(32)


def checked_token(value: str, source: str) -> str:
    """``value`` when it is a usable token, else ``TokenError`` naming ``source`` (the flag or
    variable it came from), the rule and the fix."""
    if _TOKEN_SHAPE.fullmatch(value):
        return value
    problem = (
        f"is {len(value)} characters long"
        if not MIN_TOKEN_CHARS <= len(value) <= MAX_TOKEN_CHARS
        else "holds a character other than letters, digits and - _ . ~"
    )
    raise TokenError(
        f"The token from {source} {problem}; a token is {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} "
        "letters, digits and - _ . ~; make one with "
        "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'."
    )


def chosen_token(flag: str | None, variable: str) -> str | None:
    """The token the user set: ``--token`` first, else the environment's ``variable`` (empty
    counts as unset); None when neither is set. ``TokenError`` when the one set is unusable."""
    if flag is not None:
        return checked_token(flag, "--token")
    value = os.environ.get(variable, "")
    return checked_token(value, variable) if value else None


def header_of(scope: Scope, name: bytes) -> str | None:
    """The first value of header ``name`` (lower case), as Latin-1 text."""
    headers: Iterable[tuple[bytes, bytes]] = scope.get("headers", [])
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return None


def bearer_token(scope: Scope) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, if the request has one."""
    scheme, _, credentials = (header_of(scope, b"authorization") or "").strip().partition(" ")
    if scheme.lower() != _BEARER:
        return None
    return credentials.strip() or None


def cookie_value(scope: Scope, name: str) -> str | None:
    """The value of cookie ``name``, from every Cookie header of the request."""
    headers: Iterable[tuple[bytes, bytes]] = scope.get("headers", [])
    for key, value in headers:
        if key != b"cookie":
            continue
        for pair in value.decode("latin-1").split(";"):
            cookie, _, content = pair.strip().partition("=")
            if cookie == name:
                return content.strip('"')
    return None


def token_matches(presented: str | None, expected: str) -> bool:
    """Whether ``presented`` is ``expected``, compared in time that does not tell how much of
    it was right."""
    if presented is None:
        return False
    return secrets.compare_digest(presented.encode("utf-8"), expected.encode("utf-8"))


def is_authorized(scope: Scope, token: str, cookie_name: str | None = None) -> bool:
    """Whether the request carries ``token`` as a bearer header or, when ``cookie_name`` is
    given, in that cookie."""
    if token_matches(bearer_token(scope), token):
        return True
    return cookie_name is not None and token_matches(cookie_value(scope, cookie_name), token)


async def send_unauthorized(send: Send, answer: dict[str, Any]) -> None:
    """Answer 401 with ``answer`` as JSON, before any endpoint has run."""
    body = dumps(answer)
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                (b"www-authenticate", b'Bearer realm="reckoner"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BearerGate:
    """Answers every HTTP request that lacks ``Authorization: Bearer <token>`` with 401 and
    ``answer``; the app behind it sees only requests that carry the token."""

    def __init__(self, app: ASGIApp, token: str, answer: dict[str, Any]) -> None:
        self.app = app
        self.token = token
        self.answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" or is_authorized(scope, self.token):
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await refuse_websocket(send)
        else:
            await send_unauthorized(send, self.answer)


async def refuse_websocket(send: Send) -> None:
    """Close a WebSocket before it is accepted (the server answers the handshake with 403)."""
    await send({"type": "websocket.close", "code": 1008})
