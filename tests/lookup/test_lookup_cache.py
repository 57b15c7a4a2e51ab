"""Issue 26: the home-wide cache of answered lookups, through the engine and the official SDKs
against the loopback fakes; the fake's request log proves a hit asks no provider."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fakes import Source, reply_json
from lookup_helpers import Lookups

from reckoner.lookup import cache

WIKI = "https://en.wikipedia.org/wiki/Copper"
ANSWER = "The density of copper near room temperature is 8.96 g/cm3."


def _answering(lookups: Lookups) -> None:
    lookups.anthropic.script.sources = [Source(WIKI, "Copper - Wikipedia")]
    lookups.anthropic.script.extract_text = reply_json(ANSWER, [0])


def _cache_file(lookups: Lookups) -> Path:
    return lookups.home / "lookup-cache.json"


def _entries(lookups: Lookups) -> dict[str, Any]:
    entries: dict[str, Any] = json.loads(_cache_file(lookups).read_text("utf-8"))["entries"]
    return entries


def test_the_same_question_again_is_answered_from_the_cache_without_the_provider(
    lookups: Lookups,
) -> None:
    _answering(lookups)
    lookups.start()
    first = lookups.search("What is the density of copper?")
    assert len(lookups.anthropic.requests) == 2
    # Case, spaces and the punctuation at the ends do not make it another question.
    again = lookups.search("  what is the DENSITY of   copper ")
    assert again == first == {"ok": True, "answer": ANSWER, "origin": "allowlist"}
    assert len(lookups.anthropic.requests) == 2
    original, hit = (row["content"] for row in lookups.search_rows())
    assert "cached" not in original
    assert hit["outcome"] == "answered" and hit["cached"] is True
    assert hit["question"] == "  what is the DENSITY of   copper "
    assert hit["used"] == original["used"] and hit["candidates"] == original["candidates"]
    assert hit["synthesis"] == original["synthesis"]
    answered = datetime.fromisoformat(hit["answeredAt"])
    assert abs(datetime.now(UTC) - answered) < timedelta(minutes=5)
    assert "usage" not in hit  # nothing was spent at the provider


def test_the_cache_is_home_wide_across_records_and_restarts_and_a_hit_spends_the_budget(
    lookups: Lookups,
) -> None:
    lookups.override({"maxSearchesPerRecord": 1})
    _answering(lookups)
    lookups.start()
    assert lookups.search()["ok"] is True
    assert lookups.call("record_end", {}) == {"ok": True}
    lookups.restart()
    lookups.start("Another bar")
    assert lookups.search()["ok"] is True
    assert len(lookups.anthropic.requests) == 2
    # The hit is a lookup the record carries, so the record's one lookup is spent.
    refused = lookups.search("What is the density of brass?")
    assert refused["code"] == "SEARCH_BUDGET_EXCEEDED"
    assert len(lookups.anthropic.requests) == 2


def test_a_cache_days_of_zero_switches_the_cache_off(lookups: Lookups) -> None:
    lookups.override({"cacheDays": 0})
    _answering(lookups)
    lookups.start()
    lookups.search()
    lookups.search()
    assert len(lookups.anthropic.searches()) == 2
    assert not _cache_file(lookups).exists()


def test_an_entry_older_than_cache_days_is_asked_again(lookups: Lookups) -> None:
    lookups.override({"cacheDays": 2})
    _answering(lookups)
    lookups.start()
    lookups.search()
    tree = json.loads(_cache_file(lookups).read_text("utf-8"))
    (entry,) = tree["entries"].values()
    entry["answeredAt"] = (datetime.now(UTC) - timedelta(days=3)).isoformat(timespec="seconds")
    _cache_file(lookups).write_text(json.dumps(tree), "utf-8")
    lookups.search()
    assert len(lookups.anthropic.searches()) == 2
    assert "cached" not in lookups.search_rows()[-1]["content"]


def test_another_policy_is_another_entry(lookups: Lookups) -> None:
    _answering(lookups)
    lookups.start()
    lookups.search()
    lookups.override({"allowedHosts": ["wikipedia.org"]})
    lookups.search()
    assert len(lookups.anthropic.searches()) == 2
    # A key that does not shape the answer (the budget) keeps the entry.
    lookups.override({"allowedHosts": ["wikipedia.org"], "maxSearchesPerRecord": 9})
    lookups.search()
    assert len(lookups.anthropic.searches()) == 2
    assert len(_entries(lookups)) == 2


def test_an_unanswered_lookup_is_never_cached(lookups: Lookups) -> None:
    _answering(lookups)
    lookups.anthropic.script.extract_text = reply_json("", [], insufficient=True)
    lookups.start()
    lookups.search()
    lookups.search()
    assert len(lookups.anthropic.searches()) == 2
    assert not _cache_file(lookups).exists()


@pytest.mark.parametrize(
    "garbage",
    [b"{not json", b"\xff\xfe\x00", b"[1, 2]", b'{"entries": {"k": {"answeredAt": 3}}}'],
)
def test_a_corrupt_cache_file_is_ignored_and_rewritten(lookups: Lookups, garbage: bytes) -> None:
    _cache_file(lookups).parent.mkdir(parents=True, exist_ok=True)
    _cache_file(lookups).write_bytes(garbage)
    _answering(lookups)
    lookups.start()
    assert lookups.search()["ok"] is True
    assert len(_entries(lookups)) == 1
    assert lookups.search()["ok"] is True
    assert len(lookups.anthropic.searches()) == 1


def test_a_cache_file_that_is_a_link_is_replaced_never_written_through(
    lookups: Lookups, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("keep me", "utf-8")
    _cache_file(lookups).parent.mkdir(parents=True, exist_ok=True)
    _cache_file(lookups).symlink_to(elsewhere)
    _answering(lookups)
    lookups.start()
    assert lookups.search()["ok"] is True
    # The write renamed a file of its own over the link: the target is untouched.
    assert elsewhere.read_text("utf-8") == "keep me"
    assert not _cache_file(lookups).is_symlink() and len(_entries(lookups)) == 1


def test_the_cache_keeps_its_bound_dropping_the_oldest(
    lookups: Lookups, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "MAX_ENTRIES", 2)
    _answering(lookups)
    lookups.override({"maxSearchesPerRecord": 10})
    lookups.start()
    for metal in ("copper", "brass", "bronze"):
        lookups.search(f"What is the density of {metal}?")
    kept = [entry["question"] for entry in _entries(lookups).values()]
    assert kept == ["What is the density of brass?", "What is the density of bronze?"]
    lookups.search("What is the density of copper?")
    assert len(lookups.anthropic.searches()) == 4
