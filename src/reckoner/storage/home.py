"""Where the engine's files live (``home_path`` decides which directory is the home).

The home holds the open record, the closed records, ``state.json``, the run logs, the
discarded files and the lock (manual 9.1). Every other storage module asks a
``HomeLayout`` for its path instead of joining names itself.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path

from reckoner.storage.home_path import DEFAULT_HOME, HOME_ENV, resolve_home

__all__ = ["DEFAULT_HOME", "HOME_ENV", "HomeError", "HomeLayout", "resolve_home"]


class HomeError(OSError):
    """The home directory cannot be used; the message is one sentence with the fix."""


@dataclass(frozen=True)
class HomeLayout:
    """The names of everything inside one home directory."""

    root: Path

    @property
    def open_record(self) -> Path:
        return self.root / "open-record.jsonl"

    @property
    def records_dir(self) -> Path:
        return self.root / "records"

    @property
    def state_file(self) -> Path:
        return self.root / "state.json"

    @property
    def legacy_generate_dir_file(self) -> Path:
        """The older plain-text article directory, honoured until the first write (9.1)."""
        return self.root / "generate-dir.txt"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    @property
    def discarded_dir(self) -> Path:
        return self.root / "discarded"

    @property
    def lock_file(self) -> Path:
        return self.root / ".lock"

    def record_file(self, record_id: str) -> Path:
        """The closed file of ``record_id``; callers validate the id first."""
        return self.records_dir / f"{record_id}.jsonl"

    def prepare(self) -> None:
        """Create the home, ``records/`` and ``logs/``; raise ``HomeError`` when unusable."""
        root = self.root
        if root.exists() and not root.is_dir():
            raise HomeError(
                f"the home {root} is a file, not a directory; "
                "move that file away or pass another --home"
            )
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise HomeError(
                f"the home {root} cannot be created ({_reason(error)}); "
                "pass a writable directory with --home or RECKONER_HOME"
            ) from error
        for directory in (self.records_dir, self.logs_dir):
            if directory.exists() and not directory.is_dir():
                raise HomeError(
                    f"{directory} is a file where the home needs a directory; move that file away"
                )
            try:
                directory.mkdir(exist_ok=True)
            except OSError as error:
                raise HomeError(
                    f"the directory {directory} cannot be created ({_reason(error)}); "
                    "make the home writable or pass another --home"
                ) from error
        for file in (self.open_record, self.state_file, self.lock_file):
            if file.is_dir():
                raise HomeError(
                    f"{file} is a directory where the home needs a file; move that directory away"
                )
        self._probe_writable()

    def _probe_writable(self) -> None:
        # Permission bits do not stop root and say nothing about read-only mounts, so try it.
        probe = self.root / f".probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.close(fd)
            os.unlink(probe)
        except OSError as error:
            raise HomeError(
                f"the home {self.root} is not writable ({_reason(error)}); "
                "make it writable or pass another --home"
            ) from error


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__
