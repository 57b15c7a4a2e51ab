"""docs/guide/records.md and docs/architecture.md through the Engine: run logs under logs/, nothing
on stdout, the log
level, and state.json at mount (migration, restartRequired, unknown keys kept verbatim)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from service_helpers import HEADER

from reckoner import Engine, wire
from reckoner.storage.run_log import KEEP_FILES

LOG_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}\.\d{3}(-\d+)?\.log$")
# 9.2: <timestamp> <LEVEL> <message>[ k=v ...]; continuation lines start with "  | ".
LOG_LINE = re.compile(r"^\S+ (DEBUG|INFO|WARN|ERROR) \S.*$")

SESSION = textwrap.dedent(
    """
    import sys
    from reckoner import Engine
    with Engine(sys.argv[1] if len(sys.argv) > 1 else None) as engine:
        engine.call("record_start", {"title": "Logged"})
        engine.call("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})
        engine.call("eval", {"formula": "@V/0", "target": "x"})
        engine.call("record_end", {})
    """
)


def _run(args: list[str], env_extra: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECKONER_")}
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "-c", SESSION, *args], capture_output=True, env=env, timeout=120
    )


def _logs(home: Path) -> list[Path]:
    return sorted((home / "logs").iterdir())


def test_an_engine_process_writes_one_log_file_and_nothing_to_stdout(home: Path) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    done = _run([str(home)], {})
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == b""  # an MCP stdio server may print nothing but protocol there
    assert done.stderr == b""
    logs = _logs(home)
    assert len(logs) == 1 and LOG_NAME.match(logs[0].name)
    lines = logs[0].read_text().splitlines()
    assert lines and all(LOG_LINE.match(line) or line.startswith("  | ") for line in lines)
    text = "\n".join(lines)
    opened = next(line for line in lines if " INFO engine opened" in line)
    assert f"home={wire.dumps_text(str(home))}" in opened
    assert re.search(r" pid=\d+", opened)
    assert "record started" in text and "record closed" in text and "engine closed" in text


def test_each_engine_run_gets_its_own_file(home: Path) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    for _ in range(3):
        with Engine(home):
            pass
    assert len(_logs(home)) == 3


def test_level_off_writes_nothing(home: Path) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    done = _run([str(home)], {"RECKONER_LOG_LEVEL": "off"})
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == b""
    assert _logs(home) == []
    assert len(list((home / "records").iterdir())) == 1  # the record itself was written


def test_level_warn_keeps_only_warnings_and_errors(home: Path) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    home.mkdir()
    (home / "open-record.jsonl").write_bytes(b"no header here\n")
    done = _run([str(home)], {"RECKONER_LOG_LEVEL": "warn"})
    assert done.returncode == 0, done.stderr.decode()
    text = _logs(home)[0].read_text()
    assert " WARN " in text and "discarded" in text
    assert " INFO " not in text


def test_an_unknown_level_keeps_info(home: Path) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    done = _run([str(home)], {"RECKONER_LOG_LEVEL": "loud"})
    assert done.returncode == 0, done.stderr.decode()
    assert " INFO engine opened" in _logs(home)[0].read_text()


def test_log_to_stdout_when_asked(home: Path) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    script = textwrap.dedent(
        """
        import sys
        from reckoner import Engine
        with Engine(sys.argv[1], log_to_stdout=True):
            pass
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(home)], capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    printed = done.stdout.decode().splitlines()
    assert any(" INFO engine opened" in line for line in printed)
    assert printed == _logs(home)[0].read_text().splitlines()


def test_reckoner_home_moves_the_home(tmp_path: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    home = tmp_path / "from-env"
    done = _run([], {"RECKONER_HOME": str(home), "HOME": str(tmp_path / "user")})
    assert done.returncode == 0, done.stderr.decode()
    assert len(list((home / "records").iterdir())) == 1
    assert not (tmp_path / "user" / ".reckoner").exists()


def test_retention_keeps_the_newest_20_files(home: Path) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    logs = home / "logs"
    logs.mkdir(parents=True)
    for day in range(1, 31):
        (logs / f"2020-01-{day:02d}_00-00-00.000.log").write_text("old\n")
    with Engine(home):
        pass
    kept = sorted(path.name for path in logs.iterdir())
    assert len(kept) == KEEP_FILES
    # The new run's file is one of the 20, so the 19 newest old files stay with it.
    assert sum(not name.startswith("2020-") for name in kept) == 1
    assert "2020-01-30_00-00-00.000.log" in kept and "2020-01-12_00-00-00.000.log" in kept
    assert "2020-01-11_00-00-00.000.log" not in kept


# -- state.json at mount ------------------------------------------------------------------


def test_state_with_unknown_keys_and_a_newer_schema_survives_byte_for_byte(
    home: Path,
) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    home.mkdir()
    data = b'{"schema":7,"future":{"x":[1,2]},"panel":{"showAll":true}}\n'
    (home / "state.json").write_bytes(data)
    with Engine(home) as engine:
        engine.call("record_start", {"title": "t"})
        engine.call("record_end", {})
    assert (home / "state.json").read_bytes() == data


def test_a_corrupt_state_file_does_not_stop_the_engine(home: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    home.mkdir()
    (home / "state.json").write_bytes(b"{not json")
    with Engine(home) as engine:
        assert engine.call("record_start", {"title": "t"}) == {"ok": True}
    assert (home / "state.json").read_bytes() == b"{not json"


def test_restart_required_is_cleared_at_the_next_start(home: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    home.mkdir()
    (home / "state.json").write_bytes(b'{"schema":1,"restartRequired":true,"keep":1}')
    with Engine(home):
        pass
    assert wire.loads((home / "state.json").read_bytes()) == {"schema": 1, "keep": 1}


def test_an_older_builds_flat_keys_are_migrated_once_at_start(home: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    home.mkdir()
    legacy = {
        "generateDir": "/out",
        "generateLanguage": "zh-CN",
        "generateCompile": True,
        "generateFormat": "latex",
        "search": {"maxResults": 5},
    }
    (home / "state.json").write_bytes(wire.dumps(legacy))
    with Engine(home):
        pass
    assert wire.loads((home / "state.json").read_bytes()) == {
        "schema": 1,
        "search": {"maxResults": 5},
        "generation": {
            "markdown": {"directory": "/out", "language": "zh-CN"},
            "latex": {"directory": "/out", "language": "zh-CN", "compile": True},
        },
    }
    migrated = (home / "state.json").read_bytes()
    with Engine(home):
        pass
    assert (home / "state.json").read_bytes() == migrated


# -- durability switch ------------------------------------------------------------------


@pytest.mark.parametrize(("env", "expect_fsync"), [(None, False), ("1", True), ("0", False)])
def test_reckoner_fsync_turns_on_an_fsync_per_row(
    home: Path, monkeypatch: pytest.MonkeyPatch, env: str | None, expect_fsync: bool
) -> None:
    """Spec: docs/guide/records.md (issue 3)."""
    if env is None:
        monkeypatch.delenv("RECKONER_FSYNC", raising=False)
    else:
        monkeypatch.setenv("RECKONER_FSYNC", env)
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Durable"})
        synced: list[int] = []
        real_fsync = os.fsync

        def counting(fd: int) -> None:
            synced.append(fd)
            real_fsync(fd)

        monkeypatch.setattr(os, "fsync", counting)
        for index in range(5):
            engine.call("set", {"name": f"x{index}", "value": {"num": index}})
        monkeypatch.setattr(os, "fsync", real_fsync)
    assert (len(synced) >= 5) is expect_fsync
    assert (home / "open-record.jsonl").read_bytes().startswith(HEADER)
