"""One pitfalls library on disk: the only module that touches ``entries.jsonl``, ``cards/``
and ``INDEX.md``.

``entries.jsonl`` is the source of truth: append-only, one full snapshot per line (``v: 1``).
Reading skips broken lines (a write cut short leaves at most its own line broken), folds by
id with the last snapshot winning, and is cached by the file's mtime and size so hand edits
are seen. An append is one ``write`` of one whole line under an exclusive lock; cards and
the index are rewritten whole through a temporary file and a rename. Every failed write
raises ``LibraryError`` with one sentence: a lesson is never lost silently.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path

from . import render
from .model import entry_id_for, new_entry, normalise_entry
from .search import SearchIndex

TYPE_CHECKING = False  # not typing's: the hook loads this module and must start fast
if TYPE_CHECKING:
    from typing import Any

ENTRIES = "entries.jsonl"
CARDS = "cards"
INDEX = "INDEX.md"
_LOCK = ".lock"


class LibraryError(OSError):
    """A library that cannot be read or written; the message is one sentence with the fix."""


def now_stamp() -> tuple[str, str]:
    """The current UTC time as ISO 8601 (``2026-12-01T07:00:00Z``) and as an id stamp."""
    now = time.gmtime()
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", now), time.strftime("%Y%m%d-%H%M%S", now)


class Library:
    """One directory of lessons."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._seen: tuple[int, int] | None = None
        self._entries: dict[str, dict[str, Any]] = {}
        self._index: SearchIndex | None = None

    def __repr__(self) -> str:
        return f"Library({str(self.root)!r})"

    @property
    def entries_file(self) -> Path:
        return self.root / ENTRIES

    def card_path(self, entry_id: str) -> Path:
        return self.root / CARDS / f"{entry_id}.md"

    # -- reading -----------------------------------------------------------------------

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            stat = self.entries_file.stat()
        except FileNotFoundError:
            self._seen, self._entries, self._index = None, {}, None
            return self._entries
        except OSError as error:
            raise self._error("read", error) from None
        seen = (stat.st_mtime_ns, stat.st_size)
        if seen == self._seen:
            return self._entries
        try:
            data = self.entries_file.read_bytes()
        except OSError as error:
            raise self._error("read", error) from None
        folded: dict[str, dict[str, Any]] = {}
        for line in data.split(b"\n"):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except ValueError:
                continue  # a line cut short by a killed writer, or a bad hand edit
            entry = normalise_entry(raw) if isinstance(raw, dict) else None
            if entry is not None:
                folded.pop(entry["id"], None)  # keep insertion order = last snapshot order
                folded[entry["id"]] = entry
        self._seen, self._entries, self._index = seen, folded, None
        return folded

    def entries(self) -> list[dict[str, Any]]:
        """Every lesson, in the order of its last snapshot."""
        return list(self._load().values())

    def index(self) -> SearchIndex:
        """Every lesson ready for search; rebuilt only when the file changed."""
        self._load()
        if self._index is None:
            self._index = SearchIndex.build(self._entries.values())
        return self._index

    def get(self, entry_id: str) -> dict[str, Any] | None:
        return self._load().get(entry_id)

    # -- writing -----------------------------------------------------------------------

    def record(self, fields: dict[str, Any]) -> dict[str, Any]:
        """A new lesson from cleaned fields, with a fresh id; written before it is returned."""
        now_iso, stamp = now_stamp()
        known = self._load_quietly()
        while True:
            entry_id = entry_id_for(stamp, os.urandom(2).hex())
            if entry_id not in known:
                break
        entry = new_entry(entry_id, now_iso, fields)
        self.save(entry)
        return entry

    def save(self, entry: dict[str, Any]) -> None:
        """Append ``entry`` as its newest snapshot, then rewrite its card and the index."""
        # Stdlib json, not orjson: loading orjson would double the hook's start (issue 13).
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        try:
            (self.root / CARDS).mkdir(parents=True, exist_ok=True)
            # Two processes saving at once take turns, so a broken-tail check and the append
            # that follows it, and the index rebuilt from the file, see each other's lines.
            lock = os.open(self.root / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX)
                self._append(line)
                self._write_atomically(self.card_path(entry["id"]), render.card(entry))
                self._seen = None
                self._write_atomically(self.root / INDEX, render.index(self.entries()))
            finally:
                os.close(lock)
        except LibraryError:
            raise
        except OSError as error:
            raise self._error("write", error) from None

    def _load_quietly(self) -> dict[str, dict[str, Any]]:
        try:
            return self._load()
        except LibraryError:
            return {}

    def _append(self, line: bytes) -> None:
        fd = os.open(self.entries_file, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # never glue a snapshot onto a line cut short
            written = os.write(fd, line)
            if written != len(line):
                raise OSError(28, "short write (is the disk full?)")
            os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def _write_atomically(path: Path, text: str) -> None:
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(3).hex()}.tmp")
        try:
            with open(temporary, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, path)
        except BaseException:
            try:  # noqa: SIM105 - contextlib would cost the firing hook its import
                temporary.unlink()
            except OSError:
                pass
            raise

    def _error(self, verb: str, error: OSError) -> LibraryError:
        reason = error.strerror or type(error).__name__
        return LibraryError(
            f"cannot {verb} the pitfalls library at {self.root} ({reason}); "
            "check that the directory exists and is writable, or choose another one"
        )
