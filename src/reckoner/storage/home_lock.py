"""One engine per lane: an exclusive ``flock`` on the lane's lock file.

A home has up to ``MAX_LANES`` lanes, each with its own open record and lock (see
``home``). ``flock`` belongs to the open file, so a second engine in the same process is
refused a held lane as firmly as another process, and the kernel drops the lock when its
holder dies (even by SIGKILL): there is never a stale lock to clean up by hand.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from types import TracebackType

from reckoner.storage.home import MAX_LANES, HomeError, HomeLayout


class HomeLockedError(HomeError):
    """Another engine holds this lane (or every lane); the message names the pid and fix."""

    def __init__(self, message: str, holder_pid: int | None) -> None:
        super().__init__(message)
        self.holder_pid = holder_pid


class HomeLock:
    """A held home lock; ``release()`` (or leaving the ``with`` block) gives it back."""

    def __init__(self, layout: HomeLayout, fd: int) -> None:
        self.layout = layout
        self._fd: int | None = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            # Clear the pid while still holding the lock, so no later holder's pid is erased.
            os.ftruncate(fd, 0)
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __enter__(self) -> HomeLock:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()


def acquire_lane(home: HomeLayout, lane: int | None = None) -> HomeLock:
    """Take a lane of ``home``: ``lane`` itself, or else the one that decides predictably.

    With no lane asked for, the lowest-numbered lane whose open record nobody holds is
    taken first (that is how a crashed or restarted session resumes, docs/guide/records.md); with no
    such record, the lowest free lane. ``HomeLockedError`` when the asked lane is held or
    all ``MAX_LANES`` are.
    """
    if lane is not None:
        return acquire_home_lock(home.for_lane(lane))
    tried: set[int] = set()
    for candidates in (home.lanes_with_open_files(), range(1, MAX_LANES + 1)):
        for candidate in candidates:
            if candidate in tried:
                continue
            tried.add(candidate)
            try:
                return acquire_home_lock(home.for_lane(candidate))
            except HomeLockedError:
                continue
    raise HomeLockedError(
        f"all {MAX_LANES} lanes of the home {home.root} are held by running engines (the "
        f"limit on engines sharing one home); stop one of them or pass another --home",
        None,
    )


def acquire_home_lock(layout: HomeLayout) -> HomeLock:
    """Take the lane ``layout`` names, or raise ``HomeLockedError`` naming the holder's pid."""
    path = layout.lock_file
    try:
        if layout.lane != 1:
            layout.lanes_dir.mkdir(exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise HomeError(
            f"the lock file {path} cannot be opened ({error.strerror or error}); "
            "make the home writable or pass another --home"
        ) from error
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _read_pid(fd)
        os.close(fd)
        raise HomeLockedError(_refusal(layout, holder), holder) from None
    except OSError as error:
        os.close(fd)
        raise HomeError(
            f"the home {layout.root} cannot be locked ({error.strerror or error}); "
            "use a home on a local file system or pass another --home"
        ) from error
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass  # the lock itself holds; the pid is only there to name the holder
    return HomeLock(layout, fd)


def held_lanes(home: HomeLayout) -> list[tuple[int, int | None]]:
    """(lane, holder's pid) of every lane a running engine holds now, in lane order, for
    ``reckoner doctor``. Read-only: a lock file is opened only when it exists, and probed
    with a shared ``flock`` released at once; an engine taking that lane in the same instant
    finds it in use and takes the next (or, pinned, says so), as when two start together."""
    held: list[tuple[int, int | None]] = []
    for lane in range(1, MAX_LANES + 1):
        try:
            fd = os.open(home.for_lane(lane).lock_file, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            held.append((lane, _read_pid(fd)))
        except OSError:
            pass  # a file system without flock: nothing to say about this lane
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    return held


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _refusal(layout: HomeLayout, holder: int | None) -> str:
    where = f"lane {layout.lane} of the home {layout.root}"
    if holder is None:
        who = "another reckoner process"
    elif holder == os.getpid():
        return (
            f"{where} is in use by another engine in this process (pid {holder}); "
            "close that engine first, ask for another lane, or leave the lane unset"
        )
    else:
        who = f"another reckoner process (pid {holder})"
    return (
        f"{where} is in use by {who}; stop it, ask for another lane, or leave the lane unset "
        "to take a free one"
    )


@contextlib.contextmanager
def home_wide(path: os.PathLike[str] | str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` for a short section every process serialises.

    On a home that turned read-only the lock file is opened for reading (``flock`` needs no
    write access); when it cannot be opened at all, the section runs unlocked, since the
    write it guards cannot happen either and reports its own cause.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            yield
            return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
