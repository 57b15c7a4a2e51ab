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
- A nested form whose bounds do not depend on the steps adds an axis: the arrays of a nest
  of n forms have n axes, and the inner form folds its last one (reckoner.core.lane_folds
  folds and collects them, and runs the pass).
- A failure (a zero divisor, an index outside the array) marks the steps it occurs at; the
  pass goes on, and afterwards only the earliest marked step is run the ordinary way, which
  raises exactly the sentence the steps raise. A body whose values the lanes cannot hold
  (an array or an object per step, a vector that changes with the step) takes the steps.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from itertools import repeat
from typing import Any, NoReturn

import numpy as np

from reckoner.contract.dimensions import ZERO, Vector
from reckoner.contract.limits import MAX_CALL_WORK

from .arithmetic import binary
from .errors import EngineError
from .functions import apply_binary, apply_unary, maps_real_array, scalar_unary
from .lexer import at
from .libm_loops import libm_loop
from .notation import Notation
from .values import Quantity, Value
from .work import (
    MAPPED_ELEMENTS_PER_UNIT,
    NUMPY_ELEMENTS_PER_UNIT,
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


class FailsAtFirstStep(Exception):
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
        raise FailsAtFirstStep

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
            raise FailsAtFirstStep

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


def payload_of(item: Item) -> Array | float | complex:
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

    __slots__ = ("_last", "_numpy_op", "pos", "symbol", "what")

    def __init__(self, symbol: str, pos: int) -> None:
        self.symbol, self.pos, self.what = symbol, pos, f"'{symbol}'"
        self._numpy_op = _NUMPY_OPS.get(symbol)  # None for '^'
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
        numpy_op = self._numpy_op
        if numpy_op is not None:
            done = self._real(p, a, b, numpy_op)
            if done is not None:
                return done
        return self._general(p, a, b)

    def _real(
        self, p: Pass, a: Item, b: Item, numpy_op: Callable[[Any, Any], Array]
    ) -> Lanes | None:
        """+ - * / of real lanes and real shared scalars of one shape, as _general runs
        them, without its representatives: the vector is the one _general found last for
        the same operands. None for any other case, which _general decides."""
        if type(a) is Lanes:
            x: Any = a.values
            if x.dtype.kind != "f":
                return None
        elif type(a) is Quantity and type(a.payload) is float:
            x = a.payload
        else:
            return None
        if type(b) is Lanes:
            y: Any = b.values
            if y.dtype.kind != "f":
                return None
            divisor: object = 1.0  # the representative of lanes, as _vector keys it
        elif type(b) is Quantity and type(b.payload) is float:
            y = divisor = b.payload
        else:
            return None
        last = self._last
        key = divisor if self.symbol == "/" else None
        if not (last[0] is a.vector and last[1] is b.vector and last[2] == key):
            return None
        if type(x) is float:
            size = y.size
        elif type(y) is float or x.shape == y.shape:
            size = x.size
        else:
            return None  # lanes of different axes: broadcast by _general
        if type(y) is not float and self.symbol == "/":
            p.mark(y == 0)
        run, cost = p.run, units(size, NUMPY_ELEMENTS_PER_UNIT)
        if run.work + cost <= MAX_CALL_WORK:
            run.work += cost
        else:
            p.spend(size, NUMPY_ELEMENTS_PER_UNIT, self.what, self.pos)  # refused
        return Lanes(numpy_op(x, y), last[3])

    def _general(self, p: Pass, a: Item, b: Item) -> Item:
        symbol, pos = self.symbol, self.pos
        x, y = payload_of(a), payload_of(b)
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
    if isinstance(y, np.ndarray):
        if type(x) is float:
            # One base for every step (`@r^k`): which refusal can happen is decided once.
            if x == 0:
                p.mark(y < 0)
            elif x < 0:
                p.mark(~_whole(y))
            return
        base = np.asarray(x)
        p.mark((base == 0) & (y < 0) | (base < 0) & ~_whole(y))
        return
    base = np.asarray(x)
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


class Function:
    """One one-argument function of a body, run at every step of lanes."""

    __slots__ = ("_libm", "_libm_vector", "notation", "pos")

    def __init__(self, notation: Notation, pos: int) -> None:
        self.notation, self.pos = notation, pos
        self._libm: Callable[[Array], Array] | bool | None = False  # False: not looked up yet
        # The (argument vector, result vector) the C loop's path last found: the scalar
        # rule on an empty array, which decides by the vector alone.
        self._libm_vector: tuple[Vector, Vector] | None = None

    def __call__(self, p: Pass, arg: Item) -> Item:
        assert isinstance(arg, Lanes)
        notation, pos, values = self.notation, self.pos, arg.values
        real = values.dtype.kind == "f"
        libm = self._libm
        if libm is False:
            libm = self._libm = libm_loop(notation.name)
        if real and callable(libm) and _all_finite(values):  # the C function takes them
            p.spend(values.size, MAPPED_ELEMENTS_PER_UNIT, notation.name, pos)
            known = self._libm_vector
            if known is not None and known[0] == arg.vector:
                return Lanes(libm(values), known[1])
            try:  # the vector, and any refusal of the argument's, from the scalar rule
                none = apply_unary(notation, Quantity(values.ravel()[:0], arg.vector), pos)
            except EngineError:
                p.fail_at_first_step()
            self._libm_vector = (arg.vector, none.vector)
            return Lanes(libm(values), none.vector)
        if real and maps_real_array(notation, values):
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


def _all_finite(values: Array) -> bool:
    """True when every element is finite: their sum is (NaN and inf carry through every
    sum), or else, the sum having overflowed, each element is. Run within the pass, whose
    numpy warnings (an overflowing sum) are off."""
    return math.isfinite(np.add.reduce(values, axis=None)) or bool(np.isfinite(values).all())


def pair_function(p: Pass, notation: Notation, a: Item, b: Item, pos: int) -> Item:
    """A two-argument function at every step, one argument at least being lanes."""
    x, y = payload_of(a), payload_of(b)
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
