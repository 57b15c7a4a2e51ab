"""One pitfalls library on disk: the only module that touches ``entries.jsonl``, ``cards/``,
``INDEX.md`` and the search cache.

``entries.jsonl`` is the source of truth: append-only, one full snapshot per line (``v: 1``).
Reading skips broken lines (a write cut short leaves at most its own line broken), folds by
id with the last snapshot winning, and is cached by the file's identity, size and times so
hand edits are seen. An append is one ``write`` of one whole line under an exclusive lock;
cards and the index are rewritten whole through a temporary file and a rename. Every failed
write raises ``LibraryError`` with one sentence: a lesson is never lost silently.

``.search-cache`` is derived from ``entries.jsonl`` and never edited: the folded lessons and
their search index, so a process that starts cold (the hook, when a reminder fires) searches
a library of any size without reading and folding every line. Its header names the entries
file's inode, size, modification and change times as they were when it was read; any write
to the file, a hand edit included, changes them, and a header that differs, a checksum that
fails or a cache from another Python or another reckoner makes the next reader rebuild it
from ``entries.jsonl`` and rewrite it whole. Failing to write it is not an error: it only
costs the next reader that rebuild.
"""

from __future__ import annotations

import marshal
import os
import sys
import time
import zlib

from reckoner.host.files import Folder, check_name, read_bounded
from reckoner.version import __version__

from . import render
from .lean_json import dumps, loads
from .model import entry_id_for, is_entry_id, new_entry, normalise_entry
from .search import SearchIndex

TYPE_CHECKING = False  # not typing's: the hook loads this module and must start fast
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    AnyPath = str | os.PathLike[str]
    """Paths are strings here: pathlib costs the hook's start more than its whole search."""
    Stamp = tuple[int, int, int, int]
    """The entries file's inode, size, modification and change times."""

ENTRIES = "entries.jsonl"
CARDS = "cards"
INDEX = "INDEX.md"
CACHE = ".search-cache"
CACHE_FORMAT = 1  # the payload's layout; the rules that fill it change with __version__
_LOCK = ".lock"
_CHECKSUM_BYTES = 4
MAX_LIBRARY_BYTES = 256 << 20
"""The most of ``entries.jsonl`` (or of the search cache) a reader takes: a library shipped
in a cloned repository cannot make it hold more."""


def is_card_name(name: str) -> bool:
    """``<lesson id>.md``: the only names written in ``cards/``."""
    return name.endswith(".md") and is_entry_id(name[:-3])


def _skipped(entry_id: str) -> None:
    # stderr, never stdout: stdout is the MCP server's channel and the hook's answer.
    sys.stderr.write(
        f"reckoner pitfalls: skipped a lesson whose id {entry_id[:80]!r} is not of the form "
        "p-YYYYMMDD-HHMMSS-xxxx; it is never used as a file name\n"
    )


class LibraryError(OSError):
    """A library that cannot be read or written; the message is one sentence with the fix."""


def now_stamp() -> tuple[str, str]:
    """The current UTC time as ISO 8601 (``2026-12-01T07:00:00Z``) and as an id stamp."""
    now = time.gmtime()
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", now), time.strftime("%Y%m%d-%H%M%S", now)


def absolute_path(base: AnyPath, relative: str = "") -> str:
    """``relative`` under ``base`` (``~`` expanded), absolute and normalised, symbolic links
    kept: one key per library directory."""
    return os.path.abspath(os.path.join(os.path.expanduser(os.fspath(base)), relative))


def real_path(base: AnyPath, relative: str = ".") -> str:
    """Where ``relative`` (``~`` expanded; an absolute one stands alone) under ``base``
    really is, symbolic links resolved."""
    joined = os.path.join(os.path.expanduser(os.fspath(base)), os.path.expanduser(relative))
    return os.path.realpath(joined)


def _stamp(stat: os.stat_result) -> Stamp:
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _cache_header(stamp: Stamp) -> bytes:
    # marshal's format and native byte order vary between Pythons and machines, and the
    # normalising, tokens and weights behind the payload between versions of reckoner.
    python = f"{sys.implementation.cache_tag} {sys.byteorder} marshal {marshal.version}"
    made = f"reckoner pitfalls search cache {CACHE_FORMAT} {python} reckoner {__version__}"
    source = " ".join(str(part) for part in stamp)
    return f"{made} {ENTRIES} {source}\n".encode()


def _fold(data: bytes) -> list[dict[str, Any]]:
    folded: dict[str, dict[str, Any]] = {}
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            raw = loads(line)
        except (ValueError, RecursionError):
            continue  # a line cut short by a killed writer, or a bad hand edit
        if isinstance(raw, dict) and raw.get("deleted") is True and isinstance(raw.get("id"), str):
            folded.pop(raw["id"], None)  # a tombstone: the lesson's history stays in the file
            continue
        entry = normalise_entry(raw) if isinstance(raw, dict) else None
        if entry is not None and not is_entry_id(entry["id"]):
            _skipped(entry["id"])
        elif entry is not None:
            folded.pop(entry["id"], None)  # keep insertion order = last snapshot order
            folded[entry["id"]] = entry
    return list(folded.values())


class _Decoded:
    """Cached lessons, each decoded from its own marshal bytes when first asked for."""

    __slots__ = ("_blobs", "_entries")

    def __init__(self, blobs: list[bytes]) -> None:
        self._blobs = blobs
        self._entries: list[dict[str, Any] | None] = [None] * len(blobs)

    def __len__(self) -> int:
        return len(self._blobs)

    def __getitem__(self, position: int) -> dict[str, Any]:
        entry = self._entries[position]
        if entry is None:
            entry = self._entries[position] = marshal.loads(self._blobs[position])
        return entry


class _Folded:
    """One version of ``entries.jsonl``: its lessons in the order of their last snapshot,
    their ids and their search index."""

    __slots__ = ("_positions", "ids", "index")

    def __init__(self, ids: list[str], index: SearchIndex) -> None:
        self.ids = ids
        self.index = index
        self._positions: dict[str, int] | None = None

    @classmethod
    def of(cls, entries: list[dict[str, Any]]) -> _Folded:
        return cls([entry["id"] for entry in entries], SearchIndex.build(entries))

    def get(self, entry_id: str) -> dict[str, Any] | None:
        if self._positions is None:
            self._positions = {entry_id: i for i, entry_id in enumerate(self.ids)}
        position = self._positions.get(entry_id)
        return None if position is None else self.index.entries[position]

    def entries(self) -> list[dict[str, Any]]:
        return [self.index.entries[i] for i in range(len(self.ids))]

    def cache_payload(self) -> bytes:
        blobs = [marshal.dumps(entry) for entry in self.entries()]
        return marshal.dumps((self.ids, blobs, self.index.parts))

    @classmethod
    def from_cache_payload(cls, payload: memoryview) -> _Folded:
        ids, blobs, parts = marshal.loads(payload)
        if not (isinstance(ids, list) and isinstance(blobs, list) and len(ids) == len(blobs)):
            raise ValueError("not a pitfalls search cache")
        return cls(ids, SearchIndex(_Decoded(blobs), parts))


_NOTHING = _Folded([], SearchIndex([], (b"", b"", [], b"\n", b"\0\0\0\0", b"")))  # no array


class Library:
    """One directory of lessons."""

    def __init__(self, root: AnyPath) -> None:
        self.root = absolute_path(root)
        self._seen: Stamp | None = None
        self._folded = _NOTHING

    def __repr__(self) -> str:
        return f"Library({self.root!r})"

    @property
    def entries_file(self) -> str:
        return os.path.join(self.root, ENTRIES)

    def card_path(self, entry_id: str) -> str:
        return os.path.join(self.root, CARDS, f"{entry_id}.md")

    # -- reading -----------------------------------------------------------------------

    def _folder(self, create: bool = False) -> Folder:
        return Folder.open(self.root, create=create)

    def _load(self) -> _Folded:
        try:
            with self._folder() as folder:
                stamp = _stamp(folder.stat(ENTRIES))
                if stamp == self._seen:
                    return self._folded
                folded = self._cached(folder, stamp)
                if folded is None:
                    stamp, data = self._read_entries(folder)
                    folded = _Folded.of(_fold(data))
                    self._write_cache(folder, stamp, folded)
        except FileNotFoundError:
            self._seen, self._folded = None, _NOTHING
            return _NOTHING
        except LibraryError:
            raise
        except OSError as error:
            raise self._error("read", error) from None
        self._seen, self._folded = stamp, folded
        return folded

    def _read_entries(self, folder: Folder) -> tuple[Stamp, bytes]:
        # The stamp is taken before the bytes are read: a write racing the read can only
        # make the stamp older than the text, and an older stamp is merely read again.
        fd = folder.open_read(ENTRIES)
        try:
            stat = os.fstat(fd)
            if stat.st_size > MAX_LIBRARY_BYTES:
                raise LibraryError(
                    f"the pitfalls library at {self.root} holds {stat.st_size} bytes in "
                    f"{ENTRIES}, over the limit of {MAX_LIBRARY_BYTES}; move old lessons "
                    "out of it or choose another library"
                )
            return _stamp(stat), read_bounded(fd, MAX_LIBRARY_BYTES)
        finally:
            os.close(fd)

    def _cached(self, folder: Folder, stamp: Stamp) -> _Folded | None:
        """The cache when it was built from this version of the entries file, else None."""
        try:
            data = folder.read(CACHE, MAX_LIBRARY_BYTES)
        except OSError:
            return None
        header = _cache_header(stamp)
        body = len(header) + _CHECKSUM_BYTES
        if not data.startswith(header):
            return None  # stale, from another Python, or not a cache at all
        payload = memoryview(data)[body:]
        if zlib.crc32(payload) != int.from_bytes(data[len(header) : body], "big"):
            return None  # torn or damaged
        try:
            return _Folded.from_cache_payload(payload)
        except (ValueError, TypeError, EOFError):
            return None

    def _write_cache(self, folder: Folder, stamp: Stamp, folded: _Folded) -> None:
        payload = folded.cache_payload()
        checksum = zlib.crc32(payload).to_bytes(_CHECKSUM_BYTES, "big")
        try:  # noqa: SIM105 - contextlib would cost the hook its import
            # Derived and rebuilt when torn: not worth an fsync on the hook's path.
            folder.write_atomic(CACHE, _cache_header(stamp) + checksum + payload, durable=False)
        except OSError:
            pass  # a read-only library still reads; the next reader rebuilds the cache

    def entries(self) -> list[dict[str, Any]]:
        """Every lesson, in the order of its last snapshot."""
        return self._load().entries()

    def index(self) -> SearchIndex:
        """Every lesson ready for search; rebuilt only when the file changed."""
        return self._load().index

    def get(self, entry_id: str) -> dict[str, Any] | None:
        return self._load().get(entry_id)

    # -- writing -----------------------------------------------------------------------

    def record(self, fields: dict[str, Any]) -> dict[str, Any]:
        """A new lesson from cleaned fields, with a fresh id; written before it is returned."""
        now_iso, stamp = now_stamp()
        while True:
            entry_id = entry_id_for(stamp, os.urandom(2).hex())
            if self._get_quietly(entry_id) is None:
                break
        entry = new_entry(entry_id, now_iso, fields)
        self.save(entry)
        return entry

    def save(self, entry: dict[str, Any]) -> None:
        """Append ``entry`` as its newest snapshot and rewrite its card and the index: all of
        it, or (raising ``LibraryError``) nothing, so a refused save is never on disk."""
        line = dumps(entry).encode() + b"\n"

        def write(folder: Folder, cards: Folder, card_name: str) -> bool:
            self._save_locked(folder, cards, card_name, entry, line)
            return True

        self._under_lock(entry["id"], write)

    def delete(self, entry_id: str, now_iso: str, merged_into: str | None = None) -> bool:
        """Append a tombstone for the lesson and remove its card and its index line; False
        (nothing written) when this library has no such lesson. The file keeps every earlier
        snapshot: a deletion is one more line, not a rewrite."""
        tombstone: dict[str, Any] = {"v": 1, "id": entry_id, "deleted": True, "updated": now_iso}
        if merged_into is not None:
            tombstone["mergedInto"] = merged_into
        line = dumps(tombstone).encode() + b"\n"
        if self.get(entry_id) is None:
            return False

        def write(folder: Folder, cards: Folder, card_name: str) -> bool:
            if self.get(entry_id) is None:  # deleted meanwhile by another process
                return False
            self._delete_locked(folder, cards, card_name, entry_id, line)
            return True

        return self._under_lock(entry_id, write)

    def _under_lock(self, entry_id: str, write: Callable[[Folder, Folder, str], bool]) -> bool:
        """``write`` with the library folder, its cards folder and the lesson's card name,
        under the library's lock; an OS failure is a ``LibraryError`` saying so."""
        try:
            card_name = check_name(f"{entry_id}.md", is_card_name, "lesson id")
            with self._folder(create=True) as folder, folder.sub(CARDS, create=True) as cards:
                # Two processes writing at once take turns, so a broken-tail check and the
                # append that follows it, and the index built from the file, see each
                # other's lines.
                lock = folder.lock(_LOCK)
                try:
                    return write(folder, cards, card_name)
                finally:
                    os.close(lock)
        except LibraryError:
            raise
        except OSError as error:
            self._seen = None
            raise self._error("write", error) from None

    def _save_locked(
        self, folder: Folder, cards: Folder, card_name: str, entry: dict[str, Any], line: bytes
    ) -> None:
        saved = normalise_entry(loads(line))
        entries = [e for e in self.entries() if e["id"] != entry["id"]]
        entries.append(saved if saved is not None else entry)
        card = cards.stage(render.card(entry).encode("utf-8"))
        self._write_locked(folder, cards, line, entries, (card, card_name))

    def _delete_locked(
        self, folder: Folder, cards: Folder, card_name: str, entry_id: str, line: bytes
    ) -> None:
        entries = [e for e in self.entries() if e["id"] != entry_id]
        self._write_locked(folder, cards, line, entries, None)
        try:  # noqa: SIM105 - contextlib would cost the hook its import
            cards.discard(card_name)
        except OSError:
            pass  # the tombstone stands; a stray card is only a file nobody lists

    def _write_locked(
        self,
        folder: Folder,
        cards: Folder,
        line: bytes,
        entries: list[dict[str, Any]],
        card: tuple[str, str] | None,
    ) -> None:
        """Append one snapshot line with the index of ``entries`` and the staged card (its
        temporary and final names), all or nothing."""
        # The card and the index are staged first: on a full disk they fail before the
        # snapshot is appended, and an append that fails is cut back, so nothing is changed.
        try:
            index = folder.stage(render.index(entries).encode("utf-8"))
        except BaseException:
            if card is not None:
                cards.discard(card[0])
            raise
        try:
            size = self._append(folder, line)
        except BaseException:
            if card is not None:
                cards.discard(card[0])
            folder.discard(index)
            raise
        if card is not None:
            try:
                cards.commit(*card)
            except BaseException:
                folder.truncate(ENTRIES, size)
                folder.discard(index)
                raise
        try:  # noqa: SIM105 - contextlib would cost the hook its import
            folder.commit(index, INDEX)
        except OSError:
            pass  # the snapshot (and its card) stand; the next save rewrites the index whole
        # The search cache is built now, so the next cold reader (the hook) need not fold.
        folded = _Folded.of(entries)
        try:
            stamp = _stamp(folder.stat(ENTRIES))
        except OSError:
            return  # written whole; the next reader folds the file itself
        self._write_cache(folder, stamp, folded)
        self._seen, self._folded = stamp, folded

    def _get_quietly(self, entry_id: str) -> dict[str, Any] | None:
        try:
            return self.get(entry_id)
        except LibraryError:
            return None

    @staticmethod
    def _append(folder: Folder, line: bytes) -> int:
        """Append one snapshot line; the file's length before it."""
        try:
            size = folder.stat(ENTRIES).st_size
        except FileNotFoundError:
            size = 0
        if size:
            fd = folder.open_read(ENTRIES)
            try:
                last = os.pread(fd, 1, size - 1)
            finally:
                os.close(fd)
            if last != b"\n":
                line = b"\n" + line  # never glue a snapshot onto a line cut short
        return folder.append(ENTRIES, line)

    def _error(self, verb: str, error: OSError) -> LibraryError:
        reason = error.strerror or str(error) or type(error).__name__
        return LibraryError(
            f"cannot {verb} the pitfalls library at {self.root} ({reason}); "
            "check that the directory exists and is writable, or choose another one"
        )
