"""`reckoner show` marks a message or end whose text quotes a number no receipt showed
(issue 27): each of the row's ``warnings`` sentences under its text, as text (Rich markup in
a sentence is printed, never applied). A real subprocess on a home with a real record file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from reckoner.wire import dumps

RECORD = "1700000000000"
WARNED = "the number 68 in this message was not shown by any receipt of this record"
HOSTILE = "[bold red]9.81[/bold red] appeared nowhere"


def _write_record(home: Path, rows: list[tuple[str, dict[str, Any]]]) -> None:
    """A closed record file in the record format: the header, then one row per line."""
    at = 1_700_000_000_000
    lines = [dumps({"seq": 0, "version": 1})]
    for seq, (tool, content) in enumerate(rows, start=1):
        row = {"seq": seq, "at": at + seq, "tool": tool, "ok": True, "content": content}
        lines.append(dumps(row))
    (home / "records").mkdir(parents=True)
    (home / "records" / f"{RECORD}.jsonl").write_bytes(b"\n".join(lines) + b"\n")


def _show(home: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "reckoner", "show", RECORD, "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


def test_show_prints_each_warning_under_its_message_and_end(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write_record(
        home,
        [
            ("record_start", {"title": "Falling time", "record": RECORD}),
            ("record_message", {"text": "nothing flagged here"}),
            ("record_message", {"text": "it takes 68 s", "warnings": [WARNED, HOSTILE]}),
            ("record_end", {"text": "68 s.", "record": RECORD, "warnings": [WARNED]}),
        ],
    )

    lines = _show(home).splitlines()
    marked = [line.strip() for line in lines if "unverified number:" in line]
    assert marked == [
        f"unverified number: {WARNED}",
        f"unverified number: {HOSTILE}",
        f"unverified number: {WARNED}",
    ]
    plain = next(i for i, line in enumerate(lines) if "nothing flagged here" in line)
    assert "unverified" not in lines[plain + 1]
