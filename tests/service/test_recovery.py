"""docs/guide/records.md: recovery by replay, and one engine per lane (issues 3 and 9)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from service_helpers import StepClock, as_wire, file_lines, file_rows, open_file, replay

from reckoner import Engine, wire
from reckoner.storage.home import HomeError
from reckoner.storage.home_lock import HomeLockedError


def _busy_session(engine: Engine) -> None:
    engine.call("record_start", {"title": "Resumable"})
    engine.call("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})
    engine.call("set", {"name": "R", "value": {"num": 4.7e3, "dim": "ohm"}})
    engine.call("set", {"name": "R", "value": {"num": 1e3, "dim": "ohm"}})
    engine.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
    engine.call("eval", {"formula": "@P*2", "target": "P"})
    engine.call("set", {"name": "gone", "value": {"num": 1}})
    engine.call("set", {"name": "gone", "value": None})
    engine.call("set", {"name": "twice", "value": {"num": 1}})
    engine.call("set", {"name": "twice", "value": None})
    engine.call("set", {"name": "twice", "value": {"array": [1, 2]}})
    engine.call("get", {"name": "P"})
    engine.call("eval", {"formula": "@V/0", "target": "V"})  # refused: V keeps rev 1
    engine.call("set", {"name": "Z", "value": {"re": 3, "im": 4, "dim": "ohm"}})
    engine.call("record_message", {"text": "before the crash"})


def test_reopen_without_record_end_resumes_slots_revisions_and_seq(
    home: Path, clock: StepClock
) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    with Engine(home, clock=clock) as engine:
        _busy_session(engine)
        record = engine.open_record_id
        slots = engine.slot_snapshot()
    last_seq = file_rows(open_file(home))[-1]["seq"]
    with Engine(home, clock=clock) as again:
        assert again.open_record_id == record
        assert as_wire(again.slot_snapshot()) == as_wire(slots)
        assert slots["P"][0] == 2 and slots["R"][0] == 2 and slots["twice"][0] == 1
        assert "gone" not in again.slot_snapshot()
        # Revisions continue where they were.
        assert again.call("set", {"name": "R", "value": {"num": 2e3, "dim": "ohm"}})["rev"] == 3
        assert again.call("eval", {"formula": "@P", "target": "P"})["rev"] == 3
        assert again.call("set", {"name": "gone", "value": {"num": 5}})["rev"] == 1
        # The trace continues in the same file with the next seq.
        rows = file_rows(open_file(home))
        assert [row["seq"] for row in rows[-3:]] == [last_seq + 1, last_seq + 2, last_seq + 3]
        assert again.call("record_start", {"title": "x"})["code"] == "ENGINE_OPEN_RECORD_FOUND"
        assert again.call("record_end", {}) == {"ok": True}
    closed = home / "records" / f"{record}.jsonl"
    seqs = [row["seq"] for row in file_rows(closed)]
    assert seqs == list(range(1, len(seqs) + 1))


def test_resumed_table_equals_a_replay_of_the_rows(home: Path) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    with Engine(home) as engine:
        _busy_session(engine)
    expected = replay(file_rows(open_file(home)))
    with Engine(home) as again:
        assert as_wire(again.slot_snapshot()) == as_wire(expected)
        value = again.call("get", {"name": "P"})["value"]
        assert value["dim"] == "watt"
        assert value["num"] == pytest.approx(2 * 144 / 1000)


def test_nothing_is_recomputed_an_edited_result_is_taken_as_fact(home: Path) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Facts"})
        engine.call("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})
        engine.call("set", {"name": "R", "value": {"num": 4.7e3, "dim": "ohm"}})
        engine.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
    path = open_file(home)
    lines = file_lines(path)
    row = wire.loads(lines[-1])
    assert row["tool"] == "eval"
    row["content"]["result"]["num"] = 42.5
    lines[-1] = wire.dumps(row)
    path.write_bytes(b"\n".join(lines) + b"\n")
    with Engine(home) as again:
        assert again.call("get", {"name": "P"})["value"] == {"num": 42.5, "dim": "watt"}
        assert again.slot_snapshot()["P"][0] == 1


def test_a_replayed_value_spelled_with_whole_doubles_is_read_into_later_rows_as_integers(
    home: Path,
) -> None:
    """A record file edited to spell a whole double as 4700.0 (JSON allows it): the eval
    rows that read the replayed slot write it in the stored spelling, 4700, as every row
    of this engine's does (an eval row is written without reading its text back, so the
    slot's row is made plain when first embedded).
    Spec: docs/guide/records.md (recovery by replay; trace rows)."""
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Spelling"})
        engine.call("set", {"name": "R", "value": {"num": 4.7e3, "dim": "ohm"}})
        engine.call("set", {"name": "z", "value": {"re": 3, "im": 4, "dim": "ohm"}})
    path = open_file(home)
    data = path.read_bytes()
    edited = data.replace(b'"num":4700,', b'"num":4700.0,').replace(b'"re":3,', b'"re":3.0,')
    assert edited.count(b".0,") == 2
    path.write_bytes(edited)
    with Engine(home) as again:
        assert again.call("eval", {"formula": "@R*2", "target": "P"})["ok"]
        assert again.call("eval", {"formula": "$abs(@z)", "target": "m"})["ok"]
    rows = file_lines(path)[-2:]
    assert b'"R":{"num":4700,"dim"' in rows[0], rows[0]
    assert b'"z":{"re":3,"im":4,"dim"' in rows[1], rows[1]
    assert b".0," not in b"".join(rows) and b".0}" not in b"".join(rows)


def test_replay_skips_refused_get_unknown_and_broken_rows(home: Path) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Mixed"})
        engine.call("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})
    path = open_file(home)
    extra = [
        # a refused set must not write, whatever its content claims
        {"seq": 3, "at": 3, "tool": "set", "ok": False, "content": {"name": "V", "value": None}},
        # a search row and an unknown tool are skipped
        {"seq": 4, "at": 4, "tool": "search", "ok": True, "content": {"question": "q"}},
        {"seq": 5, "at": 5, "tool": "teleport", "ok": True, "content": {"name": "V"}},
        # a get row is a fact about a reading, not a write
        {"seq": 6, "at": 6, "tool": "get", "ok": True, "content": {"name": "X", "value": {}}},
        # rows whose content has the wrong shape are skipped, not fatal
        {"seq": 7, "at": 7, "tool": "set", "ok": True, "content": "oops"},
        {"seq": 8, "at": 8, "tool": "set", "ok": True, "content": {"name": 5, "value": None}},
        {"seq": 9, "at": 9, "tool": "eval", "ok": True, "content": {"target": "Y"}},
        # a slot name that breaks the name rule (2.3) never enters the table
        {"seq": 9, "at": 9, "tool": "set", "ok": True, "content": {"name": "a b", "value": {}}},
        {
            "seq": 9,
            "at": 9,
            "tool": "eval",
            "ok": True,
            "content": {"target": "1x", "result": {"num": 1, "dim": [0] * 7}},
        },
    ]
    with open(path, "ab") as handle:
        for row in extra:
            handle.write(wire.dumps(row) + b"\n")
        handle.write(b"this line is not json\n[1,2,3]\n")
        handle.write(
            wire.dumps(
                {
                    "seq": 10,
                    "at": 10,
                    "tool": "set",
                    "ok": True,
                    "content": {"name": "W", "value": {"num": 2, "dim": [0] * 7}},
                }
            )
        )
        handle.write(b"\n")
    with Engine(home) as again:
        assert set(again.slot_snapshot()) == {"V", "W"}
        assert again.slot_snapshot()["V"][0] == 1
        again.call("record_message", {"text": "next"})
        assert file_rows(path)[-1]["seq"] == 11


def test_a_hand_edited_unparseable_value_is_dropped_like_a_torn_line(
    home: Path,
) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Edited"})
        engine.call("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})
    path = open_file(home)
    data = path.read_bytes().replace(b'"num":12', b'"num":"twelve"')
    path.write_bytes(data)
    with Engine(home) as again:
        receipt = again.call("get", {"name": "V"})
        assert receipt["code"] == "ENGINE_SLOT_NOT_FOUND"
        assert again.call("set", {"name": "V", "value": {"num": 1}})["rev"] == 1


REFERENCE_HEADER = b'{"seq":0,"version":1}\n'


def _reference_record(home: Path, *rows: bytes) -> None:
    """An open record as the reference implementation writes it, byte for byte."""
    home.mkdir(parents=True, exist_ok=True)
    start = b'{"seq":1,"at":1700000000000,"tool":"record_start","ok":true,'
    start += b'"content":{"title":"Reference","record":"1700000000000"}}\n'
    (home / "open-record.jsonl").write_bytes(REFERENCE_HEADER + start + b"".join(rows))


def test_reference_rows_this_build_cannot_use_are_dropped_with_a_log_line(
    home: Path,
) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    _reference_record(
        home,
        b'{"seq":2,"at":1,"tool":"set","ok":true,"content":{"name":"A","value":{"num":2}}}\n',
        # A stored "num": null overwriting A: dropped, so A keeps its earlier value.
        b'{"seq":3,"at":2,"tool":"set","ok":true,"content":{"name":"A","value":{"num":null}}}\n',
        b'{"seq":4,"at":3,"tool":"set","ok":true,"content":{"name":"B","value":{"num":null}}}\n',
        b'{"seq":5,"at":4,"tool":"eval","ok":true,"content":"not an object"}\n',
        b'{"seq":6,"at":5,"tool":"set","ok":true,"content":[1,2]}\n',
        b'{"seq":7,"at":6,"tool":"eval","ok":true,"content":{"formula":"1","target":"C",'
        b'"rev":1,"vars":{},"result":{"num":null}}}\n',
    )
    with Engine(home) as engine:
        assert engine.open_record_id == "1700000000000"
        assert engine.call("get", {"name": "A"})["value"]["num"] == 2
        for name in ("B", "C"):
            assert engine.call("get", {"name": name})["code"] == "ENGINE_SLOT_NOT_FOUND"
        assert engine.call("eval", {"formula": "@A*2", "target": "D"})["ok"] is True
        assert engine.call("record_message", {"text": "next"}) == {"ok": True}
    assert file_rows(open_file(home))[-1]["seq"] == 12
    log = "".join(path.read_text() for path in (home / "logs").iterdir())
    assert "dropped on replay" in log and "UNKNOWN" not in log


def test_reference_escaped_lone_surrogates_are_read_and_resumed(home: Path) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    _reference_record(
        home,
        b'{"seq":2,"at":1,"tool":"record_message","ok":true,"content":{"text":"a\\ud800b"}}\n',
        b'{"seq":3,"at":2,"tool":"set","ok":true,"content":{"name":"A","value":{"num":1}}}\n',
    )
    with Engine(home) as engine:
        view = engine.read_record("1700000000000")
        assert view is not None
        assert view.rows[1]["content"]["text"] == "a\ud800b"
        assert engine.slot_snapshot()["A"][0] == 1
        assert engine.call("record_message", {"text": "\udfff"}) == {"ok": True}
    assert b'"text":"\\udfff"' in open_file(home).read_bytes()


# -- one engine per lane (issue 9) ---------------------------------------------------------


def test_second_engine_in_the_same_process_takes_its_own_lane(home: Path) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    with Engine(home) as first:
        first.call("record_start", {"title": "Held"})
        before = open_file(home).read_bytes()
        with Engine(home) as second:
            assert (first.lane, second.lane) == (1, 2)
            assert second.open_record_id is None  # lane 1's record is held, never shared
            assert second.call("record_start", {"title": "Mine"}) == {"ok": True}
            assert second.open_record_id != first.open_record_id
            assert open_file(home).read_bytes() == before
            # Asking for the held lane by name is refused with the holder's pid.
            with pytest.raises(HomeLockedError) as refused:
                Engine(home, lane=1)
            message = str(refused.value)
            assert str(os.getpid()) in message and str(home) in message
            assert "\n" not in message and "Traceback" not in message
            assert refused.value.holder_pid == os.getpid()
        assert first.call("record_message", {"text": "still mine"}) == {"ok": True}
    with Engine(home) as later:
        # The lowest free lane holding an open record is resumed first.
        assert later.lane == 1
        assert later.open_record_id is not None


def test_a_lane_outside_the_range_is_one_sentence(home: Path) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    for bad in (0, 65, "two", "-1"):
        with pytest.raises(HomeError) as refused:
            Engine(home, lane=bad)
        assert "a whole number from 1 to 64" in str(refused.value)


HOLDER = textwrap.dedent(
    """
    import sys, time
    from reckoner import Engine
    engine = Engine(sys.argv[1])
    engine.call("record_start", {"title": "held by a child"})
    print("ready", flush=True)
    time.sleep(60)
    """
)

CONTENDER = textwrap.dedent(
    """
    import sys
    from reckoner import Engine
    from reckoner.storage.home import HomeError
    try:
        engine = Engine(sys.argv[1], lane=int(sys.argv[2]) if len(sys.argv) > 2 else None)
    except HomeError as error:
        print(f"refused: {error}", flush=True)
    else:
        print(f"opened lane {engine.lane}", flush=True)
    """
)


def _python(script: str, home: Path, *extra: str, **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, str(home), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,  # type: ignore[call-overload]
    )


def test_another_process_shares_the_home_and_a_killed_lane_is_resumed(
    home: Path,
) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    holder = _python(HOLDER, home)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(HomeLockedError) as refused:
            Engine(home, lane=1)
        assert f"pid {holder.pid}" in str(refused.value)
        assert refused.value.holder_pid == holder.pid
        with Engine(home) as beside:
            assert beside.lane == 2 and beside.open_record_id is None
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # SIGKILL leaves no stale lock: the home opens and resumes the child's record.
    with Engine(home) as engine:
        assert engine.lane == 1
        view = engine.read_record(engine.open_record_id or "")
        assert view is not None and view.title == "held by a child"


def test_a_child_asking_for_this_process_lane_is_refused(home: Path) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    with Engine(home):
        contender = _python(CONTENDER, home, "1")
        out, err = contender.communicate(timeout=60)
        assert contender.returncode == 0, err
        assert out.startswith("refused: ")
        assert f"pid {os.getpid()}" in out
        assert out.count("\n") == 1
        free = _python(CONTENDER, home)
        out, err = free.communicate(timeout=60)
        assert out.strip() == "opened lane 2", err


def test_home_error_is_one_sentence_for_a_file_home(tmp_path: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    path = tmp_path / "not-a-dir"
    path.write_text("x")
    with pytest.raises(HomeError) as refused:
        Engine(path)
    assert "\n" not in str(refused.value)
    assert "is a file" in str(refused.value)
