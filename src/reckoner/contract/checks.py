"""The checks every tool's arguments share, worded once: they are one JSON object, and every
key is one the tool's contract entry names.

Pure and light (the pitfalls server loads it without numpy). Each surface turns a sentence
into a refusal with its own code: the engine's ENGINE_INVALID_ARGS, the pitfalls memory's,
compute's MATH_ code.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from .tools import Tool


def describe_json(raw: Any) -> str:
    """A JSON argument as a refusal names it: its kind, and its value where that is short."""
    if raw is None:
        return "null"
    if isinstance(raw, bool):
        return f"the boolean {str(raw).lower()}"
    if isinstance(raw, int | float):
        return f"the number {raw!r}"
    if isinstance(raw, str):
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
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
    return f"{tool} has no argument {str(key)[:40]!r}; its arguments are {', '.join(keys)}"


def envelope_problem(tool: Tool, args: object) -> str | None:
    """What is wrong with the arguments' envelope (not an object, an unknown key), or None."""
    if not isinstance(args, dict):
        return not_an_object(tool.name, tool.keys, args)
    extra = first_unknown_key(args, tool.keys)
    return None if extra is None else no_such_argument(tool.name, tool.keys, extra)
