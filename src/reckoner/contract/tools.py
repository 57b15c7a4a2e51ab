"""A tool as data: its name, its arguments in order, and what null means for each.

Every tool of every family is one ``Tool``; the engine's argument checks, the MCP input
schemas, the CLI help and the skills derive from these records."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

JSONSchema = dict[str, Any]

NAME_RULE = "a letter or underscore, then ASCII letters, digits or underscores"
NAME_SCHEMA_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$"


class Null(Enum):
    """What a JSON null in an argument's place means to the engine."""

    REFUSED = "refused"  # null is refused, as a missing required argument is
    ABSENT = "absent"  # null means the same as leaving the key out
    VALUE = "value"  # null carries a meaning of its own (set's value: delete the slot)


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of one tool."""

    key: str
    required: bool
    null: Null
    shape: JSONSchema  # the JSON shape of a non-null value
    description: str

    @property
    def admits_null(self) -> bool:
        return self.null is not Null.REFUSED


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool: its name, whether it needs an open record, and its arguments in order.

    ``presets`` is empty for the six tools every preset serves; for a tool a preset adds, it
    names every preset that serves the tool, the tool's own first: the one-tool preset
    whose persona text holds the tool's rules (and, for ``search``, whose file holds its
    policy layer). ``search``'s own preset is ``reckoner-with-search``, ``compute``'s is
    ``reckoner-with-compute``, and both are served by ``reckoner-with-search-and-compute``;
    the engine itself answers only the six.
    """

    name: str
    needs_open_record: bool
    arguments: tuple[Argument, ...]
    presets: tuple[str, ...] = ()

    @property
    def own_preset(self) -> str | None:
        """The one-tool preset the tool's rules ship with; None for the six."""
        return self.presets[0] if self.presets else None

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(a.key for a in self.arguments)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(a.key for a in self.arguments if a.required)

    # None for a tool always served; else the server option that switches it on
    # (``pitfalls`` for the pitfall_* tools of issues 13 and 26).
    option: str | None = None

    def signature(self) -> str:
        """The call as the skills and the CLI help write it: ``get {name, form?, ...}``."""
        keys = ", ".join(a.key if a.required else f"{a.key}?" for a in self.arguments)
        return f"{self.name} {{{keys}}}"


def property_schema(argument: Argument) -> JSONSchema:
    """One argument's JSON Schema; null is admitted exactly where the engine accepts it."""
    if not argument.admits_null:
        return {**argument.shape, "description": argument.description}
    return {"description": argument.description, "anyOf": [argument.shape, {"type": "null"}]}
