"""docs/guide/records.md: markers, trace rows as the row format lists them (read from the
file's bytes), the record identifiers, the record list, reading and deleting records."""

from __future__ import annotations

import os
from pathlib import Path

from service_helpers import HEADER, OHM, T0, VOLT, WATT, StepClock, file_lines, open_file

from reckoner import Engine, wire
from reckoner.storage.record_archive import DeleteOutcome


def _row_bytes(seq: int, at: int, tool: str, ok: bool, content: str) -> bytes:
    okay = "true" if ok else "false"
    text = f'{{"seq":{seq},"at":{at},"tool":"{tool}","ok":{okay},"content":{content}}}'
    return text.encode()


def test_a_whole_session_writes_exactly_these_bytes(home: Path) -> None:
    """7.2/7.3: header, then one row per call, compact JSON, whole doubles without .0.
    Spec: docs/guide/records.md (trace rows)."""
    clock = StepClock()
    clock.frozen = True  # each call below reads the clock at the ms it is given
    calls = [
        ("set", {"name": "V", "value": {"num": 12, "dim": "volt"}}),
        ("set", {"name": "R", "value": {"num": 4.7e3, "dim": "ohm"}}),
        ("eval", {"formula": "(@V)^2/@R", "target": "P"}),
        ("get", {"name": "P", "digits": 3}),
        ("set", {"name": "R", "value": {"num": 1, "dim": "furlong"}}),
        ("record_message", {"text": "Power in the load."}),
        ("record_message", {"text": "Note to the writer", "hide": True}),
        ("set", {"name": "V", "value": None}),
        ("record_end", {"text": "Done."}),
    ]
    with Engine(home, clock=clock) as engine:
        clock.now = T0 + 101
        engine.call("record_start", {"title": "Divider"})
        record = engine.open_record_id
        assert record == str(T0 + 101)
        for offset, (tool, args) in enumerate(calls, start=1):
            clock.now = T0 + 101 + offset
            engine.call(tool, args)
        closed = home / "records" / f"{record}.jsonl"
        data = closed.read_bytes()
    v = '{"num":12,"dim":[2,1,-3,-1,0,0,0]}'
    r = '{"num":4700,"dim":[2,1,-3,-2,0,0,0]}'
    p = '{"num":0.030638297872340424,"dim":[2,1,-3,0,0,0,0]}'
    refused = engine_error_for_furlong(data)
    t = T0 + 101
    expected = [
        HEADER.rstrip(b"\n"),
        _row_bytes(1, t, "record_start", True, f'{{"title":"Divider","record":"{record}"}}'),
        _row_bytes(2, t + 1, "set", True, f'{{"name":"V","value":{v}}}'),
        _row_bytes(3, t + 2, "set", True, f'{{"name":"R","value":{r}}}'),
        _row_bytes(
            4,
            t + 3,
            "eval",
            True,
            f'{{"formula":"(@V)^2/@R","target":"P","rev":1,"vars":{{"V":{v},"R":{r}}},'
            f'"result":{p}}}',
        ),
        _row_bytes(
            5,
            t + 4,
            "get",
            True,
            '{"name":"P","value":{"num":0.0306,"text":"0.0306","dim":"watt"}}',
        ),
        _row_bytes(6, t + 5, "set", False, refused),
        _row_bytes(7, t + 6, "record_message", True, '{"text":"Power in the load."}'),
        _row_bytes(8, t + 7, "record_message", True, '{"text":"Note to the writer","hide":true}'),
        _row_bytes(9, t + 8, "set", True, '{"name":"V","value":null}'),
        _row_bytes(10, t + 9, "record_end", True, f'{{"text":"Done.","record":"{record}"}}'),
    ]
    assert data == b"\n".join(expected) + b"\n"


def engine_error_for_furlong(data: bytes) -> str:
    """The refused row's content, checked for shape and returned as its exact JSON text."""
    line = data.split(b"\n")[6]
    row = wire.loads(line)
    assert row["ok"] is False
    assert list(row["content"]) == ["code", "error"]
    assert row["content"]["code"] == "ENGINE_INVALID_DIMENSION"
    assert "furlong" in row["content"]["error"]
    return wire.dumps_text(row["content"])


def test_eval_vars_in_first_use_order_with_the_value_read(recording: Engine) -> None:
    """Spec: docs/guide/records.md (trace rows)."""
    recording.call("set", {"name": "A", "value": {"num": 2}})
    recording.call("eval", {"formula": "@R*@A/@R + @A*0 + @A", "target": "A"})
    row = wire.loads(file_lines(open_file(recording))[-1])
    content = row["content"]
    assert list(content) == ["formula", "target", "rev", "vars", "result"]
    assert list(content["vars"]) == ["R", "A"]
    # The formula overwrote A: vars keeps the value A held when it was read.
    assert content["vars"]["A"] == {"num": 2, "dim": [0] * 7}
    assert content["vars"]["R"] == {"num": 4700, "dim": OHM}
    assert content["result"] == {"num": 4, "dim": [0] * 7}
    assert content["rev"] == 2


def test_a_bound_variable_never_enters_vars(recording: Engine) -> None:
    """Spec: docs/guide/records.md (trace rows)."""
    recording.call("eval", {"formula": "$sum_{k=1}^{3}(k*@V)", "target": "S"})
    content = wire.loads(file_lines(open_file(recording))[-1])["content"]
    assert content["vars"] == {"V": {"num": 12, "dim": VOLT}}
    assert content["result"] == {"num": 72, "dim": VOLT}


def test_eval_reading_no_slot_has_empty_vars(recording: Engine) -> None:
    """Spec: docs/guide/records.md (trace rows)."""
    recording.call("eval", {"formula": "2+3", "target": "five"})
    content = wire.loads(file_lines(open_file(recording))[-1])["content"]
    assert content["vars"] == {}


def test_get_row_stores_the_rendered_value_not_the_options(recording: Engine) -> None:
    """Spec: docs/guide/records.md (trace rows)."""
    recording.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
    recording.call("get", {"name": "P", "form": "rect", "digits": 2, "dim": "watt"})
    row = wire.loads(file_lines(open_file(recording))[-1])
    assert row["tool"] == "get"
    shown = {"re": 0.031, "im": 0, "text": "0.031+0.0i", "dim": "watt"}
    assert row["content"] == {"name": "P", "value": shown}


def test_set_row_carries_dim_as_7_integers(recording: Engine) -> None:
    """Spec: docs/guide/records.md (trace rows)."""
    rows = [wire.loads(line) for line in file_lines(open_file(recording))[1:]]
    assert rows[1]["content"] == {"name": "V", "value": {"num": 12, "dim": VOLT}}
    recording.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
    last = wire.loads(file_lines(open_file(recording))[-1])
    assert last["content"]["result"]["dim"] == WATT


def test_at_is_the_clock_of_each_call(engine: Engine, clock: StepClock) -> None:
    """Spec: docs/guide/records.md (trace rows)."""
    clock.now = T0 + 5000
    engine.call("record_start", {"title": "Clock"})
    clock.now = T0 + 9000
    engine.call("record_message", {"text": "later"})
    rows = [wire.loads(line) for line in file_lines(open_file(engine))[1:]]
    assert [row["at"] for row in rows] == [T0 + 5001, T0 + 9001]


def test_seq_counts_from_1_including_refused_rows(recording: Engine) -> None:
    """Spec: docs/guide/records.md (trace rows)."""
    recording.call("get", {"name": "nope"})
    recording.call("record_message", {"text": "x"})
    rows = [wire.loads(line) for line in file_lines(open_file(recording))[1:]]
    assert [row["seq"] for row in rows] == [1, 2, 3, 4, 5]
    assert [row["ok"] for row in rows] == [True, True, True, False, True]


def test_refused_record_start_is_a_row_in_the_open_record(recording: Engine) -> None:
    """Spec: docs/guide/records.md (the three markers)."""
    record = recording.open_record_id
    receipt = recording.call("record_start", {"title": "Second"})
    assert receipt["code"] == "ENGINE_OPEN_RECORD_FOUND"
    assert record is not None and record in receipt["error"]
    row = wire.loads(file_lines(open_file(recording))[-1])
    assert row["tool"] == "record_start" and row["ok"] is False
    assert row["content"] == {"code": "ENGINE_OPEN_RECORD_FOUND", "error": receipt["error"]}
    assert recording.open_record_id == record  # one record carries exactly one title


def test_markers_rows_and_close_is_one_rename(recording: Engine) -> None:
    """Spec: docs/guide/records.md (the three markers)."""
    record = recording.open_record_id
    assert record is not None
    inode = os.stat(open_file(recording)).st_ino
    recording.call("record_message", {"text": "shown", "hide": False})
    recording.call("record_end", {})
    closed = recording.home / "records" / f"{record}.jsonl"
    assert not open_file(recording).exists()
    assert os.stat(closed).st_ino == inode  # renamed, not copied
    rows = [wire.loads(line) for line in file_lines(closed)[1:]]
    assert rows[0]["content"] == {"title": "Divider", "record": record}
    assert rows[-2]["content"] == {"text": "shown"}
    assert rows[-1] == {
        "seq": 5,
        "at": rows[-1]["at"],
        "tool": "record_end",
        "ok": True,
        "content": {"record": record},
    }


def test_record_id_is_the_clock_in_ms_then_suffixes(engine: Engine, clock: StepClock) -> None:
    """Spec: docs/guide/records.md (the three markers)."""
    clock.frozen = True
    ids = []
    for title in ("one", "two", "three"):
        engine.call("record_start", {"title": title})
        ids.append(engine.open_record_id)
        engine.call("record_end", {})
    base = str(clock.now)
    assert ids == [base, f"{base}-2", f"{base}-3"]
    for record in ids:
        assert (engine.home / "records" / f"{record}.jsonl").is_file()


def test_a_file_under_records_makes_its_id_taken(home: Path) -> None:
    """Spec: docs/guide/records.md (the three markers)."""
    clock = StepClock()
    clock.frozen = True
    (home / "records").mkdir(parents=True)
    (home / "records" / f"{clock.now}.jsonl").write_bytes(HEADER)
    with Engine(home, clock=clock) as engine:
        engine.call("record_start", {"title": "Taken"})
        assert engine.open_record_id == f"{clock.now}-2"


def test_the_engine_lists_closed_open_and_unreadable_records(
    engine: Engine, clock: StepClock
) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    clock.now = T0
    engine.call("record_start", {"title": "First"})
    first = engine.open_record_id
    engine.call("record_message", {"text": "a"})
    engine.call("record_end", {"text": "end"})
    clock.now = T0 + 1000
    engine.call("record_start", {"title": "Second"})
    second = engine.open_record_id
    engine.call("record_end", {})
    clock.now = T0 + 2000
    engine.call("record_start", {"title": "Still open"})
    third = engine.open_record_id
    (engine.home / "records" / "1600000000000.jsonl").write_bytes(b'{"seq":1}\n')
    listing = engine.records()
    assert [(e.id, e.title, e.version) for e in listing.closed] == [
        (second, "Second", 1),
        (first, "First", 1),
    ]
    for entry in listing.closed:
        view = engine.read_record(entry.id)
        assert view is not None
        # 7.5: the span comes from the rows: the start row's time, the end row's time.
        assert (entry.opened_at, entry.ended_at) == (view.rows[0]["at"], view.rows[-1]["at"])
        assert view.rows[-1]["tool"] == "record_end"
    assert listing.closed[1].opened_at == T0 + 1
    assert listing.closed[0].opened_at == T0 + 1001
    assert listing.open is not None
    assert (listing.open.id, listing.open.title, listing.open.opened_at) == (
        third,
        "Still open",
        T0 + 2001,
    )
    assert listing.unreadable == ["1600000000000"]


def test_the_engine_reads_closed_and_open_records(engine: Engine) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    engine.call("record_start", {"title": "Closed one"})
    closed_id = engine.open_record_id
    assert closed_id is not None
    engine.call("set", {"name": "V", "value": {"num": 1, "dim": "volt"}})
    engine.call("record_end", {"text": "bye"})
    engine.call("record_start", {"title": "Open one"})
    open_id = engine.open_record_id
    assert open_id is not None
    engine.call("record_message", {"text": "hi"})

    closed = engine.read_record(closed_id)
    assert closed is not None
    assert (closed.id, closed.title, closed.version, closed.is_open) == (
        closed_id,
        "Closed one",
        1,
        False,
    )
    assert [row["tool"] for row in closed.rows] == ["record_start", "set", "record_end"]
    assert closed.ended_at == closed.rows[-1]["at"]
    assert closed.opened_at == closed.rows[0]["at"]

    opened = engine.read_record(open_id)
    assert opened is not None
    assert (opened.title, opened.is_open, opened.ended_at) == ("Open one", True, None)
    assert [row["seq"] for row in opened.rows] == [1, 2]
    assert engine.read_record("1234") is None
    assert engine.read_record("../etc/passwd") is None


def test_delete_closed_and_refuse_the_open_record(engine: Engine) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    engine.call("record_start", {"title": "Old"})
    old = engine.open_record_id
    assert old is not None
    engine.call("record_end", {})
    engine.call("record_start", {"title": "Current"})
    current = engine.open_record_id
    assert current is not None
    assert engine.delete_record(current) is DeleteOutcome.IS_OPEN
    assert open_file(engine).exists()
    assert engine.call("record_message", {"text": "still writable"}) == {"ok": True}
    assert engine.delete_record(old) is DeleteOutcome.DELETED
    assert not (engine.home / "records" / f"{old}.jsonl").exists()
    assert engine.delete_record(old) is DeleteOutcome.MISSING
    assert engine.delete_record("../x") is DeleteOutcome.INVALID_ID
    assert [e.id for e in engine.records().closed] == []
