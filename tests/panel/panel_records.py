"""Record files written in the manual's format (7.2, 7.3), for panel tests and benchmarks.

The engine writes real records where a test needs live behaviour; these helpers build
homes with exact, known rows (refusals, hidden notes, old versions) quickly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reckoner.wire import dumps

HEADER = {"seq": 0, "version": 1}

OHM = [2, 1, -3, -2, 0, 0, 0]
VOLT = [2, 1, -3, -1, 0, 0, 0]
WATT = [2, 1, -3, 0, 0, 0, 0]
ZERO = [0, 0, 0, 0, 0, 0, 0]


class RowBuilder:
    """Trace rows with consecutive ``seq`` and ``at`` values, starting with record_start."""

    def __init__(self, record_id: str, title: str, at: int) -> None:
        self.record_id = record_id
        self.at = at
        self.rows: list[dict[str, Any]] = []
        self.add("record_start", {"title": title, "record": record_id})

    def add(self, tool: str, content: dict[str, Any], ok: bool = True) -> dict[str, Any]:
        row = {"seq": len(self.rows) + 1, "at": self.at + len(self.rows), "tool": tool}
        row["ok"] = ok
        row["content"] = content
        self.rows.append(row)
        return row

    def set(self, name: str, value: dict[str, Any] | None) -> None:
        self.add("set", {"name": name, "value": value})

    def get(self, name: str, value: dict[str, Any]) -> None:
        self.add("get", {"name": name, "value": value})

    def eval(
        self,
        formula: str,
        target: str,
        rev: int,
        variables: dict[str, Any],
        result: dict[str, Any],
    ) -> None:
        content = {"formula": formula, "target": target, "rev": rev}
        content["vars"] = variables
        content["result"] = result
        self.add("eval", content)

    def refuse(self, tool: str, code: str, error: str) -> None:
        self.add(tool, {"code": code, "error": error}, ok=False)

    def message(self, text: str, hide: bool = False) -> None:
        self.add("record_message", {"text": text, "hide": True} if hide else {"text": text})

    def end(self, text: str | None = None) -> None:
        content: dict[str, Any] = {"record": self.record_id}
        if text is not None:
            content = {"text": text, "record": self.record_id}
        self.add("record_end", content)


def encode(rows: list[dict[str, Any]], header: dict[str, Any] | None = None) -> bytes:
    lines = [dumps(header or HEADER)] + [dumps(row) for row in rows]
    return b"\n".join(lines) + b"\n"


def write_closed(home: Path, builder: RowBuilder) -> Path:
    path = home / "records" / f"{builder.record_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode(builder.rows))
    return path


def write_open(home: Path, builder: RowBuilder) -> Path:
    path = home / "open-record.jsonl"
    home.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode(builder.rows))
    return path


def divider_record(record_id: str = "1700000000000", at: int = 1_700_000_000_000) -> RowBuilder:
    """A small solve: writes, a read, refusals, a hidden note, two evals and a sweep."""
    b = RowBuilder(record_id, "Voltage divider power", at)
    b.set("V", {"num": 12, "dim": VOLT})
    b.set("R", {"num": 4700, "dim": OHM})
    b.message("Power dissipated in the resistor.")
    b.refuse(
        "eval",
        "ENGINE_NAME_NOT_BOUND",
        "the bare name 'V' at position 1 is not bound; write @V to read the slot.",
    )
    b.add(
        "eval",
        {
            "code": "ENGINE_SLOT_NOT_FOUND",
            "error": "the slot @Rx does not exist.",
            "formula": "@Rx",
        },
        ok=False,
    )
    b.eval(
        "(@V)^2/@R",
        "P",
        1,
        {"V": {"num": 12, "dim": VOLT}, "R": {"num": 4700, "dim": OHM}},
        {"num": 0.030638297872340425, "dim": WATT},
    )
    b.get("P", {"num": 0.030638297872340425, "dim": "watt"})
    b.message("check against the datasheet limit", hide=True)
    b.set("R", {"num": 1000, "dim": OHM})
    b.eval(
        "$seq_{k=0}^{4}(@V*k/4)",
        "sweep",
        1,
        {"V": {"num": 12, "dim": VOLT}},
        {"array": [0, 3, 6, 9, 12], "dim": VOLT},
    )
    b.end("P is about 30.6 mW.")
    return b
