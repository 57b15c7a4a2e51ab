"""A bounded body run over every step at once, bit for bit what the steps give.

One decision lives here: how a $sum, $prod or $seq body is computed for all values of its
bound variable in one pass over numpy arrays ("lanes": one element per step), so that each
element is exactly the double the step computes, and a failure is the one the first
failing step raises. The rules (docs/decisions/bounded-forms.md):

- Real + - * / and negation run as numpy whole-array operations, which round exactly as
  Python's float operators; a real power runs through numpy's float_power, which calls the
  C library's pow as Python's float power does; a function of reals maps the same C math
  function the scalar rule calls ($sin and $cos in numpy's loop, where that loop is the C
  library's: reckoner.core.libm_loops). Anything complex, every other function and every
  two-argument function map the engine's own scalar rule over the elements, so they are
  the same code as the steps.
- Folds run in order: float64 and complex128 sums through ``np.subtract.reduce`` of the
  terms after the first negated, and real products through ``np.multiply.reduce``, each a
  sequential left fold (tested against ``functools.reduce``); complex products through
  ``functools.reduce`` itself.
- A nested form whose bounds do not depend on the steps adds an axis: the arrays of a nest
  of n forms have n axes, and the inner form folds its last one.
- A failure (a zero divisor, an index outside the array) marks the steps it occurs at; the
  pass goes on, and afterwards only the earliest marked step is run the ordinary way, which
  raises exactly the sentence the steps raise. A body whose values the lanes cannot hold
  (an array or an object per step, a vector that changes with the step) takes the steps.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from itertools import repeat
from typing import Any, NoReturn

import numpy as np

from reckoner.contract.dimensions import ZERO, Vector

from . import dimensions as dims
from .arithmetic import binary
from .bounded import AtOnce, Form, bounds_of
from .errors import EngineError
from .functions import apply_binary, apply_unary, maps_real_array, scalar_unary
from .lexer import at
from .libm_loops import libm_loop
from .notation import Notation
from .syntax import (
    Bounded,
)
from .values import Quantity, Value, check_array_size
from .work import (
    MAPPED_ELEMENTS_PER_UNIT,
    NUMPY_ELEMENTS_PER_UNIT,
    Compiled,
    Run,
    affordable,
    spend,
    units,
)

Array = np.ndarray[Any, Any]

# Steps are float64 values of the bound variable, exact below 2**53.
_EXACT_INTEGER = 2**53


@dataclass(slots=True)
class Lanes:
    """A value at every step of the forms being run at once: a float64 or complex128 array
    with one axis per form of the nest (an axis of length 1 where the value does not
    depend on that form's variable), and the one vector every element shares."""

    values: Array
    vector: Vector
    whole_below: float | None = None  # every value is a whole number of magnitude at most this


Item = Lanes | Value
LaneFn = Callable[["Pass"], Item]


class TakeSteps(Exception):
    """The lanes cannot hold this body's values here: the form takes its steps instead."""


class _FailsAtFirstStep(Exception):
    """A failure at the first step of the outer form: nothing can fail earlier, so stop."""


class Pass:
    """The state of one pass over all steps: the steps of each form and the earliest step
    of the outer form found failing."""

    __slots__ = ("first_bad", "forms", "run", "steps")

    def __init__(self, run: Run) -> None:
        self.run = run
        # Each level's bound variable: its values and their largest magnitude.
        self.steps: list[tuple[Array, float]] = []
        self.forms: list[tuple[str, int, int, int]] = []  # (name, pos, steps, enclosing)
        self.first_bad: int | None = None

    def enter(self, name: str, pos: int, start: int, stop: int) -> None:
        """Open the next level: a form running from `start` to `stop`."""
        if not (start > -_EXACT_INTEGER and stop < _EXACT_INTEGER):
            raise TakeSteps  # past 2**53 a float64 step would not be the whole number
        count = stop - start + 1
        self.spend(count, NUMPY_ELEMENTS_PER_UNIT, name, pos)
        self.forms.append((name, pos, count, self.run.steps // count))
        values = np.arange(start, stop + 1, dtype=np.float64)
        self.steps.append((values, float(max(abs(start), abs(stop)))))

    def leave(self) -> None:
        self.steps.pop()
        self.forms.pop()

    def variable(self, level: int, depth: int) -> Lanes:
        """The bound variable of the form at `level` (1 the outer), seen at `depth`."""
        values, largest = self.steps[level - 1]
        shape = [1] * depth
        shape[level - 1] = values.size
        return Lanes(values.reshape(shape), ZERO, largest)

    def fail_at_first_step(self) -> NoReturn:
        self.first_bad = 0
        raise _FailsAtFirstStep

    def mark(self, bad: Array) -> None:
        """Note the steps a boolean mask (one axis per level, as the lanes) marks failing."""
        if not bad.any():
            return
        if bad.ndim == 0 or bad.shape[0] == 1:
            self.fail_at_first_step()
        rows = bad.reshape(bad.shape[0], -1).any(axis=1)
        step = int(np.argmax(rows))
        if self.first_bad is None or step < self.first_bad:
            self.first_bad = step
        if step == 0:
            raise _FailsAtFirstStep

    def spend(self, elements: int, per_unit: int, what: str, pos: int) -> None:
        run, cost = self.run, units(elements, per_unit)
        if affordable(run, cost):  # the usual case: no sentence to build
            run.work += cost
            return
        during = ""
        if self.forms:
            name, at_pos, count, enclosing = self.forms[-1]
            nested = "" if enclosing == 1 else f" times {enclosing} enclosing steps"
            during = f", run over the {count} steps of {name} at {at(at_pos)}{nested},"
        spend(run, cost, what, pos, during)


def _payload(item: Item) -> Array | float | complex:
    """The numbers of an operand: the lanes' array, or a scalar shared by every step."""
    if isinstance(item, Lanes):
        return item.values
    if type(item) is Quantity:
        payload = item.payload
        if isinstance(payload, float | complex):
            return payload
        raise TakeSteps  # an array at every step: the lanes hold scalars only
    raise TakeSteps  # an object: the steps word its refusal


def _representative(item: Item) -> Quantity:
    """A scalar standing for an operand in the vector rules: the shared value itself, or 1
    of the lanes' kind (a complex exponent has rules of its own)."""
    if isinstance(item, Lanes):
        one: float | complex = complex(1.0, 0.0) if item.values.dtype.kind == "c" else 1.0
        return Quantity(one, item.vector)
    assert type(item) is Quantity
    return item


def _is_real(values: Array | float | complex) -> bool:
    if isinstance(values, np.ndarray):
        return bool(values.dtype.kind == "f")
    return type(values) is float


def _flat(x: Array | float | complex, shape: tuple[int, ...]) -> Any:
    """The elements of an operand as Python scalars, in step order over `shape`."""
    if isinstance(x, np.ndarray):
        return np.broadcast_to(x, shape).ravel().tolist()
    return repeat(x, math.prod(shape))


def _whole(x: Array) -> Array:
    finite = np.isfinite(x)
    whole: Array = finite & (np.floor(np.where(finite, x, 0.0)) == x)
    return whole


_NUMPY_OPS: dict[str, Callable[[Any, Any], Array]] = {
    "+": np.add,
    "-": np.subtract,
    "*": np.multiply,
    "/": np.divide,
}
_PYTHON_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
}


def _shape(x: Array | float | complex, y: Array | float | complex) -> tuple[int, ...]:
    """The shape two operands pair to (at least one is an array)."""
    if not isinstance(y, np.ndarray):
        assert isinstance(x, np.ndarray)
        return tuple(x.shape)
    if not isinstance(x, np.ndarray) or x.shape == y.shape:
        return tuple(y.shape)
    return tuple(np.broadcast_shapes(x.shape, y.shape))


class Operator:
    """One operator of a body, run at every step; one operand at least is lanes."""

    __slots__ = ("_last", "pos", "symbol", "what")

    def __init__(self, symbol: str, pos: int) -> None:
        self.symbol, self.pos, self.what = symbol, pos, f"'{symbol}'"
        # The last (left vector, right vector, exponent, result vector), checked by
        # identity: a slot's vector is the same object pass after pass.
        self._last: tuple[object, object, object, Vector] = (None, None, None, ZERO)

    def _vector(self, p: Pass, a: Quantity, b: Quantity) -> Vector:
        """The result's vector, by the scalar rule on one operand of each side's kind: its
        refusal (a dimension mismatch) is the same at every step."""
        # A shared exponent or divisor decides too (`@L^@p`, a shared zero divisor).
        exponent = b.payload if self.symbol in "^/" else None
        last = self._last
        if last[0] is a.vector and last[1] is b.vector and last[2] == exponent:
            return last[3]
        try:
            vector = binary(self.symbol, a, b, self.pos).vector
        except EngineError:
            p.fail_at_first_step()
        self._last = (a.vector, b.vector, exponent, vector)
        return vector

    def __call__(self, p: Pass, a: Item, b: Item) -> Item:
        symbol, pos = self.symbol, self.pos
        x, y = _payload(a), _payload(b)
        left, right = _representative(a), _representative(b)
        if symbol == "^" and isinstance(b, Lanes) and left.vector != ZERO:
            raise TakeSteps  # the result's vector would change with the step
        vector = self._vector(p, left, right)
        shape = _shape(x, y)
        size = math.prod(shape)
        real = _is_real(x) and _is_real(y)
        if symbol == "^":
            if not real:
                return _each(p, shape, _power_rule(symbol, a, b, pos), x, y, pos)
            exact = _whole_power(a, y)
            if exact is not None:
                p.spend(size, NUMPY_ELEMENTS_PER_UNIT, self.what, pos)
                return Lanes(exact, vector)
            p.spend(size, MAPPED_ELEMENTS_PER_UNIT, self.what, pos)
            _mark_powers_refused(p, x, y)
            return Lanes(np.float_power(x, y), vector)
        if symbol == "/" and isinstance(y, np.ndarray):
            p.mark(y == 0)  # a shared zero divisor is refused by the vector rule
        if real:
            p.spend(size, NUMPY_ELEMENTS_PER_UNIT, self.what, pos)
            return Lanes(_NUMPY_OPS[symbol](x, y), vector)
        # Complex: Python's own complex operators, mapped in C (numpy's complex products and
        # quotients round differently). A zero divisor, already marked, divides 1 instead.
        p.spend(size, MAPPED_ELEMENTS_PER_UNIT, self.what, pos)
        if symbol == "/" and isinstance(y, np.ndarray):
            y = np.where(y == 0, 1.0, y)
        mapped = map(_PYTHON_OPS[symbol], _flat(x, shape), _flat(y, shape))
        return Lanes(np.fromiter(mapped, np.complex128, size).reshape(shape), vector)


def _whole_power(base: Item, y: Array | float | complex) -> Array | None:
    """`x^y` by repeated multiplication when every base is a whole number and the power a
    small whole one with every result below 2**53 (`k^2` of a bound variable): each product
    is then exact, and so is pow's answer (an error under one unit in the last place leaves
    no other double), so the two are the same double, at a tenth of pow's cost. Else None."""
    if not isinstance(base, Lanes) or base.whole_below is None or type(y) is not float:
        return None
    if not (1.0 <= y <= 8.0 and y.is_integer()):
        return None
    if int(base.whole_below) ** int(y) >= _EXACT_INTEGER:
        return None
    x = base.values
    product = x
    for _ in range(int(y) - 1):
        product = product * x
    return product


def _mark_powers_refused(p: Pass, x: Array | float | complex, y: Array | float | complex) -> None:
    """Mark the steps whose real power the scalar rule refuses: zero to a negative power,
    a negative base to a fractional one. An exponent shared by every step (`@a[k]^2`)
    decides which of the two can happen, so a whole positive one scans nothing."""
    base = np.asarray(x)
    if isinstance(y, np.ndarray):
        p.mark((base == 0) & (y < 0) | (base < 0) & ~_whole(y))
        return
    assert type(y) is float  # both operands are real here
    if y < 0:
        p.mark(base == 0)
    if not (math.isfinite(y) and y.is_integer()):
        p.mark(base < 0)


def _power_rule(symbol: str, a: Item, b: Item, pos: int) -> Callable[..., Quantity]:
    va, vb = _representative(a).vector, _representative(b).vector

    def each(x: float | complex, y: float | complex) -> Quantity:
        return binary(symbol, Quantity(x, va), Quantity(y, vb), pos)

    return each


def _each(p: Pass, shape: tuple[int, ...], rule: Callable[..., Any], *args: Any) -> Item:
    """Map one of the engine's scalar rules over the elements (in Python, a unit each); the
    first element it refuses marks its step, and the elements after it are not needed."""
    *operands, pos = args
    size = math.prod(shape)
    p.spend(size, 1, "a bounded body", pos)
    out: list[Any] = []
    vector_of: list[Vector] = []
    for i, values in enumerate(zip(*(_flat(x, shape) for x in operands), strict=True)):
        try:
            result = rule(*values)
        except EngineError:
            bad = np.zeros(size, dtype=bool)
            bad[i] = True
            out.extend(repeat(math.nan, size - i))
            p.mark(bad.reshape(shape))
            break
        if isinstance(result, Quantity):
            vector_of.append(result.vector)
            result = result.payload
        out.append(result)
    kinds = {type(v) for v in out if v is not math.nan}
    if kinds - {float, complex} or len(kinds) > 1:
        raise TakeSteps  # arrays, or reals at some steps and complexes at others
    dtype = np.complex128 if complex in kinds else np.float64
    return Lanes(np.array(out, dtype=dtype).reshape(shape), vector_of[0] if vector_of else ZERO)


class _CarefulMap(Exception):
    """The C math function refused an element: map the worded scalar rule instead."""


def _refused_by_c(count: int) -> None:
    raise _CarefulMap


def function(p: Pass, notation: Notation, arg: Item, pos: int) -> Item:
    """A one-argument function at every step of lanes `arg`."""
    assert isinstance(arg, Lanes)
    values = arg.values
    libm = libm_loop(notation.name) if values.dtype.kind == "f" else None
    if libm is not None and np.isfinite(values).all():  # the C function takes every finite
        p.spend(values.size, MAPPED_ELEMENTS_PER_UNIT, notation.name, pos)
        try:  # the vector, and any refusal of the argument's, from the scalar rule
            none = apply_unary(notation, Quantity(values.ravel()[:0], arg.vector), pos)
        except EngineError:
            p.fail_at_first_step()
        return Lanes(libm(values), none.vector)
    if values.dtype.kind == "f" and maps_real_array(notation, values):
        p.spend(values.size, MAPPED_ELEMENTS_PER_UNIT, notation.name, pos)
        try:
            mapped = apply_unary(notation, Quantity(values, arg.vector), pos, _refused_by_c)
        except _CarefulMap:
            pass
        except EngineError:
            p.fail_at_first_step()
        else:
            assert isinstance(mapped.payload, np.ndarray)
            return Lanes(mapped.payload, mapped.vector)
    on_scalar = scalar_unary(notation, pos)
    vector = arg.vector

    def each(x: float | complex) -> Quantity:
        return on_scalar(Quantity(x, vector))

    return _each(p, values.shape, each, values, pos)


def pair_function(p: Pass, notation: Notation, a: Item, b: Item, pos: int) -> Item:
    """A two-argument function at every step, one argument at least being lanes."""
    x, y = _payload(a), _payload(b)
    va, vb = _representative(a).vector, _representative(b).vector

    def each(left: float | complex, right: float | complex) -> Quantity:
        return apply_binary(notation, Quantity(left, va), Quantity(right, vb), pos)

    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    return _each(p, shape, each, x, y, pos)


def gather(p: Pass, container: Item, index: Item, pos: int) -> Item:
    """`container[index]` at every step: the container shared, the index in lanes."""
    assert isinstance(index, Lanes)
    if type(container) is not Quantity or index.vector != ZERO:
        p.fail_at_first_step()
    assert type(container) is Quantity
    payload = container.payload
    if isinstance(payload, np.ndarray):
        if payload.ndim != 1:
            raise TakeSteps  # each step reads a row: an array per step
        elements = payload
    elif type(payload) is list and payload and all(type(e) is complex for e in payload):
        elements = np.array(payload, dtype=np.complex128)
    elif type(payload) is list and not payload:
        p.fail_at_first_step()  # an empty array has no element to read
    else:
        raise TakeSteps  # rows, or reals beside complexes: the steps keep each kind
    p.spend(index.values.size, NUMPY_ELEMENTS_PER_UNIT, "'[ ]'", pos)
    i = index.values
    # Whole numbers already (the bound variable): only the ends can fall outside.
    whole = index.whole_below is not None and i.size and i.dtype.kind == "f"
    if whole and i.min() >= 0 and i.max() < elements.size:
        return Lanes(elements[i.astype(np.intp)], container.vector)
    if i.dtype.kind == "c":
        real_part = i.real
        usable = (i.imag == 0) & _whole(real_part)
        i = real_part
    else:
        usable = _whole(i)
    usable &= (i >= 0) & (i < elements.size)
    p.mark(~usable)
    positions = np.where(usable, i, 0.0).astype(np.intp)
    return Lanes(elements[positions], container.vector)


def negate(p: Pass, operand: Item, pos: int) -> Item:
    assert isinstance(operand, Lanes)
    p.spend(operand.values.size, NUMPY_ELEMENTS_PER_UNIT, "'-'", pos)
    return Lanes(np.negative(operand.values), operand.vector)


def _full(value: Item, count: int, depth: int) -> tuple[Array, Vector]:
    """A body's values over the last axis of its level, `count` steps long."""
    if isinstance(value, Lanes):
        values = value.values
        if values.shape[-1] != count:  # the same at every step of this level
            values = np.broadcast_to(values, (*values.shape[:-1], count))
        return values, value.vector
    x = _payload(value)
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
        except _FailsAtFirstStep:
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
