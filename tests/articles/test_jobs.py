"""Article jobs against their faults (issue 10): a write that fails midway leaves nothing."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
from article_helpers import HAND_ID

from reckoner.articles import files
from reckoner.articles.jobs import JobRequest, JobRunner
from reckoner.articles.writers.choose import writer_for
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_store import RecordArchive


def runner(home: Path) -> JobRunner:
    return JobRunner(RecordArchive(HomeLayout(home)), writer_for)


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_10_a_full_disk_on_the_second_file_fails_the_job_and_leaves_nothing(
    home: Path, out: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = files._write_new
    calls = {"n": 0}

    def filling_up(path: Path, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            # The disk fills after the article, before its audit sidecar.
            with open(path, "xb") as handle:
                handle.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(path, data)

    monkeypatch.setattr(files, "_write_new", filling_up)
    job = runner(home).run(JobRequest(HAND_ID, fmt, str(out)))
    assert job.status == "failed"
    assert job.error is not None and "No space left on device" in job.error
    assert job.error.count(". ") == 0 or job.error.endswith(".")
    assert list(out.iterdir()) == []


def test_10_a_taken_name_gets_the_next_number_and_a_file_there_survives(
    home: Path, out: Path
) -> None:
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


def test_10_progress_passes_through_every_phase_in_order(home: Path, out: Path) -> None:
    seen: list[tuple[str, int]] = []
    runner(home).run(
        JobRequest(HAND_ID, "latex", str(out), compile=True),
        lambda job: seen.append((job.phase, job.percent)),
    )
    phases = [phase for phase, _ in seen]
    assert phases[:4] == ["prepare", "generate", "write", "compile"]
    percents = [percent for _, percent in seen]
    assert percents == sorted(percents) and percents[-1] == 100
