"""The lifecycle of a lane's record and of the engine on it: start, rows, end, and mount.

`RecordTrace` owns the open record: its id, title and last seq, the journal its rows go to,
and the rule that a row which cannot be written refuses its call (issue 8), with one
sentence naming the cause and the fix. `settle_state` is the engine's start on a home
(docs/guide/records.md).
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reckoner import wire
from reckoner.contract.refusal import Refusal
from reckoner.core import ErrorCode
from reckoner.storage.home import HomeLayout
from reckoner.storage.open_journal import OpenRecordJournal
from reckoner.storage.record_archive import RecordArchive
from reckoner.storage.run_log import RunLog
from reckoner.storage.state_file import StateFile

from .prose import ShownNumbers


@dataclass(slots=True)
class OpenRecord:
    """The record open on a lane, the rows of its preset tools (their contents), and the
    numbers its receipts showed."""

    record_id: str
    title: str
    seq: int
    fact_rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    shown: ShownNumbers = field(init=False)

    def __post_init__(self) -> None:
        self.shown = ShownNumbers(self.title, self.record_id)


class RecordTrace:
    """The open record of one lane and the journal its rows are appended to."""

    def __init__(
        self,
        home: Path,
        archive: RecordArchive,
        journal: OpenRecordJournal,
        log: RunLog,
        clock: Callable[[], int],
    ) -> None:
        self.home = home
        self.archive = archive
        self.journal = journal
        self.log = log
        self.clock = clock
        self.record: OpenRecord | None = None

    def append(self, tool: str, ok: bool, content: dict[str, Any], plain: bool = False) -> None:
        """One row of the open record; a row that cannot be written raises the refusal.
        ``plain``: every double of ``content`` is in the stored spelling already."""
        record = self.record
        assert record is not None
        seq = record.seq + 1
        row = {"seq": seq, "at": self.clock(), "tool": tool, "ok": ok, "content": content}
        try:
            self.journal.append(row, plain=plain)
        except wire.UnstorableText:
            raise  # the call is refused: a receipt is never answered without its row
        except (OSError, TypeError, ValueError) as error:
            # Against docs/guide/records.md, a row that cannot be written refuses its call (issue
            # 8): the
            # record is the product. The seq is not spent and the file is as it was.
            self.log.error("trace row not written", record=record.record_id, seq=seq, error=error)
            raise self.write_refusal("written", error) from None
        record.seq = seq
        record.shown.add(tool, ok, content)

    def append_refusal(self, tool: str, refusal: Refusal) -> None:
        """The row of a refused call: its code and its sentence."""
        self.append(tool, False, {"code": refusal.code.value, "error": refusal.sentence})

    def start(self, title: str) -> None:
        """Open a new record titled ``title``: its file holds its first row, or it is refused."""
        now = self.clock()
        with self.journal.claiming_ids():
            # The id is free of every closed and every open record, and stays so: no other
            # engine picks one until this record's file carries it.
            record_id = self.archive.allocate_id(now)
            row = {
                "seq": 1,
                "at": now,
                "tool": "record_start",
                "ok": True,
                "content": {"title": title, "record": record_id},
            }
            try:
                self.journal.start(record_id, row)
            except OSError as error:
                self.log.error("record file not written", record=record_id, error=error)
                raise self.write_refusal("started", error) from None
        self.record = OpenRecord(record_id, title, 1)
        self.log.info("record started", record=record_id)

    def end(self, content: dict[str, Any]) -> None:
        """Append the end row and close the record into the archive; on failure the end row
        is taken back and the record stays open and whole."""
        record = self.record
        assert record is not None
        mark = self.journal.size
        seq = record.seq
        self.append("record_end", True, content)
        try:
            # Never over another file: a name taken meanwhile moves the record to the next id.
            path = self.journal.close_into(record.record_id)
        except OSError as error:
            # Not closed, so the end row is taken back: the record stays open and whole.
            self.log.error("record file not closed", record=record.record_id, error=error)
            self.journal.retract(mark)
            record.seq = seq
            raise self.write_refusal("closed", error) from None
        self.log.info("record closed", record=record.record_id, path=str(path))
        if path.stem != record.record_id:
            self.log.warn(
                "record closed under the next free id: its own was taken by another file",
                record=record.record_id,
                closed_as=path.stem,
            )
        self.record = None

    def write_refusal(self, action: str, error: BaseException) -> Refusal:
        """The one sentence for a record file operation that failed, naming cause and fix."""
        cause, fix = _storage_cause(error, self.home)
        if action == "closed":
            outcome = "the record stays open and nothing was changed"
        else:
            outcome = "nothing was changed"
        return Refusal(
            ErrorCode.UNKNOWN_ERROR, f"the record could not be {action}: {cause}; {fix}; {outcome}"
        )


def settle_state(layout: HomeLayout, log: RunLog) -> None:
    """A new host run: fold an older build's flat keys in, and clear restartRequired."""
    state = StateFile(layout)
    try:
        if state.migrate_legacy():
            log.info("state.json migrated from an older build's flat keys")
        if state.restart_required():
            # The restart it asked for is this start; the marker is a fact about one run.
            state.set_restart_required(False)
            log.info("restartRequired cleared: this start is the restart")
    except OSError as error:
        log.warn("state.json not updated at start", error=error)


def _storage_cause(error: BaseException, home: Path) -> tuple[str, str]:
    """(what went wrong, what to do) for a failed record file operation."""
    code = error.errno if isinstance(error, OSError) else None
    if code in (errno.ENOSPC, errno.EDQUOT):
        return f"no space left on the device holding {home}", "free space and call again"
    if code == errno.EROFS:
        return (
            f"the file system holding {home} is read-only",
            "make it writable (remount it read-write) and call again",
        )
    if code in (errno.EACCES, errno.EPERM):
        return (
            f"permission to write in {home} was denied",
            f"give this user write access to {home} and call again",
        )
    if code == errno.EIO:
        return f"the device holding {home} reported an I/O error", "check the disk and call again"
    if isinstance(error, OSError):
        where = error.filename or home
        if isinstance(error, FileExistsError):
            return f"{where} already exists and is in the way", "move it away and call again"
        reason = error.strerror or str(error) or type(error).__name__
        return f"{reason} ({where})", "fix that and call again"
    return f"internal error: the row cannot be serialised ({error})", "report this as a bug"
