"""The 35 notations (docs/reference/notations.md): written forms, positions, arities and dimension
rules.

The one place the vocabulary lives; the parser, the evaluator, the skills and the tests
all read it from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    CONSTANT = "constant"
    FUNCTION = "function"
    BOUNDED = "bounded"


class Positions(StrEnum):
    """Which of `_{...}` and `^{...}` a notation takes."""

    NONE = "none"
    BOTH = "both"
    SUBSCRIPT = "subscript"
    BOTH_OR_NONE = "both or none"


class Binding(StrEnum):
    """What the subscript of a bounded form holds."""

    NONE = "none"  # no subscript, or a plain expression
    EQUALS = "k=a"
    ARROW = "x->a"


class DimRule(StrEnum):
    """The dimension rule of a notation class (docs/reference/notations.md)."""

    CONSTANT = "no argument; the zero vector"
    KEEP = "any vector; the argument's vector"
    ANGLE = "any vector; the zero vector (radians)"
    HALF = "any vector; half the argument's vector"
    DIMENSIONLESS = "the zero vector; the zero vector"
    COUNT = "any vector, on an array; the zero vector"
    TRANSPOSE = "any vector, on a rectangular 2-D array; the same vector"
    SAME_PAIR_ANGLE = "both the same vector; the zero vector (radians)"
    SAME_PAIR = "both the same vector; that vector"
    FOLD = "bound variable dimensionless; whatever the fold of the body yields"
    COLLECT = "bound variable dimensionless; the body's vector, shared by the elements"
    UNEVALUABLE = "cannot be evaluated"


@dataclass(frozen=True, slots=True)
class Notation:
    name: str
    kind: Kind
    written: str
    meaning: str
    arities: tuple[int, ...]
    dim_rule: DimRule
    positions: Positions = Positions.NONE
    binding: Binding = Binding.NONE
    evaluable: bool = True


def _constant(name: str, meaning: str) -> Notation:
    return Notation(name, Kind.CONSTANT, name, meaning, (), DimRule.CONSTANT)


def _function(name: str, meaning: str, rule: DimRule, arity: int = 1) -> Notation:
    params = "x" if arity == 1 else {"$atan2": "x, y"}.get(name, "a, b")
    if name == "$len":
        params = "a"
    if name == "$transpose":
        params = "M"
    return Notation(name, Kind.FUNCTION, f"{name}({params})", meaning, (arity,), rule)


_D = DimRule.DIMENSIONLESS

NOTATIONS: tuple[Notation, ...] = (
    _constant("$pi", "the ratio of a circle's circumference to its diameter"),
    _constant("$e", "the base of the natural logarithm"),
    _constant("$inf", "positive infinity"),
    _constant("$i", "the imaginary unit"),
    _constant("$j", "the imaginary unit, the engineering spelling"),
    _function("$abs", "absolute value (the magnitude of a complex)", DimRule.KEEP),
    _function("$sqrt", "square root; the principal root of a complex argument", DimRule.HALF),
    _function("$exp", "e raised to the argument", _D),
    _function("$ln", "natural logarithm (the principal one for a complex argument)", _D),
    _function("$log", "base-10 logarithm", _D),
    _function("$sin", "sine", _D),
    _function("$cos", "cosine", _D),
    _function("$tan", "tangent", _D),
    _function("$asin", "inverse sine, in radians", _D),
    _function("$acos", "inverse cosine, in radians", _D),
    _function("$atan", "inverse tangent, in radians", _D),
    _function("$floor", "largest integer not greater than the argument", _D),
    _function("$ceil", "smallest integer not less than the argument", _D),
    _function("$sign", "sign of the argument: -1, 0 or 1", _D),
    _function("$re", "real part", DimRule.KEEP),
    _function("$im", "imaginary part", DimRule.KEEP),
    _function("$arg", "argument (phase) in radians", DimRule.ANGLE),
    _function("$conj", "complex conjugate", DimRule.KEEP),
    _function("$len", "the number of elements of an array", DimRule.COUNT),
    _function("$transpose", "the transpose of a rectangular 2-D array", DimRule.TRANSPOSE),
    _function("$atan2", "the angle of the point (x, y), in radians", DimRule.SAME_PAIR_ANGLE, 2),
    _function("$min", "the smaller of two arguments", DimRule.SAME_PAIR, 2),
    _function("$max", "the larger of two arguments", DimRule.SAME_PAIR, 2),
    _function("$mod", "the remainder of a divided by b, with the sign of a", DimRule.SAME_PAIR, 2),
    Notation(
        "$sum",
        Kind.BOUNDED,
        "$sum_{k=a}^{b}(body)",
        "the body accumulated with + as the variable runs from the lower to the upper bound",
        (1,),
        DimRule.FOLD,
        Positions.BOTH,
        Binding.EQUALS,
    ),
    Notation(
        "$prod",
        Kind.BOUNDED,
        "$prod_{k=a}^{b}(body)",
        "the body accumulated with * over the same range",
        (1,),
        DimRule.FOLD,
        Positions.BOTH,
        Binding.EQUALS,
    ),
    Notation(
        "$seq",
        Kind.BOUNDED,
        "$seq_{k=a}^{b}(body)",
        "the body collected into an array over the same range",
        (1,),
        DimRule.COLLECT,
        Positions.BOTH,
        Binding.EQUALS,
    ),
    Notation(
        "$integral",
        Kind.BOUNDED,
        "$integral_{a}^{b}(body, x) or $integral(body, x)",
        "a definite integral; the second argument names the variable",
        (2,),
        DimRule.UNEVALUABLE,
        Positions.BOTH_OR_NONE,
        Binding.NONE,
        evaluable=False,
    ),
    Notation(
        "$limit",
        Kind.BOUNDED,
        "$limit_{x->a}(body)",
        "a limit, with the variable bound by ->",
        (1,),
        DimRule.UNEVALUABLE,
        Positions.SUBSCRIPT,
        Binding.ARROW,
        evaluable=False,
    ),
    Notation(
        "$diff",
        Kind.BOUNDED,
        "$diff(body, x) or $diff(body, x, n)",
        "a derivative, of order n when given",
        (2, 3),
        DimRule.UNEVALUABLE,
        Positions.NONE,
        Binding.NONE,
        evaluable=False,
    ),
)

BY_NAME: dict[str, Notation] = {n.name: n for n in NOTATIONS}
VOCABULARY: str = ", ".join(n.name for n in NOTATIONS)


def dollar_form(bare: str) -> str | None:
    """The written form a bare `pi` or `sqrt` meant (`$pi`, `$sqrt(x)`), or None."""
    notation = BY_NAME.get("$" + bare)
    return notation.written.split(" or ")[0] if notation is not None else None


# Symbols pasted from mathematics, and the ASCII the formula language writes for them.
_SYMBOL_NOTATIONS = {"π": "$pi", "√": "$sqrt", "∑": "$sum", "∏": "$prod", "∫": "$integral"}
_SYMBOL_OPERATORS = {"·": "*", "×": "*", "÷": "/", "−": "-", "²": "^2", "³": "^3"}


def ascii_spelling(symbol: str) -> str | None:
    """What to write instead of a non-ASCII symbol (`π` -> `$pi`), or None."""
    name = _SYMBOL_NOTATIONS.get(symbol)
    if name is not None:
        return dollar_form(name[1:])
    return _SYMBOL_OPERATORS.get(symbol)


# ASCII signs other languages give an operation, which this one writes as a notation.
_SIGN_SPELLINGS = {
    "%": f"{dollar_form('mod')} for a remainder, or /100 for a percentage",
    "|": f"{dollar_form('abs')} for an absolute value",
    "!": "$prod_{k=1}^{n}(k) for a factorial",
}


def sign_spelling(sign: str) -> str | None:
    """What to write for an ASCII sign outside the language (`%` -> `$mod(a, b)`), or None."""
    return _SIGN_SPELLINGS.get(sign)


# Function names other languages use for an operation the language has under another name.
_FOREIGN_FUNCTIONS = {
    "$log10": f"the base-10 logarithm is {dollar_form('log')}",
    "$lg": f"the base-10 logarithm is {dollar_form('log')}",
    "$pow": "a power is written a^b",
    "$hypot": "a hypotenuse is written $sqrt(a^2 + b^2)",
}


def foreign_function_hint(name: str) -> str | None:
    """How the language writes what an unknown `$name` means elsewhere, or None."""
    return _FOREIGN_FUNCTIONS.get(name)
