"""Issue 27: a reading with `digits` carries the number's spelling as rounded, trailing
zeros kept (`"text": "68.00"` beside `"num": 68`), which `set` takes back unchanged; a
`text` that disagrees with `num` is refused in one sentence. A complex reading spells both
parts in the formula language's notation ("3.000+4.000i", polar "5.000∠0.9273") and an
array reading a text per element, nested as the array is (docs/decisions/engine-readings.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reckoner import Engine
from reckoner.contract.codes import ErrorCode
from reckoner.contract.limits import MAX_TEXT_LENGTH
from reckoner.core.api import parse_value, render_value, stored
from reckoner.core.errors import Failure
from reckoner.core.quoting import ANGLE, quoted, quoted_many
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


def test_text_beside_an_object_is_refused(recording: Engine) -> None:
    receipt = recording.call(
        "set", {"name": "w", "value": {"object": {"a": {"num": 1}}, "text": "1"}}
    )
    assert receipt["code"] == ErrorCode.INVALID_ARGS.value
    assert "beside object" in receipt["error"], receipt["error"]
    assert "fields carry their own" in receipt["error"], receipt["error"]


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


@pytest.mark.parametrize(
    ("value", "reading", "shown"),
    [
        ({"re": 3, "im": 4}, {"digits": 4}, {"re": 3, "im": 4, "text": "3.000+4.000i"}),
        ({"re": 3, "im": -4}, {"digits": 2}, {"re": 3, "im": -4, "text": "3.0-4.0i"}),
        (
            {"re": -0.5, "im": 74712},
            {"digits": 3},
            {"re": -0.5, "im": 74700, "text": "-0.500+7.47e4i"},
        ),
        (
            {"re": 3, "im": 4},
            {"digits": 4, "form": "polar"},
            {"mag": 5, "ang": 0.9273, "text": f"5.000{ANGLE}0.9273"},
        ),
        ({"num": 68}, {"digits": 3, "form": "rect"}, {"re": 68, "im": 0, "text": "68.0+0.00i"}),
        (
            {"num": -2},
            {"digits": 2, "form": "polar"},
            {"mag": 2, "ang": 3.1, "text": f"2.0{ANGLE}3.1"},
        ),
    ],
)
def test_a_complex_reading_with_digits_spells_both_parts(
    recording: Engine, value: dict[str, Any], reading: dict[str, Any], shown: dict[str, Any]
) -> None:
    recording.call("set", {"name": "z", "value": {**value, "dim": "volt"}})
    assert recording.call("get", {"name": "z", **reading})["value"] == {**shown, "dim": "volt"}


def test_a_complex_text_is_a_formula_of_the_same_number(recording: Engine) -> None:
    """The rect spelling is the formula language's own complex notation: evaluated as a
    formula, it gives the reading's number."""
    recording.call("set", {"name": "z", "value": {"re": 0.012345, "im": -7.5e-6}})
    reading = recording.call("get", {"name": "z", "digits": 3})["value"]
    assert reading["text"] == "0.0123-7.50e-6i"
    assert recording.call("eval", {"formula": reading["text"], "target": "t"})["ok"]
    evaluated = recording.call("get", {"name": "t"})["value"]
    assert evaluated == {"re": reading["re"], "im": reading["im"], "dim": "dim-less"}


@pytest.mark.parametrize(
    ("array", "reading", "text"),
    [
        ([1.5, 2, 74712], {"digits": 3}, ["1.50", "2.00", "7.47e4"]),  # the numpy path
        ([[1, 2], [3, 0.0003]], {"digits": 2}, [["1.0", "2.0"], ["3.0", "0.00030"]]),
        ([1, {"re": 3, "im": -4}], {"digits": 4}, ["1.000", "3.000-4.000i"]),
        ([[{"re": 3, "im": 4}], [2]], {"digits": 2}, [["3.0+4.0i"], ["2.0"]]),  # nested lists
        ([3, -2], {"digits": 2, "form": "rect"}, ["3.0+0.0i", "-2.0+0.0i"]),
        ([{"re": 3, "im": 4}], {"digits": 2, "form": "polar"}, [f"5.0{ANGLE}0.93"]),
        ([-0.0, 0.0], {"digits": 3}, ["0.00", "0.00"]),  # zero reads unsigned, as a real does
    ],
)
def test_an_array_reading_with_digits_carries_a_text_per_element_in_its_nesting(
    recording: Engine, array: list[Any], reading: dict[str, Any], text: list[Any]
) -> None:
    recording.call("set", {"name": "a", "value": {"array": array, "dim": "ohm"}})
    shown = recording.call("get", {"name": "a", **reading})["value"]
    assert shown["text"] == text
    assert list(shown) == ["array", "text", "dim"]


def test_an_array_text_is_in_the_unit_read(recording: Engine) -> None:
    recording.call("set", {"name": "d", "value": {"array": [0.0254, 1], "unit": "m"}})
    reading = recording.call("get", {"name": "d", "unit": "mm", "digits": 4})["value"]
    assert reading == {
        "array": [25.4, 1000],
        "text": ["25.40", "1000"],
        "unit": "mm",
        "dim": "metre",
    }


def test_set_takes_complex_and_array_readings_with_their_text_back_unchanged(
    recording: Engine,
) -> None:
    values = [
        {"re": 0.0123456, "im": -4.5, "unit": "kOhm"},
        {"array": [[1.23456, {"re": 2, "im": 7.77777}], [3, 4]], "unit": "mA"},
    ]
    for value in values:
        recording.call("set", {"name": "v", "value": value})
        for form in (None, "rect", "polar"):
            reading = recording.call(
                "get", {"name": "v", "unit": value["unit"], "digits": 3, "form": form}
            )["value"]
            again = recording.call("set", {"name": "w", "value": reading})
            without = {k: v for k, v in reading.items() if k != "text"}
            plain = recording.call("set", {"name": "u", "value": without})
            assert again["ok"] is True, again
            assert again["value"] == plain["value"]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ({"re": 3, "im": 4, "text": "3.000+4.001i"}, ["spells re 3.0 and im 4.001", "unchanged"]),
        ({"re": 3, "im": 4, "text": "3.000"}, ['such as "3.000+4.000i"', "66 characters"]),
        ({"re": 3, "im": -4, "text": "3+4i"}, ["im 4.0", "-4.0"]),
        ({"mag": 5, "ang": 1, "text": "5+1i"}, [f'"5.000{ANGLE}0.9273"']),
        ({"re": 3, "im": 4, "text": ["3+4i"]}, ["text is list", "both parts"]),
        ({"array": [1, 2], "text": ["1.0"]}, ["a list of 1", "2 elements", "nested as"]),
        ({"array": [1, 2], "text": "1.0"}, ["'1.0'", "one spelling per element"]),
        (
            {"array": [1, [2]], "text": ["1.0", "2.0"]},
            ["text[1] is '2.0'", "an array of 1 element text"],
        ),
        ({"array": [1, 2], "text": ["1.0", "2.5"]}, ["text[1] is '2.5'", "element it spells is 2"]),
        ({"array": [{"re": 1, "im": 2}], "text": ["1.0"]}, ["text[0] is '1.0'", "both parts"]),
    ],
)
def test_a_text_that_disagrees_with_a_complex_or_an_array_is_refused_in_one_sentence(
    recording: Engine, value: dict[str, Any], words: list[str]
) -> None:
    receipt = recording.call("set", {"name": "z", "value": value})
    assert receipt["code"] == ErrorCode.INVALID_ARGS.value
    for word in words:
        assert word in receipt["error"], receipt["error"]
    assert "\n" not in receipt["error"]
    assert recording.call("get", {"name": "z"})["code"] == ErrorCode.SLOT_NOT_FOUND.value


_FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


@given(st.lists(_FINITE, min_size=1, max_size=40), st.integers(min_value=1, max_value=17))
def test_an_array_is_spelled_in_one_pass_exactly_as_each_number_alone(
    xs: list[float], digits: int
) -> None:
    rounded = [round_significant(x, digits) for x in xs]
    assert quoted_many(np.array(rounded), digits) == [quoted(x, digits) for x in rounded]


_ELEMENT = st.one_of(
    _FINITE,
    st.builds(lambda re, im: {"re": re, "im": im}, _FINITE, _FINITE),
)
_READABLE = st.one_of(
    st.builds(lambda re, im: {"re": re, "im": im}, _FINITE, _FINITE),
    st.builds(lambda xs: {"array": xs}, st.lists(_ELEMENT, min_size=1, max_size=6)),
    st.builds(
        lambda rows: {"array": rows},
        st.lists(st.lists(_FINITE, min_size=2, max_size=2), min_size=1, max_size=3),
    ),
)


@given(
    _READABLE,
    st.integers(min_value=1, max_value=17),
    st.sampled_from([None, "rect", "polar"]),
)
def test_a_complex_or_array_reading_round_trips_through_set_with_its_text(
    raw: dict[str, Any], digits: int, form: str | None
) -> None:
    value = parse_value(raw)
    assert not isinstance(value, Failure)
    reading = render_value(value, form, digits, None)
    if isinstance(reading, Failure):  # a polar magnitude past the largest double
        assert form == "polar"
        return
    assert "text" in reading
    again = parse_value(reading)
    assert not isinstance(again, Failure), again
    plain = parse_value({k: v for k, v in reading.items() if k != "text"})
    assert not isinstance(plain, Failure)
    assert stored(again) == stored(plain)


@given(
    st.lists(_FINITE, min_size=1, max_size=30),
    st.integers(min_value=1, max_value=17),
    st.sampled_from([None, "rect", "polar"]),
    st.booleans(),
)
def test_each_element_of_an_array_reading_reads_as_that_number_alone(
    xs: list[float], digits: int, form: str | None, as_complex: bool
) -> None:
    """The array paths round and spell in whole-array passes; element for element, number
    and text are what a get of that one number answers."""
    elements: list[Any] = [{"re": x, "im": -x / 3} for x in xs] if as_complex else xs
    array = parse_value({"array": elements})
    assert not isinstance(array, Failure)
    shown = render_value(array, form, digits, None)
    if isinstance(shown, Failure):  # a polar magnitude past the largest double
        return
    for i, element in enumerate(elements):
        alone = parse_value(element if as_complex else {"num": element})
        assert not isinstance(alone, Failure)
        one = render_value(alone, form, digits, None)
        assert not isinstance(one, Failure)
        assert shown["text"][i] == one["text"], (i, element)
        number = {k: v for k, v in one.items() if k not in ("text", "dim")}
        assert shown["array"][i] == number.get("num", number)
