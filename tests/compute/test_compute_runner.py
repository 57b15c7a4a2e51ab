"""Issue 12 (safety): the child's environment, the process group, and network isolation."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

import pytest
from compute_helpers import REAL_PATH, Compute

from reckoner.compute import runner
from reckoner.compute.context import ComputeOptions
from reckoner.compute.service import ComputeService
from reckoner.compute.settings import normalise


def test_the_child_never_sees_our_variables_or_provider_keys(
    compute: Compute, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issues 12 and 21: RECKONER_*, provider keys and any name off the allow-list are
    dropped (issue 21 made the list an allow-list: an unknown name no longer passes)."""
    monkeypatch.setenv("RECKONER_HOME", "/somewhere")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    monkeypatch.setenv("anthropic_api_key", "lower-secret")
    monkeypatch.setenv("KEEP_THIS_ONE", "kept")
    monkeypatch.setenv("LC_TIME", "C")
    code = "import os\nprint(sorted(k for k in os.environ if k.upper().startswith(('RECKONER', 'OPENAI', 'GITHUB', 'ANTHROPIC', 'KEEP', 'LC_TIME'))))\n"  # noqa: E501
    response = compute(op="run", engine="python", code=code)
    assert response["stdout"].strip() == "['LC_TIME']"
    assert "secret" not in (compute.project / response["receipt"]).read_text()


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")  # a zombie has been killed; only its parent's reaping is left


def test_a_timeout_kills_the_whole_process_tree(compute: Compute, tmp_path: Path) -> None:
    """Issue 12: the engine's own children die with it."""
    pid_file = tmp_path / "child.pid"
    code = (
        "import subprocess, time\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "print('spawned', flush=True)\n"
        "time.sleep(60)\n"
    )
    response = compute(op="run", engine="python", code=code, timeoutMs=1500)
    assert response["code"] == "MATH_TIMEOUT"
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child)


@pytest.mark.skipif(runner.network_isolation() is None, reason="no network namespace here")
def test_network_off_is_enforced_and_says_so(project: Path) -> None:
    """Issue 12 (beyond the spec): network off runs without network; the receipt says so."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    code = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
        "    print('connected')\n"
        "except OSError:\n"
        "    print('no network')\n"
    )
    try:
        isolated = ComputeService(
            project,
            normalise({"network": "off"}),
            ComputeOptions(search_path=REAL_PATH, isolate_network=True),
        )
        off = isolated.call({"op": "run", "engine": "python", "code": code})
        assert off["stdout"].strip() == "no network"
        assert off["network"] == "enforced"
        assert off["argv"][:2] == [*runner.network_isolation()[:2]]
        open_ = ComputeService(project, normalise({}), ComputeOptions(search_path=REAL_PATH))
        on = open_.call({"op": "run", "engine": "python", "code": code + "#\n"})
        assert on["stdout"].strip() == "connected"
        assert on["network"] == "not-enforced"
    finally:
        listener.close()


def test_a_host_without_subprocesses_says_so(project: Path) -> None:
    """docs/guide/compute.md: a host declaring no subprocess answers MATH_NO_SUBPROCESS with a
    note."""
    service = ComputeService(project, normalise({}), ComputeOptions(has_subprocess=False))
    for args in ({"op": "probe"}, {"op": "run", "engine": "python", "code": "1"}):
        response = service.call(args)
        assert response["code"] == "MATH_NO_SUBPROCESS"
        assert response["next"]["kind"] == "note"


def test_child_environment_is_pure() -> None:
    """Issues 12 and 21: the allow-list is a function of the environment it is given; an
    engine's own variables pass, and so does a name the caller adds."""
    env = runner.child_environment(
        {
            "PATH": "/bin",
            "RECKONER_LOG_LEVEL": "debug",
            "X_TOKEN": "t",
            "HF_API_KEY": "k",
            "R_LIBS_USER": "/r",
            "PGPASSWORD": "p",
            "MY_DATA": "d",
        },
        names=("MY_DATA",),
    )
    assert env == {"PATH": "/bin", "R_LIBS_USER": "/r", "MY_DATA": "d"}
    assert os.environ.get("PATH")


PRINT_ENVIRONMENT = "import json, os; print(json.dumps(dict(os.environ)))"


def test_an_engine_run_gets_the_engine_variables_and_the_names_the_spec_adds() -> None:
    """R_LIBS_USER (an engine's variable) and the spec's own name pass; anything else stays out."""
    source = {
        "PATH": "/usr/bin:/bin",
        "R_LIBS_USER": "/r",
        "MY_DATA": "d",
        "PGPASSWORD": "p",
    }
    spec = runner.RunSpec(cwd="/", timeout_ms=60_000, env=source, names=("MY_DATA",))
    done = runner.run([sys.executable, "-I", "-c", PRINT_ENVIRONMENT], spec)
    assert done.exit == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["R_LIBS_USER"] == "/r" and seen["MY_DATA"] == "d"
    assert "PGPASSWORD" not in seen
    assert spec.names == ("MY_DATA",)  # the caller's spec is left as it was
