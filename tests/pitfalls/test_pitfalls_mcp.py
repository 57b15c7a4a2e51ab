"""The pitfalls memory over MCP (issue 13, "Tools", "Automatic reminders" 1): a real SDK
client talking to real `reckoner serve --pitfalls` and `reckoner pitfalls serve` processes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from reckoner.contract.codes import ErrorCode
from reckoner.contract.engine import TOOL_NAMES
from reckoner.contract.pitfalls import PITFALL_TOOLS
from reckoner.pitfalls.texts import PREVENTION_RULE, STANDALONE_RULE
from reckoner.wire import dumps_text

PITFALL_NAMES = [tool.name for tool in PITFALL_TOOLS]


def _params(home: Path, project: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "reckoner", *args, "--home", str(home)],
        cwd=str(project),
    )


def _serve(home: Path, project: Path, *extra: str) -> StdioServerParameters:
    return _params(home, project, "serve", *extra)


def _texts(result: Any) -> list[str]:
    return [item.text for item in result.content]


def test_serve_with_pitfalls_lists_the_four_tools_and_the_prevention_rule(
    tmp_path: Path,
) -> None:
    async def main() -> tuple[list[str], str | None, list[str]]:
        async with Client(_serve(tmp_path / "h", tmp_path, "--pitfalls")) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            with_rule = client.instructions
        async with Client(_serve(tmp_path / "h2", tmp_path)) as client:
            without = [t.name for t in (await client.list_tools()).tools]
        return names, with_rule, without

    names, instructions, without = anyio.run(main)
    assert names == [*TOOL_NAMES, *PITFALL_NAMES]
    assert instructions is not None and instructions.endswith(PREVENTION_RULE)
    assert "On a pitfall, record it; before starting, search" in instructions
    assert without == list(TOOL_NAMES)


def test_a_recorded_lesson_comes_back_when_an_engine_call_fails_twice(tmp_path: Path) -> None:
    """The failing result carries the reminder after the unchanged receipt."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()

    async def main() -> list[Any]:
        async with Client(_serve(home, project, "--pitfalls")) as client:
            recorded = await client.call_tool(
                "pitfall_record",
                {
                    "title": "eval refuses implicit multiplication like 2x",
                    "area": "eval formula",
                    "solution": "write the operator: 2*@x, never 2x",
                    "evidence": "ENGINE_INVALID_IDENTIFIER: a letter directly follows a number",
                    "tags": ["eval", "ENGINE_INVALID_IDENTIFIER"],
                },
            )
            await client.call_tool("record_start", {"title": "implicit products"})
            first = await client.call_tool("eval", {"formula": "2x", "target": "y"})
            second = await client.call_tool("eval", {"formula": "2x", "target": "y"})
            third = await client.call_tool("eval", {"formula": "2x", "target": "y"})
            fourth = await client.call_tool("eval", {"formula": "2x", "target": "y"})
            return [recorded, first, second, third, fourth]

    recorded, first, second, third, fourth = anyio.run(main)
    lesson = recorded.structured_content
    assert recorded.is_error is False and lesson["ok"] is True
    lesson_id = lesson["id"]
    assert Path(lesson["card"]).parent.parent == (project / ".reckoner" / "pitfalls").resolve()
    assert (home / "pitfalls" / "cards" / f"{lesson_id}.md").is_file()

    for result in (first, second, third, fourth):
        assert result.is_error is True
        receipt = result.structured_content
        assert receipt["code"] == ErrorCode.INVALID_IDENTIFIER.value
        assert result.content[0].text == dumps_text(receipt)  # the receipt is unchanged
    assert len(first.content) == 1
    assert len(second.content) == 2
    reminder = second.content[1].text
    assert "eval failed twice in a row" in reminder
    assert "eval refuses implicit multiplication like 2x" in reminder
    assert "write the operator: 2*@x, never 2x" in reminder
    assert lesson_id in reminder and "card" in reminder
    # The streak was reset by the reminder and the 10-minute cooldown holds the rest.
    assert len(third.content) == 1 and len(fourth.content) == 1


def test_with_no_matching_lesson_the_reminder_says_nothing(tmp_path: Path) -> None:
    async def main() -> list[Any]:
        async with Client(_serve(tmp_path / "home", tmp_path, "--pitfalls")) as client:
            await client.call_tool(
                "pitfall_record", {"title": "docker build cache", "solution": "prune"}
            )
            return [await client.call_tool("get", {"name": "x"}) for _ in range(2)]

    results = anyio.run(main)
    assert [len(r.content) for r in results] == [1, 1]
    assert all(r.is_error for r in results)


def test_standalone_pitfalls_server_serves_only_the_memory(tmp_path: Path) -> None:
    async def main() -> tuple[list[str], str | None, list[Any]]:
        async with Client(_params(tmp_path / "home", tmp_path, "pitfalls", "serve")) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            results = [
                await client.call_tool("pitfall_record", {"title": "  "}),
                await client.call_tool("pitfall_record", {"title": "npm EACCES", "x": 1}),
                await client.call_tool(
                    "pitfall_record",
                    {
                        "title": "npm EACCES on global install",
                        "solution": "use a prefix",
                        "status": "fixed",
                        "tags": ["npm"],
                    },
                ),
                await client.call_tool("pitfall_search", {"query": "npm install EACCES"}),
                await client.call_tool(
                    "pitfall_update", {"id": "p-20200101-000000-0000", "note": "x"}
                ),
                await client.call_tool("pitfall_list", {"limit": 50}),
                await client.call_tool("eval", {"formula": "1", "target": "x"}),
            ]
            return names, client.instructions, results

    names, instructions, results = anyio.run(main)
    assert names == PITFALL_NAMES
    # Issue 26: this server sees no other tool fail, so it promises no reminder.
    assert instructions == STANDALONE_RULE
    assert instructions is not None and "reminder" not in instructions
    empty, extra, recorded, found, unknown, too_many, not_here = results
    for refused, code, words in [
        (empty, "PITFALL_INVALID_ARGS", "title is empty"),
        (extra, "PITFALL_INVALID_ARGS", "has no argument 'x'"),
        (unknown, "PITFALL_NOT_FOUND", "no lesson has the id"),
        (too_many, "PITFALL_INVALID_ARGS", "from 1 to 20"),
        (not_here, "PITFALL_INVALID_ARGS", "unknown tool 'eval'"),
    ]:
        assert refused.is_error is True
        assert refused.structured_content["code"] == code
        assert words in refused.structured_content["error"]
    assert recorded.is_error is False
    assert "stored as solved" in _texts(recorded)[0]  # a normalisation is said
    assert found.structured_content["count"] == 1
    text = _texts(found)[0]
    # Readable first: id, title, status, then the solution.
    assert text.splitlines()[0].endswith("npm EACCES on global install (solved)")
    assert text.splitlines()[1] == "  solution: use a prefix"
    assert json.loads(_texts(found)[1]) == found.structured_content


def test_serve_pitfalls_with_an_unwritable_project_still_records_globally(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".reckoner").write_text("not a directory")

    async def main() -> Any:
        async with Client(_serve(tmp_path / "home", project, "--pitfalls")) as client:
            return await client.call_tool("pitfall_record", {"title": "kept anyway"})

    result = anyio.run(main)
    assert result.is_error is False
    assert "global library only" in result.structured_content["warnings"][0]
    assert "global library only" in _texts(result)[0]


def test_over_http_the_reminder_rides_on_the_failing_result_too(tmp_path: Path) -> None:
    """Streamable HTTP: the SDK speaks the stateless 2026-07-28 protocol, with no session to
    tell clients apart, so the server's detector state is one for all its clients."""
    import re
    import subprocess
    import threading
    import time

    home = tmp_path / "home"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "reckoner",
            "serve",
            "--pitfalls",
            "--http",
            "--port",
            "0",
            "--home",
            str(home),
        ],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = process.stderr.readline().decode()
            if not line and process.poll() is not None:
                raise AssertionError(f"server exited with {process.returncode}")
            found = re.search(r"(http://\S+/mcp)", line)
            url = found.group(1) if found else None
        assert url is not None
        stderr = process.stderr
        threading.Thread(target=lambda: stderr.read(), daemon=True).start()

        async def main() -> list[int]:
            async with Client(url) as first:
                await first.call_tool(
                    "pitfall_record",
                    {
                        "title": "get needs a slot that exists",
                        "tags": ["ENGINE_SLOT_NOT_FOUND"],
                        "solution": "set it first",
                    },
                )
                await first.call_tool("record_start", {"title": "http sessions"})
                counts = [len((await first.call_tool("get", {"name": "nope"})).content)]
                counts.append(len((await first.call_tool("get", {"name": "nope"})).content))
                return counts

        assert anyio.run(main) == [1, 2]
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_the_detectors_session_is_the_http_session_id_when_there_is_one() -> None:
    from types import SimpleNamespace

    from reckoner.pitfalls.mcp import session_key

    with_id = SimpleNamespace(request=SimpleNamespace(headers={"mcp-session-id": "abc"}))
    stateless = SimpleNamespace(request=SimpleNamespace(headers={}))
    stdio = SimpleNamespace(request=None)
    assert session_key(with_id) == "http-abc"  # type: ignore[arg-type]
    assert session_key(stateless) == session_key(stdio) == "process"  # type: ignore[arg-type]


def test_the_readme_mcp_snippet_starts_the_standalone_memory(tmp_path: Path) -> None:
    """The README's `.mcp.json` for `reckoner pitfalls serve`, launched as it says."""
    import os
    import re

    text = (Path(__file__).resolve().parents[2] / "docs/guide/pitfalls.md").read_text("utf-8")
    start = text.index("<!-- pitfalls-mcp-snippet -->")
    block = re.search(r"```json\n(.*?)```", text[start:], re.S)
    assert block is not None
    server = json.loads(block.group(1))["mcpServers"]["pitfalls"]
    assert server["type"] == "stdio"
    params = StdioServerParameters(
        command=str(Path(sys.executable).parent / server["command"]),
        args=server["args"],
        cwd=str(tmp_path),
        env={**os.environ, "RECKONER_HOME": str(tmp_path / "home")},
    )

    async def main() -> list[str]:
        async with Client(params) as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert anyio.run(main) == PITFALL_NAMES
