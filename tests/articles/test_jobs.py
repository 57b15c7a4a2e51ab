"""Article jobs against their faults (issue 10): a write that fails midway leaves nothing."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
from article_helpers import HAND_ID

from reckoner.articles.jobs import JobRequest, JobRunner
from reckoner.articles.writers.choose import writer_for
from reckoner.host import files as host_files
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive


def runner(home: Path) -> JobRunner:
    return JobRunner(RecordArchive(HomeLayout(home)), writer_for)


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_a_full_disk_on_the_second_file_fails_the_job_and_leaves_nothing(
    home: Path, out: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    real = host_files.write_all
    calls = {"n": 0}

    def filling_up(fd: int, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            # The disk fills after the article, halfway through its audit sidecar.
            real(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd, data)

    monkeypatch.setattr(host_files, "write_all", filling_up)
    job = runner(home).run(JobRequest(HAND_ID, fmt, str(out)))
    assert job.status == "failed"
    assert job.error is not None and "No space left on device" in job.error
    assert job.error.count(". ") == 0 or job.error.endswith(".")
    assert list(out.iterdir()) == []


def test_a_taken_name_gets_the_next_number_and_a_file_there_survives(home: Path, out: Path) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    (out / "reckoner-17000000.md").write_text("mine")
    (out / "reckoner-17000000-2.audit.json").write_text("{}")
    (out / "reckoner-17000000-3").mkdir()  # a LaTeX folder name taken by a folder
    first = runner(home).run(JobRequest(HAND_ID, "markdown", str(out)))
    assert first.path == str(out / "reckoner-17000000-3.md")
    assert (out / "reckoner-17000000.md").read_text() == "mine"
    folder = runner(home).run(JobRequest(HAND_ID, "latex", str(out)))
    assert folder.path == str(out / "reckoner-17000000" / "reckoner-17000000.tex")
    again: Any = runner(home).run(JobRequest(HAND_ID, "latex", str(out)))
    assert again.path == str(out / "reckoner-17000000-2" / "reckoner-17000000-2.tex")
    assert (out / "reckoner-17000000-2" / "reckoner-17000000-2.audit.json").is_file()


@pytest.mark.tex
def test_progress_passes_through_every_phase_in_order(home: Path, out: Path) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    seen: list[tuple[str, int]] = []
    runner(home).run(
        JobRequest(HAND_ID, "latex", str(out), compile=True),
        lambda job: seen.append((job.phase, job.percent)),
    )
    phases = [phase for phase, _ in seen]
    assert phases[:4] == ["prepare", "generate", "write", "compile"]
    percents = [percent for _, percent in seen]
    assert percents == sorted(percents) and percents[-1] == 100


def test_a_job_killed_mid_compile_leaves_nothing_once_the_next_job_runs(
    tmp_path: Path, out: Path
) -> None:
    """A SIGKILLed `reckoner article` cannot clean up; its temporaries carry its pid, and the
    next job in that folder removes those of processes that are gone.
    Spec: docs/guide/articles.md (article generation)."""
    import json
    import signal
    import subprocess
    import sys
    import time

    home = tmp_path / "big-home"
    rows = [{"seq": 1, "at": 1, "tool": "record_start", "ok": True,
             "content": {"title": "long", "record": "1700000000009"}}]  # fmt: skip
    for seq in range(2, 3000):
        rows.append(
            {"seq": seq, "at": seq, "tool": "eval", "ok": True,
             "content": {"formula": "@a + 1", "target": f"x{seq}", "rev": 1,
                         "vars": {"a": {"num": seq, "dim": [0] * 7}},
                         "result": {"num": seq + 1, "dim": [0] * 7}}}
        )  # fmt: skip
    rows.append({"seq": 3000, "at": 3000, "tool": "record_end", "ok": True, "content": {}})
    from article_helpers import write_record

    write_record(home, "1700000000009", rows)
    child = subprocess.Popen(
        [sys.executable, "-m", "reckoner", "article", "1700000000009", "--home", str(home),
         "--out", str(out), "--format", "tex", "--compile"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(".part") for p in out.iterdir()):
        assert time.monotonic() < deadline and child.poll() is None, "no temporary appeared"
        time.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert [p.name for p in out.iterdir() if p.name.endswith(".part")]  # left behind
    job = runner(home).run(JobRequest("1700000000009", "markdown", str(out)))
    assert job.status == "done"
    assert sorted(p.name for p in out.iterdir()) == [
        "reckoner-17000000.audit.json",
        "reckoner-17000000.md",
    ]
    assert json.loads((out / "reckoner-17000000.audit.json").read_text())["unmatched"] == []
