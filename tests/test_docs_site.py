"""The README a newcomer reads first: short, opening with the two commands, and linking only
to pages that exist; and docs that stand alone, never pointing outside the repository."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_README_LINES = 300


def test_the_readme_is_read_in_ten_minutes() -> None:
    lines = README.read_text("utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, len(lines)


def test_the_readme_opens_with_the_demo_and_the_test_command() -> None:
    text = README.read_text("utf-8")
    first = re.search(r"```sh\n(.*?)```", text, re.S)
    assert first is not None, "the README has no shell block"
    commands = [line.split("#")[0].strip() for line in first.group(1).splitlines()]
    assert commands == ["uv run reckoner demo", "uv run pytest"]
    assert text.index(first.group(0)) < text.index("\n## "), "the commands come before any section"


def test_every_relative_link_of_the_readme_names_a_file_of_the_repository() -> None:
    links = re.findall(r"\]\((?!https?://|#|mailto:)([^)\s#]+)", README.read_text("utf-8"))
    assert links, "the README links into docs/"
    assert [link for link in links if not (ROOT / link).is_file()] == []


def test_the_docs_stand_alone_and_never_point_outside_the_repository() -> None:
    pages = [README, ROOT / "mkdocs.yml", *sorted((ROOT / "docs").rglob("*.md"))]
    outside = re.compile(r"/work/|\.\./shared|\(\.\./\.\./")
    assert [str(p.relative_to(ROOT)) for p in pages if outside.search(p.read_text("utf-8"))] == []


def test_the_site_nav_lists_every_decision_file_in_the_order_of_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decision file added by any change is in the nav, so `mkdocs build --strict` (which
    fails on a page left out of it) never fails for want of a nav line."""
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    from mkdocs_hooks import decision_pages, on_config

    folder = tmp_path / "decisions"
    folder.mkdir()
    (folder / "README.md").write_text("[b](b.md), then [a](a.md) and [gone](gone.md)\n", "utf-8")
    for name in ("a.md", "b.md", "c.md"):
        (folder / name).write_text(f"# {name}\n", "utf-8")
    assert decision_pages(tmp_path) == ["decisions/b.md", "decisions/a.md", "decisions/c.md"]
    config = {"docs_dir": str(ROOT / "docs"), "nav": [{"Home": "index.md"}, {"Decisions": []}]}
    listed = on_config(config)["nav"][1]["Decisions"]
    files = {f"decisions/{p.name}" for p in (ROOT / "docs" / "decisions").glob("*.md")}
    assert listed[0] == {"Index": "decisions/README.md"}
    assert set(listed[1:]) | {"decisions/README.md"} == files


def test_every_figure_block_of_the_performance_page_names_a_bench_command_that_exists() -> None:
    page = (ROOT / "docs" / "performance.md").read_text("utf-8")
    blocks = re.split(r"(?m)^## ", page)[1:]
    assert blocks, "the performance page has no figures"
    for block in blocks:
        commands = re.findall(r"`uv run python (bench/[\w/]+\.py)", block)
        assert commands, block.split("\n", 1)[0]
        assert all((ROOT / command).is_file() for command in commands), commands


def test_the_tour_quotes_the_refusal_and_the_call_count_the_demo_gives(tmp_path: Path) -> None:
    """The README's tour shows the demo's deliberate mistake as the engine refuses it."""
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-m", "reckoner", "demo", "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (record,) = (home / "records").glob("*.jsonl")
    rows = [json.loads(line) for line in record.read_text("utf-8").splitlines()[1:]]
    (refused,) = [row["content"] for row in rows if row["ok"] is False]
    tour = README.read_text("utf-8").split("## A five-minute tour", 1)[1].split("\n## ", 1)[0]
    assert f"{refused['code']}: {refused['error']}" in " ".join(tour.split())
    assert f"# {len(rows)} calls through the MCP server" in tour
