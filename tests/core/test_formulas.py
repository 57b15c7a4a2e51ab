"""docs/guide/formulas.md: the charset, literals, grammar, data access, arrays, powers, the
result."""

from __future__ import annotations

import cmath
import math
from typing import Any

import numpy as np
import pytest
from core_helpers import failure, leaves, obj, q, refused, run, scalar, value_of, vec

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ZERO
from reckoner.contract.limits import MAX_ARRAY_ELEMENTS, MAX_FORMULA_LENGTH, MAX_NESTING_DEPTH
from reckoner.core.api import Evaluated
from reckoner.core.lexer import CHARSET_DESCRIPTION
from reckoner.core.values import Obj, Quantity

SLOTS = {
    "V": q(12.0, "volt"),
    "R": q(4.0, "ohm"),
    "I": q(3.0, "ampere"),
    "a": q(np.array([1.0, 2.0, 3.0])),
    "b": q(np.array([10.0, 20.0])),
    "m": q(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), "metre"),
    "z": q(3 + 4j, "ohm"),
    "mixed": q([1.0, 2j, [3.0]]),
    "net": obj(ports=q([1.0]), z=q(50.0, "ohm")),
    "nested": obj(ports=Quantity([[1.0]], ZERO)),
    "o": obj(v=q(12.0, "volt"), i=q(2.0, "ampere")),
    "empty": q([]),
}
SLOTS["net"] = Obj({"ports": Obj({"p0": q(1.0)}), "z": q(50.0, "ohm")})
SLOTS["chain"] = Obj({"ports": q([[7.0, 8.0]], "ohm")})


# -- 4.1 the charset --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "char",
    [
        "é",
        "\x00",
        ";",
        "%",
        "!",
        "'",
        '"',
        "#",
        "&",
        "|",
        "<",
        ">",
        "\r",
        "~",
        "`",
        "?",
        ":",
        "\\",
        "\ud800",
        "😀",
        "\u00a0",
        "\x7f",
        "，",
        "×",
    ],
)
def test_a_character_outside_the_charset_is_named_with_code_point_and_charset(
    char: str,
) -> None:
    """Spec: docs/guide/formulas.md (the charset and the literals)."""
    formula = f"@V {char} 1"
    message = refused(formula, ErrorCode.INVALID_FORMULA, SLOTS)
    assert f"U+{ord(char):04X}" in message
    assert "character 4" in message
    assert CHARSET_DESCRIPTION in message
    for piece in ("digits", "space, tab, newline", "+ - * / ^ ( ) [ ] { } , . _ = ->"):
        assert piece in message


@pytest.mark.parametrize("space", [" ", "\t", "\n"])
def test_space_tab_and_newline_are_whitespace(space: str) -> None:
    """Spec: docs/guide/formulas.md (the charset and the literals)."""
    assert scalar(f"{space}1{space}+{space}2{space}") == 3.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12", 12.0),
        ("4.7", 4.7),
        ("1e5", 1e5),
        ("2.5e-3", 2.5e-3),
        ("1e+3", 1e3),
        ("0.5", 0.5),
        ("007", 7.0),
        ("1e-400", 0.0),
    ],
)
def test_real_literals_read_as_doubles(text: str, expected: float) -> None:
    """Spec: docs/guide/formulas.md (the charset and the literals)."""
    value = scalar(text)
    assert type(value) is float and value == expected


@pytest.mark.parametrize(
    ("text", "expected"), [("2j", 2j), ("4i", 4j), ("2.5j", 2.5j), ("1e3i", 1000j), ("0j", 0j)]
)
def test_imaginary_literals_are_complex(text: str, expected: complex) -> None:
    """Spec: docs/guide/formulas.md (the charset and the literals)."""
    value = scalar(text)
    assert type(value) is complex and value == expected


def test_a_scalar_literal_is_dimensionless() -> None:
    """Spec: docs/guide/formulas.md (the charset and the literals)."""
    for text in ("12", "2j", "1e5"):
        value = value_of(text)
        assert isinstance(value, Quantity) and value.vector == ZERO


@pytest.mark.parametrize("text", ["2e", "2e+", "2e-", "1.5e", "2ex"])
def test_an_e_without_exponent_digits_is_invalid_number(text: str) -> None:
    """Spec: docs/guide/formulas.md (the charset and the literals)."""
    message = refused(text, ErrorCode.INVALID_NUMBER)
    assert "no digits" in message and "character 1" in message


@pytest.mark.parametrize("text", ["2.", "2.x", "2. + 1", "3.e5"])
def test_the_fraction_needs_a_digit_after_the_point(text: str) -> None:
    """Spec: docs/guide/formulas.md (the charset and the literals)."""
    message = refused(text, ErrorCode.INVALID_NUMBER)
    assert "decimal point" in message


@pytest.mark.parametrize("text", ["1e400", "9" * 400, "1.8e308"])
def test_a_literal_beyond_the_largest_double_is_invalid_number(text: str) -> None:
    """Spec: docs/guide/formulas.md (the charset and the literals)."""
    assert "largest double" in refused(text, ErrorCode.INVALID_NUMBER)


def test_a_capital_e_exponent_is_refused_with_the_lowercase_rewrite() -> None:
    """Spec: docs/guide/formulas.md (the charset and the literals)."""
    message = refused("1E5", ErrorCode.INVALID_IDENTIFIER)
    assert "'1e5'" in message and "'E'" in message


@pytest.mark.parametrize(
    ("text", "rewrite"),
    [("2x", "'2*x'"), ("3ohm", "'3*ohm'"), ("2jx", "'2j*x'"), ("2_a", "'2*_a'")],
)
def test_a_letter_after_a_number_is_refused_with_the_star_rewrite(text: str, rewrite: str) -> None:
    """Spec: docs/guide/formulas.md (the charset and the literals)."""
    message = refused(text, ErrorCode.INVALID_IDENTIFIER)
    assert rewrite in message and "imaginary suffix" in message


# -- 4.2 the grammar ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1+2*3", 7.0),
        ("(1+2)*3", 9.0),
        ("2*3^2", 18.0),
        ("-2^2", -4.0),
        ("2^3^2", 512.0),
        ("(2^3)^2", 64.0),
        ("2^-1", 0.5),
        ("-2^-2", -0.25),
        ("2^-2^2", 1 / 16),
        ("8/2/2", 2.0),
        ("10-2-3", 5.0),
        ("+3", 3.0),
        ("--2", 2.0),
        ("-+-2", 2.0),
        ("---2", -2.0),
        ("2*-3", -6.0),
        ("1-2+3", 2.0),
        ("12/3*2", 8.0),
        ("-(2)^2", -4.0),
        ("(-2)^2", 4.0),
    ],
)
def test_operators_follow_precedence_and_associativity(text: str, expected: float) -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    assert scalar(text) == pytest.approx(expected)


def test_unary_minus_binds_looser_than_power() -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    assert scalar("-2^2") == -4.0
    assert scalar("-@V^2/@V", SLOTS) == -12.0


def test_power_is_right_associative() -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    assert scalar("2^3^2") == scalar("2^(3^2)") == 512.0


def test_constant_powers_are_written_with_the_caret() -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    assert scalar("$e^(2)") == pytest.approx(math.e**2)
    assert scalar("$pi^2") == pytest.approx(math.pi**2)


@pytest.mark.parametrize("text", ["1 2", "@V @R", "1)", "1,2", "(1)(2)", "@V]", "1 = 2", "x = 1"])
def test_a_formula_is_exactly_one_expression(text: str) -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    refused(text, ErrorCode.INVALID_FORMULA, SLOTS)


@pytest.mark.parametrize("text", ["2@R", "2$pi", "2(3)", "@R@V", "(2)@R", "@R(2)", "$pi$e"])
def test_implicit_multiplication_is_refused(text: str) -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    message = refused(text, ErrorCode.INVALID_FORMULA, SLOTS)
    assert "'*'" in message


@pytest.mark.parametrize("text", ["2^{3}", "$e^{2}", "@V^{2}"])
def test_caret_followed_by_brace_is_refused(text: str) -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    message = refused(text, ErrorCode.INVALID_FORMULA, SLOTS)
    assert "'^{'" in message and "x^(2)" in message


@pytest.mark.parametrize(
    ("text", "opener", "where"),
    [
        ("(1+2", "'('", "character 1"),
        ("@a[1", "'['", "character 3"),
        ("2*(3*(4)", "'('", "character 3"),
        ("$sum_{k=1}^{2(k)", "'{'", "character 12"),
    ],
)
def test_an_unclosed_bracket_names_its_opener(text: str, opener: str, where: str) -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    message = refused(text, ErrorCode.INVALID_FORMULA, SLOTS)
    assert opener in message and where in message


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_an_empty_formula_is_refused(text: str) -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    assert "empty" in refused(text, ErrorCode.INVALID_FORMULA)


@pytest.mark.parametrize("text", ["1+", "*2", "(", "()", "1+*2", "@V.", "@", "$", "@1"])
def test_incomplete_expressions_are_invalid_formula(text: str) -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    refused(text, ErrorCode.INVALID_FORMULA, SLOTS)


@pytest.mark.parametrize("formula", [None, 12, ["1"], {"f": "1"}, True, b"1"])
def test_a_formula_that_is_not_a_string_is_invalid_args(formula: Any) -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    assert "must be a string" in refused(formula, ErrorCode.INVALID_ARGS)


def test_a_formula_over_max_formula_length_is_refused() -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    longest = "1" + " " * (MAX_FORMULA_LENGTH - 1)
    assert scalar(longest) == 1.0
    message = refused(longest + " ", ErrorCode.INVALID_FORMULA)
    assert str(MAX_FORMULA_LENGTH) in message and "MAX_FORMULA_LENGTH" in message


NESTERS = {
    "parentheses": lambda n: "(" * n + "1" + ")" * n,
    "argument lists": lambda n: "$abs(" * n + "1" + ")" * n,
    "index brackets": lambda n: "@a[" * n + "0" + "]" * n,
    "power exponents": lambda n: "1" + "^1" * n,
    "positions": lambda n: "$sum_{k=1}^{1}(" * n + "1" + ")" * n,
}


@pytest.mark.parametrize("kind", list(NESTERS))
def test_nesting_over_max_nesting_depth_is_invalid_formula(kind: str) -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    build = NESTERS[kind]
    within = run(build(MAX_NESTING_DEPTH), SLOTS)
    assert not (hasattr(within, "code") and within.code is ErrorCode.INVALID_FORMULA), within
    message = refused(build(MAX_NESTING_DEPTH + 1), ErrorCode.INVALID_FORMULA, SLOTS)
    assert str(MAX_NESTING_DEPTH) in message and "MAX_NESTING_DEPTH" in message


def test_unary_signs_do_not_count_as_nesting() -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    assert scalar("-" * 4000 + "1") == 1.0
    assert scalar("-" * 4001 + "1") == -1.0


def test_deep_nesting_within_the_limit_evaluates() -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    assert scalar("(" * MAX_NESTING_DEPTH + "2" + ")" * MAX_NESTING_DEPTH) == 2.0
    assert scalar("$abs(" * MAX_NESTING_DEPTH + "-2" + ")" * MAX_NESTING_DEPTH) == 2.0


def test_a_chain_of_operators_at_every_level_of_the_deepest_nesting_evaluates() -> None:
    """The first operators of a chain are nested nodes (docs/decisions/eval-speed.md): a
    nine-operator chain inside each of the deepest allowed parentheses still evaluates.
    Spec: docs/guide/formulas.md (the grammar)."""
    text = "@V"  # a slot: a chain of literals alone would be folded while compiling
    for _ in range(MAX_NESTING_DEPTH - 1):
        text = f"({text}*1*1*1*1*1*1*1*1/1-@V+@V)"
    assert scalar(text, SLOTS) == 12.0


def test_a_long_flat_sum_costs_no_nesting() -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    text = "+".join(["1"] * 4000)
    assert scalar(text) == 4000.0


# -- 4.3 data access --------------------------------------------------------------------------


def test_slots_indexes_fields_and_their_chains_read_the_stored_leaf() -> None:
    """Spec: docs/guide/formulas.md (data access)."""
    assert scalar("@V", SLOTS) == 12.0
    assert scalar("@a[1]", SLOTS) == 2.0
    assert scalar("@a[1+1]", SLOTS) == 3.0
    assert scalar("@m[2][1]", SLOTS) == 6.0
    assert value_of("@m[2][1]", SLOTS).vector == vec("metre")  # type: ignore[union-attr]
    assert scalar("@o.v", SLOTS) == 12.0
    assert scalar("@net.ports.p0", SLOTS) == 1.0
    assert scalar("@chain.ports[0][1]", SLOTS) == 8.0
    assert scalar("@mixed[1]", SLOTS) == 2j
    assert leaves("@mixed[2]", SLOTS) == [3.0]


def test_an_index_may_be_a_complex_with_im_zero_or_a_dimensionless_ratio() -> None:
    """Spec: docs/guide/formulas.md (data access)."""
    assert scalar("@a[1+0j]", SLOTS) == 2.0
    assert scalar("@a[@V/@V]", SLOTS) == 2.0


@pytest.mark.parametrize("index", ["1.5", "1j", "1+1j", "@V", "@a", "@o", "$inf", "$inf-$inf"])
def test_an_index_must_be_a_dimensionless_integer(index: str) -> None:
    """Spec: docs/guide/formulas.md (data access)."""
    message = refused(f"@a[{index}]", ErrorCode.INVALID_INDEX, SLOTS)
    assert "dimensionless whole number" in message and "character 3" in message


@pytest.mark.parametrize("index", ["3", "-1", "100", "1e300"])
def test_an_index_outside_the_array_names_the_length(index: str) -> None:
    """Spec: docs/guide/formulas.md (data access)."""
    message = refused(f"@a[{index}]", ErrorCode.INVALID_INDEX, SLOTS)
    assert "length 3" in message


def test_indexing_an_empty_array_says_it_is_empty() -> None:
    """Spec: docs/guide/formulas.md (data access)."""
    assert "length 0" in refused("@empty[0]", ErrorCode.INVALID_INDEX, SLOTS)


@pytest.mark.parametrize("text", ["@V[0]", "@o[0]", "2[0]", "@z[0]", "@a[0][0]"])
def test_brackets_on_a_non_array_are_unsupported_index(text: str) -> None:
    """Spec: docs/guide/formulas.md (data access)."""
    refused(text, ErrorCode.UNSUPPORTED_INDEX, SLOTS)


@pytest.mark.parametrize("text", ["@V.x", "@a.x", "$pi.x", "@o.v.x"])
def test_a_dot_on_a_non_object_is_unsupported_index(text: str) -> None:
    """Spec: docs/guide/formulas.md (data access)."""
    refused(text, ErrorCode.UNSUPPORTED_INDEX, SLOTS)


def test_a_missing_field_lists_the_fields() -> None:
    """Spec: docs/guide/formulas.md (data access)."""
    message = refused("@o.w", ErrorCode.FIELD_NOT_FOUND, SLOTS)
    assert "'w'" in message and "v, i" in message
    assert "none" in refused("@blank.x", ErrorCode.FIELD_NOT_FOUND, {"blank": Obj({})})


def test_a_missing_slot_is_slot_not_found() -> None:
    """Spec: docs/guide/formulas.md (data access)."""
    message = refused("@nope + 1", ErrorCode.SLOT_NOT_FOUND, SLOTS)
    assert "@nope" in message and "character 1" in message


@pytest.mark.parametrize("name", ["x", "R", "ohm", "sum", "_tmp"])
def test_a_bare_unbound_name_gives_the_at_rewrite(name: str) -> None:
    """Spec: docs/guide/formulas.md (data access)."""
    message = refused(f"2*{name}", ErrorCode.NAME_NOT_BOUND, SLOTS)
    assert f"@{name}" in message and "character 3" in message


def test_reads_are_reported_in_first_use_order_without_repeats() -> None:
    """Spec: docs/guide/formulas.md (data access)."""
    result = run("@R*@I + @V - @R*@I", SLOTS)
    assert isinstance(result, Evaluated)
    assert list(result.reads) == ["R", "I", "V"]
    assert result.reads["V"] is SLOTS["V"]


# -- 4.4 arrays ------------------------------------------------------------------------------


def test_operators_apply_element_by_element_with_scalar_broadcast() -> None:
    """Spec: docs/guide/formulas.md (arrays)."""
    assert leaves("@a + @a", SLOTS) == [2.0, 4.0, 6.0]
    assert leaves("@a * 2", SLOTS) == [2.0, 4.0, 6.0]
    assert leaves("2 - @a", SLOTS) == [1.0, 0.0, -1.0]
    assert leaves("6 / @a", SLOTS) == [6.0, 3.0, 2.0]
    assert leaves("@a ^ 2", SLOTS) == [1.0, 4.0, 9.0]
    assert leaves("2 ^ @a", SLOTS) == [2.0, 4.0, 8.0]
    assert leaves("-@a", SLOTS) == [-1.0, -2.0, -3.0]


def test_nested_arrays_pair_by_leading_axis() -> None:
    """Spec: docs/guide/formulas.md (arrays)."""
    assert leaves("@m / @m[0][0]", SLOTS) == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert leaves("@a * $seq_{i=0}^{2}($seq_{j=0}^{1}(1))", SLOTS) == [[1, 1], [2, 2], [3, 3]]


def test_arrays_of_different_lengths_name_both_lengths() -> None:
    """Spec: docs/guide/formulas.md (arrays)."""
    message = refused("@a + @b", ErrorCode.INVALID_ARGS, SLOTS)
    assert "3" in message and "2" in message and "same length" in message
    refused("@mixed + @b", ErrorCode.INVALID_ARGS, SLOTS)


def test_complex_and_real_elements_combine_with_broadcast() -> None:
    """Spec: docs/guide/formulas.md (arrays)."""
    assert leaves("@mixed * 2", SLOTS) == [2.0, 4j, [6.0]]
    assert leaves("@mixed + 1j", SLOTS) == [1 + 1j, 3j, [3 + 1j]]


def test_a_unary_function_maps_and_keeps_the_vector() -> None:
    """Spec: docs/guide/formulas.md (arrays)."""
    value = value_of("$abs(-@m)", SLOTS)
    assert isinstance(value, Quantity) and value.vector == vec("metre")
    assert leaves("$sqrt(@a*@a)", SLOTS) == [1.0, 2.0, 3.0]


def test_the_binary_functions_broadcast_over_arrays() -> None:
    """Spec: docs/guide/formulas.md (arrays)."""
    assert leaves("$min(@a, 2)", SLOTS) == [1.0, 2.0, 2.0]
    assert leaves("$max(2, @a)", SLOTS) == [2.0, 2.0, 3.0]
    assert leaves("$mod(@a, 2)", SLOTS) == [1.0, 0.0, 1.0]
    assert leaves("$atan2(@a, @a)", SLOTS) == pytest.approx([math.pi / 4] * 3)
    message = refused("$max(@a, @b)", ErrorCode.INVALID_ARGS, SLOTS)
    assert "lengths 3 and 2" in message


@pytest.mark.parametrize(
    "text",
    [
        "@o + 1",
        "1 - @o",
        "@o * @o",
        "@o / 2",
        "@o ^ 2",
        "2 ^ @o",
        "-@o",
        "$abs(@o)",
        "$len(@o)",
        "$transpose(@o)",
        "$min(@o, 1)",
        "$atan2(1, @o)",
        "$sum_{k=1}^{2}(@o)",
        "$prod_{k=1}^{2}(@o)",
        "@net.ports + 1",
    ],
)
def test_no_operator_or_function_applies_to_an_object(text: str) -> None:
    """Spec: docs/guide/formulas.md (arrays)."""
    message = refused(text, ErrorCode.UNSUPPORTED_OPERATION, SLOTS)
    assert "object" in message and "field" in message


def test_an_object_built_as_an_array_element_is_unsupported_operation() -> None:
    """Spec: docs/guide/formulas.md (arrays)."""
    message = refused("$seq_{k=1}^{3}(@o)", ErrorCode.UNSUPPORTED_OPERATION, SLOTS)
    assert "object" in message and "element 0" in message


def test_an_array_produced_over_max_array_elements_is_invalid_args() -> None:
    """Spec: docs/guide/formulas.md (arrays)."""
    big = {"big": q(np.zeros(600_000))}
    message = refused("$seq_{k=1}^{2}(@big)", ErrorCode.INVALID_ARGS, big)
    assert str(MAX_ARRAY_ELEMENTS) in message and "MAX_ARRAY_ELEMENTS" in message
    assert len(leaves("$seq_{k=1}^{1000}($seq_{j=1}^{1000}(0))")) == 1000


# -- 4.5 powers ---------------------------------------------------------------------------------


def test_an_exponent_must_be_dimensionless() -> None:
    """Spec: docs/guide/formulas.md (powers)."""
    message = refused("2^@V", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert "volt" in message and "dimensionless" in message
    assert scalar("2^(@V/@V)", SLOTS) == 2.0


def test_a_real_exponent_scales_the_vector() -> None:
    """Spec: docs/guide/formulas.md (powers)."""
    value = value_of("@V^2", SLOTS)
    assert isinstance(value, Quantity) and value.vector == (4, 2, -6, -2, 0, 0, 0)
    assert value.payload == 144.0
    inverse = value_of("@R^-1", SLOTS)
    assert inverse.vector == vec("siemens")  # type: ignore[union-attr]
    cube = value_of("(@R^(1/3))^3", SLOTS)
    assert cube.vector == vec("ohm")  # type: ignore[union-attr]


def test_a_complex_exponent_needs_a_dimensionless_base() -> None:
    """Spec: docs/guide/formulas.md (powers)."""
    message = refused("@V^(2j)", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert "complex exponent" in message
    assert scalar("$e^($i*$pi)") == pytest.approx(-1 + 0j)
    assert type(scalar("2^(1+0j)")) is complex


def test_zero_under_a_complex_power_is_undefined() -> None:
    """Spec: docs/guide/formulas.md (powers)."""
    refused("0^(1j)", ErrorCode.UNDEFINED_RESULT)


def test_zero_to_the_zero_is_one() -> None:
    """Spec: docs/guide/formulas.md (powers)."""
    assert scalar("0^0") == 1.0
    assert scalar("@R^0", SLOTS) == 1.0 and value_of("@R^0", SLOTS).vector == ZERO  # type: ignore[union-attr]


@pytest.mark.parametrize("text", ["0^-1", "0^-0.5", "(@V-@V)^-2"])
def test_zero_to_a_negative_power_is_undefined(text: str) -> None:
    """Spec: docs/guide/formulas.md (powers)."""
    assert "zero" in refused(text, ErrorCode.UNDEFINED_RESULT, SLOTS)


@pytest.mark.parametrize("text", ["(-8)^(1/3)", "(-2)^0.5", "(-@a)^0.5"])
def test_a_negative_real_base_under_a_fractional_exponent_is_undefined(text: str) -> None:
    """Spec: docs/guide/formulas.md (powers)."""
    message = refused(text, ErrorCode.UNDEFINED_RESULT, SLOTS)
    assert "negative base" in message and "complex" in message


def test_a_complex_base_gives_the_complex_root() -> None:
    """Spec: docs/guide/formulas.md (powers)."""
    root = scalar("(-8+0j)^(1/3)")
    assert type(root) is complex and root == pytest.approx(cmath.exp(cmath.log(-8) / 3))
    assert scalar("(-2)^2") == 4.0 and type(scalar("(-2)^2")) is float


def test_the_result_is_complex_when_an_operand_is_complex() -> None:
    """Spec: docs/guide/formulas.md (powers)."""
    for text in ("$i*$i", "(2+0j)^2", "2^(0j)", "1j-1j", "0j", "@z/@z"):
        assert type(scalar(text, SLOTS)) is complex, text
    assert scalar("$i*$i") == -1 + 0j
    for text in ("$abs(@z)", "$re(@z)", "$im(@z)", "$arg(@z)", "$conj(2)"):
        assert type(scalar(text, SLOTS)) is float, text


def test_giant_powers_overflow_to_a_refused_infinity_not_a_crash() -> None:
    """Spec: docs/guide/formulas.md (powers)."""
    for text in ("2^2^2^2^2^2", "10^400", "(-10)^401", "1e308*10", "(1e200+1e200j)^2"):
        message = refused(text, ErrorCode.UNDEFINED_RESULT)
        assert "not a finite number" in message, text
    assert scalar("$atan(10^400)") == pytest.approx(math.pi / 2)


def test_an_array_under_a_dimensional_base_needs_one_exponent() -> None:
    """Spec: docs/guide/formulas.md (powers)."""
    refused("@V^@a", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert leaves("@V^(@a*0+2)", SLOTS) == [144.0, 144.0, 144.0]


# -- 4.6 the result ---------------------------------------------------------------------------


def test_a_fractional_result_vector_is_refused_and_intermediates_may_carry_one() -> None:
    """Spec: docs/guide/formulas.md (eval's target)."""
    message = refused("$sqrt(@R)", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert "fractional" in message and "1/2" in message
    assert scalar("$sqrt(@R)^2", SLOTS) == pytest.approx(4.0)
    assert value_of("$sqrt(@R)*$sqrt(@R)", SLOTS).vector == vec("ohm")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "shown"), [("$inf", "inf"), ("-$inf", "-inf"), ("$inf-$inf", "NaN"), ("$inf*$i", "j")]
)
def test_a_non_finite_result_is_refused_naming_the_value(text: str, shown: str) -> None:
    """Spec: docs/guide/formulas.md (eval's target)."""
    message = refused(text, ErrorCode.UNDEFINED_RESULT)
    assert shown in message and "finite" in message


def test_an_object_may_be_a_result() -> None:
    """Spec: docs/guide/formulas.md (eval's target)."""
    value = value_of("@o", SLOTS)
    assert value is SLOTS["o"]
    assert value_of("@net.ports", SLOTS) is SLOTS["net"].fields["ports"]  # type: ignore[union-attr]


def test_an_object_result_is_checked_field_by_field() -> None:
    """Spec: docs/guide/formulas.md (eval's target)."""
    slots = {"o": Obj({"f": q(1.0, "metre"), "g": Obj({"h": q(2.0, "volt")})})}
    assert isinstance(run("@o", slots), Evaluated)
    inf = {"o": Obj({"f": q(1.0), "g": Obj({"h": q(math.inf)})})}
    assert "the result.g.h" in refused("@o", ErrorCode.UNDEFINED_RESULT, inf)


# -- 4.7 what the language does not have ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("1 == 1", ErrorCode.INVALID_FORMULA),
        ("1 && 1", ErrorCode.INVALID_FORMULA),
        ("x = 1", ErrorCode.INVALID_FORMULA),
        ("1; 2", ErrorCode.INVALID_FORMULA),
        ("1 # note", ErrorCode.INVALID_FORMULA),
        ('"text"', ErrorCode.INVALID_FORMULA),
        ("1 < 2", ErrorCode.INVALID_FORMULA),
        ("if", ErrorCode.NAME_NOT_BOUND),
        ("{1}", ErrorCode.INVALID_FORMULA),
        ("[1, 2]", ErrorCode.INVALID_FORMULA),
    ],
)
def test_no_comparison_logic_assignment_sequence_comment_or_literal_arrays(
    text: str, code: ErrorCode
) -> None:
    """Spec: docs/guide/formulas.md (what the language does not have)."""
    refused(text, code)


# -- errors in evaluation order (issue decision) ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("@nope + 1/0", ErrorCode.SLOT_NOT_FOUND),
        ("1/0 + @nope", ErrorCode.UNDEFINED_RESULT),
        ("@nope + (", ErrorCode.INVALID_FORMULA),
        ("$sqrt(-1) + $foo", ErrorCode.INVALID_NOTATION),
        ("1/0 + $sum(k)", ErrorCode.INVALID_ARITY),
        ("$min(@nope, 1/0)", ErrorCode.SLOT_NOT_FOUND),
        ("$min(1/0, @nope)", ErrorCode.UNDEFINED_RESULT),
        ("x + @nope", ErrorCode.NAME_NOT_BOUND),
        ("@nope^x", ErrorCode.SLOT_NOT_FOUND),
        ("(1/0)[@nope]", ErrorCode.UNDEFINED_RESULT),
        ("@a[@nope]", ErrorCode.SLOT_NOT_FOUND),
        ("@nope + 2x", ErrorCode.INVALID_IDENTIFIER),
    ],
)
def test_errors_come_parse_first_then_left_to_right_depth_first(text: str, code: ErrorCode) -> None:
    assert failure(text, SLOTS).code is code
