"""The 24 notation functions (docs/reference/notations.md) with their dimension and value rules
(6.3).

Complex in, complex out: a function of a complex argument answers a complex, except the
real-valued parts of one ($abs, $re, $im, $arg), which answer reals.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable

import numpy as np

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ZERO, Vector

from . import dimensions as dims
from .arithmetic import broadcast, require_quantity
from .errors import fail
from .lexer import at
from .notation import DimRule, Notation
from .scalars import Scalar, is_complex
from .values import (
    Element,
    Payload,
    Quantity,
    Value,
    as_list,
    make_array,
    show,
    show_number,
)

ScalarFn = Callable[[Scalar], Scalar]


class _Undefined(Exception):
    """A scalar rule has no value here; the caller words the refusal with context."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _real_only(name: str, fn: Callable[[float], float]) -> ScalarFn:
    def apply(x: Scalar) -> Scalar:
        if is_complex(x):
            raise _Undefined(f"{name} is defined for real arguments only")
        return fn(x)

    return apply


def _guarded_float(fn: Callable[[float], float]) -> Callable[[float], float]:
    def apply(x: float) -> float:
        # math.floor and math.ceil return ints, so they raise on inf and NaN: those stay put.
        if not math.isfinite(x):
            return x
        return float(fn(x))

    return apply


def _sqrt(x: Scalar) -> Scalar:
    if is_complex(x):
        return cmath.sqrt(x)
    if x < 0:
        raise _Undefined("the square root of a negative real has no real value; use a complex")
    return math.sqrt(x)


def _exp(x: Scalar) -> Scalar:
    try:
        return cmath.exp(x) if is_complex(x) else math.exp(x)
    except OverflowError:
        return complex(math.inf, 0.0) if is_complex(x) else math.inf


def _log_factory(real_fn: Callable[[float], float], complex_fn: ScalarFn, name: str) -> ScalarFn:
    def apply(x: Scalar) -> Scalar:
        if is_complex(x):
            if x == 0:
                raise _Undefined(f"{name} of zero is undefined")
            return complex_fn(x)
        if x <= 0:
            raise _Undefined(f"{name} needs a real argument greater than 0")
        return real_fn(x)

    return apply


def _trig(real_fn: Callable[[float], float], complex_fn: ScalarFn, name: str) -> ScalarFn:
    def apply(x: Scalar) -> Scalar:
        try:
            return complex_fn(x) if is_complex(x) else real_fn(x)
        except (ValueError, ZeroDivisionError):
            raise _Undefined(f"{name} has no value there") from None
        except OverflowError:
            return complex(math.inf, 0.0) if is_complex(x) else math.inf

    return apply


def _inverse_unit(real_fn: Callable[[float], float], complex_fn: ScalarFn, name: str) -> ScalarFn:
    def apply(x: Scalar) -> Scalar:
        if is_complex(x):
            return complex_fn(x)
        if not -1.0 <= x <= 1.0:
            raise _Undefined(f"{name} of a real needs an argument from -1 to 1")
        return real_fn(x)

    return apply


def _sign(x: float) -> float:
    if math.isnan(x):
        return x  # NaN has no sign; the result check refuses it by name
    return 0.0 if x == 0 else math.copysign(1.0, x)


def _arg(x: Scalar) -> float:
    if is_complex(x):
        # atan2 of the parts: cmath.phase raises on an angle that underflows to 0.
        return math.atan2(x.imag, x.real)
    if math.isnan(x):
        return x
    return math.pi if x < 0 else 0.0


def _conj(x: Scalar) -> Scalar:
    return x.conjugate() if is_complex(x) else x


UNARY: dict[str, ScalarFn] = {
    "$abs": lambda x: abs(x),
    "$sqrt": _sqrt,
    "$exp": _exp,
    "$ln": _log_factory(math.log, cmath.log, "$ln"),
    "$log": _log_factory(math.log10, cmath.log10, "$log"),
    "$sin": _trig(math.sin, cmath.sin, "$sin"),
    "$cos": _trig(math.cos, cmath.cos, "$cos"),
    "$tan": _trig(math.tan, cmath.tan, "$tan"),
    "$asin": _inverse_unit(math.asin, cmath.asin, "$asin"),
    "$acos": _inverse_unit(math.acos, cmath.acos, "$acos"),
    "$atan": _trig(math.atan, cmath.atan, "$atan"),
    "$floor": _real_only("$floor", _guarded_float(math.floor)),
    "$ceil": _real_only("$ceil", _guarded_float(math.ceil)),
    "$sign": _real_only("$sign", _sign),
    "$re": lambda x: float(x.real),
    "$im": lambda x: float(x.imag),
    "$arg": _arg,
    "$conj": _conj,
}


def _mod(a: float, b: float) -> float:
    if b == 0:
        raise _Undefined("$mod by zero is undefined")
    try:
        return math.fmod(a, b)
    except ValueError:
        raise _Undefined("$mod of an infinite dividend has no value") from None


BINARY: dict[str, Callable[[float, float], float]] = {
    "$atan2": lambda x, y: math.atan2(y, x),  # the angle of the point (x, y)
    "$min": min,
    "$max": max,
    "$mod": _mod,
}


# Over a real array, these functions give exactly what UNARY gives element by element for
# every element the plain math function accepts (it raises on the rest). $asin and $acos
# are absent: math.asin(nan) answers nan where the engine refuses.
_REAL_ARRAY_MAPS: dict[str, Callable[[float], float]] = {
    "$abs": abs,
    "$sqrt": math.sqrt,
    "$exp": math.exp,
    "$ln": math.log,
    "$log": math.log10,
    "$sin": math.sin,
    "$cos": math.cos,
    "$tan": math.tan,
    "$atan": math.atan,
}


# The last word on a math library's exception (the rules above word the expected ones).
_OVERFLOW = "the result overflows the largest double (about 1.8e308)"
_NO_VALUE = "the result is not a finite number"


def _refuse(notation: Notation, pos: int, arg: Scalar, reason: str) -> Exception:
    return fail(
        ErrorCode.UNDEFINED_RESULT,
        f"{notation.name} at {at(pos)} of {show_number(arg)}: {reason}; check the argument "
        f"or rewrite the step",
    )


def _need_dimensionless(notation: Notation, pos: int, q: Quantity, which: str = "") -> None:
    if q.vector != ZERO:
        raise fail(
            ErrorCode.INCOMPATIBLE_DIMENSION,
            f"{notation.name} at {at(pos)} needs a dimensionless argument{which}, but it "
            f"carries {dims.spell(q.vector)}; divide it by a reference quantity first",
        )


def maps_real_array(notation: Notation, payload: Payload) -> bool:
    """True when the function maps a real array through its plain math function in C."""
    return isinstance(payload, np.ndarray) and notation.name in _REAL_ARRAY_MAPS


def _result_vector(notation: Notation, q: Quantity, pos: int) -> Vector:
    """The vector a function's value carries (docs/reference/notations.md), its argument's checked
    first."""
    rule = notation.dim_rule
    if rule is DimRule.DIMENSIONLESS:
        _need_dimensionless(notation, pos, q)
        return ZERO
    if rule is DimRule.ANGLE:
        return ZERO
    if rule is DimRule.HALF:
        return dims.halve(q.vector)
    return q.vector


def _worded(notation: Notation, pos: int) -> ScalarFn:
    """The scalar rule of a function, its failures worded as refusals."""
    fn = UNARY[notation.name]

    def each(x: Scalar) -> Scalar:
        try:
            return fn(x)
        except _Undefined as undefined:
            raise _refuse(notation, pos, x, undefined.reason) from None
        except ArithmeticError:
            raise _refuse(notation, pos, x, _OVERFLOW) from None
        except ValueError:
            raise _refuse(notation, pos, x, _NO_VALUE) from None

    return each


def scalar_unary(notation: Notation, pos: int) -> Callable[[Quantity], Quantity]:
    """`apply_unary` for a scalar quantity, with the function's rules looked up once (at
    compile time) rather than on every call."""
    if notation.dim_rule is DimRule.COUNT or notation.dim_rule is DimRule.TRANSPOSE:
        return lambda q: apply_unary(notation, q, pos)
    each = _worded(notation, pos)
    keeps_vector = notation.dim_rule not in _CHANGES_VECTOR

    def apply(q: Quantity) -> Quantity:
        vector = q.vector if keeps_vector else _result_vector(notation, q, pos)
        return Quantity(each(q.payload), vector)  # type: ignore[arg-type]  # compiled for a scalar argument only

    return apply


_CHANGES_VECTOR = frozenset({DimRule.DIMENSIONLESS, DimRule.ANGLE, DimRule.HALF})


def apply_unary(
    notation: Notation,
    value: Value,
    pos: int,
    before_careful_map: Callable[[int], None] | None = None,
) -> Quantity:
    """Apply a one-argument function; `before_careful_map` hears the element count before a
    real array that the plain math function refused is mapped again element by element."""
    q = require_quantity(value, f"the function {notation.name}", pos)
    rule = notation.dim_rule
    if rule is DimRule.COUNT:
        return _length(notation, q, pos)
    if rule is DimRule.TRANSPOSE:
        return _transpose(notation, q, pos)
    vector = _result_vector(notation, q, pos)
    each = _worded(notation, pos)
    payload = q.payload
    if isinstance(payload, np.ndarray):
        fast = _REAL_ARRAY_MAPS.get(notation.name)
        if fast is not None:
            try:
                flat = np.fromiter(map(fast, payload.ravel().tolist()), np.float64, payload.size)
            except (ValueError, OverflowError):
                # An element the plain function refuses: the careful path words it.
                if before_careful_map is not None:
                    before_careful_map(int(payload.size))
            else:
                return Quantity(flat.reshape(payload.shape), vector)
    if isinstance(payload, np.ndarray | list):
        mapped = _map(as_list(payload), each)
        return Quantity(make_array(mapped), vector)
    return Quantity(each(payload), vector)


def _map(items: list[Element], fn: ScalarFn) -> list[Element]:
    return [_map(e, fn) if isinstance(e, list) else fn(e) for e in items]


def _length(notation: Notation, q: Quantity, pos: int) -> Quantity:
    payload = q.payload
    if not isinstance(payload, np.ndarray | list):
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"$len at {at(pos)} counts the elements of an array, but its argument is "
            f"{show(q)}; pass an array",
        )
    return Quantity(float(len(payload)), ZERO)


def _transpose(notation: Notation, q: Quantity, pos: int) -> Quantity:
    payload = q.payload
    if isinstance(payload, np.ndarray) and payload.ndim == 2:
        return Quantity(np.ascontiguousarray(payload.T), q.vector)
    rows = as_list(payload) if isinstance(payload, np.ndarray | list) else None
    table = [r for r in rows if isinstance(r, list)] if rows is not None else []
    rectangular = (
        rows is not None
        and len(table) == len(rows)
        and len({len(r) for r in table}) <= 1
        and all(type(x) is not list for r in table for x in r)
    )
    if not rectangular or rows is None:
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"$transpose at {at(pos)} needs a rectangular two-dimensional array (an array of "
            f"rows of equal length holding scalars), but its argument is {show(q)}",
        )
    if not rows:
        return Quantity([], q.vector)
    columns: list[Element] = [list(col) for col in zip(*table, strict=True)]
    return Quantity(make_array(columns), q.vector)


def apply_binary(notation: Notation, a: Value, b: Value, pos: int) -> Quantity:
    left = require_quantity(a, f"the function {notation.name}", pos)
    right = require_quantity(b, f"the function {notation.name}", pos)
    if left.vector != right.vector:
        raise fail(
            ErrorCode.INCOMPATIBLE_DIMENSION,
            f"{notation.name} at {at(pos)} needs both arguments in the same dimension, but "
            f"got {dims.spell(left.vector)} and {dims.spell(right.vector)}",
        )
    vector = ZERO if notation.dim_rule is DimRule.SAME_PAIR_ANGLE else left.vector
    fn = BINARY[notation.name]

    def pair(x: Scalar, y: Scalar) -> Scalar:
        if is_complex(x) or is_complex(y):
            bad = x if is_complex(x) else y  # the first complex argument
            raise _refuse(notation, pos, bad, f"{notation.name} needs real arguments")
        try:
            return fn(x, y)
        except _Undefined as undefined:
            raise _refuse(notation, pos, x, undefined.reason) from None
        except ArithmeticError:
            raise _refuse(notation, pos, x, _OVERFLOW) from None
        except ValueError:
            raise _refuse(notation, pos, x, _NO_VALUE) from None

    return Quantity(_broadcast(left.payload, right.payload, pair, notation, pos), vector)


def _broadcast(
    left: Payload, right: Payload, fn: Callable[[Scalar, Scalar], Scalar], n: Notation, pos: int
) -> Payload:

    def unequal(m: int, k: int) -> Exception:
        return fail(
            ErrorCode.INVALID_ARGS,
            f"{n.name} at {at(pos)} pairs arrays of lengths {m} and {k} element by element; "
            f"both arrays must have the same length",
        )

    return broadcast(left, right, fn, unequal)
