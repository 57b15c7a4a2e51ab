"""One side of the restructure's equivalence check: drives one checkout through a fixed
scenario and prints, as one JSON object, what it observed (item name -> text).

`scripts/check_equivalence.py` runs this file in each checkout's own interpreter
(``DIR/.venv/bin/python``), so each side speaks through its own installed `reckoner` and
`mcp`; it never imports `reckoner` itself except for the preset names, which the contract
holds (in `reckoner.contract.registry` after the restructure, `reckoner.core.contract`
before). Every program it starts gets HOME, RECKONER_HOME, TMPDIR and the project under the
work directory it is handed, a fixed PATH, COLUMNS, locale and time zone, so the two sides
differ only by their code. Everything it reports has passed the one normaliser
(`equivalence_side.Normaliser`), which hides the clock-, pid- and chance-dependent parts,
so one place decides what counts as noise.

The provider fakes are the test suite's own (`tests/provider_fakes.py`), loaded from the
checkout the check runs from, so both sides answer the same loopback fake.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from equivalence_side import PITFALL_ID, Side, call, dump, model, preset_names
from mcp import Client

WIKI = "https://en.wikipedia.org/wiki/Copper"
ANSWER = "The density of copper near room temperature is 8.96 g/cm3."


async def surface(side: Side, presets: list[str]) -> None:
    """initialize, tools, prompts and resources of every preset, with and without pitfalls,
    and of the pitfalls memory's own server."""
    for preset in presets:
        for pitfalls in (False, True):
            args = ["serve", "--preset", preset, *(["--pitfalls"] if pitfalls else [])]
            places = side.place(f"surface-{preset}-{int(pitfalls)}")
            side.put(f"surface {' '.join(args[1:])}", await _surface_of(side, places, args))
    places = side.place("surface-compute-off")
    off = ["serve", "--preset", "reckoner-with-compute", "--compute-mode", "off"]
    side.put(
        "surface --preset reckoner-with-compute --compute-mode off",
        await _surface_of(side, places, off),
    )
    places = side.place("surface-pitfalls-serve")
    side.put("surface pitfalls serve", await _surface_of(side, places, ["pitfalls", "serve"]))


async def _surface_of(
    side: Side, places: dict[str, Path], args: list[str], url: str | None = None
) -> str:
    """What a client sees of one server: ``reckoner ARGS`` over stdio, or the one at url."""
    seen: dict[str, Any] = {}
    async with Client(url or side.server(places, *args)) as client:
        seen["protocolVersion"] = client.protocol_version
        seen["serverInfo"] = model(client.server_info)
        seen["capabilities"] = model(client.server_capabilities)
        seen["instructions"] = client.instructions
        seen["tools"] = [model(t) for t in (await client.list_tools()).tools]
        if client.server_capabilities.prompts is not None:
            prompts = (await client.list_prompts()).prompts
            seen["prompts"] = [model(p) for p in prompts]
            seen["prompt_texts"] = {p.name: model(await client.get_prompt(p.name)) for p in prompts}
        if client.server_capabilities.resources is not None:
            resources = (await client.list_resources()).resources
            seen["resources"] = [model(r) for r in resources]
            seen["resource_texts"] = {
                str(r.uri): model(await client.read_resource(str(r.uri))) for r in resources
            }
    return dump(seen)


ENGINE_CALLS: list[tuple[str, Any]] = [
    # No record open yet.
    ("get", {"name": "x"}),
    ("eval", {"formula": "1+1", "target": "x"}),
    ("record_message", {"text": "too early"}),
    ("record_end", {}),
    ("record_start", {}),
    ("record_start", {"title": ""}),
    ("record_start", {"title": "Equivalence corpus: a loaded divider and friends"}),
    ("record_start", {"title": "a second one"}),
    # Values: dims, units, reads, digits.
    ("set", {"name": "R1", "value": {"num": 4700, "dim": "ohm"}}),
    ("set", {"name": "R2", "value": {"num": 4.7, "unit": "kOhm"}, "read": {"digits": 3}}),
    ("set", {"name": "V", "value": {"num": 12, "dim": [2, 1, -3, -1, 0, 0, 0]}}),
    (
        "set",
        {
            "name": "v",
            "value": {"num": 100, "unit": "km/h"},
            "read": [{"unit": "m/s"}, {"unit": "mph", "digits": 4}],
        },
    ),
    (
        "set",
        {
            "name": "T",
            "value": {"num": 98.6, "unit": "degF"},
            "read": {"unit": "degC", "digits": 4},
        },
    ),
    ("set", {"name": "rho", "value": {"num": 8.96, "unit": "g/cm3"}}),
    ("set", {"name": "k", "value": {"num": 401, "unit": "W/(m·K)"}, "read": {}}),
    ("set", {"name": "q", "value": {"num": 1, "unit": "W/m·K"}}),
    ("set", {"name": "n", "value": {"num": 3}}),
    ("set", {"name": "Z", "value": {"re": 3, "im": 4, "dim": "ohm"}}),
    ("set", {"name": "Zp", "value": {"mag": 5, "ang": 0.927295218, "dim": "volt"}}),
    ("set", {"name": "arr", "value": {"array": [1, 2, 3], "unit": "mm"}}),
    ("set", {"name": "M", "value": {"array": [[1, 2], [3, 4]], "dim": "dim-less"}}),
    (
        "set",
        {
            "name": "net",
            "value": {
                "object": {"v": {"num": 12, "dim": "volt"}, "z": {"re": 1, "im": -2, "dim": "ohm"}}
            },
        },
    ),
    ("set", {"name": "gone", "value": {"num": 1}}),
    ("set", {"name": "gone", "value": None}),
    ("set", {"name": "x1", "value": {"num": 68, "text": "68.00", "dim": "dim-less"}}),
    ("get", {"name": "R2"}),
    ("get", {"name": "R2", "unit": "MOhm", "digits": 2}),
    ("get", {"name": "T", "dim": "degC"}),
    ("get", {"name": "T", "dim": [0, 0, 0, 0, 1, 0, 0]}),
    ("get", {"name": "Z", "form": "polar", "digits": 5}),
    ("get", {"name": "Zp", "form": "rect"}),
    ("get", {"name": "net"}),
    ("get", {"name": "arr", "unit": "cm"}),
    ("get", {"name": "M", "digits": 1}),
    # Formulas.
    ("eval", {"formula": "@V / (@R1 + @R2)", "target": "I", "read": {"unit": "mA", "digits": 4}}),
    ("eval", {"formula": "@I^2 * @R1", "target": "P", "read": [{"unit": "mW"}, {"digits": 3}]}),
    ("eval", {"formula": "$sqrt(@R1 * @R2)", "target": "Rg"}),
    ("eval", {"formula": "@Z * (2 + 3j) + $conj(@Z)", "target": "Zc", "read": {"form": "polar"}}),
    ("eval", {"formula": "$abs(@Z) + $re(@Z) - $im(@Z)", "target": "za"}),
    ("eval", {"formula": "$atan2(1, 1) + $pi + $e", "target": "ang"}),
    ("eval", {"formula": "$sum_{k=1}^{10}(k^2)", "target": "s"}),
    ("eval", {"formula": "$prod_{k=1}^{5}(k)", "target": "f5"}),
    ("eval", {"formula": "$seq_{k=0}^{4}(k * @arr[0])", "target": "sq"}),
    ("eval", {"formula": "$len(@arr) + @M[1][0] + $transpose(@M)[0][1]", "target": "ln"}),
    ("eval", {"formula": "@arr * 2", "target": "arr2", "read": {"unit": "mm"}}),
    ("eval", {"formula": "@net.v / @net.z", "target": "inet", "read": {"digits": 6}}),
    (
        "eval",
        {"formula": "$min(@R1, @R2) + $max(@R1, @R2) + $mod(@R1, 3 * @R2 / 3)", "target": "mm"},
    ),
    (
        "eval",
        {
            "formula": "$floor(2.5) + $ceil(2.5) + $sign(-3) + $ln($e) + $log(100) + $exp(0)",
            "target": "misc",
        },
    ),
    (
        "eval",
        {
            "formula": "$sin(0) + $cos(0) + $tan(0) + $asin(1) + $acos(1) + $atan(1)",
            "target": "trig",
        },
    ),
    ("eval", {"formula": "$arg(@Z) + $sqrt(-4)", "target": "cx"}),
    ("eval", {"formula": "@R1 + 1", "target": "bad"}),
    ("eval", {"formula": "1 +", "target": "bad"}),
    ("eval", {"formula": "(1 + 2", "target": "bad"}),
    ("eval", {"formula": "1 + 2; 3", "target": "bad"}),
    ("eval", {"formula": "2e", "target": "bad"}),
    ("eval", {"formula": "1e400", "target": "bad"}),
    ("eval", {"formula": "2x", "target": "bad"}),
    ("eval", {"formula": "1E5", "target": "bad"}),
    ("eval", {"formula": "1", "target": "9bad"}),
    ("eval", {"formula": "1", "target": "@x"}),
    ("set", {"name": "R-1", "value": {"num": 1}}),
    ("set", {"name": "b", "value": {"num": 1, "dim": "furlong"}}),
    ("set", {"name": "b", "value": {"num": 1, "dim": [1, 2, 3]}}),
    ("set", {"name": "b", "value": {"num": 1, "dim": [1.5, 0, 0, 0, 0, 0, 0]}}),
    ("set", {"name": "b", "value": {"num": 1, "unit": "furlongz"}}),
    ("set", {"name": "b", "value": {"num": 1, "unit": "m/s/s/"}}),
    ("set", {"name": "b", "value": {"num": 1, "unit": "m", "dim": "metre"}}),
    ("eval", {"formula": "$foo(1)", "target": "bad"}),
    ("eval", {"formula": "$pi(1)", "target": "bad"}),
    ("eval", {"formula": "$sqrt(1, 2)", "target": "bad"}),
    ("eval", {"formula": "$atan2(1)", "target": "bad"}),
    ("eval", {"formula": "$sum(k)", "target": "bad"}),
    ("eval", {"formula": "@nope + 1", "target": "bad"}),
    ("get", {"name": "nope"}),
    ("eval", {"formula": "k + 1", "target": "bad"}),
    ("eval", {"formula": "@R1 + @V", "target": "bad"}),
    ("eval", {"formula": "$sin(@R1)", "target": "bad"}),
    ("get", {"name": "R1", "dim": "volt"}),
    ("get", {"name": "R1", "unit": "V"}),
    ("eval", {"formula": "@net + 1", "target": "bad"}),
    ("eval", {"formula": "$sqrt(@net)", "target": "bad"}),
    ("eval", {"formula": "@arr[5]", "target": "bad"}),
    ("eval", {"formula": "@arr[0.5]", "target": "bad"}),
    ("eval", {"formula": "$sum_{k=5}^{1}(k)", "target": "bad"}),
    ("eval", {"formula": "$sum_{k=1}^{2000000}(k)", "target": "bad"}),
    ("eval", {"formula": "1 / 0", "target": "bad"}),
    ("eval", {"formula": "$ln(0)", "target": "bad"}),
    ("eval", {"formula": "$inf", "target": "bad"}),
    ("eval", {"formula": "@R1.a", "target": "bad"}),
    ("eval", {"formula": "@R1[0]", "target": "bad"}),
    ("eval", {"formula": "@net.q", "target": "bad"}),
    ("eval", {"formula": "$integral_{0}^{1}(x, x)", "target": "bad"}),
    ("eval", {"formula": "$limit_{x->0}(x)", "target": "bad"}),
    ("eval", {"formula": "$diff(x, x)", "target": "bad"}),
    ("set", {"name": "b"}),
    ("set", {"name": "b", "value": {"num": "1"}}),
    ("set", {"name": "b", "value": {"num": 1}, "extra": 1}),
    ("set", {"name": "b", "value": {"num": 1}, "read": [{}, {}, {}, {}, {}]}),
    ("set", {"name": "b", "value": None, "read": {}}),
    ("get", {"name": "R1", "digits": 0}),
    ("get", {"name": "R1", "form": "square"}),
    ("get", {"name": 7}),
    ("get", {"name": None}),
    ("get", {"name": "R1", "digits": None, "form": None}),
    ("get", {"name": "R1", "digits": True}),
    ("get", {"name": "R1", "digits": 2.5}),
    ("get", {"name": "R1", "unit": ""}),
    ("get", {"name": "R1", "unit": "m" * 101}),
    ("get", {"name": "R1", "dim": 5}),
    ("set", {"name": None, "value": {"num": 1}}),
    ("set", {"name": "b", "value": {"num": 1}, "read": None}),
    ("set", {"name": "b", "value": {"num": 1}, "read": "mm"}),
    ("set", {"name": "b", "value": {"num": 1}, "read": {"bogus": 1}}),
    ("set", {"name": "b", "value": {"array": list(range(5))}, "read": [{"digits": 0}]}),
    ("eval", {"formula": None, "target": "x"}),
    ("eval", {"formula": 12, "target": "x"}),
    ("eval", {"formula": "1"}),
    ("record_message", {"text": "x", "hide": "yes"}),
    ("record_message", {"text": None}),
    ("eval", {"formula": "1" * 10001, "target": "bad"}),
    ("eval", {"formula": "(" * 300 + "1" + ")" * 300, "target": "bad"}),
    ("record_message", {"text": "A hidden note for the writer.", "hide": True}),
    ("record_message", {"text": ""}),
    ("record_message", {"text": "The current through the divider is read with get."}),
    ("record_end", {"text": "The divider draws the current read above."}),
    ("get", {"name": "R1"}),
]


async def engine(side: Side) -> None:
    """Every engine code and the value forms, through a real client, with the record rows."""
    places = side.place("engine")
    tape = side.tape(places["home"])
    async with Client(side.server(places, "serve")) as client:
        for tool, args in ENGINE_CALLS:
            await call(client, tape, tool, args)
        await call(client, tape, "no_such_tool", {})
        await call(client, tape, "set", ["not", "an", "object"])
    side.put("receipts engine", tape.text())
    articles(side, places, closed_record(side, places))
    side.put("cli after engine: records --json", side.cli(places, "records", "--json"))
    await replay(side)


CLI_CALLS: list[tuple[str, Any]] = [
    ("record_start", {"title": "Through the command line"}),
    ("set", {"name": "P", "value": {"num": 30.64, "unit": "mW"}, "read": {"unit": "W"}}),
    ("eval", {"formula": "@P * 2", "target": "P2", "read": {"unit": "mW", "digits": 3}}),
    ("get", {"name": "P2", "form": "polar"}),
    ("eval", {"formula": "@P +", "target": "bad"}),
    ("record_message", {"text": "Twice the power, read in mW."}),
    ("record_end", {"text": "Done on the command line."}),
]
"""One record made with `reckoner call`, the engine without the MCP server."""


async def http(side: Side) -> None:
    """`serve --http` on a free loopback port: its surface, two sessions (each its own lane
    and record) through the SDK's streamable HTTP client, and the hosts and ports refused."""
    places = side.place("http")
    tape = side.tape(places["home"])
    command = [side.reckoner, "serve", "--http", "--port", "0"]
    said = places["tmp"] / "serve-http.stderr"
    with said.open("w") as stderr:  # a file, so the server never blocks on a full pipe
        server = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=side.env(places),
            cwd=places["proj"],
        )
    try:
        announced = await _first_line(said)
        side.put("http: what serve --http says", announced)
        url = announced.split(" at ", 1)[-1].strip()
        side.put("http: surface", await _surface_of(side, places, [], url=url))
        async with Client(url) as first, Client(url) as second:
            await call(first, tape, "record_start", {"title": "over HTTP, session one"})
            await call(second, tape, "record_start", {"title": "over HTTP, session two"})
            await call(first, tape, "set", {"name": "x", "value": {"num": 2, "unit": "m"}})
            await call(second, tape, "get", {"name": "x"})
            await call(first, tape, "eval", {"formula": "@x^2", "target": "A", "read": {}})
            await call(first, tape, "record_end", {"text": "one"})
            await call(second, tape, "record_end", {})
    finally:
        server.terminate()
        server.wait(timeout=30)
    side.put("receipts http", tape.text())
    for args in (
        ("--host", "0.0.0.0"),
        ("--host", "::"),
        ("--host", "example.com"),
        ("--port", "99999"),
        ("--port", "-1"),
    ):
        side.put(f"cli serve --http {' '.join(args)}", side.cli(places, "serve", "--http", *args))
    side.put("cli serve --lane 99", side.cli(places, "serve", "--lane", "99"))
    side.put("cli panel --port 70000", side.cli(places, "panel", "--port", "70000"))


async def _first_line(path: Path) -> str:
    """The first line a starting program writes to ``path`` (at most 60 s)."""
    for _ in range(600):
        text = path.read_text("utf-8")
        if "\n" in text:
            return text.split("\n", 1)[0] + "\n"
        await anyio.sleep(0.1)
    return path.read_text("utf-8")


TORN_ROW = '{"seq":9,"at":1700000000000,"tool":"set","ok":tr'


async def replay(side: Side) -> None:
    """A record left open by a server that stopped, a torn last row, a second server that
    replays the record and finishes it, and an unreadable record file in the home."""
    places = side.place("replay")
    home = places["home"]
    tape = side.tape(home)
    async with Client(side.server(places, "serve")) as client:
        await call(client, tape, "record_start", {"title": "A record two servers carry"})
        await call(client, tape, "set", {"name": "R", "value": {"num": 4.7, "unit": "kOhm"}})
        await call(client, tape, "set", {"name": "Z", "value": {"re": 3, "im": -4, "dim": "ohm"}})
        await call(client, tape, "set", {"name": "a", "value": {"array": [1, 2.5], "unit": "mm"}})
        await call(client, tape, "eval", {"formula": "@R * 2 + $abs(@Z)", "target": "P"})
        await call(client, tape, "eval", {"formula": "@R + @a", "target": "bad"})
        await call(client, tape, "record_message", {"text": "The first server stops here."})
    with (home / "open-record.jsonl").open("a", encoding="utf-8") as journal:
        journal.write(TORN_ROW)
    tape.note("(a torn last row appended while no server runs)", TORN_ROW, None)
    side.put("cli replay: records --json (open)", side.cli(places, "records", "--json"))
    async with Client(side.server(places, "serve")) as client:
        await call(client, tape, "get", {"name": "P", "unit": "kOhm", "digits": 4})
        await call(client, tape, "get", {"name": "a"})
        await call(client, tape, "eval", {"formula": "@P - @R", "target": "Q", "read": {}})
        await call(client, tape, "record_start", {"title": "another"})
        await call(client, tape, "record_end", {"text": "Closed by the second server."})
    (home / "records" / "1700000000000.jsonl").write_text("not a record\n", encoding="utf-8")
    tape.note("(an unreadable record file written)", "1700000000000.jsonl", None)
    side.put("receipts replay", tape.text())
    side.put("cli replay: records --json", side.cli(places, "records", "--json"))
    side.put("cli replay: show", side.cli(places, "show", closed_record(side, places)))
    side.put("cli replay: doctor --json", side.cli(places, "doctor", "--json"))


async def pitfalls(side: Side) -> None:
    """The pitfall tools, their refusals, and the reminder after repeated failures."""
    places = side.place("pitfalls")
    tape = side.tape(places["home"], places["proj"])
    lesson = {
        "title": "eval refuses implicit multiplication like 2x",
        "area": "eval formula",
        "symptom": "eval 2x failed",
        "cause": "a letter directly after a number",
        "solution": "write the operator: 2*@x, never 2x",
        "evidence": "ENGINE_INVALID_IDENTIFIER: a letter directly follows a number",
        "tags": ["eval", "ENGINE_INVALID_IDENTIFIER"],
    }
    async with Client(side.server(places, "serve", "--pitfalls")) as client:

        async def changing(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            # A lesson's times have whole seconds and lessons of one second tie in the
            # newest-first order; each change gets a second of its own, so the order is
            # the calls' order on both sides.
            await anyio.sleep(1.01 - time.time() % 1)
            return await call(client, tape, tool, args)

        first = await changing("pitfall_record", lesson)
        await changing("pitfall_record", lesson)
        other = await changing(
            "pitfall_record", {**lesson, "title": "2x is refused by eval", "status": "workaround"}
        )
        third = await changing(
            "pitfall_record",
            {"title": "units: W/m·K is ambiguous", "tags": ["unit"], "status": "open"},
        )
        await changing("pitfall_record", {})
        await changing("pitfall_record", {"title": "x", "status": "maybe"})
        await changing("pitfall_record", {"title": "x", "tags": ["t"] * 17})
        await call(client, tape, "pitfall_search", {"query": "implicit multiplication eval"})
        await call(client, tape, "pitfall_search", {"tag": "unit"})
        await call(client, tape, "pitfall_search", {"query": "", "limit": 1})
        await call(client, tape, "pitfall_search", {"limit": 99})
        await call(client, tape, "pitfall_list", {})
        await call(client, tape, "pitfall_list", {"status": "open"})
        await call(client, tape, "pitfall_list", {"status": "nope"})
        await call(client, tape, "pitfall_list", {"status": 3})
        await call(client, tape, "pitfall_list", {"limit": 0})
        await call(client, tape, "pitfall_search", {"limit": "5"})
        await call(client, tape, "pitfall_search", {"limit": True})
        await call(client, tape, "pitfall_search", {"query": None, "tag": 4})
        await call(client, tape, "pitfall_search", {"query": "x", "bogus": 1})
        await call(client, tape, "pitfall_search", [])
        await changing("pitfall_record", {"title": "kinds", "tags": "eval"})
        await changing("pitfall_record", {"title": "kinds", "tags": ["ok", 1]})
        await changing("pitfall_record", {"title": 5})
        await changing("pitfall_record", {"title": None})
        await changing("pitfall_record", {"title": "kinds", "area": None, "evidence": 3})
        await changing("pitfall_update", {"id": None, "note": "x"})
        await changing("pitfall_merge", {"id": "p-20000101-000000-zzzz"})
        await call(client, tape, "pitfall_delete", {"id": 3})
        ids = [PITFALL_ID.findall(json.dumps(r)) for r in (first, other, third)]
        keep, dup, last = (found[0] if found else "p-00000000-000000-none" for found in ids)
        await changing("pitfall_update", {"id": keep, "note": "it happened again"})
        await changing("pitfall_update", {"id": keep, "status": "solved", "tags": ["eval", "x"]})
        await changing("pitfall_update", {"id": "p-20000101-000000-zzzz", "note": "n"})
        await changing("pitfall_update", {"note": "no id"})
        await changing("pitfall_merge", {"id": keep, "duplicate": dup})
        await changing("pitfall_merge", {"id": keep, "duplicate": keep})
        await changing("pitfall_merge", {"id": keep, "duplicate": dup})
        await call(client, tape, "pitfall_delete", {"id": last})
        await call(client, tape, "pitfall_delete", {"id": last})
        await call(client, tape, "pitfall_delete", {})
        await call(client, tape, "record_start", {"title": "implicit products"})
        for _ in range(4):
            await call(client, tape, "eval", {"formula": "2x", "target": "y"})
        await call(client, tape, "pitfall_list", {})
    side.put("receipts pitfalls", tape.text())
    side.put("cli after pitfalls: pitfalls list", side.cli(places, "pitfalls", "list"))
    side.put("cli after pitfalls: pitfalls search", side.cli(places, "pitfalls", "search", "eval"))


async def compute(side: Side) -> None:
    """The python engine: probe, runs that pass and fail, receipts, install plans, refusals."""
    places = side.place("compute")
    tape = side.tape(places["home"], places["proj"])
    (places["proj"] / "job.py").write_text("print(sum(range(10)))\n")
    serve = side.server(
        places, "serve", "--preset", "reckoner-with-compute", "--compute-engines", "python"
    )
    async with Client(serve) as client:

        async def c(args: dict[str, Any]) -> dict[str, Any]:
            return await call(client, tape, "compute", args)

        await c({"op": "probe", "engine": "python"})
        ran = await c({"op": "run", "engine": "python", "code": "print(6 * 7)"})
        await call(client, tape, "record_start", {"title": "compute in a record"})
        await c({"op": "run", "engine": "python", "code": "print(6 * 7)"})
        await c({"op": "run", "engine": "python", "code": "import sys\nprint('half')\nsys.exit(3)"})
        await c({"op": "run", "engine": "python", "expr": "2**10", "mode": "expr"})
        await c(
            {
                "op": "run",
                "engine": "python",
                "mode": "file",
                "file": "job.py",
                "captureFiles": ["job.py"],
            }
        )
        await c({"op": "run", "engine": "python", "mode": "file", "file": "../outside.py"})
        await c({"op": "run", "engine": "python", "mode": "file", "file": "missing.py"})
        await c(
            {
                "op": "run",
                "engine": "python",
                "code": "import time; time.sleep(30)",
                "timeoutMs": 1000,
            }
        )
        await c(
            {
                "op": "run",
                "engine": "python",
                "code": "print(1)",
                "packages": ["surely_not_installed_pkg"],
            }
        )
        await c({"op": "run", "engine": "python", "code": "print(1)", "packages": ["bad spec!!"]})
        await c({"op": "run", "engine": "julia", "code": "println(1)"})
        await c({"op": "run", "engine": "cli", "code": "x"})
        await c({"op": "run", "engine": "python", "code": "print(1)", "timeoutMs": 10})
        await c({"op": "bogus"})
        await c({"op": "run", "engine": "python", "code": 5})
        await c({"op": "run", "engine": "python", "code": "print(1)", "packages": [3]})
        await c({"op": "run", "engine": "python", "code": "print(1)", "packages": "numpy"})
        await c({"op": "run", "engine": "python", "code": "print(1)", "timeoutMs": "x"})
        await c({"op": "run", "engine": "python", "code": "print(1)", "timeoutMs": True})
        await c({"op": "run", "engine": "python", "code": "print(1)", "captureFiles": [""]})
        await c({"op": "run", "engine": "cli", "cli": {"command": "python3", "bogus": 1}})
        await c({"op": "run", "engine": "cli", "cli": {"argv": ["-c", "print(1)"]}})
        await c({"op": "run", "engine": "cli", "cli": {"command": "python3", "argv": ["-c", 1]}})
        await c({"op": "run", "engine": "python", "code": "#" * 1_000_001})
        await c({"op": "run", "engine": "python", "mode": "file", "file": ""})
        await c({"op": "run", "engine": "python", "mode": "sideways", "code": "1"})
        await c({"op": "probe", "code": "print(1)"})
        await c({"op": None})
        await c({"op": "run", "engine": None, "code": "print(1)"})
        await c({"op": "run"})
        run_id = str(ran.get("runId", "no-run-id"))
        await c({"op": "receipt", "file": run_id})
        await c({"op": "receipt", "file": "reckoner-with-compute-proj-000000000000"})
        await c({"op": "install", "engine": "python", "packages": ["surely_not_installed_pkg"]})
        await c({"op": "install", "engine": "python", "packages": ["x"], "confirm": "not-a-token"})
        await c({"op": "install", "engine": "python", "packages": ["x"], "scope": "galaxy"})
        await call(client, tape, "record_end", {"text": "ran"})
    side.put("receipts compute", tape.text())
    articles(side, places, closed_record(side, places))
    side.put("cli after compute: compute receipt", side.cli(places, "compute", "receipt", run_id))
    side.put("cli compute probe", side.cli(places, "compute", "probe", "--engine", "python"))
    expr = ("compute", "run", "--engine", "python", "--expr", "2**10")
    side.put("cli compute run --expr", side.cli(places, *expr))


async def search(side: Side, fakes_dir: Path) -> None:
    """search against the suite's loopback Anthropic fake: every outcome and code."""
    sys.path.insert(0, str(fakes_dir))
    provider_fakes = importlib.import_module("provider_fakes")
    fake = provider_fakes.FakeAnthropic()
    places = side.place("search")
    tape = side.tape(places["home"])
    env = {"ANTHROPIC_API_KEY": "sk-ant-equivalence-SECRET", "ANTHROPIC_BASE_URL": fake.root}

    def answering(*urls: str, extract: str | None = None, status: int = 200) -> None:
        fake.script.sources = [provider_fakes.Source(url, "Copper - Wikipedia") for url in urls]
        fake.script.extract_text = extract or provider_fakes.reply_json(ANSWER, [0])
        fake.script.search_status = status

    try:
        async with Client(
            side.server(places, "serve", "--preset", "reckoner-with-search", env=env)
        ) as client:

            async def s(question: str) -> dict[str, Any]:
                return await call(client, tape, "search", {"question": question})

            answering(WIKI)
            await s("What is the density of copper?")
            await call(client, tape, "record_start", {"title": "copper bar"})
            await s("What is the density of copper?")
            await s("")
            await s("x" * 501)
            await call(client, tape, "search", {})
            answering("https://blog.example.com/copper")
            await s("What is the melting point of copper?")
            answering(WIKI, extract=provider_fakes.reply_json("", [], insufficient=True))
            await s("What is the boiling point of copper?")
            answering(WIKI, status=400)
            await s("What is the thermal conductivity of copper?")
            answering(WIKI)
            await s("What is the density of copper at 20 degC?")
            await s("What is the specific heat of copper?")
            await call(
                client, tape, "set", {"name": "rho", "value": {"num": 8.96, "unit": "g/cm3"}}
            )
            await call(client, tape, "record_end", {"text": "looked up"})
    finally:
        fake.close()
    side.put("receipts search", tape.text())
    articles(side, places, closed_record(side, places))
    side.put("search requests the provider saw", dump(fake.requests))
    bare = side.place("search-unconfigured")
    bare_tape = side.tape(bare["home"])
    async with Client(side.server(bare, "serve", "--preset", "reckoner-with-search")) as client:
        await call(client, bare_tape, "record_start", {"title": "no provider"})
        await call(client, bare_tape, "search", {"question": "What is the density of copper?"})
    side.put("receipts search without a provider", bare_tape.text())


def articles(
    side: Side, places: dict[str, Path], record: str, *, languages: tuple[str, ...] = ("en",)
) -> None:
    """The template writer's Markdown and LaTeX (not compiled) of one closed record: what
    the command said and the bytes of every file it wrote."""
    out = places["tmp"] / "articles"
    out.mkdir(exist_ok=True)
    written = set(out.rglob("*"))
    for fmt in ("md", "tex"):
        for language in languages:
            name = f"{places['home'].parent.name}-{fmt}-{language}"
            args = ["article", record, "--format", fmt, "--language", language]
            args += ["--writer", "template", "--out", str(out), "--name", name]
            args += ["--no-compile"] if fmt == "tex" else []
            side.put(f"cli article {name}", side.cli(places, *args))
    for path in sorted(set(out.rglob("*")) - written):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            side.put(f"article file {path.relative_to(out)}", text)


def closed_record(side: Side, places: dict[str, Path]) -> str:
    """The id of the home's newest closed record, as `reckoner records --json` lists it."""
    closed = json.loads(side.run(places, "records", "--json").stdout or "{}").get("closed") or [{}]
    return str(closed[0].get("id", "no-closed-record"))


def articles_and_cli(side: Side) -> None:
    """The demo, its record's articles (file bytes), `show`, `doctor` and every --help."""
    places = side.place("demo")
    side.put("cli demo", side.cli(places, "demo", "--home", str(places["home"])))
    side.put("cli records --json (demo home)", side.cli(places, "records", "--json"))
    record_id = closed_record(side, places)
    articles(side, places, record_id, languages=("en", "zh-CN", "auto"))
    side.put("cli show", side.cli(places, "show", record_id))
    side.put("cli show --json", side.cli(places, "show", "--json", record_id))
    side.put("cli records", side.cli(places, "records"))
    # doctor's table is as wide as its longest cell, the checkout's path: compare its cells
    doctor = side.norm(side.cli(places, "doctor"))
    side.put("cli doctor", re.sub(r" {2,}", "  ", re.sub(r" +$", "", doctor, flags=re.M)))
    side.put("cli doctor --json", side.cli(places, "doctor", "--json"))
    side.put("cli article of an unknown record", side.cli(places, "article", "123"))
    side.put("cli call set", side.cli(places, "call", "set", '{"name": "x", "value": {"num": 1}}'))
    side.put("cli call bad json", side.cli(places, "call", "set", "{nope"))
    for number, (tool, args) in enumerate(CLI_CALLS, 1):
        side.put(f"cli call {number} {tool}", side.cli(places, "call", tool, json.dumps(args)))
    side.put(
        "cli call - (stdin)",
        side.cli_stdin(places, '{"title": "from stdin"}', "call", "record_start", "-"),
    )
    for command in _commands(side, places):
        side.put(f"cli {' '.join(command)} --help", side.cli(places, *command, "--help"))
    side.put("cli --version", side.cli(places, "--version"))


def _commands(side: Side, places: dict[str, Path]) -> list[tuple[str, ...]]:
    """The commands and subcommands, read from the top-level and each group's help."""
    commands: list[tuple[str, ...]] = [()]
    top = side.cli(places, "--help")
    names = re.findall(r"^    (\w[\w-]*)\s", top, re.MULTILINE)
    for name in names:
        commands.append((name,))
        sub = side.cli(places, name, "--help")
        if re.search(r"^positional arguments:\n  (SUBCOMMAND|OP|COMMAND)", sub, re.MULTILINE):
            commands.extend((name, s) for s in re.findall(r"^    (\w[\w-]*)\s", sub, re.MULTILINE))
    return commands


async def run_all(side: Side, fakes_dir: Path, only: set[str]) -> None:
    steps: dict[str, Callable[[], Awaitable[None]]] = {
        "surface": lambda: surface(side, preset_names()),
        "engine": lambda: engine(side),
        "pitfalls": lambda: pitfalls(side),
        "compute": lambda: compute(side),
        "search": lambda: search(side, fakes_dir),
        "http": lambda: http(side),
    }
    for name, step in steps.items():
        if not only or name in only:
            await step()
    if not only or "cli" in only:
        await anyio.to_thread.run_sync(articles_and_cli, side)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--fakes", type=Path, required=True, help="the folder of provider_fakes.py")
    parser.add_argument("--only", default="", help="comma-separated parts (surface,engine,...)")
    options = parser.parse_args()
    side = Side(options.checkout.resolve(), options.work)
    only = {p for p in options.only.split(",") if p}
    anyio.run(run_all, side, options.fakes, only)
    json.dump(side.out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    os.umask(0o022)
    main()
