"""The engine a host runs: six operations, one slot table, at most one open record.

`Engine.call(tool, args)` answers one receipt (manual 2.2) and never raises. Every call
made while a record is open appends one trace row before its receipt is returned; a call
whose row cannot be written is refused and changes nothing (issue 8, against manual 7.2).
Several engines may share a home, each on its own lane with its own open record (issue 9).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from reckoner import wire
from reckoner.contract.checks import (
    describe_json,
    envelope_problem,
    no_such_argument,
    not_an_object,
)
from reckoner.contract.engine import READ_KEYS
from reckoner.contract.engine import TOOLS as CONTRACT
from reckoner.contract.limits import MAX_READINGS
from reckoner.contract.registry import PRESET_TOOL_BY_NAME
from reckoner.core import ErrorCode, Failure, stored
from reckoner.core.api import (
    as_failure,
    check_name,
    compile_formula,
    guarded,
    parse_value,
    run_program,
)
from reckoner.core.rendering import RenderOptions, render
from reckoner.storage.home import HomeLayout, resolve_home, resolve_lane
from reckoner.storage.home_lock import acquire_lane
from reckoner.storage.record_store import (
    DeleteOutcome,
    OpenRecordJournal,
    RecordArchive,
    RecordIndex,
    RecordView,
)
from reckoner.storage.run_log import open_run_log
from reckoner.storage.state_file import StateFile
from reckoner.units import resolve_unit

from .slots import SlotTable, StoredValueError

Receipt = dict[str, Any]
FSYNC_ENV = "RECKONER_FSYNC"

# Derived from the one contract (reckoner.contract): names, keys and the record gate.
TOOLS: dict[str, tuple[str, ...]] = {tool.name: tool.keys for tool in CONTRACT}
NEEDS_OPEN_RECORD = frozenset(tool.name for tool in CONTRACT if tool.needs_open_record)
_ALLOWED_KEYS = {tool: frozenset(keys) for tool, keys in TOOLS.items()}
_EVAL_KEYS = _ALLOWED_KEYS["eval"]


class Refusal(Exception):
    """A call refused with one failure; raised inside an operation, turned into a receipt."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def _refuse(code: ErrorCode, message: str) -> Refusal:
    return Refusal(Failure(code, message))


def _settled(result: Any) -> Any:
    """Raise a core Failure as a refusal; pass a value through."""
    if isinstance(result, Failure):
        raise Refusal(result)
    return result


class FactTool(Protocol):
    """A preset tool whose result comes from outside the engine and is recorded as a fact.

    The engine gates the call (open record, argument shape), hands it over with the open
    record's earlier rows of the same tool, and appends the one row ``run`` returns.
    """

    def run(
        self, args: dict[str, Any], earlier: list[dict[str, Any]], pending: int
    ) -> tuple[bool, Receipt, dict[str, Any]]:
        """(row ok, receipt, row content); ``earlier`` are the contents of this record's rows
        of this tool, ``pending`` the calls of it still running. Must not raise."""
        ...


@dataclass(slots=True)
class _OpenRecord:
    record_id: str
    title: str
    seq: int


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
        self._clock = clock or _epoch_ms
        self._mutex = threading.RLock()
        self._closed = False
        if fsync is None:
            fsync = os.environ.get(FSYNC_ENV, "") == "1"
        self.log = open_run_log(layout, to_stdout=log_to_stdout, clock=self._clock)
        if self.log.open_error is not None:
            # With no log file the only place left to say so is stderr (never stdout: an MCP
            # stdio server's stdout carries protocol only).
            print(
                f"reckoner: {self.log.open_error}; continuing without a log file", file=sys.stderr
            )
        self.archive = RecordArchive(home_layout)
        self._journal = OpenRecordJournal(layout, fsync=fsync)
        self._slots = SlotTable()
        self._operations: dict[str, Callable[[dict[str, Any]], tuple[Receipt, Any]]] = {
            "set": self._op_set,
            "get": self._op_get,
            "eval": self._op_eval,
            "record_start": self._op_record_start,
            "record_message": self._op_record_message,
            "record_end": self._op_record_end,
        }
        self._record: _OpenRecord | None = None
        self._fact_tools: dict[str, FactTool] = {}
        # The open record's rows of each preset tool (their contents) and the calls running.
        self._fact_rows: dict[str, list[dict[str, Any]]] = {}
        self._fact_pending: dict[tuple[str, str], int] = {}  # by tool and record
        self._settle_state(layout)
        self._recover()
        self.log.info(
            "engine opened",
            home=str(self.home),
            pid=os.getpid(),
            lane=self.lane,
            record=self._record.record_id if self._record else None,
            fsync=fsync,
        )

    # -- lifecycle -------------------------------------------------------------------------

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

    # -- state.json at mount (manual 9.1) -----------------------------------------------

    def _settle_state(self, layout: HomeLayout) -> None:
        """A new host run: fold an older build's flat keys in, and clear restartRequired."""
        state = StateFile(layout)
        try:
            if state.migrate_legacy():
                self.log.info("state.json migrated from an older build's flat keys")
            if state.restart_required():
                # The restart it asked for is this start; the marker is a fact about one run.
                state.set_restart_required(False)
                self.log.info("restartRequired cleared: this start is the restart")
        except OSError as error:
            self.log.warn("state.json not updated at start", error=error)

    # -- recovery (manual 7.4) -----------------------------------------------------------

    def _recover(self) -> None:
        recovered = self._journal.recover()
        for note in self._journal.notes:
            self.log.warn(note)
        self._journal.notes.clear()
        if recovered is None:
            return
        slots = self._slots
        unusable = 0
        for row in recovered.rows:
            tool = row.get("tool")
            if tool in PRESET_TOOL_BY_NAME:
                # A preset tool's row is a fact: kept for its budget, never re-run (7.4).
                content = row.get("content")
                if isinstance(content, dict):
                    self._fact_rows.setdefault(str(tool), []).append(content)
                continue
            write = _replayed_write(row)
            if write is None:
                continue
            if write is _UNUSABLE:
                unusable += 1
                continue
            name, value = write
            if value is None:
                slots.delete(name)
            else:
                slots.write(name, value)
        # Values are parsed once, at the end, for the slots that are left (a long replay costs
        # dictionary updates); a slot whose value does not parse is replayed again with every
        # row of it checked, so its unusable rows are dropped like torn lines.
        for name in slots.names():
            if slots.get(name) is None:
                continue
            try:
                slots.materialize(name)
            except StoredValueError:
                unusable += self._replay_checked(name, recovered.rows)
        if unusable:
            self.log.warn(
                "rows this build cannot use were dropped on replay, like torn lines",
                record=recovered.record_id,
                dropped=unusable,
            )
        self._record = _OpenRecord(recovered.record_id, recovered.title, recovered.last_seq)
        self.log.info(
            "open record resumed",
            record=recovered.record_id,
            rows=len(recovered.rows),
            slots=len(slots),
        )

    def _replay_checked(self, name: str, rows: list[dict[str, Any]]) -> int:
        """Replay the rows writing ``name`` again, parsing each value; answer the drops."""
        slots = self._slots
        slots.delete(name)
        dropped = 0
        for row in rows:
            write = _replayed_write(row)
            if write is None or write is _UNUSABLE or write[0] != name:
                continue
            value = write[1]
            if value is None:
                slots.delete(name)
                continue
            parsed = parse_value(value)
            if isinstance(parsed, Failure):
                dropped += 1
                self.log.warn(
                    "replayed row dropped: its value does not parse",
                    seq=row.get("seq"),
                    slot=name,
                    why=parsed.message,
                )
                continue
            slots.write(name, value, parsed)
        return dropped

    # -- the one entry point -----------------------------------------------------------

    def attach(self, name: str, tool: FactTool) -> None:
        """Serve a preset tool (``search``) through this engine's gate and record."""
        if name not in PRESET_TOOL_BY_NAME:
            raise ValueError(f"{name!r} is not a preset tool of the contract")
        with self._mutex:
            self._fact_tools[name] = tool

    def call(self, tool: object, args: object = None) -> Receipt:
        """One tool call in, one receipt out; never raises."""
        if type(tool) is str and tool in self._fact_tools:
            return self._call_fact(tool, args)
        with self._mutex:
            try:
                return self._call(tool, args)
            except Exception as error:  # the receipt is the only channel
                self.log.error("internal error", tool=str(tool)[:40], error=error)
                failure = Failure(
                    ErrorCode.UNKNOWN_ERROR, f"internal error: {type(error).__name__}: {error}"
                )
                if self._record is not None and tool in TOOLS:
                    # The fault may be in the trace itself: its row is best effort.
                    with contextlib.suppress(Exception):
                        self._append(
                            str(tool), False, {"code": failure.code.value, "error": failure.message}
                        )
                return failure.receipt()

    def _call(self, tool: object, args: object) -> Receipt:
        if self._closed:
            return Failure(
                ErrorCode.INVALID_ARGS,
                "this engine has been closed; open a new Engine on the home to continue",
            ).receipt()
        operation = self._operations.get(tool) if type(tool) is str else None
        if operation is None:
            shown = repr(tool)[:60]
            return Failure(
                ErrorCode.INVALID_ARGS,
                f"unknown tool {shown}; the tools are {', '.join([*TOOLS, *self._fact_tools])}",
            ).receipt()
        assert type(tool) is str
        if self._record is None and tool in NEEDS_OPEN_RECORD:
            # The gate comes first, and with no record open nothing is written anywhere.
            return Failure(
                ErrorCode.OPEN_RECORD_NOT_FOUND,
                f"{tool} needs an open record, and none is open; call record_start with a "
                f"title first",
            ).receipt()
        touched = None
        try:
            if not isinstance(args, dict):
                raise _refuse(ErrorCode.INVALID_ARGS, not_an_object(tool, TOOLS[tool], args))
            written_key = _WRITTEN_SLOT_KEY.get(tool)  # None for the markers and get
            if written_key is not None:
                touched = args.get(written_key)
                if type(touched) is not str:
                    touched = None
            before = self._slots.get(touched) if touched is not None else None
            try:
                receipt, content = operation(args)
                if content is not None:
                    self._append(tool, True, content)
            except wire.UnstorableText as error:
                # Text no JSON file can keep: the call is refused and changes nothing.
                if touched is not None:
                    self._slots.restore(touched, before)
                raise _refuse(
                    ErrorCode.INVALID_ARGS, f"{tool}'s {_unstorable_key(args)} {error}"
                ) from None
        except Refusal as refusal:
            if touched is not None:
                # The row of a call whose slot was already written could not be stored.
                self._slots.restore(touched, before)
            failure = refusal.failure
            if self._record is not None:
                # The refusal's own row is written if the disk allows; either way the call
                # is refused and nothing else changed (issue 8).
                with contextlib.suppress(Refusal):
                    self._append(
                        tool, False, {"code": failure.code.value, "error": failure.message}
                    )
            return failure.receipt()
        except Exception:
            # An unexpected fault after the slot was written must not leave the write behind:
            # a failed call changes nothing (8.1). call() turns the fault into the receipt.
            if touched is not None:
                self._slots.restore(touched, before)
            raise
        return receipt

    # -- the six operations (each returns the receipt and the row content) -------------

    def _op_set(self, args: dict[str, Any]) -> tuple[Receipt, dict[str, Any]]:
        name = _name_arg(args, "name", "set's name")
        if "value" not in args:
            raise _refuse(
                ErrorCode.INVALID_ARGS,
                'set needs value: a tagged value such as {"num": 4.7e3, "dim": "ohm"}, '
                "or null to delete the slot",
            )
        raw = args["value"]
        # The value is an argument, so its own refusal comes before an extra key's (issue 3).
        value = None if raw is None else _settled(parse_value(raw, resolve_unit))
        _no_extra(args, "set")
        read = args.get("read")
        if value is None:
            if read is not None:
                raise _refuse(
                    ErrorCode.INVALID_ARGS,
                    f"set's read reads the value stored, but value null deletes {name}, so "
                    f"there is nothing to read; leave read out to delete the slot, or give a "
                    f"value to store and read",
                )
            self._slots.delete(name)
            return {"ok": True, "name": name, "rev": None, "value": None}, {
                "name": name,
                "value": None,
            }
        # The reading is part of the call: a bad one refuses before the slot is written.
        shown = _NOT_READ if read is None else _reading(value, _readings(read, "set"), "set")
        form = stored(value)
        slot = self._slots.write(name, form, value)
        rev = slot.rev
        content = {"name": name, "value": slot.row_form()}
        unit = raw.get("unit")
        if type(unit) is str:
            content["unit"] = unit  # the row keeps the unit as the model transcribed it
        elif "object" in raw:
            written = _units_written(raw)
            if written is not None:
                content["unit"] = written
        if shown is _NOT_READ:
            return {"ok": True, "name": name, "rev": rev, "value": form}, content
        # The row's value is the stored input, so the reading goes under its own key.
        content["reading"] = shown
        return {"ok": True, "name": name, "rev": rev, "value": shown}, content

    def _op_get(self, args: dict[str, Any]) -> tuple[Receipt, dict[str, Any]]:
        name = _name_arg(args, "name", "get's name")
        # form, digits, dim and unit are arguments: checked in order, before extras and lookup.
        options = _read_options(args, "get's")
        _no_extra(args, "get")
        slot = self._slots.get(name)
        if slot is None:
            known = ", ".join(self._slots.names()) or "none yet"
            raise _refuse(
                ErrorCode.SLOT_NOT_FOUND,
                f"the slot {name} does not exist (slots now: {known}); set it if the question "
                f"gives it, or eval it first if it is a result, and otherwise stop and name it "
                f"as missing",
            )
        value = slot.value if slot.value is not None else self._materialize(name)
        try:
            rendered = render(value, options)
        except Exception as error:
            raise Refusal(as_failure(error)) from None
        return {"ok": True, "name": name, "value": rendered}, {"name": name, "value": rendered}

    def _op_eval(self, args: dict[str, Any]) -> tuple[Receipt, dict[str, Any]]:
        formula = args.get("formula")
        # The formula is the first argument: its shape and syntax refuse before the target's.
        program = compile_formula(formula)
        if isinstance(program, Failure):
            raise Refusal(program)
        if args.get("target") is None:
            raise _refuse(
                ErrorCode.INVALID_ARGS,
                'eval needs target: the bare name of the slot to write, such as "P"',
            )
        target = args["target"]
        slots = self._slots
        if type(target) is not str or target not in slots:
            # A name already in the table is known to be valid; any other is checked.
            target = _name_arg(args, "target", "eval's target")
        if not args.keys() <= _EVAL_KEYS:
            _no_extra(args, "eval")
        read = args.get("read")
        readings = None if read is None else _readings(read, "eval")
        try:
            outcome = run_program(program, slots.formula_view())
        except StoredValueError as error:
            raise _refuse(ErrorCode.UNKNOWN_ERROR, f"internal error: {error}") from None
        if isinstance(outcome, Failure):
            raise Refusal(outcome)
        # The reading is part of the call: a unit of the wrong vector refuses before the write.
        shown = _NOT_READ if readings is None else _reading(outcome.value, readings, "eval")
        written = slots.write(target, None, outcome.value)
        rev = written.rev
        result = written.row_form()
        reads = {}
        slot_of = slots.get
        for name, value in outcome.reads.items():
            slot = slot_of(name)
            if slot is None or slot.value is not value:
                # A formula may read the slot it overwrites: the row keeps the value it read.
                reads[name] = stored(value)
            else:
                reads[name] = slot.row if slot.row is not None else slot.row_form()
        content = {
            "formula": formula,
            "target": target,
            "rev": rev,
            "vars": reads,
            "result": result,
        }
        if shown is not _NOT_READ:
            content["value"] = shown
            return {"ok": True, "target": target, "rev": rev, "value": shown}, content
        return {"ok": True, "target": target, "rev": rev}, content

    def _op_record_start(self, args: dict[str, Any]) -> tuple[Receipt, None]:
        if self._record is not None:
            raise _refuse(
                ErrorCode.OPEN_RECORD_FOUND,
                f"a record is already open ({self._record.record_id}, titled "
                f"{self._record.title[:80]!r}); finish it with record_end before starting "
                f"another",
            )
        title = _text_arg(args, "title", "record_start", required=True)
        _no_extra(args, "record_start")
        now = self._clock()
        with self._journal.claiming_ids():
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
                self._journal.start(record_id, row)
            except OSError as error:
                self.log.error("record file not written", record=record_id, error=error)
                raise self._write_refusal("started", error) from None
        self._slots.clear()
        self._fact_rows.clear()
        self._record = _OpenRecord(record_id, title, 1)
        self.log.info("record started", record=record_id)
        return {"ok": True}, None

    def _op_record_message(self, args: dict[str, Any]) -> tuple[Receipt, dict[str, Any]]:
        text = _text_arg(args, "text", "record_message", required=True)
        hide = args.get("hide")
        if hide is not None and type(hide) is not bool:
            raise _refuse(
                ErrorCode.INVALID_ARGS,
                f"record_message's hide must be true or false, but it is {describe_json(hide)}",
            )
        _no_extra(args, "record_message")
        content: dict[str, Any] = {"text": text}
        if hide:
            content["hide"] = True
        return {"ok": True}, content

    def _op_record_end(self, args: dict[str, Any]) -> tuple[Receipt, None]:
        text = args.get("text")
        if text is not None and type(text) is not str:
            raise _refuse(
                ErrorCode.INVALID_ARGS,
                f"record_end's text must be a string (the closing text) or omitted, but it is "
                f"{describe_json(text)}",
            )
        _no_extra(args, "record_end")
        record = self._record
        assert record is not None
        content: dict[str, Any] = {"record": record.record_id}
        if text is not None and text.strip():
            content = {"text": text, "record": record.record_id}
        mark = self._journal.size
        seq = record.seq
        self._append("record_end", True, content)
        try:
            # Never over another file: a name taken meanwhile moves the record to the next id.
            path = self._journal.close_into(record.record_id)
        except OSError as error:
            # Not closed, so the end row is taken back: the record stays open and whole.
            self.log.error("record file not closed", record=record.record_id, error=error)
            self._journal.retract(mark)
            record.seq = seq
            raise self._write_refusal("closed", error) from None
        self.log.info("record closed", record=record.record_id, path=str(path))
        if path.stem != record.record_id:
            self.log.warn(
                "record closed under the next free id: its own was taken by another file",
                record=record.record_id,
                closed_as=path.stem,
            )
        self._slots.clear()
        self._fact_rows.clear()
        self._record = None
        return {"ok": True}, None

    def _materialize(self, name: str) -> Any:
        try:
            return self._slots.materialize(name)
        except StoredValueError as error:
            raise _refuse(
                ErrorCode.UNKNOWN_ERROR,
                f"internal error: the stored value of {name} is unreadable: {error}",
            ) from None

    # -- preset tools (search) -------------------------------------------------------------

    def _call_fact(self, tool: str, args: object) -> Receipt:
        """Gate and check under the lock, run outside it (a lookup takes seconds), then
        append the one row to the record that was open when the call began."""
        with self._mutex:
            if self._closed:
                return self._call(tool, args)  # answers that the engine is closed
            if self._record is None:
                # As for the six tools: with no record open nothing is written anywhere.
                return Failure(
                    ErrorCode.OPEN_RECORD_NOT_FOUND,
                    f"{tool} needs an open record, because every lookup is recorded, and "
                    f"none is open; call record_start with a title first",
                ).receipt()
            try:
                checked = _fact_args(tool, args)
            except Refusal as refusal:
                failure = refusal.failure
                self._append(tool, False, {"code": failure.code.value, "error": failure.message})
                return failure.receipt()
            record = self._record
            earlier = list(self._fact_rows.get(tool, ()))
            running = (tool, record.record_id)
            pending = self._fact_pending.get(running, 0)
            self._fact_pending[running] = pending + 1
        try:
            ok, receipt, content = self._fact_tools[tool].run(checked, earlier, pending)
        except Exception as error:  # run must not raise; if it does, the receipt says so
            self.log.error("internal error", tool=tool, error=error)
            failure = Failure(
                ErrorCode.UNKNOWN_ERROR, f"internal error: {type(error).__name__}: {error}"
            )
            ok, receipt = False, failure.receipt()
            content = {"code": failure.code.value, "error": failure.message}
        finally:
            with self._mutex:
                if self._fact_pending[running] == 1:
                    del self._fact_pending[running]
                else:
                    self._fact_pending[running] -= 1
        with self._mutex:
            if self._closed:
                # The home may already belong to another process: write nothing more.
                return Failure(
                    ErrorCode.UNKNOWN_ERROR,
                    f"internal error: the engine closed while this {tool} ran, so its result "
                    f"was not recorded; ask again once the server is back",
                ).receipt()
            if self._record is not record:
                self.log.warn("a lookup outlived its record; its row was not written", tool=tool)
                return Failure(
                    ErrorCode.OPEN_RECORD_NOT_FOUND,
                    f"the record this {tool} began in was closed before it finished, so its "
                    f"result was not recorded; open a record and ask again",
                ).receipt()
            self._append(tool, ok, content)
            self._fact_rows.setdefault(tool, []).append(content)
        return receipt

    # -- the trace -----------------------------------------------------------------------

    def _append(self, tool: str, ok: bool, content: dict[str, Any]) -> None:
        record = self._record
        assert record is not None
        seq = record.seq + 1
        row = {"seq": seq, "at": self._clock(), "tool": tool, "ok": ok, "content": content}
        try:
            self._journal.append(row)
        except wire.UnstorableText:
            raise  # the call is refused: a receipt is never answered without its row
        except (OSError, TypeError, ValueError) as error:
            # Against manual 7.2, a row that cannot be written refuses its call (issue 8): the
            # record is the product. The seq is not spent and the file is as it was.
            self.log.error("trace row not written", record=record.record_id, seq=seq, error=error)
            raise self._write_refusal("written", error) from None
        record.seq = seq

    def _write_refusal(self, action: str, error: BaseException) -> Refusal:
        """The one sentence for a record file operation that failed, naming cause and fix."""
        cause, fix = _storage_cause(error, self.home)
        if action == "closed":
            outcome = "the record stays open and nothing was changed"
        else:
            outcome = "nothing was changed"
        return _refuse(
            ErrorCode.UNKNOWN_ERROR, f"the record could not be {action}: {cause}; {fix}; {outcome}"
        )

    def append_preset_row(self, tool: str, ok: bool, content: dict[str, Any]) -> bool:
        """Append one row of a preset's tool (compute, search) to the open record, if any.

        The row is a fact: recovery replays only set and eval, so it is never rerun. The six
        engine tools write their own rows; this is for tools the engine does not answer.
        True when a record was open and the row was handed to the journal.
        """
        if tool in TOOLS:
            raise ValueError(f"{tool} is an engine tool; its rows come from Engine.call")
        with self._mutex:
            if self._closed or self._record is None:
                return False
            try:
                self._append(tool, ok, content)
            except Refusal:
                return False  # the disk refused the row; _append logged why
            return True

    # -- read side for the panel, the CLI and the article writer ----------------------

    @property
    def open_record_id(self) -> str | None:
        with self._mutex:
            return self._record.record_id if self._record else None

    def slot_snapshot(self) -> dict[str, tuple[int, dict[str, Any]]]:
        """Every slot's revision and stored form."""
        with self._mutex:
            return self._slots.snapshot()

    def records(self) -> RecordIndex:
        """The record list (manual 7.5)."""
        return self.archive.index()

    def read_record(self, record_id: str) -> RecordView | None:
        """One record's identity and rows, open or closed; None when missing or unreadable."""
        return self.archive.read(record_id)

    def delete_record(self, record_id: str) -> DeleteOutcome:
        """Delete a closed record; the open one is refused."""
        with self._mutex:
            return self.archive.delete(record_id)


# -- replay ----------------------------------------------------------------------------

# A row of a replayed tool that cannot be used (its content is not an object, or its value
# or its name is not one this build stores): dropped, and counted.
_UNUSABLE: tuple[str, dict[str, Any] | None] = ("", None)


def _replayed_write(row: dict[str, Any]) -> tuple[str, dict[str, Any] | None] | None:
    """What an accepted row writes on replay (manual 7.4): (name, value or None to delete).

    None for a row replay skips (refused, get, markers, search); ``_UNUSABLE`` for a set or
    eval row this build cannot use.
    """
    if row.get("ok") is not True:
        return None
    tool = row.get("tool")
    if tool != "set" and tool != "eval":
        return None
    content = row.get("content")
    if not isinstance(content, dict):
        return _UNUSABLE
    if tool == "set":
        name, value = content.get("name"), content.get("value")
        if type(name) is not str or check_name(name, "name") is not None:
            return _UNUSABLE  # a hand-edited row; every name in the table follows the rule
        if value is None or isinstance(value, dict):
            return name, value
        return _UNUSABLE
    target, result = content.get("target"), content.get("result")
    if type(target) is not str or check_name(target, "target") is not None:
        return _UNUSABLE
    if isinstance(result, dict):
        return target, result
    return _UNUSABLE


# -- argument checks ------------------------------------------------------------------


# The argument naming the one slot a call may write: set's name, eval's target.
_WRITTEN_SLOT_KEY = {"set": "name", "eval": "target"}


def _name_arg(args: dict[str, Any], key: str, role: str) -> str:
    raw = args.get(key)
    if raw is None:
        # Missing and null alike are a missing argument; only a non-string is an identifier.
        raise _refuse(
            ErrorCode.INVALID_ARGS,
            f'{role} is missing; pass the bare slot name as a string, such as "R1"',
        )
    failure = check_name(raw, role)
    if failure is not None:
        raise Refusal(failure)
    name: str = raw
    return name


def _text_arg(args: dict[str, Any], key: str, tool: str, *, required: bool) -> str:
    raw = args.get(key)
    if type(raw) is not str or not raw.strip():
        what = "missing" if raw is None else describe_json(raw)
        raise _refuse(
            ErrorCode.INVALID_ARGS,
            f"{tool}'s {key} must be a non-empty string, but it is {what}"
            + ("" if type(raw) is not str else " (only whitespace)")
            + "; write a short sentence",
        )
    return raw


# Options read often (a get with no options, or with dim "degC") are checked once: the key
# holds only None, strings and numbers, each beside its type (2**70 digits is accepted, the
# equal float 2.0**70 refused), and a RenderOptions is never changed once built.
_KNOWN_OPTIONS: dict[tuple[Any, ...], RenderOptions] = {}
_KNOWN_OPTIONS_LIMIT = 512
_HASHABLE_OPTION = (type(None), str, int, float)


def _read_options(source: dict[str, Any], where: str) -> RenderOptions:
    """get's reading options (form, digits, dim, unit), checked in that order."""
    form, digits, dim, unit = (source.get(key) for key in READ_KEYS)
    key = (where, type(form), form, type(digits), digits, type(dim), dim)
    known = (
        unit is None
        and type(form) in _HASHABLE_OPTION
        and type(digits) in _HASHABLE_OPTION
        and type(dim) in _HASHABLE_OPTION
    )
    if known:
        found = _KNOWN_OPTIONS.get(key)
        if found is not None:
            return found

    def build() -> RenderOptions:
        options = RenderOptions(form, digits, dim, None, where)
        if unit is None:
            return options
        return RenderOptions(form, digits, dim, resolve_unit(unit, f"{where} unit"), where)

    built: RenderOptions = _settled(guarded(build))
    if known and len(_KNOWN_OPTIONS) < _KNOWN_OPTIONS_LIMIT:
        _KNOWN_OPTIONS[key] = built
    return built


# What the `read` of set and eval asked for: the options of each reading, in order, and
# whether they came as a list (a single object answers a single value, as before lists).
_Readings = tuple[tuple[RenderOptions, ...], bool]
_NOT_READ = object()  # no read asked for (a reading may itself be any JSON value)
_READ_EXAMPLE = '{"digits": 4, "unit": "mW"}'
_READ_WHERE = {"set": "set's read", "eval": "eval's read"}  # named once, not per call


def _readings(read: Any, tool: str) -> _Readings:
    """set's and eval's read: an object of get's options, or a list of 1 to MAX_READINGS."""
    where = _READ_WHERE[tool]
    if isinstance(read, dict):
        return (_read_options(_read_object(read, where), where),), False
    if not isinstance(read, list):
        raise _refuse(
            ErrorCode.INVALID_ARGS,
            f"{where} must be an object of get's options ({', '.join(READ_KEYS)}), such as "
            f"{_READ_EXAMPLE}, or a list of 1 to {MAX_READINGS} of them (MAX_READINGS), but it "
            f"is {describe_json(read)}",
        )
    if not read or len(read) > MAX_READINGS:
        count = "an empty list" if not read else f"a list of {len(read)} readings"
        raise _refuse(
            ErrorCode.INVALID_ARGS,
            f"{where} is {count}, but a list holds 1 to {MAX_READINGS} readings "
            f"(MAX_READINGS); "
            + (
                f"give at least one object of get's options, such as [{_READ_EXAMPLE}], or "
                f"leave read out"
                if not read
                else f"read the first {MAX_READINGS} here and the rest with get"
            ),
        )
    options = []
    for index, item in enumerate(read):
        at = f"{where}[{index}]"
        options.append(_read_options(_read_object(item, at), at))
    return tuple(options), True


def _read_object(read: Any, where: str) -> dict[str, Any]:
    """One reading: an object of get's options and nothing else."""
    if not isinstance(read, dict):
        raise _refuse(
            ErrorCode.INVALID_ARGS,
            f"{where} must be an object of get's options ({', '.join(READ_KEYS)}), such as "
            f"{_READ_EXAMPLE}, but it is {describe_json(read)}",
        )
    extra = [key for key in read if key not in READ_KEYS]
    if extra:
        raise _refuse(
            ErrorCode.INVALID_ARGS,
            f"{where} has no option {str(extra[0])[:40]!r}; its options are "
            f"{', '.join(READ_KEYS)}, as for get",
        )
    return read


def _reading(value: Any, readings: _Readings, tool: str) -> Any:
    """The value as get renders it with each reading's options: one, or a list in order. A
    listed reading that cannot be rendered is named by its place, so the model knows which
    of its units to change."""
    options, listed = readings
    if not listed:
        return _settled(guarded(partial(render, value, options[0])))
    shown = []
    for index, each in enumerate(options):
        outcome = guarded(partial(render, value, each))
        if isinstance(outcome, Failure):
            where = f"{_READ_WHERE[tool]}[{index}]"
            raise _refuse(outcome.code, f"{where}: {outcome.message}")
        shown.append(outcome)
    return shown


def _fact_args(tool: str, args: object) -> dict[str, Any]:
    """A preset tool's arguments checked against the contract: keys, required text, length."""
    spec = PRESET_TOOL_BY_NAME[tool]
    problem = envelope_problem(spec, args)
    if problem is not None:
        raise _refuse(ErrorCode.INVALID_ARGS, problem)
    assert isinstance(args, dict)
    for argument in spec.arguments:
        if argument.shape.get("type") != "string" or not argument.required:
            continue
        text = _text_arg(args, argument.key, tool, required=True)
        limit = argument.shape.get("maxLength")
        if isinstance(limit, int) and len(text) > limit:
            raise _refuse(
                ErrorCode.INVALID_ARGS,
                f"{tool}'s {argument.key} is {len(text)} characters, over the limit of {limit}; "
                f"ask for one fact in one sentence",
            )
    return args


def _units_written(raw: Any) -> Any:
    """The units a tagged value was written in, as the row keeps them (None when none)."""
    if not isinstance(raw, dict):
        return None
    fields = raw.get("object")
    if isinstance(fields, dict):
        written = {name: _units_written(field) for name, field in fields.items()}
        kept = {name: unit for name, unit in written.items() if unit is not None}
        return kept or None
    unit = raw.get("unit")
    return unit if type(unit) is str else None


def _unstorable_key(args: dict[str, Any]) -> str:
    """The argument whose text the record file could not hold, for the refusal."""
    for key, value in args.items():
        if type(value) is str and wire.holds_split_pair(value):
            return str(key)[:40]
    return "row"


def _no_extra(args: dict[str, Any], tool: str) -> None:
    if args.keys() <= _ALLOWED_KEYS[tool]:  # the common case, decided in C
        return
    allowed = TOOLS[tool]
    extra = next(key for key in args if key not in allowed)
    raise _refuse(ErrorCode.INVALID_ARGS, no_such_argument(tool, allowed, extra))


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
