"""The failure codes of every tool family, and when each is answered.

The engine's 19 codes answer its six tools; a preset tool's own codes (search's, here) are
only ever answered by a server that mounts that preset, which also answers the engine's
ENGINE_OPEN_RECORD_NOT_FOUND and ENGINE_INVALID_ARGS with their meaning. Docs, skills and
tests are checked against this module."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """The stable, machine-readable half of every failure (docs/reference/codes.md)."""

    INVALID_FORMULA = "ENGINE_INVALID_FORMULA"
    INVALID_NUMBER = "ENGINE_INVALID_NUMBER"
    INVALID_IDENTIFIER = "ENGINE_INVALID_IDENTIFIER"
    INVALID_DIMENSION = "ENGINE_INVALID_DIMENSION"
    INVALID_NOTATION = "ENGINE_INVALID_NOTATION"
    INVALID_ARITY = "ENGINE_INVALID_ARITY"
    SLOT_NOT_FOUND = "ENGINE_SLOT_NOT_FOUND"
    NAME_NOT_BOUND = "ENGINE_NAME_NOT_BOUND"
    INCOMPATIBLE_DIMENSION = "ENGINE_INCOMPATIBLE_DIMENSION"
    UNSUPPORTED_OPERATION = "ENGINE_UNSUPPORTED_OPERATION"
    INVALID_INDEX = "ENGINE_INVALID_INDEX"
    UNDEFINED_RESULT = "ENGINE_UNDEFINED_RESULT"
    UNSUPPORTED_INDEX = "ENGINE_UNSUPPORTED_INDEX"
    FIELD_NOT_FOUND = "ENGINE_FIELD_NOT_FOUND"
    UNSUPPORTED_SYMBOL = "ENGINE_UNSUPPORTED_SYMBOL"
    INVALID_ARGS = "ENGINE_INVALID_ARGS"
    OPEN_RECORD_NOT_FOUND = "ENGINE_OPEN_RECORD_NOT_FOUND"
    OPEN_RECORD_FOUND = "ENGINE_OPEN_RECORD_FOUND"
    UNKNOWN_ERROR = "ENGINE_UNKNOWN_ERROR"

    @property
    def raised_when(self) -> str:
        """When the engine answers with this code, in one line (docs/reference/codes.md)."""
        return RAISED_WHEN[self]


RAISED_WHEN: dict[ErrorCode, str] = {
    ErrorCode.INVALID_FORMULA: "the text is not one expression the grammar accepts",
    ErrorCode.INVALID_NUMBER: (
        "a number is malformed: scientific form without exponent digits (2e) "
        "or beyond the largest double (1e400)"
    ),
    ErrorCode.INVALID_IDENTIFIER: (
        "a letter directly follows a number (1E5, 2x), or a slot, target or field name "
        "is not a string or breaks the name rule"
    ),
    ErrorCode.INVALID_DIMENSION: (
        "dim is not a table name, not exactly 7 integers, or not integers; or a unit is "
        "unknown, ambiguous or malformed"
    ),
    ErrorCode.INVALID_NOTATION: (
        "a $name outside the notation table, or a notation written in a form it does not take"
    ),
    ErrorCode.INVALID_ARITY: (
        "the argument count is not one the table lists, or a bound or subscript is missing "
        "or misplaced"
    ),
    ErrorCode.SLOT_NOT_FOUND: "@name reads a slot that does not exist, or get names one",
    ErrorCode.NAME_NOT_BOUND: "a bare name is not bound by any enclosing notation",
    ErrorCode.INCOMPATIBLE_DIMENSION: (
        "two vectors must match, or an argument must be dimensionless, and they do not"
    ),
    ErrorCode.UNSUPPORTED_OPERATION: (
        "an operator or a function applied to an object, or an object placed in an array"
    ),
    ErrorCode.INVALID_INDEX: (
        "an index or bound that is not an integer with the zero vector, an index outside "
        "the array, a lower bound above the upper one, or a range over the step limit"
    ),
    ErrorCode.UNDEFINED_RESULT: (
        "a value the engine defines none for (division by zero, ln of 0, a non-finite result)"
    ),
    ErrorCode.UNSUPPORTED_INDEX: (
        ". applied to a value that is not an object, or [ ] to a value that is not an array"
    ),
    ErrorCode.FIELD_NOT_FOUND: "an object has no field of that name; the message lists its fields",
    ErrorCode.UNSUPPORTED_SYMBOL: "$integral, $limit or $diff is evaluated",
    ErrorCode.INVALID_ARGS: (
        "a tool argument has the wrong shape, or an array is over the size limit"
    ),
    ErrorCode.OPEN_RECORD_NOT_FOUND: (
        "set, get, eval, record_message or record_end is called with no record open"
    ),
    ErrorCode.OPEN_RECORD_FOUND: "record_start is called while a record is open",
    ErrorCode.UNKNOWN_ERROR: "an unexpected internal fault, reported as internal error: ...",
}


class SearchCode(StrEnum):
    """The codes `search` answers besides the engine's own (docs/reference/codes.md)."""

    INSUFFICIENT = "SEARCH_INSUFFICIENT"
    BUDGET_EXCEEDED = "SEARCH_BUDGET_EXCEEDED"
    UNAVAILABLE = "SEARCH_UNAVAILABLE"


SEARCH_RAISED_WHEN: dict[str, str] = {
    SearchCode.INSUFFICIENT: (
        "no source the policy allowed holds the fact, or the extractive step answered insufficient"
    ),
    SearchCode.BUDGET_EXCEEDED: (
        "the record has spent its maxSearchesPerRecord lookups; the provider is never called"
    ),
    SearchCode.UNAVAILABLE: (
        "the provider, the network or the extractive model failed, the lookup reached its "
        "deadlineSeconds or was cancelled, or no provider is configured"
    ),
    ErrorCode.OPEN_RECORD_NOT_FOUND: "no record is open; a lookup is recorded, so it needs one",
}
"""The four codes of docs/reference/codes.md, in its order, with when each is answered."""

PRESET_CODES: dict[str, tuple[str, ...]] = {"search": tuple(SEARCH_RAISED_WHEN)}
"""Each preset tool's failure codes (ENGINE_INVALID_ARGS aside, which every tool answers)."""


# -- compute: the compute tool's MATH_ codes ------------------------------------------------
# Answered only by a server that mounts a compute preset. Its next kinds, next reasons and
# warning codes are compute's own vocabulary (reckoner.compute.vocabulary).


class MathCode(StrEnum):
    """The eleven failure codes of the compute tool."""

    NOT_AVAILABLE = "MATH_NOT_AVAILABLE"
    ENGINE_NOT_FOUND = "MATH_ENGINE_NOT_FOUND"
    ENGINE_LICENSE_REQUIRED = "MATH_ENGINE_LICENSE_REQUIRED"
    ENGINE_UNUSABLE = "MATH_ENGINE_UNUSABLE"
    MISSING_PACKAGES = "MATH_MISSING_PACKAGES"
    TIMEOUT = "MATH_TIMEOUT"
    NONZERO_EXIT = "MATH_NONZERO_EXIT"
    ENGINE_BAD_ARGV = "MATH_ENGINE_BAD_ARGV"
    REFUSED = "MATH_REFUSED"
    INVALID_ARGUMENT = "MATH_INVALID_ARGUMENT"
    NO_SUBPROCESS = "MATH_NO_SUBPROCESS"


MATH_RAISED_WHEN: dict[MathCode, str] = {
    MathCode.NOT_AVAILABLE: "compute.mode is off on this server; nothing is probed, run or written",
    MathCode.ENGINE_NOT_FOUND: (
        "the engine, or a cli command, is neither on PATH nor in its known install locations, "
        "or a probe finds no configured engine at all"
    ),
    MathCode.ENGINE_LICENSE_REQUIRED: "a commercial engine is found but its license check fails",
    MathCode.ENGINE_UNUSABLE: "the engine is found but its version probe fails",
    MathCode.MISSING_PACKAGES: "the engine's package probe says a run's packages are missing",
    MathCode.TIMEOUT: (
        "a run or an install command passes its time limit; its whole process tree is killed"
    ),
    MathCode.NONZERO_EXIT: "a run or an install command exits with a code other than 0",
    MathCode.ENGINE_BAD_ARGV: (
        "the engine fails with no output and its stderr says it rejected its command line"
    ),
    MathCode.REFUSED: (
        "a policy refuses the call (engine not allowed, network setting, path outside the "
        "project, cli.command with a shell character, no such archive, a plan token that "
        "does not match), a run is stopped (cancelled, over its output cap), the archive "
        "cannot be written, or compute fails internally"
    ),
    MathCode.INVALID_ARGUMENT: (
        "an argument has the wrong shape, a package spec is not supported, or an archived "
        "receipt.json cannot be parsed"
    ),
    MathCode.NO_SUBPROCESS: (
        "the host runs no subprocesses, or the engine's program is found but cannot be started"
    ),
}
"""When the compute tool answers each of its codes, in one line."""


# -- The pitfalls memory's codes (issues 13 and 26) -------------------------------------------


class PitfallCode(StrEnum):
    """The machine-readable half of a pitfall tool's refusal; only a server with the
    pitfalls option on (or ``reckoner pitfalls``) answers them."""

    INVALID_ARGS = "PITFALL_INVALID_ARGS"
    NOT_FOUND = "PITFALL_NOT_FOUND"
    WRITE_FAILED = "PITFALL_WRITE_FAILED"
    DUPLICATE = "PITFALL_DUPLICATE"
