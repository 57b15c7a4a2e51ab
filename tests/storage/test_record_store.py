"""Manual 7.3-7.5: the two-tier record files, recovery, the list, reads and deletes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from storage_helpers import end_row, lines, set_row, start_row, write_closed

from reckoner import wire
from reckoner.storage import record_archive
from reckoner.storage.home import HomeLayout
from reckoner.storage.open_journal import OpenRecordJournal
from reckoner.storage.record_archive import DeleteOutcome, RecordArchive
from reckoner.storage.record_format import encode_row, parse_lines

OLD_NS = 1_600_000_000 * 10**9  # a directory time safely in the past (outside the racy window)


def settle(directory: Path, offset_ns: int = 0) -> None:
    os.utime(directory, ns=(OLD_NS + offset_ns, OLD_NS + offset_ns))


def discarded_files(layout: HomeLayout) -> list[Path]:
    if not layout.discarded_dir.exists():
        return []
    return sorted(layout.discarded_dir.iterdir())


# -- recovery (7.4) --------------------------------------------------------------------


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


# -- writing (7.3) ---------------------------------------------------------------------


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


# -- ids (7.1) -------------------------------------------------------------------------


def test_id_is_the_clock_then_suffixes_while_taken(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the three markers)."""
    archive = RecordArchive(layout)
    assert archive.allocate_id(1700) == "1700"
    write_closed(layout, "1700")
    assert archive.is_taken("1700")
    assert archive.allocate_id(1700) == "1700-2"
    write_closed(layout, "1700-2")
    assert archive.allocate_id(1700) == "1700-3"
    assert archive.allocate_id(1701) == "1701"


def test_id_never_equals_the_open_record(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the three markers)."""
    OpenRecordJournal(layout).start("1700", start_row("1700"))
    assert RecordArchive(layout).allocate_id(1700) == "1700-2"


# -- the list (7.5) --------------------------------------------------------------------


def test_list_closed_newest_first_open_and_unreadable(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    write_closed(layout, "100", "Old", opened=100, ended=150)
    write_closed(layout, "300", "New", opened=300, ended=390)
    write_closed(layout, "200", "Middle", opened=200, ended=260)
    newer = layout.records_dir / "400.jsonl"
    newer.write_bytes(b'{"seq":0,"version":2}\n' + lines(start_row("400"), header=None))
    newer_stat = newer.stat()
    (layout.records_dir / "500.jsonl").write_bytes(lines(start_row("500"), header=None))
    (layout.records_dir / "50.jsonl").write_bytes(b'{"seq":0,"version":0}\n')
    (layout.records_dir / "700.jsonl").mkdir()  # cannot be read as a file
    (layout.records_dir / "notes.txt").write_text("ignored")
    (layout.records_dir / "stray.jsonl").write_text("ignored: not an id")
    journal = OpenRecordJournal(layout)
    journal.start("600", start_row("600", "Running", at=600))
    listing = RecordArchive(layout).index()
    assert [(e.id, e.title, e.opened_at, e.ended_at) for e in listing.closed] == [
        ("300", "New", 300, 390),
        ("200", "Middle", 200, 260),
        ("100", "Old", 100, 150),
    ]
    assert all(entry.version == 1 for entry in listing.closed)
    assert listing.open is not None
    assert (listing.open.id, listing.open.title, listing.open.opened_at) == ("600", "Running", 600)
    assert listing.unreadable == ["50", "400", "500", "700"]
    # A newer build's file is listed, never touched.
    after = newer.stat()
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (
        newer_stat.st_mtime_ns,
        newer_stat.st_size,
        newer_stat.st_ino,
    )


def test_index_json_has_closed_open_and_unreadable_lists(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    write_closed(layout, "100", "Old", opened=100, ended=150)
    assert RecordArchive(layout).index_json() == {
        "closed": [{"id": "100", "version": 1, "title": "Old", "openedAt": 100, "endedAt": 150}],
        "open": None,
        "openRecords": [],
        "unreadable": [],
    }


def test_index_lists_every_lane_and_refuses_deleting_any_open_record(
    layout: HomeLayout,
) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    OpenRecordJournal(layout).start("100", start_row("100", "First"))
    OpenRecordJournal(layout.for_lane(3)).start("101", start_row("101", "Third lane"))
    archive = RecordArchive(layout)
    body = archive.index_json()
    assert body["openRecords"] == [
        {"id": "100", "title": "First", "openedAt": 1_700_000_000_000, "lane": 1},
        {"id": "101", "title": "Third lane", "openedAt": 1_700_000_000_000, "lane": 3},
    ]
    assert body["open"] == body["openRecords"][0]
    assert archive.delete("101") is DeleteOutcome.IS_OPEN
    assert archive.delete("100") is DeleteOutcome.IS_OPEN
    view = archive.read("101")
    assert view is not None and view.is_open and view.title == "Third lane"
    assert archive.fingerprint("101") is not None
    assert archive.allocate_id(101) == "101-2"  # an open id on any lane is taken


def test_same_opening_ordered_by_id(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    for record_id in ("100", "100-2", "100-10"):
        write_closed(layout, record_id, opened=100)
    ids = [entry.id for entry in RecordArchive(layout).index().closed]
    assert ids == ["100-10", "100-2", "100"]


def test_a_closed_files_span_survives_a_missing_end_a_torn_tail_and_a_refused_start(
    layout: HomeLayout,
) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    # No closing row: the end is the last row's time.
    (layout.records_dir / "1.jsonl").write_bytes(lines(start_row("1", at=10), set_row(2, 15)))
    # A torn tail after the closing row: the closing row still ends it.
    (layout.records_dir / "2.jsonl").write_bytes(
        lines(start_row("2", at=20), end_row(2, 25, "2")) + b'{"seq":3,"at'
    )
    # A refused start before the real one.
    refused = {"seq": 1, "at": 30, "tool": "record_start", "ok": False, "content": {}}
    (layout.records_dir / "3.jsonl").write_bytes(
        lines(refused, start_row("3", "Late", at=31), end_row(3, 35, "3"))
    )
    entries = {e.id: e for e in RecordArchive(layout).index().closed}
    assert (entries["1"].opened_at, entries["1"].ended_at) == (10, 15)
    assert (entries["2"].opened_at, entries["2"].ended_at) == (20, 25)
    assert (entries["3"].title, entries["3"].opened_at, entries["3"].ended_at) == ("Late", 31, 35)


def test_large_record_summarized_from_head_and_tail(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    path = write_closed(layout, "7", "Big", opened=1, ended=999_999, middle=3000)
    assert path.stat().st_size > 200_000
    [entry] = RecordArchive(layout).index().closed
    assert (entry.title, entry.opened_at, entry.ended_at) == ("Big", 1, 999_999)
    # The same big file without a closing row needs the full scan, and still gets it right.
    rows = parse_lines(path.read_bytes()).rows[:-1]
    path.write_bytes(lines(*rows))
    settle(layout.records_dir, 1)
    [entry] = RecordArchive(layout).index().closed
    assert entry.ended_at == rows[-1]["at"]


def test_closed_list_is_cached_on_directory_mtime(
    layout: HomeLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    write_closed(layout, "100", opened=100)
    write_closed(layout, "200", opened=200)
    settle(layout.records_dir)
    reads: list[str] = []
    real = record_archive.summarize_closed_file

    def counting(path: str, record_id: str) -> Any:
        reads.append(record_id)
        return real(path, record_id)

    monkeypatch.setattr(record_archive, "summarize_closed_file", counting)
    archive = RecordArchive(layout)
    assert len(archive.index().closed) == 2
    assert sorted(reads) == ["100", "200"]
    reads.clear()
    assert len(archive.index().closed) == 2
    assert reads == []  # warm: no file was read
    write_closed(layout, "300", opened=300)
    settle(layout.records_dir, 1)  # a new directory time
    assert [e.id for e in archive.index().closed] == ["300", "200", "100"]
    assert sorted(reads) == ["100", "200", "300"]


def test_a_just_changed_directory_is_not_trusted(
    layout: HomeLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    # Within the directory's time granularity a second change may keep the same mtime.
    archive = RecordArchive(layout)
    write_closed(layout, "100", opened=100)
    assert [e.id for e in archive.index().closed] == ["100"]
    stamp = layout.records_dir.stat().st_mtime_ns
    write_closed(layout, "200", opened=200)
    os.utime(layout.records_dir, ns=(stamp, stamp))  # the same tick
    assert [e.id for e in archive.index().closed] == ["200", "100"]


# -- reading one record ----------------------------------------------------------------


def test_read_gives_closed_and_open_records_with_their_rows(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    write_closed(layout, "100", "Old", opened=100, ended=150, middle=1)
    journal = OpenRecordJournal(layout)
    journal.start("200", start_row("200", "Now", at=200))
    journal.append(set_row(2, 201))
    archive = RecordArchive(layout)
    closed = archive.read("100")
    assert closed is not None and not closed.is_open
    assert (closed.title, closed.opened_at, closed.ended_at, closed.version) == ("Old", 100, 150, 1)
    assert [row["tool"] for row in closed.rows] == ["record_start", "set", "record_end"]
    current = archive.read_json("200")
    assert current is not None
    assert {k: v for k, v in current.items() if k != "rows"} == {
        "id": "200",
        "title": "Now",
        "version": 1,
        "openedAt": 200,
        "endedAt": None,
        "open": True,
    }
    assert [row["seq"] for row in current["rows"]] == [1, 2]


def test_read_refuses_missing_invalid_and_unreadable(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    (layout.records_dir / "5.jsonl").write_bytes(b'{"seq":0,"version":2}\n')
    (layout.records_dir / "6.jsonl").write_bytes(lines(start_row("6"), header=None))
    archive = RecordArchive(layout)
    for record_id in ("4", "5", "6", "../x", "1/../../etc"):
        assert archive.read(record_id) is None
        assert archive.read_json(record_id) is None


# -- validators --------------------------------------------------------------------------


def test_fingerprint_moves_with_an_append_and_only_then(
    layout: HomeLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    journal = OpenRecordJournal(layout)
    journal.start("200", start_row("200"))
    archive = RecordArchive(layout)
    first = archive.fingerprint("200")
    assert first is not None
    reads: list[Path] = []
    real = record_archive.read_open_head
    monkeypatch.setattr(
        record_archive, "read_open_head", lambda path, lane: reads.append(path) or real(path, lane)
    )
    assert archive.fingerprint("200") == first
    assert reads == []  # an unchanged poll reads nothing
    journal.append(set_row(2, 5))
    second = archive.fingerprint("200")
    assert second is not None and second != first
    assert archive.fingerprint("200") == second
    journal.append(end_row(3, 6, "200"))
    journal.close_into("200")
    closed = archive.fingerprint("200")
    assert closed is not None and closed.startswith("c-") and closed != second


def test_fingerprint_of_missing_or_invalid_is_none(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    archive = RecordArchive(layout)
    assert archive.fingerprint("123") is None
    assert archive.fingerprint("../x") is None
    OpenRecordJournal(layout).start("200", start_row("200"))
    assert archive.fingerprint("201") is None


def test_index_fingerprint_follows_the_list(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    archive = RecordArchive(layout)
    write_closed(layout, "100")
    settle(layout.records_dir)
    first = archive.index_fingerprint()
    assert archive.index_fingerprint() == first
    journal = OpenRecordJournal(layout)
    journal.start("200", start_row("200"))
    second = archive.index_fingerprint()
    assert second != first
    journal.append(set_row(2, 5))
    third = archive.index_fingerprint()
    assert third != second
    write_closed(layout, "300")
    settle(layout.records_dir, 5)
    assert archive.index_fingerprint() != third


# -- deleting ----------------------------------------------------------------------------


def test_delete_removes_a_closed_record_and_refuses_missing_open_and_invalid_ids(
    layout: HomeLayout, tmp_path: Path
) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    write_closed(layout, "100")
    outside = tmp_path / "x.jsonl"
    outside.write_text("must survive")
    OpenRecordJournal(layout).start("200", start_row("200"))
    archive = RecordArchive(layout)
    assert archive.delete("100") == DeleteOutcome.DELETED
    assert not (layout.records_dir / "100.jsonl").exists()
    assert archive.delete("100") == DeleteOutcome.MISSING
    assert archive.delete("200") == DeleteOutcome.IS_OPEN
    assert layout.open_record.exists()
    for bad in ("../x", "1/../../etc", "../../x", "", "200.jsonl"):
        assert archive.delete(bad) == DeleteOutcome.INVALID_ID
    assert outside.read_text() == "must survive"


def test_deleted_record_leaves_the_list(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    write_closed(layout, "100")
    write_closed(layout, "200", opened=200)
    settle(layout.records_dir)
    archive = RecordArchive(layout)
    assert len(archive.index().closed) == 2
    archive.delete("100")
    assert [e.id for e in archive.index().closed] == ["200"]


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


def test_read_follows_a_record_closed_after_the_list_was_taken(
    layout: HomeLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    journal = OpenRecordJournal(layout)
    journal.start("200", start_row("200", at=200))
    archive = RecordArchive(layout)
    stale = archive.open_entry()
    assert stale is not None and stale.id == "200"
    journal.append(end_row(2, 210, "200"))
    journal.close_into("200")
    # The race: the archive saw 200 open just before the engine renamed it.
    monkeypatch.setattr(archive, "open_entry", lambda: stale)
    view = archive.read("200")
    assert view is not None and not view.is_open and view.ended_at == 210
