"""Whole numbers where a formula needs one: an index into an array, a bound of a form.

One rule for both: a dimensionless scalar holding an integer (a complex needs im 0), and an
index inside the array it reads.
"""

from __future__ import annotations

import numpy as np

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ZERO

from .errors import fail
from .lexer import at
from .scalars import is_complex
from .values import Quantity, Value, show


def whole_number(value: Value, role: str, pos: int) -> int:
    """An index or bound: an integer with the zero vector (a complex needs im 0)."""
    if type(value) is Quantity:  # the usual bound, a real whole number, in three tests
        x = value.payload
        if type(x) is float and x.is_integer() and value.vector == ZERO:
            return int(x)
    if isinstance(value, Quantity) and value.vector == ZERO:
        x = value.payload
        if isinstance(x, complex | float) and is_complex(x) and x.imag == 0:
            x = x.real
        if type(x) is float and x.is_integer():
            return int(x)
    described = show(value) if isinstance(value, Quantity) else "an object"
    raise fail(
        ErrorCode.INVALID_INDEX,
        f"the {role} at {at(pos)} is {described}; it must be a dimensionless whole number",
    )


def outside(i: int, length: int, pos: int) -> Exception:
    """The refusal of an index `i` outside an array of `length` elements."""
    return fail(
        ErrorCode.INVALID_INDEX,
        f"the index {i} at {at(pos)} is outside the array of length {length}; valid "
        f"indices run from 0 to {length - 1}"
        if length
        else f"the index {i} at {at(pos)} reads an empty array (length 0), which has no elements",
    )


def not_an_array(container: Value, pos: int) -> Exception:
    """The refusal of `[ ]` on a value that is not an array."""
    return fail(
        ErrorCode.UNSUPPORTED_INDEX,
        f"'[ ]' at {at(pos)} indexes an array, but the value is {show(container)}; "
        f"use '[ ]' on arrays only",
    )


def element(container: Value, position: Value, pos: int) -> Value:
    """`container[position]`: the element, with the array's vector."""
    if not isinstance(container, Quantity):
        raise not_an_array(container, pos)
    payload = container.payload
    if not isinstance(payload, np.ndarray | list):
        raise not_an_array(container, pos)
    i = whole_number(position, "index", pos)
    length = len(payload)
    if not 0 <= i < length:
        raise outside(i, length, pos)
    if isinstance(payload, np.ndarray):
        item = payload[i]
        if isinstance(item, np.ndarray):
            return Quantity(item, container.vector)
        return Quantity(float(item), container.vector)
    return Quantity(payload[i], container.vector)
