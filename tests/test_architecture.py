"""Issue 2's architecture rule: the pure core imports no I/O and nothing else of reckoner.

Two independent guards: an allowlist walked over every core file's AST (so a new I/O
module fails here even if import-linter's forbidden list misses it), and import-linter's
own contracts from pyproject.toml, which `.ci/run` checks as its own step (`uv run
lint-imports`); here only that the contracts name the core and the layers.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "src" / "reckoner" / "core"
ALLOWED = frozenset(
    {
        "math",
        "cmath",
        "re",
        "enum",
        "dataclasses",
        "typing",
        "fractions",
        "functools",
        "itertools",
        "contextlib",
        "operator",
        "collections",
        "sys",
        "__future__",
        "numpy",
        "typing_extensions",
    }
)
DYNAMIC_IMPORTERS = frozenset({"__import__", "importlib", "exec", "eval", "open"})


def violations(source: str, filename: str) -> list[str]:
    """Every import in `source` outside the allowlist or outside the core package."""
    found: list[str] = []
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                _check_absolute(alias.name, node.lineno, filename, found)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                _check_absolute(node.module or "", node.lineno, filename, found)
            elif node.level > 1:
                # `from .. import x` leaves reckoner.core for the rest of the project.
                found.append(f"{filename}:{node.lineno} relative import above the core")
        elif isinstance(node, ast.Name) and node.id in DYNAMIC_IMPORTERS:
            found.append(f"{filename}:{node.lineno} uses {node.id}")
    return found


def _check_absolute(module: str, line: int, filename: str, found: list[str]) -> None:
    top = module.split(".")[0]
    if module.split(".")[:2] in (["reckoner", "core"], ["reckoner", "contract"]):
        return
    if top not in ALLOWED:
        found.append(f"{filename}:{line} imports {module}")


def core_files() -> list[Path]:
    files = sorted(CORE.rglob("*.py"))
    assert len(files) >= 10, "the core package moved"
    return files


@pytest.mark.parametrize("path", core_files(), ids=lambda p: p.name)
def test_the_core_imports_only_the_allowlist(path: Path) -> None:
    assert violations(path.read_text(encoding="utf-8"), path.name) == []


@pytest.mark.parametrize(
    "source",
    [
        "import os",
        "import logging.handlers",
        "from pathlib import Path",
        "from time import time",
        "from .. import wire",
        "from reckoner.storage import home",
        "from reckoner import service",
        "import json",
        "import random",
        "def f():\n    import socket",
        "x = __import__('os')",
        "import importlib",
        "open('f')",
        "from datetime import datetime",
    ],
)
def test_the_allowlist_check_catches_a_forbidden_import(source: str) -> None:
    assert violations(source, "new_module.py") != []


@pytest.mark.parametrize(
    "source",
    [
        "import math",
        "from collections.abc import Mapping",
        "from . import dimensions",
        "from .errors import fail",
        "import numpy as np",
        "from reckoner.contract.limits import X",
        "from __future__ import annotations",
    ],
)
def test_the_allowlist_check_passes_what_the_core_may_use(source: str) -> None:
    assert violations(source, "new_module.py") == []


def test_import_linter_contracts_name_the_core_and_the_layers() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    forbidden = next(c for c in contracts if c["type"] == "forbidden")
    assert forbidden["source_modules"] == ["reckoner.core"]
    for module in (
        "os",
        "io",
        "pathlib",
        "time",
        "datetime",
        "socket",
        "subprocess",
        "logging",
        "threading",
        "asyncio",
        "reckoner.wire",
        "reckoner.service",
        "reckoner.storage",
    ):
        assert module in forbidden["forbidden_modules"], module
    top = next(c for c in contracts if c["type"] == "layers" and "containers" not in c)
    layers = top["layers"]
    assert layers[-2:] == ["reckoner.core", "reckoner.contract"] and layers[0] == "reckoner.cli"


CONTRACT = ROOT / "src" / "reckoner" / "contract"
CONTRACT_ALLOWED = frozenset(
    {"dataclasses", "enum", "typing", "fractions", "collections", "__future__"}
)


@pytest.mark.parametrize("path", sorted(CONTRACT.glob("*.py")), ids=lambda p: p.name)
def test_the_contract_imports_only_pure_data_modules_and_itself(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), path.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            continue
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        for name in names:
            assert name.split(".")[0] in CONTRACT_ALLOWED or name.startswith("reckoner.contract"), (
                f"{path.name} imports {name}"
            )
