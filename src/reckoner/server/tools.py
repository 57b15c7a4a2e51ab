"""The tools as a model sees them: names, descriptions and input JSON Schemas.

The six tools every preset serves, and the tools a preset adds (``search``, ``compute``).

The schemas document every argument and the tagged value shapes, but nothing here enforces
them: the engine judges arguments and answers a receipt a model can act on.
"""

from __future__ import annotations

from typing import Any

from reckoner.contract.engine import TOOL_NAMES, VALUE_DEFS
from reckoner.contract.limits import MAX_READINGS
from reckoner.contract.registry import ANY_TOOL_BY_NAME
from reckoner.contract.tools import property_schema

__all__ = ["DESCRIPTIONS", "INPUT_SCHEMAS", "TITLES", "TOOL_NAMES"]


def _schema(name: str) -> dict[str, Any]:
    tool = ANY_TOOL_BY_NAME[name]
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {a.key: property_schema(a) for a in tool.arguments},
        "required": list(tool.required),
        "additionalProperties": False,
    }
    if any("$ref" in a.shape for a in tool.arguments):
        schema["$defs"] = VALUE_DEFS
    return schema


_RECEIPT_FAILURE = (
    'On failure every tool answers {"ok": false, "code": "ENGINE_...", "error": "<one sentence: '
    'what failed, the limit, the fix>"}; a failed call changes nothing. Read the sentence and '
    "call again with the fix."
)

_PROSE = (
    "A text quoting a number that no receipt of the record showed (at the digits shown) and "
    'the title does not hold is kept, and the receipt is {"ok": true, "warnings": ["<one '
    'sentence per such number, naming it and the nearest number the record holds>"]}, the '
    "row carrying the same warnings: correct the number at once, quoting the receipt."
)

INPUT_SCHEMAS: dict[str, dict[str, Any]] = {name: _schema(name) for name in ANY_TOOL_BY_NAME}

TITLES: dict[str, str] = {
    "set": "Store a given quantity",
    "get": "Read a slot's value",
    "eval": "Evaluate one formula into a slot",
    "record_start": "Open a record for a question",
    "record_message": "Explain a step in the record",
    "record_end": "Close the record",
    "search": "Look up one sourced fact",
    "compute": "Run an engine (Python, R, Octave, ...) and archive a receipt",
}

DESCRIPTIONS: dict[str, str] = {
    "set": (
        "Store one given quantity in a slot of the open record, transcribed exactly as given: "
        "the number and its unit unchanged. Nothing is computed here: arithmetic happens only "
        'in eval. Answers {"ok": true, "name", "rev", "value"} echoing the stored SI value, '
        "its dim as 7 integers (rev starts at 1 and grows by 1 on each overwrite); value null "
        'deletes the slot and answers rev null. Example: {"name": "R1", "value": {"num": 4.7, '
        '"unit": "kOhm"}} stores 4700 ohm; {"num": 100, "unit": "km/h"}, {"num": 998, '
        '"unit": "kg/m^3"}, {"num": 98.6, "unit": "degF"} and {"array": [1, 2], "unit": "mm"} '
        f"work alike. With read (get's options, or a list of up to {MAX_READINGS} of them) "
        "value is instead "
        "the stored value as get would render it, so a given is converted in the same call: "
        '{"name": "T", "value": {"num": 98.6, "unit": "degF"}, "read": {"unit": "degC"}}. '
        "Most common mistake: converting the number yourself (4700 for 4.7 kOhm) "
        "or writing a non-SI number with an SI dim (4.7 with dim ohm): give the unit as "
        "given, the engine converts. " + _RECEIPT_FAILURE
    ),
    "get": (
        "Read one slot of the open record. Answers "
        '{"ok": true, "name", "value"} where value is the tagged shape set accepts, with dim '
        "spelled as the vector's first table name (or 7 integers when no row has it). "
        "Options: unit (read in any unit of the stored vector: 'mW', 'kWh', 'min', 'mi/h'; "
        "'degC' for a temperature level, 'delta_degC' for a difference), digits (significant "
        "digits, ties away from zero), form 'rect' or 'polar', dim (a claim about the "
        'vector). {"name": "P", "unit": "mW", "digits": 4} answers {"num": 30.64, "unit": '
        '"mW", "dim": "watt"}, which set takes back unchanged. Quote numbers in your answer '
        "only from receipts. Most common mistake: converting a result in prose, or '@P' for "
        "the name: ask with unit, and name is bare. " + _RECEIPT_FAILURE
    ),
    "eval": (
        "Evaluate exactly one formula against the slot table and write the result into the "
        "target slot; the engine derives and checks the SI dimension of every intermediate. "
        'Answers {"ok": true, "target", "rev"}; with read (get\'s options: unit, digits, '
        "form, dim) it also answers value, exactly as get would render it: "
        '{"formula": "@V^2/@R", "target": "P", "read": {"unit": "mW", "digits": 4}}; a list '
        f"of up to {MAX_READINGS} option objects answers a list of readings in order "
        '("read": [{"unit": "kJ"}, {"unit": "kWh"}] for one energy in two units). '
        "Write one eval per step of the derivation, so every step is on record, and use the "
        "result as @target in the next formula. Most common mistake: implicit "
        "multiplication or bare names ('2@R', '2x', 'R1+R2', '2*pi'): write '2*@R', "
        "'@R1+@R2', '2*$pi'; adding a dimensionless number to a dimensional slot ('@R+1') is "
        "refused too. " + _RECEIPT_FAILURE
    ),
    "record_start": (
        "Open a record, titled with the question it answers and its givens. Every question "
        "is carried by a record: set, get, eval, record_message and record_end are refused "
        'until one is open. Answers {"ok": true}. Most common mistake: starting while a '
        "record is still open (ENGINE_OPEN_RECORD_FOUND): finish the previous one with "
        "record_end first. " + _RECEIPT_FAILURE
    ),
    "record_message": (
        "Append one explanation to the open record: what the next step does and why, or what "
        'a result means. Answers {"ok": true}. hide: true makes it a note for the article '
        "writer. Most common mistake: quoting a number worked out in your head: every number "
        "in a message must be one a receipt of the record showed or the title holds. "
        + _PROSE
        + " "
        + _RECEIPT_FAILURE
    ),
    "record_end": (
        "Close the open record with an optional closing text; the record is filed and the "
        'slot table is cleared. Answers {"ok": true}. Most common mistake: closing before '
        "reading the results you need with get: after record_end no slot exists any more. "
        + _PROSE
        + " "
        + _RECEIPT_FAILURE
    ),
    "search": (
        "Look up ONE fact the question does not give (a material constant, a standard value, "
        "a rating) from cited sources, and record the lookup in the open record. Ask it as "
        "one question in one sentence; it is forwarded verbatim. Answers "
        '{"ok": true, "answer", "origin"} (origin: github, allowlist or web): the answer is '
        "an INPUT, never a result: store it with set, copying the number and its unit "
        "exactly as written, and let the engine convert. Never ask this tool to compute, "
        "convert, round or derive anything, and never for something the record holds. On "
        'failure it answers {"ok": false, "code", "error"}: SEARCH_INSUFFICIENT means '
        "the fact is missing: say which relation cannot be evaluated and stop, never "
        "estimate it; SEARCH_BUDGET_EXCEEDED means this record has no lookup left: continue "
        "with what the record holds; SEARCH_UNAVAILABLE means the lookup could not run; "
        "ENGINE_OPEN_RECORD_NOT_FOUND means call record_start first."
    ),
    "compute": (
        "Run a computation that outgrows a formula (a linear system, an ODE, a regression, "
        "a symbolic step) in a real engine, and leave a reproducible receipt under "
        "Computation/<runId>/ (script, full stdout/stderr, receipt.json with the interpreter "
        "that ran and its version, argv, cwd, exit code and the sha256 of the script and "
        "outputs). op probe lists the engines; op run runs "
        "code (mode code), a project file (mode file) or one expression (mode expr); op "
        "receipt re-checks an archived run by its runId (scriptChanged, outputChanged); op "
        "install plans (dryRun) and, "
        "with confirm set to the planToken, executes a package install. While a record is "
        "open every run is also a row of the record. A result you need in the answer must "
        "still be transcribed into the engine with set and cited with its receipt. "
        'On failure: {"ok": false, "code": "MATH_...", "error": "<one sentence>", "next": '
        '{"kind", ...}}; branch on code and next.kind, never on the text.'
    ),
}
