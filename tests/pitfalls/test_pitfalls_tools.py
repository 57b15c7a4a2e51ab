"""The four tools' arguments and answers (issue 13, "Tools", "Bad input and faults"): checks
derived from the one contract, one-sentence refusals that write nothing, cuts said so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reckoner.core.contract import OPTION_TOOL_BY_NAME, PITFALL_TOOLS, Null, option_tools
from reckoner.core.limits import MAX_PITFALL_BODY, MAX_PITFALL_LINE
from reckoner.pitfalls.mcp import PitfallsMount
from reckoner.pitfalls.tiers import Pitfalls
from reckoner.pitfalls.tools import PitfallTools


@pytest.fixture
def tools(tmp_path: Path) -> PitfallTools:
    return PitfallTools(Pitfalls.open(tmp_path / "home", project=tmp_path / "project"))


def _files(tmp_path: Path) -> list[Path]:
    return sorted(p for p in tmp_path.rglob("*") if p.is_file())


def test_the_four_tools_are_switched_on_by_the_pitfalls_option_only() -> None:
    assert [t.name for t in option_tools({"pitfalls"})] == [
        "pitfall_record",
        "pitfall_search",
        "pitfall_update",
        "pitfall_list",
    ]
    assert option_tools(set()) == ()
    assert all(not t.needs_open_record for t in PITFALL_TOOLS)


def test_the_mcp_schemas_derive_from_the_contract(tmp_path: Path) -> None:
    mount = PitfallsMount(Pitfalls.open(tmp_path))
    for listed in mount.listed:
        tool = OPTION_TOOL_BY_NAME[listed.name]
        schema = listed.input_schema
        assert list(schema["properties"]) == list(tool.keys)
        assert schema["required"] == list(tool.required)
        assert schema["additionalProperties"] is False
        for argument in tool.arguments:
            nullable = "anyOf" in schema["properties"][argument.key]
            assert nullable == (argument.null is Null.ABSENT)


@pytest.mark.parametrize(
    ("tool", "args", "words"),
    [
        ("pitfall_record", [], "must be a JSON object"),
        ("pitfall_record", {}, "pitfall_record needs title"),
        ("pitfall_record", {"title": None}, "needs title (null is refused)"),
        ("pitfall_record", {"title": 5}, "title must be a string, but it is the number 5"),
        ("pitfall_record", {"title": "t", "tags": "npm"}, "tags must be an array of strings"),
        ("pitfall_record", {"title": "t", "tags": ["npm", 3]}, "an array of strings"),
        ("pitfall_record", {"title": "t", "colour": "red"}, "has no argument 'colour'"),
        ("pitfall_search", {"limit": 21}, "from 1 to 20"),
        ("pitfall_search", {"limit": True}, "must be an integer"),
        ("pitfall_update", {}, "pitfall_update needs id"),
        ("pitfall_update", {"id": "p-20200101-000000-0000"}, "changes nothing"),
        ("pitfall_list", {"status": 1}, "status must be a string"),
    ],
)
def test_bad_arguments_are_one_sentence_and_write_nothing(
    tools: PitfallTools, tmp_path: Path, tool: str, args: Any, words: str
) -> None:
    answer = tools.call(tool, args)
    assert answer.ok is False
    assert answer.data["code"] == "PITFALL_INVALID_ARGS"
    assert words in answer.data["error"]
    assert "\n" not in answer.data["error"] and answer.text.count("\n") == 0
    assert _files(tmp_path) == []


def test_null_for_an_option_means_leaving_it_out(tools: PitfallTools) -> None:
    answer = tools.call("pitfall_record", {"title": "t", "area": None, "tags": None})
    assert answer.ok and "area" not in answer.data["lesson"]


def test_over_long_fields_are_cut_and_the_answer_says_so(tools: PitfallTools) -> None:
    answer = tools.call(
        "pitfall_record",
        {"title": "t" * 500, "solution": "s" * (MAX_PITFALL_BODY + 10)},
    )
    assert answer.ok
    lesson = answer.data["lesson"]
    assert len(lesson["title"]) == MAX_PITFALL_LINE
    assert len(lesson["solution"]) == MAX_PITFALL_BODY
    assert answer.data["changes"] == [
        f"title was cut to its limit of {MAX_PITFALL_LINE} characters",
        f"solution was cut to its limit of {MAX_PITFALL_BODY} characters",
    ]
    assert "Changed on the way in: title was cut" in answer.text


def test_results_read_id_title_status_then_the_solution_first(tools: PitfallTools) -> None:
    tools.call(
        "pitfall_record",
        {
            "title": "uv lock out of date",
            "cause": "edited pyproject",
            "solution": "uv lock",
            "area": "pyproject.toml",
            "status": "workaround",
        },
    )
    answer = tools.call("pitfall_search", {"query": "uv lock"})
    first = answer.data["lessons"][0]
    assert list(first)[:4] == ["id", "title", "status", "solution"]
    lines = answer.text.splitlines()
    assert lines[0].endswith("uv lock out of date (workaround)")
    assert lines[1] == "  solution: uv lock"


def test_a_library_that_cannot_be_written_anywhere_is_a_clear_refusal(tmp_path: Path) -> None:
    blocker = tmp_path / "home"
    blocker.write_text("not a directory")
    answer = PitfallTools(Pitfalls.open(blocker)).call("pitfall_record", {"title": "lost?"})
    assert answer.ok is False
    assert answer.data["code"] == "PITFALL_WRITE_FAILED"
    assert "cannot write the pitfalls library" in answer.data["error"]
