"""docs/architecture.md: run logs, one file per engine process, the line format and retention."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from reckoner.storage.home import HomeLayout
from reckoner.storage.run_log import KEEP_BYTES, open_run_log

AT = 1_700_000_000_123  # 2023-11-14T22:13:20.123Z


def fixed_clock() -> int:
    return AT


def log_files(layout: HomeLayout) -> list[Path]:
    return sorted(layout.logs_dir.glob("*.log"))


def test_one_file_named_by_the_start_time(layout: HomeLayout) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    log = open_run_log(layout, level="info", clock=fixed_clock)
    log.close()
    assert [p.name for p in log_files(layout)] == ["2023-11-14_22-13-20.123.log"]
    assert log.path == layout.logs_dir / "2023-11-14_22-13-20.123.log"


def test_second_run_in_the_same_millisecond_gets_its_own_file(layout: HomeLayout) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    first = open_run_log(layout, level="info", clock=fixed_clock)
    second = open_run_log(layout, level="info", clock=fixed_clock)
    first.info("one")
    second.info("two")
    first.close()
    second.close()
    assert [p.name for p in log_files(layout)] == [
        "2023-11-14_22-13-20.123-2.log",
        "2023-11-14_22-13-20.123.log",
    ]
    assert "two" in (layout.logs_dir / "2023-11-14_22-13-20.123-2.log").read_text()


def test_a_line_is_timestamp_level_message_and_json_fields(layout: HomeLayout) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    log = open_run_log(layout, level="debug", clock=fixed_clock)
    log.info(
        "engine opened",
        home="/tmp/a b",
        calls=3,
        ratio=0.5,
        whole=2.0,
        fsync=False,
        missing=None,
        detail={"ids": ["1", "2"], "n": 1},
        path=Path("/x"),
    )
    log.close()
    assert log.path is not None
    assert log.path.read_text() == (
        "2023-11-14T22:13:20.123Z INFO engine opened "
        'home="/tmp/a b" calls=3 ratio=0.5 whole=2 fsync=false missing=null '
        'detail={"ids":["1","2"],"n":1} path="/x"\n'
    )


def test_levels_are_written_as_named(layout: HomeLayout) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    log = open_run_log(layout, level="debug", clock=fixed_clock)
    log.debug("d")
    log.info("i")
    log.warn("w")
    log.error("e")
    log.close()
    assert log.path is not None
    levels = [line.split(" ")[1] for line in log.path.read_text().splitlines()]
    assert levels == ["DEBUG", "INFO", "WARN", "ERROR"]


def test_exception_is_its_message_then_the_stack(layout: HomeLayout) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    log = open_run_log(layout, level="info", clock=fixed_clock)
    try:
        raise RuntimeError("disk went away")
    except RuntimeError as error:
        log.error("append failed", error=error, seq=4)
    log.close()
    assert log.path is not None
    first, *rest = log.path.read_text().splitlines()
    assert first == ('2023-11-14T22:13:20.123Z ERROR append failed error="disk went away" seq=4')
    assert rest and all(line.startswith("  | ") for line in rest)
    assert rest[0] == "  | Traceback (most recent call last):"
    assert rest[-1] == "  | RuntimeError: disk went away"
    assert any("test_run_log.py" in line for line in rest)


def test_multiline_message_stays_one_entry(layout: HomeLayout) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    log = open_run_log(layout, level="info", clock=fixed_clock)
    log.info("first\nsecond")
    log.close()
    assert log.path is not None
    assert log.path.read_text().splitlines()[1] == "  | second"


@pytest.mark.parametrize(
    ("env", "written"),
    [
        ("debug", ["DEBUG", "INFO", "WARN", "ERROR"]),
        ("warn", ["WARN", "ERROR"]),
        ("ERROR", ["ERROR"]),
        ("verbose", ["INFO", "WARN", "ERROR"]),
        ("", ["INFO", "WARN", "ERROR"]),
    ],
)
def test_the_level_comes_from_the_environment(
    layout: HomeLayout, monkeypatch: pytest.MonkeyPatch, env: str, written: list[str]
) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    monkeypatch.setenv("RECKONER_LOG_LEVEL", env)
    log = open_run_log(layout, clock=fixed_clock)
    log.debug("d")
    log.info("i")
    log.warn("w")
    log.error("e")
    log.close()
    assert log.path is not None
    assert [line.split(" ")[1] for line in log.path.read_text().splitlines()] == written


def test_level_off_writes_nothing(layout: HomeLayout, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    monkeypatch.setenv("RECKONER_LOG_LEVEL", "off")
    log = open_run_log(layout, to_stdout=True, clock=fixed_clock)
    log.error("nobody hears this")
    log.close()
    assert log_files(layout) == []


def test_stdout_only_when_asked(layout: HomeLayout, capfd: pytest.CaptureFixture[str]) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    quiet = open_run_log(layout, level="info", clock=fixed_clock)
    quiet.info("to the file only")
    quiet.close()
    assert capfd.readouterr().out == ""
    loud = open_run_log(layout, level="info", to_stdout=True, clock=fixed_clock)
    loud.info("to both", n=1)
    loud.close()
    assert capfd.readouterr().out == "2023-11-14T22:13:20.123Z INFO to both n=1\n"


def test_child_process_log_never_reaches_stdout(layout: HomeLayout) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    # What an MCP stdio server relies on: its stdout carries protocol only.
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from reckoner.storage.home import HomeLayout\n"
        "from reckoner.storage.run_log import open_run_log\n"
        "log = open_run_log(HomeLayout(Path(sys.argv[1])), level='debug')\n"
        "log.info('mounted', pid=1)\n"
        "log.error('boom', error=ValueError('bad'))\n"
        "log.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(layout.root)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout == "" and done.stderr == ""
    [path] = log_files(layout)
    assert "INFO mounted pid=1" in path.read_text()


def test_a_failing_disk_never_raises(layout: HomeLayout, capfd: pytest.CaptureFixture[str]) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    log = open_run_log(layout, level="info", clock=fixed_clock)
    handler_stream = log._handlers[0].stream  # type: ignore[attr-defined]
    handler_stream.close()  # the descriptor is gone, as after a disk failure
    log.info("still fine", value=object())
    log.error("and again")
    log.close()
    captured = capfd.readouterr()
    assert captured.out == "" and "Logging error" not in captured.err


def test_logs_directory_unusable_is_reported_not_raised(tmp_path: Path) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    layout = HomeLayout(tmp_path / "home")
    layout.root.mkdir()
    layout.logs_dir.write_text("a file where logs/ should be")
    log = open_run_log(layout, level="info", clock=fixed_clock)
    assert log.path is None
    assert log.open_error is not None and str(layout.logs_dir) in log.open_error
    log.info("goes nowhere")
    log.close()


def _fake_run(layout: HomeLayout, index: int, size: int = 10) -> Path:
    path = layout.logs_dir / f"2020-01-01_00-00-{index:02d}.000.log"
    with open(path, "wb") as handle:
        handle.truncate(size)  # sparse: the size counts, the disk is spared
    return path


def test_retention_keeps_the_newest_twenty(layout: HomeLayout) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    for index in range(25):
        _fake_run(layout, index)
    (layout.logs_dir / "notes.txt").write_text("not a run file")
    log = open_run_log(layout, level="info", clock=fixed_clock)
    log.close()
    names = [p.name for p in log_files(layout)]
    assert len(names) == 20
    assert names[0] == "2020-01-01_00-00-06.000.log"  # the five oldest went
    assert "2023-11-14_22-13-20.123.log" in names
    assert (layout.logs_dir / "notes.txt").exists()


def test_retention_keeps_at_most_fifty_megabytes(layout: HomeLayout) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    for index in range(6):
        _fake_run(layout, index, size=12 * 1024 * 1024)
    log = open_run_log(layout, level="info", clock=fixed_clock)
    log.close()
    remaining = log_files(layout)
    total = sum(p.stat().st_size for p in remaining)
    assert total <= KEEP_BYTES
    # The newest four old runs (48 MB) fit with the new file; the two oldest went.
    assert [p.name for p in remaining][:4] == [
        f"2020-01-01_00-00-{i:02d}.000.log" for i in (2, 3, 4, 5)
    ]
    assert len(remaining) == 5


def test_file_is_held_open_and_written_synchronously(layout: HomeLayout) -> None:
    """Spec: docs/architecture.md (the run logs)."""
    log = open_run_log(layout, level="info", clock=fixed_clock)
    log.info("first")
    assert log.path is not None
    # Another reader sees the line before close: nothing waits in a buffer.
    assert log.path.read_text().endswith("INFO first\n")
    log.close()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d\.\d{3}\.log", log.path.name)
    assert os.path.getsize(log.path) > 0
