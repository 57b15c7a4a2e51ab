"""Issue 27: a formula reading several slots that do not exist is refused once, naming every
one of them in the order the formula writes them, so one round of `set` answers it."""

from __future__ import annotations

import re
from pathlib import Path

from reckoner import Engine
from reckoner.contract.codes import ErrorCode


def test_a_refusal_names_every_missing_slot_of_the_formula_in_formula_order(
    recording: Engine,
) -> None:
    receipt = recording.call("eval", {"formula": "@V*@h/(@g + @h) + @R*@g", "target": "x"})
    assert receipt["ok"] is False and receipt["code"] == ErrorCode.SLOT_NOT_FOUND.value
    message = receipt["error"]
    assert "@h (character 4) and @g (character 8)" in message, message
    # Each missing name once, the slots that do exist listed beside them, one sentence.
    assert message.count("@h") == 1 and message.count("@g") == 1
    assert "@V" not in message and "@R" not in message and "slots now: R, V" in message
    assert "set each the question gives" in message and "name them as missing" in message
    assert "\n" not in message and message.count(";") == 1


def test_setting_every_slot_the_refusal_names_makes_the_formula_succeed(
    recording: Engine,
) -> None:
    formula = {"formula": "@a + @b + @c", "target": "total"}
    message = recording.call("eval", formula)["error"]
    named = re.findall(r"@(\w+)", message)
    assert named == ["a", "b", "c"], message
    for name in named:
        assert recording.call("set", {"name": name, "value": {"num": 1}})["ok"] is True
    assert recording.call("eval", formula)["ok"] is True


def test_one_missing_slot_keeps_the_sentence_with_its_position(recording: Engine) -> None:
    message = recording.call("eval", {"formula": "@V/@I", "target": "R2"})["error"]
    assert message.startswith("the slot @I at character 4 does not exist"), message
    assert "stop and name it as missing" in message


def test_an_error_before_the_first_missing_slot_is_still_the_one_reported(
    recording: Engine,
) -> None:
    receipt = recording.call("eval", {"formula": "@V/0 + @g + @h", "target": "x"})
    assert receipt["code"] == ErrorCode.UNDEFINED_RESULT.value


def test_missing_slots_are_named_after_a_replay(home: Path) -> None:
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Replay"})
        engine.call("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})
    with Engine(home) as again:  # V is replayed and built on first read only
        message = again.call("eval", {"formula": "@g*@V*@h", "target": "x"})["error"]
        assert "@g (character 1) and @h (character 7)" in message, message
        assert "slots now: V" in message
        assert again.call("get", {"name": "V"})["value"]["num"] == 12
