"""The six operations (docs/reference/tools.md): each checks its arguments and answers
(receipt, row content).

An operation raises a `Refusal` to refuse; content None means the operation wrote its own
row (the record markers, and an eval without a reading, whose row needs no spelling
check), else the engine appends it before the receipt is answered. The
slot table and the open record are the only state they touch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reckoner.contract.checks import describe_json
from reckoner.contract.refusal import Refusal
from reckoner.core import ErrorCode, Failure, stored
from reckoner.core.api import as_failure, compile_formula, parse_value, run_program
from reckoner.units import resolve_unit

from .arguments import (
    EVAL_KEYS,
    NOT_READ,
    name_arg,
    no_extra,
    read_options,
    reading,
    readings,
    refused,
    rendered,
    settled,
    text_arg,
    units_written,
)
from .lifecycle import RecordTrace
from .slots import SlotTable, StoredValueError

Receipt = dict[str, Any]
Operation = Callable[[dict[str, Any]], tuple[Receipt, Any]]


class Operations:
    """set, get, eval and the three record markers over one slot table and one trace."""

    def __init__(self, slots: SlotTable, trace: RecordTrace) -> None:
        self._slots = slots
        self._trace = trace
        self.table: dict[str, Operation] = {
            "set": self.set,
            "get": self.get,
            "eval": self.eval,
            "record_start": self.record_start,
            "record_message": self.record_message,
            "record_end": self.record_end,
        }

    def set(self, args: dict[str, Any]) -> tuple[Receipt, dict[str, Any]]:
        name = name_arg(args, "name", "set's name")
        if "value" not in args:
            raise Refusal(
                ErrorCode.INVALID_ARGS,
                'set needs value: a tagged value such as {"num": 4.7e3, "dim": "ohm"}, '
                "or null to delete the slot",
            )
        raw = args["value"]
        # The value is an argument, so its own refusal comes before an extra key's (issue 3).
        value = None if raw is None else settled(parse_value(raw, resolve_unit))
        no_extra(args, "set")
        read = args.get("read")
        if value is None:
            if read is not None:
                raise Refusal(
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
        shown = NOT_READ if read is None else reading(value, readings(read, "set"), "set")
        form = stored(value)
        slot = self._slots.write(name, form, value)
        rev = slot.rev
        content = {"name": name, "value": slot.row_form()}
        unit = raw.get("unit")
        if type(unit) is str:
            content["unit"] = unit  # the row keeps the unit as the model transcribed it
        elif "object" in raw:
            written = units_written(raw)
            if written is not None:
                content["unit"] = written
        if shown is NOT_READ:
            return {"ok": True, "name": name, "rev": rev, "value": form}, content
        # The row's value is the stored input, so the reading goes under its own key.
        content["reading"] = shown
        return {"ok": True, "name": name, "rev": rev, "value": shown}, content

    def get(self, args: dict[str, Any]) -> tuple[Receipt, dict[str, Any]]:
        name = name_arg(args, "name", "get's name")
        # form, digits, dim and unit are arguments: checked in order, before extras and lookup.
        options = read_options(args, "get's")
        no_extra(args, "get")
        slot = self._slots.get(name)
        if slot is None:
            known = ", ".join(self._slots.names()) or "none yet"
            raise Refusal(
                ErrorCode.SLOT_NOT_FOUND,
                f"the slot {name} does not exist (slots now: {known}); set it if the question "
                f"gives it, or eval it first if it is a result, and otherwise stop and name it "
                f"as missing",
            )
        value = slot.value if slot.value is not None else self._materialize(name)
        try:
            shown = rendered(value, options)
        except Exception as error:
            raise refused(as_failure(error)) from None
        return {"ok": True, "name": name, "value": shown}, {"name": name, "value": shown}

    def eval(self, args: dict[str, Any]) -> tuple[Receipt, dict[str, Any] | None]:
        formula = args.get("formula")
        # The formula is the first argument: its shape and syntax refuse before the target's.
        program = compile_formula(formula)
        if isinstance(program, Failure):
            raise refused(program)
        target = args.get("target")
        if target is None:
            raise Refusal(
                ErrorCode.INVALID_ARGS,
                'eval needs target: the bare name of the slot to write, such as "P"',
            )
        slots = self._slots
        if type(target) is not str or target not in slots:
            # A name already in the table is known to be valid; any other is checked.
            target = name_arg(args, "target", "eval's target")
        asked = None
        if len(args) > 2:  # formula and target alone are eval's own keys: nothing to check
            if not args.keys() <= EVAL_KEYS:
                no_extra(args, "eval")
            read = args.get("read")
            if read is not None:
                asked = readings(read, "eval")
        try:
            outcome = run_program(program, slots.formula_view())
        except StoredValueError as error:
            raise Refusal(ErrorCode.UNKNOWN_ERROR, f"internal error: {error}") from None
        if isinstance(outcome, Failure):
            raise refused(outcome)
        # The reading is part of the call: a unit of the wrong vector refuses before the write.
        shown = NOT_READ if asked is None else reading(outcome.value, asked, "eval")
        written = slots.write(target, None, outcome.value)
        rev = written.rev
        content = {
            "formula": formula,
            "target": target,
            "rev": rev,
            "vars": self._reads(outcome.reads),
            "result": written.row_form(),
        }
        if shown is not NOT_READ:
            content["value"] = shown
            return {"ok": True, "target": target, "rev": rev, "value": shown}, content
        # Its vars are slot rows and its result a stored form, all in the stored spelling
        # (service.slots): the row is written here without the scan for whole doubles.
        self._trace.append("eval", True, content, plain=True)
        return {"ok": True, "target": target, "rev": rev}, None

    def _reads(self, reads: dict[str, Any]) -> dict[str, Any]:
        """The slots a formula read, as its row keeps them."""
        kept = {}
        slot_of = self._slots.get
        for name, value in reads.items():
            slot = slot_of(name)
            if slot is None or slot.value is not value:
                # A formula may read the slot it overwrites: the row keeps the value it read.
                kept[name] = stored(value)
            else:
                kept[name] = slot.row if slot.row is not None else slot.row_form()
        return kept

    def record_start(self, args: dict[str, Any]) -> tuple[Receipt, None]:
        record = self._trace.record
        if record is not None:
            raise Refusal(
                ErrorCode.OPEN_RECORD_FOUND,
                f"a record is already open ({record.record_id}, titled "
                f"{record.title[:80]!r}); finish it with record_end before starting "
                f"another",
            )
        title = text_arg(args, "title", "record_start")
        no_extra(args, "record_start")
        self._trace.start(title)
        self._slots.clear()
        return {"ok": True}, None

    def record_message(self, args: dict[str, Any]) -> tuple[Receipt, dict[str, Any]]:
        text = text_arg(args, "text", "record_message")
        hide = args.get("hide")
        if hide is not None and type(hide) is not bool:
            raise Refusal(
                ErrorCode.INVALID_ARGS,
                f"record_message's hide must be true or false, but it is {describe_json(hide)}",
            )
        no_extra(args, "record_message")
        content: dict[str, Any] = {"text": text}
        if hide:
            content["hide"] = True
        return self._checked(content, text, "the text")

    def record_end(self, args: dict[str, Any]) -> tuple[Receipt, None]:
        text = args.get("text")
        if text is not None and type(text) is not str:
            raise Refusal(
                ErrorCode.INVALID_ARGS,
                f"record_end's text must be a string (the closing text) or omitted, but it is "
                f"{describe_json(text)}",
            )
        no_extra(args, "record_end")
        record = self._trace.record
        assert record is not None
        content: dict[str, Any] = {"record": record.record_id}
        receipt: Receipt = {"ok": True}
        if text is not None and text.strip():
            content = {"text": text, "record": record.record_id}
            receipt, content = self._checked(content, text, "the closing text")
        self._trace.end(content)
        self._slots.clear()
        return receipt, None

    def _checked(
        self, content: dict[str, Any], text: str, place: str
    ) -> tuple[Receipt, dict[str, Any]]:
        """The prose is kept; a number in it that the record does not back is named in a
        warning, on the receipt and in the row alike (issue 27)."""
        record = self._trace.record
        assert record is not None
        warnings = record.shown.warnings(text, place)
        if not warnings:
            return {"ok": True}, content
        content["warnings"] = warnings
        return {"ok": True, "warnings": list(warnings)}, content

    def _materialize(self, name: str) -> Any:
        try:
            return self._slots.materialize(name)
        except StoredValueError as error:
            raise Refusal(
                ErrorCode.UNKNOWN_ERROR,
                f"internal error: the stored value of {name} is unreadable: {error}",
            ) from None
