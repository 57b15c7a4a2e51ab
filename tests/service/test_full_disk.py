"""Issue 8 on a real file system: a full disk and a home made read-only after start.

A 256 KiB tmpfs is mounted as the home's file system (CI runs as root); where mounting is
not permitted the tests are skipped with the reason. The promise under test: every `ok`
receipt is in the record after a restart, a refused call changed nothing, and once space
returns the engine continues without a restart.
"""

from __future__ import annotations

import errno
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from service_helpers import file_rows, open_file

from reckoner import Engine

pytestmark = pytest.mark.timeout(120)


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, check=False)


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs, or a skip saying why there is none."""
    if shutil.which("mount") is None:
        pytest.skip("no mount command on this machine")
    point = tmp_path / "fs"
    point.mkdir()
    done = _mount("-t", "tmpfs", "-o", "size=256k", "tmpfs", str(point))
    if done.returncode != 0:
        pytest.skip(f"a tmpfs cannot be mounted here ({done.stderr.strip()}); needs root")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def _fill(path: Path, leave: int = 0) -> None:
    """Write zeros into ``path`` until the file system is full, then give ``leave`` back."""
    with open(path, "wb", buffering=0) as handle:
        chunk = b"\0" * 4096
        try:
            while True:
                handle.write(chunk)
        except OSError as error:
            assert error.errno == errno.ENOSPC
        if leave:
            handle.truncate(max(0, handle.tell() - leave))


def _call_and_track(
    engine: Engine, tool: str, args: dict[str, Any], ok: list[dict[str, Any]]
) -> dict[str, Any]:
    """Call; an ok set is kept, a refused call is checked to have changed nothing."""
    before = engine.slot_snapshot(), engine.open_record_id
    receipt = engine.call(tool, args)
    if receipt["ok"]:
        if tool == "set":
            ok.append(receipt)
    else:
        assert receipt["code"] == "ENGINE_UNKNOWN_ERROR", receipt
        assert (engine.slot_snapshot(), engine.open_record_id) == before
    return receipt


def test_a_full_disk_refuses_calls_loses_no_ok_receipt_and_recovers(
    small_fs: Path,
) -> None:
    """Issue 8: fill the disk, call until refused, restart: every ok set is in the record;
    free space: the same engine continues, and the record closes.
    Spec: docs/guide/records.md (issue 8)."""
    home = small_fs / "home"
    filler = small_fs / "filler"
    ok: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    engine = Engine(home)
    assert engine.call("record_start", {"title": "Full disk"}) == {"ok": True}
    record = engine.open_record_id
    _fill(filler, leave=12 * 1024)
    for i in range(400):
        values = [i + k / 7 for k in range(40)]
        receipt = _call_and_track(
            engine, "set", {"name": f"S{i % 9}", "value": {"array": values}}, ok
        )
        if not receipt["ok"]:
            refused.append(receipt)
            if len(refused) >= 5:
                break
    assert ok and len(refused) == 5
    for receipt in refused:
        assert receipt["error"].startswith("the record could not be written: no space left on")
        assert str(home) in receipt["error"] and "free space and call again" in receipt["error"]
    assert engine.open_record_id == record
    live = engine.slot_snapshot()
    engine.close()

    with Engine(home) as again:  # a restart on the still-full disk
        assert again.open_record_id == record and again.slot_snapshot() == live
    filler.unlink()
    with Engine(home) as again:
        assert _call_and_track(again, "set", {"name": "after", "value": {"num": 1}}, ok)["ok"]
        assert again.call("record_end", {}) == {"ok": True}
    rows = file_rows(home / "records" / f"{record}.jsonl")
    assert [row["seq"] for row in rows] == list(range(1, len(rows) + 1))
    written = [row["content"] for row in rows if row["tool"] == "set" and row["ok"]]
    assert written == [{"name": r["name"], "value": r["value"]} for r in ok]


def test_space_returning_needs_no_restart(small_fs: Path) -> None:
    """Issue 8: the engine that refused on a full disk accepts again once space is freed.
    Spec: docs/guide/records.md (issue 8)."""
    home = small_fs / "home"
    filler = small_fs / "filler"
    with Engine(home) as engine:
        assert engine.call("record_start", {"title": "Full"}) == {"ok": True}
        _fill(filler)
        text = "x" * 8000
        receipts = [engine.call("record_message", {"text": text}) for _ in range(3)]
        assert not receipts[-1]["ok"] and "no space left" in receipts[-1]["error"]
        filler.unlink()
        assert engine.call("record_message", {"text": text}) == {"ok": True}
        assert engine.call("record_end", {}) == {"ok": True}
        assert engine.call("record_start", {"title": "Next"}) == {"ok": True}
        _fill(filler)
        record = engine.open_record_id
        # No room for the next record's file: record_start is refused, nothing opens.
        assert engine.call("record_end", {}) == {"ok": True}  # a rename needs no space
        refusal = engine.call("record_start", {"title": "No room"})
        assert not refusal["ok"] and refusal["error"].startswith(
            "the record could not be started: no space left"
        )
        assert engine.open_record_id is None and not open_file(home).exists()
        filler.unlink()
        assert engine.call("record_start", {"title": "Room again"}) == {"ok": True}
    assert (home / "records" / f"{record}.jsonl").exists()


def test_a_home_made_read_only_after_start_refuses_calls_in_one_sentence(
    small_fs: Path, tmp_path: Path
) -> None:
    """Issue 8: the home's mount turned read-only under a running engine.

    Linux refuses to remount a file system read-only while a file on it is open for
    writing (the engine holds its record and its log), so the home is a bind mount that is
    swapped for a read-only bind of the same file system: every path operation then meets
    EROFS, as after an emergency read-only remount. The start and the close are refused
    with the read-only sentence and change nothing; made writable again, the same engine
    closes the record.
    Spec: docs/guide/records.md (issue 8).
    """
    home = tmp_path / "home"
    home.mkdir()
    assert _mount("--bind", str(small_fs), str(home)).returncode == 0
    try:
        with Engine(home) as engine:
            assert engine.call("record_start", {"title": "Read-only"}) == {"ok": True}
            record = engine.open_record_id
            assert engine.call("set", {"name": "V", "value": {"num": 1}})["ok"]
            subprocess.run(["umount", "-l", str(home)], check=True)
            done = _mount("--bind", "-o", "ro", str(small_fs), str(home))
            if done.returncode != 0:
                pytest.skip(f"a read-only bind mount is not permitted ({done.stderr.strip()})")
            with pytest.raises(OSError) as probe:
                (home / "probe").write_bytes(b"")
            assert probe.value.errno == errno.EROFS
            before = engine.slot_snapshot()
            receipt = engine.call("record_end", {})
            assert not receipt["ok"] and "is read-only" in receipt["error"]
            assert receipt["error"].startswith("the record could not be closed: ")
            assert engine.open_record_id == record and engine.slot_snapshot() == before
            assert not (home / "records" / f"{record}.jsonl").exists()
            subprocess.run(["umount", "-l", str(home)], check=True)
            assert _mount("--bind", str(small_fs), str(home)).returncode == 0
            assert engine.call("record_end", {}) == {"ok": True}
            assert engine.call("record_start", {"title": "Next"}) == {"ok": True}
            subprocess.run(["umount", "-l", str(home)], check=True)
            assert _mount("--bind", "-o", "ro", str(small_fs), str(home)).returncode == 0
            assert engine.call("record_end", {}) != {"ok": True}
        rows = file_rows(home / "records" / f"{record}.jsonl")
        assert [(row["tool"], row["ok"]) for row in rows] == [
            ("record_start", True),
            ("set", True),
            ("record_end", False),
            ("record_end", True),
        ]
    finally:
        subprocess.run(["umount", "-l", str(home)], check=False)
