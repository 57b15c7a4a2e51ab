"""docs/reference/units.md: the 24-row name table, vector arithmetic, each notation class's rule,
whole vectors at the slot, and the value restrictions of 6.3."""

from __future__ import annotations

import math

import numpy as np
import pytest
from core_helpers import get, leaves, q, refused, scalar, set_refused, set_value, value_of, vec

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ALL_NAMES, BASE_SYMBOLS, NAME_TABLE, ROW_BY_NAME, ZERO
from reckoner.contract.limits import MAX_DIMENSION_EXPONENT
from reckoner.core import dimensions as dims
from reckoner.core.api import stored
from reckoner.core.notation import NOTATIONS, DimRule, Kind, Notation
from reckoner.core.values import Quantity

# The manual's table of 6.1, transcribed row by row: vector, kind, names (first mentioned).
MANUAL_TABLE = [
    ((0, 0, 0, 0, 0, 0, 0), "dim-less", ("dim-less", "radian", "steradian")),
    ((0, 0, 1, 0, 0, 0, 0), "time", ("second",)),
    ((1, 0, 0, 0, 0, 0, 0), "length", ("metre",)),
    ((0, 1, 0, 0, 0, 0, 0), "mass", ("kilogram",)),
    ((0, 0, 0, 1, 0, 0, 0), "current", ("ampere",)),
    ((0, 0, 0, 0, 1, 0, 0), "temperature", ("kelvin", "degC")),
    ((0, 0, 0, 0, 0, 1, 0), "amount-of-substance", ("mole",)),
    ((0, 0, 0, 0, 0, 0, 1), "luminous-intensity", ("candela", "lumen")),
    ((0, 0, -1, 0, 0, 0, 0), "frequency", ("hertz", "becquerel")),
    ((1, 1, -2, 0, 0, 0, 0), "force", ("newton",)),
    ((-1, 1, -2, 0, 0, 0, 0), "pressure", ("pascal",)),
    ((2, 1, -2, 0, 0, 0, 0), "energy", ("joule",)),
    ((2, 1, -3, 0, 0, 0, 0), "power", ("watt",)),
    ((0, 0, 1, 1, 0, 0, 0), "charge", ("coulomb",)),
    ((2, 1, -3, -1, 0, 0, 0), "voltage", ("volt",)),
    ((-2, -1, 4, 2, 0, 0, 0), "capacitance", ("farad",)),
    ((2, 1, -3, -2, 0, 0, 0), "resistance", ("ohm",)),
    ((-2, -1, 3, 2, 0, 0, 0), "conductance", ("siemens",)),
    ((2, 1, -2, -2, 0, 0, 0), "inductance", ("henry",)),
    ((2, 1, -2, -1, 0, 0, 0), "magnetic-flux", ("weber",)),
    ((0, 1, -2, -1, 0, 0, 0), "flux-density", ("tesla",)),
    ((-2, 0, 0, 0, 0, 0, 1), "illuminance", ("lux",)),
    ((2, 0, -2, 0, 0, 0, 0), "absorbed-dose", ("gray", "sievert")),
    ((0, 0, -1, 0, 0, 1, 0), "catalytic-activity", ("katal",)),
]

SLOTS = {
    "V": q(12.0, "volt"),
    "I": q(3.0, "ampere"),
    "R": q(4.0, "ohm"),
    "C": q(1e-6, "farad"),
    "L": q(1e-3, "henry"),
    "t": q(2.0, "second"),
    "x": q(3.0, "metre"),
    "area": q(9.0, (2, 0, 0, 0, 0, 0, 0)),
    "arr": q(np.array([1.0, 4.0]), "ohm"),
    "z": q(3 + 4j, "ohm"),
    "half": q(0.5),
    "c": q(0.5 + 0.5j),
}


# -- 6.1 the name table -------------------------------------------------------------------


def test_the_name_table_holds_exactly_its_24_rows() -> None:
    """Spec: docs/reference/units.md (the name table)."""
    assert len(NAME_TABLE) == 24
    assert [(r.vector, r.kind, r.names) for r in NAME_TABLE] == MANUAL_TABLE
    assert BASE_SYMBOLS == ("m", "kg", "s", "A", "K", "mol", "cd")
    assert len(ALL_NAMES) == len(set(ALL_NAMES)) == 30


@pytest.mark.parametrize(("vector", "kind", "names"), MANUAL_TABLE, ids=lambda x: str(x))
def test_a_name_maps_to_its_vector_and_the_vector_back_to_its_first_name(
    vector: tuple[int, ...], kind: str, names: tuple[str, ...]
) -> None:
    """Spec: docs/reference/units.md (the name table)."""
    for name in names:
        assert ROW_BY_NAME[name].vector == vector
    assert dims.first_name(vector) == names[0]
    assert dims.kind(vector) == kind
    assert get(Quantity(1.0, vector))["dim"] == names[0]


def test_a_vector_with_no_row_is_unnamed_and_mentioned_by_its_integers() -> None:
    """Spec: docs/reference/units.md (the name table)."""
    v = (4, 2, -6, -2, 0, 0, 0)
    assert dims.kind(v) == "unnamed" and dims.first_name(v) is None
    assert dims.spell(v) == "unnamed [4,2,-6,-2,0,0,0]"
    assert get(Quantity(1.0, v))["dim"] == [4, 2, -6, -2, 0, 0, 0]


def test_the_first_name_is_the_one_messages_mention() -> None:
    """Spec: docs/reference/units.md (the name table)."""
    message = refused("@t + @V", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert "second [0,0,1,0,0,0,0]" in message and "volt [2,1,-3,-1,0,0,0]" in message
    kelvin = refused("@k + 1", ErrorCode.INCOMPATIBLE_DIMENSION, {"k": q(1.0, "kelvin")})
    assert "kelvin" in kelvin and "degC" not in kelvin


def test_degc_is_the_only_name_with_a_non_identity_map() -> None:
    """Spec: docs/reference/units.md (the name table)."""
    for name in ALL_NAMES:
        mapping = dims.affine_map(name)
        if name == "degC":
            assert (mapping.factor, mapping.offset) == (1.0, 273.15)
        else:
            assert mapping.is_identity, name


# -- 6.2 vector arithmetic --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "dim"),
    [
        ("@V/@I", "ohm"),
        ("@V*@I", "watt"),
        ("@R*@C", "second"),
        ("@L/@R", "second"),
        ("@V*@I*@t", "joule"),
        ("1/@t", "hertz"),
        ("@V/@R", "ampere"),
        ("@I*@t", "coulomb"),
        ("2*@R", "ohm"),
        ("@R*2", "ohm"),
        ("@R/2", "ohm"),
        ("@V/@V", "dim-less"),
        ("@x*@x", (2, 0, 0, 0, 0, 0, 0)),
        ("@V+@V", "volt"),
        ("@V-@V", "volt"),
        ("@x^3", (3, 0, 0, 0, 0, 0, 0)),
        ("@t^-1", "hertz"),
        ("(@V)^2/@R", "watt"),
        ("@arr*@I", (2, 1, -3, -1, 0, 0, 0)),
    ],
)
def test_operators_and_powers_combine_vectors_by_exponent_arithmetic(
    text: str, dim: str | tuple[int, ...]
) -> None:
    """Spec: docs/reference/units.md (vector arithmetic)."""
    value = value_of(text, SLOTS)
    assert isinstance(value, Quantity)
    assert value.vector == (vec(dim) if isinstance(dim, str) else dim)


@pytest.mark.parametrize("text", ["@V + @R", "@V - @I", "@V + 1", "1 - @t", "@arr + 1", "@z + 1j"])
def test_adding_different_vectors_is_refused(text: str) -> None:
    """Spec: docs/reference/units.md (vector arithmetic)."""
    message = refused(text, ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert "joins" in message


def test_a_bare_number_added_to_a_dimensional_value_says_why() -> None:
    """Spec: docs/reference/units.md (vector arithmetic)."""
    message = refused("@V + 1", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert "bare number" in message and "character 4" in message


# -- 6.3 the dimension rule of every notation class -----------------------------------------


def _sample(n: Notation, arg: str) -> str:
    if n.kind is Kind.CONSTANT:
        return n.name
    return n.name + "(" + ", ".join([arg] * n.arities[0]) + ")"


@pytest.mark.parametrize(
    "notation", [n for n in NOTATIONS if n.dim_rule is DimRule.CONSTANT], ids=lambda n: n.name
)
def test_constants_carry_the_zero_vector(notation: Notation) -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    message = refused(f"@R + {notation.name}", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert "dim-less [0,0,0,0,0,0,0]" in message
    assert value_of(f"$arg({notation.name})").vector == ZERO  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "notation", [n for n in NOTATIONS if n.dim_rule is DimRule.KEEP], ids=lambda n: n.name
)
def test_abs_re_im_conj_keep_the_arguments_vector(notation: Notation) -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    for arg in ("@z", "@R", "@arr"):
        assert value_of(_sample(notation, arg), SLOTS).vector == vec("ohm")  # type: ignore[union-attr]


def test_arg_gives_the_zero_vector() -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    assert value_of("$arg(@z)", SLOTS).vector == ZERO  # type: ignore[union-attr]


def test_sqrt_halves_the_vector() -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    assert value_of("$sqrt(@area)", SLOTS).vector == vec("metre")  # type: ignore[union-attr]
    assert value_of("$sqrt(@R*@R)", SLOTS).vector == vec("ohm")  # type: ignore[union-attr]
    assert dims.halve(vec("ohm"))[0] == 1 and dims.halve(vec("ohm"))[2] == dims.Fraction(-3, 2)


@pytest.mark.parametrize(
    "notation", [n for n in NOTATIONS if n.dim_rule is DimRule.DIMENSIONLESS], ids=lambda n: n.name
)
def test_dimensionless_functions_refuse_a_dimensional_argument(notation: Notation) -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    message = refused(_sample(notation, "@R"), ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert "dimensionless" in message and "ohm" in message and notation.name in message
    assert value_of(_sample(notation, "@half"), SLOTS).vector == ZERO  # type: ignore[union-attr]
    assert value_of(_sample(notation, "@R/@R"), SLOTS).vector == ZERO  # type: ignore[union-attr]


def test_len_counts_any_vector_into_the_zero_vector() -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    value = value_of("$len(@arr)", SLOTS)
    assert value.vector == ZERO and value.payload == 2.0  # type: ignore[union-attr]


def test_transpose_keeps_the_vector() -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    slots = {"m": q([[1.0, 2.0]], "volt")}
    assert value_of("$transpose(@m)", slots).vector == vec("volt")  # type: ignore[union-attr]


def test_atan2_takes_one_vector_and_gives_radians() -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    value = value_of("$atan2(@R, @R)", SLOTS)
    assert value.vector == ZERO and value.payload == pytest.approx(math.pi / 4)  # type: ignore[union-attr]
    refused("$atan2(@R, @V)", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)


@pytest.mark.parametrize("name", ["$min", "$max", "$mod"])
def test_min_max_mod_take_one_vector_and_keep_it(name: str) -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    assert value_of(f"{name}(@R, 2*@R)", SLOTS).vector == vec("ohm")  # type: ignore[union-attr]
    message = refused(f"{name}(@R, @V)", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert "ohm" in message and "volt" in message
    refused(f"{name}(@R, 1)", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)


def test_every_notation_follows_the_dimension_rule_of_its_class() -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    rules = {n.name: n.dim_rule for n in NOTATIONS}
    expected = {
        DimRule.CONSTANT: ["$pi", "$e", "$inf", "$i", "$j"],
        DimRule.KEEP: ["$abs", "$re", "$im", "$conj"],
        DimRule.ANGLE: ["$arg"],
        DimRule.HALF: ["$sqrt"],
        DimRule.DIMENSIONLESS: [
            "$exp",
            "$ln",
            "$log",
            "$sin",
            "$cos",
            "$tan",
            "$asin",
            "$acos",
            "$atan",
            "$floor",
            "$ceil",
            "$sign",
        ],
        DimRule.COUNT: ["$len"],
        DimRule.TRANSPOSE: ["$transpose"],
        DimRule.SAME_PAIR_ANGLE: ["$atan2"],
        DimRule.SAME_PAIR: ["$min", "$max", "$mod"],
        DimRule.FOLD: ["$sum", "$prod"],
        DimRule.COLLECT: ["$seq"],
        DimRule.UNEVALUABLE: ["$integral", "$limit", "$diff"],
    }
    assert {name: rule for rule, names in expected.items() for name in names} == rules


# -- 6.3 value restrictions -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "$ln(0)",
        "$ln(-1)",
        "$log(0)",
        "$log(-5)",
        "$ln(0j)",
        "$sqrt(-1)",
        "$sqrt(-1e-300)",
        "$asin(1.0000001)",
        "$asin(-2)",
        "$acos(2)",
        "$acos(-1.5)",
        "1/0",
        "@R/(@R-@R)",
        "$mod(1, 0)",
        "$mod(@R, @R-@R)",
        "$floor(1j)",
        "$ceil(1+0j)",
        "$sign(2j)",
        "$atan2(1j, 1)",
        "$min(1, 1j)",
        "$max(0j, 1)",
        "$mod(1j, 2)",
        "$ln(@arr/@arr - 1)",
        "1/(@arr - @arr)",
        "$sqrt(-@arr)",
    ],
)
def test_value_restrictions_are_undefined_result(text: str) -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    refused(text, ErrorCode.UNDEFINED_RESULT, SLOTS)


def test_restricted_functions_accept_their_complex_branch() -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    assert scalar("$sqrt(-4+0j)") == 2j
    assert scalar("$ln(-1+0j)") == pytest.approx(math.pi * 1j)
    assert type(scalar("$asin(2+0j)")) is complex
    assert scalar("$ln(1e-300)") == pytest.approx(math.log(1e-300))
    assert scalar("$asin(-1)") == pytest.approx(-math.pi / 2)


def test_the_refusal_names_the_function_position_and_value() -> None:
    """Spec: docs/reference/notations.md (the dimension rule of every notation class)."""
    message = refused("1 + $ln(-2)", ErrorCode.UNDEFINED_RESULT)
    assert "$ln" in message and "character 5" in message and "-2" in message
    message = refused("$sqrt(@arr - 2*@arr)", ErrorCode.UNDEFINED_RESULT, SLOTS)
    assert "-1" in message
    message = refused("@R / (@arr - @arr)", ErrorCode.UNDEFINED_RESULT, SLOTS)
    assert "division by zero" in message and "element 0" in message


# -- 6.4 whole vectors only ----------------------------------------------------------------


def test_fractional_intermediates_are_legal_and_refused_at_the_slot() -> None:
    """Spec: docs/reference/units.md (whole vectors only)."""
    assert scalar("$sqrt(@R)*$sqrt(@R)", SLOTS) == pytest.approx(4.0)
    assert scalar("(@R^(1/3))^3", SLOTS) == pytest.approx(4.0)
    assert scalar("@R^0.5*@R^0.5", SLOTS) == pytest.approx(4.0)
    for text in ("$sqrt(@R)", "@R^(1/3)", "@R^0.25", "$seq_{k=1}^{2}($sqrt(@R))"):
        message = refused(text, ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
        assert "fractional vector" in message


def test_a_result_whose_vector_cannot_be_stored_is_refused_right_after_a_storable_one() -> None:
    """The check of a result's vector remembers the last storable vector by identity
    (docs/decisions/eval-speed.md); a fractional vector, or one past MAX_DIMENSION_EXPONENT,
    right after it is still refused.
    Spec: docs/reference/units.md (whole vectors only)."""
    for _ in range(3):
        assert scalar("@R*@R", SLOTS) == pytest.approx(16.0)
        assert "fractional vector" in refused("$sqrt(@R)", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
        assert scalar("@R", SLOTS) == pytest.approx(4.0)
        past = refused(f"@R^{MAX_DIMENSION_EXPONENT}", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
        assert "MAX_DIMENSION_EXPONENT" in past


def test_an_intermediate_with_no_row_is_legal() -> None:
    """Spec: docs/reference/units.md (whole vectors only)."""
    value = value_of("(@V)^2/@R", SLOTS)
    assert value.vector == vec("watt") and value.payload == 36.0  # type: ignore[union-attr]
    assert value_of("@V^2", SLOTS).vector == (4, 2, -6, -2, 0, 0, 0)  # type: ignore[union-attr]


def test_an_exponent_beyond_max_dimension_exponent_cannot_be_stored() -> None:
    """Spec: docs/reference/units.md (whole vectors only)."""
    # Found by the property tests: @m^1e300 built a vector no JSON reader can hold.
    message = refused("@x^1e300", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert "MAX_DIMENSION_EXPONENT" in message and str(MAX_DIMENSION_EXPONENT) in message
    one = {"m": q(1.0, "metre")}
    assert scalar("@m^1e300 / @m^1e300", one) == 1.0
    at_limit = value_of(f"@m^{MAX_DIMENSION_EXPONENT}", one)
    assert at_limit.vector[0] == MAX_DIMENSION_EXPONENT  # type: ignore[union-attr]
    refused(f"@m^{MAX_DIMENSION_EXPONENT + 1}", ErrorCode.INCOMPATIBLE_DIMENSION, one)
    refused(f"@m^-{MAX_DIMENSION_EXPONENT + 1}", ErrorCode.INCOMPATIBLE_DIMENSION, one)
    big = [MAX_DIMENSION_EXPONENT + 1, 0, 0, 0, 0, 0, 0]
    assert "MAX_DIMENSION_EXPONENT" in set_refused(
        {"num": 1, "dim": big}, ErrorCode.INVALID_DIMENSION
    )
    edge = set_value({"num": 1, "dim": [MAX_DIMENSION_EXPONENT, 0, 0, 0, 0, 0, 0]})
    assert stored(edge)["dim"][0] == MAX_DIMENSION_EXPONENT
    set_refused({"num": 1, "dim": [10**400, 0, 0, 0, 0, 0, 0]}, ErrorCode.INVALID_DIMENSION)


@pytest.mark.parametrize("exponent", ["$inf", "-$inf", "($inf-$inf)"])
def test_a_dimensional_base_under_a_non_finite_exponent_has_no_vector(exponent: str) -> None:
    """Spec: docs/reference/units.md (whole vectors only)."""
    # Found by the property tests: Fraction(inf) escaped as ENGINE_UNKNOWN_ERROR.
    message = refused(f"@R^{exponent}", ErrorCode.UNDEFINED_RESULT, SLOTS)
    assert "no dimension vector" in message
    refused(f"@arr^{exponent}", ErrorCode.UNDEFINED_RESULT, SLOTS)
    # A dimensionless base takes it: intermediates may be infinite.
    assert scalar("$atan(2^$inf)") == pytest.approx(math.pi / 2)
    assert scalar("2^-$inf") == 0.0


# -- 6.5 a dim read as a claim ---------------------------------------------------------------


def test_a_get_dim_is_a_claim_about_the_stored_vector() -> None:
    """Spec: docs/reference/units.md (a get dim read as a claim)."""
    value = q(298.15, "kelvin")
    assert get(value, dim="kelvin")["num"] == 298.15
    assert get(value, dim="degC")["num"] == pytest.approx(25.0)
    assert get(value, dim=[0, 0, 0, 0, 1, 0, 0])["num"] == 298.15
    assert leaves("$seq_{k=1}^{2}(@R)", SLOTS) == [4.0, 4.0]
