"""The compiler: an expression tree turned once into Python closures, then run.

Compilation resolves every bound name to a frame position, so a formula evaluated many
times (a repeated eval, a $sum body) pays for tree walking only once. Evaluation runs left
to right, depth first, and the first failure raised is the one reported.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ZERO, Vector

from . import dimensions as dims
from . import indexing
from .arithmetic import binary, negate, require_quantity
from .bounded import Form, loop, step_cost
from .errors import EngineError, fail
from .functions import apply_binary, apply_unary, maps_real_array, scalar_unary
from .lane_compiler import LaneCompiler
from .lexer import at
from .notation import DimRule, Notation, dollar_form
from .syntax import (
    Binary,
    Bounded,
    BoundName,
    Call,
    Chain,
    Constant,
    Field,
    Index,
    Node,
    Number,
    SlotRef,
    Unary,
)
from .values import Obj, Quantity, Value, element_count, show
from .work import (
    MAPPED_ELEMENTS_PER_UNIT,
    NUMPY_ELEMENTS_PER_UNIT,
    Compiled,
    Run,
    operate,
    pair_elements,
    row_units,
    spend,
    units,
)

_CONSTANTS: dict[str, float | complex] = {
    "$pi": math.pi,
    "$e": math.e,
    "$inf": math.inf,
    "$i": 1j,
    "$j": 1j,
}


@dataclass(slots=True)
class Program:
    """A compiled formula: call `run(slots)` for the value and the slots read.

    `names` are the formula's slot names in text order, one per reference: the body reads
    each reference's name from them, so texts that differ only in their slot names share one
    body. `marked` is the text whose token positions fill the position markers of a program
    compiled for a token shape (reckoner.core.shapes); None when its positions are real.
    """

    body: Compiled
    frame_size: int
    names: tuple[str, ...]
    marked: str | None = None

    def run(self, slots: Mapping[str, Value]) -> tuple[Value, dict[str, Value]]:
        frame: list[Quantity | None] = [None] * self.frame_size if self.frame_size else NO_FRAME
        state = Run(slots, frame, self.names)
        value = self.body(state)
        return value, state.reads


# The frame of a formula that binds no variable: never written, so one list serves all.
NO_FRAME: list[Quantity | None] = []


def compile_tree(tree: Node) -> Program:
    compiler = _Compiler()
    body = compiler.compile(tree, {})
    names = compiler.slot_names
    # A reference inside a form that is written but never evaluated ($integral) is not
    # compiled and has no reader: its place holds no name, and the later ones keep theirs.
    count = max(names) + 1 if names else 0
    return Program(body, compiler.frame_size, tuple(names.get(i, "") for i in range(count)))


_FOLDABLE = frozenset({Chain, Binary, Unary, Call, Index, Field})
# What makes a subtree vary from call to call: it reads a slot or a bound name, or runs a
# bounded form (whose steps count against the forms enclosing it at run time). Literals and
# constants never do.
_VARYING = frozenset({SlotRef, BoundName, Bounded})


class _Compiler:
    def __init__(self) -> None:
        self.frame_size = 0
        # How many varying nodes have been compiled so far: a subtree compiled while the
        # count stayed put is made of literals and constants alone, decided without a walk.
        self._varying = 0
        # Every slot reference of the formula (its index and position), shared by the slot
        # readers: the first one found missing names all the missing ones at once.
        self._slot_refs: list[tuple[int, int]] = []
        self.slot_names: dict[int, str] = {}  # each reference's name, by its index
        # Once a bounded form is met: every node's closure by id, from which the lanes
        # version of a bounded body takes the parts that are the same at every step.
        self._closures: dict[int, Compiled] | None = None
        self._lanes: LaneCompiler | None = None

    def compile(self, node: Node, scope: dict[str, int]) -> Compiled:
        if isinstance(node, SlotRef):  # the commonest leaf, compiled without a further call
            self._varying += 1
            self._slot_refs.append((node.index, node.pos))
            self.slot_names[node.index] = node.name
            compiled = _slot(node.index, node.pos, self._slot_refs)
        else:
            kind = type(node)
            before = self._varying
            compiled = _COMPILE[kind](self, node, scope)  # one lookup by the node's class
            if kind in _VARYING:
                self._varying += 1
            elif kind in _FOLDABLE and self._varying == before:
                # A subtree of literals and constants has one value: compute it once here,
                # so `2*$pi*@f` or `$sqrt(3)*@V` costs one operation per call.
                compiled = _folded(compiled)
        if self._closures is not None:
            self._closures[id(node)] = compiled
        return compiled

    def _constant_real(self, node: Node) -> float | None:
        """A finite real literal written as the node (such as the 2 of `x^2`), else None."""
        if isinstance(node, Number) and type(node.value) is float and math.isfinite(node.value):
            return node.value
        return None

    def _number(self, node: Number, scope: dict[str, int]) -> Compiled:
        constant = Quantity(node.value, ZERO)
        return lambda run: constant

    def _constant(self, node: Constant, scope: dict[str, int]) -> Compiled:
        value = Quantity(_CONSTANTS[node.notation.name], ZERO)
        return lambda run: value

    def _unary(self, node: Unary, scope: dict[str, int]) -> Compiled:
        operand = self.compile(node.operand, scope)
        pos = node.pos

        def minus(run: Run) -> Value:
            value = require_quantity(operand(run), "the sign '-'", pos)
            payload = value.payload
            if isinstance(payload, np.ndarray):
                spend(run, units(payload.size, NUMPY_ELEMENTS_PER_UNIT), "'-'", pos)
            elif type(payload) is list:
                spend(run, element_count(payload), "'-'", pos)
            return negate(value)

        return minus

    def _bound(self, node: BoundName, scope: dict[str, int]) -> Compiled:
        slot = scope.get(node.name)
        if slot is None:
            name, pos = node.name, node.pos
            meant = dollar_form(name)
            fix = (
                f"the notation is written {meant} (a slot would be @{name})"
                if meant
                else f"to read the slot write @{name}"
            )

            def unbound(run: Run) -> Value:
                raise fail(
                    ErrorCode.NAME_NOT_BOUND,
                    f"the bare name '{name}' at {at(pos)} is not bound by any enclosing "
                    f"$sum, $prod or $seq; {fix}",
                )

            return unbound

        def bound(run: Run) -> Value:
            value = run.frame[slot]
            assert value is not None
            return value

        return bound

    def _binary(self, node: Binary, scope: dict[str, int]) -> Compiled:
        left = self.compile(node.left, scope)
        right = self.compile(node.right, scope)
        op, pos = node.op, node.pos
        exponent = self._constant_real(node.right)
        if exponent is not None:
            # `x^2` with a literal exponent, the commonest power: a positive real base takes
            # the direct route; every other base goes through the full rules.
            power_vector = dims.power
            exponent_value = Quantity(exponent, ZERO)
            # The last (base vector, result vector) pair: a slot's vector is the same object
            # call after call, so an identity check replaces hashing it. One immutable tuple
            # in one cell, so threads sharing this compiled formula never see half an update.
            last: list[tuple[Vector, Vector]] = [(ZERO, ZERO)]

            def apply_power(run: Run) -> Value:
                a = left(run)
                if type(a) is Quantity:
                    x = a.payload
                    if type(x) is float and x > 0.0:
                        try:
                            result = x**exponent
                        except OverflowError:
                            return binary(op, a, exponent_value, pos)
                        vector = a.vector
                        seen = last[0]
                        if seen[0] is not vector:
                            seen = last[0] = (vector, power_vector(vector, exponent))
                        return Quantity(result, seen[1])
                return operate(run, op, a, exponent_value, pos)

            return apply_power

        def apply(run: Run) -> Value:
            a = left(run)
            b = right(run)
            return operate(run, op, a, b, pos)

        return apply

    def _chain(self, node: Chain, scope: dict[str, int]) -> Compiled:
        before = self._varying
        first = self.compile(node.first, scope)
        # A run of constants at the front (the 2*$pi of 2*$pi*@f*@L) is computed once: the
        # same operations in the same order, so the same double, with none left per call.
        constants = 0
        rest: list[tuple[str, Compiled, int]] = []
        for op, operand, pos in node.rest:
            rest.append((op, self.compile(operand, scope), pos))
            if constants == len(rest) - 1 and self._varying == before:
                constants += 1
        if 0 < constants < len(rest):
            first = _folded(_chained(first, rest[:constants]))
            rest = rest[constants:]
        return _chained(first, rest)

    def _call(self, node: Call, scope: dict[str, int]) -> Compiled:
        notation, pos = node.notation, node.pos
        args = [self.compile(arg, scope) for arg in node.args]
        if len(args) == 1:
            only = args[0]

            on_scalar = scalar_unary(notation, pos)

            def one(run: Run) -> Value:
                value = only(run)
                if type(value) is Quantity:
                    payload = value.payload
                    if type(payload) is float or type(payload) is complex:
                        return on_scalar(value)
                return _unary_on_array(run, notation, value, pos)

            return one
        first, second = args

        def pair(run: Run) -> Value:
            a = first(run)
            b = second(run)
            elements = pair_elements(a, b)  # paired element by element in Python
            if elements:
                spend(run, elements, notation.name, pos)
            return apply_binary(notation, a, b, pos)

        return pair

    def _bounded(self, node: Bounded, scope: dict[str, int]) -> Compiled:
        notation, pos = node.notation, node.pos
        if not notation.evaluable:
            written = notation.written
            instead = "evaluate its closed form instead"
            if notation.name == "$integral":
                instead = (
                    "evaluate its closed form instead, or a midpoint $sum over n steps of "
                    "width h=(b-a)/n: $sum_{k=0}^{n-1}(body at x=a+(k+0.5)*h)*h"
                )

            def unsupported(run: Run) -> Value:
                raise fail(
                    ErrorCode.UNSUPPORTED_SYMBOL,
                    f"{notation.name} at {at(pos)} can be written ({written}) but not "
                    f"evaluated; {instead}",
                )

            return unsupported
        assert node.variable is not None and node.lower is not None and node.upper is not None
        lower = self.compile(node.lower, scope)
        upper = self.compile(node.upper, scope)
        index = self.frame_size
        self.frame_size += 1
        if self._closures is None:
            self._closures = {}
            self._lanes = LaneCompiler(self._closures)
        assert self._lanes is not None
        body = self.compile(node.args[0], {**scope, node.variable: index})
        at_once = self._lanes.form(node)
        cost = step_cost(node.args[0])
        return loop(Form(notation, pos, lower, upper, index, body, at_once, cost))

    def _index(self, node: Index, scope: dict[str, int]) -> Compiled:
        target = self.compile(node.target, scope)
        index = self.compile(node.index, scope)
        pos = node.pos

        def element(run: Run) -> Value:
            container = target(run)
            position = index(run)
            return indexing.element(container, position, pos)

        return element

    def _field(self, node: Field, scope: dict[str, int]) -> Compiled:
        target = self.compile(node.target, scope)
        name, pos = node.name, node.pos

        def read_field(run: Run) -> Value:
            container = target(run)
            if not isinstance(container, Obj):
                raise fail(
                    ErrorCode.UNSUPPORTED_INDEX,
                    f"'.{name}' at {at(pos)} reads a field, but the value is {show(container)}, "
                    f"not an object; use '.' on objects only",
                )
            found = container.fields.get(name)
            if found is None:
                fields = ", ".join(container.fields) or "none"
                raise fail(
                    ErrorCode.FIELD_NOT_FOUND,
                    f"the object has no field '{name}' (at {at(pos)}); its fields are {fields}",
                )
            return found

        return read_field


# Each node class's compile method (a SlotRef is taken by compile() itself).
_COMPILE: dict[type, Callable[[_Compiler, Any, dict[str, int]], Compiled]] = {
    Chain: _Compiler._chain,
    Number: _Compiler._number,
    BoundName: _Compiler._bound,
    Constant: _Compiler._constant,
    Binary: _Compiler._binary,
    Unary: _Compiler._unary,
    Call: _Compiler._call,
    Bounded: _Compiler._bounded,
    Index: _Compiler._index,
    Field: _Compiler._field,
}


def _unary_on_array(run: Run, notation: Notation, value: Value, pos: int) -> Value:
    """A one-argument function of an array (or an object, refused inside): charged first."""
    if type(value) is not Quantity:
        return apply_unary(notation, value, pos)
    payload = value.payload
    rule = notation.dim_rule
    elements = element_count(payload)
    if rule is DimRule.COUNT:
        cost = 0
    elif maps_real_array(notation, payload):

        def careful(count: int) -> None:
            spend(run, count, notation.name, pos)

        spend(run, units(elements, MAPPED_ELEMENTS_PER_UNIT), notation.name, pos)
        return apply_unary(notation, value, pos, careful)
    elif rule is DimRule.TRANSPOSE and isinstance(payload, np.ndarray):
        cost = units(elements, NUMPY_ELEMENTS_PER_UNIT)
    else:
        cost = elements
    spend(run, cost, notation.name, pos)
    return apply_unary(notation, value, pos)


def _constant(value: Value) -> Compiled:
    return lambda run: value


def _folded(compiled: Compiled) -> Compiled:
    """A closure of literals and constants alone, run once now and kept as its value; one
    that fails keeps its closure, so the failure is still raised in evaluation order."""
    try:
        return _constant(compiled(Run({}, [])))
    except EngineError:
        return compiled


# The first operators of a chain are built as nested two-operand nodes, so each product
# and quotient of two real scalars takes `_scale`'s direct route; operators past this many
# run in one loop, so a long sum adds no depth to the evaluation. Both apply the operators
# left to right, each after its right operand is evaluated.
_NESTED_OPERATORS = 8


def _chained(first: Compiled, rest: list[tuple[str, Compiled, int]]) -> Compiled:
    """A left-associative run of one precedence level, applied left to right."""
    for op, operand, pos in rest[:_NESTED_OPERATORS]:
        first = _pair(op, first, operand, pos)
    tail = rest[_NESTED_OPERATORS:]
    if not tail:
        return first

    def apply(run: Run) -> Value:
        value = first(run)
        for op, operand, pos in tail:
            value = operate(run, op, value, operand(run), pos)
        return value

    return apply


def _pair(op: str, first: Compiled, second: Compiled, pos: int) -> Compiled:
    """One operator of a chain over the value so far and its right operand."""
    if op == "*" or op == "/":
        return _scale(op, first, second, pos)
    if op == "+" or op == "-":
        return _shift(op, first, second, pos)

    def apply_one(run: Run) -> Value:
        return operate(run, op, first(run), second(run), pos)

    return apply_one


def _shift(op: str, first: Compiled, second: Compiled, pos: int) -> Compiled:
    """`a + b` or `a - b`: two scalars (real or complex) of one vector take the direct
    route (as `binary` computes them: Python's `+ -` never raise), the rest `operate`."""
    adding = op == "+"

    def apply_shifted(run: Run) -> Value:
        a = first(run)
        b = second(run)
        if type(a) is Quantity and type(b) is Quantity:
            x, y = a.payload, b.payload
            if (
                (type(x) is float or type(x) is complex)
                and (type(y) is float or type(y) is complex)
                and a.vector == b.vector
            ):
                return Quantity(x + y if adding else x - y, a.vector)
        return operate(run, op, a, b, pos)

    return apply_shifted


def _scale(op: str, first: Compiled, second: Compiled, pos: int) -> Compiled:
    """`a * b` or `a / b`: two real scalars take the direct route, and a product of two
    scalars one of them complex (Python's `*` never raises, as `binary` computes it); the
    rest `operate`."""
    combine = dims.multiply if op == "*" else dims.divide
    multiplying = op == "*"
    # The last (left vector, right vector, result vector), checked by identity (see power).
    last: list[tuple[Vector, Vector, Vector]] = [(ZERO, ZERO, ZERO)]

    def apply_scaled(run: Run) -> Value:
        a = first(run)
        b = second(run)
        if type(a) is Quantity and type(b) is Quantity:
            x, y = a.payload, b.payload
            if type(x) is float and type(y) is float and (multiplying or y != 0.0):
                va, vb = a.vector, b.vector
                seen = last[0]
                if seen[0] is not va or seen[1] is not vb:
                    seen = last[0] = (va, vb, combine(va, vb))
                return Quantity(x * y if multiplying else x / y, seen[2])
            if (
                multiplying
                and (type(x) is complex or type(x) is float)
                and (type(y) is complex or type(y) is float)
            ):
                return Quantity(x * y, dims.multiply(a.vector, b.vector))
        return operate(run, op, a, b, pos)

    return apply_scaled


def _slot(index: int, pos: int, refs: list[tuple[int, int]]) -> Compiled:
    def read(run: Run) -> Value:
        name = run.names[index]
        value = run.slots.get(name)
        if value is None:
            raise _missing_slots(run, refs)
        if name not in run.reads:
            run.reads[name] = value
            if type(value) is not Quantity or (
                type(value.payload) is not float and type(value.payload) is not complex
            ):  # an array or an object: the row will carry every one of its numbers
                spend(run, row_units(value), f"reading @{name}", pos)
        return value

    return read


def _missing_slots(run: Run, refs: list[tuple[int, int]]) -> EngineError:
    """The refusal for a formula reading slots that do not exist: all of them in one
    sentence, in the order the formula writes them, so one round of `set` answers it."""
    slots, names = run.slots, run.names
    first: dict[str, int] = {}
    for index, pos in sorted(refs, key=lambda ref: ref[1]):
        name = names[index]
        if name not in slots and name not in first:
            first[name] = pos
    known = ", ".join(sorted(slots)) or "none yet"
    if len(first) == 1:
        ((name, pos),) = first.items()
        return fail(
            ErrorCode.SLOT_NOT_FOUND,
            f"the slot @{name} at {at(pos)} does not exist (slots now: {known}); set it if "
            f"the question gives it, or eval it first if it is a result, and otherwise stop "
            f"and name it as missing",
        )
    named = [f"@{name} ({at(pos)})" for name, pos in first.items()]
    listed = ", ".join(named[:-1]) + " and " + named[-1]
    return fail(
        ErrorCode.SLOT_NOT_FOUND,
        f"the formula reads {listed}, which do not exist (slots now: {known}); set each "
        f"the question gives, or eval first each that is a result, and otherwise stop and "
        f"name them as missing",
    )
