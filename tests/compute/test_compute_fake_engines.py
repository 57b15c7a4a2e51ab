"""Issue 12, engines: Julia and the commercial engines through fakes on PATH, argv pinned.

Each fake prints a version string for a version probe and otherwise echoes its argv, so the
exact command line every descriptor builds is asserted item by item.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from compute_helpers import Compute, argv_echo, fake_engine, write_program

from reckoner.compute import discovery, engines

FAKES = {
    "julia": ("julia", "julia version 1.10.4", "1.10.4"),
    "matlab": ("matlab", "24.1.0.2537033 (R2024a)", "24.1.0.2537033 (R2024a)"),
    "maple": ("maple", "Maple 2024.1, X86 64 LINUX", "2024.1"),
    "wolfram": ("wolframscript", "WolframScript 1.10.0 for Linux x86 (64-bit)", "1.10.0"),
}


def _fakes(tmp_path: Path, *, licensed: bool = True) -> str:
    bin_dir = tmp_path / "fakebin"
    for program, line, _ in FAKES.values():
        fake_engine(bin_dir, program, line, licensed=licensed)
    return str(bin_dir)


def test_probe_reports_each_fake_with_its_version(tmp_path: Path, project: Path) -> None:
    """docs/guide/compute.md: PATH discovery, the version parsed from each engine's own spelling."""
    # The real engines are left out: the known install locations would find them too.
    compute = Compute(project, _fakes(tmp_path), engines=[*FAKES, "cli"])
    response = compute(op="probe")
    found = {e["engine"]: e for e in response["engines"]}
    assert set(found) == set(FAKES)
    for name, (program, _, version) in FAKES.items():
        assert found[name]["version"] == version
        assert found[name]["path"] == str(tmp_path / "fakebin" / program)
        assert found[name]["usable"] is True
    assert found["matlab"]["licensed"] is True and "verify" in found["maple"]
    assert "verify" not in found["julia"]
    assert response["absent"] == [{"engine": "cli", "why": "needs-a-caller-supplied-command"}]
    assert response["configured"] == [*FAKES, "cli"]


def test_probe_names_configured_engines_it_did_not_find(tmp_path: Path, project: Path) -> None:
    """docs/guide/compute.md (F3): every configured engine is either reported or listed absent with
    why."""
    compute = Compute(project, _fakes(tmp_path), engines=["julia", "maple", "wolfram"])
    (tmp_path / "fakebin" / "maple").unlink()
    (tmp_path / "fakebin" / "wolframscript").unlink()
    response = compute(op="probe")
    assert [e["engine"] for e in response["engines"]] == ["julia"]
    assert response["absent"] == [
        {"engine": "maple", "why": "not-found-on-this-machine"},
        {"engine": "wolfram", "why": "not-found-on-this-machine"},
    ]
    assert "configured but not found on this machine: maple, wolfram" in response["message"]


RUN_ARGV = {
    "julia": lambda s: ["--startup-file=no", s],
    "matlab": lambda s: ["-batch", f"run('{s}')"],
    "maple": lambda s: ["-q", s],
    "wolfram": lambda s: ["-file", s],
}
EVAL_ARGV = {
    "julia": ["--startup-file=no", "-e", "println(1 + 1)"],
    "matlab": ["-batch", "disp(1 + 1)"],
    "wolfram": ["-code", "1 + 1"],
}


@pytest.mark.parametrize("engine", list(FAKES))
def test_run_argv_is_pinned(tmp_path: Path, project: Path, engine: str) -> None:
    """docs/guide/compute.md (string-level placeholders): the script path lands inside
    run('<script>')."""
    compute = Compute(project, _fakes(tmp_path))
    response = compute(op="run", engine=engine, code="1 + 1")
    assert response["ok"] is True, response
    script = str(project.resolve() / response["scriptPath"])
    assert argv_echo(response["stdout"]) == RUN_ARGV[engine](script)
    assert response["argv"][1:] == RUN_ARGV[engine](script)
    assert not any("<" in a and ">" in a for a in response["argv"])


@pytest.mark.parametrize("engine", list(EVAL_ARGV))
def test_eval_argv_is_pinned(tmp_path: Path, project: Path, engine: str) -> None:
    """docs/guide/compute.md (mode expr): the expression is substituted inside one argv item."""
    compute = Compute(project, _fakes(tmp_path))
    response = compute(op="run", engine=engine, expr="1 + 1")
    assert response["ok"] is True, response
    assert argv_echo(response["stdout"]) == EVAL_ARGV[engine]


def test_maple_has_no_expression_form(tmp_path: Path, project: Path) -> None:
    """docs/guide/compute.md: a mode the engine's descriptor has no template for is refused by
    reason."""
    compute = Compute(project, _fakes(tmp_path))
    response = compute(op="run", engine="maple", expr="1 + 1")
    assert response["code"] == "MATH_REFUSED"
    assert response["next"]["reason"] == "mode-not-supported"
    assert not (project / "Computation").exists()


@pytest.mark.parametrize("engine", ["matlab", "maple", "wolfram"])
def test_unlicensed_commercial_engine_points_at_its_vendor(
    tmp_path: Path, project: Path, engine: str
) -> None:
    """Issue 12: commercial engines get a license check; without one, vendor guidance."""
    compute = Compute(project, _fakes(tmp_path, licensed=False))
    response = compute(op="run", engine=engine, code="1")
    assert response["code"] == "MATH_ENGINE_LICENSE_REQUIRED"
    assert response["next"]["kind"] == "vendor"
    assert response["next"]["engine"] == engine
    assert "verify" in response["next"]


@pytest.mark.parametrize("engine", ["matlab", "maple", "wolfram"])
def test_commercial_engines_are_never_installed(tmp_path: Path, project: Path, engine: str) -> None:
    """docs/guide/compute.md: install refuses a commercial engine and points at the vendor."""
    compute = Compute(project, _fakes(tmp_path))
    response = compute(op="install", engine=engine, packages=["x"])
    assert response["code"] == "MATH_REFUSED" and response["next"]["kind"] == "vendor"


def test_rejected_options_are_bad_argv(tmp_path: Path, project: Path) -> None:
    """docs/guide/compute.md: an engine refusing its command line is MATH_ENGINE_BAD_ARGV, not a
    bare exit."""
    bin_dir = tmp_path / "bin"
    write_program(
        bin_dir,
        "matlab",
        """case "$*" in
  *'disp(version)'*) echo '9.1.0.1 (R2016b)'; exit 0;;
  *'disp(license())'*) echo 12345; exit 0;;
esac
echo "'-batch' is not a valid option" >&2
exit 1
""",
    )
    compute = Compute(project, str(bin_dir))
    response = compute(op="run", engine="matlab", code="disp(1)")
    assert response["code"] == "MATH_ENGINE_BAD_ARGV"
    assert response["next"] == {
        "kind": "engine-override",
        "engine": "matlab",
        "argv": response["argv"],
    }
    assert (project / response["receipt"]).is_file()


def test_missing_engine_guidance_names_only_the_requested_engine(
    tmp_path: Path, project: Path
) -> None:
    """Issue 12 (bad input): install guidance for Linux, macOS and Windows, for that engine."""
    compute = Compute(project, str(tmp_path / "empty"))
    response = compute(op="run", engine="julia", code="1")
    assert response["code"] == "MATH_ENGINE_NOT_FOUND"
    nxt = response["next"]
    assert nxt["kind"] == "user-install" and nxt["engine"] == "julia"
    assert {"linux", "macos", "windows", "link"} <= set(nxt)
    assert "python" not in str(nxt).lower()


def test_known_install_location_is_found_when_path_has_nothing(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/guide/compute.md: PATH first, then the known install locations, reported as foundVia."""
    installed = fake_engine(tmp_path / "opt" / "julia-1.10.4" / "bin", "julia", FAKES["julia"][1])
    pattern = str(tmp_path / "opt" / "julia-*" / "bin" / "julia")
    julia = dataclasses.replace(engines.DESCRIPTORS["julia"], known_locations=(pattern,))
    monkeypatch.setitem(engines.DESCRIPTORS, "julia", julia)
    monkeypatch.setattr("reckoner.compute.probe.DESCRIPTORS", engines.DESCRIPTORS)
    compute = Compute(project, str(tmp_path / "empty"))
    response = compute(op="probe", engine="julia")
    assert response["engineInfo"]["foundVia"] == "known-install"
    assert response["engineInfo"]["path"] == str(installed)


def test_a_failing_version_probe_is_unusable_and_not_retried(tmp_path: Path, project: Path) -> None:
    """docs/guide/compute.md: a deterministic failure is final (one attempt) and never says
    install."""
    bin_dir = tmp_path / "bin"
    write_program(bin_dir, "julia", "echo broken >&2\nexit 3\n")
    compute = Compute(project, str(bin_dir))
    response = compute(op="run", engine="julia", code="1")
    assert response["code"] == "MATH_ENGINE_UNUSABLE"
    assert response["next"]["kind"] == "note"
    assert response["probe"]["attempts"] == 1 and response["probe"]["retried"] is False
    assert response["probe"]["exit"] == 3 and "broken" in response["probe"]["stderrTail"]


def test_a_cold_start_is_retried(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/guide/compute.md: only the cold-start signature (no exit code) is retried."""
    monkeypatch.setattr(discovery, "PROBE_TIMEOUTS_MS", (1000, 1000, 1000))
    marker = tmp_path / "warmed"
    bin_dir = tmp_path / "bin"
    write_program(
        bin_dir,
        "julia",
        f'if [ ! -e "{marker}" ]; then touch "{marker}"; sleep 5; fi\n'
        "echo 'julia version 1.9.0'\n",
    )
    compute = Compute(project, str(bin_dir))
    response = compute(op="probe", engine="julia")
    assert response["engineInfo"]["version"] == "1.9.0"
    state = compute.service.context.engines.states["julia"]
    assert state.probe["attempts"] == 2 and state.probe["retried"] is True
    assert state.probe["retryDiag"][0]["timedOut"] is True


def test_an_engine_that_cannot_be_started_is_no_subprocess(tmp_path: Path, project: Path) -> None:
    """docs/guide/compute.md: resolved but not startable is MATH_NO_SUBPROCESS, not a missing
    engine."""
    bin_dir = tmp_path / "bin"
    program = bin_dir / "julia"
    bin_dir.mkdir()
    program.write_text("#!/nonexistent/interpreter\n")
    program.chmod(0o755)
    compute = Compute(project, str(bin_dir))
    response = compute(op="run", engine="julia", code="1")
    assert response["code"] == "MATH_NO_SUBPROCESS"
    assert response["next"] == {"kind": "reason", "reason": "no-subprocess"}


def test_probe_results_are_cached_for_the_servers_lifetime(tmp_path: Path, project: Path) -> None:
    """Issue 12 (speed): the second probe starts no process."""
    bin_dir = tmp_path / "bin"
    counter = tmp_path / "count"
    write_program(bin_dir, "julia", f'echo x >> "{counter}"\necho "julia version 1.10.0"\n')
    compute = Compute(project, str(bin_dir))
    first = compute(op="probe", engine="julia")
    second = compute(op="probe", engine="julia")
    assert first == second
    assert counter.read_text().count("x") == 1


def test_a_package_precheck_that_cannot_answer_never_reads_as_missing(
    tmp_path: Path, project: Path
) -> None:
    """docs/guide/compute.md: no answer is PACKAGE_PRECHECK_UNKNOWN, no probe is _SKIPPED; the run
    goes on."""
    compute = Compute(project, _fakes(tmp_path))
    unknown = compute(op="run", engine="julia", code="1", packages=["LinearAlgebra"])
    assert unknown["ok"] is True
    assert [w["code"] for w in unknown["warnings"]] == ["PACKAGE_PRECHECK_UNKNOWN"]
    skipped = compute(op="run", engine="matlab", code="1", packages=["optim"])
    assert skipped["ok"] is True
    assert [w["code"] for w in skipped["warnings"]] == ["PACKAGE_PRECHECK_SKIPPED"]
    cli = compute(op="run", engine="cli", code="1", packages=["x"], cli={"command": "maple"})
    assert [w["code"] for w in cli["warnings"]] == ["PACKAGE_PRECHECK_SKIPPED"]
