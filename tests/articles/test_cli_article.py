"""`reckoner article` (issue 10), run as real subprocesses. The article `reckoner demo` ends
with is checked in tests/cli/test_cli.py, on that module's one run of the demo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from article_helpers import HAND_ID, hand_rows, write_record


def reckoner(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reckoner", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "300"},
    )


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_article_writes_markdown_with_its_audit_sidecar_and_never_overwrites(
    home: Path, tmp_path: Path
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    out = tmp_path / "out"
    out.mkdir()
    first = reckoner("article", HAND_ID, "--home", str(home), "--out", str(out))
    assert first.returncode == 0, first.stderr
    path = out / "reckoner-17000000.md"
    assert first.stdout.strip() == str(path)
    assert path.read_text(encoding="utf-8").startswith("# Heating a 4.7 kOhm resistor")
    sidecar = json.loads((out / "reckoner-17000000.audit.json").read_text())
    assert sidecar["unmatched"] == [] and sidecar["writer"] == "template"
    assert "prepare" in first.stderr and "write" in first.stderr  # the progress display
    # A second run never overwrites: it takes the next number.
    second = reckoner("article", HAND_ID, "--home", str(home), "--out", str(out))
    assert second.stdout.strip() == str(out / "reckoner-17000000-2.md")
    assert path.read_bytes() == (out / "reckoner-17000000-2.md").read_bytes()  # same bytes
    assert leftovers(out) == []


@pytest.mark.tex
def test_article_latex_compiles_into_a_folder_named_after_the_file(
    home: Path, tmp_path: Path
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    done = reckoner(
        "article", HAND_ID, "--home", str(home), "--out", str(tmp_path), "--format", "tex",
        "--name", "heat.tex", "--language", "zh-CN", "--compile",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "heat"
    assert done.stdout.split() == [str(folder / "heat.tex"), str(folder / "heat.pdf")]
    assert (folder / "heat.audit.json").is_file()
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["1799999999999"], "There is no readable record '1799999999999'"),
        ([HAND_ID, "--name", "../escape"], "contains a path separator"),
        ([HAND_ID, "--name", "a/b"], "as the output directory (the dialog's directory, or --out)"),
    ],
)
def test_bad_input_is_one_sentence_and_writes_nothing(
    home: Path, tmp_path: Path, args: list[str], sentence: str
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    out = tmp_path / "out"
    out.mkdir()
    if "--out" not in args:
        args = [*args, "--out", str(out)]
    done = reckoner("article", *args, "--home", str(home))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    # After the progress lines, exactly one line says what was wrong.
    verdicts = [line for line in done.stderr.splitlines() if line.startswith("reckoner: ")]
    assert len(verdicts) == 1 and sentence in verdicts[0], done.stderr
    assert list(out.iterdir()) == []


def test_the_open_record_is_refused(tmp_path: Path) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    home = tmp_path / "home"
    write_record(home, HAND_ID, hand_rows()[:-1], open_=True)
    done = reckoner("article", HAND_ID, "--home", str(home), "--out", str(tmp_path))
    assert done.returncode == 1 and "still open" in done.stderr


def test_a_read_only_directory_is_one_sentence(home: Path, tmp_path: Path) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    if os.geteuid() == 0:
        # root writes anywhere; a read-only bind is what the test needs, so use /proc.
        target = "/proc"
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        target = str(locked)
    done = reckoner("article", HAND_ID, "--home", str(home), "--out", target)
    assert done.returncode == 1 and "is not writable" in done.stderr


def test_article_without_out_uses_the_formats_remembered_folder(home: Path, tmp_path: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    remembered = tmp_path / "remembered"
    remembered.mkdir()
    state = {"generation": {"markdown": {"directory": str(remembered), "language": "zh-CN"}}}
    (home / "state.json").write_text(json.dumps(state))
    done = reckoner("article", HAND_ID, "--home", str(home))
    assert done.returncode == 0, done.stderr
    path = remembered / "reckoner-17000000.md"
    assert done.stdout.strip() == str(path)
    assert "## 已知条件" in path.read_text(encoding="utf-8")
