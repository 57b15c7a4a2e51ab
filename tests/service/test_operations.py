"""docs/reference/tools.md: the six operations, their receipts and the slot table's rules.

Every malformed argument of every tool is pinned to its code, and to the rule that a failed
call changes nothing: the slot table and the record file are compared before and after, and
the only change is the one refused row (docs/reference/tools.md and docs/guide/records.md and
docs/reference/codes.md).
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
from service_helpers import HEADER, KELVIN, OHM, VOLT, WATT, file_lines, home_files, open_file

from reckoner import Engine, wire

# -- 2.1 / 2.2: each operation's receipt, exactly ----------------------------------------


def test_set_receipt_echoes_the_stored_value_with_dim_as_7_integers(engine: Engine) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    engine.call("record_start", {"title": "Divider"})
    receipt = engine.call("set", {"name": "R1", "value": {"num": 4.7e3, "dim": "ohm"}})
    assert receipt == {"ok": True, "name": "R1", "rev": 1, "value": {"num": 4700, "dim": OHM}}
    # The receipt is JSON through the wire form: compact, whole doubles without ".0".
    assert wire.dumps(receipt) == (
        b'{"ok":true,"name":"R1","rev":1,"value":{"num":4700,"dim":[2,1,-3,-2,0,0,0]}}'
    )


def test_set_echoes_a_receipt_for_each_value_type(engine: Engine) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    engine.call("record_start", {"title": "Values"})
    cases: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({"re": 3, "im": 4, "dim": "ohm"}, {"re": 3, "im": 4, "dim": OHM}),
        ({"array": [1, 2.5], "dim": "volt"}, {"array": [1, 2.5], "dim": VOLT}),
        (
            {"object": {"v": {"num": 12, "dim": "volt"}, "n": {"num": 2}}},
            {"object": {"v": {"num": 12, "dim": VOLT}, "n": {"num": 2, "dim": [0] * 7}}},
        ),
        # 3.3: degC is mapped into SI before it is stored.
        ({"num": 25, "dim": "degC"}, {"num": 298.15, "dim": KELVIN}),
        ({"num": 1, "dim": [1, 0, -1, 0, 0, 0, 0]}, {"num": 1, "dim": [1, 0, -1, 0, 0, 0, 0]}),
    ]
    for index, (given, echoed) in enumerate(cases):
        receipt = engine.call("set", {"name": f"x{index}", "value": given})
        assert receipt == {"ok": True, "name": f"x{index}", "rev": 1, "value": echoed}


def test_polar_set_is_stored_rectangular(engine: Engine) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    engine.call("record_start", {"title": "Polar"})
    receipt = engine.call("set", {"name": "Z", "value": {"mag": 2, "ang": 0}})
    assert receipt["value"] == {"re": 2, "im": 0, "dim": [0] * 7}


def test_get_receipt_carries_the_first_table_name(recording: Engine) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    assert recording.call("get", {"name": "V"}) == {
        "ok": True,
        "name": "V",
        "value": {"num": 12, "dim": "volt"},
    }


def test_get_receipt_carries_the_dim_asked_for(recording: Engine) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    recording.call("set", {"name": "T", "value": {"num": 25, "dim": "degC"}})
    as_celsius = recording.call("get", {"name": "T", "dim": "degC"})
    assert as_celsius["value"]["dim"] == "degC"
    assert as_celsius["value"]["num"] == pytest.approx(25)
    assert recording.call("get", {"name": "T"})["value"] == {"num": 298.15, "dim": "kelvin"}
    assert recording.call("get", {"name": "V", "dim": VOLT})["value"] == {"num": 12, "dim": VOLT}


def test_get_form_and_digits_reach_the_receipt(recording: Engine) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    recording.call("set", {"name": "Z", "value": {"re": 3, "im": 4, "dim": "ohm"}})
    polar = recording.call("get", {"name": "Z", "form": "polar", "digits": 3})
    shown = {"mag": 5, "ang": 0.927, "text": "5.00\u22200.927", "dim": "ohm"}
    assert polar == {"ok": True, "name": "Z", "value": shown}
    rect = recording.call("get", {"name": "V", "form": "rect"})
    assert rect["value"] == {"re": 12, "im": 0, "dim": "volt"}


def test_eval_receipt_names_target_and_revision_only(recording: Engine) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    receipt = recording.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
    assert receipt == {"ok": True, "target": "P", "rev": 1}
    value = recording.call("get", {"name": "P"})["value"]
    assert value["dim"] == "watt"
    assert value["num"] == pytest.approx(144 / 4700)


def test_markers_answer_ok_and_nothing_else(engine: Engine) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    assert engine.call("record_start", {"title": "Markers"}) == {"ok": True}
    assert engine.call("record_message", {"text": "Why"}) == {"ok": True}
    assert engine.call("record_message", {"text": "Note", "hide": True}) == {"ok": True}
    assert engine.call("record_end", {"text": "Done"}) == {"ok": True}


def test_receipts_round_trip_get_into_set(recording: Engine) -> None:
    """3.4: the get receipt is the tagged shape set accepts back.
    Spec: docs/reference/tools.md (receipts)."""
    recording.call("set", {"name": "Z", "value": {"re": 3, "im": 4, "dim": "ohm"}})
    shown = recording.call("get", {"name": "Z", "form": "polar"})["value"]
    again = recording.call("set", {"name": "Z2", "value": shown})
    assert again["value"]["dim"] == OHM
    assert again["value"]["re"] == pytest.approx(3)
    assert again["value"]["im"] == pytest.approx(4)


# -- 2.3: the slot table's rules ---------------------------------------------------------


def test_write_creates_at_revision_1_and_overwrite_increments(recording: Engine) -> None:
    """Spec: docs/guide/formulas.md (the slot table and its rules)."""
    assert recording.slot_snapshot()["V"] == (1, {"num": 12, "dim": VOLT})
    second = recording.call("set", {"name": "V", "value": {"num": 5, "dim": "volt"}})
    assert second["rev"] == 2
    # No vector is pinned: any value may overwrite.
    third = recording.call("set", {"name": "V", "value": {"array": [1, 2]}})
    assert third == {"ok": True, "name": "V", "rev": 3, "value": {"array": [1, 2], "dim": [0] * 7}}
    assert recording.call("eval", {"formula": "2*@R", "target": "V"}) == {
        "ok": True,
        "target": "V",
        "rev": 4,
    }
    assert recording.slot_snapshot()["V"] == (4, {"num": 9400, "dim": OHM})


def test_delete_is_idempotent_and_recreates_at_revision_1(recording: Engine) -> None:
    """Spec: docs/guide/formulas.md (the slot table and its rules)."""
    recording.call("set", {"name": "V", "value": {"num": 5, "dim": "volt"}})
    deleted = recording.call("set", {"name": "V", "value": None})
    assert deleted == {"ok": True, "name": "V", "rev": None, "value": None}
    assert "V" not in recording.slot_snapshot()
    assert recording.call("set", {"name": "V", "value": None}) == deleted
    assert recording.call("set", {"name": "never", "value": None})["ok"] is True
    assert recording.call("get", {"name": "V"})["code"] == "ENGINE_SLOT_NOT_FOUND"
    recreated = recording.call("set", {"name": "V", "value": {"num": 1, "dim": "volt"}})
    assert recreated["rev"] == 1


def test_eval_creates_its_target_at_1_and_a_delete_resets_it(recording: Engine) -> None:
    """Spec: docs/guide/formulas.md (the slot table and its rules)."""
    assert recording.call("eval", {"formula": "@V/@R", "target": "I"})["rev"] == 1
    assert recording.call("eval", {"formula": "@V/@R", "target": "I"})["rev"] == 2
    recording.call("set", {"name": "I", "value": None})
    assert recording.call("eval", {"formula": "@V/@R", "target": "I"})["rev"] == 1


def test_get_changes_no_revision(recording: Engine) -> None:
    """Spec: docs/guide/formulas.md (the slot table and its rules)."""
    before = recording.slot_snapshot()
    recording.call("get", {"name": "V", "form": "polar", "digits": 2, "dim": "volt"})
    assert recording.slot_snapshot() == before


def test_record_end_clears_the_table(recording: Engine) -> None:
    """Spec: docs/guide/formulas.md (the slot table and its rules)."""
    assert recording.call("record_end", {}) == {"ok": True}
    assert recording.slot_snapshot() == {}
    assert recording.open_record_id is None
    recording.call("record_start", {"title": "Next"})
    assert recording.slot_snapshot() == {}
    assert recording.call("get", {"name": "V"})["code"] == "ENGINE_SLOT_NOT_FOUND"
    assert recording.call("set", {"name": "V", "value": {"num": 1}})["rev"] == 1


def test_record_start_begins_with_an_empty_table(engine: Engine) -> None:
    """Spec: docs/guide/formulas.md (the slot table and its rules)."""
    engine.call("record_start", {"title": "First"})
    assert engine.slot_snapshot() == {}
    assert engine.open_record_id is not None


# -- 7.1: the gate comes first -----------------------------------------------------------

GATED_CALLS: list[tuple[str, Any]] = [
    ("set", {"name": "V", "value": {"num": 1}}),
    ("set", {}),
    ("set", {"name": 5, "bogus": True}),
    ("set", None),
    ("set", [1, 2]),
    ("get", {"name": "V"}),
    ("get", {"name": "@V", "form": "bad"}),
    ("get", "V"),
    ("eval", {"formula": "1+1", "target": "x"}),
    ("eval", {"formula": "1+", "target": 5}),
    ("eval", 42),
    ("record_message", {"text": "hello"}),
    ("record_message", {"text": "   ", "hide": "no"}),
    ("record_message", None),
    ("record_end", {}),
    ("record_end", {"text": 5, "extra": 1}),
    ("record_end", "bye"),
]


@pytest.mark.parametrize(("tool", "args"), GATED_CALLS)
def test_gate_first_no_record_means_open_record_not_found_and_nothing_written(
    engine: Engine, tool: str, args: Any
) -> None:
    """Spec: docs/guide/records.md (the three markers)."""
    before = home_files(engine.home)
    receipt = engine.call(tool, args)
    assert receipt["ok"] is False
    assert receipt["code"] == "ENGINE_OPEN_RECORD_NOT_FOUND"
    assert set(receipt) == {"ok", "code", "error"}
    assert "record_start" in receipt["error"]
    assert home_files(engine.home) == before
    assert not open_file(engine).exists()
    assert engine.slot_snapshot() == {}


def test_gate_also_holds_after_record_end(recording: Engine) -> None:
    """Spec: docs/guide/records.md (the three markers)."""
    recording.call("record_end", {})
    before = home_files(recording.home)
    assert recording.call("eval", {"formula": "1", "target": "x"})["code"] == (
        "ENGINE_OPEN_RECORD_NOT_FOUND"
    )
    assert recording.call("record_end", {})["code"] == "ENGINE_OPEN_RECORD_NOT_FOUND"
    assert home_files(recording.home) == before


# -- 2.2 / 8.1: every malformed argument gets its code and changes nothing ----------------

MALFORMED: list[tuple[str, Any, str]] = [
    # set: name, then value, then extra keys
    ("set", {}, "ENGINE_INVALID_ARGS"),
    ("set", {"value": {"num": 1}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": None, "value": {"num": 1}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": 5, "value": {"num": 1}}, "ENGINE_INVALID_IDENTIFIER"),
    ("set", {"name": ["V"], "value": {"num": 1}}, "ENGINE_INVALID_IDENTIFIER"),
    ("set", {"name": "1V", "value": {"num": 1}}, "ENGINE_INVALID_IDENTIFIER"),
    ("set", {"name": "@V", "value": {"num": 1}}, "ENGINE_INVALID_IDENTIFIER"),
    ("set", {"name": "", "value": {"num": 1}}, "ENGINE_INVALID_IDENTIFIER"),
    ("set", {"name": "V"}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": 12}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": "12 V"}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": {}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": {"num": 1, "re": 1, "im": 1}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": {"re": 1}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": {"mag": 1}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": {"num": "12"}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": {"num": None}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": {"num": True}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": {"num": 1, "units": "V"}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": {"array": 5}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": {"array": [1, {"num": 2}]}}, "ENGINE_INVALID_ARGS"),
    ("set", {"name": "V", "value": {"object": [1]}}, "ENGINE_INVALID_ARGS"),
    (
        "set",
        {"name": "V", "value": {"object": {"a": {"num": 1}}, "dim": "volt"}},
        "ENGINE_INVALID_ARGS",
    ),
    ("set", {"name": "V", "value": {"object": {"1a": {"num": 1}}}}, "ENGINE_INVALID_IDENTIFIER"),
    ("set", {"name": "V", "value": {"num": 1, "dim": "furlong"}}, "ENGINE_INVALID_DIMENSION"),
    ("set", {"name": "V", "value": {"num": 1, "dim": [1, 2]}}, "ENGINE_INVALID_DIMENSION"),
    (
        "set",
        {"name": "V", "value": {"num": 1, "dim": [1, 0, 0, 0, 0, 0, 0.5]}},
        "ENGINE_INVALID_DIMENSION",
    ),
    ("set", {"name": "V", "value": {"num": 1}, "unit": "V"}, "ENGINE_INVALID_ARGS"),
    # order: name before value, value before extra keys
    ("set", {"name": 5, "value": {"num": 1, "dim": "furlong"}}, "ENGINE_INVALID_IDENTIFIER"),
    (
        "set",
        {"name": "V", "value": {"num": 1, "dim": "furlong"}, "unit": "V"},
        "ENGINE_INVALID_DIMENSION",
    ),
    # get: name, form, digits, dim, then extra keys, then the slot itself
    ("get", {}, "ENGINE_INVALID_ARGS"),
    ("get", {"name": None}, "ENGINE_INVALID_ARGS"),
    ("get", {"name": 7}, "ENGINE_INVALID_IDENTIFIER"),
    ("get", {"name": "@V"}, "ENGINE_INVALID_IDENTIFIER"),
    ("get", {"name": "missing"}, "ENGINE_SLOT_NOT_FOUND"),
    ("get", {"name": "V", "form": "cartesian"}, "ENGINE_INVALID_ARGS"),
    ("get", {"name": "V", "form": 1}, "ENGINE_INVALID_ARGS"),
    ("get", {"name": "V", "digits": 0}, "ENGINE_INVALID_ARGS"),
    ("get", {"name": "V", "digits": -2}, "ENGINE_INVALID_ARGS"),
    ("get", {"name": "V", "digits": 2.5}, "ENGINE_INVALID_ARGS"),
    ("get", {"name": "V", "digits": "3"}, "ENGINE_INVALID_ARGS"),
    ("get", {"name": "V", "digits": True}, "ENGINE_INVALID_ARGS"),
    ("get", {"name": "V", "dim": "furlong"}, "ENGINE_INVALID_DIMENSION"),
    ("get", {"name": "V", "dim": [1, 2, 3]}, "ENGINE_INVALID_DIMENSION"),
    ("get", {"name": "V", "dim": "ohm"}, "ENGINE_INCOMPATIBLE_DIMENSION"),
    ("get", {"name": "V", "dim": [0, 0, 0, 0, 0, 0, 0]}, "ENGINE_INCOMPATIBLE_DIMENSION"),
    ("get", {"name": "V", "units": "V"}, "ENGINE_INVALID_ARGS"),
    ("get", {"name": "V", "form": "bad", "units": "V"}, "ENGINE_INVALID_ARGS"),
    ("get", {"name": "V", "dim": "furlong", "units": "V"}, "ENGINE_INVALID_DIMENSION"),
    ("get", {"name": "missing", "dim": "furlong"}, "ENGINE_INVALID_DIMENSION"),
    ("get", {"name": "missing", "units": "V"}, "ENGINE_INVALID_ARGS"),
    # eval: formula, then target, then extra keys, then the evaluation
    ("eval", {}, "ENGINE_INVALID_ARGS"),
    ("eval", {"target": "P"}, "ENGINE_INVALID_ARGS"),
    ("eval", {"formula": None, "target": "P"}, "ENGINE_INVALID_ARGS"),
    ("eval", {"formula": 5, "target": "P"}, "ENGINE_INVALID_ARGS"),
    ("eval", {"formula": ["@V"], "target": "P"}, "ENGINE_INVALID_ARGS"),
    ("eval", {"formula": "@V*"}, "ENGINE_INVALID_FORMULA"),
    ("eval", {"formula": "@V*2"}, "ENGINE_INVALID_ARGS"),
    ("eval", {"formula": "@V*2", "target": None}, "ENGINE_INVALID_ARGS"),
    ("eval", {"formula": "@V*2", "target": 5}, "ENGINE_INVALID_IDENTIFIER"),
    ("eval", {"formula": "@V*2", "target": "@P"}, "ENGINE_INVALID_IDENTIFIER"),
    ("eval", {"formula": "@V*2", "target": "P Q"}, "ENGINE_INVALID_IDENTIFIER"),
    ("eval", {"formula": "@V*2", "target": "P", "unit": "W"}, "ENGINE_INVALID_ARGS"),
    ("eval", {"formula": "(@V", "target": "P"}, "ENGINE_INVALID_FORMULA"),
    ("eval", {"formula": "2e", "target": "P"}, "ENGINE_INVALID_NUMBER"),
    ("eval", {"formula": "1E5", "target": "P"}, "ENGINE_INVALID_IDENTIFIER"),
    ("eval", {"formula": "$nosuch(1)", "target": "P"}, "ENGINE_INVALID_NOTATION"),
    ("eval", {"formula": "@missing*2", "target": "P"}, "ENGINE_SLOT_NOT_FOUND"),
    ("eval", {"formula": "@V+@R", "target": "P"}, "ENGINE_INCOMPATIBLE_DIMENSION"),
    ("eval", {"formula": "$sqrt(@V)", "target": "P"}, "ENGINE_INCOMPATIBLE_DIMENSION"),
    ("eval", {"formula": "@V/0", "target": "P"}, "ENGINE_UNDEFINED_RESULT"),
    ("eval", {"formula": "x", "target": "P"}, "ENGINE_NAME_NOT_BOUND"),
    ("eval", {"formula": "@V.a", "target": "P"}, "ENGINE_UNSUPPORTED_INDEX"),
    # order: the formula's text before the target, the target before extras, extras first
    ("eval", {"formula": "1+", "target": 5}, "ENGINE_INVALID_FORMULA"),
    ("eval", {"formula": "1+", "target": "P", "unit": "W"}, "ENGINE_INVALID_FORMULA"),
    ("eval", {"formula": "@missing", "target": 5}, "ENGINE_INVALID_IDENTIFIER"),
    ("eval", {"formula": "@missing", "target": "P", "unit": "W"}, "ENGINE_INVALID_ARGS"),
    # record_start while a record is open: the refusal is itself a row
    ("record_start", {"title": "Another"}, "ENGINE_OPEN_RECORD_FOUND"),
    ("record_start", {}, "ENGINE_OPEN_RECORD_FOUND"),
    ("record_start", {"title": 5, "extra": 1}, "ENGINE_OPEN_RECORD_FOUND"),
    # record_message: text, hide, then extra keys
    ("record_message", {}, "ENGINE_INVALID_ARGS"),
    ("record_message", {"text": None}, "ENGINE_INVALID_ARGS"),
    ("record_message", {"text": ""}, "ENGINE_INVALID_ARGS"),
    ("record_message", {"text": " \t\n "}, "ENGINE_INVALID_ARGS"),
    ("record_message", {"text": 5}, "ENGINE_INVALID_ARGS"),
    ("record_message", {"text": "ok", "hide": "yes"}, "ENGINE_INVALID_ARGS"),
    ("record_message", {"text": "ok", "hide": 1}, "ENGINE_INVALID_ARGS"),
    ("record_message", {"text": "ok", "mood": "calm"}, "ENGINE_INVALID_ARGS"),
    # record_end: text, then extra keys; a refused end keeps the record open
    ("record_end", {"text": 5}, "ENGINE_INVALID_ARGS"),
    ("record_end", {"text": ["bye"]}, "ENGINE_INVALID_ARGS"),
    ("record_end", {"text": "bye", "summary": "x"}, "ENGINE_INVALID_ARGS"),
]
# Args that are not an object, for every tool (the record is open, so the gate passes).
MALFORMED += [
    (tool, bad, "ENGINE_INVALID_ARGS")
    for tool in ("set", "get", "eval", "record_message", "record_end")
    for bad in (None, [], "x", 3)
]


def _slot_rows(path: Path) -> list[bytes]:
    """The lines replay reads (header and every row) - compared whole before and after."""
    return file_lines(path)


@pytest.mark.parametrize(("tool", "args", "code"), MALFORMED)
def test_malformed_argument_gets_its_code_and_changes_nothing(
    recording: Engine, tool: str, args: Any, code: str
) -> None:
    """Spec: docs/reference/codes.md (the failure shape)."""
    recording.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
    slots_before = recording.slot_snapshot()
    lines_before = _slot_rows(open_file(recording))
    record_before = recording.open_record_id
    receipt = recording.call(tool, args)
    assert receipt["ok"] is False, receipt
    assert receipt["code"] == code, receipt
    assert set(receipt) == {"ok", "code", "error"}
    assert isinstance(receipt["error"], str) and receipt["error"].strip()
    assert "Traceback" not in receipt["error"]
    assert recording.slot_snapshot() == slots_before
    assert recording.open_record_id == record_before
    lines_after = _slot_rows(open_file(recording))
    assert lines_after[: len(lines_before)] == lines_before
    assert len(lines_after) == len(lines_before) + 1
    refused = wire.loads(lines_after[-1])
    last_seq = wire.loads(lines_before[-1])["seq"]
    assert refused == {
        "seq": last_seq + 1,
        "at": refused["at"],
        "tool": tool,
        "ok": False,
        "content": {"code": code, "error": receipt["error"]},
    }


def test_extra_key_refusal_names_the_allowed_keys(recording: Engine) -> None:
    """Spec: docs/reference/codes.md (the failure shape)."""
    receipt = recording.call("eval", {"formula": "1", "target": "x", "unit": "W"})
    assert "'unit'" in receipt["error"]
    assert "formula, target" in receipt["error"]
    receipt = recording.call("get", {"name": "V", "units": "V"})
    assert "name, form, digits, dim" in receipt["error"]


def test_value_error_comes_before_an_extra_key(recording: Engine) -> None:
    """Spec: docs/reference/codes.md (the failure shape)."""
    receipt = recording.call("set", {"name": "V", "value": {"bogus": 1}, "colour": "V"})
    assert receipt["code"] == "ENGINE_INVALID_ARGS"
    assert "colour" not in receipt["error"]


def test_message_text_checked_before_hide(recording: Engine) -> None:
    """Spec: docs/reference/codes.md (the failure shape)."""
    receipt = recording.call("record_message", {"text": "  ", "hide": "yes"})
    assert "text" in receipt["error"]
    assert "hide" not in receipt["error"]


def test_unknown_tool_is_a_receipt_and_no_row(recording: Engine) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    lines_before = file_lines(open_file(recording))
    for tool in ("solve", "", None, 5, "SET", "search"):
        receipt = recording.call(tool, {"name": "V"})
        assert receipt["ok"] is False
        assert receipt["code"] == "ENGINE_INVALID_ARGS"
        assert "set, get, eval, record_start, record_message, record_end" in receipt["error"]
    assert file_lines(open_file(recording)) == lines_before


def test_unknown_tool_without_a_record_is_invalid_args(engine: Engine) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    assert engine.call("frobnicate", {})["code"] == "ENGINE_INVALID_ARGS"


def test_record_start_malformed_without_record_writes_nothing(engine: Engine) -> None:
    """Spec: docs/reference/codes.md (the failure shape)."""
    before = home_files(engine.home)
    for args in ({}, {"title": ""}, {"title": "   "}, {"title": 5}, {"title": None}, None, "t"):
        receipt = engine.call("record_start", args)
        assert receipt["code"] == "ENGINE_INVALID_ARGS", (args, receipt)
    receipt = engine.call("record_start", {"title": "ok", "author": "me"})
    assert receipt["code"] == "ENGINE_INVALID_ARGS"
    assert home_files(engine.home) == before
    assert engine.open_record_id is None


def test_failed_record_end_keeps_record_and_slots(recording: Engine) -> None:
    """Spec: docs/reference/codes.md (the failure shape)."""
    record = recording.open_record_id
    slots = recording.slot_snapshot()
    assert recording.call("record_end", {"text": 5})["ok"] is False
    assert recording.open_record_id == record
    assert recording.slot_snapshot() == slots
    assert open_file(recording).exists()


def test_blank_closing_text_counts_as_absent(recording: Engine) -> None:
    """Spec: docs/guide/records.md (the three markers)."""
    record = recording.open_record_id
    assert recording.call("record_end", {"text": "  \n "}) == {"ok": True}
    closed = recording.home / "records" / f"{record}.jsonl"
    last = wire.loads(file_lines(closed)[-1])
    assert last["content"] == {"record": record}


def test_closed_engine_answers_a_receipt(home: Path) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    engine = Engine(home)
    engine.call("record_start", {"title": "T"})
    engine.close()
    receipt = engine.call("set", {"name": "V", "value": {"num": 1}})
    assert receipt["ok"] is False
    assert receipt["code"] == "ENGINE_INVALID_ARGS"
    engine.close()  # closing twice is harmless


def test_internal_fault_is_unknown_error_and_a_row(recording: Engine) -> None:
    """8.1: an unexpected fault is ENGINE_UNKNOWN_ERROR 'internal error: ...', never raised.
    Spec: docs/reference/codes.md (the failure shape)."""

    def broken(args: dict[str, Any]) -> Any:
        raise RuntimeError("boom")

    recording._operations["get"] = broken
    slots = recording.slot_snapshot()
    receipt = recording.call("get", {"name": "V"})
    assert receipt["code"] == "ENGINE_UNKNOWN_ERROR"
    assert receipt["error"].startswith("internal error: ")
    assert recording.slot_snapshot() == slots
    row = wire.loads(file_lines(open_file(recording))[-1])
    assert row["ok"] is False and row["content"]["code"] == "ENGINE_UNKNOWN_ERROR"


def test_a_fault_after_the_write_leaves_the_slot_as_it_was(recording: Engine) -> None:
    """8.1: a failed call changes nothing, even when the fault comes after the slot was
    written (here: the trace row's writer fails unexpectedly).
    Spec: docs/reference/codes.md (the failure shape)."""
    recording.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
    slots = recording.slot_snapshot()

    def broken(row: dict[str, Any]) -> None:
        raise RuntimeError("the writer broke")

    recording._journal.append = broken  # type: ignore[method-assign]
    receipt = recording.call("eval", {"formula": "2*(@V)^2/@R", "target": "P"})
    assert receipt["ok"] is False and receipt["code"] == "ENGINE_UNKNOWN_ERROR"
    assert recording.slot_snapshot() == slots
    receipt = recording.call("set", {"name": "fresh", "value": {"num": 1}})
    assert receipt["code"] == "ENGINE_UNKNOWN_ERROR"
    assert "fresh" not in recording.slot_snapshot()


def test_started_file_begins_with_the_header(recording: Engine) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    assert open_file(recording).read_bytes().startswith(HEADER)


def test_eval_result_dims_follow_the_formula(recording: Engine) -> None:
    """Spec: docs/reference/tools.md (receipts)."""
    recording.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
    assert recording.slot_snapshot()["P"][1]["dim"] == WATT


@pytest.mark.parametrize("number", [1e19, -1e20, 2.0**64, 9.007199254740993e15, 1e300, 5e-324])
def test_any_finite_number_is_stored_written_and_replayed(home: Path, number: float) -> None:
    """7.3: every finite double survives the trip set -> row -> replay (no internal error).
    Spec: docs/guide/records.md (the record file)."""
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Big"})
        receipt = engine.call("set", {"name": "x", "value": {"num": number}})
        assert receipt["ok"] is True, receipt
        assert receipt["value"]["num"] == number
        grown = engine.call("eval", {"formula": "@x*2", "target": "y"})
        assert grown["ok"] is True, grown
        row = wire.loads(file_lines(open_file(engine))[-1])
        assert row["ok"] is True and row["content"]["result"]["num"] == number * 2
        before = engine.slot_snapshot()
    with Engine(home) as again:
        assert again.slot_snapshot() == before
        assert again.call("get", {"name": "x"})["value"]["num"] == number


def test_an_unwritable_row_refuses_the_call_and_leaves_no_seq_gap(
    recording: Engine,
) -> None:
    """Issue 8 (against docs/guide/records.md): a trace append that fails refuses the call, which
    then
    changes nothing; seq continues without a gap.
    Spec: docs/guide/records.md (issue 8)."""
    journal = recording._journal
    real_append = journal.append

    def failing(row: dict[str, Any], **options: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    journal.append = failing  # type: ignore[method-assign]
    receipt = recording.call("set", {"name": "lost", "value": {"num": 1}})
    journal.append = real_append  # type: ignore[method-assign]
    assert receipt["ok"] is False and receipt["code"] == "ENGINE_UNKNOWN_ERROR"
    assert receipt["error"].startswith("the record could not be written: no space left")
    assert "lost" not in recording.slot_snapshot()
    recording.call("record_message", {"text": "after"})
    seqs = [wire.loads(line)["seq"] for line in file_lines(open_file(recording))[1:]]
    assert seqs == list(range(1, len(seqs) + 1))
