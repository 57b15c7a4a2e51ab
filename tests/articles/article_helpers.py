"""Hand-written records for the article tests, written as real record files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reckoner.articles.facts import collect_facts
from reckoner.storage.home import HomeLayout

OHM = [2, 1, -3, -2, 0, 0, 0]
VOLT = [2, 1, -3, -1, 0, 0, 0]
AMPERE = [0, 0, 0, 1, 0, 0, 0]
KELVIN = [0, 0, 0, 0, 1, 0, 0]
METRE = [1, 0, 0, 0, 0, 0, 0]
ZERO = [0, 0, 0, 0, 0, 0, 0]
# An unnamed vector: m^2 kg s^-1 (no table row holds it).
UNNAMED = [2, 1, -1, 0, 0, 0, 0]

HAND_ID = "1700000000000"


def row(seq: int, tool: str, content: dict[str, Any], ok: bool = True) -> dict[str, Any]:
    return {"seq": seq, "at": 1700000000000 + seq, "tool": tool, "ok": ok, "content": content}


def hand_rows() -> list[dict[str, Any]]:
    """Every row kind: markers, visible and hidden messages, sets of every value type (degC
    stored in SI), a re-set, a deletion, gets, refused rows, evals, two ends."""
    return [
        row(1, "record_start", {"title": "Heating a 4.7 kOhm resistor", "record": HAND_ID}),
        row(2, "record_start", {"code": "ENGINE_OPEN_RECORD_FOUND", "error": "x"}, ok=False),
        row(3, "record_message", {"text": "Take the resistor at 25 degC, converted to SI."}),
        row(4, "record_message", {"text": "Author note: the answer is 999.5", "hide": True}),
        row(5, "set", {"name": "R1", "value": {"num": 4700, "dim": OHM}}),
        row(6, "set", {"name": "T", "value": {"num": 298.15, "dim": KELVIN}}),
        row(7, "set", {"name": "Z0", "value": {"re": 3, "im": -4, "dim": OHM}}),
        row(8, "set", {"name": "xs", "value": {"array": [1, 2.5, [0.00012, 3e7]], "dim": METRE}}),
        row(9, "set", {"name": "zs", "value": {"array": [{"re": 1, "im": 2}, 0.5], "dim": ZERO}}),
        row(
            10,
            "set",
            {
                "name": "probe",
                "value": {
                    "object": {
                        "v": {"num": 12, "dim": VOLT},
                        "inner": {"object": {"k": {"num": 0.25, "dim": UNNAMED}}},
                    }
                },
            },
        ),
        row(11, "set", {"name": "gone", "value": {"num": 77777, "dim": ZERO}}),
        row(12, "set", {"name": "gone", "value": None}),
        row(13, "set", {"code": "ENGINE_INVALID_ARGS", "error": "bad"}, ok=False),
        row(14, "set", {"name": "R1", "value": {"num": 4712.123456, "dim": OHM}}),
        row(15, "get", {"name": "R1", "value": {"num": 4712, "dim": "ohm"}}),
        row(16, "record_message", {"text": "Current through R1 at 12 V."}),
        row(
            17,
            "eval",
            {
                "formula": "@probe.v / @R1",
                "target": "I",
                "rev": 1,
                "vars": {
                    "probe": {"object": {"v": {"num": 12, "dim": VOLT}}},
                    "R1": {"num": 4712.123456, "dim": OHM},
                },
                "result": {"num": 0.0025466, "dim": AMPERE},
            },
        ),
        row(18, "eval", {"code": "ENGINE_UNKNOWN_NAME", "error": "no slot @nope"}, ok=False),
        row(
            19,
            "eval",
            {
                "formula": "@I^2 * @R1 * 1e6",
                "target": "P",
                "rev": 1,
                "vars": {
                    "I": {"num": 0.0025466, "dim": AMPERE},
                    "R1": {"num": 4712.123456, "dim": OHM},
                },
                "result": {"num": 30559.123, "dim": [2, 1, -3, 0, 0, 0, 0]},
            },
        ),
        row(20, "record_end", {"code": "ENGINE_OPEN_RECORD_NOT_FOUND", "error": "x"}, ok=False),
        row(21, "record_end", {"text": "The power is about 30559 watt.", "record": HAND_ID}),
    ]


def write_record(
    home: Path, record_id: str, rows: list[dict[str, Any]], *, open_: bool = False
) -> Path:
    layout = HomeLayout(home)
    layout.prepare()
    path = layout.open_record if open_ else layout.record_file(record_id)
    lines = [json.dumps({"seq": 0, "version": 1})] + [json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def hand_facts() -> Any:
    return collect_facts(HAND_ID, hand_rows(), is_open=False)
