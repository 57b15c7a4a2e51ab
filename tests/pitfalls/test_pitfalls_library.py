"""One library (issue 13, "The library", "Bad input and faults"): the file format, folding,
cards and index, and crash safety with real files and real processes."""

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

from reckoner.pitfalls import render
from reckoner.pitfalls.library import Library, LibraryError
from reckoner.pitfalls.model import clean_fields, is_entry_id


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
