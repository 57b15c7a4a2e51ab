"""The record archive (reckoner.storage.record_archive): ids, the list, one record's read,
the poll validators and deletes (docs/guide/records.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from storage_helpers import end_row, lines, set_row, settle, start_row, write_closed

from reckoner.storage import record_archive
from reckoner.storage.home import HomeLayout
from reckoner.storage.open_journal import OpenRecordJournal
from reckoner.storage.record_archive import DeleteOutcome, RecordArchive


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
