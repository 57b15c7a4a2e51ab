"""A closed record's list entry (reckoner.storage.record_summaries): its title and span read
from its head and tail, the full scan where the quick path cannot answer
(docs/guide/records.md)."""

from __future__ import annotations

from storage_helpers import end_row, lines, set_row, settle, start_row, write_closed

from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive
from reckoner.storage.record_format import parse_lines


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
