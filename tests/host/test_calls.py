"""The call in flight (issue 22): who cancelled it, a stopping server cancelling every call
still running, and the heartbeat long work sends while it waits."""

from __future__ import annotations

import threading

from reckoner.host.calls import (
    CallControl,
    calling,
    cancel_running,
    heartbeat,
    tracked,
)

DEADLINE = 30.0
"""Only so that a broken heartbeat fails the test instead of hanging it."""


def test_the_first_reason_given_for_a_cancellation_is_the_one_kept() -> None:
    control = CallControl()
    control.cancel_because("by its client")
    control.cancel_because("as the server stopped")
    assert control.is_cancelled() and control.why == "by its client"


def test_a_stopping_server_cancels_every_tracked_call_and_no_finished_one() -> None:
    running, finished = CallControl(), CallControl()
    with tracked(finished):
        pass
    with tracked(running):
        cancel_running("as the server stopped")
    assert running.is_cancelled() and running.why == "as the server stopped"
    assert not finished.is_cancelled() and finished.why is None


def test_the_heartbeat_reports_while_the_work_waits_and_stops_with_it() -> None:
    reports: list[tuple[float, str]] = []
    two = threading.Event()

    def sink(progress: float, total: float | None, message: str) -> None:
        reports.append((progress, message))
        if len(reports) >= 2:
            two.set()

    with calling(CallControl(sink=sink)), heartbeat("python run r-1", every=0.01):
        assert two.wait(DEADLINE)
    # The block's end joined the heartbeat: nothing more can arrive after the work's own end.
    assert not [t for t in threading.enumerate() if t.name == "reckoner-heartbeat"]
    assert all(m.startswith("python run r-1 still running after ") for _, m in reports)
    assert [p for p, _ in reports] == sorted({p for p, _ in reports})


def test_outside_a_call_the_heartbeat_starts_no_thread() -> None:
    before = threading.active_count()
    with heartbeat("python run r-2", every=0.01):
        during = threading.active_count()
    assert during == before
