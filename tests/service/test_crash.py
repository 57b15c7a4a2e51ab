"""The crash test (issue 3, docs/guide/records.md): SIGKILL at random moments loses nothing seen.

A child process runs thousands of calls on one home and reports each receipt on stdout; the
parent kills it with SIGKILL after a random delay, then checks the home: every call whose
receipt it saw is a row of the record, seqs run 1, 2, 3 ... without a gap or a repeat, the
slot table of a reopened engine equals a replay of the file's rows computed here, and the
engine opens. Several trials share one home, so a record torn by one kill is resumed, torn
and resumed again. Each child is forked from one launcher interpreter started with
``sys.executable``, so a trial costs a fork rather than an interpreter start and an import.
"""

from __future__ import annotations

import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from service_helpers import as_wire, file_lines, file_rows, open_file, replay

from reckoner import Engine, wire

CHILD = Path(__file__).with_name("crash_child.py")
CALLS_PER_CHILD = 3000
TRIALS_PER_HOME = 5


class _Launcher:
    """The crash child's launcher: one interpreter that forks a fresh child per trial."""

    def __init__(self) -> None:
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        self.process = subprocess.Popen(
            [sys.executable, str(CHILD), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        # Drain stdout as it comes, so a child never blocks on a full pipe.
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.messages.put(wire.loads(line))
        self.messages.put(None)

    def _next(self) -> dict[str, Any]:
        message = self.messages.get(timeout=60)
        assert message is not None, self._stderr()
        assert "error" not in message, message["error"]
        return message

    def _stderr(self) -> str:
        self.process.kill()
        return self.process.stderr.read().decode() if self.process.stderr else ""

    def trial(self, home: Path, seed: int, rng: random.Random) -> list[dict[str, Any]]:
        """Fork a child, kill it at a random moment, answer the receipts the parent saw."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"{home}\t{seed}\t{CALLS_PER_CHILD}\n".encode())
        self.process.stdin.flush()
        seen: list[dict[str, Any]] = []
        pid: int | None = None
        early = rng.random() < 0.1
        try:
            # The child may report before the launcher names it: take both in any order.
            ready = False
            while pid is None or not (early or ready):
                message = self._next()
                if "pid" in message:
                    pid = message["pid"]
                elif "ready" in message:
                    ready = True
                else:
                    seen.append(message)
            # Now and then the kill lands while the child is still opening the home.
            time.sleep(rng.uniform(0.0, 0.01) if early else rng.uniform(0.0, 0.25))
        finally:
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
        while "exit" not in (message := self._next()):
            seen.append(message)
        assert message == {"exit": pid, "signal": signal.SIGKILL}
        return [line for line in seen if "seq" in line]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.reader.join(30)


def _record_file(home: Path, record: str) -> Path:
    """Where a record's rows are: the open file while it is the open record, else closed."""
    path = open_file(home)
    if path.exists():
        rows = file_rows(path)
        if rows and rows[0].get("content", {}).get("record") == record:
            return path
    return home / "records" / f"{record}.jsonl"


def _check_rows(path: Path, receipts: list[dict[str, Any]], kills: int) -> list[dict[str, Any]]:
    """Every seen receipt is its row; seq has no gap and no repeat; no internal fault."""
    assert path.exists(), f"a record the parent saw is missing: {path}"
    rows = file_rows(path)
    seqs = [row["seq"] for row in rows]
    # Resume continues from the last whole row, so seq has no gap and no repeat.
    assert seqs == list(range(1, len(rows) + 1))
    by_seq = {row["seq"]: row for row in rows}
    faults = [row for row in rows if row["ok"] is False and "internal" in row["content"]["error"]]
    assert not faults, f"an internal error reached the record: {faults[0]}"
    for receipt in receipts:
        row = by_seq.get(receipt["seq"])
        assert row is not None, f"a receipt the parent saw has no row: {receipt}"
        assert row["tool"] == receipt["tool"]
        assert row["ok"] is receipt["ok"]
        if receipt["ok"] and receipt["tool"] == "set":
            assert row["content"]["name"] == receipt["name"]
        if receipt["ok"] and receipt["tool"] == "eval":
            assert row["content"]["target"] == receipt["name"]
            assert row["content"]["rev"] == receipt["rev"]
    # A kill may leave one torn fragment; nothing else in the file fails to parse.
    broken = 0
    for line in file_lines(path)[1:]:
        try:
            wire.loads(line)
        except ValueError:
            broken += 1
    assert broken <= kills
    return rows


def _check_home(home: Path, seen: list[dict[str, Any]], kills: int) -> None:
    by_record: dict[str, list[dict[str, Any]]] = {}
    for receipt in seen:
        by_record.setdefault(receipt["record"], []).append(receipt)
    for record, receipts in by_record.items():
        path = _record_file(home, record)
        _check_rows(path, receipts, kills)
        if receipts[-1]["tool"] == "record_end" and receipts[-1]["ok"]:
            assert path.parent.name == "records"  # the receipt came after the rename
    path = open_file(home)
    if not path.exists():
        # A kill between closing one record and starting the next, or before the first.
        with Engine(home) as engine:
            assert engine.open_record_id is None
        return
    record = file_rows(path)[0]["content"]["record"]
    _check_rows(path, by_record.get(record, []), kills)
    # A last line without its newline was never acknowledged, even when it parses: recovery
    # drops it (issue 8), so the expectation is built from the whole lines alone.
    rows = _whole_line_rows(path)
    if _last_accepted_tool(rows) == "record_end":
        # Killed between the end row and the rename: the next start finishes the close.
        with Engine(home) as engine:
            assert engine.open_record_id is None
        assert not path.exists()
        assert file_rows(home / "records" / f"{record}.jsonl") == rows
        return
    expected = as_wire(replay(rows))
    with Engine(home) as engine:
        assert engine.open_record_id == record
        assert as_wire(engine.slot_snapshot()) == expected
        # A slot whose last write the parent saw has exactly the revision that receipt named.
        last_seen: dict[str, dict[str, Any]] = {}
        for receipt in by_record.get(record, []):
            if receipt["ok"] and receipt["tool"] in ("set", "eval"):
                last_seen[receipt["name"]] = receipt
        for name, receipt in last_seen.items():
            later = [row for row in rows[receipt["seq"] :] if _writes(row) == name]
            if not later:
                if receipt["rev"] is None:
                    assert name not in expected
                else:
                    assert expected[name][0] == receipt["rev"]


def _whole_line_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of the lines that end in a newline (header excluded)."""
    data = path.read_bytes()
    rows = []
    for line in data[: data.rfind(b"\n") + 1].splitlines()[1:]:
        try:
            row = wire.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def _last_accepted_tool(rows: list[dict[str, Any]]) -> str | None:
    accepted = [row["tool"] for row in rows if row.get("ok") is True]
    return accepted[-1] if accepted else None


def _writes(row: dict[str, Any]) -> str | None:
    """The slot a row wrote or deleted, if it succeeded."""
    if row.get("ok") is not True:
        return None
    if row["tool"] == "set":
        return str(row["content"]["name"])
    if row["tool"] == "eval":
        return str(row["content"]["target"])
    return None


def _run_trials(tmp_path: Path, trials: int, seed: int) -> None:
    rng = random.Random(seed)
    launcher = _Launcher()
    try:
        _chains(tmp_path, trials, rng, launcher)
    finally:
        launcher.close()


def _chains(tmp_path: Path, trials: int, rng: random.Random, launcher: _Launcher) -> None:
    homes = (trials + TRIALS_PER_HOME - 1) // TRIALS_PER_HOME
    for home_index in range(homes):
        home = tmp_path / f"home{home_index}"
        seen_so_far: list[dict[str, Any]] = []
        rounds = min(TRIALS_PER_HOME, trials - home_index * TRIALS_PER_HOME)
        for kills in range(1, rounds + 1):
            seen_so_far += launcher.trial(home, rng.randrange(1 << 30), rng)
            _check_home(home, seen_so_far, kills)
        # After all that the record still closes, and every record seen is listed.
        with Engine(home) as engine:
            record = engine.open_record_id
            if record is not None:
                assert engine.call("record_end", {}) == {"ok": True}
            listed = {entry.id for entry in engine.records().closed}
            assert {receipt["record"] for receipt in seen_so_far} <= listed
            assert engine.records().unreadable == []


def test_sigkill_at_random_moments_loses_no_seen_receipt(tmp_path: Path) -> None:
    """25 trials on five homes, each torn and resumed five times; three of the kills land
    while the child is still opening the home (the long variant runs 500).
    Spec: docs/guide/records.md (recovery by replay)."""
    _run_trials(tmp_path, trials=25, seed=20261130)


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_no_seen_receipt_500_trials(tmp_path: Path) -> None:
    """The long variant (500 trials) of test_sigkill_at_random_moments_loses_no_seen_receipt,
    which runs by default. Spec: docs/guide/records.md (recovery by replay)."""
    _run_trials(tmp_path, trials=500, seed=4242)
