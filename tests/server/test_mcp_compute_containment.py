"""Issue 21 over MCP (cases 3 and 4): a real `reckoner serve` subprocess and a real client.

A credential in the server's environment never reaches a compute script; a variable the
settings name does. SIGKILL of the server during a run leaves no process of the run behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_helpers import HANDSHAKE_VERSION, receipt_of, serve_command

from process_census import (
    escaping_script,
    new_marker,
    wait_until_none_with,
    wait_until_some_with,
)
from reckoner.compute.mount import STATE_KEY
from reckoner.storage.home import HomeLayout
from reckoner.storage.state_file import StateFile

PRESET = "reckoner-with-compute"
REAL_PATH = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
SECRETS = {
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "PGPASSWORD": "pg-secret",
    "DATABASE_PASSWORD": "db-secret",
    "GOOGLE_APPLICATION_CREDENTIALS": "/secret/google.json",
    "GITHUB_PAT": "ghp-secret",
    "AZURE_CLIENT_SECRET": "azure-secret",
    "NPM_AUTH": "npm-secret",
}


def _home_with(tmp_path: Path, settings: dict[str, Any]) -> Path:
    home = tmp_path / "home"
    layout = HomeLayout(home)
    layout.prepare()
    StateFile(layout).write_subtree(STATE_KEY, settings)
    return home


def test_no_credential_of_the_servers_environment_is_visible_to_a_compute_script(
    tmp_path: Path,
) -> None:
    """Issue 21 case 4: the run's environment is an allow-list plus passEnvironment."""
    project = tmp_path / "proj"
    project.mkdir()
    home = _home_with(tmp_path, {"passEnvironment": ["MY_DATA_DIR"]})
    command = serve_command(home, "--preset", PRESET, "--project", str(project))
    env = {**os.environ, **SECRETS, "MY_DATA_DIR": "/data", "PATH": REAL_PATH}
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    code = "import json, os\nprint(json.dumps(dict(os.environ)))\n"

    async def main() -> dict[str, Any]:
        async with Client(params) as client:
            arguments = {"op": "run", "engine": "python", "code": code}
            return receipt_of(await client.call_tool("compute", arguments))

    run = anyio.run(main)
    assert run["ok"] is True, run
    seen = json.loads(run["stdout"])
    assert set(seen) & set(SECRETS) == set()
    assert not any(value in run["stdout"] for value in SECRETS.values())
    assert seen["MY_DATA_DIR"] == "/data"
    archived = "".join(p.read_text() for p in project.rglob("*") if p.is_file())
    assert not any(value in archived for value in SECRETS.values())


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"


def test_sigkill_of_the_server_during_a_run_leaves_no_process_of_the_run(tmp_path: Path) -> None:
    """Issue 21 case 3: the engine, its setsid child and its daemon die with the server."""
    project = tmp_path / "proj"
    project.mkdir()
    home = _home_with(tmp_path, {"timeoutMs": 300_000})
    marker = new_marker()
    script = escaping_script(marker, f"time.sleep({marker})")
    server = subprocess.Popen(
        serve_command(home, "--preset", PRESET, "--project", str(project)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PATH": REAL_PATH},
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        hello = {"protocolVersion": HANDSHAKE_VERSION, "capabilities": {},
                 "clientInfo": {"name": "kill-test", "version": "0"}}  # fmt: skip
        server.stdin.write(_line({"id": 1, "method": "initialize", "params": hello}))
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1
        arguments = {"op": "run", "engine": "python", "code": script}
        server.stdin.write(
            _line({"method": "notifications/initialized"})
            + _line({"id": 2, "method": "tools/call",
                     "params": {"name": "compute", "arguments": arguments}})
        )  # fmt: skip
        server.stdin.flush()
        # The two sleeps hold the marker; the warden and the engine name the archived script.
        assert len(wait_until_some_with(marker, 2)) == 2
        assert len(wait_until_some_with(str(project / "Computation"), 2)) == 2
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
        assert wait_until_none_with(marker, 5.0) == []
        assert wait_until_none_with(str(project / "Computation"), 1.0) == []
    finally:
        if server.poll() is None:
            server.kill()
        server.communicate(timeout=10)
