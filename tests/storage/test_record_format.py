"""docs/guide/records.md: the record file format, parsed without I/O."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from storage_helpers import end_row, lines, set_row, start_row

from reckoner.storage.record_format import (
    FORMAT_VERSION,
    RecordSummary,
    encode_row,
    header_line,
    is_valid_record_id,
    parse_lines,
    row_time,
    start_identity,
    summarize,
)


def test_header_is_seq_zero_version_one() -> None:
    """Spec: docs/guide/records.md (the record file)."""
    assert FORMAT_VERSION == 1
    assert header_line() == b'{"seq":0,"version":1}\n'


def test_rows_are_compact_and_whole_doubles_lose_the_point() -> None:
    """Spec: docs/guide/records.md (the record file)."""
    row = set_row(2, 1_700_000_000_001, value=4700.0)
    assert encode_row(row) == (
        b'{"seq":2,"at":1700000000001,"tool":"set","ok":true,'
        b'"content":{"name":"R1","value":{"type":"number","value":4700}}}\n'
    )


def test_text_with_newlines_stays_on_one_line() -> None:
    """Spec: docs/guide/records.md (the record file)."""
    encoded = encode_row({"seq": 3, "content": {"text": "two\nlines"}})
    assert encoded.count(b"\n") == 1 and encoded.endswith(b"\n")


def test_parse_reads_header_and_rows() -> None:
    """Spec: docs/guide/records.md (the record file)."""
    parsed = parse_lines(lines(start_row("1"), set_row(2, 5)))
    assert parsed.header_version == 1
    assert [row["seq"] for row in parsed.rows] == [1, 2]
    assert parsed.ends_cleanly and parsed.dropped == 0


@pytest.mark.parametrize(
    "first_line",
    [b'{"seq":1,"version":1}\n', b"garbage\n", b'{"version":1}\n', b'{"seq":0}\n', b"[0,1]\n"],
)
def test_missing_header_gives_no_version(first_line: bytes) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    parsed = parse_lines(first_line + lines(start_row("1"), header=None))
    assert parsed.header_version is None


def test_other_versions_are_reported_as_written() -> None:
    """Spec: docs/guide/records.md (the record file)."""
    assert parse_lines(b'{"seq":0,"version":2}\n').header_version == 2
    assert parse_lines(b'{"seq":0,"version":0}\n').header_version == 0


def test_torn_last_line_is_dropped() -> None:
    """Spec: docs/guide/records.md (the record file)."""
    data = lines(start_row("1"), set_row(2, 5)) + b'{"seq":3,"at":6,"to'
    parsed = parse_lines(data)
    assert [row["seq"] for row in parsed.rows] == [1, 2]
    assert parsed.dropped == 1
    assert not parsed.ends_cleanly


def test_garbage_lines_cost_only_themselves() -> None:
    """Spec: docs/guide/records.md (the record file)."""
    data = (
        lines(start_row("1"))
        + b"\x00\xff nonsense\n[1,2]\n42\n"
        + lines(set_row(2, 5), header=None)
    )
    parsed = parse_lines(data)
    assert [row["seq"] for row in parsed.rows] == [1, 2]
    assert parsed.dropped == 3
    assert parsed.ends_cleanly


def test_empty_file_has_no_header() -> None:
    """Spec: docs/guide/records.md (the record file)."""
    parsed = parse_lines(b"")
    assert parsed.header_version is None and parsed.rows == [] and parsed.ends_cleanly


@pytest.mark.parametrize("good", ["1700000000000", "0", "1700000000000-2", "1-999999999"])
def test_valid_record_ids_are_accepted(good: str) -> None:
    """Spec: docs/guide/records.md (the three markers)."""
    assert is_valid_record_id(good)


@pytest.mark.parametrize(
    "bad",
    ["", "../x", "1/../../etc", "1700.jsonl", "-2", "1-", "1-2-3", "a1", "1\n", "1" * 21, " 1"],
)
def test_invalid_record_ids_never_reach_a_path(bad: str) -> None:
    """Spec: docs/guide/records.md (the three markers)."""
    assert not is_valid_record_id(bad)


def test_summary_from_first_accepted_start_and_last_accepted_end() -> None:
    """Spec: docs/guide/records.md (the record list)."""
    refused_start = {"seq": 1, "at": 10, "tool": "record_start", "ok": False, "content": {}}
    rows = [
        refused_start,
        start_row("100", "Real title", at=11),
        {
            "seq": 3,
            "at": 12,
            "tool": "record_start",
            "ok": True,
            "content": {"title": "Second", "record": "999"},
        },
        end_row(4, 20, "100"),
        set_row(5, 30),
        {"seq": 6, "at": 40, "tool": "record_end", "ok": False, "content": {"code": "X"}},
    ]
    summary = summarize(rows)
    assert summary.title == "Real title"
    assert summary.record_id == "100"
    assert summary.opened_at == 11
    assert summary.ended_at == 20


def test_end_falls_back_to_last_row_time() -> None:
    """Spec: docs/guide/records.md (the record list)."""
    summary = summarize([start_row("100", at=11), set_row(2, 15), set_row(3, 17)])
    assert summary.ended_at == 17


def test_open_record_has_no_end() -> None:
    """Spec: docs/guide/records.md (the record list)."""
    summary = summarize([start_row("100", at=11), set_row(2, 15)], is_open=True)
    assert summary.ended_at is None and summary.title == "Divider"


_json_scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20)
_rows = st.lists(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.recursive(_json_scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=6),
        max_size=4,
    ),
    max_size=8,
)


@given(rows=_rows, cut=st.integers(min_value=1, max_value=10_000))
def test_any_torn_tail_costs_only_the_last_row(rows: list[dict[str, object]], cut: int) -> None:
    """7.3: whatever a crash leaves of the last row, every earlier row is read back intact.
    Spec: docs/guide/records.md (the record file)."""
    extra = encode_row({"seq": 99, "content": {"text": "the row being written"}})
    # Cut inside the JSON text: a row missing only its newline is whole and is kept.
    torn = extra[: min(cut, len(extra) - 2)]
    data = header_line() + b"".join(encode_row(row) for row in rows) + torn
    parsed = parse_lines(data)
    assert parsed.header_version == 1
    assert parsed.rows == rows
    assert parsed.dropped == 1 and not parsed.ends_cleanly


def test_a_row_missing_only_its_newline_is_kept() -> None:
    """Spec: docs/guide/records.md (the record file)."""
    data = lines(start_row("1")) + encode_row(set_row(2, 5))[:-1]
    parsed = parse_lines(data)
    assert [row["seq"] for row in parsed.rows] == [1, 2]
    assert parsed.dropped == 0 and not parsed.ends_cleanly


@pytest.mark.parametrize("size", [3, 5_000])
def test_long_rows_spell_whole_doubles_as_integers_like_short_ones(size: int) -> None:
    """Issue 8 (speed): a row of thousands of numbers is scanned for whole doubles in numpy,
    and spells them exactly as the short-row path does; embedded pre-encoded values too.
    Spec: docs/guide/records.md (issue 8)."""
    from reckoner import wire

    floats = [0.05 + k for k in range(size)]
    assert b".0," not in wire.dumps({"a": floats})
    mixed = [*floats, 7.0, -0.0]
    assert wire.dumps({"a": mixed}).endswith(b",7,-0.0]}")  # -0.0 keeps its sign
    assert wire.dumps({"s": ".0," * size}) == b'{"s":"' + b".0," * size + b'"}'
    embedded = wire.preencoded({"array": [1.0, 2.5] * size})
    assert wire.dumps({"v": embedded, "n": 2.0}) == wire.dumps(
        {"v": {"array": [1, 2.5] * size}, "n": 2}
    )


def _summary_row_by_row(rows: list[dict[str, Any]], *, is_open: bool) -> RecordSummary:
    """docs/guide/records.md read straight from the text: every row in order."""
    title = record_id = opened_at = last_end = None
    found_start = False
    for row in rows:
        if row.get("ok") is not True:
            continue
        if row.get("tool") == "record_start" and not found_start:
            found_start = True
            title, record_id, opened_at = start_identity(row)
        elif row.get("tool") == "record_end" and not is_open:
            last_end = row_time(row)
    last_at = row_time(rows[-1]) if rows else None
    ended_at = None if is_open else (last_end if last_end is not None else last_at)
    return RecordSummary(title=title, opened_at=opened_at, ended_at=ended_at, record_id=record_id)


_summary_rows = st.lists(
    st.fixed_dictionaries(
        {
            "tool": st.sampled_from(["record_start", "record_end", "set"]),
            "ok": st.sampled_from([True, False, 1, None]),
            "at": st.sampled_from([5, 7.0, 7.5, None, "8"]),
            "content": st.fixed_dictionaries(
                {"title": st.sampled_from(["A", "B", 3]), "record": st.sampled_from(["1", "2"])}
            ),
        }
    ),
    max_size=8,
)


@given(rows=_summary_rows, is_open=st.booleans())
def test_a_summary_read_from_both_ends_is_the_summary_read_row_by_row(
    rows: list[dict[str, Any]], is_open: bool
) -> None:
    """Issue 10 (Speed; docs/guide/records.md): the start is looked for from the head and the end
    from
    the tail; the title, id, opening and end are those of reading every row in order, for
    any mix of starts, ends, refusals and times (an end without a whole-number time too).
    Spec: docs/guide/records.md (issue 10)."""
    assert summarize(rows, is_open=is_open) == _summary_row_by_row(rows, is_open=is_open)
