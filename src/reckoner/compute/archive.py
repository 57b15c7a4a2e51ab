"""``<project>/Computation/``: the only module that writes there, and the project path guard.

The archive only grows. A run id's first attempt is ``Computation/<runId>/``, later ones
``Computation/<runId>/attempts/<n>/``; each directory is claimed by an exclusive mkdir, so
two runs never share one (across processes too), and every file is created exclusively, so
nothing already archived is ever overwritten.

Every write goes through ``reckoner.host.files`` from a handle on the project folder: no
symbolic link is followed at any component, ``Computation/`` included, and a captured file
is opened the same way at the moment it is copied. A file appears whole or not at all (a
``receipt.json`` is never left empty), and an attempt the call refuses after claiming it is
removed again, so a refusal that says nothing was changed is true.
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
from reckoner.host.files import Folder, UnsafePath

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
    """The file's sha256, or None when it cannot be read (gone, moved, unreadable)."""
    try:
        return sha256_bytes(path.read_bytes())
    except OSError:
        return None


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
        self._unsealed = threading.local()

    def relative(self, path: Path) -> str:
        return path.relative_to(self.project).as_posix()

    def _folder(self) -> Folder:
        """The project folder's handle (its path was resolved once, in ``__init__``)."""
        return Folder.open(str(self.project))

    # -- claiming ---------------------------------------------------------------------

    def claim(self, run_id: str) -> Attempt:
        """The next free attempt of a run id, created empty and now this run's own."""
        with self._guard:
            lock = self._locks.setdefault(run_id, threading.Lock())
        if not RUN_ID_PATTERN.fullmatch(run_id):
            raise UnsafePath(f"the run id {run_id[:80]!r} is not of the archive's form")
        with lock, self._folder() as project, project.sub(ROOT_NAME, create=True) as root:
            attempt = self._claim_in(root, run_id)
        self._unsealed.attempt = attempt
        return attempt

    def _claim_in(self, root: Folder, run_id: str) -> Attempt:
        first = self.root / run_id
        try:
            root.make_new_folder(run_id)
            return Attempt(run_id, 1, first)
        except FileExistsError:
            pass
        with root.sub(f"{run_id}/attempts", create=True) as attempts:
            number = 2
            while True:
                try:
                    attempts.make_new_folder(str(number))
                    return Attempt(run_id, number, first / "attempts" / str(number))
                except FileExistsError:
                    number += 1

    def seal(self, attempt: Attempt, receipt: dict[str, Any], markdown: str) -> None:
        """Write the attempt's receipt.json and receipt.md; the attempt is then kept."""
        self.create_json(attempt.directory / RECEIPT_JSON, receipt)
        self.ensure_receipt_md(attempt, markdown)
        if getattr(self._unsealed, "attempt", None) == attempt:
            self._unsealed.attempt = None

    def discard_unsealed(self) -> Attempt | None:
        """Remove the attempt this thread claimed and did not seal (a refused run): its
        script, its output and whatever it captured. The attempt removed, if any."""
        attempt: Attempt | None = getattr(self._unsealed, "attempt", None)
        self._unsealed.attempt = None
        if attempt is None:
            return None
        with self._folder() as project:
            project.remove_tree(self.relative(attempt.directory))
        return attempt

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
        """Write a new file whole; an existing one is never replaced (FileExistsError)."""
        with self._folder() as project:
            project.create_new(self.relative(path), data)

    def open_new(self, path: Path) -> BinaryIO:
        """A new file opened for writing (an engine's output goes straight into it)."""
        with self._folder() as project:
            return project.open_new(self.relative(path))

    def create_json(self, path: Path, value: dict[str, Any]) -> None:
        text = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
        self.create(path, text.encode("utf-8"))

    def copy_in(self, source: Path, target: Path) -> tuple[str, int]:
        """Copy a project file into the archive in chunks; its sha256 and size.

        The source is opened from the project's handle with no link followed at any
        component (``UnsafePath`` otherwise, FileNotFoundError when it is not there), so a
        run cannot swap a file it was asked to capture for a link to one outside.
        """
        digest = hashlib.sha256()
        size = 0
        with self._folder() as project:
            reader = open(project.open_read(self.relative(source)), "rb")  # noqa: SIM115
            with reader, project.open_new(self.relative(target)) as writer:
                try:
                    while chunk := reader.read(1 << 20):
                        digest.update(chunk)
                        writer.write(chunk)
                        size += len(chunk)
                    writer.flush()
                except BaseException:
                    project.remove_tree(self.relative(target))
                    raise
        return digest.hexdigest(), size

    def capture(self, attempt: Attempt, source: Path) -> dict[str, Any]:
        """Copy one file the run wrote into the attempt's captured/, with its hash; a file
        that is missing is said, one reached through a link is refused with a sentence."""
        relative = self.relative(source)
        target = attempt.directory / "captured" / relative
        try:
            digest, size = self.copy_in(source, target)
        except FileNotFoundError:
            return {"path": relative, "sha256": None, "missing": True}
        except UnsafePath as refused:
            return {"path": relative, "sha256": None, "refused": str(refused)}
        return {
            "path": relative,
            "sha256": digest,
            "bytes": size,
            "archived": self.relative(target),
        }

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
