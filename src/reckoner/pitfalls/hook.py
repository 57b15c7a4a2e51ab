"""``reckoner pitfalls hook``: the Claude Code hook that brings the reminder to every tool.

Reads one hook event as JSON on stdin. ``PostToolUseFailure`` and ``PostToolUse`` feed the
detector, ``SessionEnd`` forgets the session, ``SessionStart`` shows the model the project's
most recent lessons. When a reminder fires and lessons match, it
prints the hook output that adds the reminder as additional context; otherwise it prints
nothing. It never blocks a tool and never fails the agent's turn: on any bad input or fault
it exits 0 in silence. It starts fast: it reads and writes JSON through ``lean_json`` (the
standard library's C scanner without the ``json`` package and its ``re``), paths are
strings (no ``pathlib``), the library and the search load only when a reminder fires, and
they then read the library's search cache instead of every line of ``entries.jsonl``.

The detector's state is one small JSON file per session under ``<home>/pitfalls/sessions``,
read and written under an exclusive ``flock``, so two hooks of one session running at once
take turns instead of losing a count.
"""

from __future__ import annotations

import fcntl
import gc
import os
import sys
import time
import zlib

from reckoner.host.files import read_stream

from .detector import SessionState, build_clue, observe_failure, observe_success
from .lean_json import dumps, loads

TYPE_CHECKING = False  # not typing's: the hook loads this module and must start fast
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import IO, Any

FAILURE_EVENT = "PostToolUseFailure"
SUCCESS_EVENT = "PostToolUse"
END_EVENT = "SessionEnd"
START_EVENT = "SessionStart"
START_LESSONS = 5
"""How many of the project's lessons a new session is shown (the most recent)."""
SESSIONS_DIR = os.path.join("pitfalls", "sessions")
REMINDER_LESSONS = 3
LOCK_WAIT_S = 2.0
"""How long a hook waits for another hook of its session; then it gives up in silence."""
MAX_EVENT_BYTES = 1 << 20
"""The most of stdin a hook reads: an event is a few kilobytes; more is ignored (logged)."""
EVENT_SECONDS = 5.0
"""How long a hook waits for its event on stdin; a stdin that never ends is cut there."""


def _state_path(home: str, session_id: str) -> str:
    # A readable, safe file name (session ids are UUIDs) with a checksum of the whole id, so
    # two ids that differ only in characters dropped here still get two files.
    raw = session_id.encode("utf-8", "replace")
    safe = "".join(c for c in session_id[:64] if c.isascii() and (c.isalnum() or c in "_-"))
    return os.path.join(home, SESSIONS_DIR, f"{safe}-{zlib.crc32(raw):08x}.json")


def _not_the_agents_own(event: dict[str, Any]) -> bool:
    """An event that says nothing about the agent's tools: the user interrupted the tool
    (``is_interrupt``), or a subagent's tool ran (``agent_id``: the subagent's own turn,
    whose failures are not this session's streak). Neither counts, neither clears a streak."""
    return event.get("is_interrupt") is True or bool(event.get("agent_id"))


def _failed(event: dict[str, Any]) -> bool:
    if event.get("hook_event_name") == FAILURE_EVENT:
        return True
    response = event.get("tool_response")
    # An MCP tool's refusal can arrive as a PostToolUse whose result says isError.
    return isinstance(response, dict) and (
        response.get("isError") is True or response.get("is_error") is True
    )


def _error_text(event: dict[str, Any]) -> str:
    error = event.get("error")
    if isinstance(error, str):
        return error
    response = event.get("tool_response")
    if response is None:
        return ""
    return dumps(response)[:300]


def _lock(fd: int) -> None:
    # Never block the agent's turn behind a stuck hook: wait a little, then give up.
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.005)


def _observe(path: str, tool: str, failed: bool, now: float) -> bool:
    """Update the session's state under its lock; True when a reminder fires."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _lock(fd)
        raw = os.read(fd, 65536)
        try:
            state = SessionState.from_json(loads(raw) if raw else None)
        except (ValueError, RecursionError):
            state = SessionState()  # a torn or hand-broken state starts afresh
        if failed:
            fired = observe_failure(state, tool, now)
        else:
            observe_success(state, tool)
            fired = False
        data = dumps(state.to_json(), ascii_only=True).encode()
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, data)
        return fired
    finally:
        os.close(fd)


def _reminder(event: dict[str, Any], home: str, project_dir: str | None) -> str | None:
    from .render import reminder
    from .tiers import DEFAULT_PROJECT_DIR, Pitfalls

    cwd = event.get("cwd")
    pitfalls = Pitfalls.open(
        home,
        project=cwd if isinstance(cwd, str) and cwd else None,
        project_dir=DEFAULT_PROJECT_DIR if project_dir is None else project_dir,
    )
    clue = build_clue(event.get("tool_input"), (_error_text(event),))
    tool = str(event["tool_name"])
    hits = pitfalls.search(clue, limit=REMINDER_LESSONS, failed_tool=tool)
    cards = [hit.library.card_path(hit.entry["id"]) for hit in hits]
    return reminder([hit.entry for hit in hits], str(event["tool_name"]), cards)


def _project_lessons(event: dict[str, Any], home: str, project_dir: str | None) -> str | None:
    """The project's most recent lessons for a session that starts; None when it has none
    (a session outside a project, or a project with no library, is told nothing)."""
    from .render import session_start
    from .tiers import DEFAULT_PROJECT_DIR, Pitfalls

    cwd = event.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return None
    pitfalls = Pitfalls.open(
        home, project=cwd, project_dir=DEFAULT_PROJECT_DIR if project_dir is None else project_dir
    )
    library = pitfalls.project_library
    if library is None:
        return None
    found = library.index().search("", limit=START_LESSONS)
    entries = [entry for entry, _ in found]
    return session_start(entries, [library.card_path(entry["id"]) for entry in entries])


def handle(
    event: Any, home: str, *, project_dir: str | None = None, now: float | None = None
) -> dict[str, Any] | None:
    """The hook output for one event, or None to print nothing."""
    if not isinstance(event, dict):
        return None
    name, session = event.get("hook_event_name"), event.get("session_id")
    if not isinstance(session, str) or not session:
        return None
    if name == START_EVENT:
        text = _project_lessons(event, home, project_dir)
        if text is None:
            return None
        return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
    path = _state_path(home, session)
    if name == END_EVENT:
        try:  # noqa: SIM105 - contextlib would cost every hook call its import
            os.unlink(path)
        except FileNotFoundError:
            pass
        return None
    tool = event.get("tool_name")
    if name not in (FAILURE_EVENT, SUCCESS_EVENT) or not isinstance(tool, str) or not tool:
        return None
    if _not_the_agents_own(event):
        return None
    if not _observe(path, tool, _failed(event), time.time() if now is None else now):
        return None
    text = _reminder(event, home, project_dir)
    if text is None:
        return None
    return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}


def _read_event(stream: IO[bytes]) -> bytes:
    """The event, at most MAX_EVENT_BYTES of it within EVENT_SECONDS; the rest is ignored."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory stream: bounded all the same
        data, more = stream.read(MAX_EVENT_BYTES), bool(stream.read(1))
    else:
        data, more = read_stream(fd, MAX_EVENT_BYTES, EVENT_SECONDS)
    if more:
        sys.stderr.write(
            f"reckoner pitfalls hook: the event on stdin was longer than {MAX_EVENT_BYTES} "
            f"bytes or not finished within {EVENT_SECONDS:g} s; the rest was ignored\n"
        )
        sys.stderr.flush()  # the command leaves by os._exit, which flushes nothing
    return data


def _options(argv: Sequence[str]) -> tuple[str | None, str | None]:
    home = project_dir = None
    items = list(argv)
    while items:
        flag = items.pop(0)
        value = items.pop(0) if items else None
        if flag == "--home":
            home = value
        elif flag == "--project-dir":
            project_dir = value
    return home, project_dir


def main(
    argv: Sequence[str] = (), stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None
) -> int:
    """The command: always exit code 0, output only when a reminder fires."""
    # The run makes no reference cycles worth finding, and reference counting frees the
    # rest; cycle collections over everything the imports made only cost it time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        home_option, project_dir = _options(argv)
        from reckoner.storage.home_path import home_directory

        event = loads(_read_event(stdin or sys.stdin.buffer))
        output = handle(event, home_directory(home_option), project_dir=project_dir)
        if output is not None:
            # ASCII JSON reads the same whatever the terminal's or the locale's encoding.
            out = stdout or sys.stdout.buffer
            out.write(dumps(output, ascii_only=True).encode() + b"\n")
            out.flush()
    except Exception:  # never fail the agent's turn; the hook is advice, not a gate
        pass
    finally:
        if collecting:
            gc.enable()
    return 0
