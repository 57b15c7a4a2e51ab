"""Reading a test home's record back through the storage layer's own reader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reckoner.storage.home import HomeLayout
from reckoner.storage.record_store import RecordArchive


def record_rows(home: Path) -> list[dict[str, Any]]:
    """The rows of the home's open record, or of its newest closed one."""
    archive = RecordArchive(HomeLayout(home))
    listing = archive.index()
    record_id = listing.open.id if listing.open else listing.closed[0].id
    view = archive.read(record_id)
    assert view is not None
    return view.rows
