"""The only module that starts processes for compute.

Each process runs in its own process group, so a timeout kills the engine and everything it
started; whatever it wrote before is kept. The child's environment never carries this
program's own variables or a provider's key. Where the machine allows a network namespace
(``unshare``), a run can go without network, and says so only when that is true.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import BinaryIO

_OWN_PREFIXES = ("RECKONER_",)
_SECRET_NAMES = re.compile(r"^(?:.*_API_KEY|.*_TOKEN)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Completed:
    """What one process did. ``spawned`` is False when it could not be started at all."""

    argv: list[str]
    cwd: str
    spawned: bool
    exit: int | None
    timed_out: bool
    stdout: bytes
    stderr: bytes
    duration_ms: float
    spawn_error: str | None = None
    network_enforced: bool = False


def child_environment(source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a child gets: ours, less our own variables and every provider key."""
    env = dict(os.environ if source is None else source)
    return {
        key: value
        for key, value in env.items()
        if not key.upper().startswith(_OWN_PREFIXES) and not _SECRET_NAMES.match(key)
    }


@cache
def network_isolation() -> tuple[str, ...] | None:
    """The launcher prefix that runs a program without network here, or None.

    Tried once per process: ``unshare -n`` (as root), else ``unshare -rn`` (a user
    namespace). Either must really start a program before it is trusted.
    """
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    for prefix in ((unshare, "-n", "--"), (unshare, "-rn", "--")):
        true = shutil.which("true") or "/bin/true"
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            done = subprocess.run(
                [*prefix, true],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=5,
                check=False,
            )
            if done.returncode == 0:
                return prefix
    return None


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()


_RUNNING: set[int] = set()
_RUNNING_LOCK = threading.Lock()


def kill_running() -> int:
    """Kill every process group still running (the server is going away); how many."""
    with _RUNNING_LOCK:
        groups = list(_RUNNING)
    for group in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
    return len(groups)


def run(
    argv: Sequence[str],
    *,
    cwd: str,
    timeout_ms: int,
    stdin: str | None = None,
    isolate_network: bool = False,
    env: Mapping[str, str] | None = None,
    stdout: BinaryIO | None = None,
    stderr: BinaryIO | None = None,
) -> Completed:
    """Run argv to completion or to its time limit; never raises for the child's faults.

    With ``stdout``/``stderr`` files the child writes straight into them (nothing is held
    in memory, and a crash of this process leaves what was written); otherwise the output
    comes back in ``Completed``.
    """
    argv = list(argv)
    prefix = network_isolation() if isolate_network else None
    spawned_argv = [*prefix, *argv] if prefix else argv
    started = time.perf_counter()
    try:
        process = subprocess.Popen(
            spawned_argv,
            cwd=cwd,
            env=child_environment(env),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=stdout if stdout is not None else subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.PIPE,
            start_new_session=True,  # its own process group: a timeout kills all of it
        )
    except OSError as error:
        return Completed(
            spawned_argv,
            cwd,
            spawned=False,
            exit=None,
            timed_out=False,
            stdout=b"",
            stderr=b"",
            duration_ms=(time.perf_counter() - started) * 1000,
            spawn_error=f"{type(error).__name__}: {error.strerror or error}",
        )
    with _RUNNING_LOCK:
        _RUNNING.add(process.pid)
    data = stdin.encode("utf-8") if stdin is not None else None
    timed_out = False
    try:
        if stdout is not None and stderr is not None:
            # Nothing to read: wait in one blocking call and let a timer enforce the limit
            # (wait with a timeout polls with growing sleeps, which adds milliseconds).
            fired = threading.Event()

            def expire() -> None:
                fired.set()
                _kill_group(process)

            timer = threading.Timer(timeout_ms / 1000, expire)
            timer.start()
            try:
                out, err = process.communicate(data)
            finally:
                timer.cancel()
            timed_out = fired.is_set()
        else:
            out, err = process.communicate(data, timeout=timeout_ms / 1000)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(process)
        # communicate() keeps what it read before the timeout and collects the rest.
        try:
            out, err = process.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a grandchild escaped the group and holds a pipe
            out, err = b"", b""
    finally:
        # A finished leader may leave children behind in its group; they go with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with _RUNNING_LOCK:
            _RUNNING.discard(process.pid)
    duration = (time.perf_counter() - started) * 1000
    code = process.returncode
    return Completed(
        spawned_argv,
        cwd,
        spawned=True,
        exit=None if timed_out else code,
        timed_out=timed_out,
        stdout=out or b"",
        stderr=err or b"",
        duration_ms=duration,
        network_enforced=prefix is not None,
    )


def which(name: str, path: str | None = None) -> str | None:
    """A program on PATH (or the given search path), as the spawner will find it."""
    return shutil.which(name, path=path)
