"""Fixtures for the lookup tests: fake providers and a page server on loopback, and an
engine serving `search` through the official SDKs pointed at them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes import FakeAnthropic, FakeOpenAI, PageServer
from lookup_helpers import Lookups


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


@pytest.fixture
def fakes(anthropic_fake: FakeAnthropic, openai_fake: FakeOpenAI) -> Iterator[None]:
    """Fresh scripts and request logs for each test."""
    for fake in (anthropic_fake, openai_fake):
        fake.clear()
    yield


@pytest.fixture
def lookups(
    tmp_path: Path, fakes: None, anthropic_fake: FakeAnthropic, openai_fake: FakeOpenAI
) -> Iterator[Lookups]:
    opened = Lookups(tmp_path / "home", anthropic_fake, openai_fake)
    yield opened
    opened.close()
