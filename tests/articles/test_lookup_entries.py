"""Lookups in articles (docs/guide/articles.md and docs/guide/lookup.md; issue 11 "Articles"): an
answered `search` row is its
own entry in seq order, its answer verbatim and uncut, its sources credited, an open-web answer
marked as unverified; insufficient, refused and failed lookups carry nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from article_helpers import HAND_ID, OHM, row, write_record
from test_cli_article import reckoner
from test_latex import article_pdf_text

from reckoner.articles.audit import audit
from reckoner.articles.fact_model import Facts
from reckoner.articles.facts import collect_facts
from reckoner.articles.latex import check_body
from reckoner.articles.writers.model import facts_json, system_prompt
from reckoner.articles.writers.template import render
from reckoner.lookup.fact import LookupFact

CASES = [(fmt, lang) for fmt in ("md", "tex") for lang in ("en", "zh-CN")]
POLICY = {"tier": "open", "allow": [], "maxResults": 12}
COPPER = {
    "url": "https://en.wikipedia.org/wiki/Electrical_resistivity_and_conductivity",
    "title": "Electrical resistivity & conductivity - Wikipedia",
    "snippet": "Copper 1.68e-8 ohm m at 20 degC",
    "publishedAt": "April 30, 2025",
}
TABLE = {
    "url": "https://www.engineeringtoolbox.com/resistivity-conductivity-d_418.html",
    "title": "Resistivity and Conductivity",
    "snippet": "Copper 1.724e-8",
}
UNUSED = {"url": "https://example.org/never-relied-on", "title": "Unused 777"}
# Verbatim: more than four decimals, a Markdown star and an underscore, two lines.
ANSWER = "Copper: 1.678923e-8 ohm*m at 20 degC (rho_20).\nTemperature coefficient 0.0039303 /K."


def search_row(seq: int, question: str, outcome: str, **content: Any) -> dict[str, Any]:
    """A `search` row as the lookup writes it (docs/guide/lookup.md)."""
    answer = content.pop("answer", None)
    relied = content.pop("relied", [])
    return row(
        seq,
        "search",
        {
            "question": question,
            "tier": content.pop("tier", "strict"),
            "outcome": outcome,
            "candidates": content.pop("candidates", []),
            "used": content.pop("used", []),
            "policy": POLICY,
            "synthesis": {
                "provider": "anthropic",
                "model": "claude-haiku-4-5",
                "promptVersion": "search-extract/1",
                "answer": answer,
                "used": relied,
            },
            "error": content.pop("error", None),
            "durationMs": 412,
        },
    )


def lookup_rows() -> list[dict[str, Any]]:
    return [
        row(1, "record_start", {"title": "Resistance of a copper wire", "record": HAND_ID}),
        row(2, "record_message", {"text": "First the resistivity of copper."}),
        search_row(
            3,
            "What is the resistivity of copper at 20 degC?",
            "answered",
            tier="open",
            candidates=[COPPER, TABLE, UNUSED],
            used=[COPPER, TABLE, UNUSED],
            answer=ANSWER,
            relied=[0, 1],
        ),
        search_row(
            4,
            "What is the melting point of unobtainium 31337?",
            "insufficient",
            candidates=[UNUSED],
            used=[UNUSED],
        ),
        search_row(
            5,
            "What is the density of copper 8123?",
            "refused",
            error="The lookup budget of 4 per record is spent.",
        ),
        search_row(
            6,
            "Where is the failed 9999 lookup?",
            "failed",
            used=[UNUSED],
            answer=None,
            error="The extraction reply was not JSON.",
        ),
        row(
            7, "set", {"name": "rho", "value": {"num": 1.678923e-8, "dim": [3, 1, -3, -2, 0, 0, 0]}}
        ),
        row(8, "set", {"name": "R1", "value": {"num": 0.5, "dim": OHM}}),
        row(9, "record_end", {"text": "Done.", "record": HAND_ID}),
    ]


def lookup_facts() -> Facts:
    return collect_facts(HAND_ID, lookup_rows(), is_open=False)


def test_only_the_answered_lookup_is_an_entry_in_seq_order() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    entries = lookup_facts().entries
    assert [type(entry).__name__ for entry in entries] == ["Message", "LookupFact"]
    lookup = entries[1]
    assert isinstance(lookup, LookupFact) and lookup.seq == 3
    assert lookup.answer == ANSWER and lookup.open_web
    assert [source.url for source in lookup.sources] == [COPPER["url"], TABLE["url"]]


@pytest.mark.parametrize(("fmt", "lang"), CASES)
def test_template_shows_the_lookup_verbatim_with_sources_and_audits_clean(
    fmt: str, lang: str
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    body = render(lookup_facts(), lang, fmt)
    assert body == render(lookup_facts(), lang, fmt)  # deterministic bytes
    assert audit(body, lookup_facts()) == []
    # Uncut: the answer's numbers keep every digit the source wrote.
    assert "1.678923e-8" in body and "0.0039303" in body
    # The question, then the answer, after the message it follows.
    assert body.index("First the resistivity") < body.index("resistivity of copper at 20")
    assert body.index("resistivity of copper at 20") < body.index("1.678923e-8")
    # One line per source it relied on, with the date; the unused candidate is not credited.
    # (A LaTeX address may break after its marks: issue 23's \allowbreak between them.)
    joined = body.replace("\\allowbreak{}", "")
    assert "April 30, 2025" in body and "engineeringtoolbox.com" in joined
    assert "never-relied-on" not in body and "Unused" not in body
    # Nothing of the insufficient, refused or failed lookups.
    for absent in ("unobtainium", "8123", "9999", "budget", "not JSON"):
        assert absent not in body
    marks = {"en": "Looked up on the open web and not verified.", "zh-CN": "未经核实"}
    assert marks[lang] in body


def test_markdown_escapes_the_answer_and_links_each_source() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    body = render(lookup_facts(), "en", "md")
    assert "Looked up: What is the resistivity of copper at 20 degC?" in body
    assert "> Copper: 1.678923e-8 ohm\\*m at 20 degC (rho\\_20).  \n" in body
    assert "> Temperature coefficient 0.0039303 /K." in body
    url = COPPER["url"]
    assert (
        "- Electrical resistivity & conductivity - Wikipedia, April 30, 2025: "
        f"[{url.replace('_', chr(92) + '_')}](<{url}>)"
    ) in body
    assert "- Resistivity and Conductivity: [" in body


def test_latex_escapes_the_answer_and_the_sources_and_passes_the_checks() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    body = render(lookup_facts(), "en", "tex")
    check_body(body)
    assert "rho\\_20" in body and "Electrical resistivity \\& conductivity" in body
    joined = body.replace("\\allowbreak{}", "")  # the address's break points (issue 23)
    assert (
        "\\item Resistivity and Conductivity: \\texttt{https://www.engineeringtoolbox.com/"
        in joined
    )
    assert "resistivity-conductivity-d\\_418.html}" in joined


def test_a_strict_answer_carries_no_open_web_mark() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    rows = lookup_rows()
    rows[2]["content"]["tier"] = "strict"
    body = render(collect_facts(HAND_ID, rows, is_open=False), "en", "md")
    assert "1.678923e-8" in body and "open web" not in body


def test_the_audit_still_catches_a_number_no_lookup_gave() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    body = render(lookup_facts(), "en", "md") + "\nAbout 1.9e-8 ohm m.\n"
    assert [unmatched.text for unmatched in audit(body, lookup_facts())] == ["1.9e-8"]


def test_the_model_receives_the_lookup_verbatim_with_its_sources_and_rules() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    document = json.loads(facts_json(lookup_facts()))
    lookups = [entry for entry in document["sequence"] if entry["kind"] == "lookup"]
    assert lookups == [
        {
            "kind": "lookup",
            "question": "What is the resistivity of copper at 20 degC?",
            "answer": ANSWER,
            "openWebUnverified": True,
            "sources": [
                "Electrical resistivity & conductivity - Wikipedia, April 30, 2025 "
                f"<{COPPER['url']}>",
                f"Resistivity and Conductivity <{TABLE['url']}>",
            ],
        }
    ]
    assert "unobtainium" not in facts_json(lookup_facts())
    for fmt in ("md", "tex"):
        rules = system_prompt("en", fmt)
        assert "quote its answer" in rules and "credit every one of its sources" in rules
        assert "open web and is not verified" in rules


@pytest.mark.tex
@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_real_pdf_of_an_article_with_a_lookup_carries_the_answer(
    tmp_path: Path, language: str
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    text = article_pdf_text(lookup_facts(), language, tmp_path)
    assert "1.678923e-8" in text and "0.0039303" in text and "April 30, 2025" in text


def test_reckoner_article_on_a_record_with_lookups_writes_them_and_audits_clean(
    tmp_path: Path, out: Path
) -> None:
    """End to end through the CLI: the record file, the job, the article and its sidecar.
    Spec: docs/guide/articles.md (article generation)."""
    home = tmp_path / "lookup-home"
    write_record(home, HAND_ID, lookup_rows())
    done = reckoner("article", HAND_ID, "--home", str(home), "--out", str(out))
    assert done.returncode == 0, done.stderr
    article = Path(done.stdout.strip()).read_text(encoding="utf-8")
    assert "1.678923e-8" in article and "Looked up on the open web and not verified." in article
    assert "unobtainium" not in article
    sidecar = json.loads((out / "reckoner-17000000.audit.json").read_text(encoding="utf-8"))
    assert sidecar["unmatched"] == []
