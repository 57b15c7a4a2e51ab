"""docs/guide/records.md: the home's tree and what an unusable home says."""

from __future__ import annotations

from pathlib import Path

import pytest

from reckoner.storage.home import HomeError, HomeLayout


def test_prepare_creates_the_tree(tmp_path: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    layout = HomeLayout(tmp_path / "a" / "b")
    layout.prepare()
    assert layout.records_dir.is_dir() and layout.logs_dir.is_dir()
    assert layout.open_record == layout.root / "open-record.jsonl"
    assert layout.state_file == layout.root / "state.json"
    assert layout.discarded_dir == layout.root / "discarded"
    assert layout.lock_file == layout.root / ".lock"
    assert sorted(p.name for p in layout.root.iterdir()) == ["logs", "records"]


def test_home_that_is_a_file_is_one_sentence(tmp_path: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    home = tmp_path / "home"
    home.write_text("not a directory")
    with pytest.raises(HomeError) as caught:
        HomeLayout(home).prepare()
    message = str(caught.value)
    assert str(home) in message and "--home" in message
    assert "\n" not in message and message.count(";") == 1


def test_a_home_under_a_regular_file_cannot_be_created_in_one_sentence(tmp_path: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    # Root ignores permission bits, so make the path impossible: its parent is a file.
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    with pytest.raises(HomeError) as caught:
        HomeLayout(blocker / "home").prepare()
    assert "cannot be created" in str(caught.value)
    assert "Traceback" not in str(caught.value)


def test_a_file_in_place_of_the_records_directory_is_one_sentence(tmp_path: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "records").write_text("oops")
    with pytest.raises(HomeError, match="is a file where the home needs a directory"):
        HomeLayout(home).prepare()


def test_a_directory_in_place_of_the_open_record_is_one_sentence(tmp_path: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    home = tmp_path / "home"
    (home / "open-record.jsonl").mkdir(parents=True)
    with pytest.raises(HomeError, match="is a directory where the home needs a file"):
        HomeLayout(home).prepare()


def test_home_error_is_an_os_error() -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    assert issubclass(HomeError, OSError)
