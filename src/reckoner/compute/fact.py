"""A `compute` row as an article fact (issue 12: the article cites the receipt). Pure.

Ready for the article writer's row readers, as a lookup's fact is: a run that reached the
archive becomes its own entry with the engine and its version, the run's id and attempt, how
it ended, the receipt's project path to cite, and the last lines of stdout the row keeps,
verbatim (never cut: they are the run's own text). A run that failed after it was archived
(a nonzero exit, its time limit, an engine that could not start) is a fact too, and it says
so; a run refused before the archive carries nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Ending(Enum):
    """How a run ended, as an article tells it."""

    RESULT = "result"  # exit status 0 within the time limit: its output is the run's result
    EXITED = "exited"  # a nonzero exit status
    TIMED_OUT = "timed-out"  # killed at its time limit
    NOT_STARTED = "not-started"  # the engine could not be started


@dataclass(frozen=True, slots=True)
class ComputeFact:
    """One archived run, as the article writer receives it."""

    seq: int
    engine: str
    version: str | None
    run_id: str
    attempt: int
    ending: Ending
    exit: int | None
    receipt: str  # the receipt's path inside the project: what an article cites
    output: str  # the last lines of stdout the row keeps, verbatim

    @property
    def failed(self) -> bool:
        return self.ending is not Ending.RESULT


def compute_fact(seq: int, content: Mapping[str, Any], *, ok: bool) -> ComputeFact | None:
    """The fact of one `compute` row (accepted or refused), or None when it carries none."""
    engine, run_id, receipt = content.get("engine"), content.get("runId"), content.get("receipt")
    attempt, exit_code, timed_out = (
        content.get("attempt"),
        content.get("exit"),
        content.get("timedOut"),
    )
    if not (isinstance(engine, str) and isinstance(run_id, str) and isinstance(receipt, str)):
        return None  # refused before the archive: no run, no receipt
    if type(attempt) is not int or attempt < 1 or type(timed_out) is not bool:
        return None
    if exit_code is not None and type(exit_code) is not int:
        return None
    ending = _ending(ok, exit_code, timed_out)
    if ending is None:
        return None
    version, output = content.get("version"), content.get("stdoutTail")
    return ComputeFact(
        seq=seq,
        engine=engine,
        version=version if isinstance(version, str) and version else None,
        run_id=run_id,
        attempt=attempt,
        ending=ending,
        exit=exit_code,
        receipt=receipt,
        output=output if isinstance(output, str) else "",
    )


def _ending(ok: bool, exit_code: int | None, timed_out: bool) -> Ending | None:
    """How the run ended; None for a row whose verdict and evidence disagree (damaged)."""
    if ok:
        return Ending.RESULT if exit_code == 0 and not timed_out else None
    if timed_out:
        return Ending.TIMED_OUT
    if exit_code is None:
        return Ending.NOT_STARTED
    return Ending.EXITED if exit_code != 0 else None
