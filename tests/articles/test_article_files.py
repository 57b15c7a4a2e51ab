"""Issue 21, case 9's sweep: `reckoner article` into a folder removes only the temporaries
this program left behind (its marker, this user, a process that is gone), never a file that
merely looks stale."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from article_helpers import HAND_ID

from reckoner.host.files import TEMPORARY_PREFIX, TEMPORARY_SUFFIX


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _start_time(pid: int) -> str:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rfind(")") + 2 :].split()[19]


def _ours(pid: int, start: str, tail: str = "0123456789ab") -> str:
    return f"{TEMPORARY_PREFIX}{pid}-{start}-{tail}{TEMPORARY_SUFFIX}"


def _article(home: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reckoner", "article", HAND_ID, "--home", str(home),
         "--out", str(out), "--format", "md"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_the_sweep_removes_only_our_stale_temporaries_and_a_foreign_lookalike_survives(
    home: Path, out: Path
) -> None:
    """Case 9: the sweep once deleted any `.<x>.<deadpid>.<n>.part`, whoever made it. Now a
    lookalike file or folder, our marker under another uid, and a live job's temporary stay;
    our own temporaries of a gone process (a dead pid, or a reused one) go."""
    dead = _dead_pid()
    foreign = out / f".x.{dead}.1.part"
    foreign.write_text("someone else's half-written file")
    foreign_folder = out / f".thesis.{dead}.7.part"
    foreign_folder.mkdir()
    (foreign_folder / "chapter.tex").write_text("keep me")
    stale = out / _ours(dead, "12345")
    stale.write_text("ours, from a killed job")
    stale_folder = out / _ours(dead, "12345", "ba9876543210")
    stale_folder.mkdir()
    (stale_folder / "reckoner-1.tex").write_text("ours too")
    other_user = out / _ours(dead, "12345", "aaaaaaaaaaaa")
    other_user.write_text("another user's, same marker")
    os.chown(other_user, 54321, 54321)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        running = out / _ours(sleeper.pid, _start_time(sleeper.pid))
        running.write_text("a job still writing")
        reused = out / _ours(sleeper.pid, "1", "bbbbbbbbbbbb")  # the pid, another process
        reused.write_text("ours, its process long gone; the pid was reused")

        written = _article(home, out)
        assert written.returncode == 0, written.stderr

        names = {p.name for p in out.iterdir()}
        assert {foreign.name, foreign_folder.name, other_user.name, running.name} <= names
        assert (foreign_folder / "chapter.tex").read_text() == "keep me"
        assert not ({stale.name, stale_folder.name, reused.name} & names)
        assert "reckoner-17000000.md" in names
    finally:
        sleeper.kill()
        sleeper.wait()
