"""Issue 26: a reminder needs real evidence. Measured on a labelled set of 50 lessons and 50
failures (``reminder_cases``): the first lesson offered is the right one for at least 80 %
of related failures, and no reminder fires for at least 90 % of unrelated ones."""

from __future__ import annotations

from pathlib import Path

from reminder_cases import FIRST_RIGHT_TARGET, LESSONS, QUIET_TARGET, RELATED, UNRELATED, measure

from reckoner.pitfalls.detector import build_clue
from reckoner.pitfalls.model import clean_fields
from reckoner.pitfalls.tiers import Pitfalls


def test_the_labelled_set_is_fifty_lessons_and_fifty_failures_half_unrelated() -> None:
    assert (len(LESSONS), len(RELATED), len(UNRELATED)) == (50, 25, 25)
    assert len({lesson["title"] for lesson in LESSONS}) == 50


def test_the_reminder_offers_the_right_lesson_first_and_stays_quiet_when_none_is(
    tmp_path: Path,
) -> None:
    precision = measure(tmp_path / "home")
    assert precision.first_right_share >= FIRST_RIGHT_TARGET, precision.misses
    assert precision.quiet_share >= QUIET_TARGET, precision.misses


def test_failure_boilerplate_alone_offers_no_lesson(tmp_path: Path) -> None:
    """The issue's cases: "set it first" offered three lessons through "set" and "first",
    and "Error: Exit code 1" five."""
    pitfalls = Pitfalls.open(tmp_path / "home")
    for fields in LESSONS:
        pitfalls.record(clean_fields(fields))
    for error in ("ENGINE_NO_SUCH_THING: set it first", "Error: Exit code 1"):
        clue = build_clue({"name": "P"}, (error,))
        assert pitfalls.search(clue, limit=3, failed_tool="Bash") == [], error
    plain = pitfalls.search("ENGINE_NO_SUCH_THING: set it first", limit=3)
    assert plain, "a plain search (pitfall_search) still finds lessons by these words"


def test_one_matched_tag_is_evidence_enough_but_the_tools_own_name_is_not(tmp_path: Path) -> None:
    pitfalls = Pitfalls.open(tmp_path / "home")
    for fields in LESSONS:
        pitfalls.record(clean_fields(fields))
    tagged = pitfalls.search("errno EACCES", limit=3, failed_tool="Bash")
    assert [hit.entry["title"] for hit in tagged][:1] == ["npm install -g fails with EACCES"]
    only_the_tool = build_clue({"file_path": "/app/main.py"}, ("String to replace not found",))
    assert pitfalls.search(only_the_tool, limit=3, failed_tool="Edit") == []


def test_a_word_inside_a_hyphenated_tag_is_not_the_tag(tmp_path: Path) -> None:
    pitfalls = Pitfalls.open(tmp_path / "home")
    pitfalls.record(clean_fields({"title": "rebuild fails", "solution": "x", "tags": ["node-gyp"]}))
    assert pitfalls.search("node crashed", limit=3, failed_tool="Bash") == []
    assert pitfalls.search("node-gyp crashed", limit=3, failed_tool="Bash")
