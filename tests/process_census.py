"""Finding a test's processes in /proc by a marker in their command line (issue 21).

The marker is new for each test, so the count holds while other tests, other pytest-xdist
workers or other users run processes on the same machine: only the test's own are counted,
those that left its process tree by ``setsid`` or a double fork included."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path


def new_marker() -> str:
    """A sleep length no other process on the machine is using: ``333.<12 digits>``."""
    return f"333.{uuid.uuid4().int % 10**12:012d}"


def living_with(marker: str) -> list[int]:
    """Processes (not zombies) whose command line holds ``marker``, this one excluded."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in command and state not in (b"Z", b"X"):
            found.append(int(entry.name))
    return found


def wait_until_none_with(marker: str, seconds: float = 5.0) -> list[int]:
    """The processes still holding ``marker`` after waiting up to ``seconds`` for none."""
    deadline = time.monotonic() + seconds
    while (left := living_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def wait_until_some_with(marker: str, count: int, seconds: float = 20.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while len(found := living_with(marker)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def escaping_script(marker: str, then: str) -> str:
    """A Python script that starts a ``setsid sleep`` and a double-fork daemon (both out of
    its process group), then does ``then``."""
    return (
        "import os, subprocess, sys, time\n"
        f"subprocess.Popen(['setsid', 'sleep', '{marker}'])\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        os.execvp('sleep', ['sleep', '{marker}'])\n"
        "    os._exit(0)\n"
        "os.wait()\n"
        "print('started', flush=True)\n"
        f"{then}\n"
    )
