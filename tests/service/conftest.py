"""Fixtures for the engine tests: a fresh home, a stepping clock, an engine with a record open."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from service_helpers import StepClock

from reckoner import Engine


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def engine(home: Path, clock: StepClock) -> Iterator[Engine]:
    with Engine(home, clock=clock) as opened:
        yield opened


@pytest.fixture
def recording(engine: Engine) -> Engine:
    """An engine with a record open and V (volt), R (ohm) set."""
    assert engine.call("record_start", {"title": "Divider"}) == {"ok": True}
    assert engine.call("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})["ok"]
    assert engine.call("set", {"name": "R", "value": {"num": 4.7e3, "dim": "ohm"}})["ok"]
    return engine
