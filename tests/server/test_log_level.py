"""RECKONER_LOG_LEVEL is read by one reader for the server's stderr and its run log (issue
24): "info" lets uvicorn's and the engine's INFO lines through on both; unset, stderr keeps to
warnings while the run log keeps its INFO default; "warn" quiets both. A real
`reckoner serve --http` subprocess and the official MCP SDK client."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_helpers import http_server, receipt_of


def _serve_once(home: Path, level: str | None) -> tuple[str, str]:
    """The server's stderr and its run log after one call, at ``level`` (None: unset)."""
    env = {k: v for k, v in os.environ.items() if k != "RECKONER_LOG_LEVEL"}
    if level is not None:
        env["RECKONER_LOG_LEVEL"] = level
    stderr: list[bytes] = []
    with http_server(home, env, stderr_sink=stderr, extra=("--shared-record",)) as url:

        async def main() -> dict[str, object]:
            async with Client(url) as client:
                return receipt_of(await client.call_tool("record_start", {"title": "levels"}))

        assert anyio.run(main) == {"ok": True}
    run_log = "".join(path.read_text() for path in sorted((home / "logs").glob("*.log")))
    return b"".join(stderr).decode(), run_log


@pytest.mark.parametrize(
    ("level", "stderr_info", "log_info"),
    [("info", True, True), (None, False, True), ("warn", False, False)],
)
def test_one_reader_sets_the_level_of_stderr_and_of_the_run_log(
    tmp_path: Path, level: str | None, stderr_info: bool, log_info: bool
) -> None:
    stderr, run_log = _serve_once(tmp_path / "home", level)
    assert (" INFO " in stderr) is stderr_info, stderr
    assert (" INFO " in run_log) is log_info, run_log
