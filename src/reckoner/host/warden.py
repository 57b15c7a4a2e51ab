"""The warden: a tiny process that stands between the server and one child's whole tree.

Run as a script (``python -I -S warden.py ...``) by :mod:`reckoner.host.processes`, never
imported by the package, so it loads nothing but a few built-in modules and starts fast.
It makes itself a child subreaper, so every descendant that leaves the child's process
group (``setsid``, a double fork) is re-parented to it and can still be found and killed.
It kills the whole tree when the leader exits, at the deadline, on cancellation, when a
stream passes its byte cap, and when the server dies (the control pipe reaches end of file,
whichever way the server went). It streams the child's stdout and stderr into the sink
files it was given (its own fds 1 and 2), so nothing is held in memory.

Command line: ``CONTROL_FD REPORT_FD TIMEOUT_MS CAP_BYTES CWD -- ARGV...``. On the control
pipe a ``c`` byte cancels. The report (one line per fact, ``key value``) goes to REPORT_FD.
"""

from __future__ import annotations

import os
import select
import sys
import time

_PR_SET_CHILD_SUBREAPER = 36
_CHUNK = 65536
_KILL_ROUNDS_S = 5.0  # a fork bomb is given this long to be killed, then the warden reports
_DRAIN_S = 2.0  # what is left in the pipes after the kill is read for this long at most
_SIGKILL = 9


def _become_subreaper() -> bool:
    """``prctl(PR_SET_CHILD_SUBREAPER, 1)`` through ``_ctypes`` itself: the ``ctypes``
    package imports ``types`` and ``struct`` and would add tens of ms to every start."""
    try:
        raw = __import__("_ctypes")
        integer = type("Int", (raw._SimpleCData,), {"_type_": "i"})
        function = type(
            "Function", (raw.CFuncPtr,), {"_flags_": raw.FUNCFLAG_CDECL, "_restype_": integer}
        )
        libc = type("Libc", (), {"_handle": raw.dlopen(None)})
        prctl = function(("prctl", libc()))
        return bool(prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError, ImportError, TypeError):
        return False


def _children_of(root: int) -> list[int]:
    """Every living process below ``root``, from each one's parent in /proc."""
    parents: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents.setdefault(int(fields[1]), []).append(int(name))
    found: list[int] = []
    frontier = [root]
    while frontier:
        below = parents.get(frontier.pop(), [])
        found.extend(below)
        frontier.extend(below)
    return found


class _Tree:
    """The leader and whatever it started; reaps everything and remembers the leader's end."""

    def __init__(self, leader: int) -> None:
        self.leader = leader
        self.status: int | None = None
        self.started = time.monotonic()
        self.ended = self.started

    def reap(self) -> bool:
        """Collect every exited child; True once no child is left at all."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return True
            if pid == 0:
                return False
            if pid == self.leader:
                self.status = status
                self.ended = time.monotonic()

    def kill(self) -> bool:
        """SIGKILL every descendant, round after round, until none is left; True if none is."""
        until = time.monotonic() + _KILL_ROUNDS_S
        me = os.getpid()
        while time.monotonic() < until:
            living = _children_of(me)
            for pid in living:
                try:  # noqa: SIM105 - contextlib would lengthen every child's start
                    os.kill(pid, _SIGKILL)
                except OSError:
                    pass
            if self.reap() and not living:
                return True
            if not living:
                time.sleep(0.001)
        return False


def _report(fd: int, facts: dict[str, str]) -> None:
    text = "".join(f"{key} {value}\n" for key, value in facts.items())
    try:  # noqa: SIM105 - contextlib would lengthen every child's start
        os.write(fd, text.encode("utf-8", "replace"))
    except OSError:
        pass


def _spawn(argv: list[str], cwd: str) -> tuple[int, int, int]:
    """The leader's pid and the read ends of its stdout and stderr pipes."""
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    try:
        os.chdir(cwd)
        pid = os.posix_spawnp(
            argv[0],
            argv,
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, out_write, 1),
                (os.POSIX_SPAWN_DUP2, err_write, 2),
            ],
            setsid=True,
        )
    except BaseException:
        for fd in (out_read, err_read):
            os.close(fd)
        raise
    finally:
        os.close(out_write)
        os.close(err_write)
    return pid, out_read, err_read


class _Streams:
    """The child's two pipes copied into the sinks, each up to the cap."""

    def __init__(self, out_read: int, err_read: int, cap: int) -> None:
        self.sources = {out_read: (1, "stdout"), err_read: (2, "stderr")}
        self.written = {out_read: 0, err_read: 0}
        self.cap = cap
        self.overflowed: str | None = None

    def copy(self, fd: int) -> None:
        """One read from ``fd`` into its sink; a closed pipe is dropped from the sources."""
        try:
            data = os.read(fd, _CHUNK)
        except OSError:
            data = b""
        if not data:
            del self.sources[fd]
            os.close(fd)
            return
        sink, name = self.sources[fd]
        room = self.cap - self.written[fd]
        if len(data) > room and self.overflowed is None:
            self.overflowed = name
        kept = data[: max(room, 0)]
        self.written[fd] += len(kept)
        while kept:
            try:
                kept = kept[os.write(sink, kept) :]
            except OSError:  # a full disk: the rest of this stream is dropped, not retried
                self.written[fd] = self.cap
                break

    def drain(self) -> None:
        """Whatever the killed tree left in the pipes, for a short while at most."""
        until = time.monotonic() + _DRAIN_S
        while self.sources and time.monotonic() < until:
            ready, _, _ = select.select(list(self.sources), [], [], until - time.monotonic())
            for fd in ready:
                self.copy(fd)
        for fd in list(self.sources):
            os.close(fd)
        self.sources.clear()


def _watch(control: int, tree: _Tree, streams: _Streams, timeout_s: float) -> str:
    """How the run ended: exit, timeout, cancel, overflow or orphaned (the server is gone)."""
    deadline = time.monotonic() + timeout_s
    try:
        leader = os.pidfd_open(tree.leader)
    except OSError:
        leader = -1
    while True:
        if tree.status is not None:
            return "exit"
        left = deadline - time.monotonic()
        if left <= 0:
            return "timeout"
        watched = [control, *streams.sources] + ([leader] if leader >= 0 else [])
        # Without a pidfd the leader's end is noticed by a short poll.
        wait = left if leader >= 0 else min(left, 0.02)
        ready, _, _ = select.select(watched, [], [], wait)
        for fd in ready:
            if fd == control:
                signal = os.read(control, 1)
                if not signal:
                    return "orphaned"
                if signal == b"c":
                    return "cancel"
            elif fd == leader:
                os.close(leader)
                leader = -1
            else:
                streams.copy(fd)
                if streams.overflowed is not None:
                    return "overflow"
        tree.reap()


def main(arguments: list[str]) -> int:
    control, report = int(arguments[0]), int(arguments[1])
    timeout_s, cap, cwd = int(arguments[2]) / 1000, int(arguments[3]), arguments[4]
    argv = arguments[6:]
    subreaper = _become_subreaper()
    try:
        pid, out_read, err_read = _spawn(argv, cwd)
    except OSError as error:
        _report(report, {"error": f"{type(error).__name__}: {error.strerror or error}"})
        return 0
    tree = _Tree(pid)
    streams = _Streams(out_read, err_read, cap)
    try:
        ended = _watch(control, tree, streams, timeout_s)
    except BaseException:  # a fault of the warden's own never leaves the tree running
        tree.kill()
        raise
    clean = tree.kill()
    if ended == "orphaned":
        return 0  # nobody is left to read a report
    streams.drain()
    facts = {"ended": ended, "subreaper": "yes" if subreaper else "no"}
    if tree.status is not None and ended == "exit":
        facts["exit"] = str(os.waitstatus_to_exitcode(tree.status))
        facts["ms"] = f"{(tree.ended - tree.started) * 1000:.3f}"
    if streams.overflowed is not None:
        facts["overflowed"] = streams.overflowed
    if not clean:
        facts["survivors"] = "yes"
    _report(report, facts)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
