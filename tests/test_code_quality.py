"""Issue 2: lint and types run as part of `uv run pytest` (ruff lint + format, mypy strict)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = [p for p in ("src", "tests", "bench") if (ROOT / p).is_dir()]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_lint_is_clean() -> None:
    completed = _run("ruff", "check", *TARGETS)
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_ruff_format_is_clean() -> None:
    completed = _run("ruff", "format", "--check", *TARGETS)
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_mypy_strict_is_clean_on_src() -> None:
    # files and strictness come from [tool.mypy] in pyproject.toml.
    completed = _run("mypy")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Success" in completed.stdout
