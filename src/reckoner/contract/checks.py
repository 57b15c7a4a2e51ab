"""The one argument checker: every tool's arguments are judged against its contract entry
here, and every refusal sentence about an argument's shape is worded here, once.

It understands the JSON Schema words the contracts use (type, enum, minimum, maximum,
minLength, maxLength, pattern, items, properties, required, additionalProperties), the null
rule of each argument (``Argument.null``) and its required flag. A sentence names what was
wrong, the limit and the fix; after a wrong kind or value it repeats what the argument is
for (its description), for every tool alike.

Pure and light (the pitfalls server loads it without numpy). Each surface turns a sentence
into a refusal with its own code: the engine's ENGINE_INVALID_ARGS, the pitfalls memory's
PITFALL_INVALID_ARGS, compute's MATH_ code.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from .tools import NAME_RULE, NAME_SCHEMA_PATTERN, Argument, JSONSchema, Null, Tool

# Exact types: JSON's true is not an integer, though Python's bool is an int.
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}

# A value a sentence quotes is cut here, so a hostile megabyte never reaches a receipt.
_QUOTED = 40

_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_REST = _NAME_START | frozenset("0123456789")


def _is_name(text: str) -> bool:
    """``NAME_SCHEMA_PATTERN``, without ``re``: the contract imports pure data modules only."""
    return bool(text) and text[0] in _NAME_START and all(c in _NAME_REST for c in text)


PATTERN_RULES: dict[str, tuple[Callable[[str], bool], str]] = {
    NAME_SCHEMA_PATTERN: (_is_name, f"is not a name: {NAME_RULE}"),
}
"""Each ``pattern`` a contract uses: its test, and what a refusal says of a string failing it."""


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What one tool adds to the shared checks: rules the contract's schema cannot carry."""

    normalised: frozenset[str] = frozenset()
    """Arguments whose ``enum`` the tool normalises itself instead of refusing: the schema
    tells the model the values, the tool stores anything else as its default and says so
    (``pitfall_record``'s status)."""

    too_long_fix: str | None = None
    """The fix a string over its ``maxLength`` is told (compute: write it to a file)."""


@dataclass(frozen=True, slots=True)
class _Place:
    """Where in one argument a value stands, and what a refusal there adds."""

    where: str  # "compute's cli.argv"
    argument: Argument
    options: CheckOptions
    top: bool  # the argument itself, not a part of it

    def inner(self, where: str) -> _Place:
        return _Place(where, self.argument, self.options, top=False)


def describe_json(raw: Any) -> str:
    """A JSON argument as a refusal names it: its kind, and its value where that is short."""
    if raw is None:
        return "null"
    if isinstance(raw, bool):
        return f"the boolean {str(raw).lower()}"
    if isinstance(raw, int | float):
        return f"the number {raw!r}"
    if isinstance(raw, str):
        shown = raw if len(raw) <= _QUOTED else raw[:_QUOTED] + "..."
        return f"the string {shown!r}"
    if isinstance(raw, list):
        return f"an array of length {len(raw)}"
    if isinstance(raw, dict):
        return "an object"
    return f"a {type(raw).__name__}"


def not_an_object(tool: str, keys: Sequence[str], args: object) -> str:
    """The sentence for arguments that are not a JSON object."""
    return (
        f"the arguments of {tool} must be a JSON object with the keys {', '.join(keys)}, but "
        f"they are {describe_json(args)}"
    )


def first_unknown_key(args: dict[str, Any], keys: Collection[str]) -> str | None:
    """The first key of ``args`` the tool does not have, or None."""
    return next((key for key in args if key not in keys), None)


def no_such_argument(tool: str, keys: Sequence[str], key: object) -> str:
    """The sentence for a key the tool does not have."""
    return f"{tool} has no argument {str(key)[:_QUOTED]!r}; its arguments are {', '.join(keys)}"


def envelope_problem(tool: Tool, args: object) -> str | None:
    """What is wrong with the arguments' envelope (not an object, an unknown key), or None."""
    if not isinstance(args, dict):
        return not_an_object(tool.name, tool.keys, args)
    extra = first_unknown_key(args, tool.keys)
    return None if extra is None else no_such_argument(tool.name, tool.keys, extra)


def argument_problem(tool: Tool, args: object, options: CheckOptions | None = None) -> str | None:
    """The one sentence saying what is wrong with a call's arguments, or None.

    The envelope first, then each argument in the contract's order: a missing or null one
    by its required flag and null rule, a present one against its shape.
    """
    problem = envelope_problem(tool, args)
    if problem is not None or not isinstance(args, dict):
        return problem
    chosen = options or CheckOptions()
    for argument in tool.arguments:
        value = args.get(argument.key)
        if value is None:
            problem = _null_problem(tool.name, argument, given=argument.key in args)
        else:
            place = _Place(f"{tool.name}'s {argument.key}", argument, chosen, top=True)
            problem = _shape_problem(value, argument.shape, place)
        if problem is not None:
            return problem
    return None


def _null_problem(tool: str, argument: Argument, *, given: bool) -> str | None:
    """A required argument left out (a null that means absent leaves it out too), or a null
    where the argument refuses one; a null with a meaning of its own is a value."""
    if given and argument.null is Null.VALUE:
        return None
    refused = given and argument.null is Null.REFUSED
    if argument.required:
        said = " (null is refused)" if refused else ""
        return f"{tool} needs {argument.key}{said}: {argument.description}"
    return f"{tool}'s {argument.key} cannot be null" if refused else None


def _shape_problem(value: Any, shape: JSONSchema, place: _Place) -> str | None:
    kind = shape.get("type")
    if kind is not None and type(value) not in _TYPES[kind]:
        return f"{place.where} must be {_kind_phrase(shape)}, but it is {_wrong(value, place)}"
    return (
        _value_problem(value, shape, place)
        or _length_problem(value, shape, place)
        or _items_problem(value, shape, place)
        or _object_problem(value, shape, place)
    )


def _kind_phrase(shape: JSONSchema) -> str:
    """``a string``, ``an integer``, ``an array of strings``: the kind a shape asks for."""
    kind = str(shape["type"])
    phrase = f"a{'n' if kind[0] in 'aeiou' else ''} {kind}"
    item_kind = shape.get("items", {}).get("type") if kind == "array" else None
    return f"{phrase} of {item_kind}s" if item_kind else phrase


def _wrong(described: Any, place: _Place) -> str:
    """A wrong value as named, then what the argument is for."""
    return f"{describe_json(described)}; {place.argument.description}"


def _quoted(value: Any) -> str:
    return repr(value[:_QUOTED]) if isinstance(value, str) else describe_json(value)


def _value_problem(value: Any, shape: JSONSchema, place: _Place) -> str | None:
    """enum; then minimum and maximum of a number, or the pattern of a string."""
    where = place.where
    allowed = shape.get("enum")
    normalised = place.top and place.argument.key in place.options.normalised
    if allowed is not None and value not in allowed and not normalised:
        leave_out = f", or leave {place.argument.key} out" if not place.argument.required else ""
        return (
            f"{where} {_quoted(value)} is not one of {', '.join(map(str, allowed))}; give one "
            f"of them as written{leave_out}; {place.argument.description}"
        )
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _range_problem(value, shape, where)
    pattern = shape.get("pattern")
    if isinstance(value, str) and pattern is not None:
        matches, refusal = PATTERN_RULES[pattern]  # a pattern unknown here is a contract bug
        if not matches(value):
            return f"{where} {_quoted(value)} {refusal}"
    return None


def _range_problem(value: float, shape: JSONSchema, where: str) -> str | None:
    """minimum and maximum, of a number: both are said as one range."""
    low, high = shape.get("minimum"), shape.get("maximum")
    if low is not None and high is not None and not low <= value <= high:
        whole = "a whole number" if shape.get("type") == "integer" else "a number"
        return f"{where} must be {whole} from {low} to {high}, but it is {value}"
    if low is not None and value < low:
        return f"{where} must be at least {low}, but it is {value}"
    if high is not None and value > high:
        return f"{where} must be at most {high}, but it is {value}"
    return None


def _length_problem(value: Any, shape: JSONSchema, place: _Place) -> str | None:
    """minLength and maxLength, of a string."""
    if not isinstance(value, str):
        return None
    shortest, longest = shape.get("minLength"), shape.get("maxLength")
    if shortest is not None and len(value) < shortest:
        if shortest == 1:
            return f"{place.where} must not be empty"
        return f"{place.where} is {len(value)} characters, below the minimum of {shortest}"
    if longest is not None and len(value) > longest:
        fix = place.options.too_long_fix
        return f"{place.where} is {len(value)} characters, above the limit of {longest}" + (
            f"; {fix}" if fix else ""
        )
    return None


def _items_problem(value: Any, shape: JSONSchema, place: _Place) -> str | None:
    """Each item of an array: a wrong kind is said of the array, anything else of the item."""
    items: JSONSchema | None = shape.get("items")
    if shape.get("type") != "array" or items is None:
        return None
    item_kind = items.get("type")
    for index, item in enumerate(value):
        if item_kind is not None and type(item) not in _TYPES[item_kind]:
            return (
                f"{place.where} must be {_kind_phrase(shape)}, but its item {index} is "
                f"{_wrong(item, place)}"
            )
        problem = _shape_problem(item, items, place.inner(f"{place.where}[{index}]"))
        if problem is not None:
            return problem
    return None


def _object_problem(value: Any, shape: JSONSchema, place: _Place) -> str | None:
    """required, additionalProperties and each property of an object."""
    if shape.get("type") != "object":
        return None
    properties: dict[str, JSONSchema] = shape.get("properties", {})
    for key in shape.get("required", ()):
        if key not in value:
            return f"{place.where} needs {key}"
    if shape.get("additionalProperties") is False:
        extra = first_unknown_key(value, properties)
        if extra is not None:
            keys = ", ".join(properties)
            return f"{place.where} has no key {str(extra)[:_QUOTED]!r}; its keys are {keys}"
    for key, item in value.items():
        if key in properties:
            problem = _shape_problem(item, properties[key], place.inner(f"{place.where}.{key}"))
            if problem is not None:
                return problem
    return None
