"""Runtime values: a quantity (scalar or array with one SI vector) or an object of fields.

A real scalar is a ``float`` and a complex one a ``complex``: Python ints never enter the
arithmetic. An array is held as a float64 ``numpy`` array when it is rectangular and all
real (the fast path for element-wise arithmetic), and as a nested ``list`` of floats,
complexes and lists otherwise, so each element keeps its own real-or-complex identity.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

import numpy as np

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ZERO, Vector
from reckoner.contract.limits import MAX_ARRAY_ELEMENTS

from .dimensions import spell
from .errors import fail
from .scalars import Scalar, is_complex

Element: TypeAlias = "float | complex | list[Element]"
RealArray: TypeAlias = "np.ndarray[Any, np.dtype[np.float64]]"
Payload: TypeAlias = "float | complex | RealArray | list[Element]"


# Not frozen: a frozen dataclass sets each field through object.__setattr__, which doubles
# the cost of building the value every operator and function answers. Nothing mutates one.
@dataclass(slots=True)
class Quantity:
    """A scalar or an array, with the one SI vector every element shares."""

    payload: Payload
    vector: Vector = ZERO

    @property
    def is_array(self) -> bool:
        return type(self.payload) is list or isinstance(self.payload, np.ndarray)


@dataclass(slots=True)
class Obj:
    """Named fields, each a full value with its own vector; no vector of its own."""

    fields: dict[str, Value]


Value: TypeAlias = Quantity | Obj


def real(x: float, vector: Vector = ZERO) -> Quantity:
    return Quantity(x, vector)


def is_array_payload(payload: object) -> bool:
    return type(payload) is list or isinstance(payload, np.ndarray)


def as_list(payload: RealArray | list[Element]) -> list[Element]:
    """The general nested-list form of an array payload."""
    if isinstance(payload, np.ndarray):
        converted: list[Element] = payload.tolist()
        return converted
    return payload


# numpy refuses arrays of more than 64 dimensions; deeper values (allowed up to
# MAX_VALUE_DEPTH) stay nested lists, which every operation also handles.
_NUMPY_MAX_DIMENSIONS = 32


def make_array(elements: list[Element]) -> RealArray | list[Element]:
    """The canonical payload for these elements: numpy when rectangular and all real."""
    if elements and is_rectangular(elements, _FLOAT):
        return np.array(elements, dtype=np.float64)
    return elements


_FLOAT = frozenset({float})


def is_rectangular(elements: list[Any], leaves: frozenset[type], dimensions: int = 1) -> bool:
    """True when every leaf's type is one of ``leaves`` and every list at one depth has the
    same nonzero length: the shape numpy needs (at most 31 deep). Checked a whole depth at a
    time (the lists of a depth joined into the next), so a million leaves cost a few passes
    in C, and two rows of equal length whose own rows differ (``[[[1], [2]], [[1, 2],
    [3, 4]]]``) are not rectangular."""
    kinds = set(map(type, elements))
    if kinds <= leaves:
        return bool(kinds)
    if kinds != {list} or dimensions >= _NUMPY_MAX_DIMENSIONS:
        return False
    widths = set(map(len, elements))
    if len(widths) != 1 or 0 in widths:
        return False
    return is_rectangular([e for row in elements for e in row], leaves, dimensions + 1)


def element_count(payload: Payload) -> int:
    """Scalar leaves in a payload (a scalar counts one)."""
    if isinstance(payload, np.ndarray):
        return int(payload.size)
    if type(payload) is list:
        # A list of scalars (a complex array may hold a million) is counted by its length,
        # found without a Python call per element; only nested lists are walked.
        if list not in map(type, payload):
            return len(payload)
        return sum(element_count(e) if type(e) is list else 1 for e in payload)
    return 1


def check_array_size(count: int) -> None:
    if count > MAX_ARRAY_ELEMENTS:
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"an array of {count} scalar elements exceeds the limit of "
            f"{MAX_ARRAY_ELEMENTS} (MAX_ARRAY_ELEMENTS); split the work into smaller arrays",
        )


def iter_leaves(payload: Payload | Element) -> Iterator[Scalar]:
    if isinstance(payload, np.ndarray):
        yield from payload.ravel().tolist()
    elif isinstance(payload, list):
        for e in payload:
            yield from iter_leaves(e)
    else:
        yield payload


def first_non_finite(value: Value) -> Scalar | None:
    """The first leaf that is infinite or NaN, or None when every leaf is finite."""
    if isinstance(value, Obj):
        for field in value.fields.values():
            bad = first_non_finite(field)
            if bad is not None:
                return bad
        return None
    payload = value.payload
    if isinstance(payload, np.ndarray):
        if bool(np.isfinite(payload).all()):
            return None
        flat = payload.ravel()
        return float(flat[~np.isfinite(flat)][0])
    if isinstance(payload, list):
        return _first_non_finite_element(payload)
    return _first_non_finite_element([payload])


def _first_non_finite_element(items: list[Element]) -> Scalar | None:
    # A list of finite scalars, the usual case, is vouched for in one C pass; otherwise a
    # plain loop (not iter_leaves) finds the first bad leaf.
    if list not in map(type, items) and all(map(cmath.isfinite, cast("list[Scalar]", items))):
        return None
    isfinite = math.isfinite
    for e in items:
        if type(e) is float:
            if not isfinite(e):
                return e
        elif type(e) is complex:
            if not (isfinite(e.real) and isfinite(e.imag)):
                return e
        elif isinstance(e, list):
            bad = _first_non_finite_element(e)
            if bad is not None:
                return bad
    return None


def show_number(x: Scalar) -> str:
    """A scalar as a reader sees it in a message: shortest round-trip digits."""
    if is_complex(x):
        re, im = show_number(x.real), show_number(abs(x.imag))
        sign = "-" if x.imag < 0 or (x.imag == 0 and math.copysign(1, x.imag) < 0) else "+"
        return f"{re}{sign}{im}j"
    x = float(x.real)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(x)


def show(value: Value, limit: int = 6) -> str:
    """A value for a message: a scalar with its vector, an array by its first elements."""
    if isinstance(value, Obj):
        names = ", ".join(value.fields) or "no fields"
        return f"an object with fields {names}"
    payload = value.payload
    unit = "" if value.vector == ZERO else f" ({spell(value.vector)})"
    if isinstance(payload, np.ndarray | list):
        items = as_list(payload)
        shown = ", ".join(_show_element(e) for e in items[:limit])
        more = ", ..." if len(items) > limit else ""
        return f"the array [{shown}{more}] of length {len(items)}{unit}"
    return f"{show_number(payload)}{unit}"


def _show_element(e: Element) -> str:
    if isinstance(e, list):
        return "[" + ", ".join(_show_element(x) for x in e[:3]) + (", ...]" if len(e) > 3 else "]")
    return show_number(e)
