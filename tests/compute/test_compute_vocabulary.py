"""Issue 12 (vocabulary): exactly 11 codes, 7 next kinds, 13 next reasons, each reachable.

The values are spelled once in reckoner.compute.vocabulary; this test holds them against
the spec's list, the README, the tool's schema, and drives a call that produces each one.
Every response on the way is checked to be plain JSON.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from compute_helpers import Compute, checked, fake_engine, write_program

from reckoner.compute.vocabulary import NextKind, NextReason
from reckoner.contract.codes import MathCode
from reckoner.contract.compute import COMPUTE_TOOL
from reckoner.server.tools import DESCRIPTIONS, INPUT_SCHEMAS

COMPUTE_GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "compute.md"

SPEC_CODES = [
    "MATH_NOT_AVAILABLE",
    "MATH_ENGINE_NOT_FOUND",
    "MATH_ENGINE_LICENSE_REQUIRED",
    "MATH_ENGINE_UNUSABLE",
    "MATH_MISSING_PACKAGES",
    "MATH_TIMEOUT",
    "MATH_NONZERO_EXIT",
    "MATH_ENGINE_BAD_ARGV",
    "MATH_REFUSED",
    "MATH_INVALID_ARGUMENT",
    "MATH_NO_SUBPROCESS",
]
SPEC_KINDS = [
    "user-install",
    "agent-install",
    "vendor",
    "enable",
    "engine-override",
    "reason",
    "note",
]
SPEC_REASONS = [
    "policy",
    "engine-not-allowed",
    "missing-cli-command",
    "expr-not-supported",
    "mode-not-supported",
    "path-outside-project",
    "file-not-found",
    "system-scope-unsupported",
    "plan-token-mismatch",
    "archive-missing",
    "receipt-unparsable",
    "no-subprocess",
    "unsupported-version-syntax",
]


def test_the_vocabulary_is_the_specs() -> None:
    """docs/guide/compute.md: exactly these values, in this order, defined once."""
    assert [c.value for c in MathCode] == SPEC_CODES
    assert [k.value for k in NextKind] == SPEC_KINDS
    assert [r.value for r in NextReason] == SPEC_REASONS
    assert (len(SPEC_CODES), len(SPEC_KINDS), len(SPEC_REASONS)) == (11, 7, 13)


def test_the_readme_lists_every_value() -> None:
    """Issue 12: the docs name every code, kind and reason, and no other MATH_ code."""
    section = COMPUTE_GUIDE.read_text(encoding="utf-8")
    for value in (*SPEC_CODES, *SPEC_KINDS, *SPEC_REASONS):
        assert f"`{value}`" in section, value
    assert set(re.findall(r"MATH_[A-Z_]+", section)) == set(SPEC_CODES)


def test_the_schema_matches_the_contract() -> None:
    """Issue 12: the MCP schema is derived from the contract and closed."""
    schema = INPUT_SCHEMAS["compute"]
    assert schema["additionalProperties"] is False
    assert list(schema["properties"]) == list(COMPUTE_TOOL.keys)
    assert schema["required"] == ["op"]
    assert "MATH_" in DESCRIPTIONS["compute"]


def _scenarios(tmp: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    fakes = tmp / "fakes"
    fake_engine(fakes, "julia", "julia version 1.10.0")
    fake_engine(fakes, "matlab", "24.1.0.1 (R2024a)", licensed=False)
    fake_engine(fakes, "maple", "Maple 2024.1")
    write_program(fakes, "failing", "exit 9\n")
    write_program(fakes, "sleeper", "sleep 20\n")
    broken = tmp / "broken"
    write_program(broken, "julia", "exit 2\n")
    unstartable = tmp / "unstartable"
    unstartable.mkdir()
    (unstartable / "julia").write_text("#!/nonexistent\n")
    (unstartable / "julia").chmod(0o755)
    badargv = tmp / "badargv"
    write_program(
        badargv,
        "julia",
        'case "$1" in --version) echo "julia version 1.0.0"; exit 0;; esac\n'
        'echo "ERROR: unknown option --startup-file=no" >&2; exit 1\n',
    )
    (project / "outside").symlink_to(tmp)
    base = Compute(project, str(fakes))
    out: list[dict[str, Any]] = []
    out.append(Compute(project, str(fakes), mode="off")(op="probe"))  # NOT_AVAILABLE, enable
    out.append(Compute(project, str(tmp / "empty"))(op="run", engine="julia", code="1"))
    out.append(base(op="run", engine="matlab", code="1"))  # LICENSE_REQUIRED, vendor
    out.append(Compute(project, str(broken))(op="run", engine="julia", code="1"))  # UNUSABLE
    out.append(Compute(project, str(unstartable))(op="probe", engine="julia"))  # no-subprocess
    out.append(base(op="run", engine="cli", code="1", cli={"command": "failing"}))  # NONZERO
    out.append(
        base(op="run", engine="cli", code="1", cli={"command": "sleeper"}, timeoutMs=1000)
    )  # TIMEOUT
    out.append(Compute(project, str(badargv))(op="run", engine="julia", code="1"))  # BAD_ARGV
    out.append(base(op="run", engine="julia", code="1", packages=["a;b"]))  # version syntax
    out.append(base(op="run", engine="julia", code="1", colour=1))  # INVALID_ARGUMENT
    out.append(Compute(project, str(fakes), engines=["julia"])(op="run", engine="r", code="1"))
    out.append(base(op="run", engine="cli", code="1"))  # missing-cli-command
    out.append(base(op="run", engine="cli", expr="1", cli={"command": "failing"}))  # expr
    out.append(base(op="run", engine="maple", expr="1"))  # mode-not-supported
    out.append(base(op="run", engine="julia", mode="file", file="outside/x.jl"))  # outside
    out.append(base(op="run", engine="julia", mode="file", file="missing.jl"))  # not found
    out.append(base(op="install", engine="julia", packages=["x"], scope="system"))
    out.append(base(op="install", engine="julia", packages=["x"], confirm="plan-bad"))
    out.append(base(op="install", engine="julia", packages=["x"]))  # agent-install plan
    out.append(base(op="receipt", file="reckoner-with-compute-my-project-aaaaaaaaaaaa"))
    ran = base(op="run", engine="julia", code="1")
    (project / ran["receipt"]).write_text("[")
    out.append(base(op="receipt", file=ran["runId"]))  # receipt-unparsable
    out.append(base(op="install", engine="cli", packages=["x"]))  # policy
    out.append(Compute(project)(op="run", engine="python", code="1", packages=["no-such-pkg-x"]))
    out.append(base(op="run", engine="julia", code="1", cli={"command": "x"}))  # invalid (cli)
    engine_override = Compute(project, str(badargv))(op="run", engine="julia", code="2")
    out.append(engine_override)
    return out


def test_every_code_kind_and_reason_is_reachable(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12 (done when): every code and next value is reachable; every response is JSON."""
    responses = [checked(r) for r in _scenarios(tmp_path, project, monkeypatch)]
    codes = {r["code"] for r in responses if r["ok"] is False}
    kinds = {r["next"]["kind"] for r in responses if isinstance(r.get("next"), dict)}
    reasons = {
        r["next"]["reason"]
        for r in responses
        if isinstance(r.get("next"), dict) and r["next"]["kind"] == "reason"
    }
    assert codes == set(SPEC_CODES)
    assert kinds == set(SPEC_KINDS)
    assert reasons == set(SPEC_REASONS)
