"""The folds of a bounded body run over every step at once, and the pass that runs it.

One decision lives here: how the lanes of a body (reckoner.core.lanes) become the form's
value, exactly as the steps fold or collect them (docs/decisions/bounded-forms.md):

- Folds run in order: float64 and complex128 sums through ``np.subtract.reduce`` of the
  terms after the first negated, and real products through ``np.multiply.reduce``, each a
  sequential left fold (tested against ``functools.reduce``); complex products through
  ``functools.reduce`` itself.
- A nested form folds the last axis of its body's lanes; the outer form folds or collects
  the one left. A pass that found a failing step, or a body the lanes cannot hold, answers
  None: the earliest failing step is run the ordinary way, or the form takes its steps.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from reckoner.contract.dimensions import ZERO, Vector

from . import dimensions as dims
from .bounded import AtOnce, Form, bounds_of
from .errors import EngineError
from .lanes import (
    Array,
    FailsAtFirstStep,
    Item,
    LaneFn,
    Lanes,
    Pass,
    TakeSteps,
    payload_of,
)
from .notation import Notation
from .syntax import Bounded
from .values import Quantity, Value, check_array_size
from .work import MAPPED_ELEMENTS_PER_UNIT, NUMPY_ELEMENTS_PER_UNIT, Compiled, Run


def _full(value: Item, count: int, depth: int) -> tuple[Array, Vector]:
    """A body's values over the last axis of its level, `count` steps long."""
    if isinstance(value, Lanes):
        values = value.values
        if values.shape[-1] != count:  # the same at every step of this level
            values = np.broadcast_to(values, (*values.shape[:-1], count))
        return values, value.vector
    x = payload_of(value)
    assert isinstance(value, Quantity)
    return np.full((1,) * (depth - 1) + (count,), x), value.vector


def _left_sum(values: Array) -> Array:
    """The sum over the last axis, ((t0 + t1) + t2) + ..., as the steps add: numpy's
    add.reduce adds pairwise, but its subtract.reduce runs its loop in order, and x - (-y)
    is x + y exactly (IEEE defines subtraction so), so the first term less every later
    one negated is the left fold, at a third to a quarter of the cost of add.accumulate."""
    first = values[..., 0].copy()
    # An array an operator of this pass made is its own and may be overwritten; a view (of
    # the steps, of a slot) is not.
    own = values.flags.owndata and values.flags.writeable
    terms = np.negative(values, out=values if own else None)
    terms[..., 0] = first
    folded: Array = np.subtract.reduce(terms, axis=-1)
    return folded


def fold(p: Pass, notation: Notation, value: Item, pos: int) -> Item:
    """$sum or $prod of a body's values over the last axis (the innermost level's steps),
    left to right as the steps."""
    depth = len(p.steps)
    count = p.steps[-1][0].size
    values, vector = _full(value, count, depth)
    size = values.size
    if notation.name == "$sum":
        p.spend(size, NUMPY_ELEMENTS_PER_UNIT, notation.name, pos)
        folded = _left_sum(values)
    else:
        vector = dims.power(vector, float(count))
        if values.dtype.kind == "f":
            p.spend(size, NUMPY_ELEMENTS_PER_UNIT, notation.name, pos)
            # multiply.reduce runs its loop in order, one product after another.
            folded = np.multiply.reduce(values, axis=-1)
        else:  # Python's complex product, one step after another
            p.spend(size, MAPPED_ELEMENTS_PER_UNIT, notation.name, pos)
            rows = values.reshape(-1, count).tolist()
            products = [functools.reduce(operator.mul, row) for row in rows]
            folded = np.array(products, dtype=np.complex128).reshape(values.shape[:-1])
    if depth > 1:
        return Lanes(folded, vector)
    return Quantity(folded.item(), vector)


def collect(p: Pass, value: Item, count: int, pos: int) -> Value:
    """$seq of the outer form: the body's value at every step, as the steps collect it."""
    values, vector = _full(value, count, 1)
    check_array_size(count)
    p.spend(count, NUMPY_ELEMENTS_PER_UNIT, "$seq", pos)
    if values.dtype.kind == "f":
        # A fresh array of this pass (never a slot's own), made contiguous where broadcast.
        return Quantity(np.ascontiguousarray(values), vector)
    return Quantity(values.tolist(), vector)


def inner_form(node: Bounded, lower: Compiled, upper: Compiled, body: LaneFn) -> LaneFn:
    """A form nested in the nest: bounds shared by every step, the body one axis deeper."""
    notation, pos = node.notation, node.pos

    def run_inner(p: Pass) -> Item:
        run = p.run
        try:
            start, stop = bounds_of(run, notation, pos, lower, upper)
        except EngineError:
            p.fail_at_first_step()
        count = stop - start + 1
        enclosing = run.steps
        run.steps = count * enclosing
        try:
            p.enter(notation.name, pos, start, stop)
            value = body(p)
            result = fold(p, notation, value, pos)
            p.leave()
            return result
        finally:
            run.steps = enclosing

    return run_inner


def _pass(p: Pass, body: LaneFn, form: Form, start: int, stop: int) -> Value | None:
    """Run the outer form's body over all its steps: its value, or None once a step fails."""
    count = stop - start + 1
    # numpy's warnings are off for the pass: every failure it could warn of is marked.
    with np.errstate(all="ignore"):
        try:
            p.enter(form.name, form.pos, start, stop)
            value = body(p)
            if p.first_bad is not None:
                return None
            if form.name == "$seq":
                return collect(p, value, count, form.pos)
            result = fold(p, form.notation, value, form.pos)
        except FailsAtFirstStep:
            return None
    assert isinstance(result, Quantity)
    return result


def at_once(body: LaneFn) -> AtOnce:
    """The outer form's pass over all its steps; None from it means "take the steps"."""

    def run_at_once(run: Run, form: Form, start: int, stop: int) -> Value | None:
        work, reads = run.work, dict(run.reads)
        p = Pass(run)
        try:
            value = _pass(p, body, form, start, stop)
        except TakeSteps:
            run.work, run.reads = work, reads
            return None
        if value is not None:
            return value
        assert p.first_bad is not None
        # Only the earliest failing step runs the ordinary way, with the budget as it was
        # before the pass: it raises what the steps raise there.
        run.work = work
        run.frame[form.index] = Quantity(float(start + p.first_bad), ZERO)
        try:
            form.body(run)
        finally:
            run.frame[form.index] = None
        # Not reached while the lanes mark only steps that fail; if one did not, the
        # steps still give the exact answer.
        run.work, run.reads = work, reads
        return None

    return run_at_once
