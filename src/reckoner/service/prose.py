"""Numbers in a record's prose, checked as they are written (issue 27).

A `record_message` or `record_end` text is kept whatever it says; each number it claims that
no receipt of the open record showed (at the digits shown) and the record's title does not
hold gets one warning sentence, which the receipt and the row carry under ``warnings``, so
the model can correct itself at once. This module decides what a receipt showed; the
reading of numbers in prose, and what is no quantity claim, is ``reckoner.units.prose``
(docs/decisions/prose-numbers.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from reckoner.contract.registry import PRESET_TOOL_BY_NAME
from reckoner.units.prose import (
    decimals,
    in_si,
    in_unit,
    leaves,
    stated_numbers,
    text_numbers,
    unbacked,
    unit_spec,
)

# Rows whose numbers no receipt showed: the record's own prose backs nothing, and the
# title is read once, when the record opens.
_NOT_RECEIPTS = frozenset({"record_start", "record_message", "record_end"})
# Rows held before their numbers are read: a record that never quotes a number pays
# nothing, and a long one holds at most this many contents at a time.
_PENDING_LIMIT = 4096
_DIGIT = re.compile(r"\d")


class ShownNumbers:
    """What the open record's receipts showed and its title holds, read as rows arrive."""

    def __init__(self, title: str, record_id: str) -> None:
        self._known: set[Decimal] = stated_numbers(title) | text_numbers(record_id)
        self._revisions: dict[str, int] = {}
        self._pending: list[tuple[str, dict[str, Any]]] = []
        self._sorted: tuple[Decimal, ...] | None = None

    def add(self, tool: str, ok: bool, content: dict[str, Any]) -> None:
        """A row of the record: an accepted engine call's receipt, or a preset tool's."""
        if tool in _NOT_RECEIPTS or not (ok or tool in PRESET_TOOL_BY_NAME):
            return
        self._pending.append((tool, content))
        if len(self._pending) >= _PENDING_LIMIT:
            self._fold()

    def warnings(self, text: str, place: str) -> list[str]:
        """One sentence per distinct number ``text`` claims that the record does not back."""
        if _DIGIT.search(text) is None:
            return []
        found: list[str] = []
        seen: set[str] = set()
        for number in unbacked(text, self._reference(), as_recorded=True):
            if number.text in seen:
                continue
            seen.add(number.text)
            near = f" (nearest: {number.near})" if number.near else ""
            found.append(
                f"{place} quotes {number.text}, which no receipt of this record showed{near} "
                f"and the title does not hold; quote the receipt's text, or say where the "
                f"number comes from"
            )
        return found

    def _reference(self) -> tuple[Decimal, ...]:
        if self._pending or self._sorted is None:
            self._fold()
            self._sorted = tuple(sorted(self._known))
        return self._sorted

    def _fold(self) -> None:
        pending, self._pending = self._pending, []
        self._sorted = None
        for tool, content in pending:
            self._known.update(self._shown(tool, content))

    def _shown(self, tool: str, content: dict[str, Any]) -> Iterator[Decimal]:
        """The numbers one row's receipt showed."""
        if tool == "set":
            name = content.get("name")
            if type(name) is str:
                sets = self._revisions[name] = self._revisions.get(name, 0) + 1
                yield Decimal(sets)
            value = content.get("value")
            yield from decimals(_numbers(value))  # the SI echo
            yield from _as_given(value, content.get("unit"))
            yield from _reading(content.get("reading"))
        elif tool == "get":
            yield from _reading(content.get("value"))
        elif tool == "eval":
            rev = content.get("rev")
            if type(rev) is int:
                yield Decimal(rev)
            formula = content.get("formula")
            if type(formula) is str:
                # A literal of an accepted formula is on record as written (the 2 of 2*pi*f).
                yield from text_numbers(formula)
            yield from _reading(content.get("value"))
        else:
            # A preset tool's receipt (search, compute): every number it answered.
            yield from decimals(_numbers(content))
            for text in _texts(content):
                yield from text_numbers(text)


def _as_given(value: Any, unit: Any) -> set[Decimal]:
    """A stored value in the units it was given in (4.7 for 4700 given in kOhm)."""
    if isinstance(unit, dict) and isinstance(value, dict):
        fields = value.get("object")
        if not isinstance(fields, dict):
            return set()
        found: set[Decimal] = set()
        for name, field_unit in unit.items():
            found |= _as_given(fields.get(name), field_unit)
        return found
    return in_unit(_numbers(value), unit) if type(unit) is str else set()


def _reading(reading: Any) -> set[Decimal]:
    """A reading's numbers as shown, and in SI where it was read in a unit (72.02 mA is
    0.07202 A); a list of readings, each."""
    if isinstance(reading, list):
        found: set[Decimal] = set()
        for each in reading:
            found |= _reading(each)
        return found
    if not isinstance(reading, dict):
        return set()
    fields = reading.get("object")
    if isinstance(fields, dict):
        return _reading(list(fields.values()))
    numbers = _numbers(reading)
    shown = decimals(numbers)
    unit = reading.get("unit") or reading.get("dim")
    spec = unit_spec(unit)
    if spec is not None and (spec[0] != 1 or spec[1] != 0):
        shown |= in_si(numbers, unit)
    return shown


def _numbers(raw: Any) -> set[float]:
    """The finite numbers a value or a reading shows, each once."""
    return {x for x in leaves(raw) if math.isfinite(x)}


def _texts(raw: Any) -> Iterable[str]:
    """Every string in a receipt's content, keys aside."""
    if type(raw) is str:
        yield raw
    elif isinstance(raw, list):
        for item in raw:
            yield from _texts(item)
    elif isinstance(raw, dict):
        for item in raw.values():
            yield from _texts(item)
