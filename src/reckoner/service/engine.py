"""The engine a host runs: six operations, one slot table, at most one open record.

`Engine.call(tool, args)` answers one receipt (docs/reference/tools.md) and never raises. Every call
made while a record is open appends one trace row before its receipt is returned; a call
whose row cannot be written is refused and changes nothing (issue 8, against docs/guide/records.md).
Several engines may share a home, each on its own lane with its own open record (issue 9).
This module is the engine's start and stop and the one entry point; the operations, the
record's lifecycle, replay, argument parsing and the preset tools' gate are its neighbours.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from reckoner import wire
from reckoner.contract.checks import not_an_object
from reckoner.contract.engine import TOOLS as CONTRACT
from reckoner.contract.refusal import Refusal
from reckoner.contract.registry import PRESET_TOOL_BY_NAME
from reckoner.core import ErrorCode
from reckoner.storage.home import HomeLayout, resolve_home, resolve_lane
from reckoner.storage.home_lock import acquire_lane
from reckoner.storage.open_journal import OpenRecordJournal
from reckoner.storage.record_archive import DeleteOutcome, RecordArchive, RecordIndex, RecordView
from reckoner.storage.run_log import open_run_log

from .arguments import TOOLS, unstorable_key
from .facts import FactGate, FactTool, closed_receipt
from .lifecycle import RecordTrace, settle_state
from .operations import Operations, Receipt
from .replay import recover
from .slots import SlotTable

FSYNC_ENV = "RECKONER_FSYNC"

# Derived from the one contract (reckoner.contract): the tools a record must be open for.
NEEDS_OPEN_RECORD = frozenset(tool.name for tool in CONTRACT if tool.needs_open_record)


def _epoch_ms() -> int:
    return time.time_ns() // 1_000_000


class Engine:
    """One engine per lane of a home: `Engine(home)`, then `call(tool, args)` per tool call.

    ``lane`` (else ``$RECKONER_LANE``) names the lane to hold; unset, the engine takes the
    lowest lane whose open record nobody holds, else the lowest free lane.
    """

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        *,
        clock: Callable[[], int] | None = None,
        log_to_stdout: bool = False,
        fsync: bool | None = None,
        lane: int | str | None = None,
    ) -> None:
        self.home: Path = resolve_home(home)
        wanted_lane = resolve_lane(lane)
        home_layout = HomeLayout(self.home)
        home_layout.prepare()
        self._home_lock = acquire_lane(home_layout, wanted_lane)
        layout = self._home_lock.layout
        self.lane: int = layout.lane
        clock = clock or _epoch_ms
        self._mutex = threading.RLock()
        self._closed = False
        if fsync is None:
            fsync = os.environ.get(FSYNC_ENV, "") == "1"
        self.log = open_run_log(layout, to_stdout=log_to_stdout, clock=clock)
        if self.log.open_error is not None:
            # With no log file the only place left to say so is stderr (never stdout: an MCP
            # stdio server's stdout carries protocol only).
            print(
                f"reckoner: {self.log.open_error}; continuing without a log file", file=sys.stderr
            )
        self.archive = RecordArchive(home_layout)
        self._journal = OpenRecordJournal(layout, fsync=fsync)
        self._slots = SlotTable()
        self._trace = RecordTrace(self.home, self.archive, self._journal, self.log, clock)
        self._operations = Operations(self._slots, self._trace).table
        self._facts = FactGate(self._mutex, self._trace, lambda: self._closed)
        settle_state(layout, self.log)
        self._trace.record = recover(self._journal, self.archive, self._slots, self.log)
        record = self._trace.record
        self.log.info(
            "engine opened",
            home=str(self.home),
            pid=os.getpid(),
            lane=self.lane,
            record=record.record_id if record else None,
            fsync=fsync,
        )

    def close(self) -> None:
        """Release the record file, the log and the home; an open record stays resumable."""
        with self._mutex:
            if self._closed:
                return
            self._closed = True
            self._journal.close_handle()
            self.log.info("engine closed", home=str(self.home))
            self.log.close()
            self._home_lock.release()

    def __enter__(self) -> Engine:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    # -- the one entry point -----------------------------------------------------------

    def attach(self, name: str, tool: FactTool) -> None:
        """Serve a preset tool (``search``) through this engine's gate and record."""
        if name not in PRESET_TOOL_BY_NAME:
            raise ValueError(f"{name!r} is not a preset tool of the contract")
        with self._mutex:
            self._facts.tools[name] = tool

    def call(self, tool: object, args: object = None) -> Receipt:
        """One tool call in, one receipt out; never raises."""
        if type(tool) is str and tool in self._facts.tools:
            return self._facts.call(tool, args)
        with self._mutex:
            try:
                return self._call(tool, args)
            except Exception as error:  # the receipt is the only channel
                self.log.error("internal error", tool=str(tool)[:40], error=error)
                refusal = Refusal(
                    ErrorCode.UNKNOWN_ERROR, f"internal error: {type(error).__name__}: {error}"
                )
                if self._trace.record is not None and tool in TOOLS:
                    # The fault may be in the trace itself: its row is best effort.
                    with contextlib.suppress(Exception):
                        self._trace.append_refusal(str(tool), refusal)
                return refusal.receipt()

    def _call(self, tool: object, args: object) -> Receipt:
        """Run one call and append its row; a failed call changes nothing (8.1): the slot
        it wrote is taken back whatever stopped it."""
        operation = self._operations.get(tool) if type(tool) is str else None
        if operation is None or self._closed or self._trace.record is None:
            turned_away = self._turned_away(tool)
            if turned_away is not None:
                return turned_away
        assert type(tool) is str and operation is not None
        if not isinstance(args, dict):
            return self._refused(
                tool, Refusal(ErrorCode.INVALID_ARGS, not_an_object(tool, TOOLS[tool], args))
            )
        slots = self._slots
        writes = slots.writes
        try:
            receipt, content = operation(args)
            if content is not None:
                self._trace.append(tool, True, content)
            return receipt
        except wire.UnstorableText as error:
            # Text no JSON file can keep: the call is refused and changes nothing.
            if slots.writes != writes:
                slots.undo()
            return self._refused(
                tool, Refusal(ErrorCode.INVALID_ARGS, f"{tool}'s {unstorable_key(args)} {error}")
            )
        except Refusal as refusal:
            if slots.writes != writes:
                slots.undo()
            return self._refused(tool, refusal)
        except Exception:
            # A fault after the slot was written (call() turns it into the receipt): the
            # write must not stay behind.
            if slots.writes != writes:
                slots.undo()
            raise

    def _refused(self, tool: str, refusal: Refusal) -> Receipt:
        if self._trace.record is not None:
            # The refusal's own row is written if the disk allows; either way the call is
            # refused and nothing else changed (issue 8).
            with contextlib.suppress(Refusal):
                self._trace.append_refusal(tool, refusal)
        return refusal.receipt()

    def _turned_away(self, tool: object) -> Receipt | None:
        """The receipt of a call the engine does not take, or None when it takes it."""
        if self._closed:
            return closed_receipt()
        if type(tool) is not str or tool not in self._operations:
            shown = repr(tool)[:60]
            return Refusal(
                ErrorCode.INVALID_ARGS,
                f"unknown tool {shown}; the tools are {', '.join([*TOOLS, *self._facts.tools])}",
            ).receipt()
        if self._trace.record is None and tool in NEEDS_OPEN_RECORD:
            # The gate comes first, and with no record open nothing is written anywhere.
            return Refusal(
                ErrorCode.OPEN_RECORD_NOT_FOUND,
                f"{tool} needs an open record, and none is open; call record_start with a "
                f"title first",
            ).receipt()
        return None

    def append_preset_row(self, tool: str, ok: bool, content: dict[str, Any]) -> bool:
        """Append one row of a preset's tool (compute, search) to the open record, if any.

        The row is a fact: recovery replays only set and eval, so it is never rerun. The six
        engine tools write their own rows; this is for tools the engine does not answer.
        True when a record was open and the row was handed to the journal.
        """
        if tool in TOOLS:
            raise ValueError(f"{tool} is an engine tool; its rows come from Engine.call")
        with self._mutex:
            if self._closed or self._trace.record is None:
                return False
            try:
                self._trace.append(tool, ok, content)
            except Refusal:
                return False  # the disk refused the row; append logged why
            return True

    # -- read side for the panel, the CLI and the article writer ----------------------

    @property
    def open_record_id(self) -> str | None:
        with self._mutex:
            record = self._trace.record
            return record.record_id if record else None

    def slot_snapshot(self) -> dict[str, tuple[int, dict[str, Any]]]:
        """Every slot's revision and stored form."""
        with self._mutex:
            return self._slots.snapshot()

    def records(self) -> RecordIndex:
        """The record list (docs/guide/records.md)."""
        return self.archive.index()

    def read_record(self, record_id: str) -> RecordView | None:
        """One record's identity and rows, open or closed; None when missing or unreadable."""
        return self.archive.read(record_id)

    def delete_record(self, record_id: str) -> DeleteOutcome:
        """Delete a closed record; the open one is refused."""
        with self._mutex:
            return self.archive.delete(record_id)
