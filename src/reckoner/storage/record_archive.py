"""The record archive: the lock-free read side of every record file, open and closed.

``RecordArchive`` lists the records (closed newest first, the open ones in lane order, the
unreadable ids), reads one, answers validators for a poll (an ETag from ``stat`` alone) and
deletes a closed record. The panel, the CLI and the articles share it; it never takes a
lane's lock, so it reads while engines write (docs/guide/records.md).
"""

from __future__ import annotations

import enum
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reckoner.storage.home import HomeLayout
from reckoner.storage.record_format import (
    FORMAT_VERSION,
    is_valid_record_id,
    parse_lines,
    record_id_sort_key,
    summarize,
)
from reckoner.storage.record_summaries import (
    ClosedEntry,
    OpenEntry,
    read_open_head,
    summarize_closed_file,
)
from reckoner.storage.regular_files import read_bytes, regular_stat

# Directory modification times are coarse (a kernel tick, a few ms), so a change made in the
# same tick as a scan leaves the time unchanged. A cache built while the directory's time was
# this close to "now" is not trusted (the "racy" rule git uses for its index).
_RACY_WINDOW_NS = 100_000_000


@dataclass(frozen=True)
class RecordIndex:
    """The record list: closed records newest first, the open ones, unreadable ids.

    ``open`` is the first of ``open_records`` (lane order), kept for single-engine readers.
    """

    closed: list[ClosedEntry]
    open: OpenEntry | None
    unreadable: list[str]
    open_records: list[OpenEntry] = field(default_factory=list)


@dataclass(frozen=True)
class RecordView:
    """One record's identity and its rows (header excluded)."""

    id: str
    title: str | None
    version: int
    opened_at: int | None
    ended_at: int | None
    is_open: bool
    rows: list[dict[str, Any]]


class DeleteOutcome(enum.Enum):
    """What ``RecordArchive.delete`` did."""

    DELETED = "deleted"
    IS_OPEN = "is_open"
    MISSING = "missing"
    INVALID_ID = "invalid_id"


class RecordArchive:
    """Read side of the records: list, read, fingerprint, delete. Lock-free across processes."""

    def __init__(self, layout: HomeLayout) -> None:
        self.layout = layout
        self._lock = threading.Lock()
        self._closed_key: tuple[int, int, int] | None = None
        self._closed: list[ClosedEntry] = []
        self._unreadable: list[str] = []
        # Per open-record file: the stat it was read at and what it held.
        self._open_cache: dict[Path, tuple[tuple[int, int, int, int], OpenEntry | None]] = {}

    # -- ids -----------------------------------------------------------------------

    def is_taken(self, record_id: str) -> bool:
        """True when ``records/<id>.jsonl`` exists."""
        if not is_valid_record_id(record_id):
            return False
        return os.path.lexists(self.layout.record_file(record_id))

    def allocate_id(self, now_ms: int) -> str:
        """The clock in ms; ``-2``, ``-3`` ... appended while taken (docs/guide/records.md)."""
        open_ids = {entry.id for entry in self.open_entries()}
        base = str(now_ms)
        candidate = base
        counter = 2
        while candidate in open_ids or self.is_taken(candidate):
            candidate = f"{base}-{counter}"
            counter += 1
        return candidate

    # -- the list ------------------------------------------------------------------

    def index(self) -> RecordIndex:
        """Closed records newest first, the open records in lane order, the unreadable ids."""
        with self._lock:
            self._refresh_closed()
            closed = list(self._closed)
            unreadable = list(self._unreadable)
        opened = self.open_entries()
        return RecordIndex(
            closed=closed,
            open=opened[0] if opened else None,
            unreadable=unreadable,
            open_records=opened,
        )

    def index_json(self) -> dict[str, Any]:
        """The list as the panel's JSON body."""
        listing = self.index()
        opened = [
            {
                "id": entry.id,
                "title": entry.title,
                "openedAt": entry.opened_at,
                "lane": entry.lane,
            }
            for entry in listing.open_records
        ]
        return {
            "closed": [
                {
                    "id": entry.id,
                    "version": entry.version,
                    "title": entry.title,
                    "openedAt": entry.opened_at,
                    "endedAt": entry.ended_at,
                }
                for entry in listing.closed
            ],
            # "open" is the first open record, for readers that know of one engine per home.
            "open": opened[0] if opened else None,
            "openRecords": opened,
            "unreadable": listing.unreadable,
        }

    def _directory_key(self) -> tuple[int, int, int] | None:
        try:
            info = os.stat(self.layout.records_dir)
        except OSError:
            return None
        return info.st_dev, info.st_ino, info.st_mtime_ns

    def _refresh_closed(self) -> None:
        key = self._directory_key()
        if key is not None and key == self._closed_key:
            return
        scan_started = time.time_ns()
        closed, unreadable = self._scan_closed()
        self._closed = closed
        self._unreadable = unreadable
        # Trust the cache only when the directory had settled before the scan began.
        racy = key is None or key[2] >= scan_started - _RACY_WINDOW_NS
        self._closed_key = None if racy else key

    def _scan_closed(self) -> tuple[list[ClosedEntry], list[str]]:
        closed: list[ClosedEntry] = []
        unreadable: list[str] = []
        try:
            listing = os.scandir(self.layout.records_dir)
        except OSError:
            return closed, unreadable
        with listing:
            for item in listing:
                name = item.name
                if not name.endswith(".jsonl"):
                    continue
                record_id = name[: -len(".jsonl")]
                if not is_valid_record_id(record_id):
                    continue  # not a record file (a stray name never becomes an id)
                entry = summarize_closed_file(item.path, record_id)
                if entry is None:
                    unreadable.append(record_id)
                else:
                    closed.append(entry)
        closed.sort(
            key=lambda entry: (
                entry.opened_at if entry.opened_at is not None else -1,
                record_id_sort_key(entry.id),
            ),
            reverse=True,
        )
        unreadable.sort(key=record_id_sort_key)
        return closed, unreadable

    def open_entry(self) -> OpenEntry | None:
        """The first open record in lane order (the only one while one engine runs)."""
        opened = self.open_entries()
        return opened[0] if opened else None

    def open_entries(self) -> list[OpenEntry]:
        """Every open record of every lane, in lane order; each cached on its file's stat."""
        entries = []
        seen: set[Path] = set()
        for lane, path in self.layout.open_record_files():
            seen.add(path)
            entry = self._open_file_entry(lane, path)
            if entry is not None:
                entries.append(entry)
        with self._lock:
            for gone in self._open_cache.keys() - seen:
                del self._open_cache[gone]
        return entries

    def _open_file_entry(self, lane: int, path: Path) -> OpenEntry | None:
        info = regular_stat(path)
        if info is None:
            return None
        key = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)
        with self._lock:
            cached = self._open_cache.get(path)
            if cached is not None and cached[0] == key:
                return cached[1]
        entry = read_open_head(path, lane)
        with self._lock:
            self._open_cache[path] = (key, entry)
        return entry

    def _open_path(self, entry: OpenEntry) -> Path:
        return self.layout.for_lane(entry.lane).open_record

    def _open_with_id(self, record_id: str) -> OpenEntry | None:
        for entry in self.open_entries():
            if entry.id == record_id:
                return entry
        return None

    # -- one record ----------------------------------------------------------------

    def read(self, record_id: str) -> RecordView | None:
        """One record, open or closed; None when missing, invalid or unreadable."""
        if not is_valid_record_id(record_id):
            return None
        open_entry = self._open_with_id(record_id)
        if open_entry is not None:
            view = self._read_file(self._open_path(open_entry), record_id, is_open=True)
            if view is not None:
                return view
            # Closed between the stat and the read: it is now under records/.
        return self._read_file(self.layout.record_file(record_id), record_id, is_open=False)

    @staticmethod
    def _read_file(path: Path, record_id: str, *, is_open: bool) -> RecordView | None:
        try:
            data = read_bytes(path)
        except OSError:
            return None
        parsed = parse_lines(data)
        if parsed.header_version != FORMAT_VERSION:
            return None
        summary = summarize(parsed.rows, is_open=is_open)
        if is_open and summary.record_id != record_id:
            return None  # the open file now holds another record
        return RecordView(
            id=record_id,
            title=summary.title,
            version=parsed.header_version,
            opened_at=summary.opened_at,
            ended_at=summary.ended_at,
            is_open=is_open,
            rows=parsed.rows,
        )

    def read_json(self, record_id: str) -> dict[str, Any] | None:
        """One record as the panel's JSON body."""
        view = self.read(record_id)
        if view is None:
            return None
        return {
            "id": view.id,
            "title": view.title,
            "version": view.version,
            "openedAt": view.opened_at,
            "endedAt": view.ended_at,
            "open": view.is_open,
            "rows": view.rows,
        }

    # -- validators ----------------------------------------------------------------

    def fingerprint(self, record_id: str) -> str | None:
        """A validator of one record from ``stat`` alone (an ETag); None when missing."""
        if not is_valid_record_id(record_id):
            return None
        info = regular_stat(self.layout.record_file(record_id))
        if info is not None:
            return f"c-{info.st_ino:x}-{info.st_mtime_ns:x}-{info.st_size:x}"
        # Each open id is cached on its file's stat, so an unchanged poll reads nothing.
        open_entry = self._open_with_id(record_id)
        if open_entry is None:
            return None
        info = regular_stat(self._open_path(open_entry))
        if info is None:
            return None
        return f"o-{info.st_ino:x}-{info.st_mtime_ns:x}-{info.st_size:x}"

    def index_fingerprint(self) -> str:
        """A validator of the whole list from the stats of ``records/`` and the open files."""
        parts = []
        open_files = [path for _, path in self.layout.open_record_files()]
        for path in (self.layout.records_dir, *open_files):
            try:
                info = os.stat(path)
            except OSError:
                parts.append("-")
                continue
            parts.append(f"{info.st_ino:x}.{info.st_mtime_ns:x}.{info.st_size:x}")
            if path == self.layout.records_dir and (
                info.st_mtime_ns >= time.time_ns() - _RACY_WINDOW_NS
            ):
                # The directory changed within a tick: its time may not move on the next
                # change, so make this validator unique rather than risk a stale list.
                parts.append(f"r{time.time_ns():x}")
        return "-".join(parts)

    # -- deleting ------------------------------------------------------------------

    def delete(self, record_id: str) -> DeleteOutcome:
        """Delete a closed record; the open one is refused, an invalid id touches nothing."""
        if not is_valid_record_id(record_id):
            return DeleteOutcome.INVALID_ID
        if self._open_with_id(record_id) is not None:
            return DeleteOutcome.IS_OPEN
        path = self.layout.record_file(record_id)
        try:
            os.unlink(path)
        except FileNotFoundError:
            return DeleteOutcome.MISSING
        except IsADirectoryError:
            return DeleteOutcome.MISSING
        with self._lock:
            self._closed_key = None
        return DeleteOutcome.DELETED
