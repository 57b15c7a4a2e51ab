"""Issue 11 through the doors: a real MCP client calls `search` over stdio on
`reckoner serve --preset reckoner-with-search`, whose SDK is pointed at the fake provider by
its own environment variables; the pure preset has no `search`; the CLI calls and shows it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from fakes import FakeAnthropic, Source, reply_json
from lookup_helpers import ANTHROPIC_KEY, serve_params
from mcp import Client

from home_rows import record_rows
from reckoner.contract.codes import PRESET_CODES
from reckoner.contract.engine import TOOLS
from reckoner.contract.registry import PRESET_TOOL_BY_NAME, tools_of
from reckoner.server.texts import persona
from reckoner.server.tools import DESCRIPTIONS, INPUT_SCHEMAS
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive

ANSWER = "Copper's density is 8.96 g/cm3 near room temperature."
WIKI = "https://en.wikipedia.org/wiki/Copper"


def test_search_over_stdio_through_a_real_mcp_client(
    tmp_path: Path, fakes: None, anthropic_fake: FakeAnthropic
) -> None:
    """Spec: docs/guide/lookup.md (the outside lookup)."""
    anthropic_fake.script.sources = [Source(WIKI, "Copper - Wikipedia")]
    anthropic_fake.script.extract_text = reply_json(ANSWER, [0])
    home = tmp_path / "home"

    async def main() -> tuple[list[Any], Any, Any, str | None]:
        async with Client(serve_params(home, "reckoner-with-search", anthropic_fake)) as client:
            listed = await client.list_tools()
            refused = await client.call_tool("search", {"question": "What is g?"})
            await client.call_tool("record_start", {"title": "Copper bar mass"})
            answered = await client.call_tool(
                "search", {"question": "What is the density of copper?"}
            )
            return listed.tools, refused, answered, client.instructions

    tools, refused, answered, instructions = anyio.run(main)
    search = next(t for t in tools if t.name == "search")
    assert [t.name for t in tools] == [t.name for t in tools_of("reckoner-with-search")]
    assert search.input_schema == INPUT_SCHEMAS["search"]
    assert search.description == DESCRIPTIONS["search"]
    assert instructions == persona("reckoner-with-search")
    assert refused.is_error and refused.structured_content["code"] == "ENGINE_OPEN_RECORD_NOT_FOUND"
    # The model receives the answer and its origin, and nothing else: no URL, no snippet.
    assert answered.is_error is False
    assert answered.structured_content == {"ok": True, "answer": ANSWER, "origin": "allowlist"}
    (text,) = answered.content
    assert json.loads(text.text) == answered.structured_content
    assert "wikipedia" not in text.text
    rows = record_rows(home)
    assert [r["tool"] for r in rows] == ["record_start", "search"]
    assert rows[1]["content"]["used"][0]["url"] == WIKI
    assert ANTHROPIC_KEY not in json.dumps(rows)


def test_the_pure_preset_has_no_search_tool(
    tmp_path: Path, fakes: None, anthropic_fake: FakeAnthropic
) -> None:
    """Spec: docs/guide/lookup.md (the outside lookup)."""

    async def main() -> tuple[list[str], Any]:
        async with Client(serve_params(tmp_path / "home", "reckoner", anthropic_fake)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            await client.call_tool("record_start", {"title": "pure"})
            return names, await client.call_tool("search", {"question": "What is g?"})

    names, receipt = anyio.run(main)
    assert names == [t.name for t in TOOLS]
    assert receipt.structured_content["code"] == "ENGINE_INVALID_ARGS"
    assert anthropic_fake.requests == []


def test_the_persona_and_the_description_carry_the_callers_rules() -> None:
    """Spec: docs/guide/lookup.md (the caller's side)."""
    pure, searching = persona("reckoner"), persona("reckoner-with-search")
    assert searching.startswith(pure.rstrip("\n")) and "search" not in pure.split("reckoner://")[0]
    for text in (searching, DESCRIPTIONS["search"]):
        assert "set" in text and "exactly as written" in text
        assert "compute, convert, round or derive" in text
        assert "SEARCH_INSUFFICIENT" in text and "stop" in text
        assert "SEARCH_BUDGET_EXCEEDED" in text and "continue with what the record holds" in text
    for code in PRESET_CODES["search"]:  # the tool's own description names every code it answers
        assert code in DESCRIPTIONS["search"]


def test_the_search_schema_is_the_contract() -> None:
    """Spec: docs/reference/tools.md (the search tool's contract)."""
    tool = PRESET_TOOL_BY_NAME["search"]
    schema = INPUT_SCHEMAS["search"]
    assert list(schema["properties"]) == list(tool.keys) == ["question"]
    assert schema["required"] == ["question"] and schema["additionalProperties"] is False
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"question": "What is the density of copper?"})
    assert not validator.is_valid({"question": ""})
    assert not validator.is_valid({"question": "x" * 501})
    assert not validator.is_valid({"question": "q", "url": "x"})


def _cli(home: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reckoner", *args, "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200", **env},
    )


def test_cli_call_search_and_show_renders_the_lookup_with_its_sources(
    tmp_path: Path, fakes: None, anthropic_fake: FakeAnthropic
) -> None:
    """Spec: docs/guide/lookup.md (the outside lookup)."""
    anthropic_fake.script.sources = [
        Source(WIKI, "Copper - Wikipedia"),
        Source("https://x.example/"),
    ]
    anthropic_fake.script.extract_text = reply_json(ANSWER, [0])
    home = tmp_path / "home"
    env = {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "ANTHROPIC_BASE_URL": anthropic_fake.root}
    assert _cli(home, env, "call", "record_start", '{"title": "Copper"}').returncode == 0
    done = _cli(home, env, "call", "search", '{"question": "What is the density of copper?"}')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"ok": True, "answer": ANSWER, "origin": "allowlist"}
    anthropic_fake.script.sources = []
    refused = _cli(home, env, "call", "search", '{"question": "What is the density of tin?"}')
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["code"] == "SEARCH_INSUFFICIENT"
    record_id = RecordArchive(HomeLayout(home)).index().open.id  # type: ignore[union-attr]
    shown = _cli(home, {}, "show", record_id)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "What is the density of copper?" in out and ANSWER in out
    assert "Sources (1 of 2 cited)" in out and WIKI in out and "Copper - Wikipedia" in out
    assert "SEARCH_INSUFFICIENT" in out and "What is the density of tin?" in out
    helped = _cli(home, {}, "call", "--help").stdout
    assert "search {question}" in helped


def test_a_lookup_killed_mid_call_leaves_the_record_whole_and_the_budget_unspent(
    tmp_path: Path, fakes: None, anthropic_fake: FakeAnthropic
) -> None:
    """Spec: docs/guide/lookup.md (the recorded fact)."""
    import signal
    import time

    home = tmp_path / "home"
    env = {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "ANTHROPIC_BASE_URL": anthropic_fake.root}
    assert _cli(home, env, "call", "record_start", '{"title": "Copper"}').returncode == 0
    anthropic_fake.script.search_delay = 10
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "reckoner",
            "call",
            "search",
            '{"question": "g?"}',
            "--home",
            str(home),
        ],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not anthropic_fake.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    assert anthropic_fake.requests, "the child never reached the provider"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert [r["tool"] for r in record_rows(home)] == ["record_start"]
    anthropic_fake.script.search_delay = 0
    anthropic_fake.script.sources = [Source(WIKI, "Copper - Wikipedia")]
    anthropic_fake.script.extract_text = reply_json(ANSWER, [0])
    done = _cli(home, env, "call", "search", '{"question": "What is the density of copper?"}')
    assert json.loads(done.stdout)["ok"] is True
    assert [r["tool"] for r in record_rows(home)] == ["record_start", "search"]


def test_the_log_names_the_search_provider_at_start_and_never_its_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    from reckoner import Engine
    from reckoner.lookup.service import attach_search

    def started_log(home: Path) -> str:
        with Engine(home) as engine:
            attach_search(engine)
        return "".join(p.read_text("utf-8") for p in (home / "logs").glob("*.log"))

    for key in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    unconfigured = started_log(tmp_path / "none")
    assert "search is served but unavailable" in unconfigured
    assert "ANTHROPIC_API_KEY" in unconfigured
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    configured = started_log(tmp_path / "some")
    assert "search provider" in configured and "127.0.0.1:9" in configured
    assert ANTHROPIC_KEY not in configured
