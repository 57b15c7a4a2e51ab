"""A pitfalls library's files (issue 21, cases 1 and 13): a hostile library shipped in a
cloned project cannot make the memory write outside it, a full disk never leaves a lesson
written and refused, and the hook's stdin is bounded in bytes and in time."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from pitfall_helpers import lesson

from reckoner.pitfalls.hook import EVENT_SECONDS, MAX_EVENT_BYTES
from small_disk import fill, small_disk

VICTIM_TEXT = "# my instructions\nnever overwrite me\n"
GOOD_ID = "p-20261201-070000-00aa"


def _cli(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reckoner", "pitfalls", *args, "--home", str(home)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _hostile_project(tmp_path: Path, hostile_id: str) -> Path:
    """A cloned repository whose project library holds a lesson with ``hostile_id``."""
    project = tmp_path / "clone"
    library = project / ".reckoner" / "pitfalls"
    library.mkdir(parents=True)
    lines = [
        lesson(hostile_id, title="npm EACCES", solution="pwned"),
        lesson(GOOD_ID, title="pip wheel build fails", solution="pip install wheel"),
    ]
    (library / "entries.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return project


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim" / "CLAUDE.md"
    victim.parent.mkdir()
    victim.write_text(VICTIM_TEXT)
    return victim


def _hostile_ids(tmp_path: Path) -> list[str]:
    return [str(tmp_path / "victim" / "CLAUDE"), "../../x"]


def _outside_untouched(tmp_path: Path, victim: Path) -> None:
    assert victim.read_text() == VICTIM_TEXT
    # "../../x" from cards/ would land in the clone's .reckoner folder.
    assert not (tmp_path / "clone" / ".reckoner" / "x.md").exists()
    assert not (tmp_path / "x.md").exists()


@pytest.mark.parametrize("which", [0, 1], ids=["absolute-path-id", "dot-dot-id"])
def test_a_lesson_whose_id_is_a_path_is_skipped_and_nothing_outside_the_library_is_written(
    tmp_path: Path, which: int
) -> None:
    """Case 1 through `reckoner pitfalls update`: the hostile entry is never found, never a
    path, and its skipping is said on stderr; the good lesson beside it still updates."""
    victim = _victim(tmp_path)
    hostile_id = _hostile_ids(tmp_path)[which]
    project = _hostile_project(tmp_path, hostile_id)
    home = tmp_path / "home"

    attacked = _cli(project, home, "update", hostile_id, "--note", "again")
    assert attacked.returncode == 1
    assert "no lesson has the id" in attacked.stderr
    assert "skipped a lesson whose id" in attacked.stderr
    _outside_untouched(tmp_path, victim)

    updated = _cli(project, home, "update", GOOD_ID, "--note", "again")
    assert updated.returncode == 0, updated.stderr
    cards = project / ".reckoner" / "pitfalls" / "cards"
    assert sorted(p.name for p in cards.iterdir()) == [f"{GOOD_ID}.md"]
    index = (project / ".reckoner" / "pitfalls" / "INDEX.md").read_text()
    assert GOOD_ID in index and "pwned" not in index
    _outside_untouched(tmp_path, victim)


def test_pitfall_update_over_mcp_skips_a_lesson_whose_id_is_a_path(tmp_path: Path) -> None:
    """Case 1 through a real MCP client on `pitfall_update`: not found, the victim unchanged,
    the skipping logged on the server's stderr (never its stdout, the protocol's channel)."""
    victim = _victim(tmp_path)
    hostile_id = _hostile_ids(tmp_path)[0]
    project = _hostile_project(tmp_path, hostile_id)
    log = tmp_path / "server.log"
    server = f"exec {sys.executable} -m reckoner serve --pitfalls --home {tmp_path / 'home'}"
    params = StdioServerParameters(
        command="/bin/sh", args=["-c", f"{server} 2>>{log}"], cwd=str(project)
    )

    async def main() -> list[Any]:
        async with Client(params) as client:
            return [
                await client.call_tool("pitfall_update", {"id": hostile_id, "note": "again"}),
                await client.call_tool("pitfall_update", {"id": GOOD_ID, "note": "again"}),
            ]

    attacked, updated = anyio.run(main)
    assert attacked.is_error is True
    assert attacked.structured_content["code"] == "PITFALL_NOT_FOUND"
    assert updated.is_error is False
    _outside_untouched(tmp_path, victim)
    assert "skipped a lesson whose id" in log.read_text()


def test_on_a_full_disk_a_refused_lesson_is_not_written_and_a_retry_writes_it_once(
    tmp_path: Path,
) -> None:
    """Case 13: PITFALL_WRITE_FAILED leaves entries.jsonl byte-identical in both tiers, so
    the retry after space is freed stores exactly one lesson, not two."""
    with small_disk(tmp_path / "disk") as disk:
        project, home = disk / "project", disk / "home"
        project.mkdir()
        first = _cli(project, home, "record", "--title", "first lesson", "--json")
        assert first.returncode == 0, first.stderr
        entries = [project / ".reckoner/pitfalls/entries.jsonl", home / "pitfalls/entries.jsonl"]
        before = [path.read_bytes() for path in entries]
        filler = fill(disk)

        refused = _cli(project, home, "record", "--title", "second lesson", "--json")
        assert refused.returncode == 1
        assert "PITFALL_WRITE_FAILED" in refused.stdout + refused.stderr or (
            "cannot write the pitfalls library" in refused.stderr
        )
        assert [path.read_bytes() for path in entries] == before
        for library in (project / ".reckoner/pitfalls", home / "pitfalls"):
            leftovers = [p.name for p in library.rglob("*") if ".reckoner-tmp-" in p.name]
            assert leftovers == []

        filler.unlink()
        retried = _cli(project, home, "record", "--title", "second lesson", "--json")
        assert retried.returncode == 0, retried.stderr
        for path, old in zip(entries, before, strict=True):
            new_lines = path.read_bytes()[len(old) :].splitlines()
            assert [json.loads(x)["title"] for x in new_lines] == ["second lesson"]


# The hook is started by a small launcher that reports its peak memory: a child's ru_maxrss
# counts the memory of the process it was forked from, and pytest's is large.
LAUNCHER = """import os, subprocess, sys
hook = subprocess.Popen([sys.executable, "-m", "reckoner", "pitfalls", "hook"])
os.close(0)  # the hook alone holds the pipe: its writer sees when the hook stops reading
_, status, usage = os.wait4(hook.pid, 0)
sys.stderr.write(f"\\nexit {os.waitstatus_to_exitcode(status)} peak {usage.ru_maxrss}\\n")
"""


def _hook(home: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "RECKONER_HOME": str(home)}
    return subprocess.Popen(
        [sys.executable, "-c", LAUNCHER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def _wait(process: subprocess.Popen[bytes], seconds: float) -> tuple[int, int, str]:
    """(the hook's exit status, its peak resident memory in KiB, its stderr), waiting at
    most ``seconds``."""
    try:
        process.wait(timeout=seconds)  # not communicate(): it would close the hook's stdin
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"the hook was still running after {seconds} s") from None
    assert process.stderr is not None
    text = process.stderr.read().decode()
    words = text.rsplit("\n", 2)[-2].split()
    assert words[0] == "exit" and words[2] == "peak", text
    return int(words[1]), int(words[3]), text


def test_the_hook_reads_at_most_a_mebibyte_of_a_300_megabyte_stdin_in_bounded_memory(
    tmp_path: Path,
) -> None:
    """Case 13: 300 MB on stdin once took 870 MB; now the hook reads MAX_EVENT_BYTES, logs
    that the rest was ignored and exits 0 in far less memory than the input."""
    hook = _hook(tmp_path / "home")
    assert hook.stdin is not None and hook.stderr is not None
    sent = 0
    block = b'{"hook_event_name": "PostToolUse", "tool_name": "Bash", "x": "' + b"x" * (1 << 20)
    try:
        while sent < 300_000_000:
            hook.stdin.write(block)
            sent += len(block)
    except BrokenPipeError:
        pass  # the hook stopped reading at its limit and left
    with contextlib.suppress(BrokenPipeError):
        hook.stdin.close()
    status, peak_kib, err = _wait(hook, 60)
    assert status == 0
    assert peak_kib < 100 * 1024, f"the hook peaked at {peak_kib} KiB"
    assert f"longer than {MAX_EVENT_BYTES} bytes" in err


def test_a_stdin_that_never_ends_does_not_hang_the_hook(tmp_path: Path) -> None:
    """Case 13: a writer that keeps the pipe open and sends nothing more; the hook gives up
    after EVENT_SECONDS, exits 0 and says so."""
    hook = _hook(tmp_path / "home")
    assert hook.stdin is not None and hook.stderr is not None
    hook.stdin.write(b'{"hook_event_name": "PostToolUse",')
    hook.stdin.flush()
    started = time.monotonic()
    status, _, err = _wait(hook, EVENT_SECONDS + 20)
    assert status == 0
    assert time.monotonic() - started >= EVENT_SECONDS - 1
    assert "not finished within" in err
