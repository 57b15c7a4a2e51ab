"""Replay (docs/guide/records.md): the open record a lane left behind, read back into a slot table.

Only accepted `set` and `eval` rows write slots; a preset tool's row is a fact, kept for
its budget and never re-run. A row this build cannot use is dropped like a torn line, and
counted.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from reckoner.contract.registry import PRESET_TOOL_BY_NAME
from reckoner.core import Failure
from reckoner.core.api import check_name, parse_value
from reckoner.storage.open_journal import OpenRecordJournal
from reckoner.storage.record_archive import RecordArchive
from reckoner.storage.run_log import RunLog

from .lifecycle import OpenRecord
from .slots import SlotTable, StoredValueError

# A row of a replayed tool that cannot be used (its content is not an object, or its value
# or its name is not one this build stores): dropped, and counted.
_UNUSABLE: tuple[str, dict[str, Any] | None] = ("", None)


def recover(
    journal: OpenRecordJournal, archive: RecordArchive, slots: SlotTable, log: RunLog
) -> OpenRecord | None:
    """The lane's open record, its slots written into ``slots``; None when none was open."""
    recovered = journal.recover()
    for note in journal.notes:
        log.warn(note)
    journal.notes.clear()
    if recovered is None:
        return None
    record_id = recovered.record_id
    record = OpenRecord(record_id, recovered.title, recovered.last_seq)
    # What the receipts showed before the restart still backs the prose after it; the rows
    # are read again from the file if a message is checked (a replay holds none of them).
    record.shown.resume(recovered.last_seq, partial(_rows_of, archive, record_id))
    unusable = 0
    for row in recovered.rows:
        tool = row.get("tool")
        if tool in PRESET_TOOL_BY_NAME:
            # A preset tool's row is a fact: kept for its budget, never re-run (7.4).
            content = row.get("content")
            if isinstance(content, dict):
                record.fact_rows.setdefault(str(tool), []).append(content)
            continue
        write = _replayed_write(row)
        if write is None:
            continue
        if write is _UNUSABLE:
            unusable += 1
            continue
        name, value = write
        if value is None:
            slots.delete(name)
        else:
            slots.write(name, value, from_record=True)
    # Values are parsed once, at the end, for the slots that are left (a long replay costs
    # dictionary updates); a slot whose value does not parse is replayed again with every
    # row of it checked, so its unusable rows are dropped like torn lines.
    for name in slots.names():
        if slots.get(name) is None:
            continue
        try:
            slots.materialize(name)
        except StoredValueError:
            unusable += _replay_checked(slots, name, recovered.rows, log)
    if unusable:
        log.warn(
            "rows this build cannot use were dropped on replay, like torn lines",
            record=recovered.record_id,
            dropped=unusable,
        )
    log.info(
        "open record resumed",
        record=recovered.record_id,
        rows=len(recovered.rows),
        slots=len(slots),
    )
    return record


def _rows_of(archive: RecordArchive, record_id: str) -> list[dict[str, Any]]:
    """The rows of the open record as its file holds them; none when it cannot be read."""
    view = archive.read(record_id)
    return view.rows if view is not None else []


def _replay_checked(slots: SlotTable, name: str, rows: list[dict[str, Any]], log: RunLog) -> int:
    """Replay the rows writing ``name`` again, parsing each value; answer the drops."""
    slots.delete(name)
    dropped = 0
    for row in rows:
        write = _replayed_write(row)
        if write is None or write is _UNUSABLE or write[0] != name:
            continue
        value = write[1]
        if value is None:
            slots.delete(name)
            continue
        parsed = parse_value(value)
        if isinstance(parsed, Failure):
            dropped += 1
            log.warn(
                "replayed row dropped: its value does not parse",
                seq=row.get("seq"),
                slot=name,
                why=parsed.message,
            )
            continue
        slots.write(name, value, parsed, from_record=True)
    return dropped


def _replayed_write(row: dict[str, Any]) -> tuple[str, dict[str, Any] | None] | None:
    """What an accepted row writes on replay (docs/guide/records.md): (name, value or None to
    delete).

    None for a row replay skips (refused, get, markers, search); ``_UNUSABLE`` for a set or
    eval row this build cannot use.
    """
    if row.get("ok") is not True:
        return None
    tool = row.get("tool")
    if tool != "set" and tool != "eval":
        return None
    content = row.get("content")
    if not isinstance(content, dict):
        return _UNUSABLE
    if tool == "set":
        name, value = content.get("name"), content.get("value")
        if type(name) is not str or check_name(name, "name") is not None:
            return _UNUSABLE  # a hand-edited row; every name in the table follows the rule
        if value is None or isinstance(value, dict):
            return name, value
        return _UNUSABLE
    target, result = content.get("target"), content.get("result")
    if type(target) is not str or check_name(target, "target") is not None:
        return _UNUSABLE
    if isinstance(result, dict):
        return target, result
    return _UNUSABLE
