"""The gate of the preset tools whose result comes from outside the engine (``search``).

Such a call is gated and checked under the engine's lock, run outside it (a lookup takes
seconds), and its one row appended to the record that was open when the call began; a
record closed meanwhile, or an engine closed meanwhile, gets no row.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from reckoner.contract.refusal import Refusal
from reckoner.core import ErrorCode

from .arguments import fact_args
from .lifecycle import RecordTrace

Receipt = dict[str, Any]


class FactTool(Protocol):
    """A preset tool whose result comes from outside the engine and is recorded as a fact.

    The engine gates the call (open record, argument shape), hands it over with the open
    record's earlier rows of the same tool, and appends the one row ``run`` returns.
    """

    def run(
        self, args: dict[str, Any], earlier: list[dict[str, Any]], pending: int
    ) -> tuple[bool, Receipt, dict[str, Any]]:
        """(row ok, receipt, row content); ``earlier`` are the contents of this record's rows
        of this tool, ``pending`` the calls of it still running. Must not raise."""
        ...


def closed_receipt() -> Receipt:
    """The answer of an engine that has been closed."""
    return Refusal(
        ErrorCode.INVALID_ARGS,
        "this engine has been closed; open a new Engine on the home to continue",
    ).receipt()


class FactGate:
    """The attached preset tools of one engine, and the calls of each still running."""

    def __init__(
        self, mutex: threading.RLock, trace: RecordTrace, closed: Callable[[], bool]
    ) -> None:
        self._mutex = mutex
        self._trace = trace
        self._closed = closed
        self.tools: dict[str, FactTool] = {}
        self._pending: dict[tuple[str, str], int] = {}  # by tool and record

    def call(self, tool: str, args: object) -> Receipt:
        """Gate and check under the lock, run outside it, then append the one row."""
        trace = self._trace
        with self._mutex:
            if self._closed():
                return closed_receipt()
            record = trace.record
            if record is None:
                # As for the six tools: with no record open nothing is written anywhere.
                return Refusal(
                    ErrorCode.OPEN_RECORD_NOT_FOUND,
                    f"{tool} needs an open record, because every lookup is recorded, and "
                    f"none is open; call record_start with a title first",
                ).receipt()
            try:
                checked = fact_args(tool, args)
            except Refusal as refusal:
                trace.append_refusal(tool, refusal)
                return refusal.receipt()
            earlier = list(record.fact_rows.get(tool, ()))
            running = (tool, record.record_id)
            pending = self._pending.get(running, 0)
            self._pending[running] = pending + 1
        try:
            ok, receipt, content = self._run(tool, checked, earlier, pending)
        finally:
            with self._mutex:
                if self._pending[running] == 1:
                    del self._pending[running]
                else:
                    self._pending[running] -= 1
        with self._mutex:
            if self._closed():
                # The home may already belong to another process: write nothing more.
                return Refusal(
                    ErrorCode.UNKNOWN_ERROR,
                    f"internal error: the engine closed while this {tool} ran, so its result "
                    f"was not recorded; ask again once the server is back",
                ).receipt()
            if trace.record is not record:
                trace.log.warn("a lookup outlived its record; its row was not written", tool=tool)
                return Refusal(
                    ErrorCode.OPEN_RECORD_NOT_FOUND,
                    f"the record this {tool} began in was closed before it finished, so its "
                    f"result was not recorded; open a record and ask again",
                ).receipt()
            trace.append(tool, ok, content)
            record.fact_rows.setdefault(tool, []).append(content)
        return receipt

    def _run(
        self, tool: str, args: dict[str, Any], earlier: list[dict[str, Any]], pending: int
    ) -> tuple[bool, Receipt, dict[str, Any]]:
        try:
            return self.tools[tool].run(args, earlier, pending)
        except Exception as error:  # run must not raise; if it does, the receipt says so
            self._trace.log.error("internal error", tool=tool, error=error)
            refusal = Refusal(
                ErrorCode.UNKNOWN_ERROR, f"internal error: {type(error).__name__}: {error}"
            )
            content = {"code": refusal.code.value, "error": refusal.sentence}
            return False, refusal.receipt(), content
