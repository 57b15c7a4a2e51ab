"""``<project>/Computation/``: the only module that writes there, and the project path guard.

The archive only grows. A run id's first attempt is ``Computation/<runId>/``, later ones
``Computation/<runId>/attempts/<n>/``; each directory is claimed by an exclusive mkdir, so
two runs never share one (across processes too), and every file is created exclusively, so
nothing already archived is ever overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from reckoner import wire

ROOT_NAME = "Computation"
INSTALLS = "installs"
RECEIPT_JSON = "receipt.json"
RECEIPT_MD = "receipt.md"
MAX_ATTEMPTS_PER_RUN = 20
MAX_RUNS = 200
RUN_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,150}$")


class OutsideProject(Exception):
    """A path that is not a file inside the project once links are resolved."""


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str | None:
    """The file's sha256, or None when it cannot be read (gone, moved, unreadable).

    Read in chunks: an engine's output may be far larger than memory should hold.
    """
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def project_slug(root: Path) -> str:
    """The project directory's name as a lowercase slug (``project`` when it has none)."""
    slug = re.sub(r"[^a-z0-9]+", "-", root.name.lower()).strip("-")[:40].strip("-")
    return slug or "project"


def inside(root: Path, relative: str) -> Path:
    """The real path of ``relative`` under the project root; refused when it leaves it.

    Real paths, not spelling: a symlink inside the project pointing outside is refused.
    """
    if not relative or "\x00" in relative:
        raise OutsideProject("the path is empty")
    candidate = Path(relative)
    if candidate.is_absolute():
        raise OutsideProject("the path is absolute")
    real_root = root.resolve()
    real = (real_root / candidate).resolve()
    if real != real_root and real_root not in real.parents:
        raise OutsideProject("the path resolves outside the project")
    return real


@dataclass(frozen=True, slots=True)
class Attempt:
    """One claimed attempt directory of a run id."""

    run_id: str
    number: int
    directory: Path


class Archive:
    """The project's Computation tree."""

    def __init__(self, project: Path) -> None:
        self.project = project.resolve()
        self.root = self.project / ROOT_NAME
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def relative(self, path: Path) -> str:
        return path.relative_to(self.project).as_posix()

    # -- claiming ---------------------------------------------------------------------

    def claim(self, run_id: str) -> Attempt:
        """The next free attempt of a run id, created empty and now this run's own."""
        with self._guard:
            lock = self._locks.setdefault(run_id, threading.Lock())
        with lock:
            self.root.mkdir(parents=True, exist_ok=True)
            first = self.root / run_id
            try:
                first.mkdir()
                return Attempt(run_id, 1, first)
            except FileExistsError:
                pass
            attempts = first / "attempts"
            attempts.mkdir(exist_ok=True)
            number = 2
            while True:
                directory = attempts / str(number)
                try:
                    directory.mkdir()
                    return Attempt(run_id, number, directory)
                except FileExistsError:
                    number += 1

    def attempts_of(self, run_id: str) -> list[Attempt]:
        """Every attempt directory of a run id, in order (empty when it has none)."""
        first = self.root / run_id
        if not first.is_dir():
            return []
        found = [Attempt(run_id, 1, first)]
        attempts = first / "attempts"
        if attempts.is_dir():
            numbers = sorted(int(p.name) for p in attempts.iterdir() if p.name.isdigit())
            found.extend(Attempt(run_id, n, attempts / str(n)) for n in numbers)
        return found

    def run_count(self) -> int:
        try:
            return sum(1 for p in self.root.iterdir() if p.is_dir() and p.name != INSTALLS)
        except OSError:
            return 0

    # -- writing ----------------------------------------------------------------------

    def create(self, path: Path, data: bytes) -> None:
        """Write a new file; an existing one is never replaced (FileExistsError)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with open(fd, "wb") as handle:
            handle.write(data)

    def open_new(self, path: Path) -> BinaryIO:
        """A new file opened for writing (an engine's output goes straight into it)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        return open(fd, "wb")

    def create_json(self, path: Path, value: dict[str, Any]) -> None:
        text = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
        self.create(path, text.encode("utf-8"))

    def copy_in(self, source: Path, target: Path) -> tuple[str, int]:
        """Copy a project file into the archive in chunks; its sha256 and size."""
        digest = hashlib.sha256()
        size = 0
        with open(source, "rb") as reader, self.open_new(target) as writer:
            while chunk := reader.read(1 << 20):
                digest.update(chunk)
                writer.write(chunk)
                size += len(chunk)
        return digest.hexdigest(), size

    def ensure_receipt_md(self, attempt: Attempt, text: str) -> bool:
        """Write receipt.md only if it is missing; True when it was written."""
        try:
            self.create(attempt.directory / RECEIPT_MD, text.encode("utf-8"))
        except FileExistsError:
            return False
        return True

    def write_install_audit(self, token: str, audit: dict[str, Any]) -> Path:
        """``Computation/installs/<token>.json`` (``-<n>`` for a plan executed again)."""
        directory = self.root / INSTALLS
        directory.mkdir(parents=True, exist_ok=True)
        suffix = 1
        while True:
            name = f"{token}.json" if suffix == 1 else f"{token}-{suffix}.json"
            try:
                self.create_json(directory / name, audit)
                return directory / name
            except FileExistsError:
                suffix += 1

    # -- reading ----------------------------------------------------------------------

    def read_receipt(self, attempt: Attempt) -> dict[str, Any] | None:
        """The attempt's receipt.json; None when missing; ValueError when unparsable."""
        try:
            data = (attempt.directory / RECEIPT_JSON).read_bytes()
        except FileNotFoundError:
            return None
        value = wire.loads(data)
        if not isinstance(value, dict):
            raise ValueError("receipt.json is not an object")
        return value


def read_receipt_file(path: str) -> tuple[str, str] | None:
    """(text, media type) of a receipt a record row names, or None.

    Only a receipt.json or receipt.md inside a ``Computation/<runId>/`` directory (or one of
    its ``attempts/<n>/``) is read, judged on the real path: a hand-edited row cannot make
    the panel read any other file.
    """
    real = Path(path).resolve()
    if real.name not in (RECEIPT_JSON, RECEIPT_MD):
        return None
    run = real.parent
    if run.parent.name == "attempts" and run.name.isdigit():
        run = run.parent.parent
    if run.parent.name != ROOT_NAME or not RUN_ID_PATTERN.fullmatch(run.name):
        return None
    markdown = real.with_name(RECEIPT_MD)
    try:
        return markdown.read_text("utf-8", "replace"), "text/markdown"
    except OSError:
        pass
    try:
        return real.with_name(RECEIPT_JSON).read_text("utf-8", "replace"), "application/json"
    except OSError:
        return None


@dataclass(frozen=True, slots=True)
class Output:
    """An archived output's size and its two ends (the whole file when it is small)."""

    size: int
    head: bytes
    tail: bytes  # empty when head holds the whole file

    @property
    def whole(self) -> bool:
        return not self.tail

    def last_text(self, chars: int) -> str:
        return (self.tail or self.head).decode("utf-8", "replace")[-chars:]


def read_output(path: Path, window: int) -> Output:
    """The first and last ``window // 2`` bytes of a file (all of it when within window)."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size <= window:
                return Output(size, handle.read(), b"")
            half = window // 2
            head = handle.read(half)
            handle.seek(size - half)
            return Output(size, head, handle.read())
    except OSError:
        return Output(0, b"", b"")
