"""Row and file builders shared by the storage tests."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from reckoner import wire
from reckoner.storage.home import HomeLayout

OLD_NS = 1_600_000_000 * 10**9  # a directory time safely in the past (outside the racy window)


def start_row(
    record_id: str, title: str = "Divider", at: int = 1_700_000_000_000
) -> dict[str, Any]:
    return {
        "seq": 1,
        "at": at,
        "tool": "record_start",
        "ok": True,
        "content": {"title": title, "record": record_id},
    }


def set_row(seq: int, at: int, name: str = "R1", value: float = 4700.0) -> dict[str, Any]:
    return {
        "seq": seq,
        "at": at,
        "tool": "set",
        "ok": True,
        "content": {"name": name, "value": {"type": "number", "value": value}},
    }


def end_row(seq: int, at: int, record_id: str) -> dict[str, Any]:
    return {
        "seq": seq,
        "at": at,
        "tool": "record_end",
        "ok": True,
        "content": {"record": record_id},
    }


def lines(*rows: dict[str, Any], header: bytes | None = b'{"seq":0,"version":1}\n') -> bytes:
    body = b"".join(wire.dumps(row) + b"\n" for row in rows)
    return (header or b"") + body


def write_closed(
    layout: HomeLayout,
    record_id: str,
    title: str = "Divider",
    opened: int = 1_700_000_000_000,
    ended: int = 1_700_000_000_500,
    middle: int = 3,
) -> Path:
    rows = [start_row(record_id, title, opened)]
    rows += [set_row(2 + i, opened + 1 + i) for i in range(middle)]
    rows.append(end_row(2 + middle, ended, record_id))
    path = layout.records_dir / f"{record_id}.jsonl"
    path.write_bytes(lines(*rows))
    return path


def settle(directory: Path, offset_ns: int = 0) -> None:
    os.utime(directory, ns=(OLD_NS + offset_ns, OLD_NS + offset_ns))
