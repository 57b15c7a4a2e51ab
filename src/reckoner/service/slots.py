"""The slot table of the open record (docs/guide/formulas.md): values with revisions.

A slot keeps the stored form it was written with, or the value an eval computed; each is
built from the other on first need, so replaying a long record costs dictionary updates,
not value parsing, and an eval's array result is spelled into its row straight from numpy.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from reckoner import wire
from reckoner.core import Failure, Quantity, Value, parse_value, stored
from reckoner.core.api import stored_for_row


class StoredValueError(Exception):
    """A replayed row's stored value no longer parses as a value."""


class Slot:
    """One slot: its revision, and its stored form or its value (at least one of the two).

    ``row`` is the slot as a trace row embeds it, once built by ``row_form``: always in the
    stored spelling (whole doubles as integers), so an eval row built from rows and stored
    forms is written without reading its text back. ``from_record``: the form was read
    from a record file (a replay), so its spelling is the file's.
    """

    __slots__ = ("_form", "_from_record", "rev", "row", "value")

    def __init__(
        self,
        rev: int,
        form: dict[str, Any] | None,
        value: Value | None,
        from_record: bool = False,
    ) -> None:
        self.rev = rev
        self._form = form
        self.value = value
        self.row: Any = None
        self._from_record = from_record

    @property
    def stored(self) -> dict[str, Any]:
        """The stored form, as `set` echoes it."""
        form = self._form
        if form is None:
            assert self.value is not None
            form = self._form = stored(self.value)
        return form

    def row_form(self) -> Any:
        """The stored form as a trace row embeds it. An array is spelled once per revision
        and reused by every row that carries it; a scalar is cheaper inline, and an object
        stays inline so a row too deep for orjson can still be written by the fallback."""
        row = self.row
        if row is not None:
            return row
        form = self._form
        if form is None:
            value = self.value
            assert value is not None
            if type(value) is Quantity and type(value.payload) is np.ndarray:
                # An eval's float64 array: its numbers are spelled straight from numpy, in
                # the fresh stored form's own dict ({"array": ..., "dim": ...}).
                row = self.row = stored_for_row(value)
                row["array"] = wire.spelled_array(value.payload)
                return row
            form = self._form = stored(value)
        if "array" in form:
            row = self.row = wire.preencoded(form)
        else:
            # A form of this engine's is in the stored spelling; a file's may not be.
            row = self.row = wire.plain(form) if self._from_record else form
        return row

    def materialize(self) -> Value:
        if self.value is None:
            parsed = parse_value(self._form)
            if isinstance(parsed, Failure):
                raise StoredValueError(parsed.message)
            self.value = parsed
        return self.value


class SlotTable(dict[str, Slot]):
    """Name -> slot. Revisions start at 1 and count every write since creation.

    A dict itself, so the lookups on every call's path (``get``, ``in``) cost no Python
    call; it is written only through the methods below, which keep the values in step.
    """

    __slots__ = ("_last", "_reader", "_values", "writes")

    def __init__(self) -> None:
        super().__init__()
        # Every slot's value once built: what a formula reads, a plain dict on its hot path.
        self._values: dict[str, Value] = {}
        self._reader = SlotReader(self)
        # Writes and deletes so far, and the last one's name and what it replaced: a call
        # that fails after writing compares the count and takes its write back (`undo`).
        self.writes = 0
        self._last: tuple[str, Slot | None] | None = None

    def write(
        self,
        name: str,
        stored: dict[str, Any] | None,
        value: Value | None = None,
        from_record: bool = False,
    ) -> Slot:
        """Create at revision 1 or overwrite with revision + 1; answer the new slot.

        ``stored`` may be None when ``value`` is given: it is built when first asked for.
        ``from_record``: ``stored`` was read from a record file (a replay).
        """
        previous = self.get(name)
        slot = Slot(1 if previous is None else previous.rev + 1, stored, value, from_record)
        self.writes += 1
        self._last = (name, previous)
        self[name] = slot
        if value is not None:
            self._values[name] = value
        elif previous is not None:
            self._values.pop(name, None)
        return slot

    def delete(self, name: str) -> None:
        """Idempotent: a deleted slot is recreated at revision 1 by its next write."""
        self.writes += 1
        self._last = (name, self.pop(name, None))
        self._values.pop(name, None)

    def materialize(self, name: str) -> Value:
        """The value of an existing slot, parsed from its stored form on first need."""
        value = self[name].materialize()
        self._values[name] = value
        return value

    def undo(self) -> None:
        """Take back the last write or delete: a call that changed a slot and then failed
        leaves the table as it found it (each call writes at most one slot)."""
        last = self._last
        if last is None:
            return
        self._last = None
        name, slot = last
        if slot is None:
            self.pop(name, None)
            self._values.pop(name, None)
            return
        self[name] = slot
        if slot.value is not None:
            self._values[name] = slot.value
        else:
            self._values.pop(name, None)

    def clear(self) -> None:
        super().clear()
        self._values.clear()

    def formula_view(self) -> Mapping[str, Value]:
        """What a formula reads: the values themselves once every one is built, else a view
        that builds each on first read (after a replay)."""
        values = self._values
        return values if len(values) == len(self) else self._reader

    def names(self) -> list[str]:
        return list(self)

    def snapshot(self) -> dict[str, tuple[int, dict[str, Any]]]:
        """Every slot's revision and stored form, for inspection and tests."""
        return {name: (slot.rev, slot.stored) for name, slot in self.items()}


class SlotReader(Mapping[str, Value]):
    """The read-only mapping a formula sees while some values are unbuilt: builds on demand."""

    __slots__ = ("_table",)

    def __init__(self, table: SlotTable) -> None:
        self._table = table

    def get(self, name: str, default: Value | None = None) -> Value | None:  # type: ignore[override]  # Mapping.get is overloaded; one signature serves the evaluator
        # The evaluator reads slots through get(); answering directly skips Mapping's
        # try/except around __getitem__.
        slot = self._table.get(name)
        if slot is None:
            return default
        value = slot.value
        return value if value is not None else self._table.materialize(name)

    def __getitem__(self, name: str) -> Value:
        if name not in self._table:
            raise KeyError(name)
        return self._table.materialize(name)

    def __contains__(self, name: object) -> bool:
        # Mapping's own test goes through __getitem__, which would build the value.
        return name in self._table

    def __iter__(self) -> Iterator[str]:
        return iter(self._table.names())

    def __len__(self) -> int:
        return len(self._table)
