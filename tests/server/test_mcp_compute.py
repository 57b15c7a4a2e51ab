"""Issue 12 over MCP: a real client runs compute through `serve --preset reckoner-with-compute`.

With a record open, the run appends one compute row to the record; the pure preset has no
compute tool at all.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_helpers import receipt_of, serve_command

from home_rows import record_rows
from reckoner.contract.presets import SEARCH_AND_COMPUTE_PRESET
from reckoner.contract.registry import tools_of
from reckoner.server.texts import persona
from reckoner.server.tools import INPUT_SCHEMAS, TOOL_NAMES

PRESET = "reckoner-with-compute"


def _params(home: Path, *extra: str) -> StdioServerParameters:
    command = serve_command(home, *extra)
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return StdioServerParameters(
        command=command[0], args=command[1:], env={**os.environ, "PATH": path}
    )


def test_compute_over_stdio_lands_in_the_open_record(tmp_path: Path) -> None:
    """Issue 12 (into the record): a run over MCP is a compute row of the open record."""
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()

    async def main() -> tuple[list[str], dict[str, Any], list[dict[str, Any]]]:
        params = _params(home, "--preset", PRESET, "--project", str(project))
        async with Client(params) as client:
            listed = await client.list_tools()
            names = [t.name for t in listed.tools]
            schema = next(t for t in listed.tools if t.name == "compute").input_schema
            assert schema == INPUT_SCHEMAS["compute"]
            receipts = [receipt_of(await client.call_tool("record_start", {"title": "det"}))]
            code = "import numpy as np\nprint(round(np.linalg.det([[1, 2], [3, 4]]), 9))\n"
            run = receipt_of(
                await client.call_tool("compute", {"op": "run", "engine": "python", "code": code})
            )
            receipts.append(
                receipt_of(await client.call_tool("compute", {"op": "run", "colour": 1}))
            )
            receipts.append(
                receipt_of(
                    await client.call_tool(
                        "set", {"name": "D", "value": {"num": float(run["stdout"])}}
                    )
                )
            )
            receipts.append(receipt_of(await client.call_tool("record_end", {})))
        return names, run, receipts

    names, run, receipts = anyio.run(main)
    assert names == [*TOOL_NAMES, "compute"]
    assert run["ok"] is True and run["stdout"] == "-2.0\n"
    assert receipts[1]["code"] == "MATH_INVALID_ARGUMENT"
    assert (project / run["receipt"]).is_file()
    rows = record_rows(home)
    tools = [(r["tool"], r["ok"]) for r in rows]
    assert tools == [
        ("record_start", True),
        ("compute", True),
        ("compute", False),  # a refused run is on record too, as a refused set would be
        ("set", True),
        ("record_end", True),
    ]
    assert rows[2]["content"]["code"] == "MATH_INVALID_ARGUMENT"
    row = rows[1]["content"]
    assert row["runId"] == run["runId"] and row["receipt"] == run["receipt"]
    assert row["scriptHash"] == run["scriptHash"] and row["exit"] == 0
    assert row["stdoutTail"] == "-2.0" and row["engine"] == "python" and row["version"]


def test_the_pure_preset_has_no_compute(tmp_path: Path) -> None:
    """Issue 12: the `reckoner` preset never serves compute; a call to it is an unknown tool."""

    async def main() -> tuple[list[str], dict[str, Any]]:
        async with Client(_params(tmp_path / "home")) as client:
            listed = await client.list_tools()
            called = receipt_of(await client.call_tool("compute", {"op": "probe"}))
            return [t.name for t in listed.tools], called

    names, called = anyio.run(main)
    assert "compute" not in names
    assert called["ok"] is False and "unknown tool" in called["error"]


@pytest.mark.parametrize("preset", [PRESET, SEARCH_AND_COMPUTE_PRESET])
def test_compute_mode_off_is_not_listed_nor_in_the_instructions(
    tmp_path: Path, preset: str
) -> None:
    """docs/guide/compute.md (off is a true no-op): with mode off the preset does not even list
    compute, and
    its instructions carry no compute rules for a tool the model cannot call."""

    async def main() -> tuple[list[str], str]:
        params = _params(tmp_path / "home", "--preset", preset, "--compute-mode", "off")
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            return names, client.instructions or ""

    names, instructions = anyio.run(main)
    assert names == [tool.name for tool in tools_of(preset) if tool.name != "compute"]
    assert "`compute`" not in instructions
    assert instructions == persona(preset, frozenset({"compute"}))


def test_the_compute_persona_is_the_pure_one_plus_the_compute_rules() -> None:
    """Issue 12: the model transcribes a run's result with set and cites the receipt."""
    from reckoner.server.texts import persona

    pure, compute = persona("reckoner"), persona(PRESET)
    assert compute.startswith(pure.rstrip("\n"))
    assert "`compute`" in compute and "`compute`" not in pure
    assert "transcribe each result you need into the engine with `set`" in compute
    assert "Cite the receipt path" in compute


def test_a_stopped_server_takes_its_running_computation_with_it(tmp_path: Path) -> None:
    """Guide (faults): SIGTERM during a run kills the engine's process group, not orphaned."""
    import signal
    import subprocess
    import time

    from mcp_helpers import RawStdioServer

    project = tmp_path / "proj"
    project.mkdir()
    pid_file = tmp_path / "child.pid"
    server = RawStdioServer.__new__(RawStdioServer)
    params = _params(tmp_path / "home", "--preset", PRESET, "--project", str(project))
    server.process = subprocess.Popen(
        [params.command, *params.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=params.env,
    )
    server.stdout_lines, server._next_id = [], 1
    server.initialize()
    code = (
        "import subprocess, time\n"
        "child = subprocess.Popen(['sleep', '120'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(120)\n"
    )
    server.request("tools/call", {"name": "compute", "arguments": {
        "op": "run", "engine": "python", "code": code}})  # fmt: skip
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the run never started"
        time.sleep(0.05)
    child = int(pid_file.read_text())
    server.process.send_signal(signal.SIGTERM)
    server.process.communicate(timeout=30)

    def gone() -> bool:
        try:
            stat = Path(f"/proc/{child}/stat").read_text()
        except FileNotFoundError:
            return True
        return stat.split(")")[-1].split()[0] in ("Z", "X")

    while not gone() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone()
    [run_dir] = (project / "Computation").iterdir()
    assert (run_dir / "script.py").read_text() == code
