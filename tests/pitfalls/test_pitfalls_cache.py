"""The library's search cache (issue 13, "The library": reads cached by the file's mtime so
hand edits are seen; "Speed": the hook reads a large library fast): derived from
``entries.jsonl`` only, stale on any change to it, rebuilt when torn, damaged or foreign,
and never needed for the library to work."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from pitfall_helpers import lesson

from reckoner import __version__
from reckoner.pitfalls import library as library_module
from reckoner.pitfalls.library import CACHE, Library
from reckoner.pitfalls.search import SearchIndex

LESSONS = [
    lesson(
        "p-20261201-070000-0001",
        title="npm install -g fails with EACCES",
        solution="install under the user prefix",
        tags=["npm", "EACCES"],
    ),
    lesson(
        "p-20261201-070000-0002",
        title="上传失败 when the proxy drops",
        area="upload.py",
        symptom="文件上传失败 after 30 s",
        tags=["proxy"],
        updated="2026-12-02T07:00:00Z",
    ),
    lesson(
        "p-20261201-070000-0003",
        title="node-gyp rebuild needs python3.11",
        evidence="gyp ERR! stack Error: not found: python3.11",
        tags=["node-gyp"],
        status="workaround",
    ),
]
QUERIES = ["npm eacces", "上传失败", "node-gyp python3.11", "proxy upload.py", "", "gyp err"]


def _saved(root: Path) -> Library:
    library = Library(root)
    for entry in LESSONS:
        library.save(entry)
    return library


def _answers(library: Library) -> list[list[tuple[str, float]]]:
    index = library.index()
    answers = [[(e["id"], s) for e, s in index.search(q, limit=10)] for q in QUERIES]
    answers.append([(e["id"], s) for e, s in index.search("", tag="npm")])
    return answers


def _file_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, a read that does not come from the cache fails the test."""

    def refuse(self: Library) -> None:
        raise AssertionError(f"{self} read entries.jsonl instead of its search cache")

    monkeypatch.setattr(Library, "_read_entries", refuse)


def test_a_save_writes_the_cache_and_a_cold_reader_answers_from_it_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "lib"
    written = _saved(root)
    assert (root / CACHE).is_file()
    expected_entries = written.entries()
    expected = [
        [(e["id"], s) for e, s in SearchIndex.build(expected_entries).search(q, limit=10)]
        for q in QUERIES
    ]
    _file_only(monkeypatch)
    cold = Library(root)
    assert cold.entries() == expected_entries
    assert _answers(cold)[: len(QUERIES)] == expected
    assert cold.get("p-20261201-070000-0002") == expected_entries[1]
    assert cold.get("p-20261201-070000-ffff") is None


def test_an_append_by_another_writer_makes_every_reader_read_again(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    reader = _saved(root)
    assert len(reader.entries()) == 3
    Library(root).save(lesson("p-20261201-070000-0004", title="docker layer cache"))
    assert [e["id"][-1] for e in reader.entries()] == ["1", "2", "3", "4"]
    with open(root / "entries.jsonl", "a", encoding="utf-8") as handle:  # a hand append
        handle.write('{"v": 1, "id": "p-20261201-070000-0005", "title": "by hand"}\n')
    assert Library(root).get("p-20261201-070000-0005") is not None
    assert reader.index().search("hand")[0][0]["title"] == "by hand"


def test_a_hand_edit_of_the_same_size_with_the_old_mtime_put_back_is_seen(
    tmp_path: Path,
) -> None:
    root = tmp_path / "lib"
    reader = _saved(root)
    assert reader.entries()[0]["title"].startswith("npm install")
    path = root / "entries.jsonl"
    before = path.stat()
    time.sleep(0.05)  # a person edits seconds later; the file system's clock ticks first
    path.write_text(path.read_text().replace("npm install", "pip install"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )
    assert Library(root).entries()[0]["title"].startswith("pip install")
    assert reader.entries()[0]["title"].startswith("pip install")


def test_a_file_replaced_by_a_rename_is_seen(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    _saved(root)
    path = root / "entries.jsonl"
    before = path.stat()
    replacement = root / "entries.new"
    replacement.write_text(path.read_text().replace("npm install", "npx install"))
    os.utime(replacement, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(replacement, path)
    assert Library(root).entries()[0]["title"].startswith("npx install")


def _damage(data: bytes, how: str) -> bytes:
    header_end = data.index(b"\n") + 1
    if how == "truncated":
        return data[: len(data) // 2]
    if how == "empty":
        return b""
    if how == "garbage":
        return os.urandom(len(data))
    if how == "a flipped byte in the body":
        middle = (header_end + len(data)) // 2
        return data[:middle] + bytes([data[middle] ^ 0x40]) + data[middle + 1 :]
    if how == "another format":
        return data.replace(b"search cache 1 ", b"search cache 2 ", 1)
    if how == "another python":
        return data.replace(b"cpython-", b"pypy-", 1)
    if how == "another reckoner":  # its normalising or tokens may differ from this one's
        return data.replace(f" reckoner {__version__} ".encode(), b" reckoner 0.0.0.dev0 ", 1)
    raise AssertionError(how)


@pytest.mark.parametrize(
    "how",
    [
        "truncated",
        "empty",
        "garbage",
        "a flipped byte in the body",
        "another format",
        "another python",
        "another reckoner",
    ],
)
def test_a_damaged_or_foreign_cache_is_rebuilt_from_the_entries_file(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "lib"
    written = _saved(root)
    expected, expected_entries = _answers(written), written.entries()
    cache = root / CACHE
    good = cache.read_bytes()
    damaged = _damage(good, how)
    cache.write_bytes(damaged)
    reader = Library(root)
    assert _answers(reader) == expected
    assert reader.entries() == expected_entries  # every field, not only ids and scores
    # A damaged cache that answered would stay as it is; a rejected one is built anew.
    assert cache.read_bytes() not in (damaged, b"")
    _file_only(monkeypatch)  # the rebuild rewrote a good cache
    assert _answers(Library(root)) == expected


def test_a_cache_that_cannot_be_written_costs_a_rebuild_never_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "lib"
    expected = _answers(_saved(root))
    (root / CACHE).unlink()
    (root / CACHE).mkdir()  # neither readable nor replaceable as a file
    assert _answers(Library(root)) == expected
    Library(root).save(lesson("p-20261201-070000-0004", title="still writable"))
    assert Library(root).get("p-20261201-070000-0004") is not None
    assert not [p for p in root.glob(".*.tmp")], "no temporary file is left behind"


def test_the_cache_is_derived_from_the_entries_file_alone(tmp_path: Path) -> None:
    """Deleting the cache loses nothing; a library without its entries file is empty."""
    root = tmp_path / "lib"
    expected = _answers(_saved(root))
    (root / CACHE).unlink()
    assert _answers(Library(root)) == expected
    (root / "entries.jsonl").unlink()
    assert (root / CACHE).exists() and Library(root).entries() == []


def test_the_cache_stamp_is_taken_before_the_file_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write racing a rebuild leaves a cache that looks stale, never one that looks fresh
    and misses the write."""
    root = tmp_path / "lib"
    _saved(root)
    (root / CACHE).unlink()
    real_read = os.read

    def read_then_append(fd: int, size: int) -> bytes:
        data = real_read(fd, size)
        if not data:  # the whole file is read: another writer appends before the cache is
            with open(root / "entries.jsonl", "a", encoding="utf-8") as handle:
                handle.write('{"v": 1, "id": "p-20261201-070000-0009", "title": "raced"}\n')
            monkeypatch.setattr(library_module.os, "read", real_read)
        return data

    monkeypatch.setattr(library_module.os, "read", read_then_append)
    assert Library(root).get("p-20261201-070000-0009") is None  # read before the append
    assert Library(root).get("p-20261201-070000-0009") is not None  # the cache was stale
