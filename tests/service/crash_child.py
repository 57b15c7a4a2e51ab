"""The child of the crash test: opens an Engine on a home and calls until it is killed.

``python crash_child.py HOME SEED CALLS`` runs one child. ``python crash_child.py --serve``
is a launcher that imports reckoner once and forks one such child per line ``HOME SEED
CALLS`` read on stdin, so a trial costs a fork, not an interpreter start; it reports
``{"pid": N}`` and, once the child is dead, ``{"exit": N, "signal": S}``.

After each receipt the child writes one JSON line to stdout with a single ``write`` (pipe
writes this small are atomic): the row's ``seq``, the tool, ``ok``, the slot name and the
revision. A line is written only after ``call`` returned, so every line the parent sees
names a row the engine had already handed to the operating system.
"""

from __future__ import annotations

import os
import random
import sys
import time
import traceback
from typing import Any

from reckoner import Engine, wire

NAMES = ("V", "R", "I", "P", "Z", "A", "T")
FORMULAS = (
    ("(@V)^2/@R", "P"),
    ("@V/@R", "I"),
    ("@P*2+@P", "P"),
    ("@I*@R", "V"),
    ("@V+@R", "X"),  # refused: the vectors differ
    ("@A*2", "A"),
    ("@Z*@I", "Z"),
    ("$sum_{k=1}^{4}(k*@T)", "T"),
    ("@missing+1", "Y"),  # refused: no such slot
)


def _say(line: dict[str, Any]) -> None:
    os.write(1, wire.dumps(line) + b"\n")


def _next_call(rng: random.Random) -> tuple[str, dict[str, Any]]:
    pick = rng.random()
    name = rng.choice(NAMES)
    if pick < 0.40:
        dim = rng.choice(("volt", "ohm", "ampere", None))
        return "set", {"name": name, "value": {"num": rng.uniform(-1e4, 1e4), "dim": dim}}
    if pick < 0.48:
        value = {"re": rng.uniform(-9, 9), "im": rng.uniform(-9, 9), "dim": "ohm"}
        return "set", {"name": name, "value": value}
    if pick < 0.53:
        return "set", {"name": name, "value": {"array": [rng.random() for _ in range(8)]}}
    if pick < 0.58:
        return "set", {"name": name, "value": None}
    if pick < 0.60:
        return "set", {"name": name, "value": {"num": 1, "dim": "furlong"}}  # refused
    if pick < 0.63:
        return "record_message", {"text": "x" * rng.randint(1, 3000)}
    formula, target = rng.choice(FORMULAS)
    return "eval", {"formula": formula, "target": target}


def run_child(home: str, seed: int, calls: int) -> None:
    rng = random.Random(seed)
    engine = Engine(home)
    if engine.open_record_id is None:
        assert engine.call("record_start", {"title": f"crash trial {seed}"}) == {"ok": True}
    view = engine.read_record(engine.open_record_id or "")
    assert view is not None
    seq = view.rows[-1]["seq"]
    _say({"ready": seq, "record": engine.open_record_id})
    for _ in range(calls):
        if rng.random() < 0.003:
            # Now and then close the record and start the next: kills land in those too.
            record = engine.open_record_id
            receipt = engine.call("record_end", {"text": "rotating"})
            _say({"seq": seq + 1, "tool": "record_end", "ok": receipt["ok"], "record": record})
            receipt = engine.call("record_start", {"title": f"crash trial {seed} again"})
            seq = 1
            _say(
                {
                    "seq": seq,
                    "tool": "record_start",
                    "ok": receipt["ok"],
                    "record": engine.open_record_id,
                }
            )
            continue
        tool, args = _next_call(rng)
        receipt = engine.call(tool, args)
        seq += 1
        _say(
            {
                "seq": seq,
                "tool": tool,
                "ok": receipt["ok"],
                "name": receipt.get("name", receipt.get("target")),
                "rev": receipt.get("rev"),
                "record": engine.open_record_id,
            }
        )
    _say({"done": seq})
    time.sleep(120)  # wait for the parent's SIGKILL like every other trial


def serve() -> None:
    """Fork one child per request line; report its pid and, after its death, its signal."""
    for line in sys.stdin:
        home, seed, calls = line.split("\t")
        pid = os.fork()
        if pid == 0:
            try:
                run_child(home, int(seed), int(calls))
            except BaseException:
                _say({"error": traceback.format_exc()})
            finally:
                os._exit(1)
        _say({"pid": pid})
        _, status = os.waitpid(pid, 0)
        _say({"exit": pid, "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None})


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        run_child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
