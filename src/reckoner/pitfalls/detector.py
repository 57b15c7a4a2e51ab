"""When a reminder fires (pure state machine: no clock, no files; time comes in).

Per session: the tool failing now, its streak, the reminders given and when the last one
was. A reminder fires when all hold: the same tool failed at least ``failure_streak``
times in a row (another tool's failure starts the count again), fewer than
``max_per_session`` reminders were given, and ``cooldown_s`` passed since the last one.
Firing resets the streak, so one run of failures is reminded once. A success clears only
its own tool's streak; a session's end forgets the session.
"""

from __future__ import annotations

TYPE_CHECKING = False  # plain classes, no typing or dataclasses: the hook must start fast
if TYPE_CHECKING:
    from typing import Any

FAILURE_STREAK = 2
MAX_PER_SESSION = 4
COOLDOWN_S = 600.0
CLUE_KEYS: tuple[str, ...] = (
    "command",
    "path",
    "file_path",
    "pattern",
    "query",
    "url",
    "name",
    "cwd",
    "formula",
    "target",
)
"""Argument keys a clue is built from, in this order; formula and target are our own."""
CLUE_KEYS_TAKEN = 3
CLUE_MAX = 300
CLUE_VALUE_MAX = 80
"""One argument's share of the clue, so a long command still leaves room for the error."""


class SessionState:
    """One session's state: the tool failing now, its streak, the reminders given."""

    __slots__ = ("last_reminder_at", "reminders", "streak", "tool")

    def __init__(
        self,
        tool: str | None = None,
        streak: int = 0,
        reminders: int = 0,
        last_reminder_at: float | None = None,
    ) -> None:
        self.tool = tool
        self.streak = streak
        self.reminders = reminders
        self.last_reminder_at = last_reminder_at

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "streak": self.streak,
            "reminders": self.reminders,
            "last_reminder_at": self.last_reminder_at,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SessionState) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"SessionState({self.to_json()})"

    @classmethod
    def from_json(cls, raw: Any) -> SessionState:
        """A stored state, or a fresh one when the stored form is not one."""
        if not isinstance(raw, dict):
            return cls()
        tool = raw.get("tool")
        streak = raw.get("streak")
        reminders = raw.get("reminders")
        last = raw.get("last_reminder_at")
        return cls(
            tool if isinstance(tool, str) else None,
            streak if type(streak) is int and streak >= 0 else 0,
            reminders if type(reminders) is int and reminders >= 0 else 0,
            float(last) if isinstance(last, int | float) and not isinstance(last, bool) else None,
        )


class Rules:
    """The thresholds; the spec's defaults unless a caller sets its own."""

    __slots__ = ("cooldown_s", "failure_streak", "max_per_session")

    def __init__(
        self,
        failure_streak: int = FAILURE_STREAK,
        max_per_session: int = MAX_PER_SESSION,
        cooldown_s: float = COOLDOWN_S,
    ) -> None:
        self.failure_streak = failure_streak
        self.max_per_session = max_per_session
        self.cooldown_s = cooldown_s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and (
            self.failure_streak,
            self.max_per_session,
            self.cooldown_s,
        ) == (other.failure_streak, other.max_per_session, other.cooldown_s)


DEFAULT_RULES = Rules()


def observe_failure(
    state: SessionState, tool: str, now: float, rules: Rules = DEFAULT_RULES
) -> bool:
    """Count one failure of ``tool``; True when a reminder fires now (the state is updated)."""
    if state.tool == tool:
        state.streak += 1
    else:
        state.tool, state.streak = tool, 1
    if state.streak < rules.failure_streak:
        return False
    if state.reminders >= rules.max_per_session:
        return False
    if state.last_reminder_at is not None and now - state.last_reminder_at < rules.cooldown_s:
        return False
    state.streak = 0
    state.reminders += 1
    state.last_reminder_at = now
    return True


def observe_success(state: SessionState, tool: str) -> None:
    """A success clears the streak of its own tool only."""
    if state.tool == tool:
        state.streak = 0


class Detector:
    """The state machine over many sessions, for a process that sees them all (the server)."""

    def __init__(self, rules: Rules = DEFAULT_RULES) -> None:
        self.rules = rules
        self._sessions: dict[str, SessionState] = {}

    def state(self, session: str) -> SessionState:
        return self._sessions.setdefault(session, SessionState())

    def failure(self, session: str, tool: str, now: float) -> bool:
        return observe_failure(self.state(session), tool, now, self.rules)

    def success(self, session: str, tool: str) -> None:
        if session in self._sessions:
            observe_success(self._sessions[session], tool)

    def forget(self, session: str) -> None:
        self._sessions.pop(session, None)


def _flat(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def build_clue(args: Any, error_parts: tuple[Any, ...]) -> str:
    """Up to 3 argument values (by ``CLUE_KEYS``) and the error's code and text, one line,
    cut to 300 characters."""
    parts: list[str] = []
    if isinstance(args, dict):
        for key in CLUE_KEYS:
            text = " ".join(_flat(args.get(key)).split())
            if text:
                parts.append(text[:CLUE_VALUE_MAX])
                if len(parts) == CLUE_KEYS_TAKEN:
                    break
    parts.extend(_flat(part) for part in error_parts)
    return " ".join(" ".join(parts).split())[:CLUE_MAX]
