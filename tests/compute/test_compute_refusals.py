"""Issue 24: compute refuses through the one Refusal type, its sentences live in one module,
and every failure receipt keeps its key order (ok, code, error, next, then the evidence).

The codes' one-line "raised when" table sits beside the other families' in
reckoner.contract.codes.
"""

from __future__ import annotations

import ast
from pathlib import Path

from compute_helpers import Compute, fake_engine, write_program

from reckoner.compute import refusals
from reckoner.contract.codes import MATH_RAISED_WHEN, MathCode
from reckoner.contract.refusal import Refusal

COMPUTE = Path(refusals.__file__).resolve().parent
HEAD = ["ok", "code", "error", "next"]


def test_every_math_code_has_one_raised_when_line() -> None:
    """Each of the eleven codes says in one line when it is answered, and no other key is there."""
    assert list(MATH_RAISED_WHEN) == list(MathCode)
    for code, line in MATH_RAISED_WHEN.items():
        assert line and "\n" not in line, code


def test_only_the_refusals_module_builds_a_refusal() -> None:
    """One place for every sentence: no other compute module calls Refusal(...) itself."""
    builders = []
    for path in sorted(COMPUTE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in {"Refusal", "Refused"}
            ):
                builders.append(path.name)
    assert set(builders) == {"refusals.py"}


def test_a_refusal_builder_puts_next_before_the_evidence() -> None:
    """The receipt of a built refusal reads ok, code, error, next, then its extra fields."""
    built = refusals.not_allowed("r", ("python", "julia"))
    assert isinstance(built, Refusal) and built.code is MathCode.REFUSED
    receipt = built.receipt()
    assert list(receipt) == [*HEAD, "engine"]
    assert receipt["next"] == {"kind": "reason", "reason": "engine-not-allowed"}
    assert receipt["error"] == (
        "the engine r is not allowed on this server; the allowed engines are python, julia"
    )


def test_refusals_answered_by_the_tool_keep_their_key_order(tmp_path: Path, project: Path) -> None:
    """Refused before the archive (op first, then ok, code, error, next) and refused after a
    run (ok, code, error, next, then the run's evidence from op on)."""
    fakes = tmp_path / "fakes"
    fake_engine(fakes, "julia", "julia version 1.10.0")
    write_program(fakes, "failing", "echo why >&2\nexit 9\n")
    compute = Compute(project, str(fakes))
    before_run = [
        compute(op="run", engine="julia", code="1", colour=1),
        compute(op="run", engine="maple", code="1"),
        compute(op="run", engine="cli", code="1", cli={"command": "a b"}),
        compute(op="install", engine="julia", packages=["x"], confirm="plan-bad"),
        compute(op="receipt", file="reckoner-with-compute-my-project-aaaaaaaaaaaa"),
    ]
    for response in before_run:
        assert list(response)[:5] == ["op", *HEAD], response
    failed = compute(op="run", engine="cli", code="1", cli={"command": "failing"})
    assert failed["code"] == "MATH_NONZERO_EXIT"
    assert list(failed)[:6] == [*HEAD, "op", "runId"]
