"""The two tiers (reckoner.pitfalls.tiers; issue 13, "Two tiers"): the project library and
the global one, where a lesson is written, found and updated, and a tier that cannot be
used leaving the other working."""

from __future__ import annotations

from pathlib import Path

import pytest
from pitfall_helpers import _record, jsonl_lines

from reckoner.pitfalls.model import clean_fields
from reckoner.pitfalls.tiers import NotFound, Pitfalls, project_library_root


def test_project_library_defaults_to_dot_reckoner_pitfalls(home: Path, project: Path) -> None:
    pitfalls = Pitfalls.open(home, project=project)
    assert pitfalls.project_library is not None
    assert pitfalls.project_library.root == str((project / ".reckoner" / "pitfalls").resolve())
    assert pitfalls.global_library.root == str((home / "pitfalls").absolute())


def test_project_library_is_configurable_relative_or_absolute(
    home: Path, project: Path, tmp_path: Path
) -> None:
    assert project_library_root(project, "lessons", home / "pitfalls") == str(project / "lessons")
    assert project_library_root(project, str(tmp_path / "x"), home) == str(tmp_path / "x")


def test_project_library_is_off_when_disabled_without_project_or_when_it_is_global(
    home: Path, project: Path
) -> None:
    global_root = home / "pitfalls"
    assert project_library_root(project, None, global_root) is None
    assert project_library_root(project, "", global_root) is None
    assert project_library_root(None, ".reckoner/pitfalls", global_root) is None
    assert project_library_root(home, "pitfalls", global_root) is None
    assert project_library_root(project, str(global_root), global_root) is None
    assert Pitfalls.open(home, project=None).libraries == (Pitfalls.open(home).global_library,)


def test_record_writes_the_project_and_the_same_snapshot_globally(
    home: Path, project: Path
) -> None:
    pitfalls = Pitfalls.open(home, project=project)
    entry = _record(pitfalls, title="same everywhere")
    assert pitfalls.project_library is not None
    assert pitfalls.project_library.get(str(entry["id"])) == entry
    assert pitfalls.global_library.get(str(entry["id"])) == entry


def test_search_puts_project_hits_first_then_fills_from_global_by_id_once(
    home: Path, project: Path, tmp_path: Path
) -> None:
    other = Pitfalls.open(home, project=tmp_path / "other")
    strong_global = _record(other, title="npm npm", tags=["npm"], solution="npm")
    pitfalls = Pitfalls.open(home, project=project)
    weak_project = _record(pitfalls, title="weak", evidence="npm")
    hits = pitfalls.search("npm", limit=5)
    # Tiered, not mixed by score: the project's weak hit still comes first, once.
    assert [h.entry["id"] for h in hits] == [weak_project["id"], strong_global["id"]]
    assert [h.entry["id"] for h in pitfalls.search("npm", limit=1)] == [weak_project["id"]]


def test_project_update_overwrites_the_global_copy_with_the_final_entry(
    home: Path, project: Path
) -> None:
    pitfalls = Pitfalls.open(home, project=project)
    entry = _record(pitfalls, title="t")
    outcome = pitfalls.update(str(entry["id"]), clean_fields({"status": "open"}), "n1", "later")
    assert pitfalls.project_library is not None
    assert outcome.library is pitfalls.project_library
    final = pitfalls.global_library.get(str(entry["id"]))
    assert final == outcome.entry and final is not None
    assert [n["text"] for n in final["notes"]] == ["n1"]  # never a second append of the note
    assert len(jsonl_lines(pitfalls.global_library.root)) == 2


def test_an_entry_found_only_globally_is_updated_in_place(
    home: Path, project: Path, tmp_path: Path
) -> None:
    entry = _record(Pitfalls.open(home, project=tmp_path / "elsewhere"), title="old")
    pitfalls = Pitfalls.open(home, project=project)
    outcome = pitfalls.update(str(entry["id"]), clean_fields({}), "seen here too", "later")
    assert outcome.library is pitfalls.global_library
    assert pitfalls.project_library is not None
    assert pitfalls.project_library.get(str(entry["id"])) is None  # not moved in


def test_update_of_an_unknown_id_is_not_found(home: Path) -> None:
    with pytest.raises(NotFound):
        Pitfalls.open(home).update("p-20261201-070000-ffff", clean_fields({}), "x", "now")


def test_an_unwritable_project_directory_leaves_the_global_library_working(
    home: Path, project: Path
) -> None:
    (project / ".reckoner").write_text("a file where the directory should be")
    pitfalls = Pitfalls.open(home, project=project)
    outcome = pitfalls.record(clean_fields({"title": "still kept"}))
    assert outcome.library is pitfalls.global_library
    assert outcome.warnings and "global library only" in outcome.warnings[0]
    warnings: list[str] = []
    hits = pitfalls.search("kept", warnings=warnings)
    assert [h.entry["title"] for h in hits] == ["still kept"]


def test_a_search_query_that_is_an_id_answers_that_lesson(home: Path) -> None:
    pitfalls = Pitfalls.open(home)
    entry = _record(pitfalls, title="by id")
    assert [h.entry["id"] for h in pitfalls.search(f" {entry['id']} ")] == [entry["id"]]


def test_an_unreadable_project_library_is_said_and_the_global_one_still_answers(
    home: Path, project: Path
) -> None:
    elsewhere = Pitfalls.open(home, project=project.parent / "elsewhere")
    _record(elsewhere, title="kept globally", tags=["npm"])
    (project / ".reckoner" / "pitfalls" / "entries.jsonl").mkdir(parents=True)  # not a file
    pitfalls = Pitfalls.open(home, project=project)
    warnings: list[str] = []
    hits = pitfalls.search("npm", warnings=warnings)
    assert [h.entry["title"] for h in hits] == ["kept globally"]
    assert len(warnings) == 1 and "cannot read the pitfalls library" in warnings[0]
