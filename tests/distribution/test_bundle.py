"""Issue 25: the MCP Bundle (``bundle/``) and the MCP Registry entry (``server.json``).

Both are written by ``scripts/build_bundle.py`` from the package's own sources; these tests
hold that the committed files are what it writes now, that the manifest lists what the real
server serves, that the keys are secrets, that the official ``mcpb`` CLI (from npm, at the
version ``.ci/mcpb/package-lock.json`` pins) validates and packs the bundle, and that
``server.json`` validates against the registry's published schema.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from reckoner import __version__
from reckoner.contract.registry import PRESET_NAMES, tools_of
from reckoner.providers.config import SECRET_VARIABLES
from reckoner.server.texts import SKILLS, skill_text
from reckoner.storage.home_path import HOME_ENV

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / ".ci" / "bundle-check"
SCHEMA = ROOT / "bundle" / "schemas" / "server.schema.json"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_bundle", ROOT / "scripts" / "build_bundle.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _script()


def _committed(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / name).read_text("utf-8"))
    return data


MANIFEST = _committed("bundle/manifest.json")
SERVER = _committed("server.json")


def test_the_committed_bundle_and_server_json_are_what_the_script_generates_now() -> None:
    """A new tool, prompt, key or version without a rerun of the script fails here."""
    assert build.stale(ROOT) == [], "run: uv run python scripts/build_bundle.py"


def test_a_manifest_with_a_tool_removed_is_caught_as_stale(tmp_path: Path) -> None:
    for name in build.generated():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, tmp_path / name)
    assert build.stale(tmp_path) == []
    manifest = tmp_path / "bundle" / "manifest.json"
    manifest.write_bytes(build._json(MANIFEST))  # written as the script writes: still current
    assert build.stale(tmp_path) == []
    manifest.write_bytes(build._json(dict(MANIFEST, tools=MANIFEST["tools"][:-1])))
    assert build.stale(tmp_path) == ["bundle/manifest.json"]


def test_the_manifest_lists_exactly_the_contracts_tools_and_the_servers_prompts() -> None:
    every = list({tool.name: None for p in PRESET_NAMES for tool in tools_of(p)})
    assert [tool["name"] for tool in MANIFEST["tools"]] == every
    assert [p["name"] for p in MANIFEST["prompts"]] == [s.name for s in SKILLS]
    assert [p["text"] for p in MANIFEST["prompts"]] == [skill_text(s) for s in SKILLS]
    assert MANIFEST["tools_generated"] is False and MANIFEST["prompts_generated"] is False


def test_the_api_keys_are_sensitive_settings_that_reach_the_server_only_as_environment() -> None:
    settings = MANIFEST["user_config"]
    config = MANIFEST["server"]["mcp_config"]
    sensitive = {key for key, option in settings.items() if option.get("sensitive")}
    assert sensitive == {variable.lower() for variable in SECRET_VARIABLES}
    for variable in SECRET_VARIABLES:
        assert config["env"][variable] == "${user_config." + variable.lower() + "}"
        assert settings[variable.lower()]["required"] is False
    # A key on the command line would show in every process listing.
    assert not any(f"user_config.{key}" in arg for key in sensitive for arg in config["args"])
    assert config["env"][HOME_ENV] == "${user_config.home}"
    assert settings["home"]["type"] == "directory"


def _resolved(text: str, values: dict[str, str]) -> str:
    """A manifest string with its ``${...}`` placeholders filled as the host fills them."""
    return re.sub(r"\$\{([^}]+)\}", lambda m: values[m.group(1)], text)


def test_the_bundle_entry_point_serves_each_preset_with_the_manifest_settings(
    tmp_path: Path,
) -> None:
    """The manifest's command line and environment, filled in as the host fills them, start a
    real server; over all presets it lists the manifest's tools, and it lists its prompts.

    The host runs the entry point with ``uv run`` in the unpacked bundle, which installs the
    pinned release from PyPI; here the entry point runs on this checkout's interpreter."""
    config = MANIFEST["server"]["mcp_config"]
    args = config["args"]
    script_at = args.index(MANIFEST["server"]["entry_point"])
    assert args[:script_at] == ["run", "--directory", "${__dirname}"]
    served: dict[str, None] = {}
    for preset in PRESET_NAMES:
        values = {"__dirname": str(ROOT / "bundle"), "user_config.preset": preset}
        values["user_config.home"] = str(tmp_path / "home")
        values["user_config.project"] = str(tmp_path)
        values.update({f"user_config.{v.lower()}": "" for v in SECRET_VARIABLES})
        env = {**os.environ, **{k: _resolved(v, values) for k, v in config["env"].items()}}
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        command = [_resolved(arg, values) for arg in args[script_at:]]
        command[0] = str(ROOT / "bundle" / command[0])
        params = StdioServerParameters(command=sys.executable, args=command, env=env)

        async def listed(params: StdioServerParameters = params) -> tuple[list[str], list[str]]:
            async with Client(params) as client:
                tools = [tool.name for tool in (await client.list_tools()).tools]
                prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
                if "compute" in tools:  # the project setting is where its runs are archived
                    run = {"op": "run", "engine": "python", "code": "print(6 * 7)\n"}
                    receipt = (await client.call_tool("compute", run)).structured_content
                    assert receipt is not None and receipt["stdout"].strip() == "42", receipt
                return tools, prompts

        tools, prompts = anyio.run(listed)
        assert tools == [tool.name for tool in tools_of(preset)]
        assert prompts == [p["name"] for p in MANIFEST["prompts"]]
        served.update(dict.fromkeys(tools))
    assert list(served) == [tool["name"] for tool in MANIFEST["tools"]]
    assert (tmp_path / "home").is_dir()
    assert (tmp_path / "Computation").is_dir()


def test_the_manifest_server_json_and_bundle_pin_the_package_version() -> None:
    assert MANIFEST["version"] == SERVER["version"] == __version__
    assert [p["version"] for p in SERVER["packages"]] == [__version__]
    pinned = (ROOT / "bundle" / "pyproject.toml").read_text("utf-8")
    assert f'"{build.DISTRIBUTION}[{build.EXTRAS}]=={__version__}"' in pinned


def _check(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("npm") is None:
        pytest.skip("npm is missing: the official mcpb CLI installs from npm (apt install npm)")
    return subprocess.run(
        ["bash", str(CHECK), *extra],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.node
def test_mcpb_validate_accepts_the_bundle_and_mcpb_pack_packs_it(tmp_path: Path) -> None:
    out = tmp_path / "reckoner.mcpb"
    done = _check(tmp_path, str(out))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Manifest schema validation passes" in done.stdout
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == sorted(build.PACKED)
        assert json.loads(archive.read("manifest.json")) == MANIFEST


@pytest.mark.node
def test_mcpb_validate_refuses_a_manifest_outside_the_specification(tmp_path: Path) -> None:
    """The CLI really judges the manifest: a server type the spec does not name fails it."""
    broken = tmp_path / "bundle"
    shutil.copytree(ROOT / "bundle", broken)
    manifest = dict(MANIFEST, server=dict(MANIFEST["server"], type="rust"))
    (broken / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    done = _check(tmp_path, str(tmp_path / "broken.mcpb"), str(broken))
    assert done.returncode != 0
    assert "server" in done.stdout + done.stderr
    assert not (tmp_path / "broken.mcpb").exists()


def _registry_validator() -> jsonschema.Draft7Validator:
    schema = json.loads(SCHEMA.read_text("utf-8"))
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())


def test_server_json_validates_against_the_registry_schema() -> None:
    errors = [error.message for error in _registry_validator().iter_errors(SERVER)]
    assert errors == []
    assert SERVER["$schema"] == json.loads(SCHEMA.read_text("utf-8"))["$id"]


def test_the_registry_schema_refuses_a_package_without_a_transport() -> None:
    package = {k: v for k, v in SERVER["packages"][0].items() if k != "transport"}
    assert not _registry_validator().is_valid(dict(SERVER, packages=[package]))


def test_the_registry_schema_copy_is_the_published_file_unchanged() -> None:
    recorded = re.search(
        r"SHA-256 of this copy:\s*`([0-9a-f]{64})`",
        (SCHEMA.parent / "README.md").read_text("utf-8"),
    )
    assert recorded is not None
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == recorded.group(1)


def test_server_json_offers_the_pypi_package_over_stdio_with_secret_keys() -> None:
    (package,) = SERVER["packages"]
    assert package["registryType"] == "pypi" and package["identifier"] == build.DISTRIBUTION
    assert package["transport"] == {"type": "stdio"} and package["runtimeHint"] == "uvx"
    variables = {v["name"]: v for v in package["environmentVariables"]}
    assert set(variables) == {HOME_ENV, *SECRET_VARIABLES}
    assert all(variables[v]["isSecret"] is True for v in SECRET_VARIABLES)
    assert variables[HOME_ENV].get("isSecret", False) is False
    preset = next(a for a in package["packageArguments"] if a.get("name") == "--preset")
    assert preset["choices"] == list(PRESET_NAMES)


def test_the_readme_ends_with_the_mcp_name_marker_the_registry_checks_on_pypi() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert readme.rstrip().endswith(f"<!-- mcp-name: {SERVER['name']} -->")
