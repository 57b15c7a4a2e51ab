"""Issue 8 (speed) against docs/guide/records.md: an eval over arrays writes its row from numpy, yet
the row is byte for byte what the stored forms spell, and a replay stores the same slots.

The slot of an eval's array keeps the value and builds its stored form only when asked;
each array a row carries is spelled once per revision and embedded in every later row.
"""

from __future__ import annotations

import math
from pathlib import Path

from service_helpers import OHM, file_lines, open_file

from reckoner import Engine, wire
from reckoner.core import Failure, parse_value
from reckoner.service.slots import SlotTable


def _arrays() -> tuple[list[float], list[float]]:
    x = [0.25 * k + 0.1 for k in range(2_000)]
    x[0], x[7], x[9] = 0.0, -0.0, 12.0  # whole doubles and a signed zero among fractions
    y = [math.sin(k) for k in range(2_000)]
    return x, y


def test_an_array_eval_row_is_the_bytes_of_its_stored_forms(home: Path) -> None:
    """7.2: {formula, target, rev, vars, result}, vars holding every array read with its
    full value: the line equals the row rebuilt from the stored forms, written plainly.
    Spec: docs/guide/records.md (trace rows)."""
    x, y = _arrays()
    with Engine(home, clock=lambda: 1_700_000_000_000) as engine:
        assert engine.call("record_start", {"title": "arrays"})["ok"]
        for name, values in (("x", x), ("y", y)):
            tagged = {"array": values, "dim": "ohm"}
            assert engine.call("set", {"name": name, "value": tagged})["ok"]
        for formula in ("@x*2 + @y", "@x - @y", "-@x", "@out*0"):
            assert engine.call("eval", {"formula": formula, "target": "out"})["ok"]
        snapshot = engine.slot_snapshot()
        lines = file_lines(open_file(engine))
    stored_x, stored_y, stored_out = (snapshot[name][1] for name in ("x", "y", "out"))
    assert stored_x == {"array": [0, 0.35, *[0.25 * k + 0.1 for k in range(2, 7)], -0.0,
                                  2.1, 12, *[0.25 * k + 0.1 for k in range(10, 2_000)]],
                        "dim": OHM}  # fmt: skip
    set_row = wire.loads(lines[2])
    assert lines[2] == wire.dumps(
        {**set_row, "content": {"name": "x", "value": stored_x}}
    )  # the set row too spells the array as its stored form
    last = wire.loads(lines[-1])
    assert last["content"]["formula"] == "@out*0"
    rebuilt_vars = {"out": last["content"]["vars"]["out"]}
    assert lines[-1] == wire.dumps(
        {**last, "content": {**last["content"], "vars": rebuilt_vars, "result": stored_out}}
    )
    first_eval = wire.loads(lines[4])
    assert first_eval["content"]["vars"] == {"x": stored_x, "y": stored_y}
    assert lines[4] == wire.dumps(first_eval)


def test_replaying_array_evals_stores_the_same_slots_bit_for_bit(home: Path) -> None:
    """7.4 and issue 8's round trip: after a restart every slot, each an eval's array built
    from numpy, is the stored form written live, and a get answers the same.
    Spec: docs/guide/records.md (recovery by replay)."""
    x, y = _arrays()
    with Engine(home) as engine:
        engine.call("record_start", {"title": "arrays"})
        engine.call("set", {"name": "x", "value": {"array": x}})
        engine.call("set", {"name": "y", "value": {"array": y}})
        engine.call("eval", {"formula": "@x/4 - @y", "target": "z"})
        engine.call("eval", {"formula": "$seq_{k=0}^{99}(@x[k]*k)", "target": "s"})
        live = engine.slot_snapshot()
        got_live = engine.call("get", {"name": "z"})
    with Engine(home) as engine:
        assert engine.slot_snapshot() == live
        assert engine.call("get", {"name": "z"}) == got_live
        # A formula reads the replayed values (built on first read) exactly as live ones.
        engine.call("eval", {"formula": "@z - (@x/4 - @y)", "target": "zero"})
        zero = engine.call("get", {"name": "zero"})["value"]["array"]
        assert all(v == 0 for v in zero)


def test_an_array_result_read_back_exactly_is_its_stored_form(recording: Engine) -> None:
    """3.4: an exact get of an eval's array answers the stored form, built on demand.
    Spec: docs/guide/formulas.md (get and its reading options)."""
    recording.call("set", {"name": "a", "value": {"array": [1.5, -0.0, 2.0], "dim": "volt"}})
    assert recording.call("eval", {"formula": "@a*2", "target": "b"})["ok"]
    value = recording.call("get", {"name": "b"})["value"]
    assert value == {"array": [3, -0.0, 4], "dim": "volt"}
    assert math.copysign(1.0, value["array"][1]) < 0
    assert recording.slot_snapshot()["b"] == (
        1,
        {"array": [3, -0.0, 4], "dim": [2, 1, -3, -1, 0, 0, 0]},
    )


def test_reading_options_kept_between_calls_still_name_their_own_tool(
    recording: Engine,
) -> None:
    """3.4, 8: options are checked once per spelling, yet each refusal names the tool and
    argument it came from, and a kept spelling still converts as the manual says.
    Spec: docs/guide/formulas.md (get and its reading options)."""
    recording.call("set", {"name": "T", "value": {"num": 25, "dim": "degC"}})
    for _ in range(2):
        got = recording.call("get", {"name": "T", "dim": "degC"})
        assert got["value"] == {"num": 25, "dim": "degC"}
        read = recording.call("eval", {"formula": "@T", "target": "U", "read": {"dim": "degC"}})
        assert read["value"] == {"num": 25, "dim": "degC"}
        refused_get = recording.call("get", {"name": "T", "dim": "degX"})
        refused_eval = recording.call(
            "eval", {"formula": "@T", "target": "U", "read": {"dim": "degX"}}
        )
        assert refused_get["error"].startswith("get's dim 'degX'")
        assert refused_eval["error"].startswith("eval's read dim 'degX'")


def test_an_array_a_row_carries_is_spelled_once_per_revision() -> None:
    """7.2, issue 8: the array an eval computed, real (numpy) or complex (a list), is spelled
    once per revision: every row that carries the slot embeds that text, the same bytes as
    its stored form, and no row walks the numbers again.
    Spec: docs/guide/records.md (trace rows)."""
    real = parse_value({"array": [0.5, 2.0, -0.0], "dim": "volt"})
    complex_ = parse_value({"array": [{"re": 1.5, "im": -2.0}, {"re": 3.0, "im": 0.25}]})
    # The stored forms' text, written out here: whole doubles as integers, -0.0 kept.
    expected = {
        "real": b'{"v":{"array":[0.5,2,-0.0],"dim":[2,1,-3,-1,0,0,0]}}',
        "complex": b'{"v":{"array":[{"re":1.5,"im":-2},{"re":3,"im":0.25}],"dim":[0,0,0,0,0,0,0]}}',
    }
    table = SlotTable()
    for name, value in (("real", real), ("complex", complex_)):
        assert not isinstance(value, Failure)
        slot = table.write(name, None, value)
        row = slot.row_form()
        assert row is slot.row_form()
        spelled = row if isinstance(row, wire.Encoded) else row["array"]
        assert isinstance(spelled, wire.Encoded), name
        assert wire.dumps({"v": row}) == wire.dumps({"v": slot.stored}) == expected[name]


def test_a_kept_reading_option_answers_only_its_own_spelling(recording: Engine) -> None:
    """3.4, 8: digits 2**70 (an integer) is a count of digits; the equal double 2.0**70 is
    refused, before and after the integer's options were kept: a refusal never depends on
    which calls came first.
    Spec: docs/guide/formulas.md (get and its reading options)."""
    refused = recording.call("get", {"name": "V", "digits": 2.0**70})
    assert refused["code"] == "ENGINE_INVALID_ARGS"
    assert refused["error"].startswith("digits is the number 1.1805916207174113e+21")
    assert recording.call("get", {"name": "V", "digits": 2**70})["ok"]
    assert recording.call("get", {"name": "V", "digits": 2.0**70}) == refused
    read = {"formula": "@V", "target": "W", "read": {"digits": 2.0**70}}
    assert recording.call("eval", {**read, "read": {"digits": 2**70}})["ok"]
    assert recording.call("eval", read)["code"] == "ENGINE_INVALID_ARGS"
