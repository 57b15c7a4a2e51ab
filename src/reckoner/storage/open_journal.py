"""The open journal: one engine's write side on its lane's open record file.

The open tier (docs/guide/records.md) is ``open-record.jsonl`` for the first lane and
``open/lane-<n>.jsonl`` for the others. ``OpenRecordJournal`` is the only writer of those
files and the only code that moves a record into ``records/``: it recovers the file at
start, starts a record with an atomic replace, appends each row with one ``write`` (fsynced
when asked) and closes by giving the file its closed name without ever replacing another.
Each step either happens whole or leaves the files as they were (issue 8).
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reckoner.storage.home import HomeLayout
from reckoner.storage.home_lock import home_wide
from reckoner.storage.record_format import (
    FORMAT_VERSION,
    ParsedRecord,
    encode_plain_row,
    encode_row,
    header_line,
    is_valid_record_id,
    parse_lines,
)
from reckoner.storage.record_summaries import open_identity
from reckoner.storage.regular_files import (
    NotARegularFileError,
    fsync_directory,
    open_regular,
    read_bytes,
)

# Errors of ``os.link`` that mean "this file system has no hard links", not "name taken".
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS})


@dataclass(frozen=True)
class RecoveredRecord:
    """An open record resumed at start (docs/guide/records.md)."""

    record_id: str
    title: str
    rows: list[dict[str, Any]]
    last_seq: int


def _utc_stamp() -> str:
    now = time.time()
    millis = int(now * 1000) % 1000
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f".{millis:03d}Z"


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

        Never raises: recovery can never keep the engine from opening (docs/guide/records.md).
        """
        self._sweep_unfinished_starts()
        data = self._read_open_file()
        if data is None:
            return None
        # Every row is written with its newline in one write, so a last line without one is
        # a write that never finished and was never acknowledged, even when it parses: it is
        # dropped, and cut off the file before anything follows it (issue 8).
        whole = data.rfind(b"\n") + 1
        parsed = parse_lines(data[:whole])
        identity = self._identity_or_discard(parsed)
        if identity is None:
            return None
        title, record_id = identity
        if self._finished_half_close(record_id):
            return None
        if parsed.dropped:
            self.notes.append(
                f"the open record {record_id} had {parsed.dropped} line(s) that do not parse; "
                "they were skipped"
            )
        self._resume(record_id, whole, len(data))
        if _ends_with_accepted_end(parsed.rows) and self._finish_close(record_id):
            return None
        return RecoveredRecord(
            record_id=record_id, title=title, rows=parsed.rows, last_seq=_last_seq(parsed.rows)
        )

    def _read_open_file(self) -> bytes | None:
        """The open file's bytes; None when there is none, or it was refused or unreadable."""
        path = self.layout.open_record
        try:
            return read_bytes(path)
        except FileNotFoundError:
            return None
        except NotARegularFileError:
            self._discard("it is not a regular file (a FIFO, a device or a symbolic link)")
            return None
        except OSError as error:
            self.notes.append(f"the open record {path} cannot be read ({error}); left in place")
            return None

    def _identity_or_discard(self, parsed: ParsedRecord) -> tuple[str, str] | None:
        """The (title, record id) of a file this build can resume; else it is moved aside."""
        if parsed.header_version is None:
            self._discard("it has no header line")
            return None
        if parsed.header_version != FORMAT_VERSION:
            self._discard(
                f"its version {parsed.header_version} is not this build's {FORMAT_VERSION}"
            )
            return None
        title, record_id, _ = open_identity(parsed.rows)
        if not title or record_id is None:
            self._discard("its start row carries no title or no record id")
            return None
        if not is_valid_record_id(record_id):
            self._discard(f"its record id {record_id!r} is not a valid identifier")
            return None
        return title, record_id

    def _finished_half_close(self, record_id: str) -> bool:
        """True when the open file is already a closed record's second name (a close that
        linked the closed name and was killed before removing this one): drop this name."""
        path = self.layout.open_record
        closed_twin = self._closed_twin(path, record_id)
        if closed_twin is None:
            return False
        try:
            os.unlink(path)
        except OSError as error:
            self.notes.append(f"the closed record {closed_twin} is still open too ({error})")
            return True
        self.notes.append(f"a close cut short was finished: the record is {closed_twin}")
        return True

    def _resume(self, record_id: str, whole: int, length: int) -> None:
        """Own the open file from here, its acknowledged rows ending at byte ``whole``."""
        with self._lock:
            self._size = whole
            self._torn = whole < length
            self._active = True
            if self._torn:
                self.notes.append(
                    f"the open record {record_id} ended in a row cut short "
                    f"({length - whole} bytes); it was dropped"
                )
                with contextlib.suppress(OSError):  # else the first append cuts it
                    self._cut_back_locked(self._reopen_locked())

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
                fsync_directory(self.layout.records_dir)
                fsync_directory(self.layout.open_record.parent)
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
            fsync_directory(discarded)
            fsync_directory(source.parent)
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
                    fsync_directory(self._temp_dir)
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

    def append(self, row: dict[str, Any], *, plain: bool = False) -> None:
        """Append one row with one ``write``; raise OSError, file unchanged, when it fails.
        ``plain``: the row's doubles are in the stored spelling already (see wire)."""
        line = encode_plain_row(row) if plain else encode_row(row)
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
        fd = open_regular(self.layout.open_record, os.O_WRONLY | os.O_APPEND)
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
                    fsync_directory(self.layout.records_dir)
                    fsync_directory(self.layout.open_record.parent)
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


def _last_seq(rows: list[dict[str, Any]]) -> int:
    """The sequence number of the last row that carries one; 0 when none does."""
    for row in reversed(rows):
        seq = row.get("seq")
        if type(seq) is int:
            return seq
    return 0


def _ends_with_accepted_end(rows: list[dict[str, Any]]) -> bool:
    """True when the last accepted row of a record is its ``record_end`` (docs/guide/records.md)."""
    for row in reversed(rows):
        if row.get("ok") is True:
            return bool(row.get("tool") == "record_end")
    return False
