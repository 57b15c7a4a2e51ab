"""Issue 26 (lookup): lookups that are checked, cached and frugal, end to end through the
official SDKs against the loopback fakes; the fakes' request logs prove "no provider call"."""

from __future__ import annotations

import pytest
from fakes import Page, PageServer, Source, reply_json
from lookup_helpers import Lookups

WIKI = "https://en.wikipedia.org/wiki/Copper"
NIST = "https://physics.nist.gov/copper"
ANSWER = "The density of copper near room temperature is 8.96 g/cm3."


def _answering(lookups: Lookups, *sources: Source, answer: str = ANSWER) -> None:
    for fake in (lookups.anthropic, lookups.openai):
        fake.script.sources = list(sources)
        fake.script.extract_text = reply_json(answer, [0])


def test_an_empty_allow_list_answers_insufficient_without_asking_the_provider(
    lookups: Lookups,
) -> None:
    lookups.override({"allowedHosts": [], "maxSearchesPerRecord": 1})
    _answering(lookups, Source(WIKI))
    lookups.start()
    receipt = lookups.search()
    assert receipt["ok"] is False and receipt["code"] == "SEARCH_INSUFFICIENT"
    assert "allowedHosts is empty" in receipt["error"]
    assert lookups.anthropic.requests == []
    content = lookups.search_rows()[0]["content"]
    assert content["outcome"] == "insufficient" and content["spent"] is False
    assert content["policy"]["allowedHosts"] == []
    # It spent none of the record's one lookup: with a list again, the lookup runs.
    lookups.override({"allowedHosts": ["wikipedia.org"], "maxSearchesPerRecord": 1})
    assert lookups.search()["ok"] is True
    assert len(lookups.anthropic.searches()) == 1


def test_an_empty_allow_list_on_the_open_tier_still_looks_up(lookups: Lookups) -> None:
    lookups.override({"allowedHosts": [], "tier": "open"})
    _answering(lookups, Source("https://blog.example.com/copper"))
    lookups.start()
    assert lookups.search()["ok"] is True
    assert len(lookups.anthropic.searches()) == 1


def test_a_bad_allow_list_entry_is_dropped_with_a_note_and_the_rest_kept(
    lookups: Lookups,
) -> None:
    lookups.override({"allowedHosts": ["example.com:443", "*.wikipedia.org", "nist.gov"]})
    _answering(lookups, Source(WIKI), Source(NIST))
    lookups.start()
    assert lookups.search()["ok"] is True
    content = lookups.search_rows()[0]["content"]
    # The user's one good host applies, never the 12 defaults (wikipedia.org among them).
    assert content["policy"]["allowedHosts"] == ["nist.gov"]
    assert [source["url"] for source in content["used"]] == [NIST]
    notes = content["policyNotes"]
    assert len(notes) == 2
    assert "'example.com:443'" in notes[0] and "dropped" in notes[0]
    assert "'*.wikipedia.org'" in notes[1] and "allowedHosts" in notes[1]
    assert "'*.wikipedia.org'" in lookups.log_text()


def test_a_list_of_only_bad_entries_is_an_empty_list_not_the_defaults(lookups: Lookups) -> None:
    lookups.override({"allowedHosts": ["*.wikipedia.org"]})
    _answering(lookups, Source(WIKI))
    lookups.start()
    assert lookups.search()["code"] == "SEARCH_INSUFFICIENT"
    assert lookups.anthropic.requests == []


def test_openai_requests_send_store_false_on_the_wire(lookups: Lookups) -> None:
    lookups.use_openai_only()
    _answering(lookups, Source(WIKI))
    lookups.start()
    assert lookups.search()["ok"] is True
    (search,) = lookups.openai.searches()
    (extract,) = lookups.openai.extractions()
    assert search["store"] is False and extract["store"] is False
    assert set(lookups.openai.paths_asked) == {"/v1/responses"}


def test_the_row_records_anthropic_usage_summed_over_the_lookups_turns(
    lookups: Lookups,
) -> None:
    _answering(lookups, Source(WIKI))
    lookups.anthropic.script.web_searches = 3
    lookups.start()
    assert lookups.search()["ok"] is True
    usage = lookups.search_rows()[0]["content"]["usage"]
    # The search turn (1200 in, 300 out, 3 searches) plus the extraction (400 in, 40 out).
    assert usage == {"inputTokens": 1600, "outputTokens": 340, "webSearchRequests": 3}


def test_the_row_records_openai_usage_and_its_web_search_calls(lookups: Lookups) -> None:
    lookups.use_openai_only()
    _answering(lookups, Source(WIKI))
    lookups.start()
    assert lookups.search()["ok"] is True
    usage = lookups.search_rows()[0]["content"]["usage"]
    assert usage == {"inputTokens": 1600, "outputTokens": 340, "webSearchRequests": 2}


def test_a_lookup_ending_after_its_search_turn_records_that_turns_usage(
    lookups: Lookups,
) -> None:
    _answering(lookups, Source("https://blog.example.com/copper"))
    lookups.start()
    assert lookups.search()["code"] == "SEARCH_INSUFFICIENT"
    usage = lookups.search_rows()[0]["content"]["usage"]
    assert usage == {"inputTokens": 1200, "outputTokens": 300, "webSearchRequests": 2}


STEEL = "Density of carbon steel: 7,850 kg/m3"


def test_an_answer_whose_number_is_not_in_the_material_is_insufficient_naming_it(
    lookups: Lookups,
) -> None:
    _answering(lookups, Source(WIKI, "Steel - Wikipedia", STEEL), answer="It is 8,960 kg/m3.")
    lookups.start()
    receipt = lookups.search("What is the density of carbon steel?")
    assert receipt["ok"] is False and receipt["code"] == "SEARCH_INSUFFICIENT"
    # The model gets the insufficient sentence, never the number the material lacks.
    assert "8" not in receipt["error"] and "stop" in receipt["error"]
    content = lookups.search_rows()[0]["content"]
    assert content["outcome"] == "insufficient"
    synthesis = content["synthesis"]
    assert synthesis["unsupportedNumbers"] == ["8960"]
    assert synthesis["answer"] is None and synthesis["refusedAnswer"] == "It is 8,960 kg/m3."
    assert "8960" in lookups.log_text()


@pytest.mark.parametrize(
    "answer",
    [
        "The density of carbon steel is 7,850 kg/m3.",
        "The density of carbon steel is 7850 kg/m3.",
        "The density of carbon steel is 7 850 kg/m3.",
    ],
)
def test_an_answer_whose_numbers_the_material_holds_passes_whatever_the_grouping(
    lookups: Lookups, answer: str
) -> None:
    _answering(lookups, Source(WIKI, "Steel - Wikipedia", STEEL), answer=answer)
    lookups.start()
    assert lookups.search("What is the density of carbon steel?") == {
        "ok": True,
        "answer": answer,
        "origin": "allowlist",
    }


def test_a_number_only_in_a_page_the_step_read_counts_as_material(
    lookups: Lookups, page_server: PageServer
) -> None:
    page_server.pages["/steel"] = Page(
        body=b"<html><body><article><h1>Steel</h1><p>"
        + b"Mild steel has a density of 7,870 kg/m3 at room temperature, as measured in "
        + b"many laboratories over the years, and its other properties are well known."
        + b"</p></article></body></html>"
    )
    url = page_server.url("/steel")
    lookups.override({"tier": "open", "enrich": {"pages": 1, "allowPrivateAddresses": True}})
    _answering(lookups, Source(url, "Steel", "steel density"), answer="It is 7870 kg/m3.")
    lookups.start()
    assert lookups.search("What is the density of mild steel?")["ok"] is True
