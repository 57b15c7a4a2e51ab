"""Issue 8: record files are read only when they are regular files.

A FIFO, a device or a symlink in ``records/`` or as ``open-record.jsonl`` is never followed
and never waited on: a closed record is listed among the unreadable ids (docs/guide/records.md), an
open one is moved aside at start (docs/guide/records.md). Every test runs under a short timeout,
since
the failure being guarded against is a hang.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from storage_helpers import lines, set_row, start_row, write_closed

from reckoner import Engine
from reckoner.storage.home import HomeLayout
from reckoner.storage.open_journal import OpenRecordJournal
from reckoner.storage.record_archive import RecordArchive

pytestmark = pytest.mark.timeout(20)

SECRET = b"outside the home\n"


def make_fifo(path: Path, outside: Path) -> None:
    os.mkfifo(path)


def make_symlink(path: Path, outside: Path) -> None:
    """A link to a well-formed record outside the home: following it would leak that file."""
    os.symlink(outside, path)


def make_device(path: Path, outside: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # what /dev/null is
    except PermissionError:
        pytest.skip("creating a device node needs CAP_MKNOD, which this machine denies")


MAKERS: dict[str, Callable[[Path, Path], None]] = {
    "fifo": make_fifo,
    "symlink": make_symlink,
    "device": make_device,
}


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A valid closed record in a directory that is not the home."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "1800.jsonl"
    target.write_bytes(lines(start_row("1800", "Secret"), set_row(2, 5)))
    return target


@pytest.mark.parametrize("kind", MAKERS)
def test_a_non_regular_closed_record_is_listed_unreadable(
    layout: HomeLayout, outside: Path, kind: str
) -> None:
    """7.5 / issue 8: records/<id>.jsonl that is a FIFO, device or symlink: unreadable, unread.
    Spec: docs/guide/records.md (issue 8)."""
    write_closed(layout, "1700")
    MAKERS[kind](layout.records_dir / "1800.jsonl", outside)
    archive = RecordArchive(layout)
    listing = archive.index()
    assert [entry.id for entry in listing.closed] == ["1700"]
    assert listing.unreadable == ["1800"]
    assert archive.read("1800") is None
    assert archive.read_json("1800") is None
    assert archive.fingerprint("1800") is None
    assert archive.read("1700") is not None


@pytest.mark.parametrize("kind", MAKERS)
def test_a_non_regular_open_record_is_moved_aside_at_start(
    layout: HomeLayout, outside: Path, kind: str
) -> None:
    """7.4 / issue 8: open-record.jsonl that is a FIFO, device or symlink is moved into
    discarded/ (the link itself, never its target), and the engine opens with no record.
    Spec: docs/guide/records.md (issue 8)."""
    outside.write_bytes(lines(start_row("1800", "Secret"), set_row(2, 5)))
    MAKERS[kind](layout.open_record, outside)
    archive = RecordArchive(layout)
    assert archive.open_entry() is None and archive.index().open is None
    assert archive.fingerprint("1800") is None and archive.read("1800") is None
    with Engine(layout.root) as engine:
        assert engine.open_record_id is None
        assert engine.call("record_start", {"title": "Fresh"}) == {"ok": True}
    assert outside.read_bytes() == lines(start_row("1800", "Secret"), set_row(2, 5))
    [moved] = list(layout.discarded_dir.iterdir())
    assert not stat.S_ISREG(moved.lstat().st_mode)


def test_a_journal_never_appends_through_a_symlink(layout: HomeLayout, outside: Path) -> None:
    """Issue 8: a record resumed from a file that becomes a symlink is not written through.
    Spec: docs/guide/records.md (issue 8)."""
    journal = OpenRecordJournal(layout)
    journal.start("1700", start_row("1700"))
    journal.close_handle()
    os.replace(layout.open_record, layout.root / "kept.jsonl")
    os.symlink(outside, layout.open_record)
    before = outside.read_bytes()
    with pytest.raises(OSError):
        journal.append(set_row(2, 5))
    assert outside.read_bytes() == before


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_reckoner_records_does_not_hang_on_a_fifo_or_follow_a_symlink(
    layout: HomeLayout, outside: Path, kind: str
) -> None:
    """Issue 8: `reckoner records` lists the odd file as unreadable and exits.
    Spec: docs/guide/records.md (issue 8)."""
    write_closed(layout, "1700")
    MAKERS[kind](layout.records_dir / "1800.jsonl", outside)
    MAKERS[kind](layout.open_record, outside)
    done = subprocess.run(
        [sys.executable, "-m", "reckoner", "records", "--home", str(layout.root)],
        capture_output=True,
        text=True,
        timeout=15,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr
    assert "1800" in done.stdout and "unreadable" in done.stdout
    assert "Secret" not in done.stdout and "Traceback" not in done.stderr
