"""The library and its two tiers (issue 13, "The library", "Two tiers", "Bad input and
faults"): the file format, folding, limits, cards and index, every merge rule, and crash
safety with real files and real processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from pitfall_helpers import jsonl_lines, lesson

from reckoner.contract.limits import (
    MAX_PITFALL_BODY,
    MAX_PITFALL_LINE,
    MAX_PITFALL_NOTES,
    MAX_PITFALL_TAG,
    MAX_PITFALL_TAGS,
)
from reckoner.pitfalls import render
from reckoner.pitfalls.library import Library, LibraryError
from reckoner.pitfalls.model import clean_fields, is_entry_id
from reckoner.pitfalls.tiers import NotFound, Pitfalls, project_library_root


def _record(pitfalls: Pitfalls, **fields: object) -> dict[str, object]:
    return pitfalls.record(clean_fields(fields)).entry


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_entries_jsonl_is_append_only_one_full_snapshot_per_line_with_v1(tmp_path: Path) -> None:
    library = Library(tmp_path / "lib")
    entry = library.record(clean_fields({"title": "first", "solution": "do x"}).fields)
    library.save({**entry, "status": "open"})
    lines = [json.loads(line) for line in jsonl_lines(tmp_path / "lib")]
    assert len(lines) == 2
    assert all(line["v"] == 1 and line["id"] == entry["id"] for line in lines)
    assert lines[0]["status"] == "solved" and lines[1]["status"] == "open"
    assert lines[1]["solution"] == "do x"  # a full snapshot, not a patch


def test_reading_folds_by_id_and_the_last_snapshot_wins(tmp_path: Path) -> None:
    library = Library(tmp_path / "lib")
    a, b = lesson("p-20261201-070000-000a", title="a"), lesson("p-20261201-070000-000b")
    for entry in (a, b, {**a, "title": "a again"}):
        library.save(entry)
    entries = library.entries()
    assert [e["id"] for e in entries] == [b["id"], a["id"]]
    assert entries[1]["title"] == "a again"


def test_ids_are_p_date_time_and_4_hex(tmp_path: Path) -> None:
    entry = Library(tmp_path / "lib").record({"title": "x"})
    assert is_entry_id(entry["id"]), entry["id"]
    assert entry["created"] == entry["updated"] and entry["created"].endswith("Z")


def test_broken_lines_are_skipped_and_the_rest_stay_readable(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    library = Library(root)
    library.save(lesson("p-20261201-070000-0001", title="kept"))
    with open(root / "entries.jsonl", "ab") as handle:
        handle.write(b'not json\n[1, 2]\n{"v": 2, "id": "p-20261201-070000-0009"}\n')
        handle.write(b'{"v": 1, "title": "no id"}\n\xff\xfe\n{"v": 1, "id": "p-2026120')
    assert [e["title"] for e in library.entries()] == ["kept"]
    # The next append never glues itself onto the half-written tail.
    library.save(lesson("p-20261201-070000-0002", title="after the tear"))
    assert [e["title"] for e in Library(root).entries()] == ["kept", "after the tear"]


def test_the_cache_follows_the_files_mtime_so_hand_edits_are_seen(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    library = Library(root)
    library.save(lesson(title="before"))
    assert library.entries()[0]["title"] == "before"
    path = root / "entries.jsonl"
    path.write_text(path.read_text().replace("before", "after edit"))
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 5_000_000))
    assert library.entries()[0]["title"] == "after edit"


def test_status_is_normalised_anything_else_is_solved(tmp_path: Path) -> None:
    for given, stored in [("open", "open"), ("Workaround", "workaround"), ("fixed", "solved")]:
        cleaned = clean_fields({"title": "t", "status": given})
        assert cleaned.fields["status"] == stored
        assert bool(cleaned.changes) == (given == "fixed")
    root = tmp_path / "lib"
    root.mkdir()
    (root / "entries.jsonl").write_text(json.dumps(lesson(status="broken")) + "\n")
    assert Library(root).entries()[0]["status"] == "solved"


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


def test_card_and_index_are_rewritten_whole(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    library = Library(root)
    entry = lesson(
        title="pip | wheel fails",
        area="setup.py",
        solution="pin setuptools",
        evidence="error: invalid command 'bdist_wheel'",
        tags=["pip", "wheel"],
        status="workaround",
        notes=[{"at": "2026-12-01T08:00:00Z", "text": "again on CI"}],
    )
    library.save(entry)
    card = (root / "cards" / f"{entry['id']}.md").read_text()
    assert card == render.card(entry)
    assert card.startswith("# pip | wheel fails\n")
    assert card.index("## Solution") < card.index("## Evidence") < card.index("## Notes")
    assert "- status: workaround" in card and "again on CI" in card
    index = (root / "INDEX.md").read_text()
    assert index == render.index(library.entries())
    assert f"[pip \\| wheel fails](cards/{entry['id']}.md)" in index
    assert "| workaround |" in index
    assert not [p for p in root.rglob("*.tmp")], "no temporary file is left behind"


def test_a_failed_write_raises_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(LibraryError, match=r"cannot write the pitfalls library at .*writable"):
        Library(blocker / "lib").record({"title": "x"})


# -- the two tiers -------------------------------------------------------------------------


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


# -- crash safety and two writers ---------------------------------------------------------

_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from reckoner.pitfalls.library import Library
    library = Library(Path(sys.argv[1]))
    for i in range(int(sys.argv[3])):
        entry = library.record({"title": f"{sys.argv[2]} lesson {i}", "evidence": "x" * 50000})
        print(entry["id"], flush=True)
    """
)


def _writer(root: Path, name: str, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(root), name, str(count)],
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_writer_killed_mid_append_leaves_a_readable_library(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    process = _writer(root, "killed", 100_000)
    assert process.stdout is not None
    done = [process.stdout.readline().strip() for _ in range(5)]
    process.send_signal(signal.SIGKILL)
    rest, _ = process.communicate()
    done += rest.split()
    # Whatever the kill cut, every confirmed lesson reads back and the library keeps working.
    ids = {e["id"] for e in Library(root).entries()}
    assert set(done) <= ids
    after = Library(root).record({"title": "after the kill"})
    assert after["id"] in {e["id"] for e in Library(root).entries()}
    assert not [p for p in root.glob("*.md.*.tmp")]


def test_two_processes_writing_at_once_lose_no_entry(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    writers = [_writer(root, name, 15) for name in ("left", "right")]
    ids = [line for w in writers for line in w.communicate()[0].split()]
    assert all(w.returncode == 0 for w in writers)
    entries = Library(root).entries()
    assert {e["id"] for e in entries} == set(ids) and len(ids) == 30
    index = (root / "INDEX.md").read_text()
    assert all(f"cards/{i}.md" in index for i in ids), "the last index rewrite saw every line"
    assert len(list((root / "cards").glob("*.md"))) == 30


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
