r"""Tool arguments the SDK's JSON parser would refuse, carried past it unchanged (issue 9).

A lone UTF-16 surrogate is legal JSON (``"\ud800"``), and the engine stores it exactly, but
the MCP SDK parses every message with pydantic, which refuses it: over stdio the request
was dropped unanswered, over HTTP it was a parse error. Before the SDK sees a message, a
``tools/call`` whose arguments hold such text has its arguments read by the standard
library, held here, and replaced by a one-key object naming them; the tool handler swaps
them back. The key carries a random token made per process, so no client can forge it.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
import threading
from typing import Any

import orjson
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

# Only a message holding a surrogate escape can be one the SDK refuses for it.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


class HeldArguments:
    """Holds the arguments of rewritten ``tools/call`` messages until their handler runs."""

    def __init__(self) -> None:
        self.key = f"reckoner-held-{secrets.token_hex(16)}"
        self._held: dict[int, Any] = {}
        self._tickets = itertools.count(1)
        self._lock = threading.Lock()

    def rewrite_text(self, text: str) -> str:
        """``text`` as it is, or with its tool arguments held when the SDK would refuse them."""
        if _SURROGATE_ESCAPE.search(text) is None:
            return text
        try:
            message = json.loads(text)
        except ValueError:
            return text
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            return text
        params = message.get("params")
        if not isinstance(params, dict) or "arguments" not in params:
            return text
        arguments = params["arguments"]
        try:
            orjson.dumps(arguments)
        except TypeError:
            pass  # text UTF-8 cannot carry: exactly what the SDK's parser refuses
        else:
            return text
        with self._lock:
            ticket = next(self._tickets)
            self._held[ticket] = arguments
        params["arguments"] = {self.key: ticket}
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"))

    def rewrite_bytes(self, body: bytes) -> bytes:
        """The same for an HTTP body."""
        if _SURROGATE_ESCAPE_BYTES.search(body) is None:
            return body
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return body
        rewritten = self.rewrite_text(text)
        return body if rewritten is text else rewritten.encode("utf-8")

    def restore(self, arguments: Any) -> Any:
        """The arguments a rewritten message carried; any other arguments unchanged."""
        if type(arguments) is dict and len(arguments) == 1 and self.key in arguments:
            with self._lock:
                return self._held.pop(arguments[self.key], arguments)
        return arguments


def rewriting_http_app(app: Any, held: HeldArguments) -> Any:
    """An ASGI app that reads each POST body whole and rewrites it before ``app`` parses it.

    A body over the transport's own limit is passed on as it streams in, untouched, so the
    transport still refuses it before anything reads it whole.
    """

    async def rewriting(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > DEFAULT_MAX_REQUEST_BODY_SIZE:
            await app(scope, receive, send)
            return
        messages: list[dict[str, Any]] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message.get("type") != "http.request":
                await app(scope, _replaying(messages, receive), send)
                return
            size += len(message.get("body", b""))
            if size > DEFAULT_MAX_REQUEST_BODY_SIZE:
                await app(scope, _replaying(messages, receive), send)
                return
            if not message.get("more_body", False):
                break
        chunks = [message.get("body", b"") for message in messages]
        body = held.rewrite_bytes(b"".join(chunks))
        replayed = {"type": "http.request", "body": body, "more_body": False}
        await app(scope, _replaying([replayed], receive), send)

    return rewriting


def _replaying(first: list[dict[str, Any]], receive: Any) -> Any:
    pending = list(first)

    async def replay() -> Any:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
