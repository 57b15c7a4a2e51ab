"""The stored form of a value: what `set` echoes and a record row holds.

A real is `{num, dim}`, a complex `{re, im, dim}`, an array `{array, dim}` of bare elements
and an object `{object}`; `dim` is always the 7 integers, and every double is written so a
replay reads back the very double the live slot holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from reckoner.contract.dimensions import ZERO, Vector

from . import dimensions as dims
from .forms import JSON, ArrayForm, JSONNumber, Tagged
from .scalars import is_complex
from .values import Element, Obj, Quantity, RealArray, Value

# JavaScript writes a whole double below 1e21 as digits; so do our receipts and rows, up to
# the 64 bits orjson can write as an integer.
_LARGEST_JSON_INT = 2.0**63


def json_number(x: float) -> JSONNumber:
    """A double as JSON spells it: a whole value without a fractional part, -0 as 0."""
    # orjson writes integers only within 64 bits; a larger whole double stays a double.
    if x.is_integer() and -_LARGEST_JSON_INT < x < _LARGEST_JSON_INT:
        return int(x)
    return x


def stored_number(x: float) -> JSONNumber:
    """A double as a row stores it: like `json_number`, but -0.0 keeps its sign, so a replay
    reads back the very double the live slot holds (issue 8: `$sqrt` of -4-0j is -2j)."""
    if x.is_integer() and -_LARGEST_JSON_INT < x < _LARGEST_JSON_INT:
        if x == 0.0 and math.copysign(1.0, x) < 0.0:
            return x
        return int(x)
    return x


def stored_form(value: Value) -> Tagged:
    """The value as `set` echoes it and a row stores it: `dim` as 7 integers."""
    if type(value) is Quantity:
        x = value.payload
        if type(x) is float:  # the commonest value, built here without another call
            vector = value.vector
            last = _LAST_DIM[0]
            if last[0] is not vector:
                last = _LAST_DIM[0] = (vector, dims.integer_tuple(vector))
            return {"num": stored_number(x) if x.is_integer() else x, "dim": list(last[1])}
    return _stored_form(value, _bare)


# The last vector a real was stored with and its integers: results of one formula share a
# vector object, and an identity check costs less than the cache's hash of seven numbers.
# Threads may overwrite it in any order; each entry is a vector with its own integers.
_LAST_DIM: list[tuple[Vector, tuple[int, ...]]] = [(ZERO, (0,) * 7)]


def row_form(value: Value) -> Tagged:
    """`stored_form`, but a float64 array stays the numpy array it is, for a JSON writer
    that spells such an array itself (the record's writes it straight from numpy)."""
    return _stored_form(value, _bare_but_numpy)


def _stored_form(value: Value, bare: Callable[[RealArray | list[Element]], JSON]) -> Tagged:
    if isinstance(value, Obj):
        return {"object": {name: _stored_form(v, bare) for name, v in value.fields.items()}}
    dim = dims.integers(value.vector)
    payload = value.payload
    if isinstance(payload, np.ndarray | list):
        return {"array": bare(payload), "dim": dim}
    if is_complex(payload):
        return {"re": stored_number(payload.real), "im": stored_number(payload.imag), "dim": dim}
    return {"num": stored_number(payload), "dim": dim}


def _bare(payload: RealArray | list[Element]) -> ArrayForm:
    if isinstance(payload, np.ndarray):
        return json_numbers(payload)
    return _bare_items(payload)


def _bare_but_numpy(payload: RealArray | list[Element]) -> RealArray | ArrayForm:
    if isinstance(payload, np.ndarray):
        return payload
    return _bare_items(payload)


def _bare_items(items: list[Element]) -> ArrayForm:
    """The stored form of array elements; a plain loop, as a complex array may hold a million
    (so `isinstance`, which narrows as `is_complex` does, without a Python call per element)."""
    out: ArrayForm = []
    append = out.append
    for e in items:
        if isinstance(e, complex):
            append({"re": stored_number(e.real), "im": stored_number(e.imag)})
        elif isinstance(e, list):
            append(_bare_items(e))
        else:
            append(stored_number(e))
    return out


def json_numbers(array: RealArray, *, keep_zero_sign: bool = True) -> ArrayForm:
    """`stored_number` over a whole float64 array (`json_number` when `keep_zero_sign` is
    off), decided in numpy rather than per element."""
    with np.errstate(invalid="ignore"):
        whole = (np.trunc(array) == array) & (np.abs(array) < _LARGEST_JSON_INT)
    if keep_zero_sign:
        whole &= ~((array == 0) & np.signbit(array))  # -0.0 stays a double (issue 8)
    numbers: ArrayForm  # tolist() is untyped: nested lists of ints and floats
    if not whole.any():
        numbers = array.tolist()
    elif whole.all():
        numbers = array.astype(np.int64).tolist()
    else:
        mixed = array.astype(object)
        mixed[whole] = array[whole].astype(np.int64).astype(object)
        numbers = mixed.tolist()
    return numbers
