"""A tool call in its worker thread (issue 22): the request's cancellation reaches the work
through its CallControl, the work is waited for rather than abandoned, and a server runs
more calls at once than anyio's default of 40 threads.

In-process, on the handler's side of the SDK: the request context carries only what
``in_worker`` reads (no progress token, so no session is needed). The same paths over real
sessions are in test_long_calls.py.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, cast

import anyio
from mcp.server import ServerRequestContext

from reckoner.host.calls import current_call
from reckoner.server.in_flight import (
    CANCELLED_BY_CLIENT,
    WORKER_THREADS,
    allow_worker_threads,
    in_worker,
    progress_sink,
)

HANG_SECONDS = 30.0
"""Only so that a broken worker fails the test instead of hanging it."""


async def until(condition: Callable[[], bool]) -> None:
    with anyio.fail_after(HANG_SECONDS):
        while not condition():
            await anyio.sleep(0.01)


def request(params: dict[str, Any] | None = None) -> ServerRequestContext[Any]:
    return ServerRequestContext(
        session=cast(Any, None),
        lifespan_context=None,
        protocol_version="2025-06-18",
        method="tools/call",
        params=params or {"name": "compute"},
        request_id=7,
    )


def test_a_cancelled_request_cancels_the_work_and_waits_for_it_to_end() -> None:
    seen: dict[str, Any] = {}
    began = threading.Event()

    def work() -> str:
        control = current_call()
        began.set()
        seen["told"] = control.cancelled.wait(HANG_SECONDS)
        seen["why"] = control.why
        seen["ended"] = True
        return "the row is written"

    async def main() -> None:
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(in_worker, request(), work)
                await until(began.is_set)
                scope.cancel()  # what the SDK does on notifications/cancelled
        seen["after"] = dict(seen)

    anyio.run(main)
    assert seen["told"] is True and seen["why"] == CANCELLED_BY_CLIENT
    assert seen["after"].get("ended") is True, "the handler went on before its work ended"


def test_a_call_that_ends_uncancelled_leaves_its_control_uncancelled() -> None:
    def work() -> bool:
        return current_call().is_cancelled()

    assert anyio.run(in_worker, request(), work) is False


def test_more_calls_run_at_once_than_anyio_allows_by_default() -> None:
    """A quick call is answered while 60 calls wait on something (a child, a provider):
    with anyio's 40 threads the 41st would not even start."""
    long_calls = 60
    assert long_calls < WORKER_THREADS
    release = threading.Event()
    running = threading.Semaphore(0)

    def wait_long() -> None:
        running.release()
        release.wait(HANG_SECONDS)

    started = 0

    def one_more_started() -> bool:
        nonlocal started
        started += running.acquire(blocking=False)
        return started == long_calls

    async def main() -> str:
        allow_worker_threads()
        async with anyio.create_task_group() as tasks:
            for _ in range(long_calls):
                tasks.start_soon(in_worker, request(), wait_long)
            try:
                await until(one_more_started)  # with 40 threads only 40 ever start
                answer = await in_worker(request(), lambda: "answered")
            finally:
                release.set()
        return answer

    assert anyio.run(main) == "answered"


def test_a_request_without_a_progress_token_gets_no_progress_sink() -> None:
    assert progress_sink(request()) is None
    asked = request({"name": "compute", "_meta": {"progressToken": "p-1"}})

    async def main() -> bool:
        return progress_sink(asked) is not None

    assert anyio.run(main)
