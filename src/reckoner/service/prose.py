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
from collections.abc import Callable, Iterable
from decimal import Decimal
from itertools import islice
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
_DIGIT = re.compile(r"\d")
# A text naming more numbers than this gets one sentence for the rest, and a number longer
# than _SHOWN_LENGTH characters is quoted by its start: a receipt and a row stay short
# whatever the text holds.
MAX_WARNINGS = 20
_SHOWN_LENGTH = 40
_WALKED = 10_000  # the numbers of one value read from a row
FORMULAS_HELD = 1_024  # eval formulas held before they are folded into the set of texts


class ShownNumbers:
    """What the open record's receipts showed and its title holds, read as rows arrive.

    A row only adds its raw numbers, texts and units to sets (a long record and its replay
    pay set updates); they are turned into exact decimals when a text with a digit in it is
    checked, each distinct one once.
    """

    def __init__(self, title: str, record_id: str) -> None:
        # The title is read at the first check: its units need the unit catalogue, which a
        # record that never quotes a number need not load.
        self._title: str | None = title
        self._known: set[Decimal] = text_numbers(record_id)
        self._sorted: tuple[Decimal, ...] | None = None
        self._revisions: dict[str, int] = {}
        # Not yet in _known: numbers as shown, SI numbers by the unit they were given in,
        # numbers by the unit they were read in, and texts (formulas, preset answers).
        self._shown: set[float] = set()
        self._given: dict[str, set[float]] = {}
        self._read: dict[str, set[float]] = {}
        self._texts: set[str] = set()
        self._texts_read: set[str] = set()
        # Eval formulas as they arrive, folded into _texts in batches: most are new texts,
        # and a list append costs a third of a set insert on the eval's path.
        self._formulas: list[str] = []
        self._earlier: tuple[int, Callable[[], Iterable[dict[str, Any]]]] | None = None

    def resume(self, last_seq: int, rows: Callable[[], Iterable[dict[str, Any]]]) -> None:
        """The record was resumed after a restart: its rows up to ``last_seq`` back the prose
        too, and are read back (``rows``) only when a text is first checked, so a replay
        that no message follows costs nothing here."""
        self._earlier = (last_seq, rows)
        self._sorted = None

    def add(self, tool: str, ok: bool, content: dict[str, Any]) -> None:
        """A row of the record: an accepted engine call's receipt, or a preset tool's."""
        if tool == "eval" and ok:  # the commonest row first: a step of the derivation
            self._sorted = None
            rev = content.get("rev")
            if type(rev) is int:
                self._shown.add(rev)
            # A literal of an accepted formula is on record as written (the 2 of 2*pi*f).
            formula = content.get("formula")
            if type(formula) is str:
                formulas = self._formulas
                formulas.append(formula)
                if len(formulas) >= FORMULAS_HELD:
                    self._fold_formulas()
            if "value" in content:
                self._add_reading(content["value"])
            return
        if tool in _NOT_RECEIPTS or not (ok or tool in PRESET_TOOL_BY_NAME):
            return
        self._sorted = None
        if tool == "set":
            name = content.get("name")
            if type(name) is str:
                sets = self._revisions[name] = self._revisions.get(name, 0) + 1
                self._shown.add(sets)
            value = content.get("value")
            self._shown.update(_numbers(value))  # the SI echo
            self._add_given(value, content.get("unit"))
            self._add_reading(content.get("reading"))
        elif tool == "get":
            self._add_reading(content.get("value"))
        else:
            # A preset tool's receipt (search, compute): every number it answered.
            self._shown.update(_numbers(content))
            for text in _texts(content):
                self._add_text(text)

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
            if len(seen) > MAX_WARNINGS:
                continue
            near = f" (nearest: {number.near})" if number.near else ""
            found.append(
                f"{place} quotes {_quoted(number.text)}, which no receipt of this record "
                f"showed{near} and the title does not hold; quote the receipt's text, or say "
                f"where the number comes from"
            )
        if len(seen) > MAX_WARNINGS:
            found.append(
                f"{place} quotes {len(seen) - MAX_WARNINGS} more numbers that no receipt of "
                f"this record showed and the title does not hold (only the first "
                f"{MAX_WARNINGS} are named); quote the receipts' texts, or say where the "
                f"numbers come from"
            )
        return found

    def _reference(self) -> tuple[Decimal, ...]:
        if self._earlier is not None:
            last_seq, rows = self._earlier
            self._earlier = None
            for row in rows():
                seq, tool, content = row.get("seq"), row.get("tool"), row.get("content")
                earlier = type(seq) is int and seq <= last_seq
                if earlier and type(tool) is str and isinstance(content, dict):
                    self.add(tool, row.get("ok") is True, content)
        self._fold_formulas()
        if self._sorted is None:
            known = self._known
            if self._title is not None:
                known |= stated_numbers(self._title)
                self._title = None
            known |= decimals(self._shown)
            for unit, numbers in self._given.items():
                known |= in_unit(numbers, unit)
            for unit, numbers in self._read.items():
                spec = unit_spec(unit)
                if spec is not None and (spec[0] != 1 or spec[1] != 0):  # else shown as SI
                    known |= in_si(numbers, unit)
            for text in self._texts:
                known |= text_numbers(text)
            self._texts_read |= self._texts
            self._shown, self._given, self._read, self._texts = set(), {}, {}, set()
            self._sorted = tuple(sorted(known))
        return self._sorted

    def _fold_formulas(self) -> None:
        read = self._texts_read
        self._texts.update(text for text in self._formulas if text not in read)
        self._formulas.clear()

    def _add_text(self, text: Any) -> None:
        if type(text) is str and text not in self._texts_read:
            self._texts.add(text)

    def _add_given(self, value: Any, unit: Any) -> None:
        """A stored value in the units it was given in (4.7 for 4700 given in kOhm)."""
        if isinstance(unit, dict) and isinstance(value, dict):
            fields = value.get("object")
            if isinstance(fields, dict):
                for name, field_unit in unit.items():
                    self._add_given(fields.get(name), field_unit)
        elif type(unit) is str:
            self._given.setdefault(unit, set()).update(_numbers(value))

    def _add_reading(self, reading: Any) -> None:
        """A reading's numbers as shown, and in SI where it was read in a unit or a named
        dim (72.02 mA is 0.07202 A); a list of readings, each."""
        if isinstance(reading, list):
            for each in reading:
                self._add_reading(each)
            return
        if not isinstance(reading, dict):
            return
        fields = reading.get("object")
        if isinstance(fields, dict):
            self._add_reading(list(fields.values()))
            return
        numbers = _numbers(reading)
        self._shown.update(numbers)
        unit = reading.get("unit") or reading.get("dim")
        if type(unit) is str:
            self._read.setdefault(unit, set()).update(numbers)


def _quoted(number: str) -> str:
    return number if len(number) <= _SHOWN_LENGTH else f"{number[:_SHOWN_LENGTH]}…"


def _numbers(raw: Any) -> set[float]:
    """The finite numbers a value or a reading shows, each once."""
    if type(raw) is dict and "num" in raw:
        # The commonest value by far, and its tag excludes every other number key.
        num = raw["num"]
        if type(num) is int or (type(num) is float and math.isfinite(num)):
            return {num}
        return set()
    # An int is finite however large (math.isfinite would overflow converting it). A large
    # array backs its first _WALKED numbers: a call on a million elements stays as fast.
    walked = islice(leaves(raw), _WALKED)
    return {x for x in walked if type(x) is int or math.isfinite(x)}


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
