"""`reckoner pitfalls list|search|show|record|update` (issue 13, "CLI and panel"), run as real
processes on real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def cli(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reckoner", "pitfalls", *args, "--home", str(home)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    return project, tmp_path / "home"


def test_record_search_show_update_and_list(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    recorded = cli(
        project,
        home,
        "record",
        "--title",
        "pip wheel build fails",
        "--solution",
        "pip install wheel first",
        "--tag",
        "pip",
        "--tag",
        "wheel",
        "--json",
    )
    assert recorded.returncode == 0, recorded.stderr
    lesson_id = json.loads(recorded.stdout)["id"]
    assert (project / ".reckoner" / "pitfalls" / "cards" / f"{lesson_id}.md").is_file()

    found = cli(project, home, "search", "wheel build")
    assert found.returncode == 0
    assert found.stdout.splitlines()[0] == f"[{lesson_id}] pip wheel build fails (solved)"
    assert "solution: pip install wheel first" in found.stdout

    shown = cli(project, home, "show", lesson_id)
    assert shown.stdout.startswith("# pip wheel build fails\n") and "## Solution" in shown.stdout

    updated = cli(project, home, "update", lesson_id, "--note", "again on CI", "--status", "open")
    assert updated.returncode == 0, updated.stderr
    listed = json.loads(cli(project, home, "list", "--status", "open", "--json").stdout)
    assert [lesson["id"] for lesson in listed["lessons"]] == [lesson_id]
    assert listed["lessons"][0]["notes"][0]["text"] == "again on CI"
    # The global library has the final lesson too.
    elsewhere = project.parent / "elsewhere"
    elsewhere.mkdir()
    assert lesson_id in cli(elsewhere, home, "show", lesson_id, "--json").stdout


def test_refusals_are_one_sentence_on_stderr_with_exit_1(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    for args, words in [
        (("record", "--title", "   "), "title is empty"),
        (("update", "p-20200101-000000-0000", "--note", "x"), "no lesson has the id"),
        (("show", "nope"), "no lesson has the id"),
        (("list", "--limit", "0"), "from 1 to 20"),
    ]:
        completed = cli(project, home, *args)
        assert completed.returncode == 1, args
        assert completed.stdout == ""
        lines = completed.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("reckoner: ") and words in lines[0]


def test_an_empty_library_says_so(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    assert cli(project, home, "list").stdout.strip() == "No lessons recorded yet."
    assert "No recorded lesson matches" in cli(project, home, "search", "anything").stdout


def test_delete_merge_duplicates_and_filters_from_the_terminal(
    dirs: tuple[Path, Path],
) -> None:
    """Issue 26 through the CLI: a near-duplicate title is refused naming the lesson, merge
    folds one lesson into another, delete removes one, and a bad or empty status filter says
    what it means.
    Spec: docs/guide/pitfalls.md (issue 26)."""
    project, home = dirs

    def record(title: str, *extra: str) -> subprocess.CompletedProcess[str]:
        return cli(project, home, "record", "--title", title, "--solution", "x", *extra, "--json")

    kept = json.loads(record("npm install -g fails with EACCES").stdout)["id"]
    twin = record("npm install -g fails: EACCES")
    assert twin.returncode == 1 and "PITFALL_DUPLICATE" in twin.stdout and kept in twin.stdout
    other = json.loads(record("permission denied in node_modules", "--tag", "EACCES").stdout)["id"]
    merged = cli(project, home, "merge", kept, other)
    assert merged.returncode == 0 and f"Merged and deleted: {other}" in merged.stdout
    listed = json.loads(cli(project, home, "list", "--json").stdout)
    assert [lesson["id"] for lesson in listed["lessons"]] == [kept]
    assert "EACCES" in listed["lessons"][0]["tags"]
    bad = cli(project, home, "list", "--status", "Solved")
    # The terminal's own parser refuses it first, naming the three values.
    assert bad.returncode == 2 and "'solved', 'workaround', 'open'" in bad.stderr
    none = cli(project, home, "list", "--status", "open")
    assert none.returncode == 0 and none.stdout.startswith("No lesson has status 'open'")
    assert cli(project, home, "delete", kept).returncode == 0
    assert cli(project, home, "list").stdout.strip() == "No lessons recorded yet."


def test_a_note_added_from_another_project_survives_from_the_terminal(
    tmp_path: Path,
) -> None:
    """A note added from project B to a lesson of project A, then A's next update, and the
    lesson listed newest first: through `reckoner pitfalls` in each project's directory.
    Spec: docs/guide/pitfalls.md (issue 26)."""
    home, a, b = tmp_path / "home", tmp_path / "A", tmp_path / "B"
    a.mkdir()
    b.mkdir()
    first = json.loads(cli(a, home, "record", "--title", "npm EACCES", "--json").stdout)["id"]
    second = json.loads(cli(a, home, "record", "--title", "pip PEP 668", "--json").stdout)["id"]
    assert cli(b, home, "update", first, "--note", "seen in B too").returncode == 0
    assert cli(a, home, "update", first, "--note", "again in A").returncode == 0
    shown = json.loads(cli(b, home, "show", first, "--json").stdout)
    assert [note["text"] for note in shown["notes"]] == ["seen in B too", "again in A"]
    listed = json.loads(cli(a, home, "list", "--json").stdout)["lessons"]
    assert [lesson["id"] for lesson in listed] == [first, second]  # the updated one is newest
