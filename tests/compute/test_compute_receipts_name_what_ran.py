"""Issue 21 case 6: a receipt says exactly what ran, and ``op: receipt`` sees any edit after.

The outputs carry their sha256; the interpreter is the one the run's own cwd and environment
start (a pyenv shim reads ``.python-version`` there); a ``cli`` run is keyed and archived by
its command, argv and stdin. Every test goes through the compute tool with real processes.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from compute_helpers import PYENV_ROOT, PYENV_SHIMS, Compute, pyenv_versions, write_program


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_tampered_stdout_or_stderr_is_reported_as_output_changed(compute: Compute) -> None:
    """Issue 21 case 6: stdout.txt and stderr.txt are hashed; op receipt re-checks both."""
    ran = compute(
        op="run", engine="python", code="import sys\nprint(6 * 7)\nsys.stderr.write('note\\n')"
    )
    assert ran["ok"] is True and ran["stdout"] == "42\n"
    directory = compute.project / "Computation" / ran["runId"]
    receipt = compute.receipt(ran)
    assert receipt["stdoutHash"] == _sha(directory / "stdout.txt") == ran["stdoutHash"]
    assert receipt["stderrHash"] == _sha(directory / "stderr.txt") == ran["stderrHash"]
    assert receipt["stdoutHash"] in (directory / "receipt.md").read_text()

    clean = compute(op="receipt", file=ran["runId"])
    assert clean["outputChanged"] is False and clean["scriptChanged"] is False

    (directory / "stdout.txt").write_text("41\n")  # the number a reader would quote
    forged = compute(op="receipt", file=ran["runId"])
    assert forged["outputChanged"] is True
    assert forged["scriptChanged"] is False  # the script itself is untouched

    (directory / "stdout.txt").write_text("42\n")
    assert compute(op="receipt", file=ran["runId"])["outputChanged"] is False
    (directory / "stderr.txt").write_text("")
    assert compute(op="receipt", file=ran["runId"])["outputChanged"] is True
    (directory / "stderr.txt").unlink()
    assert compute(op="receipt", file=ran["runId"])["outputChanged"] is True

    # A receipt from before outputs were hashed has nothing to check against: null, not false.
    older = {k: v for k, v in receipt.items() if k not in ("stdoutHash", "stderrHash")}
    (directory / "receipt.json").write_text(json.dumps(older))
    assert compute(op="receipt", file=ran["runId"])["outputChanged"] is None


def test_a_pyenv_project_version_is_the_interpreter_the_receipt_names(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 case 6: with .python-version set to another version than pyenv's default,
    the receipt names that version's interpreter, probed in the run's own cwd, and the
    shim as the launcher."""
    versions = pyenv_versions()
    if versions is None:
        pytest.skip("needs pyenv with two installed Python 3 versions")
    default, wanted = versions
    # A server started through a pyenv shim (as `uv run` is here) inherits PYENV_VERSION,
    # which outranks .python-version; a server started by a desktop client has neither.
    monkeypatch.delenv("PYENV_VERSION", raising=False)
    monkeypatch.delenv("PYENV_DIR", raising=False)
    (project / ".python-version").write_text(wanted + "\n")
    compute = Compute(project, f"{PYENV_SHIMS}:/usr/bin:/bin")

    ran = compute(
        op="run",
        engine="python",
        code="import sys, platform\nprint(platform.python_version())\nprint(sys.executable)",
    )
    assert ran["ok"] is True, ran
    version_ran, executable_ran = ran["stdout"].split()
    assert version_ran == wanted != default
    for info in (ran["engineInfo"], compute.receipt(ran)["engineInfo"]):
        assert info["version"] == wanted
        assert info["path"] == executable_ran
        assert Path(info["path"]).resolve().is_relative_to(PYENV_ROOT / "versions" / wanted)
        assert info["launcher"] == str(PYENV_SHIMS / "python3")
        assert info["probedIn"] == str(project.resolve())
    assert compute.rows[-1][1]["version"] == wanted  # the record (and its article) say so too
    markdown = (compute.project / compute.receipt(ran)["attemptDir"] / "receipt.md").read_text()
    assert f"python {wanted}" in markdown and f"started as {PYENV_SHIMS}/python3" in markdown


def test_a_launcher_that_picks_by_cwd_is_named_with_what_it_started(
    tmp_path: Path, project: Path
) -> None:
    """Issue 21 case 6: any launcher that reads a file in its cwd (as a pyenv shim does):
    the receipt names the interpreter it started there, not the one it starts elsewhere."""
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    (chosen / "python3").symlink_to(sys.executable)  # sys.executable keeps the link's path
    shims = tmp_path / "shims"
    write_program(
        shims,
        "python3",
        f'if [ -f .interpreter ]; then exec "{chosen}/python3" "$@"; fi\n'
        f'exec "{sys.executable}" "$@"\n',
    )
    (project / ".interpreter").write_text("chosen\n")
    compute = Compute(project, f"{shims}:/usr/bin:/bin")
    ran = compute(op="run", engine="python", code="import sys\nprint(sys.executable)")
    assert ran["ok"] is True, ran
    assert ran["stdout"].strip() == str(chosen / "python3")
    assert ran["engineInfo"]["path"] == str(chosen / "python3")
    assert ran["engineInfo"]["launcher"] == str(shims / "python3")
    probe = compute(op="probe", engine="python")
    assert probe["engineInfo"]["path"] == str(shims / "python3")  # probe names what PATH finds

    (project / ".interpreter").unlink()  # the launcher now chooses otherwise: asked again
    again = compute(op="run", engine="python", code="import sys\nprint(sys.executable)")
    assert again["stdout"].strip() == again["engineInfo"]["path"] == sys.executable


def _cli(compute: Compute, argv: list[str], stdin: str | None = None) -> dict[str, object]:
    cli: dict[str, object] = {"command": "python3", "argv": argv}
    if stdin is not None:
        cli["stdin"] = stdin
    return compute(op="run", engine="cli", code="# the program comes from argv or stdin", cli=cli)


def test_cli_runs_are_keyed_and_archived_by_their_argv(compute: Compute) -> None:
    """Issue 21 case 6: -c print(1) and -c print(2) are two runs; argv.json pins each, and
    op receipt sees it edited."""
    one = _cli(compute, ["-c", "print(1)"])
    two = _cli(compute, ["-c", "print(2)"])
    assert (one["stdout"], two["stdout"]) == ("1\n", "2\n")
    assert one["runId"] != two["runId"]
    assert (one["attempt"], two["attempt"]) == (1, 1)
    receipt = compute.receipt(one)
    argv_file = compute.project / receipt["cli"]["argvPath"]
    assert json.loads(argv_file.read_text()) == ["-c", "print(1)"]
    assert receipt["cli"]["argvHash"] == _sha(argv_file)
    assert receipt["cli"]["stdinPath"] is None

    checked = compute(op="receipt", file=one["runId"])
    assert checked["argvChanged"] is False and checked["stdinChanged"] is False
    assert checked["scriptChanged"] is False
    argv_file.write_text(json.dumps(["-c", "print(3)"]))
    edited = compute(op="receipt", file=one["runId"])
    assert edited["argvChanged"] is True and edited["scriptChanged"] is True
    planted = compute.project / receipt["attemptDir"] / "stdin.txt"
    planted.write_text("print(4)\n")  # a stdin the run never had
    assert compute(op="receipt", file=one["runId"])["stdinChanged"] is True
    again = _cli(compute, ["-c", "print(1)"])
    assert again["runId"] == one["runId"] and again["attempt"] == 2
    assert again["scriptChanged"] is False and again["stdout"] == "1\n"


def test_code_fed_on_stdin_is_archived_and_replays_from_the_receipt(compute: Compute) -> None:
    """Issue 21 case 6: a cli run's stdin is part of its id, archived as stdin.txt with its
    hash; the receipt's argv in its cwd with that stdin gives the same output again."""
    first = _cli(compute, ["-"], stdin="print(6 * 7)\n")
    other = _cli(compute, ["-"], stdin="print(6 * 9)\n")
    assert (first["stdout"], other["stdout"]) == ("42\n", "54\n")
    assert first["runId"] != other["runId"]
    none = _cli(compute, ["-"])  # no stdin at all is a third run, not the empty one
    empty = _cli(compute, ["-"], stdin="")
    assert len({first["runId"], none["runId"], empty["runId"]}) == 3

    receipt = compute.receipt(first)
    stdin_file = compute.project / receipt["cli"]["stdinPath"]
    assert stdin_file.read_text() == "print(6 * 7)\n"
    assert receipt["cli"]["stdinHash"] == _sha(stdin_file)
    markdown = (compute.project / receipt["attemptDir"] / "receipt.md").read_text()
    assert f"< {receipt['cli']['stdinPath']}" in markdown

    with open(stdin_file, "rb") as stdin:
        replay = subprocess.run(
            receipt["argv"], cwd=receipt["cwd"], stdin=stdin, capture_output=True, timeout=60
        )
    assert replay.stdout.decode() == "42\n"

    assert compute(op="receipt", file=first["runId"])["stdinChanged"] is False
    stdin_file.write_text("print(6 * 8)\n")
    tampered = compute(op="receipt", file=first["runId"])
    assert tampered["stdinChanged"] is True and tampered["scriptChanged"] is True
