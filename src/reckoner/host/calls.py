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
    _steps: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def cancel(self) -> None:
        """The client cancelled the call (or the server is stopping): the work should end."""
        self.cancelled.set()

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
