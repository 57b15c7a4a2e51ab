"""Issue 14: `read` on set, and `read` as a list on set and eval, through the Engine, a
replay, the article facts and the CLI."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import StepClock, cli_call

from home_rows import record_rows
from reckoner import Engine
from reckoner.articles.facts import collect_facts
from reckoner.contract.codes import ErrorCode
from reckoner.contract.limits import MAX_READINGS
from reckoner.host import collector

# (value set, one reading): every value kind, with a unit, a form, digits and a dim claim.
SET_READS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"num": 98.6, "unit": "degF"}, {"unit": "degC", "digits": 4}),
    ({"num": 3, "unit": "delta_degF"}, {"unit": "delta_degC", "digits": 3}),
    ({"num": 25, "dim": "degC"}, {"dim": "degC"}),
    ({"num": 100, "unit": "km/h"}, {}),
    ({"array": [1, 2.5, 4], "unit": "mm"}, {"unit": "um"}),
    ({"re": 3, "im": 4, "unit": "kV"}, {"form": "polar", "digits": 4}),
    ({"mag": 2, "ang": 0.5, "dim": "volt"}, {"form": "rect"}),
    ({"object": {"v": {"num": 5, "unit": "V"}, "i": {"num": 20, "unit": "mA"}}}, {"digits": 2}),
]


@pytest.mark.parametrize(("value", "read"), SET_READS, ids=[str(v)[:30] for v, _ in SET_READS])
def test_set_read_answers_what_a_get_right_after_would(
    recording: Engine, value: dict[str, Any], read: dict[str, Any]
) -> None:
    """Issue 14: set with read answers name and rev as before, and value rendered exactly as
    a get of the slot right after the set; the slot holds what a set without read stores."""
    plain = recording.call("set", {"name": "x", "value": value})
    receipt = recording.call("set", {"name": "x", "value": value, "read": read})
    got = recording.call("get", {"name": "x", **read})
    assert receipt == {"ok": True, "name": "x", "rev": plain["rev"] + 1, "value": got["value"]}
    assert recording.slot_snapshot()["x"][1] == plain["value"]


def test_set_read_row_keeps_the_input_under_value_and_the_reading_under_reading(
    recording: Engine,
) -> None:
    """Issue 14: the set row's value stays the stored input (replay and the articles read it)
    and its unit the unit as written; the rendered reading goes under `reading`."""
    receipt = recording.call(
        "set",
        {"name": "T", "value": {"num": 98.6, "unit": "degF"}, "read": {"unit": "degC"}},
    )
    plain = recording.call("set", {"name": "T2", "value": {"num": 98.6, "unit": "degF"}})
    rows = record_rows(recording.home)
    read_row, plain_row = rows[-2]["content"], rows[-1]["content"]
    assert read_row["reading"] == receipt["value"]
    assert {k: v for k, v in read_row.items() if k != "reading"} == {**plain_row, "name": "T"}
    assert read_row["value"] == plain["value"] and read_row["unit"] == "degF"


def test_a_record_with_read_rows_replays_and_feeds_the_articles(tmp_path: Path) -> None:
    """docs/guide/records.md and the article facts with issue 14's rows: a resumed record holds the
    slots set and eval'd with read (lists too), and a closed one lists the set conditions
    with their stored values."""
    home = tmp_path / "home"
    with Engine(home, clock=StepClock()) as engine:
        engine.call("record_start", {"title": "replay reads"})
        engine.call(
            "set", {"name": "T", "value": {"num": 98.6, "unit": "degF"}, "read": {"unit": "degC"}}
        )
        engine.call(
            "eval",
            {"formula": "2*@T", "target": "U", "read": [{"unit": "degC"}, {"unit": "degF"}]},
        )
        before = engine.slot_snapshot()
    with Engine(home, clock=StepClock()) as engine:
        assert engine.slot_snapshot() == before
        record_id = engine.open_record_id
        assert engine.call("record_end", {})["ok"]
        view = engine.read_record(str(record_id))
    assert view is not None
    facts = collect_facts(str(record_id), view.rows, is_open=False)
    assert [name for name, _ in facts.conditions] == ["T"]
    assert [step.target for step in facts.steps] == ["U"]


@pytest.mark.parametrize("tool", ["set", "eval"])
def test_a_read_list_answers_each_reading_in_order(recording: Engine, tool: str) -> None:
    """Issue 14: read as a list answers value as a list, each item exactly as get renders
    it with that item's options, in the list's order; the row stores the same list."""
    reads = [{"unit": "mW", "digits": 4}, {"unit": "W"}, {}, {"form": "polar", "digits": 2}]
    assert len(reads) == MAX_READINGS
    if tool == "set":
        args: dict[str, Any] = {"name": "P", "value": {"num": 30.64, "unit": "mW"}}
    else:
        args = {"formula": "@V^2/@R", "target": "P"}
    receipt = recording.call(tool, {**args, "read": reads})
    expected = [recording.call("get", {"name": "P", **read})["value"] for read in reads]
    assert receipt["value"] == expected
    content = record_rows(recording.home)[-1 - len(reads)]["content"]
    assert content["reading" if tool == "set" else "value"] == expected
    one = recording.call(tool, {**args, "read": [reads[0]]})
    assert one["value"] == [expected[0]]


# Readings a power takes: units of its vector, forms, digits and the two spellings of dim.
POWER_READS = (
    st.fixed_dictionaries(
        {},
        optional={
            "unit": st.sampled_from(["mW", "W", "kW", "MW", "J/s", "kJ/h", "erg/s"]),
            "digits": st.integers(1, 17),
            "form": st.sampled_from(["rect", "polar"]),
        },
    )
    | st.just({"dim": "watt"})
    | st.just({"dim": [2, 1, -3, 0, 0, 0, 0]})
)


@settings(
    suppress_health_check=[
        *settings.default.suppress_health_check,
        HealthCheck.function_scoped_fixture,
    ]
)
@given(
    num=st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False),
    reads=st.lists(POWER_READS, min_size=1, max_size=MAX_READINGS),
    tool=st.sampled_from(["set", "eval"]),
)
def test_every_read_list_answers_the_gets_it_replaces(
    recording: Engine, num: float, reads: list[dict[str, Any]], tool: str
) -> None:
    """Issue 14, as a property: for any power and any list of 1 to MAX_READINGS readings,
    set and eval answer exactly the list of what get answers with each reading's options,
    and the first reading alone, as an object, answers exactly that get's value."""
    recording.call("set", {"name": "p0", "value": {"num": num, "dim": "watt"}})
    if tool == "set":
        args: dict[str, Any] = {"name": "p", "value": {"num": num, "dim": "watt"}}
    else:
        args = {"formula": "@p0", "target": "p"}
    listed = recording.call(tool, {**args, "read": reads})
    assert listed["ok"], listed
    assert listed["value"] == [recording.call("get", {"name": "p", **r})["value"] for r in reads]
    single = recording.call(tool, {**args, "read": reads[0]})
    assert single["value"] == listed["value"][0]


def test_a_single_read_object_answers_byte_for_byte_as_before(recording: Engine) -> None:
    """Issue 14: a single read object still answers one value, not a list of one, with the
    receipt's bytes as they were before lists existed; set without read still echoes SI."""
    receipt = recording.call(
        "eval", {"formula": "@V^2/@R", "target": "P", "read": {"digits": 4, "unit": "mW"}}
    )
    assert json.dumps(receipt) == (
        '{"ok": true, "target": "P", "rev": 1, '
        '"value": {"num": 30.64, "text": "30.64", "unit": "mW", "dim": "watt"}}'
    )
    plain = recording.call("set", {"name": "T", "value": {"num": 25, "unit": "degC"}})
    assert json.dumps(plain) == (
        '{"ok": true, "name": "T", "rev": 1, '
        '"value": {"num": 298.15, "dim": [0, 0, 0, 0, 1, 0, 0]}}'
    )


# (tool, args, code, what the sentence names): each bad reading refuses the whole call.
BAD_READS: list[tuple[str, dict[str, Any], ErrorCode, tuple[str, ...]]] = [
    (
        "set",
        {"name": "R", "value": {"num": 1, "unit": "ohm"}, "read": {"unit": "mA"}},
        ErrorCode.INCOMPATIBLE_DIMENSION,
        ("'mA'", "ohm"),
    ),
    (
        "set",
        {"name": "R", "value": {"num": 1, "unit": "ohm"}, "read": {"colour": 1}},
        ErrorCode.INVALID_ARGS,
        ("set's read", "'colour'", "form, digits, dim, unit"),
    ),
    (
        "set",
        {"name": "R", "value": {"num": 1, "unit": "ohm"}, "read": "kOhm"},
        ErrorCode.INVALID_ARGS,
        ("set's read", "the string 'kOhm'", "object of get's options", f"1 to {MAX_READINGS}"),
    ),
    (
        "set",
        {"name": "R", "value": None, "read": {"unit": "kOhm"}},
        ErrorCode.INVALID_ARGS,
        ("value null deletes R", "leave read out"),
    ),
    (
        "set",
        {"name": "R", "value": {"num": 1, "unit": "ohm"}, "read": []},
        ErrorCode.INVALID_ARGS,
        ("an empty list", f"1 to {MAX_READINGS}", "MAX_READINGS", "leave read out"),
    ),
    (
        "eval",
        {"formula": "@R", "target": "R", "read": [{}] * (MAX_READINGS + 1)},
        ErrorCode.INVALID_ARGS,
        (f"{MAX_READINGS + 1} readings", "MAX_READINGS", "with get"),
    ),
    (
        "eval",
        {"formula": "@R", "target": "R", "read": [{}, 3]},
        ErrorCode.INVALID_ARGS,
        ("eval's read[1]", "the number 3", "object of get's options"),
    ),
    (
        "eval",
        {"formula": "@R", "target": "R", "read": [{}, {"digit": 3}]},
        ErrorCode.INVALID_ARGS,
        ("eval's read[1]", "'digit'", "form, digits, dim, unit"),
    ),
    (
        "eval",
        {"formula": "@R", "target": "R", "read": [{"unit": "kOhm"}, {"unit": "V"}]},
        ErrorCode.INCOMPATIBLE_DIMENSION,
        ("eval's read[1]: ", "'V'", "ohm"),
    ),
    (
        "set",
        {"name": "R", "value": {"num": 1, "unit": "ohm"}, "read": [{"unit": "kOhmz"}]},
        ErrorCode.INVALID_DIMENSION,
        ("set's read[0] unit", "'kOhmz'"),
    ),
]


@pytest.mark.parametrize(
    ("tool", "args", "code", "says"),
    BAD_READS,
    ids=[str(a["read"])[:24] for _, a, _, _ in BAD_READS],
)
def test_a_bad_reading_refuses_the_whole_call_in_one_sentence(
    recording: Engine, tool: str, args: dict[str, Any], code: ErrorCode, says: tuple[str, ...]
) -> None:
    """Issue 14: a reading that cannot be given (another vector, an unknown option, not an
    object, an empty or too long list, a read beside a delete) refuses the whole call in one
    sentence naming what was wrong; no slot is written, moved on or deleted."""
    before = recording.slot_snapshot()
    receipt = recording.call(tool, args)
    assert receipt["ok"] is False and receipt["code"] == code.value, receipt
    sentence = receipt["error"]
    assert "\n" not in sentence and ". " not in sentence, sentence
    for fragment in says:
        assert fragment in sentence, (fragment, sentence)
    assert recording.slot_snapshot() == before
    assert record_rows(recording.home)[-1]["ok"] is False


def test_cli_call_takes_read_on_set_and_read_lists(tmp_path: Path) -> None:
    """Issue 14: read on set and a read list work through `reckoner call`."""
    home = tmp_path / "home"

    def call(tool: str, args: Any) -> dict[str, Any]:
        return cli_call(home, tool, args)

    assert call("record_start", {"title": "cli reads"}) == {"ok": True}
    shown = call(
        "set",
        {
            "name": "T",
            "value": {"num": 98.6, "unit": "degF"},
            "read": {"unit": "degC", "digits": 4},
        },
    )
    assert shown["value"] == {"num": 37, "text": "37.00", "unit": "degC", "dim": "kelvin"}
    both = call("eval", {"formula": "@T", "target": "U", "read": [{"unit": "degF"}, {"unit": "K"}]})
    assert [item["unit"] for item in both["value"]] == ["degF", "K"]
    assert call("set", {"name": "T", "value": None, "read": {}})["code"] == "ENGINE_INVALID_ARGS"


def _collections_during(action: Any) -> int:
    """How many cycle collections start while ``action`` runs."""
    started: list[str] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(phase)

    gc.callbacks.append(seen)
    try:
        action()
    finally:
        gc.callbacks.remove(seen)
    return len(started)


def test_a_large_reading_is_built_with_the_cycle_collector_waiting(engine: Engine) -> None:
    """Issue 27 (no call over 2 s): a get of 5,000 complex rows builds ten thousand lists,
    none in a cycle; the collector waits while they are built (reckoner.host.collector) and
    runs again afterwards.
    Spec: docs/decisions/engine-readings.md."""
    engine.call("record_start", {"title": "Large reading"})
    rows = [[k + 0.5, 1.5] for k in range(5_000)]
    assert engine.call("set", {"name": "z", "value": {"array": rows}})["ok"]
    asked = {"name": "z", "form": "rect", "digits": 3}
    gc.collect()
    paused = _collections_during(lambda: engine.call("get", asked))
    assert gc.isenabled()
    # The same get with the pause taken away: the collections the pause saves. (The pause
    # defers one: the first allocation after it may start a pass, within the same call.)
    with patch.object(collector, "gc", _NoPause()):
        gc.collect()
        unpaused = _collections_during(lambda: engine.call("get", asked))
    assert paused <= 1 < unpaused, (paused, unpaused)


class _NoPause:
    """The gc module as the collector owner sees it, with disable() doing nothing."""

    def isenabled(self) -> bool:
        return gc.isenabled()

    def disable(self) -> None:
        pass

    def enable(self) -> None:
        gc.enable()
