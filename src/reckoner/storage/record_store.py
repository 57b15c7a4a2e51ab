"""The record files: the only module that opens, writes, renames or deletes them.

Two tiers (manual 7.3): unclosed records in ``open-record.jsonl`` and in the further
lanes' ``open/lane-<n>.jsonl`` (one per engine sharing the home), closed records in
``records/<id>.jsonl``. ``OpenRecordJournal`` is one engine's write side on its lane
(recovery, start, append, close); ``RecordArchive`` is the lock-free read side of every
lane that the panel and the CLI share.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import os
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reckoner.storage.home import HomeLayout
from reckoner.storage.home_lock import home_wide
from reckoner.storage.record_format import (
    FORMAT_VERSION,
    RecordSummary,
    encode_row,
    header_line,
    header_version_of,
    is_accepted,
    is_valid_record_id,
    parse_lines,
    parse_row,
    record_id_sort_key,
    row_time,
    start_identity,
    summarize,
)

# A file up to this size is read whole; a larger one only at its head and its tail.
_WHOLE_READ_LIMIT = 64 * 1024
_HEAD_CHUNK = 16 * 1024
_TAIL_CHUNK = 16 * 1024

# Directory modification times are coarse (a kernel tick, a few ms), so a change made in the
# same tick as a scan leaves the time unchanged. A cache built while the directory's time was
# this close to "now" is not trusted (the "racy" rule git uses for its index).
_RACY_WINDOW_NS = 100_000_000

# Errors of ``os.link`` that mean "this file system has no hard links", not "name taken".
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS})


# ---------------------------------------------------------------------------------------
# Value types shared with the engine and the panel


@dataclass(frozen=True)
class RecoveredRecord:
    """An open record resumed at start (manual 7.4)."""

    record_id: str
    title: str
    rows: list[dict[str, Any]]
    last_seq: int


@dataclass(frozen=True)
class ClosedEntry:
    """One closed record in the list (manual 7.5)."""

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


# ---------------------------------------------------------------------------------------
# Small file helpers


class NotARegularFileError(OSError):
    """A record path names a FIFO, a device, a directory or a symlink: never read or followed."""


# A record path is opened without following a symlink and without waiting on a FIFO's writer.
_SAFE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _open_regular(path: str | Path, flags: int = os.O_RDONLY) -> int:
    """A descriptor on ``path`` when it is a regular file; raise OSError otherwise (issue 8)."""
    try:
        fd = os.open(path, flags | _SAFE_FLAGS)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotARegularFileError(
                errno.ELOOP, "a symbolic link, which is never followed", str(path)
            ) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "a directory", str(path))
        raise NotARegularFileError(errno.EINVAL, "not a regular file", str(path))
    return fd


def _open_regular_for_read(path: str | Path) -> Any:
    return open(_open_regular(path), "rb")


def _regular_stat(path: Path) -> os.stat_result | None:
    """The file's own stat when it is a regular file (a symlink is not followed), else None."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def _read_bytes(path: Path) -> bytes:
    with _open_regular_for_read(path) as handle:
        data: bytes = handle.read()
        return data


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _utc_stamp() -> str:
    now = time.time()
    millis = int(now * 1000) % 1000
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f".{millis:03d}Z"


def _open_identity(parsed_rows: list[dict[str, Any]]) -> tuple[str | None, str | None, int | None]:
    """(title, id, opened at) of the first accepted start row, or Nones."""
    for row in parsed_rows:
        if is_accepted(row, "record_start"):
            return start_identity(row)
    return None, None, None


# ---------------------------------------------------------------------------------------
# The write side


class OpenRecordJournal:
    """One engine's handle on its lane's open record: recover, start, append, close.

    ``layout`` names the lane (``layout.open_record``); the caller holds that lane's lock.

    Each step either happens whole or leaves the files as they were (issue 8): a failed
    append is cut back to the last acknowledged byte, a failed start leaves no open file, and
    a failed close leaves the record open and ours. Every failure is raised as ``OSError``.
    """

    def __init__(self, layout: HomeLayout, fsync: bool = False) -> None:
        self.layout = layout
        self.fsync = fsync
        self.notes: list[str] = []
        self._handle: Any = None  # a raw, unbuffered FileIO held open between appends
        self._active = False  # the open file is ours: recovered or started by this journal
        self._size = 0  # bytes of the open file that hold acknowledged rows
        self._torn = False  # bytes past _size may be on disk: cut them before the next write
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """The acknowledged length of the open file: a mark for ``retract``."""
        return self._size

    # -- recovery ------------------------------------------------------------------

    def recover(self) -> RecoveredRecord | None:
        """Resume the open record, or move a bad one into ``discarded/`` and return None.

        Never raises: recovery can never keep the engine from opening (manual 7.4).
        """
        self._sweep_unfinished_starts()
        path = self.layout.open_record
        try:
            data = _read_bytes(path)
        except FileNotFoundError:
            return None
        except NotARegularFileError:
            self._discard("it is not a regular file (a FIFO, a device or a symbolic link)")
            return None
        except OSError as error:
            self.notes.append(f"the open record {path} cannot be read ({error}); left in place")
            return None
        # Every row is written with its newline in one write, so a last line without one is
        # a write that never finished and was never acknowledged, even when it parses: it is
        # dropped, and cut off the file before anything follows it (issue 8).
        whole = data.rfind(b"\n") + 1
        parsed = parse_lines(data[:whole])
        if parsed.header_version is None:
            self._discard("it has no header line")
            return None
        if parsed.header_version != FORMAT_VERSION:
            self._discard(
                f"its version {parsed.header_version} is not this build's {FORMAT_VERSION}"
            )
            return None
        title, record_id, _ = _open_identity(parsed.rows)
        if not title or record_id is None:
            self._discard("its start row carries no title or no record id")
            return None
        if not is_valid_record_id(record_id):
            self._discard(f"its record id {record_id!r} is not a valid identifier")
            return None
        closed_twin = self._closed_twin(path, record_id)
        if closed_twin is not None:
            # A close that linked the closed name and was killed before removing this one.
            try:
                os.unlink(path)
            except OSError as error:
                self.notes.append(f"the closed record {closed_twin} is still open too ({error})")
                return None
            self.notes.append(f"a close cut short was finished: the record is {closed_twin}")
            return None
        last_seq = 0
        for row in reversed(parsed.rows):
            seq = row.get("seq")
            if type(seq) is int:
                last_seq = seq
                break
        if parsed.dropped:
            self.notes.append(
                f"the open record {record_id} had {parsed.dropped} line(s) that do not parse; "
                "they were skipped"
            )
        with self._lock:
            self._size = whole
            self._torn = whole < len(data)
            self._active = True
            if self._torn:
                self.notes.append(
                    f"the open record {record_id} ended in a row cut short "
                    f"({len(data) - whole} bytes); it was dropped"
                )
                with contextlib.suppress(OSError):  # else the first append cuts it
                    self._cut_back_locked(self._reopen_locked())
        if _ends_with_accepted_end(parsed.rows) and self._finish_close(record_id):
            return None
        return RecoveredRecord(
            record_id=record_id, title=title, rows=parsed.rows, last_seq=last_seq
        )

    def _closed_twin(self, path: Path, record_id: str) -> Path | None:
        """The closed file that is this very open file (a second name on one inode), if any."""
        try:
            info = os.stat(path)
            if info.st_nlink < 2:
                return None
            base = record_id.partition("-")[0]
            for candidate in self.layout.records_dir.glob(f"{base}*.jsonl"):
                if os.path.samestat(info, os.stat(candidate)):
                    return candidate
        except OSError:
            return None
        return None

    def _finish_close(self, record_id: str) -> bool:
        """Close a record whose end row was written before a kill stopped the rename (issue 8)."""
        try:
            self.layout.records_dir.mkdir(exist_ok=True)
            # Never over another file: a name taken meanwhile moves the record to the next id.
            target = self._claim_closed_name(record_id)
        except OSError as error:
            self.notes.append(
                f"the open record {record_id} holds its record_end row, but its close could not "
                f"be finished ({error}); resumed as open"
            )
            return False
        if self.fsync:
            try:
                _fsync_directory(self.layout.records_dir)
                _fsync_directory(self.layout.open_record.parent)
            except OSError as error:
                # The rename is done, so the record is closed; only its durability is unsure.
                self.notes.append(f"the finished close of {record_id} was not fsynced ({error})")
        with self._lock:
            self._close_handle_locked()
            self._active = False
            self._size = 0
            self._torn = False
        self.notes.append(
            f"the open record {record_id} already held its accepted record_end row; its close "
            f"was finished into {target}"
        )
        return True

    def _discard(self, why: str) -> None:
        try:
            target = self._move_aside()
        except OSError as error:
            self.notes.append(
                f"the open record was refused because {why}, and could not be moved aside "
                f"({error}); left in place"
            )
            return None
        self.notes.append(f"the open record was refused because {why}; moved to {target}")
        return None

    def _sweep_unfinished_starts(self) -> None:
        """Move aside the temp file of a ``start()`` a crash cut short (its call never answered)."""
        try:
            leftovers = sorted(self._temp_dir.glob(f"{self._temp_prefix}*.tmp"))
        except OSError:
            return
        for leftover in leftovers:
            try:
                target = self._move_aside(leftover, "unfinished-start")
            except OSError as error:
                self.notes.append(f"the unfinished start {leftover} could not be moved ({error})")
                continue
            self.notes.append(f"an unfinished record start was moved to {target}")

    @property
    def _temp_dir(self) -> Path:
        return self.layout.open_record.parent

    @property
    def _temp_prefix(self) -> str:
        # Lane-specific, so one lane's recovery never sweeps another lane's start under way.
        return f".{self.layout.open_record.stem}."

    def _move_aside(self, source: Path | None = None, label: str | None = None) -> Path:
        """Rename a file (the open one by default) into ``discarded/`` under an unused name."""
        source = source or self.layout.open_record
        label = label or self.layout.open_record.stem
        discarded = self.layout.discarded_dir
        discarded.mkdir(exist_ok=True)
        stamp = _utc_stamp()
        target = discarded / f"{stamp}-{label}.jsonl"
        counter = 2
        while target.exists():
            target = discarded / f"{stamp}-{counter}-{label}.jsonl"
            counter += 1
        os.rename(source, target)
        if self.fsync:
            _fsync_directory(discarded)
            _fsync_directory(source.parent)
        return target

    # -- writing -------------------------------------------------------------------

    def start(self, record_id: str, first_row: dict[str, Any]) -> None:
        """Write ``open-record.jsonl`` afresh: header and first row, replaced atomically."""
        if not is_valid_record_id(record_id):
            raise ValueError(f"record id {record_id!r} is not a valid identifier")
        data = header_line() + encode_row(first_row)
        with self._lock:
            self._close_handle_locked()
            self._temp_dir.mkdir(exist_ok=True)  # open/ for lanes 2 and up
            temp = self._temp_dir / f"{self._temp_prefix}{os.getpid()}.{time.time_ns()}.tmp"
            fd = os.open(
                temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o644
            )
            handle = open(fd, "ab", buffering=0)  # noqa: SIM115 - held open across appends
            try:
                self._write_all(handle, data)
                if self.fsync:
                    os.fsync(handle.fileno())
                if not self._active and os.path.lexists(self.layout.open_record):
                    # A file we did not recover (unreadable at start): keep it, never
                    # overwrite it. Moved only once the new file is whole.
                    target = self._move_aside()
                    self.notes.append(f"an unrecovered open record was moved to {target}")
                os.replace(temp, self.layout.open_record)
            except BaseException:
                handle.close()
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
            if self.fsync:
                try:
                    _fsync_directory(self._temp_dir)
                except BaseException:
                    # The start is not durable, so it did not happen: take the file back.
                    handle.close()
                    with contextlib.suppress(OSError):
                        os.unlink(self.layout.open_record)
                    raise
            # The descriptor still names the renamed inode, so appends continue in place.
            self._handle = handle
            self._size = len(data)
            self._torn = False
            self._active = True

    def append(self, row: dict[str, Any]) -> None:
        """Append one row with one ``write``; raise OSError, file unchanged, when it fails."""
        line = encode_row(row)
        size = len(line)
        with self._lock:
            handle = self._handle or self._reopen_locked()
            if self._torn:
                self._cut_back_locked(handle)
            try:
                # One write() per row; a short write (a full disk) is finished or reported.
                written = handle.write(line)
                if written != size:
                    self._write_all(handle, line[written or 0 :])
                if self.fsync:
                    os.fsync(handle.fileno())
            except BaseException:
                # Part of the row may be on disk: cut it off now, or before the next write.
                self._torn = True
                with contextlib.suppress(OSError):
                    self._cut_back_locked(handle)
                raise
            self._size += size

    def retract(self, mark: int) -> None:
        """Take back the rows appended since ``size`` read ``mark`` (a close that failed)."""
        with self._lock:
            if mark >= self._size:
                return
            self._size = mark
            self._torn = True
            with contextlib.suppress(OSError):
                self._cut_back_locked(self._handle or self._reopen_locked())

    def _reopen_locked(self) -> Any:
        if not self._active:
            raise OSError(errno.ENOENT, "no open record to append to")
        fd = _open_regular(self.layout.open_record, os.O_WRONLY | os.O_APPEND)
        self._handle = open(fd, "ab", buffering=0)  # noqa: SIM115 - held open across appends
        return self._handle

    def _cut_back_locked(self, handle: Any) -> None:
        os.ftruncate(handle.fileno(), self._size)
        self._torn = False

    @staticmethod
    def _write_all(handle: Any, data: bytes) -> None:
        written = handle.write(data)
        # A regular file takes the whole buffer in one call; a short write means a full disk.
        while written is not None and written < len(data):
            more = handle.write(data[written:])
            if not more:
                raise OSError(errno.ENOSPC, "the disk accepted only part of a record row")
            written += more

    def claiming_ids(self) -> contextlib.AbstractContextManager[None]:
        """Hold the home-wide id lock: no other engine picks an id or starts a record meanwhile.

        Choosing an id and writing the open file that carries it happen inside it, so two
        engines starting in the same millisecond never open two records under one id.
        """
        return home_wide(self.layout.lanes_lock_file)

    def close_into(self, record_id: str) -> Path:
        """Move the open file to ``records/<id>.jsonl`` atomically, never over another file.

        When another process took that name first (an id claimed in the same millisecond by
        an engine that does not share the id lock), the record takes the next free id,
        ``<id>-2``, ``<id>-3`` ...; the path answered says which. On failure the record
        stays in the open tier and stays ours: appends and a later ``close_into`` continue it.
        """
        if not is_valid_record_id(record_id):
            raise ValueError(f"record id {record_id!r} is not a valid identifier")
        with self._lock:
            if self._torn:
                self._cut_back_locked(self._handle or self._reopen_locked())
            # The descriptor is kept until the rename is done: a failed close can then still
            # take its end row back on a home that just turned read-only.
            self.layout.records_dir.mkdir(exist_ok=True)
            target = self._claim_closed_name(record_id)
            if self.fsync:
                try:
                    _fsync_directory(self.layout.records_dir)
                    _fsync_directory(self.layout.open_record.parent)
                except OSError as error:
                    # Not durable, so not closed: put it back unless that fails too, in
                    # which case the rename stands and the record is closed after all.
                    try:
                        os.rename(target, self.layout.open_record)
                    except OSError:
                        pass
                    else:
                        raise error from None
            self._close_handle_locked()
            self._active = False
            self._size = 0
            self._torn = False
        return target

    def _claim_closed_name(self, record_id: str) -> Path:
        """Give the open file its closed name, failing over to the next id while one is taken.

        ``link`` fails with EEXIST instead of replacing, so two processes can never both own
        one name; the open name is removed only once the closed one exists. A kill between
        the two leaves both names on one file, which ``recover`` finishes.
        """
        source = self.layout.open_record
        base, _, suffix = record_id.partition("-")
        counter = int(suffix) if suffix else 1
        candidate = record_id
        while True:
            target = self.layout.record_file(candidate)
            try:
                os.link(source, target, follow_symlinks=False)
            except FileExistsError:
                counter += 1
                candidate = f"{base}-{counter}"
                continue
            except OSError as error:
                if error.errno not in _NO_HARD_LINKS:
                    raise
                # No hard links here (some network and FAT file systems): check, then rename.
                if os.path.lexists(target):
                    counter += 1
                    candidate = f"{base}-{counter}"
                    continue
                os.rename(source, target)
                return target
            try:
                os.unlink(source)
            except OSError:
                # Not closed after all: take the closed name back so the record stays open.
                with contextlib.suppress(OSError):
                    os.unlink(target)
                raise
            return target

    def close_handle(self) -> None:
        """Release the held descriptor (engine shutdown); the file stays open-tier."""
        with self._lock:
            self._close_handle_locked()

    def _close_handle_locked(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):
                handle.close()


def _ends_with_accepted_end(rows: list[dict[str, Any]]) -> bool:
    """True when the last accepted row of a record is its ``record_end`` (manual 7.4)."""
    for row in reversed(rows):
        if row.get("ok") is True:
            return bool(row.get("tool") == "record_end")
    return False


# ---------------------------------------------------------------------------------------
# The read side


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
        """The clock in ms; ``-2``, ``-3`` ... appended while taken (manual 7.1)."""
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
                entry = _summarize_closed_file(item.path, record_id)
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
        info = _regular_stat(path)
        if info is None:
            return None
        key = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)
        with self._lock:
            cached = self._open_cache.get(path)
            if cached is not None and cached[0] == key:
                return cached[1]
        entry = _read_open_head(path, lane)
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
            data = _read_bytes(path)
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
        info = _regular_stat(self.layout.record_file(record_id))
        if info is not None:
            return f"c-{info.st_ino:x}-{info.st_mtime_ns:x}-{info.st_size:x}"
        # Each open id is cached on its file's stat, so an unchanged poll reads nothing.
        open_entry = self._open_with_id(record_id)
        if open_entry is None:
            return None
        info = _regular_stat(self._open_path(open_entry))
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


# ---------------------------------------------------------------------------------------
# Summaries read from as little of a file as possible


def _read_open_head(path: Path, lane: int) -> OpenEntry | None:
    """The open record's identity from its header and start row (re-read whole if odd)."""
    try:
        with _open_regular_for_read(path) as handle:
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
    title, record_id, opened_at = _open_identity(parsed.rows)
    if not title or record_id is None or not is_valid_record_id(record_id):
        return None
    return OpenEntry(id=record_id, title=title, opened_at=opened_at, lane=lane)


def _summarize_closed_file(path: str, record_id: str) -> ClosedEntry | None:
    """A closed record's list entry, or None when it cannot be read or fails the gate.

    The usual record is summarized from its header, its first row (the start) and its last
    row (the end); anything unusual falls back to parsing every line.
    """
    try:
        with _open_regular_for_read(path) as handle:
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
