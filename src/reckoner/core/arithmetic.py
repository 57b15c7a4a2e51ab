"""The operators + - * / ^ and unary minus on quantities (docs/guide/formulas.md and
docs/reference/units.md).

Arrays combine element by element with scalar broadcast; real rectangular arrays take a
numpy fast path whose domain checks match the scalar rules exactly.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ZERO

from . import dimensions as dims
from .errors import fail
from .lexer import at
from .scalars import Scalar, is_complex
from .values import (
    Element,
    Obj,
    Payload,
    Quantity,
    Value,
    as_list,
    iter_leaves,
    make_array,
    show,
    show_number,
)

ScalarOp = Callable[[Scalar, Scalar], Scalar]
NumpyOp = Callable[[Any, Any], Any]

_OP_NAMES = {"+": "addition", "-": "subtraction", "*": "multiplication", "/": "division",
             "^": "power"}  # fmt: skip


def require_quantity(value: Value, what: str, pos: int) -> Quantity:
    """Operators and functions are defined on quantities only (docs/guide/formulas.md)."""
    if isinstance(value, Obj):
        raise fail(
            ErrorCode.UNSUPPORTED_OPERATION,
            f"{what} at {at(pos)} cannot apply to {show(value)}: no operator or function is "
            f"defined on an object; read a field first, as @o.field",
        )
    return value


# -- scalar rules ------------------------------------------------------------------------


def _add(x: Scalar, y: Scalar) -> Scalar:
    return x + y


def _sub(x: Scalar, y: Scalar) -> Scalar:
    return x - y


def _mul(x: Scalar, y: Scalar) -> Scalar:
    try:
        return x * y
    except OverflowError:  # pragma: no cover - float multiply saturates; kept for complex
        return math.inf


def _div_factory(pos: int) -> ScalarOp:
    def divide(x: Scalar, y: Scalar) -> Scalar:
        if y == 0:
            raise fail(
                ErrorCode.UNDEFINED_RESULT,
                f"division by zero at {at(pos)}: the divisor is {show_number(y)} while the "
                f"dividend is {show_number(x)}; check the divisor's value or rewrite the "
                f"formula so it cannot be zero",
            )
        try:
            return x / y
        except OverflowError:
            return complex(math.inf, 0.0) if is_complex(x) or is_complex(y) else math.inf

    return divide


def scalar_power(base: Scalar, exponent: Scalar, pos: int) -> Scalar:
    """`base ^ exponent` for scalars, with the manual's undefined cases refused."""
    if type(base) is float and type(exponent) is float and base > 0.0:
        try:  # a positive real base has a real value under every real exponent
            return float(base**exponent)
        except OverflowError:
            return math.inf
    if is_complex(exponent):
        if base == 0:
            raise fail(
                ErrorCode.UNDEFINED_RESULT,
                f"zero raised to the complex power {show_number(exponent)} at {at(pos)} is "
                f"undefined; a complex power needs a non-zero base",
            )
        try:
            return cmath.exp(exponent * cmath.log(base))
        except OverflowError:
            return complex(math.inf, 0.0)
        except ValueError:
            # An infinite part meets a complex exponent: cmath has no value to give.
            raise _no_finite_power(base, exponent, pos) from None
    p = float(exponent.real)
    if base == 0:
        if p == 0:
            return complex(1.0, 0.0) if is_complex(base) else 1.0
        if p < 0:
            raise fail(
                ErrorCode.UNDEFINED_RESULT,
                f"zero raised to the negative power {show_number(p)} at {at(pos)} is undefined "
                f"(it would divide by zero); check the base's value",
            )
    if is_complex(base):
        try:
            result = base**p
        except (OverflowError, ZeroDivisionError):
            return complex(math.inf, 0.0)
        except ValueError:
            raise _no_finite_power(base, exponent, pos) from None
        return complex(result)
    b = float(base.real)
    if b < 0 and not p.is_integer():
        raise fail(
            ErrorCode.UNDEFINED_RESULT,
            f"the negative base {show_number(b)} raised to the fractional power "
            f"{show_number(p)} at {at(pos)} has no real value; use a complex base "
            f"(as in ({show_number(b)}+0j)^{show_number(p)}) if the complex root is meant",
        )
    try:
        return float(b**p)
    except OverflowError:
        negative = b < 0 and p.is_integer() and int(p) % 2 == 1
        return -math.inf if negative else math.inf


def _no_finite_power(base: Scalar, exponent: Scalar, pos: int) -> Exception:
    return fail(
        ErrorCode.UNDEFINED_RESULT,
        f"{show_number(base)} raised to the power {show_number(exponent)} at {at(pos)} has no "
        f"finite value (a part overflows the largest double, about 1.8e308); scale the base "
        f"or the exponent down",
    )


# -- broadcasting --------------------------------------------------------------------------


def _combine(
    left: Payload, right: Payload, op: ScalarOp, fast: NumpyOp | None, symbol: str, pos: int
) -> Payload:
    if fast is not None:
        aligned = _numpy_operands(left, right)
        if aligned is not None:
            with np.errstate(all="ignore"):
                result: Payload = fast(aligned[0], aligned[1])
            return result

    def unequal(m: int, n: int) -> Exception:
        return fail(
            ErrorCode.INVALID_ARGS,
            f"'{symbol}' at {at(pos)} combines arrays of lengths {m} and {n} element by "
            f"element; both arrays must have the same length",
        )

    return broadcast(left, right, op, unequal)


def broadcast(
    left: Payload, right: Payload, op: ScalarOp, unequal: Callable[[int, int], Exception]
) -> Payload:
    """`op` element by element, a scalar side paired with every element of the other side;
    two arrays of unequal length are refused with `unequal(their lengths)`."""
    lhs: Element = as_list(left) if isinstance(left, np.ndarray) else left
    rhs: Element = as_list(right) if isinstance(right, np.ndarray) else right
    paired = _pair(lhs, rhs, op, unequal)
    return make_array(paired) if isinstance(paired, list) else paired


def _pair(
    left: Element, right: Element, op: ScalarOp, unequal: Callable[[int, int], Exception]
) -> Element:
    if isinstance(left, list):
        if isinstance(right, list):
            if len(left) != len(right):
                raise unequal(len(left), len(right))
            return [_pair(x, y, op, unequal) for x, y in zip(left, right, strict=True)]
        return [_pair(x, right, op, unequal) for x in left]
    if isinstance(right, list):
        return [_pair(left, y, op, unequal) for y in right]
    return op(left, right)


def _numpy_operands(left: Payload, right: Payload) -> tuple[Any, Any] | None:
    """Operands numpy combines in one whole-array operation, aligned; else None."""
    left_array = isinstance(left, np.ndarray)
    right_array = isinstance(right, np.ndarray)
    if not (left_array or right_array):
        return None
    if not ((left_array or type(left) is float) and (right_array or type(right) is float)):
        return None
    return _align(left, right)


def is_whole_array_operation(symbol: str, left: Payload, right: Payload) -> bool:
    """True when `left symbol right` runs as one numpy operation, not element by element."""
    if symbol == "^":
        return isinstance(left, np.ndarray) and type(right) is float
    return _numpy_operands(left, right) is not None


def _align(left: Any, right: Any) -> tuple[Any, Any] | None:
    """Shapes numpy can pair element by element the way the engine does, else None."""
    if not isinstance(left, np.ndarray) or not isinstance(right, np.ndarray):
        return left, right
    if left.shape == right.shape:
        return left, right
    # The engine pairs leading axes (a length-3 array against a 3x2 one pairs rows), while
    # numpy aligns trailing axes: pad the shorter shape on the right.
    if left.ndim > right.ndim and left.shape[: right.ndim] == right.shape:
        return left, right.reshape(right.shape + (1,) * (left.ndim - right.ndim))
    if right.ndim > left.ndim and right.shape[: left.ndim] == left.shape:
        return left.reshape(left.shape + (1,) * (right.ndim - left.ndim)), right
    return None


# -- operators -----------------------------------------------------------------------------


def _same_vector(a: Quantity, b: Quantity, symbol: str, pos: int) -> None:
    if a.vector != b.vector:
        zero = ZERO
        hint = (
            "a bare number does not say what it counts: give it the other side's dimension "
            "through a slot"
            if zero in (a.vector, b.vector)
            else "both sides must measure the same quantity"
        )
        raise fail(
            ErrorCode.INCOMPATIBLE_DIMENSION,
            f"'{symbol}' at {at(pos)} joins {dims.spell(a.vector)} and {dims.spell(b.vector)}; "
            f"{hint}",
        )


def add(a: Quantity, b: Quantity, pos: int) -> Quantity:
    _same_vector(a, b, "+", pos)
    return Quantity(_combine(a.payload, b.payload, _add, np.add, "+", pos), a.vector)


def subtract(a: Quantity, b: Quantity, pos: int) -> Quantity:
    _same_vector(a, b, "-", pos)
    return Quantity(_combine(a.payload, b.payload, _sub, np.subtract, "-", pos), a.vector)


def multiply(a: Quantity, b: Quantity, pos: int) -> Quantity:
    payload = _combine(a.payload, b.payload, _mul, np.multiply, "*", pos)
    return Quantity(payload, dims.multiply(a.vector, b.vector))


def divide(a: Quantity, b: Quantity, pos: int) -> Quantity:
    divisor = b.payload
    if not isinstance(divisor, np.ndarray | list) and divisor == 0:
        dividend = a.payload if not isinstance(a.payload, np.ndarray | list) else 1.0
        _div_factory(pos)(dividend, divisor)  # raises the division-by-zero refusal
    if isinstance(divisor, np.ndarray) and not bool(divisor.all()):
        flat = divisor.ravel()
        where = int(np.flatnonzero(flat == 0)[0])
        raise fail(
            ErrorCode.UNDEFINED_RESULT,
            f"division by zero at {at(pos)}: element {where} of the divisor "
            f"{show(b)} is 0; check the divisor's values",
        )
    payload = _combine(a.payload, divisor, _div_factory(pos), np.divide, "/", pos)
    return Quantity(payload, dims.divide(a.vector, b.vector))


def negate(a: Quantity) -> Quantity:
    payload = a.payload
    if isinstance(payload, np.ndarray):
        return Quantity(np.negative(payload), a.vector)
    if isinstance(payload, list):
        return Quantity(_map_list(payload, lambda x: -x), a.vector)
    return Quantity(-payload, a.vector)


def _map_list(items: list[Element], fn: Callable[[Scalar], Scalar]) -> list[Element]:
    return [_map_list(e, fn) if isinstance(e, list) else fn(e) for e in items]


def power(a: Quantity, b: Quantity, pos: int) -> Quantity:
    """`a ^ b` (docs/guide/formulas.md): dimensionless exponent; complex exponent needs a plain
    base."""
    if b.vector != ZERO:
        raise fail(
            ErrorCode.INCOMPATIBLE_DIMENSION,
            f"the exponent of '^' at {at(pos)} carries {dims.spell(b.vector)}; an exponent must "
            f"be dimensionless, so divide it by a quantity of the same dimension first",
        )
    exponents = list(iter_leaves(b.payload))
    if any(is_complex(e) for e in exponents) and a.vector != ZERO:
        raise fail(
            ErrorCode.INCOMPATIBLE_DIMENSION,
            f"a complex exponent at {at(pos)} needs a dimensionless base, but the base carries "
            f"{dims.spell(a.vector)}; divide the base by its unit quantity first",
        )
    vector = a.vector
    if vector != ZERO:
        distinct = {float(e.real) for e in exponents}  # all real: complex refused above
        if len(distinct) > 1:
            raise fail(
                ErrorCode.INCOMPATIBLE_DIMENSION,
                f"'^' at {at(pos)} raises {dims.spell(vector)} to an array of different "
                f"exponents, which would give the elements different vectors; an array "
                f"shares one vector, so use one exponent",
            )
        if distinct:
            exponent = distinct.pop()
            if not math.isfinite(exponent):
                raise fail(
                    ErrorCode.UNDEFINED_RESULT,
                    f"'^' at {at(pos)} raises {dims.spell(vector)} to the power "
                    f"{show_number(exponent)}, which gives no dimension vector; only a "
                    f"dimensionless base takes a non-finite exponent",
                )
            vector = dims.power(vector, exponent)
    base = a.payload
    if isinstance(base, np.ndarray) and type(b.payload) is float:
        p = b.payload
        if p < 0 and not bool(base.all()):
            scalar_power(0.0, p, pos)  # raises the zero-to-negative-power refusal
        if not p.is_integer() and bool((base < 0).any()):
            scalar_power(float(base[base < 0].ravel()[0]), p, pos)  # raises
        with np.errstate(all="ignore"):
            return Quantity(np.power(base, p), vector)

    def op(x: Scalar, y: Scalar) -> Scalar:
        return scalar_power(x, y, pos)

    return Quantity(_combine(base, b.payload, op, None, "^", pos), vector)


def binary(symbol: str, a: Value, b: Value, pos: int) -> Quantity:
    """Apply one binary operator after refusing objects on either side."""
    if type(a) is Quantity and type(b) is Quantity:
        x, y = a.payload, b.payload
        if type(x) is float and type(y) is float:
            # Two real scalars, the common case: no broadcasting machinery needed.
            if symbol == "*":
                return Quantity(x * y, dims.multiply(a.vector, b.vector))
            if symbol == "/" and y != 0.0:
                return Quantity(x / y, dims.divide(a.vector, b.vector))
            if symbol == "+" and a.vector == b.vector:
                return Quantity(x + y, a.vector)
            if symbol == "-" and a.vector == b.vector:
                return Quantity(x - y, a.vector)
            if symbol == "^" and b.vector == ZERO and (math.isfinite(y) or a.vector == ZERO):
                return Quantity(scalar_power(x, y, pos), dims.power(a.vector, y))
        elif (type(x) is complex or type(x) is float) and (type(y) is complex or type(y) is float):
            # A complex scalar with a scalar: Python's complex + - * never raise (they
            # saturate to inf, refused later), exactly as the general rules compute them.
            if symbol == "*":
                return Quantity(x * y, dims.multiply(a.vector, b.vector))
            if a.vector == b.vector:
                if symbol == "+":
                    return Quantity(x + y, a.vector)
                if symbol == "-":
                    return Quantity(x - y, a.vector)
    if type(a) is Quantity and type(b) is Quantity:  # arrays: no object to refuse
        left, right = a, b
    else:
        what = f"the {_OP_NAMES[symbol]} '{symbol}'"
        left = require_quantity(a, what, pos)
        right = require_quantity(b, what, pos)
    if symbol == "+":
        return add(left, right, pos)
    if symbol == "-":
        return subtract(left, right, pos)
    if symbol == "*":
        return multiply(left, right, pos)
    if symbol == "/":
        return divide(left, right, pos)
    return power(left, right, pos)
