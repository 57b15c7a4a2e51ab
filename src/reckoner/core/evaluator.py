"""The evaluator: an expression tree compiled once into Python closures, then run.

Compilation resolves every bound name to a frame position, so a formula evaluated many
times (a repeated eval, a $sum body) pays for tree walking only once. Evaluation runs left
to right, depth first, and the first failure raised is the one reported.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ZERO, Vector
from reckoner.contract.limits import MAX_BOUNDED_STEPS, MAX_CALL_WORK

from . import dimensions as dims
from .arithmetic import (
    binary,
    is_whole_array_operation,
    negate,
    require_quantity,
)
from .errors import EngineError, fail
from .functions import apply_binary, apply_unary, maps_real_array, scalar_unary
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
from .values import (
    Element,
    Obj,
    Quantity,
    Value,
    as_list,
    check_array_size,
    element_count,
    is_array_payload,
    make_array,
    show,
)


class Run:
    """The state of one evaluation: the slots it may read and what it has read."""

    # A plain class: one is built per evaluation, and a dataclass's generated __init__ with
    # default factories costs more than the arithmetic of a short formula.
    __slots__ = ("frame", "reads", "slots", "steps", "work")

    def __init__(self, slots: Mapping[str, Value], frame: list[Quantity | None]) -> None:
        self.slots = slots
        self.reads: dict[str, Value] = {}  # every slot read, in first-use order
        self.frame = frame
        self.steps = 1  # the product of the ranges of the bounded forms being run
        self.work = 0  # units of MAX_CALL_WORK spent so far


class WorkExceeded(EngineError):
    """The call's work budget is spent: never retried another way, always reported."""


# What one work unit buys, measured on this project's machines: a scalar handled in Python
# costs 0.3 to 0.7 us, numpy's whole-array arithmetic 1 to 4 ns an element, and a plain math
# function mapped over a float64 array in C 45 to 80 ns an element.
_NUMPY_ELEMENTS_PER_UNIT = 256
_MAPPED_ELEMENTS_PER_UNIT = 8
_LIST_ELEMENTS_WRITTEN_PER_UNIT = 2


def _units(elements: int, per_unit: int) -> int:
    return -(-elements // per_unit)


def spend(run: Run, units: int, what: str, pos: int) -> None:
    """Charge work before it runs; over MAX_CALL_WORK the call is refused, never timed out."""
    total = run.work + units
    if total > MAX_CALL_WORK:
        raise WorkExceeded(
            ErrorCode.INVALID_INDEX,
            f"{what} at {at(pos)} would bring this evaluation's work to {total} units, over "
            f"the limit of {MAX_CALL_WORK} (MAX_CALL_WORK); use smaller arrays or ranges, or "
            f"split the work into several eval steps",
        )
    run.work = total


def _pair_elements(a: Value, b: Value) -> int:
    """Elements two operands pair up when either is an array (the larger count), else 0:
    scalar work is paid by the formula's length or by a bounded body's cost per step."""
    if type(a) is not Quantity or type(b) is not Quantity:
        return 0
    x, y = a.payload, b.payload
    if (type(x) is float or type(x) is complex) and (type(y) is float or type(y) is complex):
        return 0
    return max(element_count(x), element_count(y))


def _pair_units(symbol: str, a: Value, b: Value) -> int:
    """Work of one operator whose operands may be arrays."""
    elements = _pair_elements(a, b)
    if elements and is_whole_array_operation(symbol, a.payload, b.payload):  # type: ignore[union-attr]
        return _units(elements, _NUMPY_ELEMENTS_PER_UNIT)
    return elements


def _operate(run: Run, symbol: str, a: Value, b: Value, pos: int) -> Value:
    """`binary` after charging its array work."""
    if type(a) is Quantity and type(b) is Quantity:
        x, y = a.payload, b.payload
        if (type(x) is float or type(x) is complex) and (type(y) is float or type(y) is complex):
            return binary(symbol, a, b, pos)  # two scalars: no array work to charge
    units = _pair_units(symbol, a, b)
    if units:
        spend(run, units, f"'{symbol}'", pos)
    return binary(symbol, a, b, pos)


Compiled = Callable[[Run], Value]

_CONSTANTS: dict[str, float | complex] = {
    "$pi": math.pi,
    "$e": math.e,
    "$inf": math.inf,
    "$i": 1j,
    "$j": 1j,
}


@dataclass(slots=True)
class Program:
    """A compiled formula: call `run(slots)` for the value and the slots read."""

    body: Compiled
    frame_size: int

    def run(self, slots: Mapping[str, Value]) -> tuple[Value, dict[str, Value]]:
        state = Run(slots, [None] * self.frame_size if self.frame_size else NO_FRAME)
        value = self.body(state)
        return value, state.reads


# The frame of a formula that binds no variable: never written, so one list serves all.
NO_FRAME: list[Quantity | None] = []


def compile_tree(tree: Node) -> Program:
    compiler = _Compiler()
    body = compiler.compile(tree, {})
    return Program(body, compiler.frame_size)


_FOLDABLE = frozenset({Chain, Binary, Unary, Call, Index, Field})
# Leaves decide alone: literals and constants fold; slots, bound names and bounded forms
# never do (a bounded form's steps count against the forms enclosing it at run time).
_LEAF_IS_CONSTANT: dict[type, bool] = {
    Number: True,
    Constant: True,
    SlotRef: False,
    BoundName: False,
    Bounded: False,
}


class _Compiler:
    def __init__(self) -> None:
        self.frame_size = 0
        self._pure: dict[int, bool] = {}
        self._kept: list[Node] = []  # nodes made while compiling, kept until it ends
        # Every @name of the formula with its position, shared by the slot readers: the
        # first one found missing names all the missing ones at once.
        self._slot_refs: list[tuple[str, int]] = []

    def compile(self, node: Node, scope: dict[str, int]) -> Compiled:
        kind = type(node)
        if kind is SlotRef:  # the commonest leaf, compiled without a further call
            self._slot_refs.append((node.name, node.pos))  # type: ignore[union-attr]
            return _slot(node.name, node.pos, self._slot_refs)  # type: ignore[union-attr]
        compiled = self._compile(node, scope)
        if kind in _FOLDABLE and self._is_constant(node):
            # A subtree of literals and constants has one value: compute it once here, so
            # `2*$pi*@f` or `$sqrt(3)*@V` costs one operation per call. A subtree that fails
            # keeps its closure, so the failure is still raised in evaluation order.
            try:
                value = compiled(Run({}, []))
            except EngineError:
                return compiled
            return lambda run: value
        return compiled

    def _constant_real(self, node: Node) -> float | None:
        """A finite real literal written as the node (such as the 2 of `x^2`), else None."""
        if isinstance(node, Number) and type(node.value) is float and math.isfinite(node.value):
            return node.value
        return None

    def _is_constant(self, node: Node) -> bool:
        """True when the subtree reads no slot, no bound name and runs no bounded form.

        Bounded forms are never folded: their steps count against the limit of the forms
        enclosing them at run time.
        """
        kind = type(node)
        leaf = _LEAF_IS_CONSTANT.get(kind)
        if leaf is not None:
            return leaf
        known = self._pure.get(id(node))
        if known is not None:
            return known
        children: list[Node] | tuple[Node, ...]
        if kind is Chain:
            children = [node.first]  # type: ignore[union-attr]
            for _, operand, _ in node.rest:  # type: ignore[union-attr]
                children.append(operand)
        elif kind is Binary:
            children = (node.left, node.right)  # type: ignore[union-attr]
        elif kind is Unary:
            children = (node.operand,)  # type: ignore[union-attr]
        elif kind is Call:
            children = node.args  # type: ignore[union-attr]
        elif kind is Index:
            children = (node.target, node.index)  # type: ignore[union-attr]
        else:
            children = (node.target,)  # type: ignore[union-attr]
        pure = True
        for child in children:
            if not self._is_constant(child):  # an inner child is decided once: cached
                pure = False
                break
        self._pure[id(node)] = pure
        return pure

    def _compile(self, node: Node, scope: dict[str, int]) -> Compiled:
        # Dispatch on the node's class (a SlotRef never comes here: compile() takes it);
        # each branch returns a closure.
        kind = type(node)
        if kind is Chain:
            return self._chain(node, scope)  # type: ignore[arg-type]
        if kind is Number:
            constant = Quantity(node.value, ZERO)  # type: ignore[union-attr]
            return lambda run: constant
        if kind is BoundName:
            return self._bound(node, scope)  # type: ignore[arg-type]
        if kind is Constant:
            value = Quantity(_CONSTANTS[node.notation.name], ZERO)  # type: ignore[union-attr]
            return lambda run: value
        if kind is Binary:
            return self._binary(node, scope)  # type: ignore[arg-type]
        if isinstance(node, Unary):
            operand = self.compile(node.operand, scope)
            pos = node.pos

            def minus(run: Run) -> Value:
                value = require_quantity(operand(run), "the sign '-'", pos)
                payload = value.payload
                if isinstance(payload, np.ndarray):
                    spend(run, _units(payload.size, _NUMPY_ELEMENTS_PER_UNIT), "'-'", pos)
                elif type(payload) is list:
                    spend(run, element_count(payload), "'-'", pos)
                return negate(value)

            return minus
        if isinstance(node, Call):
            return self._call(node, scope)
        if isinstance(node, Bounded):
            return self._bounded(node, scope)
        if isinstance(node, Index):
            return self._index(node, scope)
        return self._field(node, scope)  # type: ignore[arg-type]

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
                return _operate(run, op, a, exponent_value, pos)

            return apply_power

        def apply(run: Run) -> Value:
            a = left(run)
            b = right(run)
            return _operate(run, op, a, b, pos)

        return apply

    def _chain(self, node: Chain, scope: dict[str, int]) -> Compiled:
        terms = node.rest
        # A run of constants at the front (the 2*$pi of 2*$pi*@f*@L) is computed once: the
        # same operations in the same order, so the same double, with none left per call.
        constants = 0
        if self._is_constant(node.first):
            while constants < len(terms) and self._is_constant(terms[constants][1]):
                constants += 1
        if 0 < constants < len(terms):
            prefix = Chain(node.first, terms[:constants])
            self._kept.append(prefix)  # alive while compiling: _pure is keyed by id()
            first = self.compile(prefix, scope)
            terms = terms[constants:]
        else:
            first = self.compile(node.first, scope)
        rest: list[tuple[str, Compiled, int]] = []
        for op, operand, pos in terms:
            rest.append((op, self.compile(operand, scope), pos))
        if len(rest) == 1:
            # `@V/@R`, the commonest shape: no loop.
            ((op1, second, pos1),) = rest
            if op1 == "*" or op1 == "/":
                return _scale(op1, first, second, pos1)

            def apply_one(run: Run) -> Value:
                return _operate(run, op1, first(run), second(run), pos1)

            return apply_one

        def apply(run: Run) -> Value:
            value = first(run)
            for op, operand, pos in rest:
                value = _operate(run, op, value, operand(run), pos)
            return value

        return apply

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
            units = _pair_elements(a, b)  # paired element by element in Python
            if units:
                spend(run, units, notation.name, pos)
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
        body = self.compile(node.args[0], {**scope, node.variable: index})
        slots = _element_wise_slots(node.args[0])
        return _loop(notation, pos, lower, upper, index, body, slots, _cost(node.args[0]))

    def _index(self, node: Index, scope: dict[str, int]) -> Compiled:
        target = self.compile(node.target, scope)
        index = self.compile(node.index, scope)
        pos = node.pos

        def element(run: Run) -> Value:
            container = target(run)
            position = index(run)
            return _element(container, position, pos)

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


def _unary_on_array(run: Run, notation: Notation, value: Value, pos: int) -> Value:
    """A one-argument function of an array (or an object, refused inside): charged first."""
    if type(value) is not Quantity:
        return apply_unary(notation, value, pos)
    payload = value.payload
    rule = notation.dim_rule
    elements = element_count(payload)
    if rule is DimRule.COUNT:
        units = 0
    elif maps_real_array(notation, payload):
        units = _units(elements, _MAPPED_ELEMENTS_PER_UNIT)

        def careful(count: int) -> None:
            spend(run, count, notation.name, pos)

        spend(run, units, notation.name, pos)
        return apply_unary(notation, value, pos, careful)
    elif rule is DimRule.TRANSPOSE and isinstance(payload, np.ndarray):
        units = _units(elements, _NUMPY_ELEMENTS_PER_UNIT)
    else:
        units = elements
    spend(run, units, notation.name, pos)
    return apply_unary(notation, value, pos)


def _scale(op: str, first: Compiled, second: Compiled, pos: int) -> Compiled:
    """`a * b` or `a / b`: two real scalars take the direct route, the rest `binary`."""
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
        return _operate(run, op, a, b, pos)

    return apply_scaled


def _slot(name: str, pos: int, refs: list[tuple[str, int]]) -> Compiled:
    def read(run: Run) -> Value:
        value = run.slots.get(name)
        if value is None:
            raise _missing_slots(run.slots, refs)
        if name not in run.reads:
            run.reads[name] = value
            if type(value) is not Quantity or (
                type(value.payload) is not float and type(value.payload) is not complex
            ):  # an array or an object: the row will carry every one of its numbers
                spend(run, _row_units(value), f"reading @{name}", pos)
        return value

    return read


def _missing_slots(slots: Mapping[str, Value], refs: list[tuple[str, int]]) -> EngineError:
    """The refusal for a formula reading slots that do not exist: all of them in one
    sentence, in the order the formula writes them, so one round of `set` answers it."""
    first: dict[str, int] = {}
    for name, pos in sorted(refs, key=lambda ref: ref[1]):
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


def _row_units(value: Value) -> int:
    """Work of writing a value the formula read into the trace row (its vars): numbers of
    a float64 array are serialised in C at 20 to 40 ns each, elements of a list array (a
    complex is an object of two numbers) at up to 200 ns."""
    if isinstance(value, Obj):
        return sum(_row_units(field) for field in value.fields.values())
    payload = value.payload
    if isinstance(payload, np.ndarray):
        return _units(payload.size, _MAPPED_ELEMENTS_PER_UNIT)
    if type(payload) is list:
        return _units(element_count(payload), _LIST_ELEMENTS_WRITTEN_PER_UNIT)
    return 0


def whole_number(value: Value, role: str, pos: int) -> int:
    """An index or bound: an integer with the zero vector (a complex needs im 0)."""
    if isinstance(value, Quantity) and value.vector == ZERO and not value.is_array:
        x = value.payload
        if type(x) is complex and x.imag == 0:
            x = x.real
        if type(x) is float and x.is_integer():
            return int(x)
    described = show(value) if isinstance(value, Quantity) else "an object"
    raise fail(
        ErrorCode.INVALID_INDEX,
        f"the {role} at {at(pos)} is {described}; it must be a dimensionless whole number",
    )


def _element(container: Value, position: Value, pos: int) -> Value:
    if not isinstance(container, Quantity) or not container.is_array:
        raise fail(
            ErrorCode.UNSUPPORTED_INDEX,
            f"'[ ]' at {at(pos)} indexes an array, but the value is {show(container)}; "
            f"use '[ ]' on arrays only",
        )
    i = whole_number(position, "index", pos)
    payload = container.payload
    length = len(payload)  # type: ignore[arg-type]
    if not 0 <= i < length:
        raise fail(
            ErrorCode.INVALID_INDEX,
            f"the index {i} at {at(pos)} is outside the array of length {length}; valid "
            f"indices run from 0 to {length - 1}"
            if length
            else f"the index {i} at {at(pos)} reads an empty array (length 0), which has no "
            f"elements",
        )
    if isinstance(payload, np.ndarray):
        item = payload[i]
        if isinstance(item, np.ndarray):
            return Quantity(item, container.vector)
        return Quantity(float(item), container.vector)
    element = payload[i]  # type: ignore[index]
    return Quantity(element, container.vector)


def _element_wise_slots(body: Node) -> frozenset[str] | None:
    """The slots a body reads when it may run once over all steps at once, else None.

    Such a body holds only literals, constants, slots, bound names, + - * / and functions
    that map element by element: then evaluating it with the variable bound to the array
    of every step gives, element for element, what the steps give one at a time (numpy's
    + - * / round exactly as Python's, and the functions map through the same scalar
    code). Powers are left to the steps, since numpy may compute x^2 as x*x.
    """
    names: set[str] = set()
    pending: list[Node] = [body]
    while pending:
        node = pending.pop()
        if isinstance(node, Number | Constant | BoundName):
            continue
        if isinstance(node, SlotRef):
            names.add(node.name)
        elif isinstance(node, Chain):
            pending.append(node.first)
            pending.extend(operand for _, operand, _ in node.rest)
        elif isinstance(node, Unary):
            pending.append(node.operand)
        elif isinstance(node, Call) and node.notation.dim_rule not in _NOT_ELEMENT_WISE:
            pending.extend(node.args)
        else:
            return None
    return frozenset(names)


_NOT_ELEMENT_WISE = frozenset({DimRule.COUNT, DimRule.TRANSPOSE})
_EXACT_INTEGER = 2**53


def _all_steps_at_once(
    run: Run,
    notation: Notation,
    start: int,
    stop: int,
    index: int,
    body: Compiled,
    slots: frozenset[str],
    pos: int,
) -> Value | None:
    """Run an element-wise body once over every step; None means "take the steps"."""
    if not (start > -_EXACT_INTEGER and stop < _EXACT_INTEGER):
        return None
    for slot in slots:
        value = run.slots.get(slot)
        # An array slot would pair with the steps instead of repeating in each of them.
        if type(value) is not Quantity or value.is_array:
            return None
    count = stop - start + 1
    spend(run, _units(count, _NUMPY_ELEMENTS_PER_UNIT), notation.name, pos)
    run.frame[index] = Quantity(np.arange(start, stop + 1, dtype=np.float64), ZERO)
    try:
        result = body(run)
    except WorkExceeded:
        raise  # the steps would cost more still
    except EngineError:
        return None  # the steps raise the failure of the first step that fails
    finally:
        run.frame[index] = None
    if type(result) is not Quantity:
        return None
    payload = result.payload
    if type(payload) is float:
        # A body that does not read the variable gives every step the same value.
        payload = np.full(count, payload)
        result = Quantity(payload, result.vector)
    if not isinstance(payload, np.ndarray) or payload.shape != (count,):
        return None
    if notation.name == "$seq":
        return result
    # Fold left to right exactly as the steps do: accumulate runs in order, one term after
    # another, where numpy's sum pairs terms differently.
    spend(run, _units(count, _NUMPY_ELEMENTS_PER_UNIT), notation.name, pos)
    with np.errstate(all="ignore"):
        if notation.name == "$sum":
            return Quantity(float(np.add.accumulate(payload)[-1]), result.vector)
        folded = float(np.multiply.accumulate(payload)[-1])
    return Quantity(folded, dims.power(result.vector, float(count)))


def _loop(
    notation: Notation,
    pos: int,
    lower: Compiled,
    upper: Compiled,
    index: int,
    body: Compiled,
    slots: frozenset[str] | None,
    cost: int,
) -> Compiled:
    name = notation.name

    def run_loop(run: Run) -> Value:
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
        run.steps = count * enclosing
        try:
            if slots is not None:
                at_once = _all_steps_at_once(run, notation, start, stop, index, body, slots, pos)
                if at_once is not None:
                    return at_once
            _spend_steps(run, name, pos, count, enclosing, cost)
            if notation.name == "$seq":
                return _collect(run, start, stop, index, body, pos)
            return _fold(run, notation, start, stop, index, body, pos)
        finally:
            run.steps = enclosing

    return run_loop


def _cost(body: Node) -> int:
    """Work units one step of a body costs: the step, and each node of the body (a power or
    a function counts two), a nested bounded form's own body excluded (that form charges
    its steps itself, each time it runs)."""
    total = 1
    pending: list[Node] = [body]
    while pending:
        node = pending.pop()
        total += 2 if isinstance(node, Binary | Call) else 1
        if isinstance(node, Chain):
            pending.append(node.first)
            pending.extend(operand for _, operand, _ in node.rest)
            total += len(node.rest) - 1
        elif isinstance(node, Binary):
            pending.extend((node.left, node.right))
        elif isinstance(node, Unary):
            pending.append(node.operand)
        elif isinstance(node, Call):
            pending.extend(node.args)
        elif isinstance(node, Index):
            pending.extend((node.target, node.index))
        elif isinstance(node, Field):
            pending.append(node.target)
        elif isinstance(node, Bounded):
            pending.extend(bound for bound in (node.lower, node.upper) if bound is not None)
    return total


def _spend_steps(run: Run, name: str, pos: int, count: int, enclosing: int, cost: int) -> None:
    """Charge a stepped body's work before its first step; refused up front when this run,
    or the runs the enclosing steps will repeat, would pass MAX_CALL_WORK."""
    foreseen = run.work + count * enclosing * cost
    if foreseen > MAX_CALL_WORK:
        nested = "" if enclosing == 1 else f" times {enclosing} enclosing steps"
        raise WorkExceeded(
            ErrorCode.INVALID_INDEX,
            f"{name} at {at(pos)} would run {count} steps{nested} of a body costing {cost} "
            f"work units each, bringing this evaluation's work to {foreseen} units, over the "
            f"limit of {MAX_CALL_WORK} (MAX_CALL_WORK); narrow the range, simplify the body, "
            f"or split the work into several eval steps",
        )
    run.work += count * cost


def _fold(
    run: Run,
    notation: Notation,
    start: int,
    stop: int,
    index: int,
    body: Compiled,
    pos: int,
) -> Value:
    frame = run.frame
    symbol = "+" if notation.name == "$sum" else "*"
    acc: Value | None = None
    for k in range(start, stop + 1):
        frame[index] = Quantity(float(k), ZERO)
        term = require_quantity(body(run), f"the body of {notation.name}", pos)
        # The array work of each step is charged by _operate, as for any operator.
        acc = term if acc is None else _operate(run, symbol, acc, term, pos)
    frame[index] = None
    assert type(acc) is Quantity
    return acc


def _collect(run: Run, start: int, stop: int, index: int, body: Compiled, pos: int) -> Value:
    frame = run.frame
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
        if is_array_payload(payload):
            elements = element_count(payload)
            total += elements
            check_array_size(total)
            # A float64 array is copied out in C; a list array is walked in Python.
            per_unit = _MAPPED_ELEMENTS_PER_UNIT if isinstance(payload, np.ndarray) else 1
            spend(run, _units(elements, per_unit), "$seq", pos)
            items.append(as_list(payload))  # type: ignore[arg-type]
        else:
            total += 1
            items.append(payload)  # type: ignore[arg-type]
        check_array_size(total)
    frame[index] = None
    return Quantity(make_array(items), vector if vector is not None else ZERO)
