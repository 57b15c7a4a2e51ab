"""docs/guide/formulas.md: the four value types, set's tagged structure, dim, and get's
rendering."""

from __future__ import annotations

import cmath
import math
from typing import Any

import numpy as np
import pytest
from core_helpers import get, get_refused, obj, q, set_refused, set_value, vec
from hypothesis import given
from hypothesis import strategies as st

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ALL_NAMES, ZERO
from reckoner.contract.limits import MAX_ARRAY_ELEMENTS, MAX_VALUE_DEPTH
from reckoner.core.api import stored
from reckoner.core.values import (
    Obj,
    Quantity,
    element_count,
    first_non_finite,
    is_rectangular,
    make_array,
)

OHM = [2, 1, -3, -2, 0, 0, 0]
KELVIN = [0, 0, 0, 0, 1, 0, 0]


# -- 3.1 the four types and numeric positions -------------------------------------------


@pytest.mark.parametrize(
    ("raw", "echo"),
    [
        ({"num": 4.7e3, "dim": "ohm"}, {"num": 4700.0, "dim": OHM}),
        ({"re": 3, "im": 4}, {"re": 3.0, "im": 4.0, "dim": [0] * 7}),
        (
            {"array": [1, 2, 3], "dim": "metre"},
            {"array": [1.0, 2.0, 3.0], "dim": [1, 0, 0, 0, 0, 0, 0]},
        ),
        (
            {"object": {"v": {"num": 12, "dim": "volt"}, "r": {"num": 2, "dim": "ohm"}}},
            {
                "object": {
                    "v": {"num": 12.0, "dim": [2, 1, -3, -1, 0, 0, 0]},
                    "r": {"num": 2.0, "dim": OHM},
                }
            },
        ),
    ],
)
def test_each_of_the_four_types_is_stored_with_its_vector(raw: Any, echo: Any) -> None:
    """Spec: docs/guide/formulas.md (the four value types)."""
    assert stored(set_value(raw)) == echo


def test_an_object_carries_one_vector_per_field_and_none_of_its_own() -> None:
    """Spec: docs/guide/formulas.md (the four value types)."""
    value = set_value(
        {"object": {"v": {"num": 1, "dim": "volt"}, "i": {"num": 2, "dim": "ampere"}}}
    )
    assert isinstance(value, Obj)
    assert value.fields["v"].vector == vec("volt")  # type: ignore[union-attr]
    assert value.fields["i"].vector == vec("ampere")  # type: ignore[union-attr]
    assert "dim" not in stored(value)


@pytest.mark.parametrize("bad", ["12", True, False, None, [1], {"n": 1}])
def test_a_numeric_position_holds_a_json_number_only(bad: Any) -> None:
    """Spec: docs/guide/formulas.md (the four value types)."""
    for raw in (
        {"num": bad},
        {"re": bad, "im": 0},
        {"re": 0, "im": bad},
        {"mag": bad, "ang": 0},
        {"array": [1, bad] if not isinstance(bad, list) else [1, "x"]},
    ):
        set_refused(raw, ErrorCode.INVALID_ARGS)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_numeric_position_holds_a_finite_double(bad: float) -> None:
    """Spec: docs/guide/formulas.md (the four value types)."""
    message = set_refused({"num": bad}, ErrorCode.INVALID_ARGS)
    assert "finite" in message
    set_refused({"array": [1.0, bad]}, ErrorCode.INVALID_ARGS)
    set_refused({"re": 1.0, "im": bad}, ErrorCode.INVALID_ARGS)


def test_an_integer_beyond_the_largest_double_is_refused_not_crashed() -> None:
    """Spec: docs/guide/formulas.md (the four value types)."""
    message = set_refused({"num": 10**400}, ErrorCode.INVALID_ARGS)
    assert "largest double" in message


def test_the_message_names_the_kind_that_was_given() -> None:
    """Spec: docs/guide/formulas.md (the four value types)."""
    message = set_refused({"num": "4.7k"}, ErrorCode.INVALID_ARGS)
    assert "value.num" in message and "'4.7k'" in message and "without quotes" in message
    assert "boolean true" in set_refused({"num": True}, ErrorCode.INVALID_ARGS)


# -- 3.2 set's tagged structure -----------------------------------------------------------


@pytest.mark.parametrize("raw", [{}, {"dim": "ohm"}])
def test_a_bag_with_no_tag_is_refused_with_the_vocabulary(raw: Any) -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    message = set_refused(raw, ErrorCode.INVALID_ARGS)
    assert "no tag" in message and "{num}" in message and "{mag, ang}" in message


@pytest.mark.parametrize(
    "raw",
    [
        {"num": 1, "re": 1, "im": 2},
        {"num": 1, "array": [1]},
        {"re": 1, "im": 1, "mag": 1, "ang": 0},
        {"array": [], "object": {}},
    ],
)
def test_more_than_one_tag_is_refused(raw: Any) -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    assert "exactly one tag" in set_refused(raw, ErrorCode.INVALID_ARGS)


def test_an_unknown_key_is_refused_with_the_tag_vocabulary() -> None:
    """Issue 14 made `unit` a key of the tagged value; any other key is still unknown.
    Spec: docs/guide/formulas.md (set's tagged structure)."""
    message = set_refused({"num": 1, "units": "V"}, ErrorCode.INVALID_ARGS)
    assert "'units'" in message
    for tag in ("{num}", "{re, im}", "{mag, ang}", "{array}", "{object}"):
        assert tag in message


def test_dim_beside_object_is_refused() -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    message = set_refused({"object": {"a": {"num": 1}}, "dim": "ohm"}, ErrorCode.INVALID_ARGS)
    assert "per field" in message


@pytest.mark.parametrize(
    ("raw", "pair"),
    [
        ({"re": 1}, "{re, im}"),
        ({"im": 1}, "{re, im}"),
        ({"mag": 1}, "{mag, ang}"),
        ({"ang": 1}, "{mag, ang}"),
    ],
)
def test_half_of_a_pair_is_refused_naming_the_pair(raw: Any, pair: str) -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    assert pair in set_refused(raw, ErrorCode.INVALID_ARGS)


def test_polar_is_converted_to_rectangular_on_entry() -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    value = set_value({"mag": 5, "ang": 0.927295218})
    echo = stored(value)
    assert set(echo) == {"re", "im", "dim"}
    assert echo["re"] == pytest.approx(3.0, abs=1e-8)
    assert echo["im"] == pytest.approx(4.0, abs=1e-8)


def test_polar_array_elements_are_converted_too() -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    value = set_value({"array": [{"mag": 2, "ang": math.pi / 2}, 1]})
    first, second = stored(value)["array"]
    assert first["re"] == pytest.approx(0.0, abs=1e-12) and first["im"] == pytest.approx(2.0)
    assert second == 1.0


@pytest.mark.parametrize(
    "element",
    [
        {"num": 1},
        {"re": 1, "im": 2, "dim": "ohm"},
        {"array": [1]},
        {"re": 1},
        {"mag": 1},
        "1",
        True,
        None,
    ],
)
def test_array_elements_are_bare(element: Any) -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    message = set_refused({"array": [1, element]}, ErrorCode.INVALID_ARGS)
    assert "value.array[1]" in message


def test_an_object_can_never_be_an_array_element() -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    message = set_refused({"array": [{"object": {"a": {"num": 1}}}]}, ErrorCode.INVALID_ARGS)
    assert "object can never be an element" in message


@pytest.mark.parametrize("items", [{"a": 1}, "1,2", 3, None])
def test_array_must_be_a_json_array(items: Any) -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    set_refused({"array": items}, ErrorCode.INVALID_ARGS)


@pytest.mark.parametrize("fields", [[1], "x", 3, None])
def test_object_must_be_a_json_object(fields: Any) -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    set_refused({"object": fields}, ErrorCode.INVALID_ARGS)


@pytest.mark.parametrize("raw", [None, 12, "12", [1, 2], True])
def test_the_value_must_be_a_tagged_object(raw: Any) -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    set_refused(raw, ErrorCode.INVALID_ARGS)


@pytest.mark.parametrize("name", ["1a", "a-b", "", "né", "a b", "@a"])
def test_object_field_names_follow_the_name_rule(name: str) -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    set_refused({"object": {name: {"num": 1}}}, ErrorCode.INVALID_IDENTIFIER)


def test_an_object_field_may_itself_be_an_object() -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    raw = {"object": {"net": {"object": {"z": {"re": 1, "im": 2, "dim": "ohm"}}}}}
    assert stored(set_value(raw)) == {
        "object": {"net": {"object": {"z": {"re": 1.0, "im": 2.0, "dim": OHM}}}}
    }


def test_empty_arrays_and_empty_objects_are_values() -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    assert stored(set_value({"array": []})) == {"array": [], "dim": [0] * 7}
    assert stored(set_value({"object": {}})) == {"object": {}}
    assert stored(set_value({"array": [[], [1]]})) == {"array": [[], [1.0]], "dim": [0] * 7}


def test_mixed_real_and_complex_elements_keep_their_kind() -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    echo = stored(set_value({"array": [1, {"re": 0, "im": 2}, [3, {"re": 4, "im": 0}]]}))
    assert echo["array"] == [1.0, {"re": 0.0, "im": 2.0}, [3.0, {"re": 4.0, "im": 0.0}]]


def test_a_value_nested_past_max_value_depth_is_refused() -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    deep: Any = 1
    for _ in range(MAX_VALUE_DEPTH + 5):
        deep = [deep]
    message = set_refused({"array": deep}, ErrorCode.INVALID_ARGS)
    assert "MAX_VALUE_DEPTH" in message and str(MAX_VALUE_DEPTH) in message
    nested: Any = {"num": 1}
    for _ in range(MAX_VALUE_DEPTH + 5):
        nested = {"object": {"f": nested}}
    assert "MAX_VALUE_DEPTH" in set_refused(nested, ErrorCode.INVALID_ARGS)


@pytest.mark.parametrize("depth", [2, 32, 64, 65, 100, MAX_VALUE_DEPTH - 1])
def test_deeply_nested_arrays_within_the_limit_are_values(depth: int) -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    deep: Any = 1.5
    for _ in range(depth):
        deep = [deep]
    echo = stored(set_value({"array": deep}))["array"]
    for _ in range(depth - 1):
        assert isinstance(echo, list) and len(echo) == 1
        echo = echo[0]
    assert echo == [1.5]


def test_an_array_over_max_array_elements_is_refused() -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    message = set_refused({"array": [0.0] * (MAX_ARRAY_ELEMENTS + 1)}, ErrorCode.INVALID_ARGS)
    assert str(MAX_ARRAY_ELEMENTS) in message and "MAX_ARRAY_ELEMENTS" in message
    nested = {"array": [[0.0] * 1000] * 1001}
    assert "MAX_ARRAY_ELEMENTS" in set_refused(nested, ErrorCode.INVALID_ARGS)


# -- 3.3 dim --------------------------------------------------------------------------------


def test_a_table_name_gives_its_rows_vector() -> None:
    """Spec: docs/guide/formulas.md (dim)."""
    for name in ALL_NAMES:
        if name == "degC":
            continue
        value = set_value({"num": 2, "dim": name})
        assert value.vector == vec(name)  # type: ignore[union-attr]
        assert stored(value)["num"] == 2.0


def test_seven_integers_give_that_vector_without_a_map() -> None:
    """Spec: docs/guide/formulas.md (dim)."""
    value = set_value({"num": 20, "dim": [0, 0, 0, 0, 1, 0, 0]})
    assert stored(value) == {"num": 20.0, "dim": KELVIN}
    unnamed = set_value({"num": 1, "dim": [1, 2, 3, 4, 5, 6, 7]})
    assert stored(unnamed)["dim"] == [1, 2, 3, 4, 5, 6, 7]


def test_integral_floats_are_integers_but_booleans_are_not() -> None:
    """Spec: docs/guide/formulas.md (dim)."""
    value = set_value({"num": 1, "dim": [2.0, 1.0, -3.0, -2.0, 0.0, 0.0, 0.0]})
    assert value.vector == vec("ohm")  # type: ignore[union-attr]
    set_refused({"num": 1, "dim": [True, 0, 0, 0, 0, 0, 0]}, ErrorCode.INVALID_DIMENSION)


@pytest.mark.parametrize("raw", [{"num": 3}, {"num": 3, "dim": None}])
def test_omitted_or_null_dim_is_the_zero_vector(raw: Any) -> None:
    """Spec: docs/guide/formulas.md (dim)."""
    assert set_value(raw).vector == ZERO  # type: ignore[union-attr]


def test_an_unknown_name_lists_every_name() -> None:
    """Spec: docs/guide/formulas.md (dim)."""
    message = set_refused({"num": 1, "dim": "volts"}, ErrorCode.INVALID_DIMENSION)
    assert "'volts'" in message
    for name in ALL_NAMES:
        assert name in message


@pytest.mark.parametrize(
    "dim",
    [
        [0] * 6,
        [0] * 8,
        [],
        [0.5, 0, 0, 0, 0, 0, 0],
        ["1", 0, 0, 0, 0, 0, 0],
        [None, 0, 0, 0, 0, 0, 0],
        [math.inf, 0, 0, 0, 0, 0, 0],
        3,
        True,
        {"m": 1},
        "Ohm",
    ],
)
def test_any_other_dim_is_invalid_dimension(dim: Any) -> None:
    """Spec: docs/guide/formulas.md (dim)."""
    set_refused({"num": 1, "dim": dim}, ErrorCode.INVALID_DIMENSION)


def test_degc_applies_its_affine_map_on_entry() -> None:
    """Spec: docs/guide/formulas.md (dim)."""
    assert stored(set_value({"num": 25, "dim": "degC"})) == {"num": 298.15, "dim": KELVIN}
    assert stored(set_value({"num": 25, "dim": "kelvin"}))["num"] == 25.0


def test_the_offset_reaches_the_real_part_and_the_factor_alone_the_imaginary() -> None:
    """Spec: docs/guide/formulas.md (dim)."""
    echo = stored(set_value({"re": 10, "im": 2, "dim": "degC"}))
    assert echo == {"re": 283.15, "im": 2.0, "dim": KELVIN}
    polar = stored(set_value({"mag": 2, "ang": 0, "dim": "degC"}))
    assert polar["re"] == pytest.approx(275.15) and polar["im"] == 0.0


def test_degc_reaches_every_array_element() -> None:
    """Spec: docs/guide/formulas.md (dim)."""
    echo = stored(set_value({"array": [0, [100, {"re": 1, "im": 1}]], "dim": "degC"}))
    assert echo["array"] == [273.15, [373.15, {"re": 274.15, "im": 1.0}]]


# -- 3.4 get ------------------------------------------------------------------------------


def test_form_omitted_keeps_the_stored_form_with_the_first_table_name() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    assert get(q(4700, "ohm")) == {"num": 4700.0, "dim": "ohm"}
    assert get(q(1 + 2j, "ohm")) == {"re": 1.0, "im": 2.0, "dim": "ohm"}
    assert get(q(300, "kelvin")) == {"num": 300.0, "dim": "kelvin"}  # not degC: first name
    assert get(q(1.0)) == {"num": 1.0, "dim": "dim-less"}
    assert get(q(2.0, "hertz")) == {"num": 2.0, "dim": "hertz"}
    assert get(q(1.0, (1, 2, 3, 4, 5, 6, 7))) == {"num": 1.0, "dim": [1, 2, 3, 4, 5, 6, 7]}


def test_rect_renders_a_real_as_re_and_zero_im() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    assert get(q(-3.0), form="rect") == {"re": -3.0, "im": 0.0, "dim": "dim-less"}


def test_polar_renders_magnitude_and_radians() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    rendered = get(q(3 + 4j, "volt"), form="polar")
    assert rendered["mag"] == pytest.approx(5.0) and rendered["ang"] == pytest.approx(0.9272952180)
    assert rendered["dim"] == "volt"


def test_a_negative_real_under_polar_has_angle_pi() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    assert get(q(-2.0), form="polar") == {"mag": 2.0, "ang": math.pi, "dim": "dim-less"}
    assert get(q(2.0), form="polar") == {"mag": 2.0, "ang": 0.0, "dim": "dim-less"}


def test_form_reaches_every_leaf_of_arrays_and_objects() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    value = Obj({"a": q([1.0, [2j]], "metre"), "b": q(-1.0)})
    rendered = get(value, form="rect")
    assert rendered == {
        "object": {
            "a": {"array": [{"re": 1.0, "im": 0.0}, [{"re": 0.0, "im": 2.0}]], "dim": "metre"},
            "b": {"re": -1.0, "im": 0.0, "dim": "dim-less"},
        }
    }


@pytest.mark.parametrize("form", ["Rect", "cartesian", "", 1, True, ["rect"]])
def test_form_must_be_rect_or_polar(form: Any) -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    message = get_refused(q(1.0), ErrorCode.INVALID_ARGS, form=form)
    assert '"rect" or "polar"' in message


@pytest.mark.parametrize(
    ("x", "digits", "expected"),
    [
        (3.14159265, 3, 3.14),
        (4700.0, 2, 4700.0),
        (123456.0, 2, 120000.0),
        (0.000123456, 2, 0.00012),
        (1.5, 6, 1.5),
        (2.0, 4, 2.0),
        (-9.876, 2, -9.9),
        (1 / 3, 1, 0.3),
    ],
)
def test_digits_rounds_to_significant_digits(x: float, digits: int, expected: float) -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    assert get(q(x), digits=digits)["num"] == expected


def test_digits_is_never_padded() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    # 1.5 to 6 digits stays 1.5 (a double), never a string like "1.50000".
    rendered = get(q(1.5), digits=6)["num"]
    assert type(rendered) is float and rendered == 1.5


def test_digits_reaches_complex_parts_array_elements_and_fields() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    value = Obj({"z": q(1.23456 + 6.54321j), "a": q([1.23456, [9.87654]])})
    rendered = get(value, digits=3)
    z = {"re": 1.23, "im": 6.54, "text": "1.23+6.54i", "dim": "dim-less"}
    assert rendered["object"]["z"] == z
    assert rendered["object"]["a"]["array"] == [1.23, [9.88]]
    assert rendered["object"]["a"]["text"] == ["1.23", ["9.88"]]


def test_digits_accepts_an_integral_float() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    assert get(q(3.14159), digits=3.0)["num"] == 3.14


@pytest.mark.parametrize("digits", [0, -1, 1.5, "3", True, False, [3], math.nan, math.inf])
def test_digits_must_be_a_positive_integer(digits: Any) -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    message = get_refused(q(1.0), ErrorCode.INVALID_ARGS, digits=digits)
    assert "positive integer" in message


def test_dim_name_maps_the_leaves_out_of_si() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    assert get(q(298.15, "kelvin"), dim="degC") == {"num": pytest.approx(25.0), "dim": "degC"}
    arr = get(q([273.15, [373.15]], "kelvin"), dim="degC")
    assert arr["array"][0] == pytest.approx(0.0) and arr["array"][1][0] == pytest.approx(100.0)
    assert arr["dim"] == "degC"
    assert get(q(5.0), dim="radian") == {"num": 5.0, "dim": "radian"}


def test_dim_of_seven_integers_checks_only_and_echoes_them() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    assert get(q(298.15, "kelvin"), dim=KELVIN) == {"num": 298.15, "dim": KELVIN}
    echoed = get(q(1.0, "ohm"), dim=[2.0, 1.0, -3.0, -2.0, 0.0, 0.0, 0.0])
    assert echoed["num"] == 1.0 and echoed["dim"] == [2, 1, -3, -2, 0, 0, 0]


def test_a_dim_of_the_wrong_vector_names_both_vectors() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    message = get_refused(q(4.0, "ohm"), ErrorCode.INCOMPATIBLE_DIMENSION, dim="volt")
    assert "[2,1,-3,-1,0,0,0]" in message and "[2,1,-3,-2,0,0,0]" in message
    message = get_refused(q(4.0, "ohm"), ErrorCode.INCOMPATIBLE_DIMENSION, dim=[0] * 7)
    assert "[0,0,0,0,0,0,0]" in message and "ohm" in message


def test_an_object_is_checked_field_by_field() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    same = Obj({"a": q(1.0, "ohm"), "b": q(2.0, "ohm")})
    assert get(same, dim="ohm") == {
        "object": {"a": {"num": 1.0, "dim": "ohm"}, "b": {"num": 2.0, "dim": "ohm"}}
    }
    mixed = Obj({"a": q(1.0, "ohm"), "b": q(2.0, "volt")})
    get_refused(mixed, ErrorCode.INCOMPATIBLE_DIMENSION, dim="ohm")


def test_an_invalid_get_dim_is_invalid_dimension() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    get_refused(q(1.0), ErrorCode.INVALID_DIMENSION, dim="volts")
    get_refused(q(1.0), ErrorCode.INVALID_DIMENSION, dim=[0, 0])


def test_reading_never_changes_what_is_stored() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    value = q(298.15, "kelvin")
    get(value, form="polar", digits=2, dim="degC")
    assert value == Quantity(298.15, vec("kelvin"))


def test_minus_zero_is_rendered_as_zero_when_cut_to_digits() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    for rendered in (
        get(q(-0.0), digits=3)["num"],
        get(q(complex(-0.0, -0.0)), digits=2)["im"],
    ):
        assert rendered == 0.0 and math.copysign(1.0, rendered) == 1.0


def test_an_exact_reading_keeps_the_sign_of_zero_so_it_stores_back_exactly() -> None:
    """Issue 8: a get receipt with no digits stores back bit for bit, -0.0 included.
    Spec: docs/guide/formulas.md (get and its reading options)."""
    for rendered in (
        get(q(-0.0))["num"],
        get(q(-0.0), form="rect")["re"],
        get(q(complex(-0.0, -0.0)))["im"],
    ):
        assert rendered == 0.0 and math.copysign(1.0, rendered) == -1.0


ROUND_TRIP_VALUES = [
    {"num": 4.7e3, "dim": "ohm"},
    {"num": -0.001234, "dim": [1, 2, 3, 4, 5, 6, 7]},
    {"re": 3, "im": -4, "dim": "volt"},
    {"array": [1, {"re": 2, "im": 3}, [4, 5]], "dim": "metre"},
    {"array": []},
    {"object": {"v": {"num": 12, "dim": "volt"}, "n": {"object": {"z": {"mag": 2, "ang": 1}}}}},
    {"num": 25, "dim": "degC"},
    {"array": [0, [100.5, {"re": 1, "im": 2}]], "dim": "degC"},
]


@pytest.mark.parametrize("raw", ROUND_TRIP_VALUES)
@pytest.mark.parametrize("form", [None, "rect", "polar"])
def test_a_get_receipt_fed_back_to_set_round_trips(raw: Any, form: str | None) -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    value = set_value(raw)
    for dim in (None, _first_dim(raw)):
        receipt = get(value, form=form, dim=dim)
        again = set_value(receipt)
        if form is None:
            assert stored(again) == stored(value)
        _assert_close(stored(again), stored(value))


def test_a_degc_receipt_round_trips_exactly_in_the_stored_form() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    value = set_value({"num": 25, "dim": "degC"})
    receipt = get(value, dim="degC")
    assert receipt == {"num": 25.0, "dim": "degC"}
    assert stored(set_value(receipt)) == stored(value)


def test_a_receipt_carrying_digits_stores_the_cut_numbers() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    receipt = get(q(3.14159265, "metre"), digits=3)
    assert stored(set_value(receipt)) == {"num": 3.14, "dim": [1, 0, 0, 0, 0, 0, 0]}


def _first_dim(raw: Any) -> Any:
    return raw.get("dim") if isinstance(raw, dict) and "object" not in raw else None


def _canon(form: Any) -> Any:
    """A stored form with every scalar as a complex: under rect or polar a real comes back
    as a complex with im 0, which is the same number."""
    if isinstance(form, dict):
        if "num" in form:
            return ("scalar", complex(form["num"]), form["dim"])
        if "re" in form:
            return ("scalar", complex(form["re"], form["im"]), form.get("dim"))
        if "array" in form:
            return ("array", _canon(form["array"]), form["dim"])
        return ("object", {k: _canon(v) for k, v in form["object"].items()})
    if isinstance(form, list):
        return [_element(e) for e in form]
    raise AssertionError(form)


def _element(e: Any) -> Any:
    if isinstance(e, list):
        return [_element(x) for x in e]
    if isinstance(e, dict):
        return complex(e["re"], e["im"])
    return complex(e)


def _assert_close(got: Any, want: Any) -> None:
    _close(_canon(got), _canon(want))


def _close(got: Any, want: Any) -> None:
    if isinstance(want, complex):
        assert isinstance(got, complex)
        assert abs(got - want) <= 1e-9 * max(1.0, abs(want)), (got, want)
    elif isinstance(want, tuple | list):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _close(g, w)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want)
        for key in want:
            _close(got[key], want[key])
    else:
        assert got == want


def test_an_object_receipt_has_no_dim_at_its_own_level() -> None:
    """Spec: docs/guide/formulas.md (get and its reading options)."""
    rendered = get(obj(a=q(1.0, "ohm")))
    assert rendered == {"object": {"a": {"num": 1.0, "dim": "ohm"}}}


FLAT = [0, -0.0, 1, 2.5, -3, 10**20, 5e-324, 1.7976931348623157e308, -1e-300, 2**53 + 1]


def test_a_flat_numeric_array_stores_each_number_as_its_double() -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    value = set_value({"array": FLAT})
    assert isinstance(value, Quantity) and isinstance(value.payload, np.ndarray)
    echo = value.payload.tolist()
    assert [(x, math.copysign(1, x)) for x in echo] == [
        (float(x), math.copysign(1, float(x))) for x in FLAT
    ]


def test_degc_on_a_flat_array_is_the_scalar_map_on_each_element() -> None:
    """Spec: docs/guide/formulas.md (dim)."""
    small = [x for x in FLAT if abs(x) < 1e300]
    echo = stored(set_value({"array": small, "dim": "degC"}))["array"]
    assert echo == [float(x) * 1.0 + 273.15 for x in small]
    assert echo == [stored(set_value({"num": x, "dim": "degC"}))["num"] for x in small]


@pytest.mark.parametrize(
    ("bad", "needle"),
    [
        (True, "boolean true"),
        (10**400, "largest double"),
        (math.inf, "finite"),
        ("1", "'1'"),
        (None, "null"),
    ],
)
def test_a_bad_element_in_a_flat_array_is_named_by_its_index(bad: Any, needle: str) -> None:
    """Spec: docs/guide/formulas.md (set's tagged structure)."""
    message = set_refused({"array": [1.0, 2, bad, 4]}, ErrorCode.INVALID_ARGS)
    assert "value.array[2]" in message and needle in message


# -- 3.3 arrays: the numpy payload, and the nested list for every other shape ----------------


def _rectangular_reals(elements: list[Any]) -> bool:
    """The straightforward rule: a shape exists (every list at one depth has the same nonzero
    length, at most 31 deep) and every leaf is a float."""
    depth_widths: dict[int, set[int]] = {}
    leaves: list[Any] = []

    def walk(items: list[Any], depth: int) -> None:
        depth_widths.setdefault(depth, set()).add(len(items))
        for item in items:
            if type(item) is list:
                walk(item, depth + 1)
            else:
                leaves.append((depth, item))

    walk(elements, 0)
    deepest = max(depth_widths)
    return (
        all(len(widths) == 1 and 0 not in widths for widths in depth_widths.values())
        and deepest < 32
        and all(depth == deepest and type(leaf) is float for depth, leaf in leaves)
    )


nested_elements = st.recursive(
    st.lists(st.sampled_from([0.5, -2.0, 1.5 + 2j]), min_size=1, max_size=3),
    lambda inner: st.lists(inner, min_size=1, max_size=3),
    max_leaves=24,
)


@given(nested_elements)
def test_an_array_is_numpy_exactly_when_it_is_rectangular_and_real(elements: Any) -> None:
    """3.3, issue 8: `make_array`, which checks a whole depth at a time, gives numpy exactly
    where the straightforward rule finds a shape and real leaves, and the same numbers.
    Spec: docs/guide/formulas.md (dim)."""
    made = make_array(elements)
    assert isinstance(made, np.ndarray) is _rectangular_reals(elements)
    assert is_rectangular(elements, frozenset({float})) is _rectangular_reals(elements)
    if isinstance(made, np.ndarray):
        assert made.tolist() == elements


def test_rows_of_equal_length_whose_own_rows_differ_are_stored_as_given() -> None:
    """3.3: `[[[1], [2]], [[1, 2], [3, 4]]]` has no shape below its second depth; it is stored
    as the nested list it is (it once reached numpy and answered an internal error).
    Spec: docs/guide/formulas.md (dim)."""
    raw = [[[1.0], [2.0]], [[1.0, 2.0], [3.0, 4.0]]]
    value = set_value({"array": raw})
    assert isinstance(value, Quantity) and value.payload == raw
    assert get(value) == {"array": [[[1], [2]], [[1, 2], [3, 4]]], "dim": "dim-less"}


def _leaves(items: list[Any]) -> list[Any]:
    return [leaf for item in items for leaf in (_leaves(item) if type(item) is list else [item])]


leaf_lists = st.recursive(
    st.lists(
        st.sampled_from([0.5, -0.0, math.inf, -math.inf, math.nan, 2 + 1j, complex(math.inf, 1)]),
        min_size=1,
        max_size=4,
    ),
    lambda inner: st.lists(inner, min_size=1, max_size=3),
    max_leaves=24,
)


@given(leaf_lists)
def test_leaf_count_and_first_non_finite_leaf_match_a_plain_walk(items: Any) -> None:
    """Issue 8: the count of leaves and the first leaf that is not finite, each found
    without a Python call per leaf where it can be, equal a plain walk of the list.
    Spec: docs/guide/formulas.md (issue 8)."""
    leaves = _leaves(items)
    assert element_count(items) == len(leaves)
    bad = [leaf for leaf in leaves if not cmath.isfinite(leaf)]
    found = first_non_finite(Quantity(items, ZERO))
    assert (found is None) is (not bad)
    if bad:
        assert repr(found) == repr(bad[0])
