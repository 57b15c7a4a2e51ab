"""The record file format (docs/guide/records.md), as bytes in and rows out. No I/O here.

A record file is a header line ``{"seq":0,"version":1}`` followed by one compact JSON
object per line. A line that does not parse as an object is dropped on its own, so a torn
last line from a crash costs only that line. A line holding an escaped lone surrogate
(``"\\ud800"``, as the reference implementation writes such text) is read by ``wire``'s
second reader, since orjson refuses it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from reckoner import wire
from reckoner.host.collector import collector_paused

FORMAT_VERSION = 1

RECORD_ID_PATTERN = re.compile(r"^[0-9]{1,20}(-[0-9]{1,9})?$")

_HEADER_LINE = wire.dumps({"seq": 0, "version": FORMAT_VERSION}) + b"\n"


def header_line() -> bytes:
    """The first line of every record file this build writes."""
    return _HEADER_LINE


# One trace row as one compact, newline-terminated line.
encode_row: Callable[[Mapping[str, Any]], bytes] = wire.dumps_line
# The same line for a row whose doubles its writer holds in the stored spelling already.
encode_plain_row: Callable[[Mapping[str, Any]], bytes] = wire.dumps_plain_line


def is_valid_record_id(record_id: object) -> bool:
    """True when ``record_id`` may name a record file (checked before it touches a path)."""
    # fullmatch, because ``$`` would also accept a trailing newline.
    return isinstance(record_id, str) and RECORD_ID_PATTERN.fullmatch(record_id) is not None


def record_id_sort_key(record_id: str) -> tuple[int, int]:
    """Order ids numerically: ``1700`` < ``1700-2`` < ``1700-10`` < ``1701``."""
    base, _, suffix = record_id.partition("-")
    return int(base), int(suffix) if suffix else 1


@dataclass(frozen=True)
class ParsedRecord:
    """What ``parse_lines`` found in a record file's bytes."""

    header_version: int | None
    rows: list[dict[str, Any]]
    ends_cleanly: bool
    dropped: int


@dataclass(frozen=True)
class RecordSummary:
    """A record's identity and span, taken from its rows (docs/guide/records.md)."""

    title: str | None
    opened_at: int | None
    ended_at: int | None
    record_id: str | None


def header_version_of(line: bytes) -> int | None:
    """The version a header line carries, or None when the line is not a header."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        value = wire.loads_escaped_surrogates(line)
    if type(value) is not dict or value.get("seq") != 0 or type(value.get("seq")) is not int:
        return None
    version = value.get("version")
    return version if type(version) is int else None


def parse_row(line: bytes) -> dict[str, Any] | None:
    """One line as a row, or None when it is not a JSON object."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        value = wire.loads_escaped_surrogates(line)
    return value if type(value) is dict else None


def parse_lines(data: bytes) -> ParsedRecord:
    """Split a record file into its header version and the rows that parse."""
    if not data:
        return ParsedRecord(header_version=None, rows=[], ends_cleanly=True, dropped=0)
    ends_cleanly = data.endswith(b"\n")
    lines = data.split(b"\n")
    if ends_cleanly:
        lines.pop()
    header_version = header_version_of(lines[0])
    first_row = 0 if header_version is None else 1
    rows: list[dict[str, Any]] = []
    keep = rows.append
    # The hot loop of a replay: orjson directly, no per-line helper call.
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    dropped = 0
    # Parsed JSON holds no reference cycles, yet a million new dicts trigger collector passes
    # over the whole growing heap; pausing the collector for the loop halves a large replay.
    with collector_paused():
        for line in lines[first_row:]:
            try:
                value = loads(line)
            except decode_error:
                value = wire.loads_escaped_surrogates(line)
                if wire.is_unreadable(value):
                    if line.strip():
                        dropped += 1
                    continue
            if type(value) is dict:
                keep(value)
            else:
                dropped += 1
    return ParsedRecord(
        header_version=header_version, rows=rows, ends_cleanly=ends_cleanly, dropped=dropped
    )


def is_accepted(row: Mapping[str, Any], tool: str) -> bool:
    """True for a row of ``tool`` whose call succeeded (``ok`` is exactly true)."""
    return row.get("tool") == tool and row.get("ok") is True


def start_identity(row: Mapping[str, Any]) -> tuple[str | None, str | None, int | None]:
    """(title, record id, opened at) of an accepted ``record_start`` row's fields."""
    content = row.get("content")
    title = record_id = None
    if isinstance(content, dict):
        if isinstance(content.get("title"), str):
            title = content["title"]
        if isinstance(content.get("record"), str):
            record_id = content["record"]
    return title, record_id, row_time(row)


def row_time(row: Mapping[str, Any]) -> int | None:
    """A row's ``at`` when it is a whole number of milliseconds."""
    at = row.get("at")
    if type(at) is int:
        return at
    if type(at) is float and at.is_integer():
        return int(at)
    return None


def summarize(rows: Sequence[Mapping[str, Any]], *, is_open: bool = False) -> RecordSummary:
    """Title, id and opening from the first accepted start row; the end as 7.5 says.

    The end is the last accepted ``record_end`` row's time, else the last row's time; an
    open record has not ended, so its end is None.
    """
    # The start is near the head of a record and its end at the tail: each is looked for
    # from its own side, so a long record is not walked row by row on every read.
    title = record_id = None
    opened_at = None
    for row in rows:
        if row.get("ok") is True and row.get("tool") == "record_start":
            title, record_id, opened_at = start_identity(row)
            break
    ended_at = None
    if not is_open and rows:
        for row in reversed(rows):
            if row.get("ok") is True and row.get("tool") == "record_end":
                ended_at = row_time(row)
                break
        if ended_at is None:
            ended_at = row_time(rows[-1])
    return RecordSummary(title=title, opened_at=opened_at, ended_at=ended_at, record_id=record_id)
