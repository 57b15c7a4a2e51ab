"""The one owner of pausing Python's cycle collector (reckoner.host.collector): nested and
concurrent holders share one pause, and the last one out restores the collector as it was.
Spec: docs/decisions/engine-readings.md, docs/decisions/articles-speed.md."""

from __future__ import annotations

import gc
import threading

import pytest

from reckoner.host.collector import collector_paused


def test_nested_holders_share_one_pause_and_the_last_one_out_restores_it() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer holder still holds it
    assert gc.isenabled()


def test_a_holder_on_another_thread_keeps_the_pause_until_it_leaves() -> None:
    entered, leave = threading.Event(), threading.Event()

    def hold() -> None:
        with collector_paused():
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    assert entered.wait(10)
    with collector_paused():
        pass
    assert not gc.isenabled()  # this thread's pause ended, the other's has not
    leave.set()
    thread.join(10)
    assert gc.isenabled()


def test_a_collector_its_owner_turned_off_stays_off_after_a_pause() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_failure_inside_the_pause_still_restores_the_collector() -> None:
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("the step failed")
    assert gc.isenabled()
