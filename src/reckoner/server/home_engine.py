"""The home's engine as the server holds it: open when the home can be used, and otherwise a
receipt on every call that says why (issue 9, "when a server truly cannot serve").

A server whose home is unwritable, a file, locked or otherwise unusable still completes the
MCP handshake, serves its prompts, resources and instructions, and answers each tool call
with ``{ok: false, code, error}``: the client shows that sentence to the model and the
person, where a server that exited would show only "Connection closed". Every call tries to
open the home again, so fixing the home needs no restart of the client.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reckoner.contract.codes import ErrorCode
from reckoner.core.errors import Failure
from reckoner.service import Engine
from reckoner.storage.home import HomeError, resolve_home

UNSERVABLE_CODE = ErrorCode.UNKNOWN_ERROR
"""The code of a call the server could not serve: none of the engine's 19 codes is about the
machine, and this one tells the model to report the fault rather than work around it."""


def unusable_home_cause(home: Path, error: OSError) -> str:
    """What is wrong with a home the engine could not open, and the fix, in one clause."""
    if isinstance(error, HomeError):
        return str(error)
    reason = error.strerror or type(error).__name__
    return f"the home {home} cannot be used ({reason}); fix it or pass another --home"


class HomeEngine:
    """One engine on one home, opened on first use and again after each failure to open."""

    def __init__(self, home: Path | str | None, **engine_options: Any) -> None:
        self.home = resolve_home(home)
        self._engine_options = engine_options
        self._lock = threading.Lock()
        self._engine: Engine | None = None
        self._closed = False
        self._on_open: list[Callable[[Engine], object]] = []
        self.failure: str | None = None
        """Why the home could not be opened the last time it was tried; None once it opened."""

    def open(self) -> Engine | None:
        """The engine, opening it if it is not open yet; None while the home is unusable."""
        with self._lock:
            if self._engine is None and not self._closed:
                try:
                    engine = Engine(self.home, **self._engine_options)
                except OSError as error:
                    self.failure = unusable_home_cause(self.home, error)
                else:
                    for prepare in self._on_open:
                        prepare(engine)
                    self._engine, self.failure = engine, None
            return self._engine

    def when_open(self, prepare: Callable[[Engine], object]) -> None:
        """Run ``prepare`` on the engine as soon as it opens (now, if it is open already):
        a preset attaches its tools this way, whenever the home becomes usable."""
        with self._lock:
            self._on_open.append(prepare)
            if self._engine is not None:
                prepare(self._engine)

    def call(self, tool: str, args: Any) -> dict[str, Any]:
        """The engine's receipt, or the receipt that says why there is no engine."""
        engine = self.open()
        if engine is not None:
            return engine.call(tool, args)
        sentence = (
            f"internal error: the reckoner server cannot use its home, so this call did "
            f"nothing: {self.failure}; the next call tries again"
        )
        return Failure(UNSERVABLE_CODE, sentence).receipt()

    def close(self) -> None:
        """Close the engine if it opened; later calls answer that the server is closing."""
        with self._lock:
            self._closed = True
            engine, self._engine = self._engine, None
            self.failure = "the server is shutting down; start it again"
        if engine is not None:
            engine.close()
