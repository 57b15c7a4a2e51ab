"""Shared helpers for the pitfalls tests (issue 13)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reckoner.pitfalls.model import FORMAT_VERSION, TEXT_FIELDS, clean_fields
from reckoner.pitfalls.tiers import Pitfalls


def lesson(entry_id: str = "p-20261201-070000-0001", **fields: Any) -> dict[str, Any]:
    """A stored lesson with every field, as the library keeps it."""
    entry: dict[str, Any] = {"v": FORMAT_VERSION, "id": entry_id}
    for key in TEXT_FIELDS:
        entry[key] = fields.pop(key, "")
    entry["tags"] = fields.pop("tags", [])
    entry["status"] = fields.pop("status", "solved")
    entry["notes"] = fields.pop("notes", [])
    entry["created"] = fields.pop("created", "2026-12-01T07:00:00Z")
    entry["updated"] = fields.pop("updated", entry["created"])
    assert not fields, fields
    return entry


def jsonl_lines(root: Path | str) -> list[str]:
    return (Path(root) / "entries.jsonl").read_text(encoding="utf-8").splitlines()


def _record(pitfalls: Pitfalls, **fields: object) -> dict[str, object]:
    return pitfalls.record(clean_fields(fields)).entry
