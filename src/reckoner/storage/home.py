"""Where the engine's files live (``home_path`` decides which directory is the home).

The home holds the open records, the closed records, ``state.json``, the run logs, the
discarded files and the locks (docs/guide/records.md). Every other storage module asks a
``HomeLayout`` for its path instead of joining names itself.

Several engines may share a home, each on its own *lane*: lane 1 is the manual's
``open-record.jsonl`` held by ``.lock``; lane ``n`` (2 to ``MAX_LANES``) is
``open/lane-<n>.jsonl`` held by ``open/lane-<n>.lock``. A ``HomeLayout`` names one lane's
files; every other path is the same for all lanes of a home.
"""

from __future__ import annotations

import os
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

from reckoner.storage.home_path import DEFAULT_HOME, HOME_ENV, resolve_home

__all__ = [
    "DEFAULT_HOME",
    "HOME_ENV",
    "LANE_ENV",
    "MAX_LANES",
    "HomeError",
    "HomeLayout",
    "resolve_home",
    "resolve_lane",
]

LANE_ENV = "RECKONER_LANE"

MAX_LANES = 64
"""Engines that can hold an open record on one home at the same time (lanes 1 to 64)."""

_LANE_FILE = re.compile(r"lane-([0-9]{1,3})\.jsonl")


class HomeError(OSError):
    """The home directory cannot be used; the message is one sentence with the fix."""


def resolve_lane(explicit: int | str | None = None) -> int | None:
    """The lane asked for: ``explicit``, else ``$RECKONER_LANE``, else None (pick one).

    Raises ``HomeError`` naming the allowed range when the lane is not a number in it.
    """
    raw: int | str | None = explicit
    source = "--lane"
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        raw = os.environ.get(LANE_ENV, "").strip() or None
        source = LANE_ENV
    if raw is None:
        return None
    text = str(raw).strip()
    lane = int(text) if text.isdigit() and len(text) <= 3 else 0
    if not 1 <= lane <= MAX_LANES or type(raw) is bool:
        raise HomeError(
            f"{source} {str(raw)[:20]!r} is not a lane; a lane is a whole number from 1 to "
            f"{MAX_LANES}, or leave it unset to take the lowest free one"
        )
    return lane


@dataclass(frozen=True)
class HomeLayout:
    """The names of everything inside one home directory, for one lane (1 by default)."""

    root: Path
    lane: int = 1

    def for_lane(self, lane: int) -> HomeLayout:
        """The same home seen from another lane."""
        return HomeLayout(self.root, lane)

    @property
    def lanes_dir(self) -> Path:
        """Where the open records and locks of lanes 2 and up live."""
        return self.root / "open"

    @property
    def open_record(self) -> Path:
        """This lane's open record."""
        if self.lane == 1:
            return self.root / "open-record.jsonl"
        return self.lanes_dir / f"lane-{self.lane}.jsonl"

    def lanes_with_open_files(self) -> list[int]:
        """Every lane whose open-record file exists, in lane order (held or not)."""
        lanes = []
        if os.path.lexists(self.root / "open-record.jsonl"):
            lanes.append(1)
        try:
            names = os.listdir(self.lanes_dir)
        except OSError:
            names = []
        for name in names:
            match = _LANE_FILE.fullmatch(name)
            if match is not None and 2 <= int(match.group(1)) <= MAX_LANES:
                lanes.append(int(match.group(1)))
        return sorted(set(lanes))

    def open_record_files(self) -> list[tuple[int, Path]]:
        """(lane, path) of every open-record file in the home, in lane order."""
        return [(lane, self.for_lane(lane).open_record) for lane in self.lanes_with_open_files()]

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
    def lookup_cache_file(self) -> Path:
        """The home-wide cache of answered lookups (reckoner.lookup.cache owns it)."""
        return self.root / "lookup-cache.json"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    @property
    def discarded_dir(self) -> Path:
        return self.root / "discarded"

    @property
    def lock_file(self) -> Path:
        """This lane's lock: held by the engine on the lane, released when it dies."""
        if self.lane == 1:
            return self.root / ".lock"
        return self.lanes_dir / f"lane-{self.lane}.lock"

    @property
    def lanes_lock_file(self) -> Path:
        """The home-wide lock of the short sections that must see every lane (id claims)."""
        return self.root / ".lanes.lock"

    @property
    def state_lock_file(self) -> Path:
        """The lock every process holds while it reads, changes and replaces state.json."""
        return self.root / ".state.lock"

    def record_file(self, record_id: str) -> Path:
        """The closed file of ``record_id``; callers validate the id first."""
        return self.records_dir / f"{record_id}.jsonl"

    def free_bytes(self) -> int | None:
        """Free bytes for an unprivileged writer on the disk the home is (or would be) on:
        the nearest existing directory's file system; None when none can be asked."""
        where = self.root
        while True:
            try:
                info = os.statvfs(where)
                return info.f_bavail * info.f_frsize
            except OSError:
                if where.parent == where:
                    return None
                where = where.parent

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
