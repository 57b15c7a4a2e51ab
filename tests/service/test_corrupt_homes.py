"""Corrupt homes open (issue 3; docs/guide/records.md): the engine opens or refuses with one
sentence, moves a refused open record into ``discarded/`` and never deletes anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from service_helpers import HEADER, file_lines, file_rows, open_file

from reckoner import Engine, wire
from reckoner.storage.home import HomeError

RECORD = "1700000000000"


def _row(seq: int, tool: str, content: object, ok: bool = True) -> bytes:
    row = {"seq": seq, "at": 1_700_000_000_000 + seq, "tool": tool, "ok": ok, "content": content}
    return wire.dumps(row) + b"\n"


START = _row(1, "record_start", {"title": "Divider", "record": RECORD})
SET_V = _row(2, "set", {"name": "V", "value": {"num": 12, "dim": [2, 1, -3, -1, 0, 0, 0]}})
SET_R = _row(3, "set", {"name": "R", "value": {"num": 4700, "dim": [2, 1, -3, -2, 0, 0, 0]}})


def _write_open(home: Path, data: bytes) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = open_file(home)
    path.write_bytes(data)
    return path


def _log_text(home: Path) -> str:
    return "".join(path.read_text() for path in sorted((home / "logs").glob("*.log")))


def _assert_usable(engine: Engine) -> None:
    """After recovery the engine works: a record runs start to end."""
    if engine.open_record_id is None:
        assert engine.call("record_start", {"title": "After"}) == {"ok": True}
    assert engine.call("set", {"name": "x", "value": {"num": 1}})["ok"] is True
    assert engine.call("record_end", {}) == {"ok": True}


def test_garbage_lines_are_skipped_and_the_rest_resumes(home: Path) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    data = HEADER + START + b"not json at all\n" + SET_V + b"\xff\xfe\x00binary\n"
    data += b'{"seq": 3, "unterminated\n' + b"[1,2]\n" + b"42\n" + SET_R
    _write_open(home, data)
    with Engine(home) as engine:
        assert engine.open_record_id == RECORD
        assert set(engine.slot_snapshot()) == {"V", "R"}
        engine.call("record_message", {"text": "resumed"})
        assert file_rows(open_file(home))[-1]["seq"] == 4
        assert "do not parse" in _log_text(home)
        _assert_usable(engine)


def test_torn_last_line_is_dropped_and_cut_off_so_the_next_row_starts_clean(
    home: Path,
) -> None:
    """7.3 and issue 8: the torn fragment was never acknowledged; recovery cuts it off.
    Spec: docs/guide/records.md (the record file)."""
    torn = SET_R[: len(SET_R) // 2]
    _write_open(home, HEADER + START + SET_V + torn)
    with Engine(home) as engine:
        assert set(engine.slot_snapshot()) == {"V"}
        receipt = engine.call("set", {"name": "R", "value": {"num": 1e3, "dim": "ohm"}})
        assert receipt["rev"] == 1
        lines = file_lines(open_file(home))
        assert torn not in open_file(home).read_bytes()
        assert [wire.loads(line)["seq"] for line in lines[1:]] == [1, 2, 3]
        row = wire.loads(lines[-1])
        assert row["seq"] == 3 and row["content"]["name"] == "R"
    # And the fragment stays harmless on every later open.
    with Engine(home) as engine:
        assert engine.slot_snapshot()["R"] == (1, {"num": 1000, "dim": [2, 1, -3, -2, 0, 0, 0]})
        _assert_usable(engine)


def test_a_file_of_only_a_torn_header_is_discarded(home: Path) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    _write_open(home, HEADER[:9])
    with Engine(home) as engine:
        assert engine.open_record_id is None
        assert not open_file(home).exists()
        assert [p.read_bytes() for p in (home / "discarded").iterdir()] == [HEADER[:9]]


BAD_OPEN_FILES = {
    "no header": START + SET_V,
    "empty file": b"",
    "old version": b'{"seq":0,"version":0}\n' + START + SET_V,
    "newer version": b'{"seq":0,"version":2}\n' + START + SET_V,
    "version as text": b'{"seq":0,"version":"1"}\n' + START,
    "start without title": HEADER + _row(1, "record_start", {"record": RECORD}) + SET_V,
    "start with empty title": HEADER + _row(1, "record_start", {"title": "", "record": RECORD}),
    "start without id": HEADER + _row(1, "record_start", {"title": "Divider"}) + SET_V,
    "start refused only": HEADER + _row(1, "record_start", {"code": "X", "error": "e"}, ok=False),
    "no start row": HEADER + SET_V + SET_R,
    "id that is a path": HEADER + _row(1, "record_start", {"title": "T", "record": "../../x"}),
    "binary": b"\x00\x01\x02\xff" * 100,
}


@pytest.mark.parametrize("case", sorted(BAD_OPEN_FILES))
def test_a_refused_open_file_is_moved_to_discarded_and_the_engine_starts_clean(
    home: Path, case: str
) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    data = BAD_OPEN_FILES[case]
    _write_open(home, data)
    with Engine(home) as engine:
        assert engine.open_record_id is None
        assert engine.slot_snapshot() == {}
        assert not open_file(home).exists()
        moved = list((home / "discarded").iterdir())
        assert len(moved) == 1
        assert moved[0].name.endswith("-open-record.jsonl")
        assert moved[0].read_bytes() == data  # nothing is ever deleted by recovery
        log = _log_text(home)
        assert "WARN" in log and "discarded" in log
        assert engine.records().open is None
        _assert_usable(engine)


def test_two_discards_keep_both_files(home: Path) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    for data in (b"first", b"second"):
        _write_open(home, data)
        with Engine(home):
            pass
    kept = sorted(p.read_bytes() for p in (home / "discarded").iterdir())
    assert kept == [b"first", b"second"]


def test_closed_file_without_header_is_listed_unreadable(home: Path) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    records = home / "records"
    records.mkdir(parents=True)
    headless = records / "1600000000000.jsonl"
    headless.write_bytes(START + SET_V)
    newer = records / "1600000000001.jsonl"
    newer_bytes = b'{"seq":0,"version":2}\n' + START
    newer.write_bytes(newer_bytes)
    good = records / f"{RECORD}.jsonl"
    good.write_bytes(HEADER + START + _row(2, "record_end", {"record": RECORD}))
    with Engine(home) as engine:
        listing = engine.records()
        assert [entry.id for entry in listing.closed] == [RECORD]
        assert sorted(listing.unreadable) == ["1600000000000", "1600000000001"]
        assert engine.read_record("1600000000000") is None
        _assert_usable(engine)
    # A closed file of another version is never touched.
    assert newer.read_bytes() == newer_bytes
    assert headless.read_bytes() == START + SET_V


def test_stray_files_in_records_do_not_break_the_list(home: Path) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    records = home / "records"
    records.mkdir(parents=True)
    (records / "notes.txt").write_text("hello")
    (records / "subdir.jsonl").mkdir()
    (records / "1600000000000.jsonl").write_bytes(b"")
    with Engine(home) as engine:
        listing = engine.records()
        assert listing.closed == []
        _assert_usable(engine)
        assert len(engine.records().closed) == 1


@pytest.mark.parametrize("name", ["open-record.jsonl", "state.json"])
def test_a_directory_where_a_file_should_be_is_one_sentence(home: Path, name: str) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    (home / name).mkdir(parents=True)
    with pytest.raises(HomeError) as refused:
        Engine(home)
    message = str(refused.value)
    assert name in message and "directory" in message
    assert "\n" not in message and "Traceback" not in message
    # Refusing to open touched nothing it found.
    assert (home / name).is_dir()


def test_records_as_a_file_is_one_sentence(home: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    home.mkdir()
    (home / "records").write_text("oops")
    with pytest.raises(HomeError) as refused:
        Engine(home)
    assert "records" in str(refused.value) and "\n" not in str(refused.value)
    assert (home / "records").read_text() == "oops"


def test_a_home_that_is_a_regular_file_is_one_sentence(tmp_path: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    path = tmp_path / "home"
    path.write_text("I am a file")
    with pytest.raises(HomeError) as refused:
        Engine(path)
    message = str(refused.value)
    assert str(path) in message and "is a file" in message and "\n" not in message
    assert path.read_text() == "I am a file"


def test_a_home_that_cannot_be_created_is_one_sentence(tmp_path: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(HomeError) as refused:
        Engine(blocker / "home")
    message = str(refused.value)
    assert "cannot be created" in message and "\n" not in message


def test_a_taken_closed_name_is_never_replaced_the_record_takes_the_next_id(
    home: Path,
) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Mine"})
        record = engine.open_record_id
        engine.call("set", {"name": "V", "value": {"num": 1}})
        intruder = home / "records" / f"{record}.jsonl"
        intruder.write_bytes(b"someone else's file\n")
        assert engine.call("record_end", {}) == {"ok": True}
        assert engine.open_record_id is None
        assert intruder.read_bytes() == b"someone else's file\n"
    rows = file_rows(home / "records" / f"{record}-2.jsonl")
    assert [row["tool"] for row in rows] == ["record_start", "set", "record_end"]
    assert not open_file(home).exists()


def test_a_record_that_failed_to_close_stays_open_and_listed(home: Path) -> None:
    """Issue 8 (against docs/guide/records.md): a close whose rename fails refuses record_end, keeps
    the
    record open, resumable and listed, and a later record_end closes it; nothing is discarded.
    Spec: docs/guide/records.md (issue 8)."""
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Stuck"})
        record = engine.open_record_id
        engine.call("set", {"name": "V", "value": {"num": 1}})
        stuck = open_file(home).read_bytes()
        # The rename fails for a reason the engine cannot see coming.
        (home / "records").rename(home / "records-away")
        (home / "records").write_text("not a directory")
        receipt = engine.call("record_end", {})
        assert receipt["ok"] is False and receipt["code"] == "ENGINE_UNKNOWN_ERROR"
        assert receipt["error"].startswith("the record could not be closed: ")
        assert "in the way" in receipt["error"] and "stays open" in receipt["error"]
        assert engine.open_record_id == record and set(engine.slot_snapshot()) == {"V"}
        assert engine.records().open is not None and engine.records().open.id == record
        # The end row was taken back; only the refusal's own row follows the kept bytes.
        rows = file_rows(open_file(home))
        assert open_file(home).read_bytes().startswith(stuck)
        assert [(row["tool"], row["ok"]) for row in rows][-1] == ("record_end", False)
        (home / "records").unlink()
        (home / "records-away").rename(home / "records")
        assert engine.call("record_end", {}) == {"ok": True}
        assert engine.call("record_start", {"title": "Next"}) == {"ok": True}
    assert not (home / "discarded").exists()
    rows = file_rows(home / "records" / f"{record}.jsonl")
    assert [(row["tool"], row["ok"]) for row in rows] == [
        ("record_start", True),
        ("set", True),
        ("record_end", False),
        ("record_end", True),
    ]
    assert [row["seq"] for row in rows] == [1, 2, 3, 4]
