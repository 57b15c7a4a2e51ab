"""A lookup's one overall deadline and its client's cancellation, at every wait (issue 22).

Every provider request and page fetch runs in a worker thread while the lookup's own thread
waits in short slices on it, on the call's cancel flag and on the deadline, so neither a
cancelled call nor a hung provider holds the lookup past the moment it should stop. The
worker is handed the seconds left, which bound its own request (the provider's timeout and
retries, the page's wall-clock limit), so an abandoned worker ends by the deadline too and
its answer is dropped.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from reckoner.host.calls import current_call

from .providers import ProviderFailure, Stopped

T = TypeVar("T")

SLICE_S = 0.05
"""How often a waiting lookup looks at its cancel flag: prompt, and no busy loop."""
NEAR_DEADLINE_S = 0.5
"""A provider's failure this close to the deadline is the deadline's doing (its request was
bounded by the time left), so the lookup says the deadline and not the request's timeout."""


class Deadline:
    """One lookup's time: ``seconds`` from its start, and the current call's cancel flag."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.control = current_call()
        self.end = clock() + seconds

    def report(self, message: str) -> None:
        """One progress report to the call's client (nowhere outside a server call)."""
        self.control.report(message)

    def left(self) -> float:
        return self.end - self.clock()

    def check(self, during: str) -> None:
        """Stopped when the client cancelled the call or the time is up."""
        if self.control.is_cancelled():
            raise Stopped(f"the lookup was cancelled by its client during {during}", cancelled=True)
        if self.left() <= 0:
            raise self._expired(during)

    def _expired(self, during: str) -> Stopped:
        return Stopped(
            f"the lookup reached its {self.seconds:g} s deadline (deadlineSeconds) during {during}",
            cancelled=False,
        )

    def run(self, during: str, work: Callable[[float], T]) -> T:
        """``work(seconds_left)``'s answer or exception, unless the call is cancelled or the
        deadline passes first (Stopped; the worker's answer, if any comes, is dropped)."""
        self.check(during)
        outcome: list[T] = []
        failure: list[BaseException] = []
        done = threading.Event()
        left = self.left()

        def target() -> None:
            try:
                outcome.append(work(left))
            except BaseException as error:  # handed to the waiting thread, which re-raises it
                failure.append(error)
            finally:
                done.set()

        context = contextvars.copy_context()  # the worker reports to the same call
        threading.Thread(
            target=context.run, args=(target,), name="reckoner-lookup-wait", daemon=True
        ).start()
        while not done.wait(min(SLICE_S, max(self.left(), 0.0))):
            self.check(during)
        if failure:
            self.check(during)
            if isinstance(failure[0], ProviderFailure) and self.left() <= NEAR_DEADLINE_S:
                raise self._expired(during) from None
            raise failure[0]
        return outcome[0]
