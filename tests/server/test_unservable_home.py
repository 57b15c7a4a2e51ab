"""Issue 9, "when a server truly cannot serve": on a home the engine cannot open, `reckoner
serve` still completes the MCP handshake, serves its prompts, resources and instructions,
and answers every tool call with a receipt whose sentence says what is wrong and what to do,
so the client shows it; the next call tries the home again. Real clients, real servers."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp_helpers import RawStdioServer, http_server, receipt_of, stdio_params

from home_rows import record_rows
from reckoner.contract.codes import ErrorCode
from reckoner.server.texts import SKILLS, persona, skill_text
from reckoner.server.tools import TOOL_NAMES

ONE_CALL_EACH: dict[str, dict[str, Any]] = {
    "record_start": {"title": "on a broken home"},
    "set": {"name": "x", "value": {"num": 1}},
    "get": {"name": "x"},
    "eval": {"formula": "1+1", "target": "y"},
    "record_message": {"text": "hello"},
    "record_end": {},
}


def _assert_explains(receipt: dict[str, Any], *cause: str) -> None:
    assert receipt["ok"] is False
    assert receipt["code"] == ErrorCode.UNKNOWN_ERROR.value
    sentence = receipt["error"]
    assert "cannot use its home" in sentence and "this call did nothing" in sentence
    for part in cause:
        assert part in sentence, (part, sentence)
    assert "Traceback" not in sentence and "Error:" not in sentence


async def _everything_but_the_engine(client: Client) -> list[dict[str, Any]]:
    """What still works, checked here, and one receipt per tool."""
    assert client.instructions == persona("reckoner")
    assert {t.name for t in (await client.list_tools()).tools} == set(TOOL_NAMES)
    assert {p.name for p in (await client.list_prompts()).prompts} == {s.name for s in SKILLS}
    read = await client.read_resource(SKILLS[0].uri)
    assert getattr(read.contents[0], "text", None) == skill_text(SKILLS[0])
    return [receipt_of(await client.call_tool(tool, args)) for tool, args in ONE_CALL_EACH.items()]


def _serve_over_stdio(home: Path, errlog: Path) -> list[dict[str, Any]]:
    async def main() -> list[dict[str, Any]]:
        with errlog.open("w") as sink:
            async with Client(stdio_client(stdio_params(home), errlog=sink)) as client:
                return await _everything_but_the_engine(client)

    return anyio.run(main)


def _assert_one_stderr_line(errlog: Path, *cause: str) -> None:
    lines = errlog.read_text().strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("reckoner: serving without an engine")
    for part in cause:
        assert part in lines[0]


def test_a_home_inside_a_regular_file_is_explained_in_every_receipt(
    tmp_path: Path,
) -> None:
    """Root ignores permission bits, so the unwritable home is one whose parent is a file.
    Spec: docs/guide/mcp-clients.md (issue 9)."""
    (tmp_path / "a-file").write_text("not a directory")
    home = tmp_path / "a-file" / "home"
    errlog = tmp_path / "stderr.txt"
    receipts = _serve_over_stdio(home, errlog)
    for receipt in receipts:
        _assert_explains(receipt, str(home), "cannot be created", "Not a directory", "--home")
    _assert_one_stderr_line(errlog, "Not a directory")


def test_a_home_that_is_a_file_is_explained_in_every_receipt(tmp_path: Path) -> None:
    """Spec: docs/guide/mcp-clients.md (issue 9)."""
    home = tmp_path / "home"
    home.write_text("a file where the home should be")
    errlog = tmp_path / "stderr.txt"
    for receipt in _serve_over_stdio(home, errlog):
        _assert_explains(receipt, "is a file, not a directory", "move that file away")
    assert home.read_text() == "a file where the home should be"
    _assert_one_stderr_line(errlog, "is a file")


@pytest.fixture
def read_only_mount(tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs mounted read-only (needs root and mount; skipped where it cannot be)."""
    mount_point = tmp_path / "ro"
    mount_point.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command on this machine")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=256k", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"a read-only tmpfs cannot be mounted here: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def test_a_read_only_home_is_explained_and_the_next_call_after_the_fix_works(
    read_only_mount: Path, tmp_path: Path
) -> None:
    """On a read-only filesystem every call says so; once the filesystem is writable again,
    the next call opens the home, with no restart of the client or the server.
    Spec: docs/guide/mcp-clients.md (issue 9)."""
    errlog = tmp_path / "stderr.txt"

    async def main() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
        with errlog.open("w") as sink:
            async with Client(stdio_client(stdio_params(read_only_mount), errlog=sink)) as client:
                refused = await _everything_but_the_engine(client)
                subprocess.run(["mount", "-o", "remount,rw", str(read_only_mount)], check=True)
                started = receipt_of(await client.call_tool("record_start", {"title": "fixed"}))
                stored = receipt_of(
                    await client.call_tool("set", {"name": "x", "value": {"num": 2}})
                )
                return refused, started, stored

    refused, started, stored = anyio.run(main)
    for receipt in refused:
        _assert_explains(receipt, "Read-only file system", "make the home writable")
    assert started == {"ok": True}
    assert stored["ok"] is True
    assert (read_only_mount / "open-record.jsonl").is_file()
    _assert_one_stderr_line(errlog, "Read-only file system")


def test_a_second_server_on_a_held_home_explains_in_its_receipts(tmp_path: Path) -> None:
    """While another server holds the home, a second one still answers its client, naming the
    holder's pid; when the holder leaves, the second one's next call takes the home.
    Spec: docs/guide/mcp-clients.md (issue 9)."""
    home = tmp_path / "home"
    first = RawStdioServer(home)
    first.initialize()
    first.call_tool("record_start", {"title": "held by the first"})
    errlog = tmp_path / "stderr.txt"

    # The first server's place, asked for by name where a home has several (issue 9's
    # lanes), and ignored where it has one.
    second = stdio_params(home)
    second.env = {"RECKONER_LANE": "1"}

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        with errlog.open("w") as sink:
            async with Client(stdio_client(second, errlog=sink)) as client:
                refused = receipt_of(await client.call_tool("get", {"name": "x"}))
                first.close()
                resumed = receipt_of(
                    await client.call_tool("set", {"name": "x", "value": {"num": 1}})
                )
                return refused, resumed

    try:
        refused, resumed = anyio.run(main)
    finally:
        if first.process.poll() is None:
            first.close()
    _assert_explains(refused, str(first.process.pid))
    # The second server resumed the first one's open record (docs/guide/records.md) and wrote to it.
    assert resumed["ok"] is True and resumed["rev"] == 1
    rows = record_rows(home)
    assert rows[0]["content"]["title"] == "held by the first"
    assert [r["tool"] for r in rows] == ["record_start", "set"]
    _assert_one_stderr_line(errlog, str(first.process.pid))


def test_an_http_server_on_an_unusable_home_answers_with_the_receipt(
    tmp_path: Path,
) -> None:
    """Spec: docs/guide/mcp-clients.md (issue 9)."""
    home = tmp_path / "home"
    home.write_text("a file")
    stderr: list[bytes] = []
    with http_server(home, stderr_sink=stderr) as url:

        async def main() -> list[dict[str, Any]]:
            async with Client(url) as client:
                return await _everything_but_the_engine(client)

        receipts = anyio.run(main)
    for receipt in receipts:
        _assert_explains(receipt, "is a file, not a directory")
    assert "Traceback" not in b"".join(stderr).decode()
