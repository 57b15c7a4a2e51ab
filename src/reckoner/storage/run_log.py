"""The run logs under ``logs/``: the only module that writes there (docs/architecture.md).

One file per engine process, created exclusively and held open; each line is
``<timestamp> <LEVEL> <message>[ k=v ...]`` with field values as JSON tokens. It rides on a
dedicated, unregistered stdlib ``Logger`` so nothing reaches the root logger, and stdout is
written only when asked (an MCP stdio server must print nothing but protocol there).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from reckoner import wire
from reckoner.storage.home import HomeLayout

LOG_LEVEL_ENV = "RECKONER_LOG_LEVEL"
KEEP_FILES = 20
KEEP_BYTES = 50 * 1024 * 1024

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
}
_LEVEL_NAMES = {
    logging.DEBUG: "DEBUG",
    logging.INFO: "INFO",
    logging.WARNING: "WARN",
    logging.ERROR: "ERROR",
}
_RUN_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}\.\d{3}(-\d+)?\.log$")
_CONTINUATION = "  | "


def chosen_level(given: str | None = None, *, unset: str = "info") -> str:
    """The level ``given`` names, else the one ``RECKONER_LOG_LEVEL`` names (the one reader
    of it, for the run logs and the server's stderr alike); anything unknown is ``unset``."""
    name = (os.environ.get(LOG_LEVEL_ENV) if given is None else given) or ""
    name = name.strip().lower()
    return name if name in _LEVELS or name == "off" else unset


def stdlib_level(name: str) -> int:
    """The ``logging`` level of a level name; ``off`` is above every level."""
    return _LEVELS.get(name, logging.CRITICAL + 1)


def _epoch_ms() -> int:
    return time.time_ns() // 1_000_000


def _iso_utc(ms: int) -> str:
    seconds, millis = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def _file_stamp(ms: int) -> str:
    seconds, millis = divmod(ms, 1000)
    return time.strftime("%Y-%m-%d_%H-%M-%S", time.gmtime(seconds)) + f".{millis:03d}"


def _token(value: Any) -> str:
    """One field value as a JSON token: scalars as JSON, objects and arrays compact."""
    if isinstance(value, BaseException):
        value = str(value) or type(value).__name__
    elif (
        not isinstance(value, str | int | float | bool | dict | list | tuple) and value is not None
    ):
        value = str(value)
    try:
        return wire.dumps_text(value)
    except (TypeError, ValueError):
        return wire.dumps_text(repr(value))


def render_line(at_ms: int, level: str, message: str, fields: Mapping[str, Any]) -> str:
    """One log entry: the line, then ``  | `` continuation lines (extra text, tracebacks)."""
    first, *rest = str(message).split("\n")
    parts = [_iso_utc(at_ms), level, first]
    parts.extend(f"{key}={_token(value)}" for key, value in fields.items())
    continuation = list(rest)
    for value in fields.values():
        if isinstance(value, BaseException):
            rendered = "".join(traceback.format_exception(value)).rstrip("\n")
            continuation.extend(rendered.split("\n"))
    lines = [" ".join(parts)]
    lines.extend(_CONTINUATION + line for line in continuation)
    return "\n".join(lines)


class _LineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        at_ms: int = getattr(record, "reckoner_at", _epoch_ms())
        fields: Mapping[str, Any] = getattr(record, "reckoner_fields", {})
        return render_line(at_ms, _LEVEL_NAMES[record.levelno], record.getMessage(), fields)


class _QuietStreamHandler(logging.StreamHandler[IO[str]]):
    """A handler that swallows its own failures: a full disk must not break a calculation."""

    def handleError(self, record: logging.LogRecord) -> None:
        return None


class RunLog:
    """One engine process's log; every method is safe to call whatever the disk does."""

    def __init__(
        self,
        path: Path | None,
        level: str,
        handlers: list[logging.Handler],
        clock: Callable[[], int],
        open_error: str | None = None,
    ) -> None:
        self.path = path
        self.level = level
        self.open_error = open_error
        self._clock = clock
        self._handlers = handlers
        # A private Logger, never registered with logging's manager: nothing propagates to
        # the root logger, and a closed RunLog leaves nothing behind.
        self._logger = logging.Logger(f"reckoner.run.{id(self):x}")
        self._logger.propagate = False
        self._logger.setLevel(stdlib_level(level))
        for handler in handlers:
            self._logger.addHandler(handler)

    def debug(self, message: str, **fields: Any) -> None:
        self._log(logging.DEBUG, message, fields)

    def info(self, message: str, **fields: Any) -> None:
        self._log(logging.INFO, message, fields)

    def warn(self, message: str, **fields: Any) -> None:
        self._log(logging.WARNING, message, fields)

    def error(self, message: str, **fields: Any) -> None:
        self._log(logging.ERROR, message, fields)

    def _log(self, levelno: int, message: str, fields: dict[str, Any]) -> None:
        if not self._handlers or not self._logger.isEnabledFor(levelno):
            return
        try:
            extra = {"reckoner_at": self._clock(), "reckoner_fields": fields}
            self._logger.log(levelno, "%s", message, extra=extra)
        except Exception:  # a log call never raises into the engine
            pass

    def close(self) -> None:
        """Flush and close the file; later calls write nothing."""
        handlers, self._handlers = self._handlers, []
        for handler in handlers:
            self._logger.removeHandler(handler)
            with contextlib.suppress(Exception):
                handler.close()


def open_run_log(
    layout: HomeLayout,
    *,
    to_stdout: bool = False,
    level: str | None = None,
    clock: Callable[[], int] | None = None,
) -> RunLog:
    """Create this process's log file under ``logs/`` and apply retention.

    Never raises: when the file cannot be created the log still writes to stdout if asked,
    and ``open_error`` says why.
    """
    chosen = chosen_level(level)
    now = clock or _epoch_ms
    handlers: list[logging.Handler] = []
    if chosen == "off":
        return RunLog(None, chosen, handlers, now)
    formatter = _LineFormatter()
    path: Path | None = None
    open_error: str | None = None
    try:
        path, stream = _create_exclusive(layout.logs_dir, _file_stamp(now()))
    except OSError as error:
        open_error = f"the run log cannot be created in {layout.logs_dir} ({error})"
    else:
        handler = _QuietStreamHandler(stream)
        handler.setFormatter(formatter)
        handlers.append(handler)
        _apply_retention(layout.logs_dir, keep=path)
    if to_stdout:
        console = _QuietStreamHandler(sys.stdout)
        console.setFormatter(formatter)
        handlers.append(console)
    return RunLog(path, chosen, handlers, now, open_error)


def _create_exclusive(directory: Path, stamp: str) -> tuple[Path, IO[str]]:
    directory.mkdir(parents=True, exist_ok=True)
    suffix = 1
    while True:
        name = f"{stamp}.log" if suffix == 1 else f"{stamp}-{suffix}.log"
        path = directory / name
        try:
            # Line-buffered text: every entry reaches the OS as it is written.
            stream = open(path, "x", encoding="utf-8", buffering=1)  # noqa: SIM115
        except FileExistsError:
            suffix += 1
            continue
        return path, stream


def _apply_retention(directory: Path, keep: Path) -> None:
    """Keep the newest ``KEEP_FILES`` run files and at most ``KEEP_BYTES`` in all."""
    try:
        runs = []
        for entry in os.scandir(directory):
            if _RUN_FILE.match(entry.name) and entry.is_file(follow_symlinks=False):
                runs.append((entry.name, entry.stat(follow_symlinks=False).st_size))
    except OSError:
        return
    # Names are UTC timestamps, so they sort oldest to newest; the suffix orders collisions.
    runs.sort(key=lambda run: _run_sort_key(run[0]), reverse=True)
    kept = 1  # the new run's own file
    over_budget = False
    total = 0
    for name, size in runs:
        if name == keep.name:
            continue
        if not over_budget and kept < KEEP_FILES and total + size <= KEEP_BYTES:
            kept += 1
            total += size
            continue
        # Once over the budget every older file goes too, so no gap opens in the history.
        over_budget = True
        with contextlib.suppress(OSError):
            os.unlink(directory / name)


def _run_sort_key(name: str) -> tuple[str, int]:
    stem = name[: -len(".log")]
    base, _, suffix = stem.partition(".")
    millis, _, counter = suffix.partition("-")
    return f"{base}.{millis}", int(counter) if counter else 1
