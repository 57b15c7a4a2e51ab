"""Safe opens of record files: a record path is read only when it is a regular file.

A FIFO, a device, a directory or a symbolic link in a record's place is never followed and
never waited on (issue 8): every open here is no-follow and non-blocking, and checks the
descriptor's own type before anything reads from it. The journal and the archive open
record files only through these helpers.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO


class NotARegularFileError(OSError):
    """A record path names a FIFO, a device, a directory or a symlink: never read or followed."""


# A record path is opened without following a symlink and without waiting on a FIFO's writer.
_SAFE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def open_regular(path: str | Path, flags: int = os.O_RDONLY) -> int:
    """A descriptor on ``path`` when it is a regular file; raise OSError otherwise (issue 8)."""
    try:
        fd = os.open(path, flags | _SAFE_FLAGS)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotARegularFileError(
                errno.ELOOP, "a symbolic link, which is never followed", str(path)
            ) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "a directory", str(path))
        raise NotARegularFileError(errno.EINVAL, "not a regular file", str(path))
    return fd


def open_regular_for_read(path: str | Path) -> BinaryIO:
    """A binary reader on ``path`` when it is a regular file; raise OSError otherwise."""
    return open(open_regular(path), "rb")


def regular_stat(path: Path) -> os.stat_result | None:
    """The file's own stat when it is a regular file (a symlink is not followed), else None."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def read_bytes(path: Path) -> bytes:
    """The whole of a regular file; raise OSError (NotARegularFileError among them) otherwise."""
    with open_regular_for_read(path) as handle:
        return handle.read()


def fsync_directory(directory: Path) -> None:
    """Make a rename, a link or an unlink in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
