"""Record-file speed against floors measured in the same run (issue 3, docs/guide/records.md).

(a) Replay-read of a 1,000,000-row open record through ``OpenRecordJournal.recover()``
    against the floor: read the file and parse every line (orjson; stdlib json shown too).
(b) ``RecordArchive.index()`` over 10,000 closed records: cold (a fresh archive) against the
    floor of reading the first and last line of each file, and warm (the cached list).

Run: ``uv run python bench/bench_records.py [--rows N] [--records N]``.
Targets: replay within 3x of the floor, index cold within 3x of the floor, warm under 5 ms.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from reckoner.storage.home import HomeLayout
from reckoner.storage.open_journal import OpenRecordJournal
from reckoner.storage.record_archive import RecordArchive

HEADER = b'{"seq":0,"version":1}\n'
AT0 = 1_700_000_000_000


def _start(record_id: str, at: int, title: str) -> bytes:
    return (
        b'{"seq":1,"at":%d,"tool":"record_start","ok":true,"content":{"title":"%s","record":"%s"}}\n'
        % (at, title.encode(), record_id.encode())
    )


def _set(seq: int, at: int) -> bytes:
    return (
        b'{"seq":%d,"at":%d,"tool":"set","ok":true,"content":{"name":"R%d","value":'
        b'{"num":%d,"dim":[1,2,-3,-1,0,0,0]}}}\n' % (seq, at, seq % 50, seq)
    )


def _eval(seq: int, at: int) -> bytes:
    return (
        b'{"seq":%d,"at":%d,"tool":"eval","ok":true,"content":{"formula":"@R1*@R2/(@R1+@R2)",'
        b'"target":"Rp","rev":%d,"vars":{"R1":{"num":4700,'
        b'"dim":[1,2,-3,-2,0,0,0]},"R2":{"num":10000,'
        b'"dim":[1,2,-3,-2,0,0,0]}},"result":{"num":3197.278911564626,'
        b'"dim":[1,2,-3,-2,0,0,0]}}}\n' % (seq, at, seq)
    )


def _end(seq: int, at: int, record_id: str) -> bytes:
    return b'{"seq":%d,"at":%d,"tool":"record_end","ok":true,"content":{"record":"%s"}}\n' % (
        seq,
        at,
        record_id.encode(),
    )


def write_open_record(layout: HomeLayout, rows: int) -> int:
    body = [HEADER, _start("1700000000000", AT0, "Replay benchmark")]
    body += [(_set if seq % 2 else _eval)(seq, AT0 + seq) for seq in range(2, rows + 1)]
    data = b"".join(body)
    layout.open_record.write_bytes(data)
    return len(data)


def write_closed_records(layout: HomeLayout, count: int, rows_each: int) -> None:
    for index in range(count):
        record_id = str(AT0 + index * 1000)
        at = AT0 + index * 1000
        body = [HEADER, _start(record_id, at, f"Record {index}")]
        body += [(_set if seq % 2 else _eval)(seq, at + seq) for seq in range(2, rows_each)]
        body.append(_end(rows_each, at + rows_each, record_id))
        (layout.records_dir / f"{record_id}.jsonl").write_bytes(b"".join(body))


def best_of(repeats: int, action: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def replay_floor_orjson(path: Path) -> list[object]:
    with open(path, "rb") as handle:
        return [orjson.loads(line) for line in handle.read().splitlines()]


def replay_floor_stdlib(path: Path) -> list[object]:
    with open(path, "rb") as handle:
        return [json.loads(line) for line in handle.read().splitlines()]


def index_floor(directory: Path) -> list[tuple[object, object]]:
    """Open each file, read it, and parse its first and last line: the least a list needs."""
    found = []
    for entry in os.scandir(directory):
        with open(entry.path, "rb") as handle:
            data = handle.read()
        first = data[: data.find(b"\n")]
        last = data[data.rfind(b"\n", 0, len(data) - 1) + 1 :]
        found.append((orjson.loads(first), orjson.loads(last)))
    return found


def bench_replay(root: Path, rows: int, repeats: int) -> None:
    layout = HomeLayout(root / "replay")
    layout.prepare()
    size = write_open_record(layout, rows)

    def recover() -> None:
        recovered = OpenRecordJournal(layout).recover()
        assert recovered is not None and recovered.last_seq == rows

    floor = best_of(repeats, lambda: replay_floor_orjson(layout.open_record))
    ours = best_of(repeats, recover)
    stdlib = best_of(1, lambda: replay_floor_stdlib(layout.open_record))
    # The floor again with the collector paused as recover() pauses it: the strictest bar.
    gc.disable()
    try:
        floor_no_gc = best_of(repeats, lambda: replay_floor_orjson(layout.open_record))
    finally:
        gc.enable()
    print(f"(a) replay of a {rows:,}-row open record ({size / 1e6:.0f} MB), best of {repeats}")
    print(f"    floor (read + orjson.loads per line): {floor * 1000:8.0f} ms")
    print(f"    floor (read + json.loads per line):   {stdlib * 1000:8.0f} ms")
    print(f"    floor (orjson, collector paused):     {floor_no_gc * 1000:8.0f} ms")
    print(f"    OpenRecordJournal.recover():          {ours * 1000:8.0f} ms")
    print(f"    ratio to the orjson floor: {ours / floor:.2f}x   (target <= 3x)")
    print(f"    ratio to the json floor:   {ours / stdlib:.2f}x")
    print(f"    ratio to the paused floor: {ours / floor_no_gc:.2f}x")


def bench_index(root: Path, count: int, rows_each: int, repeats: int) -> None:
    layout = HomeLayout(root / "index")
    layout.prepare()
    write_closed_records(layout, count, rows_each)
    # A listed directory has settled: let its time leave the racy window (a kernel tick).
    time.sleep(0.3)

    def cold() -> None:
        listing = RecordArchive(layout).index()
        assert len(listing.closed) == count and not listing.unreadable

    index_floor(layout.records_dir)  # warm the page cache for both sides alike
    floor = best_of(repeats, lambda: index_floor(layout.records_dir))
    ours = best_of(repeats, cold)
    archive = RecordArchive(layout)
    archive.index()
    warm_runs = 200
    started = time.perf_counter()
    for _ in range(warm_runs):
        archive.index()
    warm = (time.perf_counter() - started) / warm_runs
    print(f"(b) record list over {count:,} closed records of {rows_each} rows, best of {repeats}")
    print(f"    floor (first + last line of each):    {floor * 1000:8.1f} ms")
    print(f"    RecordArchive.index() cold:           {ours * 1000:8.1f} ms")
    print(f"    ratio cold to floor: {ours / floor:.2f}x   (target <= 3x)")
    print(f"    RecordArchive.index() warm: {warm * 1000:.3f} ms   (target < 5 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--rows-per-record", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="reckoner-bench-"))
    try:
        bench_replay(root, options.rows, options.repeats)
        bench_index(root, options.records, options.rows_per_record, options.repeats)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
