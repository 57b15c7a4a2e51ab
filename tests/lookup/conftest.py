"""Fixtures for the lookup tests: fake providers and a page server on loopback, and an
engine serving `search` through the official SDKs pointed at them.

The fakes live for the session (one per pytest-xdist worker), so a test must leave nothing
talking to them: the `fakes` fixture ends each test by answering every request the fakes
still hold and joining, within a deadline, every thread the test started. Without it a
lookup abandoned by its cancelled call kept its worker thread waiting on a held search turn,
and that worker's retry, 45 s later, landed in a later test's request log.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes import FakeAnthropic, FakeOpenAI, PageServer
from lookup_helpers import Lookups

SETTLE_S = 30.0
"""How long a test's threads and the fakes' requests get to end once their holds are
released: generous, only so that a thread that never ends fails the test instead of
leaking into the next one."""


@pytest.fixture(scope="session")
def anthropic_fake() -> Iterator[FakeAnthropic]:
    fake = FakeAnthropic()
    yield fake
    fake.close()


@pytest.fixture(scope="session")
def openai_fake() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    yield fake
    fake.close()


@pytest.fixture(scope="session")
def page_server() -> Iterator[PageServer]:
    server = PageServer()
    yield server
    server.close()


def _still_running(started: list[threading.Thread], within: float) -> list[str]:
    """The names of ``started`` still alive after joining them all within ``within`` s."""
    deadline = time.monotonic() + within
    for thread in started:
        thread.join(max(deadline - time.monotonic(), 0.0))
    return [thread.name for thread in started if thread.is_alive()]


@pytest.fixture
def fakes(anthropic_fake: FakeAnthropic, openai_fake: FakeOpenAI) -> Iterator[None]:
    """Fresh scripts and request logs for each test; after it, nothing of it still running."""
    for fake in (anthropic_fake, openai_fake):
        fake.clear()
    before = set(threading.enumerate())
    yield
    for fake in (anthropic_fake, openai_fake):
        fake.release()
    started = [thread for thread in threading.enumerate() if thread not in before]
    left = _still_running(started, SETTLE_S)
    assert not left, f"threads of the test still running {SETTLE_S:g} s after it: {left}"
    for fake in (anthropic_fake, openai_fake):
        assert fake.settle(SETTLE_S), f"{type(fake).__name__} still answers a test's request"


@pytest.fixture
def lookups(
    tmp_path: Path, fakes: None, anthropic_fake: FakeAnthropic, openai_fake: FakeOpenAI
) -> Iterator[Lookups]:
    opened = Lookups(tmp_path / "home", anthropic_fake, openai_fake)
    yield opened
    opened.close()
