"""Write the MCP Bundle directory (``bundle/``) and the MCP Registry entry (``server.json``).

Run: ``uv run python scripts/build_bundle.py`` after a tool, a prompt, a preset, a provider
key or the version changed; ``tests/distribution/test_bundle.py`` fails until the committed
files equal what this writes. Everything here is derived from the package's own single
sources (the contract, the server's skills, the providers' key variables, the home's
variable, the version, the project metadata), so no list is kept twice.

``--check`` writes nothing and exits 1 naming the files that differ.
"""

from __future__ import annotations

import json
import struct
import sys
import tomllib
import zlib
from pathlib import Path
from typing import Any

from reckoner.contract.presets import PURE_PRESET
from reckoner.contract.registry import PRESET_NAMES, tools_of
from reckoner.providers.config import SECRET_VARIABLES
from reckoner.server.texts import SKILLS, skill_text
from reckoner.server.tools import TITLES
from reckoner.storage.home_path import DEFAULT_HOME, HOME_ENV
from reckoner.version import __version__

ROOT = Path(__file__).resolve().parent.parent

DISTRIBUTION = "reckoner-mcp"
"""The PyPI name (issue 25): ``reckoner`` on PyPI is another project."""
EXTRAS = "all"
"""The bundle installs every extra: its settings offer the search presets and the keys."""
REGISTRY_NAME = "io.github.reckoner-mcp/reckoner"
"""The MCP Registry name; the README ends with the ``mcp-name:`` marker that proves it."""
MANIFEST_VERSION = "0.4"
"""The newest manifest version of the pinned ``@anthropic-ai/mcpb``: the first with ``uv``."""
REGISTRY_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
ENTRY_POINT = "server.py"
ICON = "icon.png"
ICON_SIZE = 512
PACKED = ("manifest.json", "pyproject.toml", ENTRY_POINT, ICON)
"""What the packed ``.mcpb`` holds: ``.mcpbignore`` keeps ``schemas/`` (for CI) out."""

_HOME_KEY = "home"
_PRESET_KEY = "preset"
_PROJECT_KEY = "project"
"""Compute's project root: the host starts the server in the bundle's own folder, which an
update replaces, so the working directory is no place for archived runs."""


def _project() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        project: dict[str, Any] = tomllib.load(handle)["project"]
    return project


def _short(description: str, limit: int = 100) -> str:
    """The description within the registry's limit: cut at the last clause that fits."""
    if len(description) <= limit:
        return description
    return description[: description.rindex(", ", 0, limit)] + "."


def _key_option(variable: str) -> str:
    """The user_config key of one environment variable: ``ANTHROPIC_API_KEY`` -> its lower case."""
    return variable.lower()


def bundle_tools() -> list[dict[str, str]]:
    """Every tool some preset serves, in the contract's order: the user picks the preset."""
    seen = {tool.name: tool for preset in PRESET_NAMES for tool in tools_of(preset)}
    listed = []
    for tool in seen.values():
        served = f" (presets {', '.join(tool.presets)})" if tool.presets else ""
        listed.append({"name": tool.name, "description": TITLES[tool.name] + served})
    return listed


def _presets_sentence() -> str:
    return "One of: " + ", ".join(PRESET_NAMES) + f". Default {PURE_PRESET}."


def manifest() -> dict[str, Any]:
    """``bundle/manifest.json``: a ``uv`` server whose pyproject installs the PyPI release."""
    project = _project()
    user_config: dict[str, Any] = {
        _HOME_KEY: {
            "type": "directory",
            "title": "Home directory",
            "description": "Where the engine keeps its records, lanes and settings.",
            "default": "${HOME}/" + DEFAULT_HOME.removeprefix("~/"),
            "required": False,
        },
        _PROJECT_KEY: {
            "type": "directory",
            "title": "Compute project folder",
            "description": "Where compute runs its programs and archives their receipts "
            "(under Computation/); used by the presets that serve compute.",
            "default": "${DOCUMENTS}",
            "required": False,
        },
        _PRESET_KEY: {
            "type": "string",
            "title": "Preset",
            "description": "Which tools the server offers. " + _presets_sentence(),
            "default": PURE_PRESET,
            "required": False,
        },
    }
    for variable in SECRET_VARIABLES:
        user_config[_key_option(variable)] = {
            "type": "string",
            "title": variable,
            "description": f"Optional: {variable} for the search and article providers.",
            "sensitive": True,
            "required": False,
        }
    env = {HOME_ENV: "${user_config." + _HOME_KEY + "}"}
    env.update({v: "${user_config." + _key_option(v) + "}" for v in SECRET_VARIABLES})
    args = ["run", "--directory", "${__dirname}", ENTRY_POINT, "serve"]
    args += ["--preset", "${user_config." + _PRESET_KEY + "}"]
    args += ["--project", "${user_config." + _PROJECT_KEY + "}"]
    return {
        "manifest_version": MANIFEST_VERSION,
        "name": "reckoner",
        "display_name": "reckoner",
        "version": __version__,
        "description": project["description"],
        "author": {"name": "the reckoner authors"},
        "icon": ICON,
        "server": {
            "type": "uv",
            "entry_point": ENTRY_POINT,
            "mcp_config": {"command": "uv", "args": args, "env": env},
        },
        "tools": bundle_tools(),
        "tools_generated": False,
        "prompts": [
            {"name": s.name, "description": s.description, "text": skill_text(s)} for s in SKILLS
        ],
        "prompts_generated": False,
        "keywords": ["calculation", "units", "dimensions", "engine", "mcp"],
        "license": "MIT",
        "compatibility": {
            "platforms": ["darwin", "win32", "linux"],
            "runtimes": {"python": project["requires-python"]},
        },
        "user_config": user_config,
    }


def bundle_pyproject() -> str:
    """The bundle's own pyproject: one pinned dependency, nothing to build (``package = false``)."""
    project = _project()
    return (
        "# Written by scripts/build_bundle.py: the host's uv installs the PyPI release from it.\n"
        "[project]\n"
        'name = "reckoner-bundle"\n'
        f'version = "{__version__}"\n'
        f'requires-python = "{project["requires-python"]}"\n'
        f'dependencies = ["{DISTRIBUTION}[{EXTRAS}]=={__version__}"]\n'
        "\n"
        "[tool.uv]\n"
        "package = false\n"
    )


ENTRY_TEXT = '''"""The bundle's entry point: the reckoner command its pyproject pins."""

import sys

from reckoner.cli import main

main(sys.argv[1:])
'''

IGNORE_TEXT = "# The registry schema is for CI, not for the installed bundle.\nschemas/\n"


def server_json() -> dict[str, Any]:
    """``server.json`` for the MCP Registry: the PyPI package run with uvx over stdio."""
    project = _project()
    environment: list[dict[str, Any]] = [
        {
            "name": HOME_ENV,
            "description": "The engine's home directory.",
            "default": DEFAULT_HOME,
            "format": "filepath",
            "isRequired": False,
        }
    ]
    environment += [
        {
            "name": variable,
            "description": f"{variable} for the search and article providers (optional).",
            "isRequired": False,
            "isSecret": True,
        }
        for variable in SECRET_VARIABLES
    ]
    return {
        "$schema": REGISTRY_SCHEMA,
        "name": REGISTRY_NAME,
        "description": _short(project["description"]),
        "version": __version__,
        "packages": [
            {
                "registryType": "pypi",
                "identifier": DISTRIBUTION,
                "version": __version__,
                "runtimeHint": "uvx",
                "transport": {"type": "stdio"},
                "packageArguments": [
                    {"type": "positional", "value": "serve"},
                    {
                        "type": "named",
                        "name": "--preset",
                        "description": "Which tools the server offers.",
                        "default": PURE_PRESET,
                        "choices": list(PRESET_NAMES),
                        "isRequired": False,
                    },
                ],
                "environmentVariables": environment,
            }
        ],
    }


def icon_png(size: int = ICON_SIZE) -> bytes:
    """A drawn icon: a dark tile with a ruler's ticks under a balance beam, as a plain PNG."""
    ink, tile, clear = (0xF2, 0xC1, 0x4E, 0xFF), (0x1E, 0x2A, 0x3A, 0xFF), (0, 0, 0, 0)
    radius, unit = size // 8, size // 16
    rows = []
    for y in range(size):
        row = bytearray(b"\x00")  # filter type: none
        for x in range(size):
            cx = min(x, size - 1 - x)
            cy = min(y, size - 1 - y)
            outside = (
                cx < radius and cy < radius and (radius - cx) ** 2 + (radius - cy) ** 2 > radius**2
            )
            pixel = clear if outside else tile
            beam = 5 * unit <= y < 6 * unit and 3 * unit <= x < 13 * unit
            post = 6 * unit <= y < 11 * unit and 7 * unit <= x < 9 * unit
            base = 11 * unit <= y < 12 * unit and 3 * unit <= x < 13 * unit
            tick = 12 * unit <= y < 13 * unit and (x - 3 * unit) % (2 * unit) < unit // 2
            if not outside and (beam or post or base or (tick and 3 * unit <= x <= 13 * unit)):
                pixel = ink
            row += bytes(pixel)
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + chunk(b"IEND", b"")
    )


def _json(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def generated() -> dict[str, bytes]:
    """Every file this script owns, by its path in the repository, with the bytes it should
    hold now."""
    return {
        "bundle/manifest.json": _json(manifest()),
        "bundle/pyproject.toml": bundle_pyproject().encode("utf-8"),
        f"bundle/{ENTRY_POINT}": ENTRY_TEXT.encode("utf-8"),
        f"bundle/{ICON}": icon_png(),
        "bundle/.mcpbignore": IGNORE_TEXT.encode("utf-8"),
        "server.json": _json(server_json()),
    }


def stale(root: Path = ROOT) -> list[str]:
    """The owned files under ``root`` whose bytes differ from what would be generated now."""
    return [
        name
        for name, data in generated().items()
        if not (root / name).is_file() or (root / name).read_bytes() != data
    ]


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        differing = stale()
        for name in differing:
            print(f"{name} is out of date: run uv run python scripts/build_bundle.py")
        return 1 if differing else 0
    if argv:
        print("usage: scripts/build_bundle.py [--check]", file=sys.stderr)
        return 2
    for name, data in generated().items():
        (ROOT / name).parent.mkdir(parents=True, exist_ok=True)
        (ROOT / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
