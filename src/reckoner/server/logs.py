"""The server's own log lines: everything ``logging`` carries goes to stderr (never stdout,
which belongs to the protocol over stdio), at the level RECKONER_LOG_LEVEL names.

A client that hangs up is no fault of the server, so its traceback becomes one line.
"""

from __future__ import annotations

import asyncio
import logging
import sys

import anyio
from starlette.requests import ClientDisconnect

from reckoner.storage.run_log import chosen_level, stdlib_level

_HANG_UPS: tuple[type[BaseException], ...] = (
    ClientDisconnect,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    BrokenPipeError,
    ConnectionResetError,
)
"""What the transports raise when the client went away; the SDK logs them with a traceback."""


class HangUpsInOneLine(logging.Filter):
    """A client that hangs up mid-request, or a request still open when the server stops, is
    not a fault of the server: one line, no traceback.

    The call it made, if one had started, still finishes and keeps its row (``in_worker``).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        failure = record.exc_info[1] if record.exc_info else None
        if isinstance(failure, _HANG_UPS):
            what = "a client hung up mid-request"
        elif isinstance(failure, asyncio.CancelledError):
            what = "a request still open at shutdown was cancelled"
        else:
            return True
        said = " ".join(record.getMessage().split())
        record.msg = what + " (%s: %s)"
        record.args = (said, type(failure).__name__)
        record.exc_info = None
        record.exc_text = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def configure_stderr_logging() -> None:
    """The SDK and uvicorn log through `logging`; send all of it to stderr, never stdout
    (warnings and above unless RECKONER_LOG_LEVEL says otherwise)."""
    level = stdlib_level(chosen_level(unset="warn"))
    root = logging.getLogger()
    if not any(getattr(h, "stream", None) is sys.stderr for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler.addFilter(HangUpsInOneLine())
        root.addHandler(handler)
    root.setLevel(level)
