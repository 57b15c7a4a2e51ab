"""The `reckoner` command line, run as a real subprocess on temp homes (issue 4)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reckoner import __version__

COMMANDS = ("call", "records", "show", "serve", "demo", "article", "panel", "doctor")


def reckoner(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reckoner", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )


def assert_one_sentence(done: subprocess.CompletedProcess[str]) -> None:
    """A user error: exit 2, one line on stderr, nothing on stdout, no traceback."""
    assert done.returncode == 2, done
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reckoner: "), done.stderr


def call(home: Path, tool: str, args: Any) -> tuple[int, dict[str, Any]]:
    done = reckoner("call", tool, json.dumps(args), "--home", str(home))
    assert done.stderr == ""
    receipt = json.loads(done.stdout)
    assert isinstance(receipt, dict)
    return done.returncode, receipt


def test_help_lists_every_command_and_version_prints() -> None:
    done = reckoner("--help")
    assert done.returncode == 0
    for command in COMMANDS:
        assert command in done.stdout
    version = reckoner("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"reckoner {__version__}"
    bare = reckoner()
    assert bare.returncode == 2 and "COMMAND" in bare.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str) -> None:
    done = reckoner(command, "--help")
    assert done.returncode == 0
    assert "usage: reckoner " + command in done.stdout


def test_call_prints_the_receipt_and_exits_1_when_refused(tmp_path: Path) -> None:
    """One call per process on the same home: the record and the slots persist between them
    (docs/guide/records.md replay), and a refusal is exit code 1.
    Spec: docs/reference/tools.md (receipts)."""
    home = tmp_path / "home"
    assert call(home, "record_start", {"title": "from the shell"}) == (0, {"ok": True})
    code, receipt = call(home, "set", {"name": "R", "value": {"num": 4700, "dim": "ohm"}})
    assert code == 0 and receipt["rev"] == 1
    assert call(home, "eval", {"formula": "@R * 2", "target": "R2"}) == (
        0,
        {"ok": True, "target": "R2", "rev": 1},
    )
    code, receipt = call(home, "get", {"name": "R2"})
    assert (code, receipt["value"]) == (0, {"num": 9400, "dim": "ohm"})
    code, receipt = call(home, "eval", {"formula": "@R + 1", "target": "x"})
    assert code == 1 and receipt["code"] == "ENGINE_INCOMPATIBLE_DIMENSION"
    code, receipt = call(home, "solve", {})
    assert code == 1 and receipt["code"] == "ENGINE_INVALID_ARGS"
    code, receipt = call(home, "set", ["R", 1])
    assert code == 1 and receipt["code"] == "ENGINE_INVALID_ARGS"
    stdin = reckoner("call", "record_end", "-", "--home", str(home), stdin='{"text": "done"}')
    assert stdin.returncode == 0 and json.loads(stdin.stdout) == {"ok": True}


def test_call_takes_the_tools_it_lists_and_points_compute_to_its_command(tmp_path: Path) -> None:
    """Issue 14 (one contract): `call --help` names the tools `call` takes (the six and
    search), and compute, which runs beside the engine, is pointed to `reckoner compute run`;
    a compute call through `call` is the engine's unknown-tool refusal, not a run."""
    shown = reckoner("call", "--help")
    assert shown.returncode == 0
    usage = shown.stdout.split("positional arguments:")[0]
    assert "search" in usage and "compute" not in usage
    assert "reckoner compute run" in shown.stdout
    home = tmp_path / "home"
    assert call(home, "record_start", {"title": "compute is elsewhere"}) == (0, {"ok": True})
    code, receipt = call(home, "compute", {"op": "probe"})
    assert code == 1 and receipt["code"] == "ENGINE_INVALID_ARGS"
    assert receipt["error"].startswith("unknown tool 'compute'")


def test_call_with_bad_json_is_one_sentence(tmp_path: Path) -> None:
    assert_one_sentence(reckoner("call", "get", "{name: R}", "--home", str(tmp_path / "h")))


def test_a_call_beside_a_server_takes_its_own_lane_a_held_lane_is_one_sentence(
    tmp_path: Path,
) -> None:
    """Spec: docs/guide/mcp-clients.md (issue 9)."""
    home = tmp_path / "home"
    holder = subprocess.Popen(
        [sys.executable, "-m", "reckoner", "serve", "--home", str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        # The server holds the home once it answers the handshake.
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.write(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "t", "version": "0"},
                    },
                }
            ).encode()
            + b"\n"
        )
        holder.stdin.flush()
        assert json.loads(holder.stdout.readline())["id"] == 1
        done = reckoner("call", "record_start", '{"title": "x"}', "--home", str(home))
        assert json.loads(done.stdout) == {"ok": True}, done.stderr
        assert (home / "open" / "lane-2.jsonl").exists()
        listed = reckoner("records", "--home", str(home))
        assert "open (lane 2)" in listed.stdout
        held = reckoner(
            "call", "record_start", '{"title": "x"}', "--home", str(home), "--lane", "1"
        )
        assert_one_sentence(held)
        assert str(holder.pid) in held.stderr and "lane 1" in held.stderr
        bad = reckoner(
            "call", "get", '{"name": "x"}', "--home", str(home), env={"RECKONER_LANE": "99"}
        )
        assert_one_sentence(bad)
        assert "from 1 to 64" in bad.stderr
    finally:
        holder.communicate(timeout=60)


def test_an_unusable_home_is_one_sentence(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    assert_one_sentence(reckoner("call", "get", '{"name": "x"}', "--home", str(not_a_dir)))
    # Issue 9: the server serves anyway (its receipts explain, see tests/server), and says so
    # in one line; with no client on stdin it ends at once.
    served = reckoner("serve", "--home", str(not_a_dir), stdin="")
    assert served.returncode == 0 and served.stdout == ""
    lines = served.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reckoner: serving without an engine"), lines


@pytest.fixture(scope="module")
def demo_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One `reckoner demo` for the module: the home it filled and what it printed."""
    home = tmp_path_factory.mktemp("demo") / "demo-home"
    return home, reckoner("demo", "--home", str(home), timeout=300)


@pytest.fixture
def demo_home(demo_run: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path) -> Path:
    """A copy of the demo's home, the test's own to read and write: the demo's closed record
    and its home, without a second run of the demo."""
    home, done = demo_run
    assert done.returncode == 0, done.stderr
    return Path(shutil.copytree(home, tmp_path / "demo-home", symlinks=True))


def test_demo_drives_the_worked_example_through_mcp(
    demo_run: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """`reckoner demo` runs the divider and the RLC impedance through `reckoner serve` over
    stdio, shows each call and receipt, and prints where the closed record is filed."""
    home, done = demo_run
    assert done.returncode == 0, done.stderr
    assert "Connected to reckoner" in done.stdout
    assert "MCP tool calls and their receipts" in done.stdout
    records = list((home / "records").glob("*.jsonl"))
    assert len(records) == 1
    assert str(records[0]) in done.stdout.replace("\n", "")
    rows = [json.loads(line) for line in records[0].read_text().splitlines()[1:]]
    tools = [row["tool"] for row in rows]
    assert tools[0] == "record_start" and tools[-1] == "record_end"
    assert tools.count("eval") == 7
    evals = {
        row["content"]["target"]: row["content"]
        for row in rows
        if row["tool"] == "eval" and row["ok"]
    }
    assert evals["Vout"]["result"]["dim"] == [2, 1, -3, -1, 0, 0, 0]
    impedance = evals["Z"]["result"]
    assert impedance["re"] == 100 and impedance["im"] < 0
    assert impedance["dim"] == [2, 1, -3, -2, 0, 0, 0]
    # Part 3 is a sweep (issue 23: its article draws a figure of |Z| against f).
    assert len(evals["Zs"]["result"]["array"]) == 7
    # Persona rule 2: every given is transcribed with its unit as given, never converted.
    sets = [row["content"] for row in rows if row["tool"] == "set"]
    assert sets and all("unit" in content for content in sets)
    r1 = next(content for content in sets if content["name"] == "R1")
    assert r1["unit"] == "kOhm" and r1["value"]["num"] == 4700  # stored in SI by the engine
    # Rule 3: results are read in the call that computes them, so the closing text quotes
    # the readings (the load current in mA, the impedance in both forms) and no get is made.
    assert "get" not in tools
    closing = rows[-1]["content"]["text"]
    assert "7.127 volt" in closing and "0.324 mA" in closing
    assert "(100 - 96.32j) ohm" in closing and "138.8 ohm at -0.7667 rad" in closing
    # Issue 27: the worked example's prose quotes only numbers its receipts showed.
    prose = [row for row in rows if row["tool"] in ("record_message", "record_end")]
    assert prose and not any("warnings" in row["content"] for row in prose)


def test_demo_ends_by_writing_the_demo_records_article(
    demo_run: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """Issue 10: the demo's last step writes the article of its closed record, with its
    audit sidecar, and prints where.
    Spec: docs/guide/articles.md (article generation)."""
    home, done = demo_run
    assert done.returncode == 0, done.stderr
    articles = list((home / "articles").glob("*.md"))
    assert len(articles) == 1
    assert str(articles[0]) in done.stdout.replace("\n", "")
    text = articles[0].read_text(encoding="utf-8")
    assert "Worked example" in text and "\\frac" in text
    sidecar = json.loads(articles[0].with_suffix(".audit.json").read_text())
    assert sidecar["unmatched"] == []


def test_demo_on_a_home_with_an_open_record_stops_with_the_reason(tmp_path: Path) -> None:
    home = tmp_path / "busy"
    assert call(home, "record_start", {"title": "left open"})[0] == 0
    done = reckoner("demo", "--home", str(home), timeout=300)
    assert done.returncode == 1
    assert "ENGINE_OPEN_RECORD_FOUND" in done.stdout or "open" in done.stdout
    assert "Traceback" not in done.stderr


def test_records_lists_closed_and_open_records(demo_home: Path) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    home = demo_home
    assert call(home, "record_start", {"title": "still open"})[0] == 0
    listing = reckoner("records", "--json", "--home", str(home))
    assert listing.returncode == 0
    data = json.loads(listing.stdout)
    assert data["open"]["title"] == "still open"
    assert len(data["closed"]) == 1 and data["closed"][0]["title"].startswith("Worked example")
    table = reckoner("records", "--home", str(home))
    assert table.returncode == 0
    assert "still open" in table.stdout and "Worked example" in table.stdout
    assert data["open"]["id"] in table.stdout and data["closed"][0]["id"] in table.stdout


def test_records_without_a_home_is_one_sentence(tmp_path: Path) -> None:
    assert_one_sentence(reckoner("records", "--home", str(tmp_path / "nowhere")))


def test_show_renders_steps_inputs_results_messages_and_dims_failures(
    demo_home: Path,
) -> None:
    """The timeline: each eval with its formula, the slots it read and its result; messages;
    refused calls dimmed.
    Spec: docs/guide/records.md (trace rows)."""
    home = demo_home
    record_id = next((home / "records").glob("*.jsonl")).stem
    done = reckoner("show", record_id, "--home", str(home))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Worked example" in out
    assert "@R2 * @RL / (@R2 + @RL)" in out
    assert "Rp (rev 1) = 6875 Ω" in out
    assert "@RL = 22000 Ω" in out
    assert "The bottom leg is R2 in parallel with RL." in out
    # A read on the eval is shown with the step, in the unit it was read in.
    assert "→ Vout (rev 1) = 7.1274298056155505 V" in out
    assert "read → 7.127 V" in out and "read → 0.324 mA" in out
    assert "ENGINE_INCOMPATIBLE_DIMENSION" in out
    colored = reckoner("show", record_id, "--home", str(home), env={"FORCE_COLOR": "1"})
    failure_line = next(
        line for line in colored.stdout.splitlines() if "ENGINE_INCOMPATIBLE_DIMENSION" in line
    )
    assert "\x1b[2m" in failure_line  # dim
    as_json = json.loads(reckoner("show", record_id, "--json", "--home", str(home)).stdout)
    assert as_json["id"] == record_id and as_json["open"] is False
    assert len(as_json["rows"]) == 27


def test_show_an_unknown_record_is_one_sentence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert call(home, "record_start", {"title": "x"})[0] == 0
    assert_one_sentence(reckoner("show", "123", "--home", str(home)))
    assert_one_sentence(reckoner("show", "../../etc/passwd", "--home", str(home)))


def test_panel_command_serves_the_home_on_loopback(demo_home: Path) -> None:
    """`reckoner panel --port 0` starts the panel on the home and answers its list endpoint.
    Spec: docs/guide/panel.md (the panel)."""
    import re

    import httpx

    home = demo_home
    process = subprocess.Popen(
        [sys.executable, "-m", "reckoner", "panel", "--port", "0", "--home", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"(http://\S+?)/\?token=(\S+)", line)
        assert match, line
        index = match.group(1) + "/api/reckoner/records-index"
        assert httpx.get(index, timeout=30).status_code == 401  # the printed token is needed
        listing = httpx.get(
            index, headers={"Authorization": f"Bearer {match.group(2)}"}, timeout=30
        )
        assert listing.status_code == 200
        assert listing.json()["closed"][0]["title"].startswith("Worked example")
    finally:
        process.terminate()
        process.communicate(timeout=30)


@pytest.mark.parametrize("command", ["serve", "panel"])
def test_a_port_out_of_range_is_a_usage_error(command: str, tmp_path: Path) -> None:
    done = reckoner(command, "--port", "70000", "--home", str(tmp_path / "h"))
    assert done.returncode == 2
    assert "is not a port" in done.stderr and "Traceback" not in done.stderr


def test_show_names_the_unit_a_value_was_read_in(tmp_path: Path) -> None:
    """Issue 14 (unit on get, read on set): a reading's numbers are in the unit it was read
    in, so the timeline shows that unit (30.64 mW, never 30.64 W), and a set's reading
    beside what it stored.
    Spec: docs/guide/formulas.md (issue 14)."""
    home = tmp_path / "home"
    assert call(home, "record_start", {"title": "readings"})[0] == 0
    read_set = {"name": "P", "value": {"num": 30.64, "unit": "mW"}, "read": {"unit": "uW"}}
    assert call(home, "set", read_set)[0] == 0
    assert call(home, "get", {"name": "P", "unit": "mW", "digits": 4})[0] == 0
    assert call(home, "record_end", {})[0] == 0
    record_id = next((home / "records").glob("*.jsonl")).stem
    out = reckoner("show", record_id, "--home", str(home)).stdout
    assert "P = 0.03064 W (given in mW)" in out and "read → 30640 µW" in out
    assert "P → 30.64 mW" in out and "30.64 W" not in out


def test_show_spells_units_from_the_spelling_table_the_articles_use(tmp_path: Path) -> None:
    """Issue 23: `reckoner show` spells a vector and a written unit as the articles do."""
    from reckoner.units.spelling import spell_vector, spell_written

    home = tmp_path / "home"
    assert call(home, "record_start", {"title": "spellings"})[0] == 0
    k = {"name": "k", "value": {"num": 0.8, "dim": [1, 1, -3, 0, -1, 0, 0]}}
    assert call(home, "set", k)[0] == 0
    assert call(home, "set", {"name": "R", "value": {"num": 4.07, "unit": "kOhm"}})[0] == 0
    assert call(home, "record_end", {})[0] == 0
    record_id = next((home / "records").glob("*.jsonl")).stem
    out = reckoner("show", record_id, "--home", str(home)).stdout
    assert f"k = 0.8 {spell_vector((1, 1, -3, 0, -1, 0, 0))}" in out
    assert "k = 0.8 W/(m·K)" in out
    assert (
        f"R = 4070 {spell_vector((2, 1, -3, -2, 0, 0, 0))} (given in {spell_written('kOhm')})"
        in out
    )
    assert "(given in kΩ)" in out and "ohm" not in out
