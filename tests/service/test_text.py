"""Issue 9, "text is text": any string a client can send is kept exactly or refused.

For every tool and every position that takes text or a name, strings drawn from all of
Unicode (lone surrogates, NUL, every plane) either round-trip through the record file and a
replay, or are refused with a sentence that is not ``ENGINE_UNKNOWN_ERROR``; every
``ok: true`` has its row.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from service_helpers import file_rows, open_file

from reckoner import Engine

SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "a\ud800b", "\udfff\ud800", "\x00"]
# Every code point, surrogates included (codec=None), and the explicit hard cases.
TEXT = st.text(alphabet=st.characters(codec=None), max_size=30) | st.sampled_from(SURROGATES)

VOLT = {"num": 12, "dim": "volt"}

# (tool, the argument the text goes into, the other arguments).
POSITIONS: list[tuple[str, str, dict[str, Any]]] = [
    ("record_start", "title", {}),
    ("record_message", "text", {}),
    ("record_end", "text", {}),
    ("set", "name", {"value": VOLT}),
    ("set", "dim", {"name": "X"}),  # the value's dim, a name from the SI table
    ("get", "name", {}),
    ("get", "form", {"name": "V"}),
    ("get", "dim", {"name": "V"}),
    ("eval", "formula", {"target": "Y"}),
    ("eval", "target", {"formula": "@V*2"}),
    ("record_message", "extra key", {"text": "t"}),  # an argument's own name
]


def _arguments(position: str, text: str, others: dict[str, Any]) -> dict[str, Any]:
    if position == "dim":
        if "value" not in others and others.get("name") == "X":
            return {**others, "value": {"num": 1, "dim": text}}
        return {**others, "dim": text}
    if position == "extra key":
        return {**others, text: 1}
    return {**others, position: text}


def _check_receipt(receipt: dict[str, Any]) -> None:
    # A receipt is sent over MCP as JSON: it must be encodable as UTF-8 JSON as it is.
    orjson.dumps(receipt)
    if receipt.get("ok") is not True:
        assert receipt["code"] != "ENGINE_UNKNOWN_ERROR", receipt
        assert isinstance(receipt["error"], str) and receipt["error"]
        assert "Error" not in receipt["error"].split(" ")[0], receipt  # no Python type name


def _one(home: Path, tool: str, position: str, others: dict[str, Any], text: str) -> None:
    with Engine(home) as engine:
        if tool != "record_start" and engine.open_record_id is None:
            assert engine.call("record_start", {"title": "Text"}) == {"ok": True}
            assert engine.call("set", {"name": "V", "value": VOLT})["ok"] is True
        record_id = engine.open_record_id
        path = open_file(home)
        before = file_rows(path) if path.exists() else []
        receipt = engine.call(tool, _arguments(position, text, others))
        _check_receipt(receipt)
        if tool == "record_start":
            if receipt["ok"] is True:
                record_id = engine.open_record_id
                rows = file_rows(path)
                assert rows[0]["content"]["title"] == text
                engine.call("record_end", {})
                closed = file_rows(home / "records" / f"{record_id}.jsonl")
                assert closed[0]["content"]["title"] == text
            else:
                assert engine.open_record_id is None and not path.exists()
            return
        if tool == "record_end" and receipt["ok"] is True:
            rows = file_rows(home / "records" / f"{record_id}.jsonl")
            assert rows[-1]["tool"] == "record_end" and rows[-1]["ok"] is True
            if text.strip():
                assert rows[-1]["content"]["text"] == text
            return
        rows = file_rows(path)
        # Every call with a record open has its row: accepted or refused.
        assert len(rows) == len(before) + 1, (receipt, rows[-1:])
        row = rows[-1]
        assert row["tool"] == tool and row["ok"] is receipt["ok"]
        if receipt["ok"] is True and position in ("text", "formula"):
            assert row["content"][position] == text
        if receipt["ok"] is True and position == "title":
            assert row["content"]["title"] == text
        snapshot = engine.slot_snapshot()
    # Replay: the resumed engine holds the same slots and reads the same rows.
    with Engine(home) as again:
        assert again.open_record_id == record_id
        assert again.slot_snapshot() == snapshot
        view = again.read_record(record_id or "")
        assert view is not None and view.rows == rows


def _home() -> Path:
    return Path(tempfile.mkdtemp(prefix="reckoner-text-")) / "home"


@pytest.mark.parametrize(("tool", "position", "others"), POSITIONS)
# Each example, for each position, starts an engine on a fresh home: 25 keep it to seconds.
@settings(max_examples=25)
@given(text=TEXT)
def test_every_text_and_name_position_round_trips_or_is_refused(
    tool: str, position: str, others: dict[str, Any], text: str
) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    _one(_home(), tool, position, others, text)


def test_lone_surrogates_are_stored_as_json_escapes_like_the_reference() -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    home = _home()
    with Engine(home) as engine:
        assert engine.call("record_start", {"title": "\ud800"}) == {"ok": True}
        assert engine.call("record_message", {"text": "x\udfffy\x00"}) == {"ok": True}
    data = open_file(home).read_bytes()
    assert b'"title":"\\ud800"' in data and b'"text":"x\\udfffy\\u0000"' in data
    data.decode("utf-8")  # the file stays valid UTF-8


def test_a_surrogate_pair_as_two_characters_is_refused_and_changes_nothing() -> None:
    """JSON reads the escaped pair back as one character, so it cannot be kept: refused.
    Spec: docs/guide/records.md (issue 9)."""
    home = _home()
    with Engine(home) as engine:
        assert engine.call("record_start", {"title": "\ud83d\ude00"})["code"] == (
            "ENGINE_INVALID_ARGS"
        )
        assert engine.open_record_id is None and not open_file(home).exists()
        engine.call("record_start", {"title": "Pairs"})
        for tool, args in (
            ("record_message", {"text": "a\ud83d\ude00"}),
            ("record_end", {"text": "\ud83d\ude00"}),
        ):
            receipt = engine.call(tool, args)
            assert receipt["code"] == "ENGINE_INVALID_ARGS"
            assert "surrogate pair" in receipt["error"]
        assert engine.open_record_id is not None
        # The astral character itself is kept.
        assert engine.call("record_message", {"text": "\U0001f600"}) == {"ok": True}
    rows = file_rows(open_file(home))
    assert [row["ok"] for row in rows] == [True, False, False, True]
    assert rows[-1]["content"]["text"] == "\U0001f600"
