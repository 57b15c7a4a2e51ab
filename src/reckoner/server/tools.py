"""The six tools as a model sees them: names, descriptions and input JSON Schemas.

The schemas document every argument and the tagged value shapes, but nothing here enforces
them: the engine judges arguments and answers a receipt a model can act on.
"""

from __future__ import annotations

from typing import Any

from reckoner.core.dimensions import ALL_NAMES
from reckoner.core.limits import MAX_FORMULA_LENGTH

TOOL_NAMES: tuple[str, ...] = ("set", "get", "eval", "record_start", "record_message", "record_end")

_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$"

_SLOT_NAME: dict[str, Any] = {
    "type": "string",
    "pattern": _NAME_PATTERN,
    "description": (
        "A bare slot name: a letter or underscore, then letters, digits or underscores "
        "(R1, v_out). Never '@R1': the @ form exists only inside a formula."
    ),
}

_DIM: dict[str, Any] = {
    "description": (
        "The value's SI dimension: a table name (the vector of that row; 'degC' also shifts "
        "by +273.15), or 7 integer exponents in the order m, kg, s, A, K, mol, cd "
        "(e.g. [1,0,-1,0,0,0,0] for a speed). Omitted or null means dimensionless."
    ),
    "anyOf": [
        {"type": "string", "enum": list(ALL_NAMES)},
        {"type": "array", "items": {"type": "integer"}, "minItems": 7, "maxItems": 7},
        {"type": "null"},
    ],
}

_ELEMENT: dict[str, Any] = {
    "description": (
        "An array element, bare (no tag, no dim): a number, {re, im}, {mag, ang} "
        "or a nested array. Every element shares the array's one dim."
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

_VALUE: dict[str, Any] = {
    "description": (
        "A tagged value carrying exactly one tag, already in SI units: "
        '{"num": 4700, "dim": "ohm"} a real; {"re": 3, "im": 4, "dim": ...} a complex; '
        '{"mag": 5, "ang": 0.9273, "dim": ...} a polar complex (radians, stored rectangular); '
        '{"array": [1, 2, 3], "dim": ...} an array of bare elements sharing one dim; '
        '{"object": {"field": <value>, ...}} an object, a dim per field and none beside it.'
    ),
    "anyOf": [
        {
            "title": "real",
            "type": "object",
            "properties": {"num": {"type": "number"}, "dim": {"$ref": "#/$defs/dim"}},
            "required": ["num"],
            "additionalProperties": False,
        },
        {
            "title": "complex, rectangular",
            "type": "object",
            "properties": {
                "re": {"type": "number"},
                "im": {"type": "number"},
                "dim": {"$ref": "#/$defs/dim"},
            },
            "required": ["re", "im"],
            "additionalProperties": False,
        },
        {
            "title": "complex, polar (radians)",
            "type": "object",
            "properties": {
                "mag": {"type": "number"},
                "ang": {"type": "number"},
                "dim": {"$ref": "#/$defs/dim"},
            },
            "required": ["mag", "ang"],
            "additionalProperties": False,
        },
        {
            "title": "array",
            "type": "object",
            "properties": {
                "array": {"type": "array", "items": {"$ref": "#/$defs/element"}},
                "dim": {"$ref": "#/$defs/dim"},
            },
            "required": ["array"],
            "additionalProperties": False,
        },
        {
            "title": "object",
            "type": "object",
            "properties": {
                "object": {
                    "type": "object",
                    "propertyNames": {"pattern": _NAME_PATTERN},
                    "additionalProperties": {"$ref": "#/$defs/value"},
                }
            },
            "required": ["object"],
            "additionalProperties": False,
        },
    ],
}

_DEFS: dict[str, Any] = {"dim": _DIM, "element": _ELEMENT, "value": _VALUE}


def _schema(
    properties: dict[str, Any], required: list[str], *, with_defs: bool = False
) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    if with_defs:
        schema["$defs"] = _DEFS
    return schema


_RECEIPT_FAILURE = (
    'On failure every tool answers {"ok": false, "code": "ENGINE_...", "error": "<one sentence: '
    'what failed, the limit, the fix>"}; a failed call changes nothing. Read the sentence and '
    "call again with the fix."
)

INPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "set": _schema(
        {
            "name": _SLOT_NAME,
            "value": {
                "description": (
                    "The value to store, as a tagged object in SI (see $defs/value), "
                    "or null to delete the slot."
                ),
                "anyOf": [{"$ref": "#/$defs/value"}, {"type": "null"}],
            },
        },
        ["name", "value"],
        with_defs=True,
    ),
    "get": _schema(
        {
            "name": _SLOT_NAME,
            "form": {
                "type": "string",
                "enum": ["rect", "polar"],
                "description": (
                    "Render every scalar leaf as {re, im} ('rect') or {mag, ang} in radians "
                    "('polar'). Omit for the stored form (a real stays {num})."
                ),
            },
            "digits": {
                "type": "integer",
                "minimum": 1,
                "description": (
                    "Round every leaf to this many significant digits (never padded). "
                    "Only for presenting; a rounded receipt fed back to set stores rounded numbers."
                ),
            },
            "dim": {
                "description": (
                    "A claim about the stored dimension. A table name must be a row of the "
                    "stored vector and converts the leaves into it (e.g. 'degC' from kelvin); "
                    "7 integers must equal the stored vector and convert nothing. A mismatch is "
                    "refused with ENGINE_INCOMPATIBLE_DIMENSION."
                ),
                "anyOf": [
                    {"type": "string", "enum": list(ALL_NAMES)},
                    {"type": "array", "items": {"type": "integer"}, "minItems": 7, "maxItems": 7},
                ],
            },
        },
        ["name"],
    ),
    "eval": _schema(
        {
            "formula": {
                "type": "string",
                "maxLength": MAX_FORMULA_LENGTH,
                "description": (
                    "Exactly one expression in ASCII: numbers (12, 4.7, 2.5e-3, imaginary 2j), "
                    "slots @name, @name[i], @name.field, + - * / ^ and parentheses, and the "
                    "$notations ($pi, $sqrt(x), $atan2(x, y), $sum_{k=1}^{10}(k^2), ...). "
                    "Multiplication is always written '*'. Literals are dimensionless; "
                    "dimensions come from the slots."
                ),
            },
            "target": {
                **_SLOT_NAME,
                "description": (
                    "The bare slot name the result is written to (created at revision 1, "
                    "or overwritten with revision + 1)."
                ),
            },
        },
        ["formula", "target"],
    ),
    "record_start": _schema(
        {
            "title": {
                "type": "string",
                "minLength": 1,
                "description": "The question this record answers, in one line.",
            }
        },
        ["title"],
    ),
    "record_message": _schema(
        {
            "text": {
                "type": "string",
                "minLength": 1,
                "description": (
                    "One explanation for the record: why the next step, what a result means. "
                    "Quote numbers only as they came back from get."
                ),
            },
            "hide": {
                "type": "boolean",
                "description": (
                    "true marks the message as a note for the article writer, not for the "
                    "record view."
                ),
            },
        },
        ["text"],
    ),
    "record_end": _schema(
        {
            "text": {
                "type": "string",
                "description": "An optional closing text: the answer in words, citing get results.",
            }
        },
        [],
    ),
}

TITLES: dict[str, str] = {
    "set": "Store a given quantity",
    "get": "Read a slot's value",
    "eval": "Evaluate one formula into a slot",
    "record_start": "Open a record for a question",
    "record_message": "Explain a step in the record",
    "record_end": "Close the record",
}

DESCRIPTIONS: dict[str, str] = {
    "set": (
        "Store one given quantity, transcribed as given and already converted to SI, in a "
        "slot of the open record. Nothing is computed here: arithmetic happens only in eval. "
        'Answers {"ok": true, "name", "rev", "value"} echoing what was stored, its dim as '
        "7 integers (rev starts at 1 and grows by 1 on each overwrite); value null deletes "
        'the slot and answers rev null. Example: {"name": "R1", "value": {"num": 4700, '
        '"dim": "ohm"}}. Most common mistake: a value still in a non-SI unit (4.7 for '
        "4.7 kOhm, 10 for 10 mH): convert to SI first (4700 ohm, 0.01 henry), because the "
        "table holds SI names only. " + _RECEIPT_FAILURE
    ),
    "get": (
        "Read one slot of the open record; the only tool that returns a value. Answers "
        '{"ok": true, "name", "value"} where value is the tagged shape set accepts, with dim '
        "spelled as the vector's first table name (or 7 integers when no row has it). "
        "Options: form 'rect' or 'polar', digits (significant digits), dim (a claim about "
        "the vector; a table name also converts, e.g. 'degC'). Quote numbers in your answer "
        "only from get receipts. Most common mistake: asking for '@Vout' or a unit the table "
        "does not hold ('mA', 'kOhm'): name is bare, and dim accepts only table names "
        "or 7 integers. " + _RECEIPT_FAILURE
    ),
    "eval": (
        "Evaluate exactly one formula against the slot table and write the result into the "
        "target slot; the engine derives and checks the SI dimension of every intermediate. "
        'Answers {"ok": true, "target", "rev"} and NOT the value: read it with get, or use '
        "it as @target in the next formula. Write one eval per step of the derivation, so "
        "every step is on record. Most common mistake: implicit multiplication or bare "
        "names ('2@R', '2x', 'R1+R2'): write '2*@R' and '@R1+@R2'; adding a dimensionless "
        "number to a dimensional slot ('@R+1') is refused too. " + _RECEIPT_FAILURE
    ),
    "record_start": (
        "Open a record, titled with the question it answers. Every question is carried by "
        "a record: set, get, eval, record_message and record_end are refused until one is "
        'open. Answers {"ok": true}. Most common mistake: starting while a record is still '
        "open (ENGINE_OPEN_RECORD_FOUND): finish the previous one with record_end first. "
        + _RECEIPT_FAILURE
    ),
    "record_message": (
        "Append one explanation to the open record: what the next step does and why, or what "
        'a result means. Answers {"ok": true}. hide: true makes it a note for the article '
        "writer. Most common mistake: quoting a number worked out in your head: every number "
        "in a message must be one a get receipt showed. " + _RECEIPT_FAILURE
    ),
    "record_end": (
        "Close the open record with an optional closing text; the record is filed and the "
        'slot table is cleared. Answers {"ok": true}. Most common mistake: closing before '
        "reading the results you need with get: after record_end no slot exists any more. "
        + _RECEIPT_FAILURE
    ),
}
