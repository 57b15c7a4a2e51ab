"""Reading a test home's record back through the storage layer's own reader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive


def record_rows(home: Path) -> list[dict[str, Any]]:
    """The rows of the home's open record, or of its newest closed one."""
    archive = RecordArchive(HomeLayout(home))
    listing = archive.index()
    record_id = listing.open.id if listing.open else listing.closed[0].id
    view = archive.read(record_id)
    assert view is not None
    return view.rows


def open_records(home: Path) -> dict[str, tuple[int, list[dict[str, Any]]]]:
    """Every open record of the home (one per lane), by title: its lane and its rows."""
    archive = RecordArchive(HomeLayout(home))
    found: dict[str, tuple[int, list[dict[str, Any]]]] = {}
    for entry in archive.index().open_records:
        view = archive.read(entry.id)
        assert view is not None and entry.title is not None
        found[entry.title] = (entry.lane, view.rows)
    return found


def open_rows(home: Path) -> dict[str, list[dict[str, Any]]]:
    """The rows of every open record of the home, by title."""
    return {title: rows for title, (_, rows) in open_records(home).items()}
