"""Builders shared by the engine tests: a controllable clock and readers of the home's files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from reckoner import Engine, wire

T0 = 1_700_000_000_000
HEADER = b'{"seq":0,"version":1}\n'

VOLT = [2, 1, -3, -1, 0, 0, 0]
OHM = [2, 1, -3, -2, 0, 0, 0]
WATT = [2, 1, -3, 0, 0, 0, 0]
KELVIN = [0, 0, 0, 0, 1, 0, 0]


def cli_call(home: Path, tool: str, args: Any) -> dict[str, Any]:
    """One `reckoner call` in a subprocess on ``home``: its receipt, read from stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "reckoner", "call", "--home", str(home), tool, json.dumps(args)],
        capture_output=True,
        text=True,
    )
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


class StepClock:
    """Epoch ms that advance by one per reading, or stand still while ``frozen``."""

    def __init__(self, start: int = T0) -> None:
        self.now = start
        self.frozen = False

    def __call__(self) -> int:
        if not self.frozen:
            self.now += 1
        return self.now


def open_file(engine_or_home: Engine | Path) -> Path:
    home = engine_or_home.home if isinstance(engine_or_home, Engine) else engine_or_home
    return home / "open-record.jsonl"


def file_lines(path: Path) -> list[bytes]:
    """The file's lines, newline kept off; a torn tail stays as the last element."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def file_rows(path: Path) -> list[dict[str, Any]]:
    """Every trace row that parses (header excluded), read independently of the engine."""
    rows = []
    for line in file_lines(path):
        try:
            row = wire.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and row.get("seq") != 0:
            rows.append(row)
    return rows


def replay(rows: list[dict[str, Any]]) -> dict[str, tuple[int, Any]]:
    """The slot table docs/guide/records.md says these rows leave behind: {name: (rev, stored)}."""
    table: dict[str, tuple[int, Any]] = {}
    for row in rows:
        if row.get("ok") is not True:
            continue
        content = row.get("content")
        if row.get("tool") == "set":
            name, value = content["name"], content["value"]
            if value is None:
                table.pop(name, None)
            else:
                table[name] = (table[name][0] + 1 if name in table else 1, value)
        elif row.get("tool") == "eval":
            target = content["target"]
            table[target] = (
                table[target][0] + 1 if target in table else 1,
                content["result"],
            )
    return table


def as_wire(table: dict[str, tuple[int, Any]]) -> dict[str, tuple[int, Any]]:
    """A slot table with its stored forms normalised through the wire form."""
    return {name: (rev, wire.loads(wire.dumps(value))) for name, (rev, value) in table.items()}


def home_files(home: Path, *, skip_logs: bool = True) -> dict[str, bytes]:
    """Every file under the home with its bytes (logs and the lock aside): a full snapshot."""
    found: dict[str, bytes] = {}
    for root, _dirs, files in os.walk(home):
        rel_root = Path(root).relative_to(home)
        if skip_logs and rel_root.parts[:1] == ("logs",):
            continue
        for name in files:
            if rel_root == Path(".") and name == ".lock":
                continue
            found[str(rel_root / name)] = (Path(root) / name).read_bytes()
    return found
