"""The work budget: what one evaluation may spend, charged before the work runs.

One decision lives here: the price of each kind of work in units of MAX_CALL_WORK, and the
refusal once the budget is spent. The state of one evaluation (`Run`) carries the count, so
the compiler and the bounded forms both charge through `spend`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from reckoner.contract.codes import ErrorCode
from reckoner.contract.limits import MAX_CALL_WORK

from .arithmetic import binary, is_whole_array_operation
from .errors import EngineError
from .lexer import at
from .values import Obj, Quantity, Value, element_count


class Run:
    """The state of one evaluation: the slots it may read and what it has read."""

    # A plain class: one is built per evaluation, and a dataclass's generated __init__ with
    # default factories costs more than the arithmetic of a short formula.
    __slots__ = ("frame", "names", "reads", "slots", "steps", "work")

    def __init__(
        self,
        slots: Mapping[str, Value],
        frame: list[Quantity | None],
        names: tuple[str, ...] = (),
    ) -> None:
        self.slots = slots
        self.names = names  # the formula's slot names, by the index of each reference
        self.reads: dict[str, Value] = {}  # every slot read, in first-use order
        self.frame = frame
        self.steps = 1  # the product of the ranges of the bounded forms being run
        self.work = 0  # units of MAX_CALL_WORK spent so far


Compiled = Callable[[Run], Value]
"""A compiled node: give it the evaluation's state, it answers the node's value."""


class WorkExceeded(EngineError):
    """The call's work budget is spent: never retried another way, always reported."""


# What one work unit buys, measured on this project's machines: a scalar handled in Python
# costs 0.3 to 0.7 us, numpy's whole-array arithmetic 1 to 4 ns an element, and a plain math
# function mapped over a float64 array in C 45 to 80 ns an element.
NUMPY_ELEMENTS_PER_UNIT = 256
MAPPED_ELEMENTS_PER_UNIT = 8
_LIST_ELEMENTS_WRITTEN_PER_UNIT = 2


def units(elements: int, per_unit: int) -> int:
    """The units `elements` cost at `per_unit` elements a unit, rounded up."""
    return -(-elements // per_unit)


def affordable(run: Run, cost: int) -> bool:
    """True when `cost` more units keep the evaluation within MAX_CALL_WORK."""
    return run.work + cost <= MAX_CALL_WORK


def spend(run: Run, cost: int, what: str, pos: int, during: str = "") -> None:
    """Charge work before it runs; over MAX_CALL_WORK the call is refused, never timed out.
    `during` names the bounded form whose steps the work is done for, if any."""
    total = run.work + cost
    if total > MAX_CALL_WORK:
        raise WorkExceeded(
            ErrorCode.INVALID_INDEX,
            f"{what} at {at(pos)}{during} would bring this evaluation's work to {total} units, "
            f"over the limit of {MAX_CALL_WORK} (MAX_CALL_WORK); use smaller arrays or ranges, "
            f"or split the work into several eval steps",
        )
    run.work = total


def _is_scalar(value: Value) -> bool:
    if type(value) is not Quantity:
        return False
    kind = type(value.payload)
    return kind is float or kind is complex


def pair_elements(a: Value, b: Value) -> int:
    """Elements two operands pair up when either is an array (the larger count), else 0:
    scalar work is paid by the formula's length or by a bounded body's cost per step."""
    if type(a) is not Quantity or type(b) is not Quantity or (_is_scalar(a) and _is_scalar(b)):
        return 0
    return max(element_count(a.payload), element_count(b.payload))


def operate(run: Run, symbol: str, a: Value, b: Value, pos: int) -> Value:
    """`binary` after charging its array work."""
    if _is_scalar(a) and _is_scalar(b):
        return binary(symbol, a, b, pos)  # two scalars: no array work to charge
    elements = pair_elements(a, b)
    if elements:
        assert type(a) is Quantity and type(b) is Quantity  # pair_elements saw two
        if is_whole_array_operation(symbol, a.payload, b.payload):
            spend(run, units(elements, NUMPY_ELEMENTS_PER_UNIT), f"'{symbol}'", pos)
        else:
            spend(run, elements, f"'{symbol}'", pos)
    return binary(symbol, a, b, pos)


def row_units(value: Value) -> int:
    """Work of writing a value the formula read into the trace row (its vars): numbers of
    a float64 array are serialised in C at 20 to 40 ns each, elements of a list array (a
    complex is an object of two numbers) at up to 200 ns."""
    if isinstance(value, Obj):
        return sum(row_units(field) for field in value.fields.values())
    payload = value.payload
    if isinstance(payload, np.ndarray):
        return units(payload.size, MAPPED_ELEMENTS_PER_UNIT)
    if type(payload) is list:
        return units(element_count(payload), _LIST_ELEMENTS_WRITTEN_PER_UNIT)
    return 0
