"""One tool call in its worker thread, as the MCP client sees it: cancellable and reporting.

Every tool call runs in a worker thread of its own under a ``CallControl``
(``reckoner.host.calls``), so the work below it (a compute run, a lookup) learns of the
client's ``notifications/cancelled`` and sends ``notifications/progress`` without knowing MCP.

The SDK applies a cancellation by cancelling the handler's anyio scope. The worker thread is
never abandoned: the handler waits for it (the call's row is written, or the run's tree is
killed, before the lane can close), and a watcher task in the same scope turns that
cancellation into the control's flag, which the work polls. A call whose row was already
written when the cancellation arrived stays written. The decisions:
docs/decisions/cancellation.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from anyio.abc import TaskStatus
from mcp.server import ServerRequestContext
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params

from reckoner.host.calls import CallControl, ProgressSink, calling, tracked
from reckoner.storage.home import MAX_LANES

T = TypeVar("T")

PROGRESS_SEND_SECONDS = 1.0
"""The longest a progress report may hold up the work it reports on (a slow or gone
client): past it the report is dropped, since progress is a courtesy and the call is not."""

WORKER_THREADS = 4 * MAX_LANES
"""How many tool calls may run at once in one server: a few parallel calls for each of the
most sessions a server holds lanes for. anyio's default (40 threads) would make the 41st
call wait, a `get` of an idle session behind 40 long runs of others."""

CANCELLED_BY_CLIENT = "by its client"
CANCELLED_AT_SHUTDOWN = "as the server stopped"
"""Who cancelled a call, as the clause a receipt says it with."""


def allow_worker_threads() -> None:
    """Let this event loop run ``WORKER_THREADS`` calls at once (call it from the loop)."""
    anyio.to_thread.current_default_thread_limiter().total_tokens = WORKER_THREADS


async def in_worker(ctx: ServerRequestContext[Any], work: Callable[[], T]) -> T:
    """``work()`` in a worker thread under a fresh ``CallControl`` of this request: cancelled
    when the client cancels the request (or the server stops), reporting progress to the
    client when the request carries a ``progressToken``. Returns what ``work`` returns; a
    cancelled request still waits for ``work`` to end, then raises the cancellation."""
    control = CallControl(sink=progress_sink(ctx))
    finished = False

    def run() -> T:
        with tracked(control), calling(control):
            return work()

    async def watch(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        try:
            task_status.started()
            await anyio.sleep_forever()
        finally:
            # Cancelled with the work still running: the request's scope was cancelled.
            if not finished:
                control.cancel_because(CANCELLED_BY_CLIENT)

    async with anyio.create_task_group() as watching:
        await watching.start(watch)
        try:
            # Not abandoned on cancellation: the thread's row and its child are waited for.
            result = await anyio.to_thread.run_sync(run)
        finally:
            finished = True
            watching.cancel_scope.cancel()
    return result


def progress_sink(ctx: ServerRequestContext[Any]) -> ProgressSink | None:
    """A sink sending ``notifications/progress`` on this request's stream, from any thread;
    None when the request asked for no progress (no ``_meta.progressToken``)."""
    token = progress_token_from_params(ctx.params)
    if token is None:
        return None
    loop = anyio.lowlevel.current_token()
    related = None if ctx.request_id is None else str(ctx.request_id)

    async def send(progress: float, total: float | None, message: str) -> None:
        with anyio.move_on_after(PROGRESS_SEND_SECONDS):
            await ctx.session.send_progress_notification(
                token, progress, total, message, related_request_id=related
            )

    def sink(progress: float, total: float | None, message: str) -> None:
        anyio.from_thread.run(send, progress, total, message, token=loop)

    return sink
