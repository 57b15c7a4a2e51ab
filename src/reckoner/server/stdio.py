"""Serving MCP over stdio: the protocol's stdin read line by line by ``stdio_lines`` (every
line answered), the SDK's transport keeping stdout as the one writer.

Nothing here writes to stdout: it carries protocol messages only, and the SDK diverts the
process's own fd 1 to stderr while it serves.
"""

from __future__ import annotations

import os
from typing import Any, cast

import anyio
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from reckoner.server.held_arguments import HeldArguments
from reckoner.server.in_flight import allow_worker_threads
from reckoner.server.stdio_lines import UnreadableLine, bounded_lines, read_message


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
            if isinstance(read, UnreadableLine):
                await outbox.send(read.reply())
            else:
                await inbox.send(read)


async def serve_stdio(server: Server[Any], held: HeldArguments | None = None) -> None:
    """Serve ``server`` on this process's stdin and stdout until the client hangs up."""
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
