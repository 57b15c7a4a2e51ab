"""The slot table of the open record (manual 2.3): values with revisions.

A slot keeps the stored form it was written with; the runtime value is built from it on
first read, so replaying a long record costs dictionary updates, not value parsing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from reckoner import wire
from reckoner.core import Failure, Value, parse_value


class StoredValueError(Exception):
    """A replayed row's stored value no longer parses as a value."""


@dataclass(slots=True)
class Slot:
    rev: int
    stored: dict[str, Any]
    value: Value | None = None
    encoded: Any = None  # the stored form's JSON, once a row has embedded an array

    def row_form(self) -> Any:
        """The stored form as a trace row embeds it. An array is encoded once per revision
        and reused by every eval that reads it; a scalar is cheaper inline, and an object
        stays inline so a row too deep for orjson can still be written by the fallback."""
        stored = self.stored
        if "array" not in stored:
            return stored
        if self.encoded is None:
            self.encoded = wire.preencoded(stored)
        return self.encoded

    def materialize(self) -> Value:
        if self.value is None:
            parsed = parse_value(self.stored)
            if isinstance(parsed, Failure):
                raise StoredValueError(parsed.message)
            self.value = parsed
        return self.value


class SlotTable:
    """Name -> slot. Revisions start at 1 and count every write since creation."""

    def __init__(self) -> None:
        self._slots: dict[str, Slot] = {}

    def write(self, name: str, stored: dict[str, Any], value: Value | None = None) -> int:
        """Create at revision 1 or overwrite with revision + 1; answer the new revision."""
        previous = self._slots.get(name)
        rev = 1 if previous is None else previous.rev + 1
        self._slots[name] = Slot(rev, stored, value)
        return rev

    def delete(self, name: str) -> None:
        """Idempotent: a deleted slot is recreated at revision 1 by its next write."""
        self._slots.pop(name, None)

    def get(self, name: str) -> Slot | None:
        return self._slots.get(name)

    def restore(self, name: str, slot: Slot | None) -> None:
        """Put back what a slot was before a call that failed unexpectedly."""
        if slot is None:
            self._slots.pop(name, None)
        else:
            self._slots[name] = slot

    def clear(self) -> None:
        self._slots.clear()

    def names(self) -> list[str]:
        return list(self._slots)

    def snapshot(self) -> dict[str, tuple[int, dict[str, Any]]]:
        """Every slot's revision and stored form, for inspection and tests."""
        return {name: (slot.rev, slot.stored) for name, slot in self._slots.items()}

    def __len__(self) -> int:
        return len(self._slots)

    def __contains__(self, name: object) -> bool:
        return name in self._slots


class SlotReader(Mapping[str, Value]):
    """The read-only mapping a formula sees: materializes values on demand."""

    __slots__ = ("_slots", "_table")

    def __init__(self, table: SlotTable) -> None:
        self._table = table
        self._slots = table._slots  # read directly: this mapping is on every formula's path

    def get(self, name: str, default: Value | None = None) -> Value | None:  # type: ignore[override]
        # The evaluator reads slots through get(); answering directly skips Mapping's
        # try/except around __getitem__ on the hot path.
        slot = self._slots.get(name)
        if slot is None:
            return default
        value = slot.value
        return value if value is not None else slot.materialize()

    def __getitem__(self, name: str) -> Value:
        slot = self._table.get(name)
        if slot is None:
            raise KeyError(name)
        return slot.materialize()

    def __iter__(self) -> Iterator[str]:
        return iter(self._table.names())

    def __len__(self) -> int:
        return len(self._table)
