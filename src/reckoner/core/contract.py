"""The tool contract: the six tools, their arguments and the name rule, as data.

The one place the contract is spelled. The engine's argument checks, the MCP input schemas,
the CLI help and the skills' tests derive from it; nothing here checks or renders anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from . import limits, pitfall_terms
from .dimensions import ALL_NAMES
from .limits import (
    MAX_COMPUTE_SCRIPT_LENGTH,
    MAX_FORMULA_LENGTH,
    MAX_QUESTION_LENGTH,
    MAX_READINGS,
    MAX_TEXT_LENGTH,
    MAX_UNIT_LENGTH,
    MIN_COMPUTE_TIMEOUT_MS,
)

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


# -- shared shapes ---------------------------------------------------------------------

_SLOT_NAME: JSONSchema = {
    "type": "string",
    "pattern": NAME_SCHEMA_PATTERN,
    "description": (
        "A bare slot name: a letter or underscore, then letters, digits or underscores "
        "(R1, v_out). Never '@R1': the @ form exists only inside a formula."
    ),
}

_DIM_SPELLINGS: list[JSONSchema] = [
    {"type": "string", "enum": list(ALL_NAMES)},
    {"type": "array", "items": {"type": "integer"}, "minItems": 7, "maxItems": 7},
]

_UNIT: JSONSchema = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_UNIT_LENGTH,
    "description": (
        "A unit expression in ASCII: unit names with SI prefixes joined by * and /, each with "
        "an optional integer power ^n, one level of parentheses (kOhm, km/h, kg/m^3, mPa*s, "
        "degF, delta_degC). The engine converts to SI itself."
    ),
}

_DIM_IN_VALUE: JSONSchema = {
    "description": (
        "The value's SI dimension: a table name (the vector of that row; 'degC' also shifts "
        "by +273.15), or 7 integer exponents in the order m, kg, s, A, K, mol, cd "
        "(e.g. [1,0,-1,0,0,0,0] for a speed). Omitted or null means dimensionless. Beside "
        "unit it may only repeat the unit's vector, as a get receipt does."
    ),
    "anyOf": [*_DIM_SPELLINGS, {"type": "null"}],
}

_UNIT_IN_VALUE: JSONSchema = {
    "description": (
        "Instead of dim: the unit the numbers are written in, converted to SI on entry "
        "({'num': 4.7, 'unit': 'kOhm'} stores 4700 ohm). Omitted or null: no unit."
    ),
    "anyOf": [{k: v for k, v in _UNIT.items() if k != "description"}, {"type": "null"}],
}

_ELEMENT: JSONSchema = {
    "description": (
        "An array element, bare (no tag, no dim): a number, {re, im}, {mag, ang} "
        "or a nested array. Every element shares the array's one dim or unit."
    ),
    "anyOf": [
        {"type": "number"},
        {
            "type": "object",
            "properties": {"re": {"type": "number"}, "im": {"type": "number"}},
            "required": ["re", "im"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"mag": {"type": "number"}, "ang": {"type": "number"}},
            "required": ["mag", "ang"],
            "additionalProperties": False,
        },
        {"type": "array", "items": {"$ref": "#/$defs/element"}},
    ],
}


def _tagged(title: str, payload: dict[str, JSONSchema], required: list[str]) -> JSONSchema:
    return {
        "title": title,
        "type": "object",
        "properties": {
            **payload,
            "dim": {"$ref": "#/$defs/dim"},
            "unit": {"$ref": "#/$defs/unit"},
        },
        "required": required,
        "additionalProperties": False,
    }


_NUMBER: JSONSchema = {"type": "number"}
# A reading's spelling of num (issue 27), accepted back beside num when it spells the same.
_READING_TEXT: JSONSchema = {"type": "string", "maxLength": MAX_TEXT_LENGTH}

_VALUE: JSONSchema = {
    "description": (
        "A tagged value carrying exactly one tag, with its dim or its unit: "
        '{"num": 4700, "dim": "ohm"} or {"num": 4.7, "unit": "kOhm"} a real (a reading\'s '
        '"text" may stand beside num when it spells num); '
        '{"re": 3, "im": 4, "dim": ...} a complex; '
        '{"mag": 5, "ang": 0.9273, "dim": ...} a polar complex (radians, stored rectangular); '
        '{"array": [1, 2, 3], "unit": "mm"} an array of bare elements sharing one dim or unit; '
        '{"object": {"field": <value>, ...}} an object, a dim or unit per field and none '
        "beside it."
    ),
    "anyOf": [
        _tagged("real", {"num": _NUMBER, "text": _READING_TEXT}, ["num"]),
        _tagged("complex, rectangular", {"re": _NUMBER, "im": _NUMBER}, ["re", "im"]),
        _tagged("complex, polar (radians)", {"mag": _NUMBER, "ang": _NUMBER}, ["mag", "ang"]),
        _tagged(
            "array", {"array": {"type": "array", "items": {"$ref": "#/$defs/element"}}}, ["array"]
        ),
        {
            "title": "object",
            "type": "object",
            "properties": {
                "object": {
                    "type": "object",
                    "propertyNames": {"pattern": NAME_SCHEMA_PATTERN},
                    "additionalProperties": {"$ref": "#/$defs/value"},
                }
            },
            "required": ["object"],
            "additionalProperties": False,
        },
    ],
}

VALUE_DEFS: JSONSchema = {
    "dim": _DIM_IN_VALUE,
    "unit": _UNIT_IN_VALUE,
    "element": _ELEMENT,
    "value": _VALUE,
}
"""The `$defs` the `set` schema refers to (`#/$defs/value`)."""

# -- get's reading options, shared by get and eval's read ----------------------------------

_FORM = Argument(
    "form",
    False,
    Null.ABSENT,
    {"type": "string", "enum": ["rect", "polar"]},
    "Render every scalar leaf as {re, im} ('rect') or {mag, ang} in radians ('polar'). "
    "Omit for the stored form (a real stays {num}).",
)
_DIGITS = Argument(
    "digits",
    False,
    Null.ABSENT,
    {"type": "integer", "minimum": 1},
    "Round every leaf to this many significant digits, half away from zero. A real reading "
    "also carries text, the number spelled to exactly that many digits with trailing zeros "
    "kept ({num: 68, text: '68.00'}): quote text. Only for presenting; a rounded receipt fed "
    "back to set stores rounded numbers.",
)
_DIM = Argument(
    "dim",
    False,
    Null.ABSENT,
    {"anyOf": _DIM_SPELLINGS},
    "A claim about the stored dimension. A table name must be a row of the stored vector and "
    "converts the leaves into it (e.g. 'degC' from kelvin); 7 integers must equal the stored "
    "vector and convert nothing. A mismatch is refused with ENGINE_INCOMPATIBLE_DIMENSION. "
    "To read in another unit use unit.",
)
_UNIT_OUT = Argument(
    "unit",
    False,
    Null.ABSENT,
    _UNIT,
    "Read the value in this unit (mW, kWh, min, mm, degF); its vector must equal the stored "
    "one. degC/degF read an absolute temperature, delta_degC/delta_degF a difference. The "
    "receipt carries unit and dim and can be fed back into set unchanged.",
)
READ_OPTIONS: tuple[Argument, ...] = (_FORM, _DIGITS, _DIM, _UNIT_OUT)
"""get's options, in order; the `read` of set and eval takes the same."""


# -- tools a server option switches on (issue 13) ------------------------------------------

PITFALLS_OPTION = "pitfalls"
"""``reckoner serve --pitfalls`` (any preset) and ``reckoner pitfalls serve``."""


_LINE: JSONSchema = {"type": "string"}
_TAGS: JSONSchema = {"type": "array", "items": {"type": "string"}}
PITFALL_STATUSES = pitfall_terms.PITFALL_STATUSES
_STATUS: JSONSchema = {"type": "string", "enum": list(PITFALL_STATUSES)}
_LIMIT: JSONSchema = {"type": "integer", "minimum": 1, "maximum": limits.MAX_PITFALL_RESULTS}
_STATUS_TEXT = (
    "solved (the default), workaround (it works but the cause stays) or open (no fix yet)."
)


def _lesson_fields(*, title_required: bool) -> tuple[Argument, ...]:
    def text(key: str, what: str) -> Argument:
        return Argument(key, False, Null.ABSENT, _LINE, what)

    return (
        Argument(
            "title",
            title_required,
            Null.REFUSED if title_required else Null.ABSENT,
            _LINE,
            "The lesson in one line, as you would search for it next time "
            "('eval refuses 2x: write 2*@x'). Cut to 200 characters.",
        ),
        text("area", "Where it happens: a tool, file, module or command. Cut to 200 characters."),
        text("symptom", "What you saw: the failing call and its error, in short."),
        text("cause", "Why it failed, once you know."),
        text("solution", "What works instead: the exact call, flag or step."),
        text("evidence", "The error text or output that proves it, verbatim."),
        Argument(
            "tags",
            False,
            Null.ABSENT,
            _TAGS,
            "Index words you would search by (tool names, error codes); at most 16 of 24 "
            "characters, trimmed and de-duplicated.",
        ),
        Argument("status", False, Null.ABSENT, _STATUS, _STATUS_TEXT),
    )


PITFALL_TOOLS: tuple[Tool, ...] = (
    Tool("pitfall_record", False, _lesson_fields(title_required=True), option=PITFALLS_OPTION),
    Tool(
        "pitfall_search",
        False,
        (
            Argument(
                "query",
                False,
                Null.ABSENT,
                _LINE,
                "Words of the task or the error (tool names, error codes, file names). "
                "Empty lists the most recent lessons.",
            ),
            Argument("tag", False, Null.ABSENT, _LINE, "Only lessons carrying exactly this tag."),
            Argument("limit", False, Null.ABSENT, _LIMIT, "At most this many lessons (default 5)."),
        ),
        option=PITFALLS_OPTION,
    ),
    Tool(
        "pitfall_update",
        False,
        (
            Argument(
                "id",
                True,
                Null.REFUSED,
                _LINE,
                "The lesson's id, as a record or search answered it (p-YYYYMMDD-HHMMSS-xxxx).",
            ),
            Argument(
                "note",
                False,
                Null.ABSENT,
                _LINE,
                "A dated note appended to the lesson: it happened again, the fix changed.",
            ),
            *(a for a in _lesson_fields(title_required=False)),
        ),
        option=PITFALLS_OPTION,
    ),
    Tool(
        "pitfall_list",
        False,
        (
            Argument("status", False, Null.ABSENT, _STATUS, "Only lessons with this status."),
            Argument("tag", False, Null.ABSENT, _LINE, "Only lessons carrying exactly this tag."),
            Argument(
                "limit", False, Null.ABSENT, _LIMIT, "At most this many lessons (default 10)."
            ),
        ),
        option=PITFALLS_OPTION,
    ),
    Tool(
        "pitfall_delete",
        False,
        (Argument("id", True, Null.REFUSED, _LINE, "The id of the lesson to delete."),),
        option=PITFALLS_OPTION,
    ),
    Tool(
        "pitfall_merge",
        False,
        (
            Argument("id", True, Null.REFUSED, _LINE, "The id of the lesson that stays."),
            Argument(
                "duplicate",
                True,
                Null.REFUSED,
                _LINE,
                "The id of the lesson folded into it (its notes, tags and any field the "
                "kept lesson lacks) and then deleted.",
            ),
        ),
        option=PITFALLS_OPTION,
    ),
)
"""The pitfalls memory's tools; served only with the pitfalls option on."""

OPTION_TOOLS: tuple[Tool, ...] = PITFALL_TOOLS
"""Every tool a server option switches on."""

OPTION_TOOL_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in OPTION_TOOLS}


def option_tools(options: frozenset[str] | set[str]) -> tuple[Tool, ...]:
    """The tools the given server options switch on, in order."""
    return tuple(tool for tool in OPTION_TOOLS if tool.option in options)


def property_schema(argument: Argument) -> JSONSchema:
    """One argument's JSON Schema; null is admitted exactly where the engine accepts it."""
    if not argument.admits_null:
        return {**argument.shape, "description": argument.description}
    return {"description": argument.description, "anyOf": [argument.shape, {"type": "null"}]}


_READ_ONE: JSONSchema = {
    "type": "object",
    "properties": {a.key: property_schema(a) for a in READ_OPTIONS},
    "additionalProperties": False,
}

_READ: JSONSchema = {
    "anyOf": [
        _READ_ONE,
        {"type": "array", "items": _READ_ONE, "minItems": 1, "maxItems": MAX_READINGS},
    ]
}

_TEXT: JSONSchema = {"type": "string", "minLength": 1}


def _read_argument(what: str, value: str) -> Argument:
    """The `read` of set and eval: get's options, once or as a list (issue 14)."""
    return Argument(
        "read",
        False,
        Null.ABSENT,
        _READ,
        f"Also read {what} back, as get would with these options ({{}} for none): the receipt "
        f"then carries value{value}, exactly as get renders it. Saves the get. A list of 1 to "
        f"{MAX_READINGS} such objects reads it once per object, and value is then the list of "
        'readings in the same order: [{"unit": "kJ"}, {"unit": "kWh"}] reads one energy in '
        "both units.",
    )


_SET_READ = _read_argument(
    "the stored value", " (instead of the SI echo); not with value null, which deletes"
)
_EVAL_READ = _read_argument("the result", "")

TOOLS: tuple[Tool, ...] = (
    Tool(
        "set",
        True,
        (
            Argument("name", True, Null.REFUSED, _SLOT_NAME, _SLOT_NAME["description"]),
            Argument(
                "value",
                True,
                Null.VALUE,
                {"$ref": "#/$defs/value"},
                "The value to store, as a tagged object with its dim or its unit "
                "(see $defs/value), or null to delete the slot.",
            ),
            _SET_READ,
        ),
    ),
    Tool(
        "get",
        True,
        (
            Argument("name", True, Null.REFUSED, _SLOT_NAME, _SLOT_NAME["description"]),
            *READ_OPTIONS,
        ),
    ),
    Tool(
        "eval",
        True,
        (
            Argument(
                "formula",
                True,
                Null.REFUSED,
                {"type": "string", "maxLength": MAX_FORMULA_LENGTH},
                "Exactly one expression in ASCII: numbers (12, 4.7, 2.5e-3, imaginary 2j), "
                "slots @name, @name[i], @name.field, + - * / ^ and parentheses, and the "
                "$notations ($pi, $sqrt(x), $atan2(x, y), $sum_{k=1}^{10}(k^2), ...). "
                "Multiplication is always written '*'. Literals are dimensionless; "
                "dimensions come from the slots.",
            ),
            Argument(
                "target",
                True,
                Null.REFUSED,
                _SLOT_NAME,
                "The bare slot name the result is written to (created at revision 1, "
                "or overwritten with revision + 1).",
            ),
            _EVAL_READ,
        ),
    ),
    Tool(
        "record_start",
        False,
        (
            Argument(
                "title",
                True,
                Null.REFUSED,
                _TEXT,
                "The question this record answers, in one line.",
            ),
        ),
    ),
    Tool(
        "record_message",
        True,
        (
            Argument(
                "text",
                True,
                Null.REFUSED,
                _TEXT,
                "One explanation for the record: why the next step, what a result means. "
                "Quote numbers only as they came back from get.",
            ),
            Argument(
                "hide",
                False,
                Null.ABSENT,
                {"type": "boolean"},
                "true marks the message as a note for the article writer, not for the record view.",
            ),
        ),
    ),
    Tool(
        "record_end",
        True,
        (
            Argument(
                "text",
                False,
                Null.ABSENT,
                {"type": "string"},
                "An optional closing text: the answer in words, citing get results.",
            ),
        ),
    ),
)

# -- tools that belong to a preset --------------------------------------------------------

PURE_PRESET = "reckoner"
"""The preset with the six tools and nothing else: no network, no search, no compute."""

SEARCH_PRESET = "reckoner-with-search"
COMPUTE_PRESET = "reckoner-with-compute"
SEARCH_AND_COMPUTE_PRESET = "reckoner-with-search-and-compute"
"""Both preset tools: their rules are the two one-tool presets' texts, composed."""

COMPUTE_ENGINES: tuple[str, ...] = (
    "python",
    "r",
    "octave",
    "julia",
    "matlab",
    "maple",
    "wolfram",
    "cli",
)
"""The engines compute knows, in its default probe order (one descriptor each)."""
COMPUTE_OPS: tuple[str, ...] = ("probe", "run", "receipt", "install")
COMPUTE_MODES: tuple[str, ...] = ("code", "file", "expr")

_STRINGS: JSONSchema = {"type": "array", "items": {"type": "string", "minLength": 1}}

COMPUTE_TOOL = Tool(
    "compute",
    False,
    (
        Argument(
            "op",
            True,
            Null.REFUSED,
            {"type": "string", "enum": list(COMPUTE_OPS)},
            "probe: which engines and packages this machine has; run: run code and archive a "
            "receipt; receipt: re-check an archived run by its runId; install: plan (dryRun) "
            "or execute (confirm) a package install.",
        ),
        Argument(
            "engine",
            False,
            Null.ABSENT,
            {"type": "string", "enum": list(COMPUTE_ENGINES)},
            "The engine to probe, run or install into. cli needs cli.command.",
        ),
        Argument(
            "mode",
            False,
            Null.ABSENT,
            {"type": "string", "enum": list(COMPUTE_MODES)},
            "code: the tool writes code to the archive and runs it (the default); file: run a "
            "file inside the project (copied into the archive); expr: one expression through "
            "the engine's eval form.",
        ),
        Argument(
            "code",
            False,
            Null.ABSENT,
            {"type": "string", "maxLength": MAX_COMPUTE_SCRIPT_LENGTH},
            "The script for mode code.",
        ),
        Argument(
            "file",
            False,
            Null.ABSENT,
            {"type": "string", "minLength": 1},
            "For mode file: a path relative to the project root. For op receipt: the runId.",
        ),
        Argument(
            "expr",
            False,
            Null.ABSENT,
            {"type": "string", "maxLength": MAX_COMPUTE_SCRIPT_LENGTH},
            "The expression for mode expr.",
        ),
        Argument(
            "packages",
            False,
            Null.ABSENT,
            _STRINGS,
            "Packages the run needs (checked by name before running; a missing one is "
            "reported, never installed) or that install should install: name, name[extras], "
            "name<op>version.",
        ),
        Argument(
            "timeoutMs",
            False,
            Null.ABSENT,
            {"type": "integer", "minimum": MIN_COMPUTE_TIMEOUT_MS},
            "The run's time limit in milliseconds; the whole process tree is killed after it.",
        ),
        Argument(
            "captureFiles",
            False,
            Null.ABSENT,
            _STRINGS,
            "Files inside the project the run writes, copied into the receipt's captured/.",
        ),
        Argument(
            "cli",
            False,
            Null.ABSENT,
            {
                "type": "object",
                "properties": {
                    "command": {"type": "string", "minLength": 1},
                    "argv": {"type": "array", "items": {"type": "string"}},
                    "stdin": {"type": "string"},
                },
                "required": ["command"],
                "additionalProperties": False,
            },
            "For engine cli: the program, its argv and an optional stdin (both part of the "
            "run id and archived as argv.json and stdin.txt); the archived script's path is "
            "appended unless argv already carries a program slot (-c, -e, ...).",
        ),
        Argument(
            "scope",
            False,
            Null.ABSENT,
            {"type": "string", "enum": ["user", "system"]},
            "For install: user (the default) or system; never remembered.",
        ),
        Argument(
            "dryRun",
            False,
            Null.ABSENT,
            {"type": "boolean"},
            "For install: true (the default) returns the plan and its planToken only.",
        ),
        Argument(
            "confirm",
            False,
            Null.ABSENT,
            {"type": "string", "minLength": 1},
            "For install: the planToken of the plan to execute, exactly as returned.",
        ),
    ),
    presets=(COMPUTE_PRESET, SEARCH_AND_COMPUTE_PRESET),
)

TOOL_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}
TOOL_NAMES: tuple[str, ...] = tuple(TOOL_BY_NAME)
READ_KEYS: tuple[str, ...] = tuple(a.key for a in READ_OPTIONS)

# -- tools a preset adds ------------------------------------------------------------------

SEARCH_TOOL = Tool(
    "search",
    True,
    (
        Argument(
            "question",
            True,
            Null.REFUSED,
            {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_LENGTH},
            "The one fact you need, asked as a question in one sentence "
            "('What is the density of copper at 20 degC?'). Forwarded verbatim. Never ask "
            "the lookup to compute, convert, round or derive anything.",
        ),
    ),
    (SEARCH_PRESET, SEARCH_AND_COMPUTE_PRESET),
)

PRESET_TOOLS: tuple[Tool, ...] = (SEARCH_TOOL, COMPUTE_TOOL)
"""Tools that exist only in the presets that name them, in the order a preset lists them."""

PRESET_TOOL_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in PRESET_TOOLS}
ANY_TOOL_BY_NAME: dict[str, Tool] = {**TOOL_BY_NAME, **PRESET_TOOL_BY_NAME}
"""Every tool any preset serves, by name."""

PRESET_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            PURE_PRESET,
            *(tool.presets[0] for tool in PRESET_TOOLS),
            *(name for tool in PRESET_TOOLS for name in tool.presets),
        ]
    )
)
"""Every preset, from the tools: the pure one, the one-tool presets, then the combined."""


def added_tools(preset: str) -> tuple[Tool, ...]:
    """The tools a preset adds to the six, in ``PRESET_TOOLS`` order."""
    return tuple(tool for tool in PRESET_TOOLS if preset in tool.presets)


def tools_of(preset: str) -> tuple[Tool, ...]:
    """The tools one preset serves, in order: the six, then the preset's own."""
    return TOOLS + added_tools(preset)
