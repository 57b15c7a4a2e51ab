"""Issue 21, cases 5 and 2 (its disk part), over MCP: a real client runs compute through
`serve --preset reckoner-with-compute` against a project whose archive or captures a hostile
script, or a full disk, tries to turn against it."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_helpers import receipt_of, serve_command

from small_disk import small_disk

PRESET = "reckoner-with-compute"
FLOOD = """import sys
try:
    while True:
        sys.stdout.write("x" * 65536)
        sys.stdout.flush()
except OSError:
    pass
"""


def _run(home: Path, project: Path, args: dict[str, Any]) -> dict[str, Any]:
    command = serve_command(home, "--preset", PRESET, "--project", str(project))
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    params = StdioServerParameters(
        command=command[0], args=command[1:], env={**os.environ, "PATH": path}
    )

    async def main() -> dict[str, Any]:
        async with Client(params) as client:
            return receipt_of(await client.call_tool("compute", {"op": "run", **args}))

    return anyio.run(main)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def test_a_computation_folder_that_is_a_symlink_is_refused_and_nothing_is_written_outside(
    tmp_path: Path,
) -> None:
    """Case 5: `Computation -> elsewhere` no longer sends the archive out of the project."""
    project, elsewhere = tmp_path / "proj", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "Computation").symlink_to(elsewhere)
    response = _run(tmp_path / "home", project, {"engine": "python", "code": "print(1)"})
    assert response["ok"] is False and response["code"] == "MATH_REFUSED"
    assert "Computation is a symbolic link" in response["error"]
    assert list(elsewhere.iterdir()) == []


def test_a_capture_the_run_turned_into_a_link_is_refused_and_nothing_outside_is_copied(
    tmp_path: Path,
) -> None:
    """Case 5: a script makes `leak.txt -> /etc/hostname` and asks for it; the receipt says
    the capture was refused, the run is kept, and no byte of /etc/hostname is archived."""
    project = tmp_path / "proj"
    project.mkdir()
    code = "import os\nos.symlink('/etc/hostname', 'leak.txt')\nprint('done')\n"
    response = _run(
        tmp_path / "home",
        project,
        {"engine": "python", "code": code, "captureFiles": ["leak.txt"]},
    )
    assert response["ok"] is True and response["stdout"] == "done\n"
    [capture] = response["captured"]
    assert capture["path"] == "leak.txt" and capture["sha256"] is None
    assert "leak.txt is a symbolic link" in capture["refused"]
    archived = _tree(project / "Computation")
    assert not any("captured" in name for name in archived)
    hostname = Path("/etc/hostname").read_bytes()
    assert not any(data == hostname for data in archived.values())
    receipt_md = (project / response["receipt"]).with_name("receipt.md").read_text()
    assert "leak.txt: refused:" in receipt_md


def test_a_capture_through_a_folder_the_run_turned_into_a_link_is_refused(
    tmp_path: Path,
) -> None:
    """Case 5: no link is followed at any component: `etc -> /etc` then `etc/hostname`."""
    project = tmp_path / "proj"
    project.mkdir()
    code = "import os\nos.symlink('/etc', 'etc')\n"
    response = _run(
        tmp_path / "home",
        project,
        {"engine": "python", "code": code, "captureFiles": ["etc/hostname"]},
    )
    assert response["ok"] is True
    [capture] = response["captured"]
    assert capture["sha256"] is None and "etc is a symbolic link" in capture["refused"]
    assert not any("captured" in name for name in _tree(project / "Computation"))


def test_on_a_full_disk_a_refused_run_leaves_no_empty_receipt_and_no_flood(
    tmp_path: Path,
) -> None:
    """Case 2: a run that floods a small disk is refused with "nothing was changed", and
    that is true: its attempt folder (stdout.txt's flood, any receipt) is gone."""
    with small_disk(tmp_path / "disk") as disk:
        project = disk / "proj"
        project.mkdir()
        response = _run(tmp_path / "home", project, {"engine": "python", "code": FLOOD})
        assert response["ok"] is False and response["code"] == "MATH_REFUSED"
        assert "cannot be written" in response["error"]
        assert "nothing was changed" in str(response["next"])
        assert list(project.rglob("receipt.json")) == []
        assert list(project.rglob("stdout.txt")) == []
        assert sum(p.stat().st_size for p in project.rglob("*") if p.is_file()) == 0
