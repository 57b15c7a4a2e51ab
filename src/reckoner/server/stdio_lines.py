"""Reading MCP messages off stdin so that every line gets an answer (issue 21, case 14).

The SDK's stdio transport parses each line with pydantic's JSON parser, whose recursion
limit (about 200 levels) is below what the engine accepts, and hands every line it cannot
read to the session as an exception the session only logs: the client waits forever. Here
each line is read with a byte cap, parsed by the standard library, checked for depth, and
validated as a JSON-RPC message; what fails gets its JSON-RPC error on stdout at once
(-32700 for a line that is not JSON, -32600 for JSON that is not a request), and what
passes reaches the session as the message itself. The SDK keeps stdout (its claim of fd 1
and its writer), so errors and replies are written by one writer and never interleave
(docs/decisions/stdio-lines.md).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from reckoner.contract.limits import MAX_VALUE_DEPTH
from reckoner.server.held_arguments import HeldArguments
from reckoner.server.json_depth import nests_deeper_than

MAX_LINE_BYTES = 32 * 1024 * 1024
"""Longest stdin line read as a message; a longer one is skipped to its newline and answered
with an error. Above the engine's own input limits (a 20 MB formula is the engine's to
refuse), and bounded, so a line that never ends cannot fill memory."""

MAX_MESSAGE_DEPTH = 2 * MAX_VALUE_DEPTH + 100
"""Deepest JSON nesting a stdin message may have. A tagged value nested MAX_VALUE_DEPTH
levels takes up to two JSON levels a level (``{"object": {"k": ...}}``); the rest is room
for the JSON-RPC envelope."""

READ_CHUNK_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class UnreadableLine:
    """A line that is no message: the JSON-RPC error it is answered with."""

    id: int | str | None
    code: int
    message: str

    def reply(self) -> SessionMessage:
        error = types.ErrorData(code=self.code, message=self.message)
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=self.id, error=error))


@dataclass(frozen=True, slots=True)
class TooLong:
    """A line over MAX_LINE_BYTES, skipped to its end unread."""

    size: int


async def bounded_lines(fd: int) -> AsyncIterator[bytes | TooLong]:
    """The lines of ``fd`` without their newline; a line over MAX_LINE_BYTES is one TooLong."""
    pending = bytearray()
    skipping: int | None = None  # bytes of an over-long line dropped so far
    while True:
        chunk = await anyio.to_thread.run_sync(
            os.read, fd, READ_CHUNK_BYTES, abandon_on_cancel=True
        )
        if not chunk:
            break
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if skipping is not None:
                skipping += len(piece)
            elif len(pending) + len(piece) > MAX_LINE_BYTES:
                skipping = len(pending) + len(piece)
                pending.clear()
            else:
                pending += piece
            if end < 0:
                break
            if skipping is not None:
                yield TooLong(skipping)
                skipping = None
            else:
                yield bytes(pending)
                pending.clear()
            start = end + 1
    if skipping is not None:
        yield TooLong(skipping)
    elif pending:
        yield bytes(pending)


def read_message(
    line: bytes | TooLong, held: HeldArguments | None
) -> SessionMessage | UnreadableLine:
    """One stdin line as the message it carries, or the error it is answered with."""
    if isinstance(line, TooLong):
        return UnreadableLine(
            None,
            types.INVALID_REQUEST,
            f"the line is {line.size:,} bytes, over the {MAX_LINE_BYTES:,}-byte limit of one "
            "message over stdio, so it was not read; send a smaller message",
        )
    text = line.decode("utf-8", errors="replace")
    if held is not None:
        # A tool call holding lone surrogates keeps its arguments out of the validator's
        # reach (issue 9).
        text = held.rewrite_text(text)
    try:
        raw = json.loads(text)
    except RecursionError:
        return _too_deep(None)
    except ValueError as error:
        return UnreadableLine(
            None,
            types.PARSE_ERROR,
            f"the line is not JSON ({error}); send one JSON-RPC message per line",
        )
    request_id = _id_of(raw)
    if nests_deeper_than(raw, MAX_MESSAGE_DEPTH):
        return _too_deep(request_id)
    try:
        message = types.jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except ValidationError as error:
        return UnreadableLine(
            request_id,
            types.INVALID_REQUEST,
            f"the line is JSON but not a JSON-RPC 2.0 request, notification or response "
            f'({_first_fault(error)}); send an object with jsonrpc "2.0" and a method',
        )
    return SessionMessage(message)


def _first_fault(error: ValidationError) -> str:
    if not error.error_count():
        return "it is not an object"
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())[1:])
    if not where:
        return "it is not an object"
    return f"{where} is missing" if first.get("type") == "missing" else f"{where} is wrong"


def _too_deep(request_id: int | str | None) -> UnreadableLine:
    return UnreadableLine(
        request_id,
        types.INVALID_REQUEST,
        f"the message nests deeper than {MAX_MESSAGE_DEPTH} levels (the transport's limit; "
        f"the engine takes values nested up to {MAX_VALUE_DEPTH}); flatten the value",
    )


def _id_of(raw: Any) -> int | str | None:
    if isinstance(raw, dict):
        found = raw.get("id")
        if type(found) is int or type(found) is str:
            return found
    return None
