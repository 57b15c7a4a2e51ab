"""Issue 27: a reading with `digits` carries the number's spelling as rounded, trailing
zeros kept (`"text": "68.00"` beside `"num": 68`), which `set` takes back unchanged; a
`text` that disagrees with `num` is refused in one sentence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reckoner import Engine
from reckoner.contract.codes import ErrorCode
from reckoner.contract.limits import MAX_TEXT_LENGTH
from reckoner.core.quoting import quoted
from reckoner.core.rendering import round_significant


@pytest.mark.parametrize(
    ("num", "digits", "text"),
    [
        (67.9996, 4, "68.00"),  # the case: 68 read to 4 digits
        (463.0, 4, "463.0"),
        (8.0, 4, "8.000"),
        (74712.0, 4, "7.471e4"),  # zeros before the point would claim digits
        (74700.0, 4, "7.470e4"),  # the 74700, its 4 digits shown
        (74700.0, 3, "7.47e4"),
        (74700.0, 5, "74700"),
        (0.0003, 4, "0.0003000"),
        (0.00001234, 3, "1.23e-5"),
        (-2.5, 1, "-3"),  # half away from zero on the shortest spelling
        (0.0, 3, "0.00"),
        (6.02214076e23, 4, "6.022e23"),
        (1 / 3, 20, "0.3333333333333333"),  # past 15 digits: the shortest spelling
        (68.0, 20, "68.0000000000000"),
    ],
)
def test_a_reading_with_digits_spells_them_all_trailing_zeros_kept(
    recording: Engine, num: float, digits: int, text: str
) -> None:
    recording.call("set", {"name": "x", "value": {"num": num, "dim": "volt"}})
    value = recording.call("get", {"name": "x", "digits": digits})["value"]
    assert value == {"num": round_significant(num, digits), "text": text, "dim": "volt"}


def test_a_reading_without_digits_carries_no_text(recording: Engine) -> None:
    assert recording.call("get", {"name": "V"})["value"] == {"num": 12, "dim": "volt"}


def test_text_stands_beside_num_in_a_unit_reading_and_in_object_fields(
    recording: Engine,
) -> None:
    receipt = recording.call(
        "eval", {"formula": "@V^2/@R", "target": "P", "read": {"unit": "mW", "digits": 4}}
    )
    assert receipt["value"] == {"num": 30.64, "text": "30.64", "unit": "mW", "dim": "watt"}
    field = {"num": 5, "unit": "V"}
    recording.call("set", {"name": "src", "value": {"object": {"v": field}}})
    shown = recording.call("get", {"name": "src", "digits": 3})["value"]
    assert shown == {"object": {"v": {"num": 5, "text": "5.00", "dim": "volt"}}}


def test_set_takes_a_reading_with_its_text_back_unchanged(recording: Engine) -> None:
    recording.call("set", {"name": "x", "value": {"num": 67.9996, "unit": "mW"}})
    reading = recording.call("get", {"name": "x", "unit": "mW", "digits": 4})["value"]
    assert reading["text"] == "68.00"
    again = recording.call("set", {"name": "y", "value": reading})
    assert again["ok"] is True
    assert again["value"] == {"num": 0.068, "dim": [2, 1, -3, 0, 0, 0, 0]}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("68.01", ["'68.01'", "num is 68.0", "unchanged"]),
        ("sixty-eight", ["decimal spelling", f"{MAX_TEXT_LENGTH} characters"]),
        ("6" * (MAX_TEXT_LENGTH + 1), ["MAX_TEXT_LENGTH"]),
        (68, ["text is int", "decimal spelling"]),
    ],
)
def test_a_text_that_disagrees_with_num_is_refused_in_one_sentence(
    recording: Engine, text: object, words: list[str]
) -> None:
    receipt = recording.call("set", {"name": "z", "value": {"num": 68, "text": text}})
    assert receipt["code"] == ErrorCode.INVALID_ARGS.value
    for word in words:
        assert word in receipt["error"], receipt["error"]
    assert "\n" not in receipt["error"]
    assert recording.call("get", {"name": "z"})["code"] == ErrorCode.SLOT_NOT_FOUND.value


def test_text_beside_any_tag_but_num_is_refused(recording: Engine) -> None:
    for value in (
        {"re": 1, "im": 2, "text": "1"},
        {"array": [1], "text": "1"},
        {"object": {"a": {"num": 1}}, "text": "1"},
    ):
        receipt = recording.call("set", {"name": "w", "value": value})
        assert receipt["code"] == ErrorCode.INVALID_ARGS.value
        assert "beside num only" in receipt["error"], receipt["error"]


@settings(max_examples=300, deadline=None)
@given(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
    st.integers(min_value=1, max_value=15),
)
def test_text_spells_num_with_exactly_the_digits_asked(x: float, digits: int) -> None:
    rounded = round_significant(x, digits)
    text = quoted(rounded, digits)
    assert float(text) == rounded
    mantissa = text.lstrip("-").split("e")[0].replace(".", "")
    significant = mantissa.lstrip("0") or "0" * digits
    if rounded == 0:
        assert mantissa == "0" * digits, text
    else:
        assert len(significant) == digits, text
    assert len(text) <= MAX_TEXT_LENGTH
