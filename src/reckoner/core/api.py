"""The pure core's facade: every entry point answers data, never raises.

The service layer calls only these functions. A failure comes back as a `Failure`; an
unexpected fault becomes ENGINE_UNKNOWN_ERROR with `internal error: ...`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

from reckoner.contract.checks import describe_json
from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ZERO, Vector
from reckoner.contract.limits import MAX_DIMENSION_EXPONENT, MAX_NESTING_DEPTH

from . import dimensions as dims
from .compiler import NO_FRAME, Program
from .conversion import UnitResolver
from .errors import EngineError, Failure, fail
from .names import is_name
from .rendering import RenderOptions, render
from .shapes import (
    PROGRAM_CACHE_CHARACTERS,
    PROGRAM_ENTRY_OVERHEAD,
    SHAPE_CACHE_ENTRIES,
    ShapeCache,
    placed,
)
from .stored_values import row_form, stored_form
from .tagged_input import parse_tagged
from .values import (
    Obj,
    Quantity,
    Value,
    check_array_size,
    element_count,
    first_non_finite,
    show_number,
)
from .work import Run

T = TypeVar("T")
JSON = Any

# A formula nested MAX_NESTING_DEPTH levels deep costs up to about ten Python frames a level
# to parse, compile and run, above Python's default limit of 1000. Python 3.11 keeps pure
# Python calls off the C stack, so a higher ceiling is safe; it is only ever raised.
_FRAMES_NEEDED = MAX_NESTING_DEPTH * 12 + 1000
if sys.getrecursionlimit() < _FRAMES_NEEDED:
    sys.setrecursionlimit(_FRAMES_NEEDED)


# Not frozen, as Quantity is not: one is built per eval, and nothing changes it afterwards.
@dataclass(slots=True)
class Evaluated:
    """A formula's value and the slots it read, in first-use order."""

    value: Value
    reads: dict[str, Value]


def guarded(action: Callable[[], T]) -> T | Failure:
    """Run one core action; its failure, or any fault, comes back as a Failure."""
    try:
        return action()
    except Exception as error:
        return as_failure(error)


def as_failure(error: Exception) -> Failure:
    """The Failure an exception raised inside the core stands for."""
    if isinstance(error, EngineError):
        return error.failure
    if isinstance(error, RecursionError):
        return Failure(
            ErrorCode.INVALID_FORMULA,
            "the input nests too deeply to process; store inner results with separate steps",
        )
    if isinstance(error, MemoryError):
        return Failure(
            ErrorCode.INVALID_ARGS,
            "the input needs more memory than this engine may use; split it into smaller parts",
        )
    return Failure(ErrorCode.UNKNOWN_ERROR, f"internal error: {type(error).__name__}: {error}")


# Every formula's program, by its exact text (a repeated eval: one dict lookup) or by its
# token shape (reckoner.core.shapes).
_FORMULAS = ShapeCache(
    characters=PROGRAM_CACHE_CHARACTERS,
    entries=SHAPE_CACHE_ENTRIES,
    texts=PROGRAM_CACHE_CHARACTERS // PROGRAM_ENTRY_OVERHEAD,
)
_CACHED = _FORMULAS.texts.get
_program = _FORMULAS.program
_unheld = _FORMULAS.unheld


def compile_formula(formula: JSON) -> Program | Failure:
    """Parse and compile a formula (cached by its text): every syntax error comes first."""

    if type(formula) is not str:
        return Failure(
            ErrorCode.INVALID_ARGS,
            f'formula must be a string holding one expression, such as "(@V)^2/@R", but '
            f"it is {describe_json(formula)}",
        )
    found = _CACHED(formula)  # a repeated formula: one dict lookup, no further call
    if found is not None:
        return found
    try:
        return _unheld(formula)
    except Exception as error:
        return as_failure(error)


def run_program(program: Program, slots: Mapping[str, Value]) -> Evaluated | Failure:
    """Run a formula already compiled by `compile_formula`; nothing is stored."""
    try:
        frame_size = program.frame_size
        state = Run(slots, [None] * frame_size if frame_size else NO_FRAME, program.names)
        value = program.body(state)  # Program.run, without the call
        reads = state.reads
        if not (type(value) is Quantity and type(value.payload) is float):
            admit(value)  # a real scalar is checked by the last lines below, without a call
        elif not math.isfinite(value.payload):
            admit(value)
        elif value.vector is not _STORABLE_LAST[0]:
            if not dims.is_storable(value.vector):
                admit(value)
            _STORABLE_LAST[0] = value.vector
        return Evaluated(value, reads)
    except Exception as error:
        return placed(as_failure(error), program)


# The last vector a result was found storable with: a session's evals answer a few vectors,
# each an object the compiled closures keep, and a check by identity costs a fraction of
# the exponents' check. Threads may overwrite it in any order: each only ever stores a
# vector already checked, so a race costs a miss, never a wrong answer.
_STORABLE_LAST: list[Vector] = [ZERO]


def evaluate(formula: JSON, slots: Mapping[str, Value]) -> Evaluated | Failure:
    """Parse, compile and run one formula against the slot table; nothing is stored."""
    if type(formula) is not str:
        refused = compile_formula(formula)
        assert isinstance(refused, Failure)
        return refused
    # One try around the whole call (not a closure per stage): a repeated eval is the
    # engine's hot path. The program comes first, so every syntax error precedes evaluation.
    try:
        program = _program(formula)
    except Exception as error:
        return as_failure(error)
    try:
        value, reads = program.run(slots)
        admit(value)
        return Evaluated(value, reads)
    except Exception as error:
        return placed(as_failure(error), program)


def admit(value: Value, path: str = "the result") -> None:
    """Refuse a value no slot may hold: a fractional vector, a non-finite leaf, too large."""
    if (
        type(value) is Quantity
        and type(value.payload) is float
        and dims.is_storable(value.vector)
        and math.isfinite(value.payload)
    ):
        return  # the common case, decided without walking anything
    if isinstance(value, Obj):
        for name, field in value.fields.items():
            admit(field, f"{path}.{name}")
        return
    if not dims.is_whole(value.vector):
        raise fail(
            ErrorCode.INCOMPATIBLE_DIMENSION,
            f"{path} carries the fractional vector {dims.spell(value.vector)}, and only whole "
            f"vectors reach a slot; square or otherwise complete the expression before storing",
        )
    if not dims.is_storable(value.vector):
        raise fail(
            ErrorCode.INCOMPATIBLE_DIMENSION,
            f"{path} carries the vector {dims.short_vector(value.vector)}, whose exponents exceed "
            f"the limit of {MAX_DIMENSION_EXPONENT} (MAX_DIMENSION_EXPONENT); check the "
            f"exponent of the power that produced it",
        )
    if value.is_array:
        check_array_size(element_count(value.payload))
    bad = first_non_finite(value)
    if bad is not None:
        raise fail(
            ErrorCode.UNDEFINED_RESULT,
            f"{path} is {show_number(bad)}, which is not a finite number and cannot be stored; "
            f"check for an overflow or a division that blows up",
        )


def parse_value(raw: JSON, units: UnitResolver | None = None) -> Value | Failure:
    """`set`'s tagged value, converted to SI and checked as storable; `units` resolves a
    `unit` key (the core has no catalogue of its own)."""

    def build() -> Value:
        value = parse_tagged(raw, units=units)
        admit(value, "value")
        return value

    return guarded(build)


def render_value(value: Value, form: JSON, digits: JSON, dim: JSON) -> JSON | Failure:
    """`get`'s rendering of one stored value."""
    return guarded(lambda: render(value, RenderOptions(form, digits, dim)))


# The stored form: what `set` echoes and a row keeps (`dim` as 7 integers).
stored: Callable[[Value], JSON] = stored_form


def stored_for_row(value: Value) -> JSON:
    """The stored form with each float64 array left a numpy array, for ``reckoner.wire`` to
    spell straight from numpy: the same text as the stored form's."""
    return row_form(value)


@lru_cache(maxsize=4096)
def _is_name_text(text: str) -> bool:
    # A session reuses a few dozen names: remember the verdict instead of matching again.
    return is_name(text)


def check_name(raw: JSON, role: str) -> Failure | None:
    """A slot name, target or field name must be a string that follows the name rule."""
    if type(raw) is str and _is_name_text(raw):
        return None
    if type(raw) is str:
        shown = raw if len(raw) <= 60 else raw[:60] + "..."
        hint = ""
        if raw.startswith("@") and is_name(raw[1:]):
            hint = f" (write the bare name {raw[1:]}; @ exists only inside a formula)"
        return Failure(
            ErrorCode.INVALID_IDENTIFIER,
            f"{role} {shown!r} breaks the name rule{hint}: a letter or underscore, then ASCII "
            f"letters, digits or underscores",
        )
    return Failure(
        ErrorCode.INVALID_IDENTIFIER,
        f'{role} must be a string naming a slot, such as "R1", but it is {describe_json(raw)}',
    )
