"""`reckoner article` takes each setting its help names from the remembered generation
settings (issue 23), and a flag given overrides it; run as real subprocesses, the model
writer against the loopback fake provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from article_helpers import HAND_ID
from fake_providers import FakeProvider, Reply

from reckoner.articles.settings import REMEMBERED

KEY = "sk-test-remembered-7070"
GOOD_MD = "# Heating\n\nThe probe gives 12 V.\n"


def reckoner(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "300", "OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY}
    for variable in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        env.pop(variable, None)
    return subprocess.run(
        [sys.executable, "-m", "reckoner", "article", HAND_ID, "--home", str(home), *args],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
    )


def remember(home: Path, generation: dict[str, Any]) -> None:
    (home / "state.json").write_text(json.dumps({"generation": generation}))


def remember_writer(home: Path, folder: Path, kind: str, model: str, base_url: str) -> None:
    """The Markdown folder and a provider writer remembered, as the panel saves them."""
    writer = {"kind": kind, "model": model, "baseUrl": base_url}
    remember(home, {"markdown": {"directory": str(folder)}, "writer": writer})


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    provider = FakeProvider([Reply(GOOD_MD), Reply(GOOD_MD)])
    yield provider
    provider.close()


def test_article_help_names_every_remembered_setting_and_its_flag(home: Path) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    done = reckoner(home, "--help")
    text = " ".join(done.stdout.split())
    for setting, flag in REMEMBERED:
        assert f"{setting} ({flag})" in text


@pytest.mark.tex
def test_remembered_compile_makes_the_pdf_and_no_compile_overrides_it(
    home: Path, tmp_path: Path
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    remember(home, {"latex": {"directory": str(tmp_path), "compile": True}})
    compiled = reckoner(home, "--format", "tex", "--name", "kept")
    assert compiled.returncode == 0, compiled.stderr
    assert (tmp_path / "kept" / "kept.pdf").is_file()
    assert compiled.stdout.split()[-1] == str(tmp_path / "kept" / "kept.pdf")
    plain = reckoner(home, "--format", "tex", "--name", "plain", "--no-compile")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.split() == [str(tmp_path / "plain" / "plain.tex")]
    assert not (tmp_path / "plain" / "plain.pdf").exists()


@pytest.mark.tex
def test_compile_flag_compiles_when_the_remembered_choice_is_off(
    home: Path, tmp_path: Path
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    remember(home, {"latex": {"directory": str(tmp_path), "compile": False}})
    done = reckoner(home, "--format", "tex", "--name", "flagged", "--compile")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "flagged" / "flagged.pdf").is_file()


def test_remembered_language_is_used_and_the_language_flag_overrides_it(
    home: Path, tmp_path: Path
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    remember(home, {"markdown": {"directory": str(tmp_path), "language": "zh-CN"}})
    chinese = reckoner(home, "--name", "zh")
    assert chinese.returncode == 0, chinese.stderr
    assert "## 已知条件" in (tmp_path / "zh.md").read_text(encoding="utf-8")
    english = reckoner(home, "--name", "en", "--language", "en")
    assert english.returncode == 0, english.stderr
    assert "已知条件" not in (tmp_path / "en.md").read_text(encoding="utf-8")


def test_remembered_directory_is_per_format_and_out_overrides_it(
    home: Path, tmp_path: Path
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    markdown, latex, given = (tmp_path / name for name in ("md", "tex", "given"))
    for folder in (markdown, latex, given):
        folder.mkdir()
    remember(home, {"markdown": {"directory": str(markdown)}, "latex": {"directory": str(latex)}})
    assert reckoner(home, "--format", "tex").stdout.split()[0].startswith(str(latex))
    assert reckoner(home, "--out", str(given)).stdout.strip() == str(given / "reckoner-17000000.md")
    assert list(markdown.iterdir()) == []


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_remembered_writer_model_and_base_url_are_used(
    home: Path, tmp_path: Path, fake: FakeProvider, kind: str
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    remember_writer(home, tmp_path, kind, "remembered-model", fake.url_for(kind))
    done = reckoner(home)
    assert done.returncode == 0, done.stderr
    [request] = fake.requests
    assert request["json"]["model"] == "remembered-model"
    sidecar = json.loads((tmp_path / "reckoner-17000000.audit.json").read_text())
    assert sidecar["writer"] != "template"


def test_model_and_base_url_flags_override_the_remembered_ones(
    home: Path, tmp_path: Path, fake: FakeProvider
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    remember_writer(home, tmp_path, "openai", "remembered", "http://127.0.0.1:9/v1")
    done = reckoner(home, "--model", "typed-model", "--base-url", fake.openai_url)
    assert done.returncode == 0, done.stderr
    [request] = fake.requests
    assert request["json"]["model"] == "typed-model"


def test_writer_flag_overrides_the_remembered_writer(
    home: Path, tmp_path: Path, fake: FakeProvider
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    remember_writer(home, tmp_path, "openai", "remembered", fake.openai_url)
    done = reckoner(home, "--writer", "template")
    assert done.returncode == 0, done.stderr
    assert fake.requests == []
    sidecar = json.loads((tmp_path / "reckoner-17000000.audit.json").read_text())
    assert sidecar["writer"] == "template"
