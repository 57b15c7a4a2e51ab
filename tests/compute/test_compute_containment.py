"""Issue 21 (cases 2, 3, 4, 8): a compute run is contained whatever its script does.

Its whole process tree, descendants that left the process group included, dies at the time
limit and when the run ends; its output is capped per stream on disk; its environment is an
allow-list; network off is refused where it cannot be enforced. Real processes throughout.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from compute_helpers import REAL_PATH, Compute

from process_census import (
    escaping_script,
    living_with,
    new_marker,
    wait_until_none_with,
    wait_until_some_with,
)
from reckoner.compute.mount import STATE_KEY
from reckoner.host.calls import CallControl, calling
from reckoner.storage.home import HomeLayout
from reckoner.storage.state_file import StateFile

FLOOD = 'import sys\nwhile True: sys.stdout.write("x" * 65536)\n'
PIPE_BUFFER = 65536


def test_a_script_whose_setsid_child_and_double_fork_daemon_outlive_it_leaves_nothing_at_its_timeout(  # noqa: E501
    compute: Compute,
) -> None:
    """Issue 21 case 3: `setsid sleep 333` and a daemon die with the run at its deadline."""
    marker = new_marker()
    response = compute(
        op="run", engine="python", code=escaping_script(marker, "time.sleep(60)"), timeoutMs=3000
    )
    assert response["code"] == "MATH_TIMEOUT", response
    assert response["stdout"].strip() == "started"
    assert wait_until_none_with(marker) == []


def test_a_script_that_ends_normally_leaves_no_setsid_child_or_daemon_behind(
    compute: Compute,
) -> None:
    """Issue 21 case 3: the tree goes when the leader exits, not only at the deadline."""
    marker = new_marker()
    response = compute(op="run", engine="python", code=escaping_script(marker, "print('done')"))
    assert response["ok"] is True, response
    assert response["stdout"].split() == ["started", "done"]
    assert living_with(marker) == []  # gone by the time the answer is given


def test_an_output_flood_is_stopped_at_the_default_cap_and_the_receipt_and_row_say_so(
    compute: Compute,
) -> None:
    """Issue 21 case 2: the 2.3 GiB flood stops at 16 MiB per stream, on disk and in time."""
    cap = 16 * 1024 * 1024
    response = compute(op="run", engine="python", code=FLOOD, timeoutMs=60_000)
    assert response["ok"] is False and response["code"] == "MATH_REFUSED", response
    assert response["durationMs"] < 30_000 and response["timedOut"] is False
    assert "more than 16777216 bytes to stdout" in response["error"]
    receipt_path = compute.project / response["receipt"]
    receipt = json.loads(receipt_path.read_text())
    stdout_file = receipt_path.parent / "stdout.txt"
    assert cap - PIPE_BUFFER <= stdout_file.stat().st_size <= cap + PIPE_BUFFER
    assert "stdout" in receipt["stopped"] and "maxOutputBytes" in receipt["stopped"]
    ok, row = compute.rows[-1]
    assert ok is False and row["stopped"] == receipt["stopped"]


def test_a_smaller_configured_cap_is_honoured_for_each_stream(make_compute: object) -> None:
    """Issue 21 case 2: compute.maxOutputBytes sets the cap; stderr is capped on its own."""
    compute = make_compute(maxOutputBytes=100_000)  # type: ignore[operator]
    code = FLOOD.replace("stdout", "stderr")
    response = compute(op="run", engine="python", code=code)
    assert response["code"] == "MATH_REFUSED"
    assert "more than 100000 bytes to stderr" in response["error"]
    folder = (compute.project / response["receipt"]).parent
    assert (folder / "stderr.txt").stat().st_size <= 100_000 + PIPE_BUFFER
    assert (folder / "stdout.txt").stat().st_size == 0


SECRETS = {
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "PGPASSWORD": "pg-secret",
    "DATABASE_PASSWORD": "db-secret",
    "GOOGLE_APPLICATION_CREDENTIALS": "/secret/google.json",
    "GITHUB_PAT": "ghp-secret",
    "AZURE_CLIENT_SECRET": "azure-secret",
    "NPM_AUTH": "npm-secret",
}
PRINT_ENVIRONMENT = "import json, os\nprint(json.dumps(dict(os.environ)))\n"


def test_credentials_in_the_servers_environment_never_reach_a_script_but_a_named_one_does(
    compute: Compute, monkeypatch: pytest.MonkeyPatch, make_compute: object
) -> None:
    """Issue 21 case 4 (in process; the MCP test drives a real server): an allow-list."""
    for name, value in {**SECRETS, "MY_DATA_DIR": "/data"}.items():
        monkeypatch.setenv(name, value)
    seen = json.loads(compute(op="run", engine="python", code=PRINT_ENVIRONMENT)["stdout"])
    assert set(seen) & {*SECRETS, "MY_DATA_DIR"} == set()
    assert seen["PATH"] == os.environ["PATH"]
    named = make_compute(passEnvironment=["MY_DATA_DIR"])  # type: ignore[operator]
    seen = json.loads(named(op="run", engine="python", code=PRINT_ENVIRONMENT + "#\n")["stdout"])
    assert seen["MY_DATA_DIR"] == "/data" and set(seen) & set(SECRETS) == set()


def test_an_unknown_network_value_refuses_every_run(make_compute: object) -> None:
    """Issue 21 case 8: `network: "airgap"` is not taken to mean on."""
    compute = make_compute(network="airgap")  # type: ignore[operator]
    response = compute(op="run", engine="python", code="print(1)")
    assert response["code"] == "MATH_REFUSED"
    assert response["error"].startswith("compute network 'airgap' is not one of on, off")
    assert not (compute.project / "Computation").exists()


def _failing_unshare(folder: Path) -> str:
    """A PATH whose first `unshare` cannot make a namespace, as on a locked-down host."""
    folder.mkdir()
    fake = folder / "unshare"
    fake.write_text("#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\n"
                    "exit 1\n")  # fmt: skip
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return os.pathsep.join([str(folder), REAL_PATH])


def test_network_off_where_isolation_cannot_be_enforced_is_refused_over_the_cli(
    tmp_path: Path,
) -> None:
    """Issue 21 case 8: a run with network off is MATH_REFUSED, naming why and the fix, when
    `unshare` fails; it is never run with network and reported `not-enforced`."""
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    layout = HomeLayout(home)
    layout.prepare()
    StateFile(layout).write_subtree(STATE_KEY, {"network": "off"})
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w').write('ran')\n"
    done = subprocess.run(
        [
            sys.executable, "-m", "reckoner", "compute", "run", "--engine", "python",
            "--code", code, "--home", str(home), "--project", str(project),
        ],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PATH": _failing_unshare(tmp_path / "bin")},
    )  # fmt: skip
    response = json.loads(done.stdout)
    assert response["code"] == "MATH_REFUSED", (done.stdout, done.stderr)
    assert "cannot take a run's network away" in response["error"]
    assert "compute.network to on" in response["error"]
    assert not marker.exists()


def test_a_run_whose_call_is_cancelled_dies_with_its_tree_and_answers_cancelled_never_ok(
    compute: Compute,
) -> None:
    """Issue 22, Cancellation: the call's control (host.calls) cancelled mid-run kills the
    whole tree; the answer, the receipt and the row say who cancelled it, code MATH_REFUSED
    with a note to run again (not a policy refusal), and ok is never true."""
    marker = new_marker()
    control = CallControl()

    def cancel_once_running() -> None:
        if wait_until_some_with(marker, 2):
            control.cancel_because("as the server stopped")

    canceller = threading.Thread(target=cancel_once_running)
    canceller.start()
    with calling(control):
        code = escaping_script(marker, "time.sleep(60)")
        response = compute(op="run", engine="python", code=code, timeoutMs=120_000)
    canceller.join()
    assert response["ok"] is False and response["code"] == "MATH_REFUSED", response
    assert response["error"].startswith("the run was cancelled as the server stopped after ")
    assert response["next"]["kind"] == "note" and response["timedOut"] is False
    assert wait_until_none_with(marker) == []
    receipt = json.loads((compute.project / response["receipt"]).read_text())
    assert receipt["cancelled"] is True and receipt["stopped"] == response["error"]
    ok, row = compute.rows[-1]
    assert ok is False and row["cancelled"] is True and row["error"] == response["error"]
