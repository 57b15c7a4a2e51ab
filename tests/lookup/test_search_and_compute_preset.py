"""Issue 12 ("a preset with both search and compute once both exist"): a real MCP client on
`reckoner serve --preset reckoner-with-search-and-compute` gets the six tools, search and
compute, the composed persona, and a search row and a compute row in the open record; every
preset the contract names serves exactly its tools and its persona."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import pytest
from fakes import FakeAnthropic, Source, reply_json
from lookup_helpers import serve_params
from mcp import Client

from home_rows import record_rows
from reckoner.contract.engine import TOOL_NAMES
from reckoner.contract.presets import PURE_PRESET, SEARCH_AND_COMPUTE_PRESET
from reckoner.contract.registry import PRESET_NAMES, PRESET_TOOLS, added_tools, tools_of
from reckoner.contract.search import SEARCH_TOOL
from reckoner.server.texts import persona

ANSWER = "Copper's density is 8.96 g/cm3 near room temperature."
WIKI = "https://en.wikipedia.org/wiki/Copper"


def test_the_presets_are_derived_from_the_tools_one_per_tool_and_one_with_both() -> None:
    """The contract names four presets: the pure one, one per preset tool (its own), and the
    one serving both, each tool's presets naming its own first.
    Spec: docs/reference/tools.md (issue 12: the tools per preset)."""
    assert (
        PURE_PRESET,
        *(tool.own_preset for tool in PRESET_TOOLS),
        SEARCH_AND_COMPUTE_PRESET,
    ) == PRESET_NAMES
    assert [t.name for t in added_tools(SEARCH_AND_COMPUTE_PRESET)] == ["search", "compute"]
    assert added_tools(PURE_PRESET) == ()
    for tool in PRESET_TOOLS:
        assert added_tools(tool.own_preset or "") == (tool,)
        assert SEARCH_AND_COMPUTE_PRESET in tool.presets


def _own_rules(tool_preset: str) -> str:
    return (resources.files("reckoner.server") / "presets" / f"{tool_preset}.md").read_text("utf-8")


def test_the_combined_persona_is_the_one_tool_texts_composed_and_renumbered() -> None:
    """No third copy of the rules: the combined persona is the pure persona, then search's
    own rules, then compute's, their numbers following on (6-8, then 9-10).
    Spec: docs/reference/tools.md (issue 12: the tools per preset)."""
    folder = resources.files("reckoner.server") / "presets"
    assert not (folder / f"{SEARCH_AND_COMPUTE_PRESET}.md").is_file()
    pure = persona(PURE_PRESET)
    combined = persona(SEARCH_AND_COMPUTE_PRESET)
    searching, computing = (_own_rules(t.own_preset or "") for t in PRESET_TOOLS)
    shifted = re.sub(
        r"^(\d+)\. ", lambda m: f"{int(m.group(1)) + 3}. ", computing, flags=re.MULTILINE
    )
    assert combined == f"{pure.rstrip()}\n\n{searching.rstrip()}\n\n{shifted}"
    numbers = [int(n) for n in re.findall(r"^(\d+)\. ", combined, flags=re.MULTILINE)]
    assert numbers == list(range(1, 11))
    # The one-tool presets read as before: the pure persona and their own text.
    for tool, rules in zip(PRESET_TOOLS, (searching, computing), strict=True):
        assert persona(tool.own_preset or "") == f"{pure.rstrip()}\n\n{rules}"


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_preset_serves_its_tools_and_persona_and_only_search_reaches_a_provider(
    preset: str, tmp_path: Path
) -> None:
    """Each preset lists exactly its contract tools with its persona as the instructions; a
    preset without search answers a search call as an unknown tool and never asks the
    provider, one without compute never runs one. The provider is this test's own fake, so
    a request another test's server sends late cannot land in its log.
    Spec: docs/reference/tools.md (issue 12: the tools per preset)."""
    anthropic_fake = FakeAnthropic()
    try:
        _check_preset(preset, tmp_path, anthropic_fake)
    finally:
        anthropic_fake.close()


def _check_preset(preset: str, tmp_path: Path, anthropic_fake: FakeAnthropic) -> None:
    anthropic_fake.script.sources = [Source(WIKI, "Copper - Wikipedia")]
    anthropic_fake.script.extract_text = reply_json(ANSWER, [0])
    project = tmp_path / "proj"
    project.mkdir()

    async def main() -> tuple[list[str], str | None, dict[str, Any], dict[str, Any]]:
        params = serve_params(tmp_path / "home", preset, anthropic_fake, "--project", str(project))
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            await client.call_tool("record_start", {"title": "Copper"})
            searched = await client.call_tool("search", {"question": "What is copper's density?"})
            code = {"op": "run", "engine": "python", "code": "print(6 * 7)\n"}
            computed = await client.call_tool("compute", code)
            return (
                names,
                client.instructions,
                searched.structured_content or {},
                computed.structured_content or {},
            )

    names, instructions, searched, computed = anyio.run(main)
    served = tools_of(preset)
    assert names == [t.name for t in served]
    assert instructions == persona(preset)
    if SEARCH_TOOL in served:
        assert searched == {"ok": True, "answer": ANSWER, "origin": "allowlist"}
    else:
        assert searched["ok"] is False and "unknown tool" in searched["error"]
        assert anthropic_fake.requests == []
    if "compute" in names:
        assert computed["ok"] is True and computed["stdout"] == "42\n"
        assert computed["runId"].startswith(f"{preset}-proj-")
    else:
        assert computed["ok"] is False and "unknown tool" in computed["error"]
        assert not (project / "Computation").exists()


def test_search_and_compute_over_stdio_write_their_rows_and_the_archive(
    tmp_path: Path, fakes: None, anthropic_fake: FakeAnthropic
) -> None:
    """The combined preset over a real client: the tools, the composed instructions, a
    lookup through the fake provider and a python run, each a row of the open record, the
    run archived under Computation/reckoner-with-search-and-compute-<project>-<hash>/.
    Spec: docs/reference/tools.md (issue 12: the tools per preset)."""
    anthropic_fake.script.sources = [Source(WIKI, "Copper - Wikipedia")]
    anthropic_fake.script.extract_text = reply_json(ANSWER, [0])
    home, project = tmp_path / "home", tmp_path / "bar"
    project.mkdir()

    async def main() -> tuple[list[str], str | None, list[dict[str, Any]]]:
        params = serve_params(
            home, SEARCH_AND_COMPUTE_PRESET, anthropic_fake, "--project", str(project)
        )
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            answers = []
            for tool, args in [
                ("record_start", {"title": "Copper bar mass"}),
                ("search", {"question": "What is the density of copper?"}),
                ("compute", {"op": "run", "engine": "python", "code": "print(8.96 * 0.25)\n"}),
                ("set", {"name": "m", "value": {"num": 2.24, "unit": "kg"}}),
                ("record_end", {"text": "The bar weighs 2.24 kg."}),
            ]:
                answers.append((await client.call_tool(tool, args)).structured_content or {})
            return names, client.instructions, answers

    names, instructions, answers = anyio.run(main)
    assert names == [*TOOL_NAMES, "search", "compute"]
    assert instructions == persona(SEARCH_AND_COMPUTE_PRESET)
    assert "`search`" in (instructions or "") and "`compute`" in (instructions or "")
    assert all(answer["ok"] is True for answer in answers), answers
    run = answers[2]
    assert run["stdout"] == "2.24\n"
    assert re.fullmatch(r"reckoner-with-search-and-compute-bar-[0-9a-f]{12}", run["runId"])
    receipt = project / "Computation" / run["runId"] / "receipt.json"
    assert run["receipt"] == f"Computation/{run['runId']}/receipt.json" and receipt.is_file()
    assert json.loads(receipt.read_text("utf-8"))["preset"] == SEARCH_AND_COMPUTE_PRESET
    rows = record_rows(home)
    assert [(r["tool"], r["ok"]) for r in rows] == [
        ("record_start", True),
        ("search", True),
        ("compute", True),
        ("set", True),
        ("record_end", True),
    ]
    assert rows[1]["content"]["used"][0]["url"] == WIKI
    assert rows[1]["content"]["policy"]["tier"] == "strict"  # search's own preset layer
    compute_row = rows[2]["content"]
    assert compute_row["runId"] == run["runId"] and compute_row["stdoutTail"] == "2.24"
    assert len(anthropic_fake.requests) >= 1


def test_the_readme_and_the_serve_help_name_every_preset_the_contract_has() -> None:
    """The docs and `reckoner serve --help` list the presets from the contract, none missing.
    Spec: docs/reference/tools.md (issue 12: the tools per preset)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    pages = [root / "README.md", *sorted((root / "docs" / "guide").glob("*.md"))]
    readme = "\n".join(page.read_text("utf-8") for page in pages)
    helped = subprocess.run(
        [sys.executable, "-m", "reckoner", "serve", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "400"},
    ).stdout
    for preset in PRESET_NAMES:
        assert f"--preset {preset}" in readme or preset == PURE_PRESET, preset
        added = " and ".join(t.name for t in added_tools(preset))
        assert (f"{preset} adds {added}" if added else f"{preset}: the six tools") in helped
