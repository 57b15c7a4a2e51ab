"""A small tmpfs for the disk-full rule's tests: mounted where the machine allows it (root on
Linux), skipped with the reason where it does not."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

SMALL_DISK_BYTES = 256 * 1024


@contextlib.contextmanager
def small_disk(where: Path, size: int = SMALL_DISK_BYTES) -> Iterator[Path]:
    """``where`` as the mount point of a fresh tmpfs of ``size`` bytes, unmounted after."""
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"a small tmpfs cannot be mounted here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30, check=False)


def fill(disk: Path, name: str = "filler") -> Path:
    """Take every free byte of ``disk`` (until the file system says ENOSPC)."""
    filler = disk / name
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for chunk in (b"\0" * 4096, b"\0"):
            while True:
                try:
                    if os.write(fd, chunk) == 0:
                        break
                except OSError as error:
                    assert error.errno == errno.ENOSPC, error
                    break
    finally:
        os.close(fd)
    return filler
