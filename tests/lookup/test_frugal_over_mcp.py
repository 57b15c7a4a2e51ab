"""Issue 26 (lookup) through a real MCP client against `reckoner serve --preset
reckoner-with-search` over stdio, its SDK pointed at the loopback fake: the cache answers a
question asked again without the provider, an empty allow-list answers without the provider,
and an answer whose number the material lacks reaches the model as insufficient."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from fakes import FakeAnthropic, Source, reply_json
from lookup_helpers import serve_params
from mcp import Client

from reckoner.storage.home import HomeLayout
from reckoner.storage.state_file import StateFile

WIKI = "https://en.wikipedia.org/wiki/Copper"
QUESTION = "What is the density of copper?"


def _receipts(home: Path, fake: FakeAnthropic, questions: list[str]) -> list[dict[str, Any]]:
    async def main() -> list[dict[str, Any]]:
        async with Client(serve_params(home, "reckoner-with-search", fake)) as client:
            await client.call_tool("record_start", {"title": "Copper"})
            answers = []
            for question in questions:
                result = await client.call_tool("search", {"question": question})
                answers.append(result.structured_content)
            return answers

    return anyio.run(main)


def test_a_question_asked_again_is_answered_from_the_cache_over_mcp(
    tmp_path: Path, fakes: None, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script.sources = [Source(WIKI, "Copper", cited_text="Density 8.96 g/cm3")]
    anthropic_fake.script.extract_text = reply_json("8.96 g/cm3", [0])
    first, again = _receipts(
        tmp_path / "home", anthropic_fake, [QUESTION, "  what is the density of COPPER? "]
    )
    assert first == again == {"ok": True, "answer": "8.96 g/cm3", "origin": "allowlist"}
    assert len(anthropic_fake.searches()) == 1  # the second answer cost the provider nothing


def test_an_empty_allow_list_answers_insufficient_without_the_provider_over_mcp(
    tmp_path: Path, fakes: None, anthropic_fake: FakeAnthropic
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    StateFile(HomeLayout(home)).write_subtree("search", {"allowedHosts": []})
    (answer,) = _receipts(home, anthropic_fake, [QUESTION])
    assert answer["ok"] is False and answer["code"] == "SEARCH_INSUFFICIENT"
    assert anthropic_fake.requests == []


def test_an_answer_whose_number_the_material_lacks_reaches_the_model_as_insufficient(
    tmp_path: Path, fakes: None, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script.sources = [Source(WIKI, "Steel", cited_text="Density 7,850 kg/m3")]
    anthropic_fake.script.extract_text = reply_json("8,960 kg/m3", [0])
    (answer,) = _receipts(tmp_path / "home", anthropic_fake, ["What is the density of steel?"])
    assert answer["ok"] is False and answer["code"] == "SEARCH_INSUFFICIENT"
    assert "8960" not in str(answer) and "8,960" not in str(answer)
