"""The four tools' arguments and answers (issue 13, "Tools", "Bad input and faults"): checks
derived from the one contract, one-sentence refusals that write nothing, cuts said so."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from reckoner.contract.limits import MAX_PITFALL_BODY, MAX_PITFALL_LINE
from reckoner.contract.pitfalls import OPTION_TOOL_BY_NAME, PITFALL_TOOLS, option_tools
from reckoner.contract.tools import Null
from reckoner.pitfalls.mcp import PitfallsMount
from reckoner.pitfalls.tiers import Pitfalls
from reckoner.pitfalls.tools import PitfallTools


@pytest.fixture
def tools(tmp_path: Path) -> PitfallTools:
    return PitfallTools(Pitfalls.open(tmp_path / "home", project=tmp_path / "project"))


def _files(tmp_path: Path) -> list[Path]:
    return sorted(p for p in tmp_path.rglob("*") if p.is_file())


def test_the_pitfall_tools_are_switched_on_by_the_pitfalls_option_only() -> None:
    assert [t.name for t in option_tools({"pitfalls"})] == [
        "pitfall_record",
        "pitfall_search",
        "pitfall_update",
        "pitfall_list",
        "pitfall_delete",
        "pitfall_merge",
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


def test_a_status_filter_outside_its_values_is_refused_and_names_them(
    tools: PitfallTools, tmp_path: Path
) -> None:
    """Issue 26: `status: "Solved"` was accepted and answered "No lessons recorded yet."."""
    tools.call("pitfall_record", {"title": "npm EACCES", "solution": "use --prefix"})
    before = _files(tmp_path)
    answer = tools.call("pitfall_list", {"status": "Solved"})
    assert answer.data["code"] == "PITFALL_INVALID_ARGS"
    assert "'Solved' is not one of solved, workaround, open" in answer.data["error"]
    assert _files(tmp_path) == before


def test_a_filter_that_matches_nothing_says_so_instead_of_no_lessons_recorded(
    tools: PitfallTools, tmp_path: Path
) -> None:
    for index in range(40):
        tools.call("pitfall_record", {"title": f"lesson {index}", "solution": "fix it"})
    answer = tools.call("pitfall_list", {"status": "open"})
    assert answer.ok and answer.data["count"] == 0
    assert answer.text.startswith("No lesson has status 'open'; lessons are recorded")
    tagged = tools.call("pitfall_list", {"tag": "docker", "status": "solved"})
    assert "No lesson has status 'solved' and the tag 'docker'" in tagged.text
    empty = PitfallTools(Pitfalls.open(tmp_path / "another home"))
    assert empty.call("pitfall_list", {"status": "open"}).text == "No lessons recorded yet."


def test_recent_lists_the_newest_first_among_lessons_of_the_same_second(
    tools: PitfallTools,
) -> None:
    """Issue 26: lessons recorded within one second were listed oldest first."""
    titles = [f"lesson number {index}" for index in range(12)]
    for title in titles:  # a dozen records take far less than a second
        tools.call("pitfall_record", {"title": title, "solution": "fix it"})
    listed = tools.call("pitfall_list", {})
    shown = [lesson["title"] for lesson in listed.data["lessons"]]
    stamps = [lesson["updated"] for lesson in listed.data["lessons"]]
    assert stamps == sorted(stamps, reverse=True)
    # Within each second the later record comes first.
    for newer, older in itertools.pairwise(shown):
        same_second = stamps[shown.index(newer)] == stamps[shown.index(older)]
        assert not same_second or titles.index(newer) > titles.index(older)
    assert shown[0] == titles[-1]


def test_a_note_added_from_another_project_survives_the_home_projects_next_update(
    tmp_path: Path,
) -> None:
    """Issue 26: a note added from project B to a lesson recorded in project A was lost
    when A next updated it (A's stale project copy overwrote the global one)."""
    home = tmp_path / "home"
    in_a = PitfallTools(Pitfalls.open(home, project=tmp_path / "A"))
    in_b = PitfallTools(Pitfalls.open(home, project=tmp_path / "B"))
    recorded = in_a.call("pitfall_record", {"title": "npm EACCES", "solution": "use --prefix"})
    lesson = recorded.data["id"]
    assert in_b.call("pitfall_update", {"id": lesson, "note": "seen in B too"}).ok
    assert in_b.call("pitfall_update", {"id": lesson, "status": "workaround"}).ok
    assert in_a.call("pitfall_update", {"id": lesson, "note": "again in A"}).ok
    for tools in (in_a, in_b):
        shown = tools.call("pitfall_search", {"query": lesson}).data["lessons"][0]
        assert [note["text"] for note in shown["notes"]] == ["seen in B too", "again in A"]
        assert shown["status"] == "workaround"  # B's later edit of a field is kept too
    # A fresh process reads both files: the project copy and the global copy agree.
    global_only = PitfallTools(Pitfalls.open(home))
    shown = global_only.call("pitfall_search", {"query": lesson}).data["lessons"][0]
    assert [note["text"] for note in shown["notes"]] == ["seen in B too", "again in A"]


@pytest.mark.parametrize(
    "again",
    [
        "npm install -g fails with EACCES",
        "NPM install -g fails: EACCES!",
        "npm install -g fails EACCES",
    ],
)
def test_recording_a_nearly_matching_title_names_the_lesson_and_writes_nothing(
    tools: PitfallTools, tmp_path: Path, again: str
) -> None:
    """Issue 26: a duplicate title was accepted silently."""
    first = tools.call(
        "pitfall_record", {"title": "npm install -g fails with EACCES", "solution": "x"}
    )
    before = _files(tmp_path)
    answer = tools.call("pitfall_record", {"title": again, "solution": "use --prefix"})
    assert answer.data["code"] == "PITFALL_DUPLICATE"
    assert first.data["id"] in answer.data["error"] and "pitfall_update" in answer.data["error"]
    assert _files(tmp_path) == before


def test_titles_that_differ_by_a_word_or_a_number_are_two_lessons(tools: PitfallTools) -> None:
    for title in ("step 1 fails on arm64", "step 2 fails on arm64", "pip install hangs"):
        assert tools.call("pitfall_record", {"title": title, "solution": "x"}).ok, title
    assert tools.call("pitfall_record", {"title": "pip install fails", "solution": "y"}).ok


def _entries_lines(tmp_path: Path) -> list[str]:
    return [
        line
        for path in tmp_path.rglob("entries.jsonl")
        for line in path.read_text("utf-8").splitlines()
    ]


def test_a_deleted_lesson_is_gone_from_every_tier_and_its_history_stays(
    tools: PitfallTools, tmp_path: Path
) -> None:
    """Issue 26: no lesson could be deleted. A deletion is a tombstone snapshot, so the
    append-only history keeps the lesson; search, list and its card no longer show it."""
    lesson = tools.call("pitfall_record", {"title": "npm EACCES", "solution": "--prefix"})
    lesson_id = lesson.data["id"]
    before = len(_entries_lines(tmp_path))
    answer = tools.call("pitfall_delete", {"id": lesson_id})
    assert answer.data == {"ok": True, "id": lesson_id, "deleted": True}
    lines = _entries_lines(tmp_path)
    assert len(lines) == before + 2  # one tombstone in the project and one in the global tier
    assert sum(lesson_id in line for line in lines) == 4
    assert tools.call("pitfall_search", {"query": "npm EACCES"}).data["count"] == 0
    assert tools.call("pitfall_list", {}).data["count"] == 0
    assert not Path(lesson.data["card"]).exists()
    fresh = PitfallTools(Pitfalls.open(tmp_path / "home", project=tmp_path / "project"))
    assert fresh.call("pitfall_search", {"query": lesson_id}).data["count"] == 0
    again = fresh.call("pitfall_delete", {"id": lesson_id})
    assert again.data["code"] == "PITFALL_NOT_FOUND"


def test_a_merge_folds_the_duplicates_notes_tags_and_missing_fields_into_the_kept_lesson(
    tools: PitfallTools, tmp_path: Path
) -> None:
    kept = tools.call("pitfall_record", {"title": "npm EACCES on global install", "tags": ["npm"]})
    dup = tools.call(
        "pitfall_record",
        {
            "title": "permission denied in /usr/lib/node_modules",
            "solution": "use --prefix",
            "tags": ["EACCES", "npm"],
        },
    )
    tools.call("pitfall_update", {"id": dup.data["id"], "note": "seen again in CI"})
    merged = tools.call("pitfall_merge", {"id": kept.data["id"], "duplicate": dup.data["id"]})
    assert merged.ok and merged.data["merged"] == dup.data["id"]
    lesson = merged.data["lesson"]
    assert lesson["solution"] == "use --prefix" and lesson["tags"] == ["npm", "EACCES"]
    notes = [note["text"] for note in lesson["notes"]]
    assert notes[0] == "seen again in CI" and notes[-1].startswith(f"merged from {dup.data['id']}")
    listed = tools.call("pitfall_list", {}).data["lessons"]
    assert [entry["id"] for entry in listed] == [kept.data["id"]]


@pytest.mark.parametrize("which", ["id", "duplicate"])
def test_a_merge_with_an_unknown_or_the_same_id_writes_nothing(
    tools: PitfallTools, tmp_path: Path, which: str
) -> None:
    lesson = tools.call("pitfall_record", {"title": "npm EACCES", "solution": "x"}).data["id"]
    before = _files(tmp_path), _entries_lines(tmp_path)
    args = {"id": lesson, "duplicate": lesson, which: "p-20200101-000000-0000"}
    assert tools.call("pitfall_merge", args).data["code"] == "PITFALL_NOT_FOUND"
    same = tools.call("pitfall_merge", {"id": lesson, "duplicate": lesson})
    assert same.data["code"] == "PITFALL_INVALID_ARGS"
    assert (_files(tmp_path), _entries_lines(tmp_path)) == before
