"""The engine's six tools (set, get, eval, record_start, record_message, record_end) and
the tagged value's JSON shape they take and answer."""

from __future__ import annotations

from .dimensions import ALL_NAMES
from .limits import (
    MAX_FORMULA_LENGTH,
    MAX_READINGS,
    MAX_TEXT_LENGTH,
    MAX_UNIT_LENGTH,
)
from .tools import NAME_SCHEMA_PATTERN, Argument, JSONSchema, Null, Tool, property_schema

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
# A reading's spelling of its numbers (issue 27), accepted back when it spells the same: a
# real's numeral, a complex's two ("3.000+4.000i", "5.000\u22200.9273"), an array's one per
# element, nested as the array is.
_READING_TEXT: JSONSchema = {"type": "string", "maxLength": MAX_TEXT_LENGTH}
_PAIR_TEXT: JSONSchema = {"type": "string", "maxLength": 2 * MAX_TEXT_LENGTH + 2}
_ARRAY_TEXT: JSONSchema = {"type": "array", "items": {"$ref": "#/$defs/text"}}
_ELEMENT_TEXT: JSONSchema = {
    "description": "One element's text in an array reading: a string, or a nested list.",
    "anyOf": [_PAIR_TEXT, _ARRAY_TEXT],
}

_VALUE: JSONSchema = {
    "description": (
        "A tagged value carrying exactly one tag, with its dim or its unit: "
        '{"num": 4700, "dim": "ohm"} or {"num": 4.7, "unit": "kOhm"} a real (a reading\'s '
        '"text" may stand beside any tag but object when it spells its numbers); '
        '{"re": 3, "im": 4, "dim": ...} a complex; '
        '{"mag": 5, "ang": 0.9273, "dim": ...} a polar complex (radians, stored rectangular); '
        '{"array": [1, 2, 3], "unit": "mm"} an array of bare elements sharing one dim or unit; '
        '{"object": {"field": <value>, ...}} an object, a dim or unit per field and none '
        "beside it."
    ),
    "anyOf": [
        _tagged("real", {"num": _NUMBER, "text": _READING_TEXT}, ["num"]),
        _tagged(
            "complex, rectangular",
            {"re": _NUMBER, "im": _NUMBER, "text": _PAIR_TEXT},
            ["re", "im"],
        ),
        _tagged(
            "complex, polar (radians)",
            {"mag": _NUMBER, "ang": _NUMBER, "text": _PAIR_TEXT},
            ["mag", "ang"],
        ),
        _tagged(
            "array",
            {
                "array": {"type": "array", "items": {"$ref": "#/$defs/element"}},
                "text": _ARRAY_TEXT,
            },
            ["array"],
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
    "text": _ELEMENT_TEXT,
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
    "Round every leaf to this many significant digits, half away from zero. The reading "
    "also carries text, the number spelled to exactly that many digits with trailing zeros "
    "kept ({num: 68, text: '68.00'}); a complex each part so ('3.000+4.000i', polar "
    "'5.000\u22200.9273'), an array one text per element, nested as the array: quote text. "
    "Only for presenting; a rounded receipt fed back to set stores rounded numbers.",
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
                "Quote numbers only as a receipt showed them or the title holds them; any "
                "other number is kept but named in the receipt's warnings.",
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
                "An optional closing text: the answer in words, citing get results; a "
                "number no receipt showed and the title does not hold is named in the "
                "receipt's warnings.",
            ),
        ),
    ),
)


TOOL_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}
TOOL_NAMES: tuple[str, ...] = tuple(TOOL_BY_NAME)
READ_KEYS: tuple[str, ...] = tuple(a.key for a in READ_OPTIONS)
