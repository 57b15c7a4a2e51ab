"""The expression tree a formula parses into. Every node keeps its 0-based position.

Nodes are never changed once built; they are not frozen dataclasses only because a frozen
one sets each field through ``object.__setattr__``, which doubles the cost of a parse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from .notation import Notation


@dataclass(slots=True)
class Number:
    value: float | complex
    text: str
    pos: int


@dataclass(slots=True)
class BoundName:
    name: str
    pos: int


@dataclass(slots=True)
class SlotRef:
    name: str
    pos: int
    # Which slot reference of the formula this is, counted from 0 in text order: a program
    # reads the name through it, so texts that differ only in their slot names share one
    # compiled body (reckoner.core.shapes).
    index: int = 0


@dataclass(slots=True)
class Constant:
    notation: Notation
    pos: int


@dataclass(slots=True)
class Call:
    notation: Notation
    args: tuple[Node, ...]
    pos: int


@dataclass(slots=True)
class Bounded:
    """A bounded form; `variable` is bound by `k=a` or `x->a` in the subscript."""

    notation: Notation
    variable: str | None
    lower: Node | None
    upper: Node | None
    args: tuple[Node, ...]
    pos: int


@dataclass(slots=True)
class Index:
    target: Node
    index: Node
    pos: int


@dataclass(slots=True)
class Field:
    target: Node
    name: str
    pos: int


@dataclass(slots=True)
class Unary:
    op: str  # "-" (a leading "+" is dropped by the parser)
    operand: Node
    pos: int


@dataclass(slots=True)
class Binary:
    """A power, `left ^ right` (right-associative, so nested through its right side)."""

    op: str  # "^"
    left: Node
    right: Node
    pos: int


@dataclass(slots=True)
class Chain:
    """A run of left-associative operators of one precedence level: `a + b - c`, `a * b / c`.

    Kept flat so a long sum costs no recursion depth.
    """

    first: Node
    rest: tuple[tuple[str, Node, int], ...]  # (operator, operand, operator position)


Node: TypeAlias = (
    Number
    | BoundName
    | SlotRef
    | Constant
    | Call
    | Bounded
    | Index
    | Field
    | Unary
    | Binary
    | Chain
)


def _bounded_children(node: Bounded) -> tuple[Node, ...]:
    bounds = tuple(bound for bound in (node.lower, node.upper) if bound is not None)
    return (*bounds, *node.args)


# By the node's class: one lookup instead of a run of isinstance tests (compiling a formula
# asks for the children of each node several times).
_CHILDREN: dict[type, Callable[[Any], tuple[Node, ...]]] = {
    Chain: lambda node: (node.first, *[operand for _, operand, _ in node.rest]),
    Binary: lambda node: (node.left, node.right),
    Unary: lambda node: (node.operand,),
    Call: lambda node: node.args,
    Index: lambda node: (node.target, node.index),
    Field: lambda node: (node.target,),
    Bounded: _bounded_children,
}


def children(node: Node) -> tuple[Node, ...]:
    """The subtrees of a node, in the order evaluation runs them (a leaf has none)."""
    found = _CHILDREN.get(type(node))
    return () if found is None else found(node)
