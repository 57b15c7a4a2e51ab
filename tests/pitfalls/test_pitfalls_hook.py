"""The Claude Code hook (issue 13, "Automatic reminders" 2): the README's settings.json
snippet run exactly as configured, in a shell, with recorded event payloads for Bash, Edit
and MCP tools; bad input, faults and two hooks at once."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reckoner.pitfalls.hook import handle
from reckoner.pitfalls.model import clean_fields
from reckoner.pitfalls.tiers import Pitfalls

ROOT = Path(__file__).resolve().parents[2]
EVENTS = Path(__file__).resolve().parent / "hook_events"
MARKER = "<!-- pitfalls-hook-snippet -->"


def readme_hooks() -> dict[str, Any]:
    """The hooks object of the README's snippet."""
    text = (ROOT / "docs" / "guide" / "pitfalls.md").read_text("utf-8")
    start = text.index(MARKER)
    match = re.search(r"```json\n(.*?)```", text[start:], re.S)
    assert match is not None, "the snippet's JSON block follows the marker"
    hooks: dict[str, Any] = json.loads(match.group(1))["hooks"]
    return hooks


def command_for(event_name: str, tool: str) -> str:
    """The command Claude Code would run for this event and tool, by the snippet's matchers."""
    commands = [
        hook["command"]
        for group in readme_hooks()[event_name]
        if group.get("matcher") in (None, "", "*") or re.fullmatch(group["matcher"], tool)
        for hook in group["hooks"]
        if hook["type"] == "command"
    ]
    assert len(commands) == 1, commands
    return commands[0]


def event(name: str, project: Path) -> dict[str, Any]:
    text = (EVENTS / f"{name}.json").read_text("utf-8").replace("$PROJECT", str(project))
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def run_hook(
    payload: bytes | dict[str, Any], home: Path, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the snippet's command through a shell, as Claude Code does, on one event."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    name = payload.get("hook_event_name", "") if isinstance(payload, dict) else ""
    tool = payload.get("tool_name", "") if isinstance(payload, dict) else ""
    command = command_for(str(name) or "PostToolUseFailure", str(tool))
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "RECKONER_HOME": str(home),
        **(extra_env or {}),
    }
    completed = subprocess.run(
        ["/bin/sh", "-c", command], input=data, capture_output=True, env=env, timeout=60
    )
    return subprocess.CompletedProcess(
        completed.args, completed.returncode, completed.stdout.decode(), completed.stderr.decode()
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    return root


def _record(home: Path, project: Path, **fields: Any) -> str:
    outcome = Pitfalls.open(home, project=project).record(clean_fields(fields))
    return str(outcome.entry["id"])


LESSONS: dict[str, dict[str, Any]] = {
    "bash_failure": {
        "title": "npm install -g fails with EACCES",
        "solution": "install under the user: npm install --prefix ~/.local -g PACKAGE",
        "tags": ["npm", "EACCES"],
    },
    "edit_failure": {
        "title": "Edit finds several matches of old_string",
        "area": "settings.py",
        "solution": "give more surrounding lines so old_string is unique, or replace_all",
        "tags": ["Edit", "replace_all"],
    },
    "mcp_failure": {
        "title": "reckoner eval refuses 2x",
        "solution": "write the product: 2*@x",
        "tags": ["ENGINE_INVALID_IDENTIFIER"],
    },
}


def test_the_readme_snippet_configures_the_four_events() -> None:
    hooks = readme_hooks()
    assert set(hooks) == {"PostToolUseFailure", "PostToolUse", "SessionStart", "SessionEnd"}
    for name in hooks:
        assert command_for(name, "Bash") == "reckoner pitfalls hook"


@pytest.mark.parametrize("recorded", sorted(LESSONS))
def test_a_second_failure_in_a_row_prints_the_reminder_as_additional_context(
    recorded: str, home: Path, project: Path
) -> None:
    lesson_id = _record(home, project, **LESSONS[recorded])
    _record(home, project, title="docker layer cache misses", tags=["docker"])
    payload = event(recorded, project)
    first = run_hook(payload, home)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "")
    second = run_hook(payload, home)
    assert second.returncode == 0 and second.stderr == ""
    output = json.loads(second.stdout)
    specific = output["hookSpecificOutput"]
    assert specific["hookEventName"] == "PostToolUseFailure"
    context = specific["additionalContext"]
    assert f"{payload['tool_name']} failed twice in a row" in context
    assert LESSONS[recorded]["title"] in context and LESSONS[recorded]["solution"] in context
    assert lesson_id in context
    assert "docker" not in context  # only matching lessons are named
    # Firing reset the streak, and the cooldown keeps the next run quiet.
    assert run_hook(payload, home).stdout == ""
    assert run_hook(payload, home).stdout == ""


HEAVY_MODULES = {"json", "re", "pathlib", "typing", "enum", "collections", "orjson", "numpy"}


def _loaded_modules(completed: subprocess.CompletedProcess[str]) -> set[str]:
    """The modules a run imported, from PYTHONPROFILEIMPORTTIME's report on stderr."""
    return {
        line.rsplit("|", 1)[-1].strip()
        for line in completed.stderr.splitlines()
        if line.startswith("import time:") and not line.endswith("imported package")
    }


def test_the_hook_starts_fast_it_never_loads_json_re_pathlib_or_typing(
    home: Path, project: Path
) -> None:
    """Issue 13: the hook "starts fast (lazy imports)". json (with the re it loads), pathlib
    and typing together cost more than a bare interpreter's start; neither the common path
    nor a firing reminder, which reads and searches both libraries, loads any of them."""
    _record(home, project, **LESSONS["bash_failure"])
    profiled = {"PYTHONPROFILEIMPORTTIME": "1"}
    quiet = run_hook(event("bash_success", project), home, profiled)
    payload = event("bash_failure", project)
    run_hook(payload, home)
    fired = run_hook(payload, home, profiled)
    assert (
        LESSONS["bash_failure"]["title"]
        in json.loads(fired.stdout)["hookSpecificOutput"]["additionalContext"]
    )
    assert "reckoner.pitfalls.hook" in _loaded_modules(quiet)
    assert "reckoner.pitfalls.search" not in _loaded_modules(quiet)
    assert {"reckoner.pitfalls.search", "reckoner.pitfalls.tiers"} <= _loaded_modules(fired)
    for completed in (quiet, fired):
        assert not _loaded_modules(completed) & HEAVY_MODULES


def test_the_reminder_is_ascii_json_whatever_the_output_encoding(home: Path, project: Path) -> None:
    """The hook output reaches Claude Code intact under any locale: non-ASCII text travels
    as JSON escapes."""
    lesson_id = _record(
        home, project, title="npm 安装 fails with EACCES", solution="换到用户目录：~/.local"
    )
    payload = event("bash_failure", project)
    run_hook(payload, home)
    fired = run_hook(payload, home, {"PYTHONIOENCODING": "ascii", "LC_ALL": "C"})
    assert fired.returncode == 0 and fired.stdout.isascii()
    context = json.loads(fired.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "npm 安装 fails with EACCES: 换到用户目录：~/.local" in context and lesson_id in context


def test_no_matching_lesson_prints_nothing(home: Path, project: Path) -> None:
    _record(home, project, title="docker layer cache misses", tags=["docker"])
    payload = event("edit_failure", project)
    assert [run_hook(payload, home).stdout for _ in range(2)] == ["", ""]


def test_a_success_of_the_same_tool_clears_its_streak(home: Path, project: Path) -> None:
    _record(home, project, **LESSONS["bash_failure"])
    failure, success = event("bash_failure", project), event("bash_success", project)
    assert run_hook(failure, home).stdout == ""
    assert run_hook(success, home).stdout == ""
    assert run_hook(failure, home).stdout == ""  # streak 1 again, not 2
    assert run_hook(failure, home).stdout != ""


def test_an_mcp_error_reported_as_post_tool_use_counts_as_a_failure(
    home: Path, project: Path
) -> None:
    _record(home, project, **LESSONS["mcp_failure"])
    payload = event("mcp_failure", project)
    refused = {
        **payload,
        "hook_event_name": "PostToolUse",
        "tool_response": {"isError": True, "content": [{"type": "text", "text": payload["error"]}]},
    }
    del refused["error"]
    assert run_hook(refused, home).stdout == ""
    output = json.loads(run_hook(refused, home).stdout)
    assert output["hookSpecificOutput"]["hookEventName"] == "PostToolUse"


def test_session_end_forgets_the_session(home: Path, project: Path) -> None:
    _record(home, project, **LESSONS["bash_failure"])
    payload = event("bash_failure", project)
    run_hook(payload, home)
    sessions = home / "pitfalls" / "sessions"
    assert len(list(sessions.glob("*.json"))) == 1
    ended = run_hook(event("session_end", project), home)
    assert (ended.returncode, ended.stdout) == (0, "")
    assert list(sessions.glob("*.json")) == []
    assert run_hook(payload, home).stdout == ""  # the earlier failure is forgotten


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'{"hook_event_name": "PostToolUseFailure"}',
        b'{"hook_event_name": "PostToolUseFailure", "session_id": "s"}',
        b'{"hook_event_name": "PostToolUseFailure", "session_id": 5, "tool_name": "Bash"}',
        b'{"hook_event_name": "Stop", "session_id": "s"}',
        b"\xff\xfe\x00",
    ],
    ids=["empty", "text", "array", "no-session", "no-tool", "bad-session", "other", "binary"],
)
def test_malformed_input_exits_0_and_says_nothing(payload: bytes, home: Path) -> None:
    completed = run_hook(payload, home)
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", "")


def test_an_unusable_home_exits_0_and_says_nothing(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home-file"
    home.write_text("not a directory")
    completed = run_hook(event("bash_failure", project), home)
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", "")


def test_two_hooks_of_one_session_at_once_lose_no_count(home: Path, project: Path) -> None:
    _record(home, project, **LESSONS["bash_failure"])
    payload = json.dumps(event("bash_failure", project)).encode()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "RECKONER_HOME": str(home),
    }
    processes = [
        subprocess.Popen(
            ["/bin/sh", "-c", "reckoner pitfalls hook"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(payload, timeout=60)[0] for p in processes]
    # Each read-modify-write of the state is under the lock: one saw 1, the other 2.
    assert sorted(bool(out) for out in outputs) == [False, True]


def test_handle_is_usable_in_process_with_an_explicit_clock(home: Path, project: Path) -> None:
    _record(home, project, **LESSONS["edit_failure"])
    payload = event("edit_failure", project)
    assert handle(payload, str(home), now=0.0) is None
    assert handle(payload, str(home), now=1.0) is not None
    assert handle(payload, str(home), now=2.0) is None
    assert handle(payload, str(home), now=3.0) is None  # streak 2, but cooling down
    assert handle(payload, str(home), now=601.0) is not None  # still failing, cooled down


def test_a_hook_stuck_on_the_session_lock_gives_up_in_silence(
    home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl

    from reckoner.pitfalls import hook

    payload = event("bash_failure", project)
    handle(payload, str(home), now=0.0)  # creates the state file
    state = next((home / "pitfalls" / "sessions").glob("*.json"))
    monkeypatch.setattr(hook, "LOCK_WAIT_S", 0.05)
    with open(state, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another hook of the session, stuck
        completed = run_hook(payload, home)
        assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", "")
        with pytest.raises(BlockingIOError):
            handle(payload, str(home), now=1.0)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(
    suppress_health_check=[
        *settings.default.suppress_health_check,
        HealthCheck.function_scoped_fixture,
    ]
)
@given(
    payload=st.one_of(
        st.binary(max_size=200),
        _JSON.map(lambda v: json.dumps(v).encode()),
        st.fixed_dictionaries(
            {},
            optional={
                "hook_event_name": st.sampled_from(
                    ["PostToolUse", "PostToolUseFailure", "SessionEnd", "Stop", ""]
                )
                | _JSON,
                "session_id": st.sampled_from(["s", "../../etc", "a/b", ""]) | _JSON,
                "tool_name": st.sampled_from(["Bash", "mcp__x__y", ""]) | _JSON,
                "tool_input": _JSON,
                "tool_response": _JSON,
                "error": _JSON,
                "cwd": _JSON,
            },
        ).map(lambda v: json.dumps(v).encode()),
    )
)
def test_any_input_exits_0_and_prints_at_most_one_hook_output(payload: bytes, home: Path) -> None:
    """Issue 13: the hook never fails the agent's turn, whatever arrives on stdin."""
    import io

    from reckoner.pitfalls.hook import main

    out = io.BytesIO()
    assert main(["--home", str(home)], stdin=io.BytesIO(payload), stdout=out) == 0
    text = out.getvalue().decode("ascii")
    if text:
        assert set(json.loads(text)) == {"hookSpecificOutput"}
    # Nothing outside the sessions folder is ever written, whatever the session id says.
    written = [p for p in home.rglob("*") if p.is_file()] if home.exists() else []
    assert all(p.parent == home / "pitfalls" / "sessions" for p in written), written


def test_a_users_interrupt_is_no_failure_and_spends_no_reminder(home: Path, project: Path) -> None:
    """Issue 26: two interrupted tools (``is_interrupt: true``) fire nothing, and the next
    real failures still get their reminder (no reminder spent, no cooldown started)."""
    _record(home, project, **LESSONS["bash_failure"])
    failure = event("bash_failure", project)
    interrupted = {**failure, "is_interrupt": True, "error": "Interrupted by user"}
    assert [run_hook(interrupted, home).stdout for _ in range(3)] == ["", "", ""]
    assert run_hook(failure, home).stdout == ""
    assert LESSONS["bash_failure"]["title"] in run_hook(failure, home).stdout


def test_an_interrupt_between_two_failures_neither_breaks_nor_extends_the_streak(
    home: Path, project: Path
) -> None:
    _record(home, project, **LESSONS["bash_failure"])
    failure = event("bash_failure", project)
    assert run_hook(failure, home).stdout == ""
    assert run_hook({**failure, "is_interrupt": True}, home).stdout == ""
    assert run_hook(failure, home).stdout != ""  # the second real failure in a row


def test_a_subagents_tool_events_do_not_feed_the_sessions_detector(
    home: Path, project: Path
) -> None:
    """Issue 26: events carrying ``agent_id`` are a subagent's own tools: they never fire
    the main session's reminder nor clear its streak."""
    _record(home, project, **LESSONS["bash_failure"])
    failure = event("bash_failure", project)
    subagent = {**failure, "agent_id": "agent-7f3c", "agent_type": "general-purpose"}
    assert [run_hook(subagent, home).stdout for _ in range(3)] == ["", "", ""]
    assert run_hook(failure, home).stdout == ""
    success = {**event("bash_success", project), "agent_id": "agent-7f3c"}
    assert run_hook(success, home).stdout == ""  # a subagent's success clears nothing
    assert run_hook(failure, home).stdout != ""


def test_a_session_start_shows_the_projects_most_recent_lessons(home: Path, project: Path) -> None:
    """Issue 26: nothing put a project's lessons before the model when a session started."""
    ids = [
        _record(home, project, title=f"project lesson {i}", solution=f"fix {i}") for i in range(7)
    ]
    Pitfalls.open(home).record(clean_fields({"title": "a global-only lesson", "solution": "x"}))
    completed = run_hook(event("session_start", project), home)
    assert completed.returncode == 0 and completed.stderr == ""
    specific = json.loads(completed.stdout)["hookSpecificOutput"]
    assert specific["hookEventName"] == "SessionStart"
    context = specific["additionalContext"]
    assert "lessons recorded in this project" in context
    shown = [line for line in context.splitlines() if line.startswith("- ")]
    assert len(shown) == 5
    assert shown[0].startswith("- project lesson 6: fix 6") and ids[6] in shown[0]
    assert "global-only" not in context


def test_a_session_start_in_a_project_with_no_lessons_prints_nothing_and_creates_nothing(
    home: Path, project: Path
) -> None:
    before = sorted(project.rglob("*"))
    completed = run_hook(event("session_start", project), home)
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", "")
    assert sorted(project.rglob("*")) == before
