"""Issue 12 and docs/guide/compute.md: the archive only grows, receipts re-check their hash, the
guard holds.

Runs use Python (this interpreter) for speed; the archive does not depend on the engine.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from compute_helpers import Compute
from hypothesis import given
from hypothesis import strategies as st

from reckoner.compute import archive


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_run_id_follows_the_issues_formula(compute: Compute) -> None:
    """Issue 12: runId = <preset>-<projectSlug>-<first 12 hex of sha256(...)>, no wall clock."""
    import hashlib

    code = "print(6 * 7)\r\n\n"
    response = compute(op="run", engine="python", code=code, packages=["pint", "numpy"])
    digest = hashlib.sha256(b"python|code|print(6 * 7)|numpy,pint").hexdigest()[:12]
    assert response["runId"] == f"reckoner-with-compute-my-project-{digest}"
    assert response["attempt"] == 1
    assert response["stdout"] == "42\n"


def test_a_second_run_is_a_new_attempt_and_nothing_is_overwritten(compute: Compute) -> None:
    """docs/guide/compute.md (5): later runs land in attempts/<n>/; existing files are never
    rewritten."""
    first = compute(op="run", engine="python", code="print('a')")
    before = _files(compute.project / "Computation")
    second = compute(op="run", engine="python", code="print('a')")
    third = compute(op="run", engine="python", code="print('a')")
    assert second["runId"] == first["runId"] == third["runId"]
    assert (second["attempt"], third["attempt"]) == (2, 3)
    assert second["receipt"] == f"Computation/{first['runId']}/attempts/2/receipt.json"
    after = _files(compute.project / "Computation")
    assert {k: after[k] for k in before} == before
    assert second["previousReceipt"] == {
        "runId": first["runId"],
        "attempt": 1,
        "scriptHash": first["scriptHash"],
    }
    assert second["scriptChanged"] is False


def test_editing_a_file_and_rerunning_flags_script_changed(compute: Compute) -> None:
    """docs/guide/compute.md (N1): mode file keys the id by path; an edit is a new attempt,
    scriptChanged."""
    source = compute.project / "calc.py"
    source.write_text("print(1)\n")
    first = compute(op="run", engine="python", mode="file", file="calc.py")
    source.write_text("print(2)\n")
    second = compute(op="run", engine="python", mode="file", file="calc.py")
    assert second["runId"] == first["runId"] and second["attempt"] == 2
    assert second["scriptChanged"] is True and second["stdout"] == "2\n"
    assert "SCRIPT_CHANGED_SINCE_LAST_RECEIPT" in [w["code"] for w in second["warnings"]]
    receipt = compute.receipt(second)
    assert receipt["sourceFile"] == "calc.py" and receipt["scriptChanged"] is True
    assert (
        "SCRIPT_CHANGED_SINCE_LAST_RECEIPT"
        in (compute.project / receipt["attemptDir"] / "receipt.md").read_text()
    )
    old = compute.project / "Computation" / first["runId"] / "script.py"
    assert old.read_text() == "print(1)\n"


def test_a_file_edited_during_its_run_is_flagged(compute: Compute) -> None:
    """docs/guide/compute.md (3): hashes before and after the run; a change in between is never
    silent."""
    source = compute.project / "self_edit.py"
    source.write_text("open(__file__.replace('Computation', 'x'), 'a')\n")
    source.write_text(f"open({str(source)!r}, 'a').write('# touched\\n')\nprint('done')\n")
    response = compute(op="run", engine="python", mode="file", file="self_edit.py")
    assert response["ok"] is True
    assert response["scriptChangedDuringRun"] is True
    assert "SCRIPT_CHANGED_DURING_RUN" in [w["code"] for w in response["warnings"]]
    receipt = compute.receipt(response)
    assert receipt["sourceHashBefore"] != receipt["sourceHashAfter"]


def test_rerunning_an_archived_copy_is_a_new_archive(compute: Compute) -> None:
    """docs/guide/compute.md (N1): a file under Computation/ runs, as a new id, and says so."""
    first = compute(op="run", engine="python", code="print(5)")
    again = compute(op="run", engine="python", mode="file", file=first["scriptPath"])
    assert again["ok"] is True and again["runId"] != first["runId"] and again["attempt"] == 1
    assert again["fileIsArchivedScript"] is True
    assert "ARCHIVED_SCRIPT_RERUN" in [w["code"] for w in again["warnings"]]
    assert again["scriptHash"] == first["scriptHash"]


@pytest.mark.parametrize("path", ["../outside.py", "/etc/hostname", "sub/../../outside.py"])
def test_paths_outside_the_project_are_refused(compute: Compute, path: str) -> None:
    """docs/guide/compute.md: mode file accepts only a path inside the project."""
    (compute.project.parent / "outside.py").write_text("print('escaped')\n")
    response = compute(op="run", engine="python", mode="file", file=path)
    assert response["code"] == "MATH_REFUSED"
    assert response["next"] == {"kind": "reason", "reason": "path-outside-project"}
    assert not (compute.project / "Computation").exists()


def test_a_symlink_inside_the_project_pointing_outside_is_refused(compute: Compute) -> None:
    """Issue 12 (safety): the guard resolves real paths, closing the spec's lexical hole."""
    outside = compute.project.parent / "secret.py"
    outside.write_text("print('escaped')\n")
    (compute.project / "link.py").symlink_to(outside)
    (compute.project / "linked_dir").symlink_to(compute.project.parent)
    for path in ("link.py", "linked_dir/secret.py"):
        response = compute(op="run", engine="python", mode="file", file=path)
        assert response["next"]["reason"] == "path-outside-project", response
    response = compute(
        op="run", engine="python", code="print(1)", captureFiles=["linked_dir/secret.py"]
    )
    assert response["next"]["reason"] == "path-outside-project"
    assert not (compute.project / "Computation").exists()


def test_a_symlink_that_stays_inside_is_fine(compute: Compute) -> None:
    """Issue 12: the real-path guard refuses only what leaves the project."""
    (compute.project / "real.py").write_text("print('inside')\n")
    (compute.project / "alias.py").symlink_to(compute.project / "real.py")
    response = compute(op="run", engine="python", mode="file", file="alias.py")
    assert response["stdout"] == "inside\n"
    assert compute.receipt(response)["sourceFile"] == "real.py"


def test_a_missing_file_is_refused(compute: Compute) -> None:
    """Issue 12 (bad input): a file that does not exist is file-not-found, nothing archived."""
    response = compute(op="run", engine="python", mode="file", file="nope.py")
    assert response["code"] == "MATH_REFUSED"
    assert response["next"]["reason"] == "file-not-found"
    assert not (compute.project / "Computation").exists()


def test_the_response_carries_at_most_64_kb_and_the_archive_all(compute: Compute) -> None:
    """docs/guide/compute.md: full stdout.txt and stderr.txt; the response holds at most 64 KB of
    output."""
    code = "import sys\nprint('x' * 200000)\nsys.stderr.write('e' * 100000)\nprint('END')\n"
    response = compute(op="run", engine="python", code=code)
    assert response["stdoutTruncated"] is True and response["stderrTruncated"] is True
    shown = len(response["stdout"].encode()) + len(response["stderr"].encode())
    assert shown <= 64 * 1024
    assert response["stdout"].endswith("END\n")
    receipt = compute.receipt(response)
    directory = compute.project / receipt["attemptDir"]
    assert (directory / "stdout.txt").stat().st_size == receipt["stdoutBytes"] == 200005
    assert receipt["stdoutTruncated"] is True
    assert "OUTPUT_TRUNCATED" in [w["code"] for w in response["warnings"]]


def test_receipt_is_idempotent_and_rechecks_the_hash(compute: Compute) -> None:
    """docs/guide/compute.md (4): op receipt rewrites nothing, restores a missing receipt.md,
    re-hashes."""
    run = compute(op="run", engine="python", code="print(3)")
    directory = compute.project / "Computation" / run["runId"]
    before = _files(directory)
    first = compute(op="receipt", file=run["runId"])
    second = compute(op="receipt", file=f"Computation/{run['runId']}")
    assert first == second
    assert first["scriptChanged"] is False and first["currentScriptHash"] == run["scriptHash"]
    assert first["receiptMdWritten"] is False
    assert _files(directory) == before

    md = (directory / "receipt.md").read_bytes()
    (directory / "receipt.md").unlink()
    restored = compute(op="receipt", file=run["runId"])
    assert restored["receiptMdWritten"] is True
    assert (directory / "receipt.md").read_bytes() == md

    (directory / "script.py").write_text("print(4)\n")
    tampered = compute(op="receipt", file=run["runId"])
    assert tampered["scriptChanged"] is True
    assert tampered["currentScriptHash"] not in (None, run["scriptHash"])
    (directory / "script.py").unlink()
    gone = compute(op="receipt", file=run["runId"])
    assert gone["scriptChanged"] is True and gone["currentScriptHash"] is None
    assert (directory / "receipt.json").read_bytes() == before["receipt.json"]


def test_receipt_picks_the_latest_attempt_or_the_one_named(compute: Compute) -> None:
    """docs/guide/compute.md: an id names its latest attempt; attempts/<n> names one."""
    run = compute(op="run", engine="python", code="print(3)")
    compute(op="run", engine="python", code="print(3)")
    latest = compute(op="receipt", file=run["runId"])
    first = compute(op="receipt", file=f"Computation/{run['runId']}/attempts/1")
    assert (latest["attempt"], latest["latestAttempt"]) == (2, 2)
    missing = compute(op="receipt", file=f"Computation/{run['runId']}/attempts/7")
    assert missing["next"]["reason"] == "archive-missing"
    assert first["attempt"] == 1 and first["latestAttempt"] == 2


def test_receipt_of_a_missing_or_broken_archive(compute: Compute) -> None:
    """docs/guide/compute.md (4): missing is MATH_REFUSED archive-missing; unparsable is
    receipt-unparsable."""
    missing = compute(op="receipt", file="reckoner-with-compute-my-project-000000000000")
    assert missing["code"] == "MATH_REFUSED"
    assert missing["next"] == {"kind": "reason", "reason": "archive-missing"}
    run = compute(op="run", engine="python", code="print(3)")
    path = compute.project / run["receipt"]
    path.write_text("{not json")
    broken = compute(op="receipt", file=run["runId"])
    assert broken["code"] == "MATH_INVALID_ARGUMENT"
    assert broken["next"] == {"kind": "reason", "reason": "receipt-unparsable"}
    assert path.read_text() == "{not json"
    bad = compute(op="receipt", file="../../etc")
    assert bad["code"] == "MATH_INVALID_ARGUMENT"


def test_retention_limits_warn_and_never_delete(
    compute: Compute, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/guide/compute.md (7): above the limit a warning, never a deletion."""
    monkeypatch.setattr(archive, "MAX_ATTEMPTS_PER_RUN", 2)
    for _ in range(3):
        response = compute(op="run", engine="python", code="print(0)")
    assert "ARCHIVE_RETENTION_EXCEEDED" in [w["code"] for w in response["warnings"]]
    assert len(archive.Archive(compute.project).attempts_of(response["runId"])) == 3


def test_two_runs_of_one_id_at_once_get_two_attempts(compute: Compute) -> None:
    """docs/guide/compute.md (5): the attempt directory is claimed exclusively, never shared."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        results = list(
            pool.map(lambda _: compute(op="run", engine="python", code="print(9)"), range(4))
        )
    assert sorted(r["attempt"] for r in results) == [1, 2, 3, 4]


def test_missing_packages_are_reported_and_nothing_is_archived(compute: Compute) -> None:
    """docs/guide/compute.md (MATH_MISSING_PACKAGES): reported by base name, never installed, no
    archive."""
    response = compute(
        op="run",
        engine="python",
        code="print(1)",
        packages=["numpy>=1", "surely-not-a-package-xyz"],
    )
    assert response["code"] == "MATH_MISSING_PACKAGES"
    assert response["missing"] == ["surely-not-a-package-xyz"]
    assert response["next"]["kind"] == "agent-install"
    assert response["constraintsNotEnforced"] == ["numpy>=1"]
    assert not (compute.project / "Computation").exists()
    present = compute(op="run", engine="python", code="print(1)", packages=["numpy>=1"])
    assert present["ok"] is True and present["constraintsNotEnforced"] == ["numpy>=1"]


@pytest.mark.parametrize("spec", ["numpy; rm -rf /", "numpy|x", "$(id)", "a b", "pkg@http://x"])
def test_shell_metacharacters_in_a_package_are_refused(compute: Compute, spec: str) -> None:
    """docs/guide/compute.md: a spec the tool will not pass on is unsupported-version-syntax."""
    response = compute(op="run", engine="python", code="print(1)", packages=[spec])
    assert response["code"] == "MATH_INVALID_ARGUMENT"
    assert response["next"]["reason"] == "unsupported-version-syntax"


def test_unknown_and_mistyped_arguments_are_refused(compute: Compute) -> None:
    """Issue 12 (closed schema): unknown keys and wrong types refused with one sentence."""
    unknown = compute(op="run", engine="python", code="1", record=True)
    assert unknown["code"] == "MATH_INVALID_ARGUMENT" and "'record'" in unknown["error"]
    for bad in (
        {"op": "fly"},
        {"op": "run", "engine": "python", "code": 5},
        {"op": "run", "engine": "python", "code": "1", "timeoutMs": 999},
        {"op": "run", "engine": "python", "code": "1", "timeoutMs": True},
        {"op": "run", "engine": "cli", "code": "1", "cli": {"command": "x", "shell": True}},
        {"op": "run", "engine": "python", "code": "1", "expr": "2"},
        {"op": "run", "engine": "python"},
        {"op": "run", "code": "1"},
        {},
    ):
        response = compute(**bad)
        assert response["code"] == "MATH_INVALID_ARGUMENT", (bad, response)
    assert compute.service.call([1, 2])["code"] == "MATH_INVALID_ARGUMENT"
    assert not (compute.project / "Computation").exists()


def test_receipt_json_holds_the_documented_fields(compute: Compute) -> None:
    """docs/guide/compute.md: engine and version, script path and hash, argv, cwd, exit, flags,
    network."""
    response = compute(op="run", engine="python", code="print(1)")
    receipt = compute.receipt(response)
    for key in (
        "runId", "attempt", "engine", "engineInfo", "scriptPath", "scriptHash", "argv", "cwd",
        "exit", "timedOut", "durationMs", "stdoutTruncated", "stderrTruncated", "captured",
        "network", "scriptChanged", "scriptChangedDuringRun",
    ):  # fmt: skip
        assert key in receipt, key
    assert json.loads(json.dumps(receipt)) == receipt
    assert os.path.isabs(receipt["scriptAbs"])


def test_an_unwritable_archive_is_one_sentence_and_changes_nothing(compute: Compute) -> None:
    """Guide (faults): a file where Computation/ should be refuses the run in one sentence."""
    blocker = compute.project / "Computation"
    blocker.write_text("not a folder")
    response = compute(op="run", engine="python", code="print(1)")
    assert response["code"] == "MATH_REFUSED"
    assert "cannot be written" in response["error"] and response["next"]["kind"] == "note"
    assert blocker.read_text() == "not a folder"
    assert compute.rows[-1][0] is False


def test_cli_stdin_and_a_program_slot(compute: Compute) -> None:
    """docs/guide/compute.md (cli): argv with -c keeps its own program; stdin reaches the
    process."""
    response = compute(
        op="run",
        engine="cli",
        code="# archived, not appended",
        cli={
            "command": "python3",
            "argv": ["-c", "import sys; print(sys.stdin.read().upper())"],
            "stdin": "abc",
        },
    )
    assert response["stdout"] == "ABC\n"
    receipt = compute.receipt(response)
    assert receipt["cli"]["scriptAppended"] is False and "-c" in receipt["cli"]["scriptSkipped"]
    assert receipt["argv"][-1] != receipt["scriptAbs"]
    bad = compute(op="run", engine="cli", code="1", cli={"command": "python3; rm -rf /"})
    assert bad["next"] == {"kind": "reason", "reason": "policy"}
    absent = compute(op="run", engine="cli", code="1", cli={"command": "no-such-program-xyz"})
    assert absent["code"] == "MATH_ENGINE_NOT_FOUND"


def test_settings_packages_apply_to_every_run(project: Path) -> None:
    """docs/guide/compute.md (packages): required by every run; a missing one is reported, never
    installed."""
    compute = Compute(project, packages=["no-such-package-xyz"])
    response = compute(op="run", engine="python", code="print(1)")
    assert response["code"] == "MATH_MISSING_PACKAGES"
    assert response["missing"] == ["no-such-package-xyz"]


def test_too_many_runs_in_a_project_warn(compute: Compute, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/guide/compute.md (7): above MAX_RUNS run directories a new run warns; nothing is
    deleted."""
    monkeypatch.setattr(archive, "MAX_RUNS", 1)
    first = compute(op="run", engine="python", code="print('one')")
    second = compute(op="run", engine="python", code="print('two')")
    assert "ARCHIVE_RETENTION_EXCEEDED" not in [w["code"] for w in first["warnings"]]
    assert "ARCHIVE_RETENTION_EXCEEDED" in [w["code"] for w in second["warnings"]]
    assert (compute.project / first["receipt"]).is_file()


def test_probe_checks_packages_by_base_name(compute: Compute) -> None:
    """docs/guide/compute.md: probe reports missing packages by base name and installs nothing."""
    response = compute(op="probe", engine="python", packages=["numpy>=1", "no-such-pkg-q"])
    assert response["packages"] == {"missing": ["no-such-pkg-q"], "checked": True}
    assert not (compute.project / "Computation").exists()


@pytest.mark.parametrize(
    "args",
    [
        {"op": "receipt", "file": "x", "engine": "python"},
        {"op": "probe", "code": "1"},
        {"op": "run", "engine": "python", "code": "1", "confirm": "plan-x"},
        {"op": "install", "engine": "python", "packages": ["six"], "timeoutMs": 5000},
    ],
)
def test_an_argument_the_op_does_not_read_is_refused(compute: Compute, args: dict) -> None:
    """Issue 12 (bad input): an argument another op takes is a mistake, said in one sentence."""
    response = compute(**args)
    assert response["code"] == "MATH_INVALID_ARGUMENT"
    assert response["error"].startswith(f"op {args['op']} takes no ")


def test_a_script_above_the_limit_is_refused(compute: Compute) -> None:
    """Guide (hostile input): a huge script is refused in one sentence naming the limit."""
    from reckoner.contract.limits import MAX_COMPUTE_SCRIPT_LENGTH

    response = compute(op="run", engine="python", code="#" * (MAX_COMPUTE_SCRIPT_LENGTH + 1))
    assert response["code"] == "MATH_INVALID_ARGUMENT"
    assert str(MAX_COMPUTE_SCRIPT_LENGTH) in response["error"] and "mode file" in response["error"]
    assert not (compute.project / "Computation").exists()


@given(st.lists(st.sampled_from(["..", "a", "b", ".", "Computation"]), min_size=1, max_size=6))
def test_the_guard_keeps_every_answer_inside(parts: list[str]) -> None:
    """Issue 12 (safety): whatever the spelling, an accepted path is inside the real root."""
    root = Path(__file__).resolve().parent
    relative = "/".join(parts)
    try:
        real = archive.inside(root, relative)
    except archive.OutsideProject:
        return
    assert real == root or root in real.parents
