"""Issue 22: a provider request sent within a caller's time (a lookup's deadline) retries
only while time is left, through the official SDKs against the fakes on loopback."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from provider_fakes import FakeAnthropic, FakeOpenAI
from reckoner.host.calls import CallControl, calling
from reckoner.providers import attempts
from reckoner.providers.chat import Client, open_client
from reckoner.providers.config import endpoint
from reckoner.providers.failures import ProviderFailure

Fake = FakeAnthropic | FakeOpenAI


@pytest.fixture(params=["anthropic", "openai"])
def fake(request: pytest.FixtureRequest) -> Iterator[Fake]:
    made: Fake = FakeAnthropic() if request.param == "anthropic" else FakeOpenAI()
    yield made
    made.close()


def _client(fake: Fake) -> Client:
    if isinstance(fake, FakeAnthropic):
        env = {"ANTHROPIC_API_KEY": "sk-ant-attempts", "ANTHROPIC_BASE_URL": fake.root}
        return open_client(endpoint("anthropic", env), "lookup")  # 45 s, one retry
    env = {"OPENAI_API_KEY": "sk-openai-attempts", "OPENAI_BASE_URL": fake.root + "/v1"}
    return open_client(endpoint("openai", env), "lookup")


def test_a_failed_request_is_retried_while_time_is_left(fake: Fake) -> None:
    fake.script.search_status = 503
    client = _client(fake)
    with pytest.raises(ProviderFailure, match=r"server error \(HTTP 503\)"):
        client.web_search("m", "system", "question", within=30.0)
    assert len(fake.searches()) == 2  # the lookup's one retry


def test_no_retry_starts_once_the_time_is_up(fake: Fake) -> None:
    fake.script.search_delay = 5.0
    client = _client(fake)
    began = time.monotonic()
    with pytest.raises(ProviderFailure, match=r"did not answer in time \(within 1 s\)"):
        client.web_search("m", "system", "question", within=1.0)
    assert time.monotonic() - began < 5.0  # the request's own 45 s never applied
    assert len(fake.searches()) == 1


def test_a_request_refused_for_its_key_is_not_retried(fake: Fake) -> None:
    fake.script.search_status = 401
    with pytest.raises(ProviderFailure, match="refused the API key"):
        _client(fake).web_search("m", "system", "question", within=30.0)
    assert len(fake.searches()) == 1


def _cancel_once_asked(fake: Fake, control: CallControl) -> threading.Thread:
    """Cancel the call as soon as the fake has taken its first search request."""

    def watch() -> None:
        deadline = time.monotonic() + 30
        while not fake.searches() and time.monotonic() < deadline:
            time.sleep(0.005)
        control.cancel()

    thread = threading.Thread(target=watch)
    thread.start()
    return thread


def test_a_cancelled_call_sends_no_retry(fake: Fake) -> None:
    """Issue 22: a lookup stops at once when its client cancels, and the worker still
    waiting on the provider must not spend a second request after that: the cancel lands
    while the first attempt is out, that attempt fails retryably, and no retry is sent."""
    fake.script.search_status = 503
    fake.script.search_delay = 1.0  # the first attempt is still out when the cancel lands
    control = CallControl()
    watcher = _cancel_once_asked(fake, control)
    with calling(control), pytest.raises(ProviderFailure, match=r"HTTP 503"):
        _client(fake).web_search("m", "system", "question", within=30.0)
    watcher.join(30)
    assert len(fake.searches()) == 1


def test_a_cancel_during_the_back_off_ends_it_without_a_retry(
    fake: Fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pause before a retry waits on the cancel: with a 30 s back-off, a cancel after
    the first failure ends the call at once (well within the pause) and sends no retry."""
    monkeypatch.setattr(attempts, "RETRY_PAUSE_S", 30.0)
    fake.script.search_status = 503
    control = CallControl()
    watcher = _cancel_once_asked(fake, control)
    began = time.monotonic()
    with calling(control), pytest.raises(ProviderFailure, match=r"HTTP 503"):
        _client(fake).web_search("m", "system", "question", within=60.0)
    watcher.join(30)
    assert time.monotonic() - began < 20  # the 30 s back-off was cut short
    assert len(fake.searches()) == 1


def test_a_call_cancelled_before_its_request_sends_none_and_says_so(fake: Fake) -> None:
    control = CallControl()
    control.cancel()
    with calling(control), pytest.raises(ProviderFailure, match="cancelled before"):
        _client(fake).web_search("m", "system", "question", within=30.0)
    assert fake.searches() == []
