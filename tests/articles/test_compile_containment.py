"""Issue 21 case 3 (articles): SIGKILL during `reckoner article --compile` orphans nothing.

A fake `latexmk` early on PATH starts a child and a `setsid` child and sleeps, so the test
needs no TeX; the real CLI runs it through the process owner, and is killed mid-compile.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

from article_helpers import HAND_ID

from process_census import new_marker, wait_until_none_with, wait_until_some_with


def _fake_tex(folder: Path, marker: str) -> None:
    folder.mkdir()
    scripts = {
        "latexmk": f"#!/bin/sh\nsleep {marker} &\nsetsid sleep {marker} &\nsleep {marker}\n",
        "xelatex": "#!/bin/sh\nexit 0\n",
    }
    for name, text in scripts.items():
        path = folder / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_sigkill_during_article_compile_kills_latexmk_and_its_children(
    home: Path, out: Path, tmp_path: Path
) -> None:
    """Issue 21 case 3: latexmk and what it started die with the CLI that ran it."""
    marker = new_marker()
    fake = tmp_path / "fake-tex"
    _fake_tex(fake, marker)
    path = os.pathsep.join([str(fake), str(Path(sys.executable).parent), os.environ["PATH"]])
    cli = subprocess.Popen(
        [sys.executable, "-m", "reckoner", "article", HAND_ID, "--home", str(home),
         "--out", str(out), "--format", "tex", "--compile"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PATH": path},
    )  # fmt: skip
    try:
        # latexmk's two children and its own sleep; latexmk itself names the fake folder.
        assert len(wait_until_some_with(marker, 3, seconds=60)) == 3
        assert wait_until_some_with(str(fake / "latexmk"), 1)
        os.kill(cli.pid, signal.SIGKILL)
        cli.wait(timeout=10)
        assert wait_until_none_with(marker, 5.0) == []
        assert wait_until_none_with(str(fake / "latexmk"), 1.0) == []
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait(timeout=10)
