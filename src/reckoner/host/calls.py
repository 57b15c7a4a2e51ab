"""The tool call in flight: whether its client has cancelled it, and where its progress goes.

The server opens a ``CallControl`` for each tool call it hands to a worker thread; the work
below it (a compute run, a lookup's provider turns and page fetches, a child process) asks
``current_call()`` and never needs to know about MCP. Outside a server call (the CLI, a test,
replay) ``current_call()`` is a control that is never cancelled and reports nowhere, so the
same code runs unchanged.

Progress is best effort by design: a report that cannot be delivered (no progress token, a
client gone, a slow stream) is dropped and never fails or delays the call beyond the sink's
own deadline.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

ProgressSink = Callable[[float, float | None, str], None]
"""``(progress, total, message)``: delivers one progress report; must not raise for long."""


@dataclass
class CallControl:
    """One call's cancellation flag and progress sink, shared by every thread of the call."""

    cancelled: threading.Event = field(default_factory=threading.Event)
    sink: ProgressSink | None = None
    why: str | None = None
    """Who cancelled the call, as a clause (``cancel_because``); None until it is cancelled
    through that door (``cancel`` alone leaves it unsaid)."""
    _steps: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def cancel(self) -> None:
        """The client cancelled the call (or the server is stopping): the work should end."""
        self.cancelled.set()

    def cancel_because(self, why: str) -> None:
        """Cancel, saying who did (\"by its client\", \"as the server stopped\"); the first
        reason stays, since that is what stopped the work."""
        with self._lock:
            if self.why is None:
                self.why = why
        self.cancel()

    def is_cancelled(self) -> bool:
        return self.cancelled.is_set()

    def report(
        self, message: str, *, progress: float | None = None, total: float | None = None
    ) -> None:
        """Send one progress report; ``progress`` defaults to a count of reports so far, so it
        always increases as the MCP specification requires."""
        if self.sink is None:
            return
        with self._lock:
            self._steps += 1
            value = float(self._steps) if progress is None else progress
        # A sink that fails must not fail the call: progress is a courtesy to the client.
        with contextlib.suppress(Exception):
            self.sink(value, total, message)


_NOWHERE = CallControl()
"""The control outside any server call: never cancelled (nothing ever cancels it)."""

_current: ContextVar[CallControl] = ContextVar("reckoner_call_control", default=_NOWHERE)


def current_call() -> CallControl:
    """The control of the call this thread works for (a no-op control outside a call)."""
    return _current.get()


@contextlib.contextmanager
def calling(control: CallControl) -> Iterator[CallControl]:
    """Make ``control`` the current call's for the code inside (this thread's context)."""
    token = _current.set(control)
    try:
        yield control
    finally:
        _current.reset(token)


HEARTBEAT_SECONDS = 3.0
"""How often long work under way says it is still running: often enough that a client
showing progress (or resetting its timeout on progress) never sees a silent stretch of more
than a few seconds, rarely enough to be a handful of messages a minute."""

_running: dict[int, CallControl] = {}
_running_lock = threading.Lock()


@contextlib.contextmanager
def tracked(control: CallControl) -> Iterator[CallControl]:
    """Count ``control`` among the calls running until the block ends, so that a stopping
    server can cancel it (``cancel_running``)."""
    with _running_lock:
        _running[id(control)] = control
    try:
        yield control
    finally:
        with _running_lock:
            _running.pop(id(control), None)


def cancel_running(why: str) -> int:
    """Cancel every tracked call still running (the server is stopping); how many."""
    with _running_lock:
        controls = list(_running.values())
    for control in controls:
        control.cancel_because(why)
    return len(controls)


@contextlib.contextmanager
def heartbeat(what: str, every: float = HEARTBEAT_SECONDS) -> Iterator[None]:
    """While the block runs, report "<what> still running after N s" every ``every`` seconds
    to the current call (nothing at all when it reports nowhere).

    A thread of its own, because the work it speaks for is blocked waiting (on a child, on
    the network); it stops before the block's caller reports the end, so the messages keep
    their order."""
    control = current_call()
    if control.sink is None:
        yield
        return
    stop = threading.Event()
    began = time.monotonic()

    def beat() -> None:
        while not stop.wait(every):
            control.report(f"{what} still running after {time.monotonic() - began:.0f} s")

    thread = threading.Thread(target=beat, name="reckoner-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        # A report being sent ends within the sink's own deadline; no later one starts.
        thread.join(timeout=every + 5.0)
