"""Issue 8 (8.1, a failed call changes nothing): the slot table takes back the one write or
delete a call made before it failed, whatever that write replaced.
Spec: docs/guide/records.md (a refused call)."""

from __future__ import annotations

from reckoner.core import parse_value
from reckoner.service.slots import SlotTable


def _value(num: float) -> object:
    return parse_value({"num": num, "dim": "volt"})


def _state(table: SlotTable) -> dict[str, tuple[int, object]]:
    return {name: (slot.rev, table.formula_view().get(name)) for name, slot in table.items()}


def test_undo_takes_back_an_overwrite_and_keeps_the_old_revision_and_value() -> None:
    table = SlotTable()
    table.write("V", None, _value(1))
    before, writes = _state(table), table.writes
    table.write("V", None, _value(2))
    assert table.writes != writes
    table.undo()
    assert _state(table) == before
    assert table.write("V", None, _value(3)).rev == 2  # the taken-back write spent no revision


def test_undo_takes_back_a_first_write_so_the_slot_does_not_exist() -> None:
    table = SlotTable()
    table.write("P", None, _value(7))
    table.undo()
    assert "P" not in table and table.formula_view().get("P") is None


def test_undo_brings_back_a_deleted_slot() -> None:
    table = SlotTable()
    table.write("R", {"num": 4700, "dim": [2, 1, -3, -2, 0, 0, 0]})
    before = _state(table)
    table.delete("R")
    table.undo()
    assert _state(table) == before


def test_a_second_undo_changes_nothing_more() -> None:
    table = SlotTable()
    table.write("V", None, _value(1))
    table.write("V", None, _value(2))
    table.undo()
    table.undo()
    assert table["V"].rev == 1
