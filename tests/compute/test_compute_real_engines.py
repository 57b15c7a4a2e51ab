"""Issue 12, runs and the archive: Python, R and Octave for real, checked against known numbers.

Each engine computes a determinant, a sum, an integral; runs a script that fails, one that
times out and one that writes a captured file. Every run's receipt is checked against the
run, and replaying the receipt's argv in its cwd reproduces the archived stdout.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest
from compute_helpers import REAL_PATH, Compute

SCRIPTS = {
    "python": {
        "det": (
            "import numpy as np\n"
            "print(f'{np.linalg.det(np.array([[1.0, 2.0], [3.0, 4.0]])):.12f}')\n"
        ),
        "sum": "print(f'{sum(1 / k**2 for k in range(1, 11)):.12f}')\n",
        "integral": (
            "n = 1000\nh = 1 / n\n"
            "s = sum((4 if i % 2 else 2) * (i * h) ** 2 for i in range(1, n)) + 1\n"
            "print(f'{s * h / 3:.12f}')\n"
        ),
        "fail": "print('before')\nraise ValueError('boom')\n",
        "sleep": "import time\nprint('started', flush=True)\ntime.sleep(30)\n",
        "capture": (
            "import os\nos.makedirs('out', exist_ok=True)\n"
            "open('out/result.txt', 'w').write('42\\n')\nprint('written')\n"
        ),
        "error_sign": "ValueError: boom",
    },
    "r": {
        "det": "cat(sprintf('%.12f', det(matrix(c(1, 3, 2, 4), 2))), '\\n', sep = '')\n",
        "sum": "cat(sprintf('%.12f', sum(1 / (1:10)^2)), '\\n', sep = '')\n",
        "integral": (
            "v <- integrate(function(x) x^2, 0, 1)$value\n"
            "cat(sprintf('%.12f', v), '\\n', sep = '')\n"
        ),
        "fail": "cat('before\\n')\nstop('boom')\n",
        "sleep": "cat('started\\n')\nflush(stdout())\nSys.sleep(30)\n",
        "capture": (
            "dir.create('out', showWarnings = FALSE)\n"
            "writeLines('42', 'out/result.txt')\ncat('written\\n')\n"
        ),
        "error_sign": "boom",
    },
    "octave": {
        "det": "printf('%.12f\\n', det([1 2; 3 4]));\n",
        "sum": "printf('%.12f\\n', sum(1 ./ (1:10) .^ 2));\n",
        "integral": "printf('%.12f\\n', quad(@(x) x .^ 2, 0, 1));\n",
        "fail": "disp('before');\nerror('boom');\n",
        "sleep": "disp('started');\nfflush(stdout);\npause(30);\n",
        "capture": (
            "mkdir('out');\nf = fopen('out/result.txt', 'w');\nfprintf(f, '42\\n');\n"
            "fclose(f);\ndisp('written');\n"
        ),
        "error_sign": "boom",
    },
}
KNOWN = {"det": "-2.000000000000", "sum": "1.549767731167", "integral": "0.333333333333"}
# Python runs everywhere the tests do; R and Octave are the `engines` marker's programs.
ENGINES = [
    pytest.param(name, marks=[pytest.mark.engines] if name != "python" else []) for name in SCRIPTS
]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _check_receipt(compute: Compute, response: dict, engine: str) -> dict:
    receipt = compute.receipt(response)
    project = compute.project.resolve()
    assert receipt["runId"] == response["runId"]
    assert receipt["engine"] == engine
    assert receipt["engineInfo"]["version"] == response["engineInfo"]["version"]
    assert receipt["engineInfo"]["version"]
    script = project / receipt["scriptPath"]
    assert _sha(script) == receipt["scriptHash"] == response["scriptHash"]
    assert receipt["argv"] == response["argv"]
    assert receipt["cwd"] == str(project)
    assert receipt["exit"] == response["exit"]
    assert receipt["timedOut"] is response["timedOut"]
    assert receipt["network"] == "not-enforced"
    assert receipt["scriptChanged"] is False and receipt["scriptChangedDuringRun"] is False
    directory = project / receipt["attemptDir"]
    assert (directory / "stdout.txt").read_text() == response["stdout"]
    assert (directory / "receipt.md").read_text().count(receipt["scriptHash"]) == 1
    return receipt


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("task", list(KNOWN))
def test_known_numbers_and_their_receipts(compute: Compute, engine: str, task: str) -> None:
    """Issue 12 (tests): the engine's number, its receipt, and a rerun by argv and cwd."""
    response = compute(op="run", engine=engine, mode="code", code=SCRIPTS[engine][task])
    assert response["ok"] is True, response
    assert response["stdout"].strip() == KNOWN[task]
    receipt = _check_receipt(compute, response, engine)
    rerun = subprocess.run(
        receipt["argv"], cwd=receipt["cwd"], capture_output=True, check=False, timeout=60
    )
    assert rerun.returncode == 0
    archived = compute.project / receipt["attemptDir"] / "stdout.txt"
    assert rerun.stdout == archived.read_bytes()
    ok, row = compute.rows[-1]
    assert ok is True and row["runId"] == response["runId"] and row["exit"] == 0
    assert row["stdoutTail"] == KNOWN[task]


@pytest.mark.parametrize("engine", ENGINES)
def test_expression_mode_uses_the_eval_template(compute: Compute, engine: str) -> None:
    """docs/guide/compute.md (mode expr): the expression is one argv item of the engine's eval
    form."""
    expr = {"python": "2 ** 10", "r": "2^10", "octave": "disp(2^10)"}[engine]
    response = compute(op="run", engine=engine, expr=expr)
    assert response["ok"] is True, response
    assert "1024" in response["stdout"]
    assert sum(expr in item for item in response["argv"]) == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_a_failing_script_is_a_nonzero_exit_with_its_receipt(compute: Compute, engine: str) -> None:
    """Issue 12 (bad input): a nonzero exit carries stderr and the receipt."""
    response = compute(op="run", engine=engine, code=SCRIPTS[engine]["fail"])
    assert response["code"] == "MATH_NONZERO_EXIT"
    assert response["exit"] not in (0, None)
    assert SCRIPTS[engine]["error_sign"] in response["stderr"]
    assert "before" in response["stdout"]
    receipt = _check_receipt(compute, response, engine)
    assert receipt["exit"] == response["exit"]
    assert compute.rows[-1][0] is False and compute.rows[-1][1]["code"] == "MATH_NONZERO_EXIT"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_timeout_kills_the_run_and_keeps_its_partial_output(
    compute: Compute, engine: str
) -> None:
    """Issue 12 (safety): the process group is killed; the receipt keeps the partial output."""
    response = compute(op="run", engine=engine, code=SCRIPTS[engine]["sleep"], timeoutMs=1500)
    assert response["code"] == "MATH_TIMEOUT"
    assert response["timedOut"] is True and response["exit"] is None
    assert "started" in response["stdout"]
    receipt = _check_receipt(compute, response, engine)
    assert "started" in receipt["partialStdout"]
    assert "partialStderr" in receipt
    assert receipt["durationMs"] < 30_000


@pytest.mark.parametrize("engine", ENGINES)
def test_a_captured_file_is_copied_with_its_hash(compute: Compute, engine: str) -> None:
    """docs/guide/compute.md (captured/): a file the run writes is archived with its sha256."""
    response = compute(
        op="run", engine=engine, code=SCRIPTS[engine]["capture"], captureFiles=["out/result.txt"]
    )
    assert response["ok"] is True, response
    [item] = response["captured"]
    written = compute.project / "out" / "result.txt"
    assert item["path"] == "out/result.txt"
    assert item["sha256"] == _sha(written)
    copy = compute.project / item["archived"]
    assert copy.read_text().strip() == "42"
    assert _check_receipt(compute, response, engine)["captured"] == [item]


def test_python_and_the_cli_escape_hatch_give_one_hash(compute: Compute) -> None:
    """docs/guide/compute.md (cli): the same script through cli has the same scriptHash and
    number."""
    code = SCRIPTS["python"]["sum"]
    native = compute(op="run", engine="python", code=code)
    via_cli = compute(op="run", engine="cli", code=code, cli={"command": "python3"})
    assert via_cli["ok"] is True, via_cli
    assert via_cli["scriptHash"] == native["scriptHash"]
    assert via_cli["stdout"] == native["stdout"]
    assert via_cli["engineInfo"]["family"] == "python"
    assert via_cli["engineInfo"]["version"] == native["engineInfo"]["version"]
    assert via_cli["scriptPath"].endswith("script.txt")
    assert compute.receipt(via_cli)["cli"]["scriptAppended"] is True


@pytest.mark.engines
def test_real_probe_reports_found_and_absent(compute: Compute) -> None:
    """docs/guide/compute.md (probe): configured, what was found with version and foundVia, and
    absences."""
    response = compute(op="probe")
    assert response["ok"] is True
    found = {e["engine"]: e for e in response["engines"]}
    assert {"python", "r", "octave"} <= set(found)
    for name in ("python", "r", "octave"):
        assert found[name]["foundVia"] == "path" and found[name]["version"]
    assert {"engine": "cli", "why": "needs-a-caller-supplied-command"} in response["absent"]
    assert response["configured"][0] == "python"
    assert REAL_PATH
