"""`reckoner doctor` (issue 25): one screen for a bug report, on healthy and broken homes, run
as the real command; it reports what is wrong and never raises."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from reckoner import Engine, __version__
from reckoner.host.extras import EXTRAS
from reckoner.providers.config import KEY_VARIABLES
from small_disk import fill, small_disk

SECRET = "sk-test-SECRET"


def doctor(home: Path, *flags: str, env: dict[str, str] | None = None) -> str:
    import os

    done = subprocess.run(
        [sys.executable, "-m", "reckoner", "doctor", "--home", str(home), *flags],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "120", **(env or {})},
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    if "--json" in flags:
        return done.stdout
    return " ".join(done.stdout.split())  # the table wraps long lines at spaces


def report(home: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    facts: dict[str, Any] = json.loads(doctor(home, "--json", env=env))
    return facts


def _home_with_records(home: Path) -> None:
    with Engine(home=home) as engine:
        engine.call("record_start", {"title": "closed one"})
        engine.call("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})
        engine.call("record_end", {"text": "done"})
        engine.call("record_start", {"title": "left open"})


def test_doctor_on_a_healthy_home_counts_its_records_and_finds_no_problem(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _home_with_records(home)
    facts = report(home)
    assert facts["version"] == __version__
    assert set(facts["extras"]) == set(EXTRAS)
    assert all(extra["installed"] for extra in facts["extras"].values())
    assert facts["engines"]["python"]
    assert {"latexmk", "xelatex", "chromium", "pdftoppm"} <= set(facts["programs"])
    state = facts["home"]
    assert state["path"] == str(home)
    assert state["closedRecords"] == 1
    assert [entry["lane"] for entry in state["openRecords"]] == [1]
    assert state["unreadableRecords"] == []
    assert state["freeBytes"] > 0
    assert state["problems"] == []
    screen = doctor(home)
    assert f"reckoner doctor {__version__}" in screen
    assert "health" in screen and "ok" in screen
    assert "problem" not in screen


def test_doctor_names_the_lanes_running_engines_hold_and_their_pids(tmp_path: Path) -> None:
    import os

    home = tmp_path / "home"
    _home_with_records(home)
    assert report(home)["home"]["lanesInUse"] == []
    with Engine(home=home) as first, Engine(home=home) as second:
        first.call("get", {"name": "V"})
        second.call("get", {"name": "V"})
        facts = report(home)
        screen = doctor(home)
    assert facts["home"]["lanesInUse"] == [
        {"lane": 1, "pid": os.getpid()},
        {"lane": 2, "pid": os.getpid()},
    ]
    assert f"lane 1 (pid {os.getpid()})" in screen
    assert report(home)["home"]["lanesInUse"] == []


def test_doctor_reports_an_unreadable_record_and_a_corrupt_state_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _home_with_records(home)
    (home / "records" / "1700000000000.jsonl").write_bytes(b"\x00\xffnot a record\n")
    (home / "state.json").write_text("{not json", "utf-8")
    facts = report(home)
    state = facts["home"]
    assert state["unreadableRecords"] == ["1700000000000"]
    assert state["closedRecords"] == 1
    assert any("1700000000000" in problem for problem in state["problems"])
    assert any("state.json is not valid JSON" in problem for problem in state["problems"])
    screen = doctor(home)
    assert "not valid JSON" in screen and "1700000000000" in screen


def test_doctor_on_a_home_that_is_a_file_says_so_and_still_reports_the_rest(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.write_text("a file, not a home", "utf-8")
    facts = report(home)
    assert any("is a file, not a directory" in p for p in facts["home"]["problems"])
    assert facts["version"] == __version__ and facts["engines"]["python"]
    assert "is a file" in doctor(home)


def test_doctor_on_a_home_whose_parts_are_the_wrong_kind_reports_each(tmp_path: Path) -> None:
    """records/ a file and state.json a directory: each named, and nothing raises."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "records").write_text("not a directory", "utf-8")
    (home / "state.json").mkdir()
    facts = report(home)
    problems = " ".join(facts["home"]["problems"])
    assert "records is a file where the home needs a directory" in problems
    assert "state.json cannot be read" in problems
    assert facts["home"]["closedRecords"] == 0


def test_doctor_on_a_home_not_yet_made_creates_nothing(tmp_path: Path) -> None:
    home = tmp_path / "never"
    facts = report(home)
    assert facts["home"]["exists"] is False and facts["home"]["problems"] == []
    assert not home.exists()


def test_doctor_on_a_full_disk_names_the_free_space_problem(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        home = disk / "home"
        _home_with_records(home)
        fill(disk)
        facts = report(home)
    assert facts["home"]["freeBytes"] < 64 * 1024
    assert any("free on the home's disk" in p for p in facts["home"]["problems"])


def test_doctor_names_a_set_key_and_never_prints_its_value(tmp_path: Path) -> None:
    names = [name for names in KEY_VARIABLES.values() for name in names]
    env = dict.fromkeys(names, "")
    env["ANTHROPIC_API_KEY"] = SECRET
    home = tmp_path / "home"
    facts = report(home, env)
    assert facts["keys"]["ANTHROPIC_API_KEY"] == "set"
    assert facts["keys"]["OPENAI_API_KEY"] == "not set"
    screen = doctor(home, env=env)
    as_json = doctor(home, "--json", env=env)
    for output in (screen, as_json):
        assert SECRET not in output and "SECRET" not in output
    assert "ANTHROPIC_API_KEY" in screen
