"""Which directory is the home (reckoner.storage.home_path): an explicit one, then
RECKONER_HOME, then ~/.reckoner (docs/guide/records.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reckoner.storage.home_path import resolve_home


def test_explicit_home_wins_over_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    monkeypatch.setenv("RECKONER_HOME", str(tmp_path / "from-env"))
    assert resolve_home(tmp_path / "explicit") == tmp_path / "explicit"


def test_environment_moves_the_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    monkeypatch.setenv("RECKONER_HOME", str(tmp_path / "from-env"))
    assert resolve_home() == tmp_path / "from-env"


def test_default_home_is_dot_reckoner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    monkeypatch.delenv("RECKONER_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_home() == tmp_path / ".reckoner"
