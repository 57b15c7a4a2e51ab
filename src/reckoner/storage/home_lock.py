"""One engine per home: an exclusive ``flock`` on ``<home>/.lock``.

``flock`` belongs to the open file, so a second engine in the same process is refused as
firmly as another process, and the kernel drops the lock when its holder dies (even by
SIGKILL): there is never a stale lock to clean up by hand.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from types import TracebackType

from reckoner.storage.home import HomeError, HomeLayout


class HomeLockedError(HomeError):
    """Another engine holds this home; the message names its pid and the home."""

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


def acquire_home_lock(layout: HomeLayout) -> HomeLock:
    """Take the home, or raise ``HomeLockedError`` naming the holder's pid."""
    path = layout.lock_file
    try:
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


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _refusal(layout: HomeLayout, holder: int | None) -> str:
    if holder is None:
        who = "another reckoner process"
    elif holder == os.getpid():
        return (
            f"the home {layout.root} is in use by another engine in this process (pid {holder}); "
            "close that engine first or pass another --home"
        )
    else:
        who = f"another reckoner process (pid {holder})"
    return f"the home {layout.root} is in use by {who}; stop it or pass another --home"
