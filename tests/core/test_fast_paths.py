"""Issue 8 (speed): each shortcut on the eval path answers exactly what the general rules
answer, bit for bit, and fails with the same code and sentence.

The shortcuts: scalar operators (real and complex) beside the broadcasting machinery, a
chain's constant prefix computed at compile time, a function of a scalar with its rules
looked up once, and a $sum or $prod folding through the same operator path.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import pytest
from core_helpers import set_value, value_of
from hypothesis import given, settings
from hypothesis import strategies as st

from reckoner.contract.dimensions import ROW_BY_NAME, ZERO, Vector
from reckoner.core.api import evaluate
from reckoner.core.arithmetic import add, binary, multiply, subtract
from reckoner.core.errors import EngineError, Failure
from reckoner.core.functions import apply_unary, scalar_unary
from reckoner.core.notation import NOTATIONS, Kind
from reckoner.core.values import Quantity, Value

VOLT = ROW_BY_NAME["volt"].vector
OHM = ROW_BY_NAME["ohm"].vector
FUNCTIONS = [n for n in NOTATIONS if n.kind is Kind.FUNCTION and 1 in n.arities]

doubles = st.floats(allow_nan=True, allow_infinity=True, width=64) | st.sampled_from(
    [0.0, -0.0, 1.0, -1.0, 0.5, 1e308, -1e308, 5e-324, math.pi, math.inf, -math.inf]
)
scalars = doubles | st.builds(complex, doubles, doubles)
vectors = st.sampled_from([ZERO, VOLT, OHM])


def _bits(x: float | complex) -> tuple[int, ...]:
    """A scalar's exact bits (NaN payloads and the sign of zero included)."""
    parts = (x.real, x.imag) if type(x) is complex else (x,)
    return tuple(struct.unpack("<q", struct.pack("<d", p))[0] for p in parts)


def _same(a: object, b: object) -> None:
    """Two outcomes of one rule: the same value bit for bit, or the same failure."""
    if isinstance(a, Failure) or isinstance(b, Failure):
        assert a == b
        return
    assert isinstance(a, Quantity) and isinstance(b, Quantity)
    assert type(a.payload) is type(b.payload)
    assert _bits(a.payload) == _bits(b.payload)  # type: ignore[arg-type]
    assert a.vector == b.vector


def _outcome(action: object) -> object:
    try:
        return action()  # type: ignore[operator]
    except EngineError as error:
        return error.failure


GENERAL = {"+": add, "-": subtract, "*": multiply}


@given(st.sampled_from(["+", "-", "*"]), scalars, vectors, scalars, vectors)
def test_scalar_operators_match_the_general_rules_bit_for_bit(
    symbol: str, x: float | complex, vx: Vector, y: float | complex, vy: Vector
) -> None:
    """4.4: + - * of two scalars (real or complex) take binary's direct route; the value,
    its vector, or the refusal of unlike vectors is what add, subtract, multiply give.
    Spec: docs/guide/formulas.md (issue 8)."""
    a, b = Quantity(x, vx), Quantity(y, vy)
    _same(
        _outcome(lambda: binary(symbol, a, b, 0)),
        _outcome(lambda: GENERAL[symbol](a, b, 0)),
    )


@given(st.sampled_from(FUNCTIONS), scalars, vectors)
def test_a_function_of_a_scalar_matches_apply_unary(
    notation: object, x: float | complex, vector: Vector
) -> None:
    """5.3, 6.3: the compiled scalar route of every one-argument function answers what
    apply_unary answers: the same bits, the same vector, or the same refusal.
    Spec: docs/guide/formulas.md (issue 8)."""
    q = Quantity(x, vector)
    fast = scalar_unary(notation, 3)  # type: ignore[arg-type]
    _same(_outcome(lambda: fast(q)), _outcome(lambda: apply_unary(notation, q, 3)))  # type: ignore[arg-type]


def _slots(**values: object) -> dict[str, Value]:
    return {name: set_value(raw) for name, raw in values.items()}


def _value(formula: str, slots: dict[str, Value]) -> Quantity:
    value = value_of(formula, slots)
    assert isinstance(value, Quantity)
    return value


@given(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.floats(1e-6, 1e6, allow_nan=False),
    st.floats(1e-9, 1e3, allow_nan=False),
)
def test_a_folded_constant_prefix_gives_the_left_to_right_double(
    k: float, f: float, inductance: float
) -> None:
    """4.4: left to right; computing 2*$pi*<k> once at compile time gives the very double
    the steps give in order: ((2*pi)*k)*f*L.
    Spec: docs/guide/formulas.md (issue 8)."""
    slots = _slots(f={"num": f, "dim": "hertz"}, L={"num": inductance, "dim": "henry"})
    got = _value(f"2*$pi*{k!r}*@f*@L", slots)
    assert _bits(got.payload) == _bits(2.0 * math.pi * k * f * inductance)  # type: ignore[arg-type]
    subtracted = _value(f"1 - {k!r} + @f/@f", slots)
    assert _bits(subtracted.payload) == _bits(1.0 - k + f / f)  # type: ignore[arg-type]


def test_a_prefix_that_fails_is_not_folded_so_its_failure_comes_first() -> None:
    """8: the first failure in evaluation order is the one reported: 1/0 before the missing
    slot after it, even though 1/0 is the chain's constant prefix.
    Spec: docs/guide/formulas.md (issue 8)."""
    failure = evaluate("1/0*3*@missing", {})
    assert isinstance(failure, Failure)
    assert failure.message.startswith("division by zero at character 2")


Z = complex(3.0, -4.0)


@pytest.mark.parametrize(
    ("formula", "terms", "fold"),
    [
        ("$sum_{k=0}^{19}(@a*@r^k)", [1.5 * 0.5 ** float(k) for k in range(20)], "+"),
        ("$prod_{k=1}^{9}(@r + k)", [0.5 + float(k) for k in range(1, 10)], "*"),
        ("$sum_{k=0}^{4}(@z*k)", [Z * float(k) for k in range(5)], "+"),
    ],
)
def test_a_fold_through_the_scalar_route_adds_in_order(
    formula: str, terms: list[float | complex], fold: str
) -> None:
    """5.4: $sum and $prod fold their terms left to right through the operator path; the
    result is the Python fold of the same terms, for a real and for a complex body.
    Spec: docs/guide/formulas.md (issue 8)."""
    slots = _slots(a={"num": 1.5}, r={"num": 0.5}, z={"re": 3.0, "im": -4.0})
    expected = terms[0]
    for term in terms[1:]:
        expected = expected + term if fold == "+" else expected * term
    assert _bits(_value(formula, slots).payload) == _bits(expected)  # type: ignore[arg-type]


# 60 exponents, both signs of zero and the whole range of doubles: the decimal-point route
# has a branch per exponent, so the search is wider than the profile's.
@settings(max_examples=3000)
@given(
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.integers(min_value=-30, max_value=30).filter(bool),  # 10**0 is the identity map
    st.booleans(),
)
def test_a_power_of_ten_unit_moves_the_decimal_point_as_the_exact_route_does(
    x: float, k: int, scale_only: bool
) -> None:
    """Issue 14 (speed of `unit`): a factor of exactly 10**k with no offset (kOhm, mm, mPa*s)
    converts by moving the decimal point of the written spelling; both directions give the
    bits the exact integer route gives, a zero's sign included.
    Spec: docs/guide/formulas.md (issue 14)."""
    from reckoner.core.conversion import UnitSpec

    factor = Fraction(10) ** k
    fast = UnitSpec.of("u", VOLT, factor, Fraction(0))
    exact = UnitSpec("u", VOLT, factor, Fraction(0), float(factor), 0.0, None, None)
    assert fast.decimal_shift == k
    assert _bits(fast.into_si(x, scale_only=scale_only)) == _bits(
        exact.into_si(x, scale_only=scale_only)
    )
    assert _bits(fast.out_of_si(x, scale_only=scale_only)) == _bits(
        exact.out_of_si(x, scale_only=scale_only)
    )


@given(
    st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), max_size=40),
    st.fractions(min_value=-(10**6), max_value=10**6, max_denominator=10**6).filter(bool),
    st.fractions(min_value=-(10**3), max_value=10**3, max_denominator=1000),
)
def test_a_list_of_reals_converts_in_a_unit_as_each_number_alone(
    xs: list[float], factor: Fraction, offset: Fraction
) -> None:
    """Issue 27 (no call over 2 s): a million-element `set` in a unit reads the unit's
    integers once for the list; every element still stores the double it stores alone
    (degF, km/h, a power of ten, the identity), a zero's sign included.
    Spec: docs/guide/formulas.md (units are exact on the decimal spelling)."""
    from reckoner.core.conversion import UnitSpec

    units = [(factor, offset), (Fraction(1000), Fraction(0)), (Fraction(1), Fraction(0))]
    for spec in (UnitSpec.of("u", VOLT, f, o) for f, o in units):
        alone = [_bits(spec.into_si(x)) for x in xs]
        assert [_bits(y) for y in spec.reals_into_si(xs)] == alone
