"""Issue 21: the process owner (reckoner.host.processes) with real processes.

Cancellation and the server's shutdown stop the whole tree; a child that cannot start is
one sentence; the output cap holds for in-memory capture too; no module but the owner
imports subprocess (an AST check over every file of the package, so a new module is held
to it the day it is added).
"""

from __future__ import annotations

import ast
import sys
import threading
import time
from pathlib import Path

from process_census import escaping_script, living_with, new_marker
from reckoner.host import processes

PACKAGE = Path(processes.__file__).resolve().parents[1]
OWNERS = {PACKAGE / "host" / "processes.py", PACKAGE / "host" / "warden.py"}
PROCESS_MODULES = {"subprocess", "multiprocessing", "pty"}
STARTERS = ("system", "popen", "fork", "forkpty", "exec", "spawn", "posix_spawn", "killpg")


def _python(code: str, **options: object) -> processes.Completed:
    return processes.run(
        [sys.executable, "-c", code],
        processes.RunSpec(cwd="/", timeout_ms=60_000, **options),  # type: ignore[arg-type]
    )


def test_a_set_cancel_event_stops_the_whole_tree_and_says_cancelled() -> None:
    """Issue 21: run(cancel=Event) kills every descendant; Completed.cancelled is True."""
    marker = new_marker()
    cancel = threading.Event()
    threading.Timer(1.5, cancel.set).start()
    started = time.monotonic()
    done = _python(escaping_script(marker, "time.sleep(60)"), cancel=cancel)
    assert done.cancelled is True and done.exit is None and not done.timed_out
    assert time.monotonic() - started < 10
    assert done.stdout == b"started\n"
    assert living_with(marker) == []


def test_a_cancel_callable_is_polled_as_articles_compiler_passes_it() -> None:
    """Issue 21: a Callable[[], bool] cancels as well as an Event."""
    until = time.monotonic() + 1.0
    done = _python("import time; time.sleep(60)", cancel=lambda: time.monotonic() > until)
    assert done.cancelled is True


def test_kill_running_stops_every_run_under_way_as_the_server_stops() -> None:
    """Issue 21: the server's shutdown (kill_running) reaches each warden; runs end cancelled."""
    marker = new_marker()
    results: list[processes.Completed] = []
    worker = threading.Thread(
        target=lambda: results.append(_python(escaping_script(marker, "time.sleep(60)")))
    )
    worker.start()
    deadline = time.monotonic() + 20
    while len(living_with(marker)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes.kill_running() >= 1
    worker.join(timeout=20)
    assert results and results[0].cancelled is True
    assert living_with(marker) == []


def test_a_program_that_does_not_exist_is_not_spawned_with_one_reason() -> None:
    """Issue 21: a child that cannot start is spawned=False with the OS's reason."""
    done = processes.run(["/nonexistent/engine"], processes.RunSpec(cwd="/", timeout_ms=5000))
    assert done.spawned is False
    assert done.spawn_error == "FileNotFoundError: No such file or directory"


def test_captured_output_is_capped_in_memory_as_on_disk() -> None:
    """Issue 21: without sink files the capture is bounded by the same per-stream cap."""
    done = _python('import sys\nwhile True: sys.stdout.write("y" * 65536)\n', max_stream_bytes=5000)
    assert done.overflowed == "stdout" and len(done.stdout) == 5000


def test_a_leader_that_exits_while_a_grandchild_holds_its_pipes_returns_promptly() -> None:
    """Issue 21: every wait has a deadline: a setsid child holding stdout does not keep the
    run open; the run ends when its leader does."""
    marker = new_marker()
    started = time.monotonic()
    done = _python(escaping_script(marker, "print('leader done', flush=True)"))
    assert done.exit == 0 and time.monotonic() - started < 10
    assert done.stdout == b"started\nleader done\n"
    assert living_with(marker) == []


def _imports(path: Path) -> set[str]:
    """The process modules a file imports, and ``os.<starter>`` for each os call that
    starts (or group-kills) a process."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
            and node.attr.startswith(STARTERS)
        ):
            found.add(f"os.{node.attr}")
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_no_module_but_the_process_owner_imports_subprocess() -> None:
    """Issue 21: one module starts every child; the rest of the package goes through it."""
    offenders = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        for found in [_imports(path) - {"os"}]
        if path not in OWNERS and (found & PROCESS_MODULES or any("." in f for f in found))
    )
    assert offenders == []


def test_the_import_check_catches_a_module_that_imports_subprocess(tmp_path: Path) -> None:
    """Issue 21: the check above can fail."""
    module = tmp_path / "sneaky.py"
    module.write_text("from subprocess import Popen\nimport os\nos.execvp('x', ['x'])\n")
    assert _imports(module) - {"os"} == {"subprocess", "os.execvp"}
