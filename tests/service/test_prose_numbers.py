"""Issue 27: numbers in prose are checked as they are written.

A `record_message` or `record_end` text holding a number that no receipt of the open record
showed (at the digits shown) and the title does not hold is kept, and both its receipt and
its row carry a warning naming the number; a text with nothing to flag answers exactly
``{"ok": true}`` and its row has no ``warnings`` (docs/decisions/prose-numbers.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from service_helpers import file_rows, open_file

from home_rows import record_rows
from reckoner import Engine
from reckoner.service.prose import FORMULAS_HELD, MAX_WARNINGS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from mcp_helpers import receipt_of, stdio_params

TITLE = "A 12 V source drives 3 equal resistors of 4.7 kOhm in series: find the current."


def _circuit(engine: Engine) -> None:
    """The title's circuit, its current read in mA to 4 digits (2.553 mA)."""
    assert engine.call("record_start", {"title": TITLE}) == {"ok": True}
    assert engine.call("set", {"name": "V", "value": {"num": 12, "unit": "V"}})["ok"]
    assert engine.call("set", {"name": "R", "value": {"num": 4.7, "unit": "kOhm"}})["ok"]
    read = {"unit": "mA", "digits": 4}
    receipt = engine.call("eval", {"formula": "@V/(3*@R)", "target": "I", "read": read})
    assert receipt["value"]["text"] == "0.8511"
    receipt = engine.call("eval", {"formula": "@V/@R", "target": "I1", "read": read})
    assert receipt["value"]["text"] == "2.553"


def _last_row(engine: Engine) -> dict[str, Any]:
    return file_rows(open_file(engine))[-1]


def test_two_numbers_typed_from_memory_are_kept_and_each_named_in_a_warning(
    engine: Engine,
) -> None:
    """The issue's case: the model typed 2.56 mA and 30.6 mW from memory. The message is
    kept, and its receipt and its row name both numbers, the first with the receipt's
    nearest number."""
    _circuit(engine)
    text = "One resistor alone draws 2.56 mA and takes 30.6 mW."
    receipt = engine.call("record_message", {"text": text})
    assert receipt == {
        "ok": True,
        "warnings": [
            "the text quotes 2.56 mA, which no receipt of this record showed (nearest: "
            "2.553 mA) and the title does not hold; quote the receipt's text, or say where "
            "the number comes from",
            "the text quotes 30.6 mW, which no receipt of this record showed and the title "
            "does not hold; quote the receipt's text, or say where the number comes from",
        ],
    }
    row = _last_row(engine)
    assert row["tool"] == "record_message" and row["ok"] is True
    assert row["content"] == {"text": text, "warnings": receipt["warnings"]}


@pytest.mark.parametrize(
    "quoted",
    [
        "2.553 mA",  # a reading's text, at its digits
        "2.55 mA",  # fewer digits of the same reading: a rounding of what was shown
        "0.002553 A",  # the same reading in SI
        "0.8511 mA",
        "4700 ohm",  # the SI echo of a set
        "4.7 kΩ",  # the given as it was typed
        "rev 1",  # a revision a receipt showed
    ],
)
def test_a_number_a_receipt_showed_at_its_shown_digits_passes(engine: Engine, quoted: str) -> None:
    _circuit(engine)
    assert engine.call("record_message", {"text": f"So we have {quoted}."}) == {"ok": True}


@pytest.mark.parametrize("quoted", ["2.5532 mA", "2.554 mA", "0.0025532 A"])
def test_more_digits_than_a_receipt_showed_are_named(engine: Engine, quoted: str) -> None:
    """2.553 mA was shown to 4 digits: a fifth digit, or a different fourth, is no receipt's."""
    _circuit(engine)
    receipt = engine.call("record_message", {"text": f"I1 is {quoted}."})
    assert receipt["ok"] is True
    (warning,) = receipt["warnings"]
    assert warning.startswith(f"the text quotes {quoted}, which no receipt")


def test_an_eval_result_that_was_never_read_backs_no_number(engine: Engine) -> None:
    """eval without read shows no value: its number in prose came from somewhere else."""
    assert engine.call("record_start", {"title": "Ohm's law"}) == {"ok": True}
    engine.call("set", {"name": "V", "value": {"num": 9, "unit": "V"}})
    engine.call("set", {"name": "R", "value": {"num": 2, "unit": "ohm"}})
    assert engine.call("eval", {"formula": "@V/@R", "target": "I"}) == {
        "ok": True,
        "target": "I",
        "rev": 1,
    }
    flagged = engine.call("record_message", {"text": "I = 4.5 A."})
    assert flagged["warnings"][0].startswith("the text quotes 4.5 A, which no receipt")
    assert engine.call("get", {"name": "I"})["value"] == {"num": 4.5, "dim": "ampere"}
    assert engine.call("record_message", {"text": "I = 4.5 A."}) == {"ok": True}


def test_a_literal_of_any_earlier_formula_backs_the_prose_however_many_came_after(
    engine: Engine,
) -> None:
    """A formula's literal is on record as written (the 2 of 2*pi*f): the literals of the
    first and of the last of more evals than are held before they are folded together
    (FORMULAS_HELD) both back a message, and a number no formula wrote is still named.
    Spec: docs/decisions/prose-numbers.md."""
    assert engine.call("record_start", {"title": "Scaling"}) == {"ok": True}
    engine.call("set", {"name": "x", "value": {"num": 1}})
    count = FORMULAS_HELD + 7
    for k in range(count):
        assert engine.call("eval", {"formula": f"@x*{k + 1001}", "target": "y"})["ok"]
    backed = engine.call("record_message", {"text": f"scaled by 1001 and {count + 1000}"})
    assert backed == {"ok": True}, backed
    flagged = engine.call("record_message", {"text": "scaled by 987654"})
    assert flagged["warnings"][0].startswith("the text quotes 987654"), flagged


@pytest.mark.parametrize(
    "text",
    [
        "12 V across 4.7 kOhm",
        "4700 ohm each",  # a given of the title, in SI
        "the 3 resistors",  # a count the title writes
    ],
)
def test_a_number_the_title_holds_passes_before_any_receipt(engine: Engine, text: str) -> None:
    assert engine.call("record_start", {"title": TITLE}) == {"ok": True}
    assert engine.call("record_message", {"text": text}) == {"ok": True}


@pytest.mark.parametrize(
    "text",
    [
        "Step 1: the series resistance.",
        "1. the current\n2) the power\n(3) the check",
        "Section 4.2 and Figure 3 say so.",
        "Ohm's law (1827) and its 2024 form.",
        "The density is in kg/m^3, the rate in s^-1 or m**2.",
        "The angular frequency is w = 2*pi*f, and Z = R + j*(w*L - 1/(w*C)).",
        "Two resistors, no digits at all.",
    ],
)
def test_what_is_no_quantity_claim_is_passed_over(engine: Engine, text: str) -> None:
    assert engine.call("record_start", {"title": "Ohm's law"}) == {"ok": True}
    assert engine.call("record_message", {"text": text}) == {"ok": True}
    assert "warnings" not in _last_row(engine)["content"]


def test_a_clean_message_and_closing_text_answer_exactly_ok(engine: Engine, home: Path) -> None:
    _circuit(engine)
    assert engine.call("record_message", {"text": "I1 = 2.553 mA", "hide": True}) == {"ok": True}
    assert _last_row(engine)["content"] == {"text": "I1 = 2.553 mA", "hide": True}
    assert engine.call("record_end", {"text": "The current is 0.8511 mA."}) == {"ok": True}
    end = record_rows(home)[-1]
    assert end["tool"] == "record_end" and "warnings" not in end["content"]


def test_a_closing_texts_warning_is_in_its_receipt_and_in_the_filed_record(
    engine: Engine, home: Path
) -> None:
    _circuit(engine)
    record_id = engine.open_record_id
    receipt = engine.call("record_end", {"text": "The current is 0.85 mA, about 0.9 mA."})
    assert receipt == {"ok": True}  # both are roundings of the 0.8511 mA shown
    engine.call("record_start", {"title": "Second"})
    receipt = engine.call("record_end", {"text": "It draws 72.05 mA."})
    (warning,) = receipt["warnings"]
    assert warning.startswith("the closing text quotes 72.05 mA, which no receipt")
    assert engine.open_record_id is None  # the record is filed even so
    end = record_rows(home)[-1]
    assert end["content"]["warnings"] == receipt["warnings"]
    assert end["content"]["text"] == "It draws 72.05 mA."
    assert record_id is not None


def test_after_a_restart_the_receipts_before_it_still_back_the_prose(home: Path) -> None:
    """Replay rebuilds what the receipts showed (the warnings themselves are stored in
    their rows, never recomputed)."""
    with Engine(home) as first:
        _circuit(first)
        flagged = first.call("record_message", {"text": "about 2.7 mA"})
        assert len(flagged["warnings"]) == 1
    with Engine(home) as again:
        assert again.call("record_message", {"text": "I1 = 2.553 mA"}) == {"ok": True}
        assert again.call("record_message", {"text": "I1 = 2.56 mA"})["warnings"]
        rows = file_rows(open_file(again))
    texts = [(r["content"]["text"], "warnings" in r["content"]) for r in rows[-3:]]
    assert texts == [("about 2.7 mA", True), ("I1 = 2.553 mA", False), ("I1 = 2.56 mA", True)]


def test_a_crash_keeps_the_warnings_on_disk_and_its_receipts_back_the_prose_after_it(
    home: Path,
) -> None:
    """A child is killed (SIGKILL) right after a flagged message: the row on disk keeps
    its warning, and the resumed record still backs the child's reading."""
    script = f"""
import os, signal
from reckoner import Engine
engine = Engine({str(home)!r})
engine.call("record_start", {{"title": "Ohm's law"}})
engine.call("set", {{"name": "V", "value": {{"num": 12, "unit": "V"}}}})
engine.call("set", {{"name": "R", "value": {{"num": 4.7, "unit": "kOhm"}}}})
engine.call("eval", {{"formula": "@V/@R", "target": "I", "read": {{"unit": "mA", "digits": 4}}}})
assert engine.call("record_message", {{"text": "I = 2.56 mA"}})["warnings"]
os.kill(os.getpid(), signal.SIGKILL)
"""
    killed = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert killed.returncode == -9, killed.stderr
    (flagged,) = [r for r in file_rows(open_file(home)) if r["tool"] == "record_message"]
    assert flagged["content"]["warnings"][0].startswith("the text quotes 2.56 mA")
    with Engine(home) as resumed:
        assert resumed.call("record_message", {"text": "I = 2.553 mA"}) == {"ok": True}
        assert resumed.call("record_message", {"text": "I = 2.56 mA"})["warnings"]


def test_a_text_full_of_numbers_gets_a_bounded_list_of_short_sentences(engine: Engine) -> None:
    """The attacker's message: thousands of distinct numbers, and one of 100,000 digits.
    The text is kept whole; the warnings name the first MAX_WARNINGS numbers, one sentence
    counts the rest, and a long number is quoted by its start."""
    assert engine.call("record_start", {"title": "Ohm's law"}) == {"ok": True}
    text = " ".join(f"{index}.5 W" for index in range(3000))
    receipt = engine.call("record_message", {"text": text})
    assert len(receipt["warnings"]) == MAX_WARNINGS + 1
    assert receipt["warnings"][0].startswith("the text quotes 0.5 W, which")
    assert receipt["warnings"][-1].startswith(f"the text quotes {3000 - MAX_WARNINGS} more")
    assert _last_row(engine)["content"]["text"] == text
    long = "7" * 100_000
    (warning,) = engine.call("record_message", {"text": long})["warnings"]
    assert warning.startswith(f"the text quotes {'7' * 40}…, which") and len(warning) < 300


@pytest.mark.parametrize(
    ("text", "nearest"),
    [("1.01e999999999999 W", "1e+999999999999 W"), ("1.01e-999999999999 m", "1e-999999999999 m")],
)
def test_a_number_past_every_double_is_named_with_its_nearest_not_refused(
    engine: Engine, text: str, nearest: str
) -> None:
    """Past the default decimal range, and past what a fraction could hold: still one
    warning with the title's nearest number, answered at once."""
    title = "Giants: 1e999999999999 W and 1e-999999999999 m"
    assert engine.call("record_start", {"title": title}) == {"ok": True}
    (warning,) = engine.call("record_message", {"text": text})["warnings"]
    assert f"(nearest: {nearest})" in warning


_PROSE_PIECES = st.sampled_from(
    ["0", "7", "12", "2.553", "1e5", "-3", ".", ",", " ", "\n", "(", ")", "*", "/", "^", "pi",
     "mA", "kOhm", "a50", "a", "degC", "°", "Ω", "µ", "×10^", "e", "Step ", "1. ", "`", "$",
     "_", "R1", "=", "2024", "§", "#", "1e999999999999", "e-999999999999", "0000e3000000"]
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(_PROSE_PIECES, max_size=16), tail=st.text(max_size=6))
def test_any_text_is_kept_and_answers_ok_with_or_without_warnings(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[str], tail: str
) -> None:
    """The attacker's prose: whatever a message or a closing text holds, it is kept and the
    call answers ok (never an internal error), each warning one line."""
    text = "".join(pieces) + tail
    if not text.strip():
        text = f"x{text}"
    with Engine(tmp_path_factory.mktemp("home")) as engine:
        assert engine.call("record_start", {"title": "Ohm's law at 12 V"}) == {"ok": True}
        engine.call("eval", {"formula": "12/4.7", "target": "r", "read": {"digits": 3}})
        for tool in ("record_message", "record_end"):
            receipt = engine.call(tool, {"text": text})
            assert receipt["ok"] is True, receipt
            assert set(receipt) <= {"ok", "warnings"}
            assert all("\n" not in w and w.startswith("the ") for w in receipt.get("warnings", []))


def test_the_warning_reaches_a_real_mcp_client_and_the_row_on_disk(tmp_path: Path) -> None:
    home = tmp_path / "home"

    async def main() -> list[dict[str, Any]]:
        async with Client(stdio_params(home)) as client:
            calls: list[tuple[str, dict[str, Any]]] = [
                ("record_start", {"title": "What current flows through 4 ohm at 12 V?"}),
                ("set", {"name": "V", "value": {"num": 12, "unit": "V"}}),
                ("set", {"name": "R", "value": {"num": 4, "unit": "ohm"}}),
                ("eval", {"formula": "@V/@R", "target": "I", "read": {"digits": 3}}),
                ("record_message", {"text": "I = 3.00 A through 4 ohm."}),
                ("record_message", {"text": "I = 3.05 A through 4 ohm."}),
            ]
            return [receipt_of(await client.call_tool(tool, args)) for tool, args in calls]

    receipts = anyio.run(main)
    assert receipts[3]["value"]["text"] == "3.00"
    assert receipts[4] == {"ok": True}
    assert receipts[5]["ok"] is True
    assert receipts[5]["warnings"] == [
        "the text quotes 3.05 A, which no receipt of this record showed (nearest: 3 A) and "
        "the title does not hold; quote the receipt's text, or say where the number comes from"
    ]
    rows = record_rows(home)
    assert rows[-2]["content"] == {"text": "I = 3.00 A through 4 ohm."}
    assert rows[-1]["content"]["warnings"] == receipts[5]["warnings"]


# Pairs of a unit to give a value in and a unit of the same vector to read it in.
_UNITS = [
    ("V", "mV"),
    ("kOhm", "ohm"),
    ("mA", "A"),
    ("W", "kW"),
    ("km", "m"),
    ("km/h", "m/s"),
    ("degC", "degF"),
    ("J", "kWh"),
]
_NUMBERS = st.floats(min_value=1e-6, max_value=1e9, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values=st.lists(
        st.tuples(_NUMBERS, st.sampled_from(_UNITS), st.integers(1, 8), st.booleans()),
        min_size=1,
        max_size=4,
    ),
    closing=st.booleans(),
)
def test_a_message_built_only_from_receipt_texts_is_never_flagged(
    tmp_path_factory: pytest.TempPathFactory,
    values: list[tuple[float, tuple[str, str], int, bool]],
    closing: bool,
) -> None:
    home = tmp_path_factory.mktemp("home")
    with Engine(home) as engine:
        assert engine.call("record_start", {"title": "Readings"}) == {"ok": True}
        quoted: list[str] = []
        for index, (num, (unit, read_unit), digits, negative) in enumerate(values):
            name = f"x{index}"
            value = {"num": -num if negative else num, "unit": unit}
            set_receipt = engine.call("set", {"name": name, "value": value})
            assert set_receipt["ok"] is True, set_receipt
            # The SI echo, spelled as the receipt's JSON spells it.
            quoted.append(f"{json.dumps(set_receipt['value']['num'])} in SI")
            read = {"unit": read_unit, "digits": digits}
            shown = engine.call("eval", {"formula": f"@{name}*2", "target": f"y{index}"})
            assert shown["ok"] is True, shown
            reading = engine.call("get", {"name": f"y{index}", **read})["value"]
            quoted.append(f"{reading['text']} {read_unit}")
            again = engine.call("set", {"name": name, "value": value, "read": read})
            quoted.append(f"rev {again['rev']}: {again['value']['text']} {read_unit}")
        text = "We read " + "; then ".join(quoted) + "."
        tool, args = (
            ("record_end", {"text": text}) if closing else ("record_message", {"text": text})
        )
        assert engine.call(tool, args) == {"ok": True}, text


def test_a_record_that_quotes_no_number_never_loads_the_unit_catalogue(tmp_path: Path) -> None:
    """The check reads units only when a text with a digit is checked: a title with givens
    and messages without numbers keep the catalogue (pint) unloaded, as before the check."""
    script = f"""
import sys
from reckoner import Engine
from reckoner.service.prose import FORMULAS_HELD, MAX_WARNINGS
with Engine({str(tmp_path / "home")!r}) as engine:
    engine.call("record_start", {{"title": "What current flows through 4 ohm at 12 V?"}})
    engine.call("set", {{"name": "V", "value": {{"num": 12, "dim": "volt"}}}})
    assert engine.call("record_message", {{"text": "Ohm's law gives it."}}) == {{"ok": True}}
    assert engine.call("record_end", {{"text": "Done, as the reading shows."}}) == {{"ok": True}}
    assert "pint" not in sys.modules, "pint loaded without a number to check"
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
