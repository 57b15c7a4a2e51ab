"""A record made as an agent makes one, through a real MCP client against a real
`reckoner serve` subprocess over stdio: the fixture of the articles a reader would hand in
(issue 23).

It holds a 12 V supply, R given as 4.07 kOhm, T1 as 15 degC, k as 0.8 W/(m*K), the current
read as 2.948 mA, the time read as 4.444 min, an ω (2π f, only its vector s⁻¹ on record), a
phase read in degrees, a given revised between two steps that read it (C = 4.7 uF, then
5.1 uF), a step the model overwrote with a corrected one before any step read it (P), and an
English record whose only Chinese text is a hidden note.

``reader_record`` is a fixture factory: ``make()`` returns the home and the record id, made
once per test module (a server start costs a second or two).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive

TITLE = "Heating a rod with a resistor"
HIDDEN_NOTE = "作者备注：单位已核对"
OVERWRITTEN_FORMULA = "@V * @I^2"

READER_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("record_start", {"title": TITLE}),
    ("record_message", {"text": "A 12 V supply drives the resistor R; the rod conducts."}),
    ("record_message", {"text": HIDDEN_NOTE, "hide": True}),
    ("set", {"name": "V", "value": {"num": 12, "dim": "volt"}}),
    ("set", {"name": "R", "value": {"num": 4.07, "unit": "kOhm"}}),
    ("set", {"name": "T1", "value": {"num": 15, "unit": "degC"}}),
    ("set", {"name": "k", "value": {"num": 0.8, "unit": "W/(m*K)"}}),
    ("set", {"name": "A", "value": {"num": 1, "unit": "cm^2"}}),
    ("set", {"name": "L", "value": {"num": 25, "unit": "cm"}}),
    ("set", {"name": "E", "value": {"num": 9.434, "unit": "J"}}),
    ("eval", {"formula": "@V / @R", "target": "I", "read": {"unit": "mA", "digits": 4}}),
    # The model's first power has the wrong dimension; it corrects it before reading it.
    ("eval", {"formula": OVERWRITTEN_FORMULA, "target": "P"}),
    ("eval", {"formula": "@I^2 * @R", "target": "P"}),
    ("eval", {"formula": "@E / @P", "target": "t", "read": {"unit": "min", "digits": 4}}),
    ("eval", {"formula": "@k * @A / @L", "target": "G"}),
    ("eval", {"formula": "@R * @A / @L", "target": "rho"}),
    ("eval", {"formula": "@T1 + @P / @G", "target": "T2"}),
    ("set", {"name": "C", "value": {"num": 4.7, "unit": "uF"}}),
    ("eval", {"formula": "@R * @C", "target": "tau1"}),
    ("set", {"name": "C", "value": {"num": 5.1, "unit": "uF"}}),
    ("eval", {"formula": "@R * @C", "target": "tau2"}),
    ("set", {"name": "f", "value": {"num": 50, "unit": "Hz"}}),
    ("eval", {"formula": "2 * $pi * @f", "target": "w"}),
    (
        "eval",
        {"formula": "$atan(-@w * @R * @C)", "target": "phi", "read": {"unit": "deg", "digits": 4}},
    ),
    ("record_end", {"text": "The current is 2.948 mA and the rod heats for 4.444 min."}),
]


async def _call_all(home: Path) -> list[dict[str, Any]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "reckoner", "serve", "--home", str(home)]
    )
    receipts: list[dict[str, Any]] = []
    # A deadline only against a hang: the server starts in seconds.
    with anyio.fail_after(120):
        async with Client(params) as client:
            for tool, arguments in READER_CALLS:
                result = await client.call_tool(tool, arguments)
                receipt = result.structured_content
                assert isinstance(receipt, dict) and receipt.get("ok") is True, (tool, receipt)
                receipts.append(receipt)
    return receipts


def make_reader_record(home: Path) -> str:
    """Make the record in ``home`` through a real MCP client and server; its id."""
    anyio.run(_call_all, home)
    closed = RecordArchive(HomeLayout(home)).index().closed
    assert len(closed) == 1
    return closed[0].id


@pytest.fixture(scope="module")
def reader_record(tmp_path_factory: pytest.TempPathFactory) -> Callable[[], tuple[Path, str]]:
    """A factory of the reader's record: ``make()`` -> (home, record id), made once."""
    made: list[tuple[Path, str]] = []

    def make() -> tuple[Path, str]:
        if not made:
            home = tmp_path_factory.mktemp("reader") / "home"
            made.append((home, make_reader_record(home)))
        return made[0]

    return make
