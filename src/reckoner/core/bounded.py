"""The bounded forms $sum, $prod and $seq: their steps, their limits and their fold.

A form runs its body once per value of the bound variable, from the lower bound to the
upper one, and folds the values left to right ($sum with +, $prod with *) or collects them
($seq): that is the stepped rule, and its answer is the answer. A form of many steps first
tries its body over all steps at once (reckoner.core.lanes), which gives exactly what the
steps give or hands the form back to them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ZERO, Vector
from reckoner.contract.limits import MAX_BOUNDED_STEPS, MAX_CALL_WORK

from . import dimensions as dims
from .arithmetic import require_quantity
from .errors import fail
from .indexing import whole_number
from .lexer import at
from .notation import Notation
from .syntax import (
    Binary,
    Bounded,
    Call,
    Chain,
    Node,
    children,
)
from .values import (
    Element,
    Obj,
    Quantity,
    Value,
    as_list,
    check_array_size,
    element_count,
    make_array,
)
from .work import (
    MAPPED_ELEMENTS_PER_UNIT,
    Compiled,
    Run,
    WorkExceeded,
    operate,
    spend,
    units,
)

AtOnce = Callable[[Run, "Form", int, int], Value | None]
"""A form's body run over all its steps at once; None means "take the steps"."""

# Below this many steps the steps cost less than setting up the arrays of all of them.
AT_ONCE_FROM = 16


@dataclass(frozen=True, slots=True)
class Form:
    """One compiled bounded form: what its loop needs, fixed at compile time."""

    notation: Notation
    pos: int
    lower: Compiled
    upper: Compiled
    index: int  # the bound variable's position in the frame
    body: Compiled
    at_once: AtOnce | None  # None: the body always takes the steps
    cost: int  # work units of one step

    @property
    def name(self) -> str:
        return self.notation.name


def bounds_of(
    run: Run, notation: Notation, pos: int, lower: Compiled, upper: Compiled
) -> tuple[int, int]:
    """A form's first and last step, refused when they are reversed or, times the steps of
    the forms enclosing it, over MAX_BOUNDED_STEPS."""
    name = notation.name
    start = whole_number(lower(run), f"lower bound of {name}", pos)
    stop = whole_number(upper(run), f"upper bound of {name}", pos)
    if start > stop:
        raise fail(
            ErrorCode.INVALID_INDEX,
            f"{name} at {at(pos)} runs from {start} to {stop}, but the lower bound must not "
            f"be above the upper one; swap the bounds",
        )
    count = stop - start + 1
    enclosing = run.steps
    if count * enclosing > MAX_BOUNDED_STEPS:
        nested = "" if enclosing == 1 else f" times {enclosing} enclosing steps"
        raise fail(
            ErrorCode.INVALID_INDEX,
            f"{name} at {at(pos)} would run {count} steps{nested}, over the limit of "
            f"{MAX_BOUNDED_STEPS} (MAX_BOUNDED_STEPS); narrow the range or split it into "
            f"several eval steps",
        )
    return start, stop


def loop(form: Form) -> Compiled:
    """The closure that runs a bounded form: bounds, limits, then all at once or steps."""
    name = form.name

    def run_loop(run: Run) -> Value:
        start, stop = bounds_of(run, form.notation, form.pos, form.lower, form.upper)
        count = stop - start + 1
        enclosing = run.steps
        run.steps = count * enclosing
        try:
            if form.at_once is not None and count >= AT_ONCE_FROM:
                result = form.at_once(run, form, start, stop)
                if result is not None:
                    return result
            _spend_steps(run, form, count, enclosing)
            if name == "$seq":
                return _collect(run, form, start, stop)
            return _fold(run, form, start, stop)
        finally:
            run.steps = enclosing

    return run_loop


def step_cost(body: Node) -> int:
    """Work units one step of a body costs: the step, and each node of the body (a power or
    a function counts two), a nested bounded form's own body excluded (that form charges
    its steps itself, each time it runs)."""
    total = 1
    pending: list[Node] = [body]
    while pending:
        node = pending.pop()
        total += 2 if isinstance(node, Binary | Call) else 1
        if isinstance(node, Chain):
            total += len(node.rest) - 1
        if isinstance(node, Bounded):
            pending.extend(bound for bound in (node.lower, node.upper) if bound is not None)
        else:
            pending.extend(children(node))
    return total


def _spend_steps(run: Run, form: Form, count: int, enclosing: int) -> None:
    """Charge a stepped body's work before its first step; refused up front when this run,
    or the runs the enclosing steps will repeat, would pass MAX_CALL_WORK."""
    cost = form.cost
    foreseen = run.work + count * enclosing * cost
    if foreseen > MAX_CALL_WORK:
        nested = "" if enclosing == 1 else f" times {enclosing} enclosing steps"
        raise WorkExceeded(
            ErrorCode.INVALID_INDEX,
            f"{form.name} at {at(form.pos)} would run {count} steps{nested} of a body "
            f"costing {cost} work units each, bringing this evaluation's work to {foreseen} "
            f"units, over the limit of {MAX_CALL_WORK} (MAX_CALL_WORK); narrow the range, "
            f"simplify the body, or split the work into several eval steps",
        )
    run.work += count * cost


def _fold(run: Run, form: Form, start: int, stop: int) -> Value:
    frame, index, body, pos = run.frame, form.index, form.body, form.pos
    name = form.name
    symbol = "+" if name == "$sum" else "*"
    acc: Value | None = None
    for k in range(start, stop + 1):
        frame[index] = Quantity(float(k), ZERO)
        term = require_quantity(body(run), f"the body of {name}", pos)
        # The array work of each step is charged by operate, as for any operator.
        acc = term if acc is None else operate(run, symbol, acc, term, pos)
    frame[index] = None
    assert type(acc) is Quantity
    return acc


def _collect(run: Run, form: Form, start: int, stop: int) -> Value:
    frame, index, body, pos = run.frame, form.index, form.body, form.pos
    items: list[Element] = []
    vector: Vector | None = None
    total = 0
    for k in range(start, stop + 1):
        frame[index] = Quantity(float(k), ZERO)
        value = body(run)
        if isinstance(value, Obj):
            raise fail(
                ErrorCode.UNSUPPORTED_OPERATION,
                f"$seq at {at(pos)} produced an object as element {len(items)}; an object can "
                f"never be an element of an array, so collect one of its fields instead",
            )
        if vector is None:
            vector = value.vector
        elif value.vector != vector:
            raise fail(
                ErrorCode.INCOMPATIBLE_DIMENSION,
                f"$seq at {at(pos)} collected element {len(items)} in "
                f"{dims.spell(value.vector)} after elements in {dims.spell(vector)}; every "
                f"element of an array shares one vector",
            )
        payload = value.payload
        if isinstance(payload, np.ndarray | list):
            elements = element_count(payload)
            total += elements
            check_array_size(total)
            # A float64 array is copied out in C; a list array is walked in Python.
            per_unit = MAPPED_ELEMENTS_PER_UNIT if isinstance(payload, np.ndarray) else 1
            spend(run, units(elements, per_unit), "$seq", pos)
            items.append(as_list(payload))
        else:
            total += 1
            items.append(payload)
        check_array_size(total)
    frame[index] = None
    return Quantity(make_array(items), vector if vector is not None else ZERO)
