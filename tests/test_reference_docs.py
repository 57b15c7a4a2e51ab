"""The reference pages (docs/reference/) are what scripts/build_reference.py makes from the
code, and a count the docs write in prose is the count of the table it names."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from reckoner.contract.codes import ErrorCode
from reckoner.contract.engine import TOOLS
from reckoner.core.notation import NOTATIONS

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "build_reference.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_reference", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_the_committed_reference_pages_are_the_ones_the_code_generates(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _generator().main(["--check"]) == 0, capsys.readouterr().out


def test_the_check_names_a_page_that_no_longer_matches_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    generator = _generator()
    monkeypatch.setattr(generator, "REFERENCE", tmp_path / "docs" / "reference")
    monkeypatch.setattr(generator, "ROOT", tmp_path)
    assert generator.main([]) == 0
    assert generator.main(["--check"]) == 0
    page = tmp_path / "docs" / "reference" / "codes.md"
    page.write_text(page.read_text("utf-8").replace("ENGINE_INVALID_FORMULA", "X"), "utf-8")
    capsys.readouterr()
    assert generator.main(["--check"]) == 1
    assert capsys.readouterr().out.strip() == (
        "docs/reference/codes.md is stale: run scripts/build_reference.py"
    )


def test_every_engine_code_and_notation_has_its_row_in_the_reference() -> None:
    codes = (ROOT / "docs" / "reference" / "codes.md").read_text("utf-8")
    notations = (ROOT / "docs" / "reference" / "notations.md").read_text("utf-8")
    assert all(f"| `{code.value}` |" in codes for code in ErrorCode)
    assert all(f"`{n.written}`" in notations for n in NOTATIONS)


def _prose_pages() -> list[Path]:
    """The hand-written pages: the README, the guides, the architecture, the performance
    page (the decisions are history and quote the counts of their day)."""
    docs = ROOT / "docs"
    pages = [ROOT / "README.md", *sorted((docs / "guide").glob("*.md"))]
    return pages + [p for p in (docs / "architecture.md", docs / "index.md") if p.is_file()]


@pytest.mark.parametrize(
    ("pattern", "count"),
    [
        (r"\b(\d+) notations\b", len(NOTATIONS)),
        (r"\b(\d+) (?:failure |engine )?codes\b", len(ErrorCode)),
        (r"\b(\d+) (?:engine )?tools\b", len(TOOLS)),
    ],
    ids=["notations", "engine codes", "engine tools"],
)
def test_a_count_written_in_the_docs_is_the_length_of_the_table_it_counts(
    pattern: str, count: int
) -> None:
    written = [
        (page.name, int(match.group(1)))
        for page in _prose_pages()
        for match in re.finditer(pattern, page.read_text("utf-8"))
    ]
    assert all(number == count for _, number in written), written
