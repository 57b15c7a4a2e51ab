"""A record's list entry read from as little of its file as possible.

A closed record is summarized from its header, its start row and its end row (a large file
only at its head and its tail), an open one from its header and start row; anything unusual
falls back to parsing every line, so the quick path never answers what the full one would
not (docs/guide/records.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reckoner.storage.record_format import (
    FORMAT_VERSION,
    RecordSummary,
    header_version_of,
    is_accepted,
    is_valid_record_id,
    parse_lines,
    parse_row,
    row_time,
    start_identity,
    summarize,
)
from reckoner.storage.regular_files import open_regular_for_read

# A file up to this size is read whole; a larger one only at its head and its tail.
_WHOLE_READ_LIMIT = 64 * 1024
_HEAD_CHUNK = 16 * 1024
_TAIL_CHUNK = 16 * 1024


@dataclass(frozen=True)
class ClosedEntry:
    """One closed record in the list (docs/guide/records.md)."""

    id: str
    version: int
    title: str | None
    opened_at: int | None
    ended_at: int | None


@dataclass(frozen=True)
class OpenEntry:
    """An open record in the list, with the lane whose file holds it."""

    id: str
    title: str
    opened_at: int | None
    lane: int = 1


def open_identity(parsed_rows: list[dict[str, Any]]) -> tuple[str | None, str | None, int | None]:
    """(title, id, opened at) of the first accepted start row, or Nones."""
    for row in parsed_rows:
        if is_accepted(row, "record_start"):
            return start_identity(row)
    return None, None, None


def read_open_head(path: Path, lane: int) -> OpenEntry | None:
    """The open record's identity from its header and start row (re-read whole if odd)."""
    try:
        with open_regular_for_read(path) as handle:
            head = handle.read(_HEAD_CHUNK)
            whole = len(head) < _HEAD_CHUNK
            lines = head.split(b"\n", 2)
            if len(lines) >= 3 or (whole and len(lines) == 2):
                if header_version_of(lines[0]) != FORMAT_VERSION:
                    return None
                first = parse_row(lines[1])
                if first is not None and is_accepted(first, "record_start"):
                    title, record_id, opened_at = start_identity(first)
                    if title and record_id is not None and is_valid_record_id(record_id):
                        return OpenEntry(id=record_id, title=title, opened_at=opened_at, lane=lane)
            handle.seek(0)
            data = handle.read()
    except OSError:
        return None
    parsed = parse_lines(data)
    if parsed.header_version != FORMAT_VERSION:
        return None
    title, record_id, opened_at = open_identity(parsed.rows)
    if not title or record_id is None or not is_valid_record_id(record_id):
        return None
    return OpenEntry(id=record_id, title=title, opened_at=opened_at, lane=lane)


def summarize_closed_file(path: str, record_id: str) -> ClosedEntry | None:
    """A closed record's list entry, or None when it cannot be read or fails the gate.

    The usual record is summarized from its header, its first row (the start) and its last
    row (the end); anything unusual falls back to parsing every line.
    """
    try:
        with open_regular_for_read(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size <= _WHOLE_READ_LIMIT:
                head = tail = handle.read()
                tail_is_whole = True
            else:
                head = handle.read(_HEAD_CHUNK)
                handle.seek(size - _TAIL_CHUNK)
                tail = handle.read()
                tail_is_whole = False
            quick = _quick_summary(head, tail, tail_is_whole)
            if quick is None:
                handle.seek(0)
                data = handle.read()
    except OSError:
        return None
    if quick is not None:
        version, summary = quick
    else:
        parsed = parse_lines(data)
        if parsed.header_version is None:
            return None
        version, summary = parsed.header_version, summarize(parsed.rows)
    if version != FORMAT_VERSION:
        return None
    return ClosedEntry(
        id=record_id,
        version=version,
        title=summary.title,
        opened_at=summary.opened_at,
        ended_at=summary.ended_at,
    )


def _quick_summary(
    head: bytes, tail: bytes, tail_is_whole: bool
) -> tuple[int, RecordSummary] | None:
    """Summary from the first two and the last line, or None when the full scan is needed."""
    first_break = head.find(b"\n")
    if first_break < 0:
        return None
    version = header_version_of(head[:first_break])
    if version is None:
        return None
    if version != FORMAT_VERSION:
        return version, RecordSummary(None, None, None, None)
    second_break = head.find(b"\n", first_break + 1)
    if second_break < 0:
        return None
    start = parse_row(head[first_break + 1 : second_break])
    if start is None or not is_accepted(start, "record_start"):
        return None
    title, record_id, opened_at = start_identity(start)
    # The last line: a clean file ends with "\n", so the last row is before it.
    body = tail[:-1] if tail.endswith(b"\n") else tail
    last_break = body.rfind(b"\n")
    if last_break < 0 and not tail_is_whole:
        return None
    last = parse_row(body[last_break + 1 :])
    if last is None or not is_accepted(last, "record_end"):
        return None  # torn tail or no closing row: 7.5's rule needs every row
    return version, RecordSummary(
        title=title, opened_at=opened_at, ended_at=row_time(last), record_id=record_id
    )
