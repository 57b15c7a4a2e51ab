"""Issues 3 and 9: one engine per lane, refused with the holder's pid; the lock dies with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from reckoner.storage.home import HomeError, HomeLayout
from reckoner.storage.home_lock import HomeLockedError, acquire_home_lock

HOLDER = """
import sys, time
from pathlib import Path
from reckoner.storage.home import HomeLayout
from reckoner.storage.home_lock import acquire_home_lock
lock = acquire_home_lock(HomeLayout(Path(sys.argv[1])))
print("held", flush=True)
time.sleep(600)
"""


@pytest.fixture
def holder(layout: HomeLayout) -> Iterator[subprocess.Popen[str]]:
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(layout.root)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "held"
    yield child
    if child.poll() is None:
        child.kill()
    child.wait(timeout=30)


def test_lock_refused_in_a_second_process_naming_the_pid(
    layout: HomeLayout, holder: subprocess.Popen[str]
) -> None:
    with pytest.raises(HomeLockedError) as caught:
        acquire_home_lock(layout)
    message = str(caught.value)
    assert caught.value.holder_pid == holder.pid
    assert message == (
        f"lane 1 of the home {layout.root} is in use by another reckoner process "
        f"(pid {holder.pid}); stop it, ask for another lane, or leave the lane unset to take "
        "a free one"
    )
    assert isinstance(caught.value, HomeError)


def test_lock_dies_with_a_process_killed_by_sigkill(
    layout: HomeLayout, holder: subprocess.Popen[str]
) -> None:
    with pytest.raises(HomeLockedError):
        acquire_home_lock(layout)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    # No manual cleanup: the kernel dropped the lock with the process.
    lock = acquire_home_lock(layout)
    assert layout.lock_file.read_text().strip() == str(os.getpid())
    lock.release()


def test_second_engine_in_the_same_process_is_refused(layout: HomeLayout) -> None:
    first = acquire_home_lock(layout)
    with pytest.raises(HomeLockedError, match=f"pid {os.getpid()}"):
        acquire_home_lock(layout)
    first.release()
    assert not first.held
    first.release()  # idempotent
    with acquire_home_lock(layout) as second:
        assert second.held
    assert not second.held


def test_released_lock_is_free_for_another_process(layout: HomeLayout) -> None:
    acquire_home_lock(layout).release()
    probe = (
        "import sys\nfrom pathlib import Path\n"
        "from reckoner.storage.home import HomeLayout\n"
        "from reckoner.storage.home_lock import acquire_home_lock\n"
        "acquire_home_lock(HomeLayout(Path(sys.argv[1]))).release()\nprint('ok')\n"
    )
    with acquire_home_lock(layout):
        refused = subprocess.run(
            [sys.executable, "-c", probe, str(layout.root)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert refused.returncode != 0 and f"pid {os.getpid()}" in refused.stderr
    done = subprocess.run(
        [sys.executable, "-c", probe, str(layout.root)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "ok"


def test_lock_in_an_unusable_home_is_one_sentence(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(HomeError) as caught:
        acquire_home_lock(HomeLayout(blocker))
    assert "cannot be opened" in str(caught.value) and "\n" not in str(caught.value)


def test_lanes_are_taken_lowest_first_up_to_the_limit(layout: HomeLayout) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    from reckoner.storage.home import MAX_LANES
    from reckoner.storage.home_lock import acquire_lane

    held = [acquire_lane(layout) for _ in range(MAX_LANES)]
    try:
        assert [lock.layout.lane for lock in held] == list(range(1, MAX_LANES + 1))
        with pytest.raises(HomeLockedError) as refused:
            acquire_lane(layout)
        message = str(refused.value)
        assert f"all {MAX_LANES} lanes" in message and "\n" not in message
        held[4].release()  # lane 5 frees up: the next engine takes it
        again = acquire_lane(layout)
        assert again.layout.lane == 5
        held[4] = again
    finally:
        for lock in held:
            lock.release()


def test_a_free_lane_holding_an_open_record_is_taken_before_a_lower_empty_one(
    layout: HomeLayout,
) -> None:
    """Spec: docs/guide/records.md (issue 9)."""
    from reckoner.storage.home_lock import acquire_lane

    lane_three = layout.for_lane(3)
    lane_three.lanes_dir.mkdir(parents=True, exist_ok=True)
    lane_three.open_record.write_bytes(b'{"seq":0,"version":1}\n')
    with acquire_lane(layout) as first, acquire_lane(layout) as second:
        assert (first.layout.lane, second.layout.lane) == (3, 1)


def test_a_home_wide_lock_that_cannot_be_made_lets_the_guarded_write_report(
    tmp_path: Path,
) -> None:
    """On a home that turned read-only the section runs, and its own write names the cause.
    Spec: docs/guide/records.md (issue 9)."""
    from reckoner.storage.home_lock import home_wide

    ran = []
    with home_wide(tmp_path / "missing" / ".lanes.lock"):
        ran.append(True)
    assert ran == [True]
