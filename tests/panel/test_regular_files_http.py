"""Issue 8 through the panel: a symlink or FIFO among the records is never served or read.

A symlink in ``records/`` used to make the panel serve a file outside the home, and a FIFO
named like a record hung the whole panel; both are now listed as unreadable ids and
answered 404, quickly (the timeout guards against the hang).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from panel_records import RowBuilder, encode, write_closed
from starlette.testclient import TestClient

HOST = "127.0.0.1"
PORT = 8765
API = "/api/reckoner"

pytestmark = pytest.mark.timeout(20)


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_the_panel_lists_a_non_regular_record_unreadable_and_never_serves_it(
    home: Path, client: TestClient, tmp_path: Path, kind: str
) -> None:
    """Spec: docs/guide/panel.md (issue 8)."""
    builder = RowBuilder("1700000000000", "Kept", 1_700_000_000_000)
    builder.end()
    write_closed(home, builder)
    secret = RowBuilder("1800000000000", "Secret outside the home", 1_800_000_000_000)
    secret.end()
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(encode(secret.rows))
    planted = home / "records" / "1800000000000.jsonl"
    if kind == "symlink":
        os.symlink(outside, planted)
    else:
        os.mkfifo(planted)
    index = client.get(f"{API}/records-index")
    assert index.status_code == 200
    body = index.json()
    assert [entry["id"] for entry in body["closed"]] == ["1700000000000"]
    assert body["unreadable"] == ["1800000000000"]
    record = client.get(f"{API}/records/1800000000000")
    assert record.status_code == 404 and "Secret" not in record.text
    assert client.get(f"{API}/records/1700000000000").status_code == 200
