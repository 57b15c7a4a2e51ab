"""The open journal (reckoner.storage.open_journal): a lane's open file recovered at start,
a record started, appended to and closed (docs/guide/records.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from storage_helpers import end_row, lines, set_row, start_row, write_closed

from reckoner import wire
from reckoner.storage.home import HomeLayout
from reckoner.storage.open_journal import OpenRecordJournal
from reckoner.storage.record_format import encode_row, parse_lines


def discarded_files(layout: HomeLayout) -> list[Path]:
    if not layout.discarded_dir.exists():
        return []
    return sorted(layout.discarded_dir.iterdir())


def test_no_open_file_recovers_nothing(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    assert OpenRecordJournal(layout).recover() is None
    assert discarded_files(layout) == []


def test_recovery_returns_identity_rows_and_last_seq(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    layout.open_record.write_bytes(
        lines(start_row("1700", "Divider"), set_row(2, 5), set_row(3, 6, "R2"))
    )
    recovered = OpenRecordJournal(layout).recover()
    assert recovered is not None
    assert recovered.record_id == "1700"
    assert recovered.title == "Divider"
    assert recovered.last_seq == 3
    assert [row["seq"] for row in recovered.rows] == [1, 2, 3]


@pytest.mark.parametrize(
    ("first_line", "why"),
    [
        (b'{"seq":0,"version":0}\n', "version 0"),
        (b'{"seq":0,"version":2}\n', "version 2"),
        (b"", "no header"),
        (b"not json at all\n", "no header"),
    ],
)
def test_version_gate_moves_open_file_aside(
    layout: HomeLayout, first_line: bytes, why: str
) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    content = first_line + lines(start_row("1700"), set_row(2, 5), header=None)
    layout.open_record.write_bytes(content)
    journal = OpenRecordJournal(layout)
    assert journal.recover() is None
    assert not layout.open_record.exists()
    [moved] = discarded_files(layout)
    assert moved.name.endswith("-open-record.jsonl")
    assert moved.read_bytes() == content  # moved, never rewritten or deleted
    assert any(why in note and str(moved) in note for note in journal.notes)


@pytest.mark.parametrize(
    "content",
    [
        {"record": "1700"},
        {"title": "Divider"},
        {"title": "", "record": "1700"},
        {"title": "Divider", "record": "../../etc/passwd"},
    ],
)
def test_start_row_without_title_or_id_is_discarded(
    layout: HomeLayout, content: dict[str, Any]
) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    row = {"seq": 1, "at": 5, "tool": "record_start", "ok": True, "content": content}
    layout.open_record.write_bytes(lines(row, set_row(2, 6)))
    assert OpenRecordJournal(layout).recover() is None
    [moved] = discarded_files(layout)
    assert parse_lines(moved.read_bytes()).rows[0]["content"] == content


def test_two_discards_in_one_instant_keep_both_files(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    for _ in range(2):
        layout.open_record.write_bytes(b'{"seq":0,"version":9}\n')
        OpenRecordJournal(layout).recover()
    assert len(discarded_files(layout)) == 2


def test_unreadable_open_file_is_left_in_place_and_noted(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    layout.open_record.mkdir()  # reading a directory fails with an OSError
    journal = OpenRecordJournal(layout)
    assert journal.recover() is None
    assert layout.open_record.is_dir()
    assert journal.notes and "left in place" in journal.notes[0]


@pytest.mark.parametrize(
    "torn", [b'{"seq":3,"at":7,"tool":"se', encode_row(set_row(3, 7, "R8"))[:-1]]
)
def test_torn_last_line_is_dropped_and_cut_off_before_the_next_row(
    layout: HomeLayout, torn: bytes
) -> None:
    """7.3 and issue 8: a last line without its newline was never acknowledged, even when it
    parses (a short write stopped before the newline); recovery drops it and cuts it off.
    Spec: docs/guide/records.md (the record file)."""
    clean = lines(start_row("1700"), set_row(2, 5))
    layout.open_record.write_bytes(clean + torn)
    journal = OpenRecordJournal(layout)
    recovered = journal.recover()
    assert recovered is not None and recovered.last_seq == 2
    assert [row["seq"] for row in recovered.rows] == [1, 2]
    assert layout.open_record.read_bytes() == clean
    assert any("cut short" in note for note in journal.notes)
    journal.append(set_row(3, 8, "R9"))
    journal.append(set_row(4, 9, "R10"))
    journal.close_handle()
    data = layout.open_record.read_bytes()
    assert data == clean + lines(set_row(3, 8, "R9"), set_row(4, 9, "R10"), header=None)


def test_garbage_lines_skipped_in_recovery(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    layout.open_record.write_bytes(
        lines(start_row("1700")) + b"}{ garbage\n" + lines(set_row(2, 5), header=None)
    )
    journal = OpenRecordJournal(layout)
    recovered = journal.recover()
    assert recovered is not None and [r["seq"] for r in recovered.rows] == [1, 2]
    assert any("1 line(s)" in note for note in journal.notes)


def test_clean_file_needs_no_extra_newline(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    layout.open_record.write_bytes(lines(start_row("1700")))
    journal = OpenRecordJournal(layout)
    journal.recover()
    journal.append(set_row(2, 5))
    journal.close_handle()
    assert layout.open_record.read_bytes() == lines(start_row("1700"), set_row(2, 5))


def test_a_start_cut_short_by_a_crash_is_moved_aside(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    # A kill between writing the temp file and renaming it leaves the temp file behind.
    leftover = layout.root / ".open-record.4242.1700000000000000000.tmp"
    leftover.write_bytes(lines(start_row("1700")))
    journal = OpenRecordJournal(layout)
    assert journal.recover() is None
    assert not leftover.exists()
    [moved] = discarded_files(layout)
    assert moved.name.endswith("-unfinished-start.jsonl")
    assert moved.read_bytes() == lines(start_row("1700"))
    assert any("unfinished record start" in note for note in journal.notes)


@pytest.mark.parametrize("fsync", [False, True])
def test_start_append_close_is_one_rename(layout: HomeLayout, fsync: bool) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    journal = OpenRecordJournal(layout, fsync=fsync)
    journal.start("1700", start_row("1700"))
    assert layout.open_record.read_bytes() == lines(start_row("1700"))
    journal.append(set_row(2, 5))
    # Each append has reached the OS before append returns: another reader sees it.
    assert layout.open_record.read_bytes().endswith(wire.dumps(set_row(2, 5)) + b"\n")
    journal.append(end_row(3, 6, "1700"))
    inode = layout.open_record.stat().st_ino
    closed = journal.close_into("1700")
    assert closed == layout.records_dir / "1700.jsonl"
    assert closed.stat().st_ino == inode  # a rename, not a copy
    assert not layout.open_record.exists()
    assert closed.read_bytes() == lines(start_row("1700"), set_row(2, 5), end_row(3, 6, "1700"))
    assert [p.name for p in layout.root.iterdir() if p.name.endswith(".tmp")] == []


def test_start_rewrites_from_the_header(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    journal = OpenRecordJournal(layout)
    journal.start("1700", start_row("1700"))
    journal.append(set_row(2, 5))
    journal.start("1800", start_row("1800", "Again"))
    journal.append(set_row(2, 9))
    journal.close_handle()
    assert layout.open_record.read_bytes() == lines(start_row("1800", "Again"), set_row(2, 9))


def test_start_keeps_an_unrecovered_file(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    layout.open_record.write_bytes(b"precious but unreadable")
    journal = OpenRecordJournal(layout)
    journal.start("1700", start_row("1700"))
    [moved] = discarded_files(layout)
    assert moved.read_bytes() == b"precious but unreadable"


def test_append_without_a_record_raises(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    with pytest.raises(OSError):
        OpenRecordJournal(layout).append(set_row(2, 5))


def test_close_never_overwrites_a_closed_record_it_takes_the_next_id(
    layout: HomeLayout,
) -> None:
    """Issue 9: a taken name fails the claim instead of being replaced; the next id is used.
    Spec: docs/guide/records.md (the record file)."""
    existing = write_closed(layout, "1700")
    write_closed(layout, "1700-2")
    before = existing.read_bytes()
    journal = OpenRecordJournal(layout)
    journal.start("1700", start_row("1700"))
    mine = layout.open_record.read_bytes()
    assert journal.close_into("1700") == layout.record_file("1700-3")
    assert existing.read_bytes() == before
    assert layout.record_file("1700-3").read_bytes() == mine
    assert not layout.open_record.exists()


def test_a_close_killed_between_link_and_unlink_is_finished_by_recovery(
    layout: HomeLayout,
) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    journal = OpenRecordJournal(layout)
    journal.start("1700", start_row("1700"))
    journal.close_handle()
    os.link(layout.open_record, layout.record_file("1700"))  # the crash came after the link
    again = OpenRecordJournal(layout)
    assert again.recover() is None
    assert not layout.open_record.exists()
    assert parse_lines(layout.record_file("1700").read_bytes()).rows == [start_row("1700")]
    assert any("cut short was finished" in note for note in again.notes)


def test_recovered_record_continues_in_the_same_file(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    journal = OpenRecordJournal(layout)
    journal.start("1700", start_row("1700"))
    journal.append(set_row(2, 5))
    journal.close_handle()  # engine stopped; a new process recovers
    again = OpenRecordJournal(layout)
    recovered = again.recover()
    assert recovered is not None and recovered.last_seq == 2
    again.append(set_row(3, 6))
    again.close_into("1700")
    rows = parse_lines((layout.records_dir / "1700.jsonl").read_bytes()).rows
    assert [row["seq"] for row in rows] == [1, 2, 3]


@pytest.mark.parametrize("bad", ["../x", "1/../../etc", "", "a"])
def test_journal_refuses_invalid_ids(layout: HomeLayout, bad: str) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    journal = OpenRecordJournal(layout)
    with pytest.raises(ValueError):
        journal.start(bad, start_row(bad))
    assert not layout.open_record.exists()
