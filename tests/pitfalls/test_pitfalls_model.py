"""A lesson's fields (reckoner.pitfalls.model; issue 13, "Bad input and faults"): limits cut
and said so, tags trimmed, notes capped."""

from __future__ import annotations

from pathlib import Path

from pitfall_helpers import _record

from reckoner.contract.limits import (
    MAX_PITFALL_BODY,
    MAX_PITFALL_LINE,
    MAX_PITFALL_NOTES,
    MAX_PITFALL_TAG,
    MAX_PITFALL_TAGS,
)
from reckoner.pitfalls.model import clean_fields
from reckoner.pitfalls.tiers import Pitfalls


def test_limits_cut_fields_and_say_so() -> None:
    cleaned = clean_fields(
        {
            "title": "t" * (MAX_PITFALL_LINE + 5),
            "area": "a" * (MAX_PITFALL_LINE + 1),
            "solution": "s" * (MAX_PITFALL_BODY + 1),
            "tags": [f"tag{i}" for i in range(MAX_PITFALL_TAGS + 3)] + ["x" * 40],
        }
    )
    fields = cleaned.fields
    assert len(fields["title"]) == MAX_PITFALL_LINE and len(fields["area"]) == MAX_PITFALL_LINE
    assert len(fields["solution"]) == MAX_PITFALL_BODY
    assert len(fields["tags"]) == MAX_PITFALL_TAGS
    assert " ".join(cleaned.changes).count("cut to its limit") == 4
    assert any("first 16 tags" in change for change in cleaned.changes)
    assert len(clean_fields({"tags": ["y" * 30]}).fields["tags"][0]) == MAX_PITFALL_TAG


def test_tags_are_trimmed_and_de_duplicated() -> None:
    assert clean_fields({"tags": [" npm ", "npm", "NPM", "", "  ", "node  gyp"]}).fields[
        "tags"
    ] == ["npm", "node gyp"]


def test_at_most_50_notes_the_oldest_dropped(home: Path) -> None:
    pitfalls = Pitfalls.open(home)
    entry = _record(pitfalls, title="noisy")
    for i in range(MAX_PITFALL_NOTES + 2):
        outcome = pitfalls.update(str(entry["id"]), clean_fields({}), f"note {i}", f"t{i:03}")
    notes = outcome.entry["notes"]
    assert len(notes) == MAX_PITFALL_NOTES
    assert notes[0]["text"] == "note 2" and notes[-1]["text"] == f"note {MAX_PITFALL_NOTES + 1}"
    assert any("oldest" in change for change in outcome.changes)
