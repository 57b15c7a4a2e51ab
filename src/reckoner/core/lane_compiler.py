"""Which bounded bodies run over all their steps at once, and the lanes version of each.

One decision lives here: a body runs at once when every node that reads a variable of the
nest is an operator, a function, an index into an array the steps share, or a $sum or
$prod whose range the steps share (it adds an axis); every other node of the body is the
same at every step and keeps the closure the compiler made for it. A $seq inside a body, a
range that changes with the step or an array read at a different row each step leave the
outer form to its steps.
"""

from __future__ import annotations

from .bounded import AtOnce
from .errors import EngineError
from .lane_folds import at_once, inner_form
from .lanes import (
    Function,
    Item,
    LaneFn,
    Lanes,
    Operator,
    Pass,
    gather,
    negate,
    pair_function,
)
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
    children,
)
from .values import Value
from .work import Compiled, WorkExceeded, operate

_NO_NAMES: frozenset[str] = frozenset()

# numpy holds up to 64 axes; a nest deeper than this takes the steps of its outer forms.
_MAX_LEVELS = 16


def _uniform(compiled: Compiled) -> LaneFn:
    """A subtree that reads no variable of the nest: one value for every step."""

    def value(p: Pass) -> Item:
        try:
            return compiled(p.run)
        except WorkExceeded:
            raise
        except EngineError:
            p.fail_at_first_step()

    return value


class LaneCompiler:
    """Builds the lanes version of a bounded body from the closures the compiler made."""

    def __init__(self, closures: dict[int, Compiled]) -> None:
        self.closures = closures  # the ordinary closure of every node, by id
        self._free: dict[int, frozenset[str]] = {}

    def free_names(self, node: Node) -> frozenset[str]:
        """The bound names a subtree reads that it does not bind itself."""
        if isinstance(node, SlotRef | Number | Constant):
            return _NO_NAMES  # the commonest leaves, decided without the cache
        if isinstance(node, BoundName):
            return frozenset((node.name,))
        known = self._free.get(id(node))
        if known is not None:
            return known
        names = _NO_NAMES
        if isinstance(node, Bounded):
            for bound in (node.lower, node.upper):
                if bound is not None:
                    names |= self.free_names(bound)
            for arg in node.args:
                names |= self.free_names(arg) - {node.variable}
        else:
            for child in children(node):
                inner = self.free_names(child)
                if inner:
                    names = names | inner
        self._free[id(node)] = names
        return names

    def form(self, node: Bounded) -> AtOnce | None:
        """The outer form's pass, or None when its body cannot run at once."""
        assert node.variable is not None
        body = self.lanes(node.args[0], {node.variable: 1}, 1)
        return None if body is None else at_once(body)

    def lanes(self, node: Node, levels: dict[str, int], depth: int) -> LaneFn | None:
        """The node at every step of a nest `depth` forms deep, `levels` naming each form's
        variable; None when it cannot run at once."""
        if not self.free_names(node) & levels.keys():
            return _uniform(self.closures[id(node)])
        if isinstance(node, BoundName):
            level = levels[node.name]
            return lambda p: p.variable(level, depth)
        parts = [self.lanes(child, levels, depth) for child in self._parts(node)]
        if any(part is None for part in parts):
            return None
        fns: list[LaneFn] = [part for part in parts if part is not None]
        if isinstance(node, Chain):
            return _chain(fns, node)
        if isinstance(node, Binary):
            left, right = fns
            power = Operator(node.op, node.pos)
            return lambda p: power(p, left(p), right(p))
        if isinstance(node, Unary):
            (operand,) = fns
            pos = node.pos
            return lambda p: negate(p, operand(p), pos)
        if isinstance(node, Call):
            return _call(fns, node)
        if isinstance(node, Index):
            target, index = fns
            pos = node.pos
            if self.free_names(node.target) & levels.keys():
                return None  # a different array at each step: the steps read each
            return lambda p: gather(p, target(p), index(p), pos)
        if isinstance(node, Field):
            return _fails_at_first_step  # no value at a step is an object
        return self._nested(node, levels, depth)

    def _parts(self, node: Node) -> tuple[Node, ...]:
        if isinstance(node, Bounded):
            return ()  # its bounds and body are compiled by _nested
        return children(node)

    def _nested(self, node: Node, levels: dict[str, int], depth: int) -> LaneFn | None:
        assert isinstance(node, Bounded)
        first, last = node.lower, node.upper
        if node.notation.name not in ("$sum", "$prod") or depth >= _MAX_LEVELS:
            return None  # an unevaluable form, or a $seq: an array at every step
        if node.variable is None or first is None or last is None:
            return None
        if (self.free_names(first) | self.free_names(last)) & levels.keys():
            return None  # a range that changes with the step
        body = self.lanes(node.args[0], {**levels, node.variable: depth + 1}, depth + 1)
        if body is None:
            return None
        lower, upper = self.closures[id(first)], self.closures[id(last)]
        return inner_form(node, lower, upper, body)


def _fails_at_first_step(p: Pass) -> Item:
    p.fail_at_first_step()


def _chain(fns: list[LaneFn], node: Chain) -> LaneFn:
    first = fns[0]
    rest = [
        (Operator(op, pos), fn, op, pos)
        for (op, _, pos), fn in zip(node.rest, fns[1:], strict=True)
    ]

    def apply(p: Pass) -> Item:
        value = first(p)
        for operator, fn, op, pos in rest:
            operand = fn(p)
            if isinstance(value, Lanes) or isinstance(operand, Lanes):
                value = operator(p, value, operand)
            else:
                value = _shared(p, op, value, operand, pos)
        return value

    return apply


def _shared(p: Pass, op: str, a: Value, b: Value, pos: int) -> Item:
    """Two operands shared by every step (a run at the front of a chain)."""
    try:
        return operate(p.run, op, a, b, pos)
    except WorkExceeded:
        raise
    except EngineError:
        p.fail_at_first_step()


def _call(fns: list[LaneFn], node: Call) -> LaneFn:
    notation, pos = node.notation, node.pos
    if len(fns) == 1:
        (only,) = fns
        function = Function(notation, pos)
        return lambda p: function(p, only(p))
    first, second = fns

    def pair(p: Pass) -> Item:
        return pair_function(p, notation, first(p), second(p), pos)

    return pair
