"""docs/guide/articles.md and docs/guide/lookup.md (issue 11's articles bullet): an answered
`search` row becomes its own
fact entry, answer verbatim, one line per source relied on, open-web answers marked; rows a
real engine wrote through the fake provider are the input."""

from __future__ import annotations

from fakes import Source, reply_json
from lookup_helpers import Lookups

from reckoner.lookup.fact import lookup_fact

ANSWER = "The density of copper is 8.9600 g/cm3 (at 20.000 degC)."
STATED = "8.96 g/cm3 at 20 degC"  # the answer's numbers, written with fewer zeros


def test_an_answered_lookup_is_a_fact_with_its_sources_and_nothing_else_is(
    lookups: Lookups,
) -> None:
    lookups.anthropic.script.sources = [
        Source("https://evil.example/x", "Evil", STATED),
        Source("https://en.wikipedia.org/wiki/Copper", "Copper - Wikipedia", STATED),
        Source("https://nist.gov/cu", "NIST", STATED, page_age=None),
    ]
    lookups.anthropic.script.extract_text = reply_json(ANSWER, [1])
    lookups.start()
    lookups.search()
    lookups.anthropic.script.sources = []
    lookups.search("What is the density of tin?")
    answered, insufficient = lookups.search_rows()
    fact = lookup_fact(answered["seq"], answered["content"])
    assert fact is not None
    assert (fact.seq, fact.question, fact.answer) == (2, "What is the density of copper?", ANSWER)
    assert [s.line() for s in fact.sources] == ["NIST <https://nist.gov/cu>"]
    assert fact.open_web is False
    assert lookup_fact(insufficient["seq"], insufficient["content"]) is None


def test_an_open_tier_fact_is_marked_as_open_web(lookups: Lookups) -> None:
    lookups.override({"tier": "open"})
    lookups.anthropic.script.sources = [
        Source("https://metals.example/cu", "Metals", STATED, page_age="2024")
    ]
    lookups.anthropic.script.extract_text = reply_json(ANSWER, [0])
    lookups.start()
    lookups.search()
    (row,) = lookups.search_rows()
    fact = lookup_fact(row["seq"], row["content"])
    assert fact is not None and fact.open_web is True
    assert [s.line() for s in fact.sources] == ["Metals, 2024 <https://metals.example/cu>"]


def test_a_hand_edited_row_gives_no_fact_rather_than_a_fault() -> None:
    assert lookup_fact(3, {"outcome": "answered"}) is None
    assert (
        lookup_fact(3, {"outcome": "answered", "question": "q", "synthesis": {"answer": 5}}) is None
    )
    fact = lookup_fact(
        3,
        {
            "outcome": "answered",
            "question": "q",
            "used": [{"url": 1}, "x"],
            "synthesis": {"answer": "a", "used": [0, 1, 7, "0"]},
        },
    )
    assert fact is not None and fact.sources == ()
