"""Quantities as the record knows them (issue 23): a given in the unit it was written in, a
value as a receipt read it, the revisions of a given the steps used, and the steps a later
step with the same target replaced before anything read them. No I/O beyond the unit
registry's first read.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from reckoner.articles.numbers import READING_FIGURES, shown_given, shown_reading
from reckoner.units import resolve_unit
from reckoner.units.spelling import spell_vector, spell_written

if TYPE_CHECKING:
    from reckoner.articles.fact_model import Dim, Step, Value


# Named tuples, not frozen dataclasses: a record makes thousands of them, and a frozen
# dataclass's __init__ costs more than the rest of reading its row.
class Reading(NamedTuple):
    """A value as the record read it for a reader: its number (``shown_reading``/
    ``shown_given``) and its unit as written in the grammar's ASCII (``mA``, ``degC``)."""

    number: str
    unit: str


class Given(NamedTuple):
    """One value of a given slot that the article lists: as it was given (``shown``: its
    number in the unit it was written in, else the reading of its ``set``, else None for
    SI), its revision of the slot and whether a shown step read it."""

    name: str
    value: Value
    shown: Reading | None
    revision: int
    revisions: int  # how many of the slot's values the article lists
    used: bool


def reading_of(raw: object) -> tuple[Reading, float] | None:
    """A receipt's reading (``{"num", "unit", "dim"}``, or a list of them: the first) as
    shown, with the number it shows: the digits the engine rounded it to, else
    ``SIGNIFICANT`` figures."""
    if type(raw) is list:
        raw = raw[0] if raw else None
    if type(raw) is not dict:
        return None
    number, unit = raw.get("num"), raw.get("unit")
    if not isinstance(number, int | float) or type(unit) is not str or not unit:
        return None
    return Reading(shown_reading(float(number)), unit), float(number)


def as_written(stored: float, unit: object, dim: Dim) -> tuple[Reading, float] | None:
    """A real given in a unit other than SI, converted back to that unit, with the number
    it shows; None where it is shown in SI."""
    if type(unit) is not str or not unit:
        return None
    conversion = _conversion(unit, dim)
    if conversion is None:
        return None
    factor, offset = conversion
    back = (stored - offset) / factor
    if offset and stored:
        # Undoing an offset cancels digits: 273.153906 K less 273.15 is 0.00390599999995 in
        # floats. The stored number holds about 12 figures of its own magnitude, no more.
        back = round(back, max(0, -math.floor(math.log10(abs(stored) / abs(factor) * 1e-12))))
    written = float(f"{back:.{READING_FIGURES}g}")
    return Reading(shown_given(written), unit), written


@lru_cache(maxsize=1024)
def _conversion(unit: str, dim: Dim) -> tuple[float, float] | None:
    """The map (factor, offset) from a written unit to SI, None where the given is shown in
    SI: a unit this build no longer parses or of another vector, or one SI spells the same
    (W, ohm). A record repeats a handful of units, so each is decided once."""
    try:
        spec = resolve_unit(unit)
    except Exception:  # a unit this build no longer parses: shown in SI
        return None
    if tuple(spec.vector) != dim or spec.factor == 0:
        return None
    if spec.factor == 1 and spec.offset == 0 and spell_written(unit) == spell_vector(dim):
        return None
    return spec.factor, spec.offset


def folded(steps: Iterable[Step]) -> frozenset[int]:
    """Steps a later step with the same target replaced before any step read them: the model
    corrected its own call, and the article shows the correction alone."""
    out: set[int] = set()
    pending: dict[str, int] = {}  # target -> seq of its last step no later step read yet
    pop = pending.pop
    for step in steps:
        for name, _ in step.reads:
            pop(name, None)
        earlier = pop(step.target, None)
        if earlier is not None:
            out.add(earlier)
        pending[step.target] = step.seq
    return frozenset(out)


def givens(
    revisions: Mapping[str, list[tuple[Value, Reading | None]]],
    current: Mapping[str, int],
    step_reads: Mapping[int, list[tuple[str, int]]],
    hidden: frozenset[int],
) -> tuple[Given, ...]:
    """Each slot's values a shown step read (``step_reads`` of the steps not ``hidden``),
    and the value it holds at the end, in the slots' first order."""
    used: set[tuple[str, int]] = set()
    for seq, pairs in step_reads.items():
        if seq not in hidden:
            used.update(pairs)
    out: list[Given] = []
    for name, history in revisions.items():
        held = current.get(name)
        listed = [
            (revision, value, shown)
            for revision, (value, shown) in enumerate(history, start=1)
            if (name, revision) in used or revision == held
        ]
        # Numbered in the order listed (1 of 2, 2 of 2): what a reader counts, not the
        # engine's revision of the slot, which counts values no shown step read.
        for place, (revision, value, shown) in enumerate(listed, start=1):
            out.append(Given(name, value, shown, place, len(listed), (name, revision) in used))
    return tuple(out)
