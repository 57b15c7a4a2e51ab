"""The one module that starts child processes for the whole package.

Every child runs under a warden (``reckoner/host/warden.py``, a stdlib-only script): a
child subreaper that holds the read end of a pipe from this process. The child's whole
tree, descendants that called ``setsid`` or double-forked included, dies when the leader
exits, at the deadline, on cancellation, when a stream passes its byte cap, and when this
process dies in any way (the pipe reaches end of file). The child's stdout and stderr are
streamed into files (the caller's sinks, else temporary files read back), so memory stays
bounded and what was written before a crash is kept. The child's environment is built from
an allow-list, never by removing names. See docs/decisions/processes.md.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, BinaryIO

from reckoner.contract.limits import MAX_STREAM_BYTES

__all__ = [
    "BASE_ENVIRONMENT",
    "MAX_STREAM_BYTES",
    "Cancel",
    "Completed",
    "RunSpec",
    "child_environment",
    "kill_running",
    "network_isolation",
    "run",
    "start_detached",
    "which",
]

BASE_ENVIRONMENT = (
    "PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM", "USER", "LOGNAME", "SHELL",
)  # fmt: skip
"""The variables every child gets (with every ``LC_*``); a feature names any more it needs."""

_LOCALE_PREFIX = "LC_"
_WARDEN = str(Path(__file__).with_name("warden.py"))
# Past the child's own deadline: the warden's start, its kill rounds and its final drain.
_WARDEN_GRACE_S = 15.0
_CANCEL_POLL_S = 0.05
_STOP_WARDEN_S = 2.0
_DETACHED_REAP_S = 60.0

Cancel = threading.Event | Callable[[], bool] | None


@dataclass(frozen=True, slots=True)
class Completed:
    """What one process did. ``spawned`` is False when it could not be started at all.

    ``overflowed`` names the stream (``stdout`` or ``stderr``) that passed its byte cap, so
    the run was stopped; ``cancelled`` says the caller (or the server's shutdown) stopped
    it; ``survivors`` says a descendant could not be killed within the warden's rounds.
    """

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
    cancelled: bool = False
    overflowed: str | None = None
    survivors: bool = False


@dataclass(frozen=True, slots=True)
class RunSpec:
    """How one child runs: where, under which deadline and output cap, with which
    environment, fed from ``stdin`` and written into which sinks, cancelled by what.

    The environment is :func:`child_environment` of ``env``, ``names`` and ``values``. With
    ``stdout``/``stderr`` files the output is streamed into them (the same file may be given
    for both); otherwise it comes back in ``Completed``. ``isolate_network`` runs without
    network or not at all: where no isolation is available the child is not started.
    """

    cwd: str
    timeout_ms: int
    stdin: str | None = None
    isolate_network: bool = False
    env: Mapping[str, str] | None = None
    names: Iterable[str] = ()
    values: Mapping[str, str] | None = None
    stdout: BinaryIO | None = None
    stderr: BinaryIO | None = None
    max_stream_bytes: int = MAX_STREAM_BYTES
    cancel: Cancel = None


@dataclass(frozen=True, slots=True)
class _Streams:
    """The warden's (and so the child's) stdout and stderr sinks and its stdin."""

    out: IO[bytes]
    err: IO[bytes]
    feed: IO[bytes] | int


def child_environment(
    source: Mapping[str, str] | None = None,
    names: Iterable[str] = (),
    values: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment a child gets: only the allowed names of ``source`` (ours by default),
    those in ``names``, then ``values`` set explicitly."""
    env = os.environ if source is None else source
    allowed = {*BASE_ENVIRONMENT, *names}
    chosen = {
        key: value for key, value in env.items() if key in allowed or key.startswith(_LOCALE_PREFIX)
    }
    chosen.update(values or {})
    return chosen


def which(name: str, path: str | None = None) -> str | None:
    """A program on PATH (or the given search path), as the spawner will find it."""
    return shutil.which(name, path=path)


@cache
def network_isolation() -> tuple[str, ...] | None:
    """The launcher prefix that runs a program without network here, or None.

    Tried once per process: ``unshare -n`` (as root), else ``unshare -rn`` (a user
    namespace). Either must really start a program before it is trusted.
    """
    unshare = which("unshare")
    if unshare is None:
        return None
    true = which("true") or "/bin/true"
    for prefix in ((unshare, "-n", "--"), (unshare, "-rn", "--")):
        if run([*prefix, true], RunSpec(cwd="/", timeout_ms=5000)).exit == 0:
            return prefix
    return None


_RUNNING: dict[int, int] = {}  # control pipe's write end -> the warden's pid
_RUNNING_LOCK = threading.Lock()


def kill_running() -> int:
    """Stop every run still under way (the server is going away); how many were told.

    Each warden kills its whole tree and reports the run as cancelled to its caller.
    """
    # Under the lock: a control pipe is closed (and its number free for reuse) only under it.
    with _RUNNING_LOCK:
        for control in _RUNNING:
            with contextlib.suppress(OSError):
                os.write(control, b"c")
        return len(_RUNNING)


def _cancel_check(cancel: Cancel) -> Callable[[], bool] | None:
    if cancel is None:
        return None
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


def _not_started(argv: list[str], cwd: str, started: float, why: str) -> Completed:
    return Completed(
        argv,
        cwd,
        spawned=False,
        exit=None,
        timed_out=False,
        stdout=b"",
        stderr=b"",
        duration_ms=(time.perf_counter() - started) * 1000,
        spawn_error=why,
    )


def run(argv: Sequence[str], spec: RunSpec) -> Completed:
    """Run argv as ``spec`` says, to its end, its deadline, its output cap or its
    cancellation; never raises for the child's faults, and leaves no process of its tree
    behind."""
    argv = list(argv)
    started = time.perf_counter()
    prefix = network_isolation() if spec.isolate_network else None
    if spec.isolate_network and prefix is None:
        return _not_started(
            argv, spec.cwd, started, "network isolation (unshare -n or -rn) is unavailable here"
        )
    spawned_argv = [*prefix, *argv] if prefix else argv
    cap = spec.max_stream_bytes
    with contextlib.ExitStack() as stack:
        out = _sink(stack, spec.stdout)
        err = _sink(stack, spec.stderr)
        streams = _Streams(out, err, _stdin_file(stack, spec.stdin))
        for sink in (out, err):
            sink.flush()
        environment = child_environment(spec.env, spec.names, spec.values)
        report = _Warden.start(spawned_argv, spec, streams, environment)
        if isinstance(report, str):
            return _not_started(spawned_argv, spec.cwd, started, report)
        facts = report.wait(spec.timeout_ms / 1000 + _WARDEN_GRACE_S, _cancel_check(spec.cancel))
        captured_out = _read_back(out, cap) if spec.stdout is None else b""
        captured_err = _read_back(err, cap) if spec.stderr is None else b""
    if "error" in facts:
        return _not_started(spawned_argv, spec.cwd, started, facts["error"])
    ended = facts.get("ended", "lost")
    exit_text = facts.get("exit")
    return Completed(
        spawned_argv,
        spec.cwd,
        spawned=True,
        exit=int(exit_text) if exit_text is not None else None,
        timed_out=ended == "timeout",
        stdout=captured_out,
        stderr=captured_err,
        duration_ms=float(facts.get("ms", (time.perf_counter() - started) * 1000)),
        network_enforced=prefix is not None,
        cancelled=ended in ("cancel", "lost"),
        overflowed=facts.get("overflowed"),
        survivors="survivors" in facts,
    )


def _sink(stack: contextlib.ExitStack, given: BinaryIO | None) -> IO[bytes]:
    """The caller's sink, else a temporary file the stack closes (read back at the end)."""
    return given if given is not None else stack.enter_context(tempfile.TemporaryFile())


def _stdin_file(stack: contextlib.ExitStack, stdin: str | None) -> IO[bytes] | int:
    """The child's stdin: a temporary file holding ``stdin`` (no pipe to keep fed), or null."""
    if stdin is None:
        return subprocess.DEVNULL
    feed = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115 - the stack closes it
    feed.write(stdin.encode("utf-8"))
    feed.seek(0)
    return feed


def _read_back(sink: IO[bytes], limit: int) -> bytes:
    sink.seek(0)
    return sink.read(limit)


class _Warden:
    """One started warden: its control pipe's write end and its report pipe's read end."""

    def __init__(self, process: subprocess.Popen[bytes], control: int, report: int) -> None:
        self.process = process
        self.control = control
        self.report = report

    @classmethod
    def start(
        cls, argv: list[str], spec: RunSpec, streams: _Streams, env: dict[str, str]
    ) -> _Warden | str:
        """A running warden over argv, or the sentence why it could not start."""
        control_read, control_write = os.pipe()
        report_read, report_write = os.pipe()
        command = [
            sys.executable, "-I", "-S", _WARDEN, str(control_read), str(report_write),
            str(max(int(spec.timeout_ms), 1)), str(max(int(spec.max_stream_bytes), 0)),
            spec.cwd, "--", *argv,
        ]  # fmt: skip
        try:
            # Registered before the fork so a shutdown in between still reaches it.
            with _RUNNING_LOCK:
                _RUNNING[control_write] = 0
            process = subprocess.Popen(
                command,
                stdin=streams.feed,
                stdout=streams.out,
                stderr=streams.err,
                env=env,
                pass_fds=(control_read, report_write),
                start_new_session=True,  # a terminal's ^C reaches the server, not the tree
            )
        except OSError as error:
            with _RUNNING_LOCK:
                _RUNNING.pop(control_write, None)
                os.close(control_write)
            os.close(report_read)
            return f"{type(error).__name__}: {error.strerror or error}"
        finally:
            os.close(control_read)
            os.close(report_write)
        with _RUNNING_LOCK:
            _RUNNING[control_write] = process.pid
        return cls(process, control_write, report_read)

    def wait(self, limit_s: float, cancelled: Callable[[], bool] | None) -> dict[str, str]:
        """The warden's report, read by ``limit_s`` at most; a warden past it is killed
        (closing its control pipe makes it kill the tree if it still can)."""
        deadline = time.monotonic() + limit_s
        chunks: list[bytes] = []
        told = False
        try:
            while (left := deadline - time.monotonic()) > 0:
                tick = min(left, _CANCEL_POLL_S) if cancelled and not told else left
                ready, _, _ = select.select([self.report], [], [], tick)
                if ready:
                    chunk = os.read(self.report, 4096)
                    if not chunk:
                        break
                    chunks.append(chunk)
                elif cancelled is not None and not told and cancelled():
                    with contextlib.suppress(OSError):
                        os.write(self.control, b"c")
                    told = True
        finally:
            with _RUNNING_LOCK:
                _RUNNING.pop(self.control, None)
                os.close(self.control)
            os.close(self.report)
            self._stop()
        return _facts(b"".join(chunks))

    def _stop(self) -> None:
        try:
            self.process.wait(timeout=_STOP_WARDEN_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=_STOP_WARDEN_S)


def _facts(text: bytes) -> dict[str, str]:
    facts: dict[str, str] = {}
    for line in text.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        facts[key] = value
    return facts


def start_detached(argv: Sequence[str], *, names: Iterable[str] = ()) -> str | None:
    """Hand ``argv`` to the desktop (a file opener): its own session, no output, an
    allow-listed environment, no deadline and no tree kill, since what it opens belongs to
    the user, not to a run. None when started, else the sentence why it was not."""
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=child_environment(None, names),
            start_new_session=True,
        )
    except OSError as error:
        return error.strerror or type(error).__name__

    def reap() -> None:  # the opener hands off and exits; a hung one is left to the OS
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=_DETACHED_REAP_S)

    threading.Thread(target=reap, name="reap-opener", daemon=True).start()
    return None
