"""docs/guide/records.md: state.json as a tree of subtrees, replaced atomically."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from reckoner.storage.home import HomeLayout
from reckoner.storage.state_file import StateFile


def on_disk(layout: HomeLayout) -> Any:
    return json.loads(layout.state_file.read_text())


@pytest.mark.parametrize("content", [None, b"", b"{not json", b"[1,2]", b'"text"', b"\xff\xfe"])
def test_missing_corrupt_or_non_object_reads_empty(
    layout: HomeLayout, content: bytes | None
) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    if content is not None:
        layout.state_file.write_bytes(content)
    state = StateFile(layout)
    assert state.read() == {}
    assert state.subtree("panel") == {}
    assert state.restart_required() is False


def test_writer_touches_only_its_subtree(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    original = {
        "schema": 1,
        "generation": {"markdown": {"directory": "C:/out", "language": "auto"}},
        "search": {"maxResults": 20, "enrich": {"pages": 2}},
        "futureModule": {"deep": [1, {"x": None}], "flag": False},
        "restartRequired": True,
    }
    layout.state_file.write_text(json.dumps(original))
    StateFile(layout).write_subtree("panel", {"showAll": True})
    assert on_disk(layout) == {**original, "panel": {"showAll": True}}


def test_newer_schema_survives_and_older_is_stamped(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    layout.state_file.write_text(json.dumps({"schema": 7, "novel": {"a": 1}}))
    StateFile(layout).write_subtree("panel", {"showAll": False})
    assert on_disk(layout) == {"schema": 7, "novel": {"a": 1}, "panel": {"showAll": False}}
    layout.state_file.write_text(json.dumps({"schema": 0, "panel": {}}))
    StateFile(layout).write_subtree("search", {"maxResults": 5})
    assert on_disk(layout)["schema"] == 1
    layout.state_file.write_text(json.dumps({"panel": {}}))
    StateFile(layout).write_subtree("search", None)
    assert on_disk(layout) == {"schema": 1, "panel": {}}


def test_none_removes_the_subtree(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    state = StateFile(layout)
    state.write_subtree("panel", {"showAll": True})
    state.write_subtree("panel", None)
    assert on_disk(layout) == {"schema": 1}


def test_subtree_is_a_copy(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    state = StateFile(layout)
    state.write_subtree("search", {"enrich": {"pages": 2}})
    tree = state.subtree("search")
    tree["enrich"]["pages"] = 99
    assert state.subtree("search") == {"enrich": {"pages": 2}}
    layout.state_file.write_text(json.dumps({"panel": [1, 2]}))
    assert state.subtree("panel") == {}


def test_restart_required_is_absent_when_false(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    state = StateFile(layout)
    state.write_subtree("panel", {"showAll": True})
    state.set_restart_required(True)
    assert on_disk(layout)["restartRequired"] is True
    assert state.restart_required() is True
    state.set_restart_required(False)
    assert "restartRequired" not in on_disk(layout)
    assert state.restart_required() is False
    assert on_disk(layout) == {"schema": 1, "panel": {"showAll": True}}


def test_flat_keys_are_not_subtrees(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    state = StateFile(layout)
    for key in ("schema", "restartRequired"):
        with pytest.raises(ValueError):
            state.write_subtree(key, {})


def test_write_is_an_atomic_replace(layout: HomeLayout, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    state = StateFile(layout)
    state.write_subtree("panel", {"showAll": True})
    before = layout.state_file.read_bytes()
    inode = layout.state_file.stat().st_ino

    def failing_replace(src: Any, dst: Any) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        state.write_subtree("panel", {"showAll": False, "big": "x" * 100_000})
    # The old file is whole and no temp file is left behind.
    assert layout.state_file.read_bytes() == before
    assert layout.state_file.stat().st_ino == inode
    assert sorted(p.name for p in layout.root.iterdir()) == [
        ".state.lock",
        "logs",
        "records",
        "state.json",
    ]
    monkeypatch.undo()
    state.write_subtree("panel", {"showAll": False})
    assert layout.state_file.stat().st_ino != inode  # a new file was renamed into place


def test_concurrent_writers_lose_nothing(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    # The engine and the panel may each hold a StateFile on one home.
    writers = [StateFile(layout) for _ in range(8)]

    def write(index: int) -> None:
        for round_ in range(20):
            writers[index].write_subtree(f"module{index}", {"round": round_})

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    tree = on_disk(layout)
    assert {f"module{i}": {"round": 19} for i in range(8)}.items() <= tree.items()


def test_legacy_flat_keys_migrate_into_both_formats(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    layout.state_file.write_text(
        json.dumps(
            {
                "generateDir": "/old/out",
                "generateLanguage": "zh-CN",
                "generateCompile": True,
                "generateFormat": "latex",
                "panel": {"showAll": True},
            }
        )
    )
    state = StateFile(layout)
    assert state.migrate_legacy() is True
    assert on_disk(layout) == {
        "schema": 1,
        "panel": {"showAll": True},
        "generation": {
            "markdown": {"directory": "/old/out", "language": "zh-CN"},
            "latex": {"directory": "/old/out", "language": "zh-CN", "compile": True},
        },
    }
    assert state.migrate_legacy() is False  # once


def test_migration_keeps_a_newer_choice(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    layout.state_file.write_text(
        json.dumps({"generateDir": "/old", "generation": {"latex": {"directory": "/new"}}})
    )
    StateFile(layout).migrate_legacy()
    assert on_disk(layout)["generation"] == {
        "markdown": {"directory": "/old"},
        "latex": {"directory": "/new"},
    }


def test_generate_dir_txt_is_honoured_until_the_first_write(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    legacy = layout.root / "generate-dir.txt"
    legacy.write_text("/from/text/file\n")
    state = StateFile(layout)
    assert state.subtree("generation") == {
        "markdown": {"directory": "/from/text/file"},
        "latex": {"directory": "/from/text/file"},
    }
    assert not layout.state_file.exists()  # reading never writes
    state.write_subtree("panel", {"showAll": True})
    assert legacy.exists()  # another module's write does not touch it
    tree = state.subtree("generation")
    tree["latex"]["compile"] = False
    state.write_subtree("generation", tree)
    assert not legacy.exists()
    assert on_disk(layout)["generation"]["markdown"] == {"directory": "/from/text/file"}


def test_state_file_in_missing_home_dir_fails_loudly(tmp_path: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    state = StateFile(HomeLayout(tmp_path / "nowhere"))
    assert state.read() == {}
    with pytest.raises(OSError):
        state.write_subtree("panel", {})


WRITER = """
import sys, time
from pathlib import Path
from reckoner.storage.home import HomeLayout
from reckoner.storage.state_file import StateFile
root, prefix, count, go = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
state = StateFile(HomeLayout(root))
while not go.exists():
    time.sleep(0.001)
for i in range(count):
    state.write_subtree(f"{prefix}{i}", {"i": i})
"""


def test_two_processes_writing_subtrees_in_a_tight_loop_both_land(
    layout: HomeLayout, tmp_path: Path
) -> None:
    """Every subtree each process wrote survives: no read-modify-write lost another's change.
    Spec: docs/guide/records.md (issue 9)."""
    import subprocess
    import sys

    count = 150
    go = tmp_path / "go"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(layout.root), prefix, str(count), str(go)]
        )
        for prefix in ("a", "b")
    ]
    go.touch()
    for writer in writers:
        assert writer.wait(timeout=120) == 0
    tree = on_disk(layout)
    for prefix in ("a", "b"):
        assert [tree.get(f"{prefix}{i}") for i in range(count)] == [{"i": i} for i in range(count)]
    assert tree["schema"] == 1
