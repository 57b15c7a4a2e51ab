"""docs/guide/lookup.md (issue 11): `search` end to end through the official SDKs against fake
providers on loopback: every outcome and code, the row's exact shape, the policy's three
layers, the budget across a restart, and that the model receives the answer alone."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from fakes import Source, reply_json
from lookup_helpers import ANTHROPIC_KEY, OPENAI_KEY, Lookups

from home_rows import record_rows
from reckoner.lookup.extraction import PROMPT_VERSION
from reckoner.lookup.policy import CACHE_DAYS, DEADLINE_SECONDS, DEFAULT_ALLOWED_HOSTS

WIKI = "https://en.wikipedia.org/wiki/Copper"
NIST = "https://physics.nist.gov/copper"
ANSWER = "The density of copper near room temperature is 8.96 g/cm3."


def _answering(lookups: Lookups, *sources: Source, used: list[int] | None = None) -> None:
    for fake in (lookups.anthropic, lookups.openai):
        fake.script.sources = list(sources)
        fake.script.extract_text = reply_json(ANSWER, [0] if used is None else used)


def _default_policy_row() -> dict[str, Any]:
    return {
        "tier": "strict",
        "allowedHosts": list(DEFAULT_ALLOWED_HOSTS),
        "maxResults": 12,
        "maxSearchesPerRecord": 4,
        "answerMaxChars": 1200,
        "deadlineSeconds": DEADLINE_SECONDS,
        "cacheDays": CACHE_DAYS,
        "enrichPages": 0,
        "enrichCharsPerPage": 4000,
        "enrichAllowPrivateAddresses": False,
    }


def test_an_answered_lookup_gives_the_model_the_answer_and_origin_alone(
    lookups: Lookups,
) -> None:
    """Spec: docs/reference/tools.md (the search tool's contract)."""
    _answering(lookups, Source(WIKI, "Copper - Wikipedia"))
    lookups.start()
    receipt = lookups.search()
    assert receipt == {"ok": True, "answer": ANSWER, "origin": "allowlist"}
    # Nothing of the retrieval reaches the model: no URL, no snippet, no query.
    assert "http" not in json.dumps(receipt) and "cited" not in json.dumps(receipt)


def test_the_answered_row_has_the_exact_shape(lookups: Lookups) -> None:
    """Spec: docs/guide/lookup.md (the recorded fact)."""
    _answering(lookups, Source(WIKI, "Copper - Wikipedia"), Source("https://evil.example/x"))
    lookups.start()
    lookups.search()
    rows = lookups.search_rows()
    assert len(rows) == 1
    row = rows[0]
    assert row["ok"] is True and row["seq"] == 2
    content = row["content"]
    duration = content.pop("durationMs")
    assert type(duration) is int and duration >= 0
    wiki = {
        "url": WIKI,
        "title": "Copper - Wikipedia",
        "snippet": "Density (near r.t.) 8.96 g/cm3",
        "publishedAt": "April 30, 2025",
    }
    evil = {
        "url": "https://evil.example/x",
        "title": "A source",
        "snippet": "Density (near r.t.) 8.96 g/cm3",
        "publishedAt": "April 30, 2025",
    }
    assert content == {
        "question": "What is the density of copper?",
        "tier": "strict",
        "outcome": "answered",
        "candidates": [wiki, evil],
        "used": [wiki],
        "policy": _default_policy_row(),
        "synthesis": {
            "provider": "anthropic",
            "model": "claude-haiku-4-5",
            "promptVersion": PROMPT_VERSION,
            "answer": ANSWER,
            "used": [0],
        },
        "usage": {"inputTokens": 1600, "outputTokens": 340, "webSearchRequests": 2},
    }
    assert list(content) == [
        "question",
        "tier",
        "outcome",
        "candidates",
        "used",
        "policy",
        "synthesis",
        "usage",
    ]


def test_the_question_goes_verbatim_and_extraction_is_a_bare_call(lookups: Lookups) -> None:
    """Spec: docs/guide/lookup.md (the pipeline of one lookup)."""
    _answering(lookups, Source(WIKI, "Copper - Wikipedia"))
    lookups.start()
    question = "What is the density of copper at 20 degC, in g/cm3?"
    lookups.search(question)
    (search,) = lookups.anthropic.searches()
    assert search["messages"] == [{"role": "user", "content": question}]
    assert search["tools"][0]["type"] == "web_search_20250305"
    (extract,) = lookups.anthropic.extractions()
    assert "tools" not in extract
    assert PROMPT_VERSION in extract["system"]
    assert extract["max_tokens"] == 800
    material = extract["messages"][0]["content"]
    assert question in material and "8.96 g/cm3" in material and WIKI in material
    # The key travels in the SDK's header, to the configured base URL only.
    sent = lookups.anthropic.headers[0]
    assert ANTHROPIC_KEY in (sent.get("x-api-key", ""), sent.get("authorization", "")[7:])


def test_openai_responses_url_citations_become_the_candidates(lookups: Lookups) -> None:
    """Spec: docs/guide/lookup.md (the pipeline of one lookup)."""
    lookups.use_openai_only()
    lookups.restart()
    _answering(lookups, Source(WIKI, "Copper - Wikipedia", "Copper density is 8.96 g/cm3"))
    lookups.start()
    receipt = lookups.search()
    assert receipt == {"ok": True, "answer": ANSWER, "origin": "allowlist"}
    (search,) = lookups.openai.searches()
    assert search["input"] == "What is the density of copper?"
    assert search["tools"] == [{"type": "web_search"}]
    (extract,) = lookups.openai.extractions()
    assert "tools" not in extract and PROMPT_VERSION in extract["instructions"]
    content = lookups.search_rows()[0]["content"]
    assert content["candidates"] == [
        {"url": WIKI, "title": "Copper - Wikipedia", "snippet": "Copper density is 8.96 g/cm3"}
    ]
    assert content["synthesis"]["provider"] == "openai"
    assert content["synthesis"]["model"] == "gpt-5-mini"
    assert lookups.anthropic.requests == []
    assert lookups.openai.headers[0]["authorization"] == f"Bearer {OPENAI_KEY}"


def test_origin_github_when_every_source_relied_on_is_github(lookups: Lookups) -> None:
    """Spec: docs/reference/tools.md (the search tool's contract)."""
    _answering(
        lookups,
        Source("https://github.com/org/repo/blob/main/README.md"),
        Source("https://raw.githubusercontent.com/org/repo/main/data.txt"),
        Source(WIKI),
        used=[0, 1],
    )
    lookups.start()
    assert lookups.search()["origin"] == "github"


def test_origin_web_on_the_open_tier(lookups: Lookups) -> None:
    """Spec: docs/reference/tools.md (the search tool's contract)."""
    lookups.override({"tier": "open"})
    _answering(lookups, Source("https://materials.example.com/cu"))
    lookups.start()
    assert lookups.search() == {"ok": True, "answer": ANSWER, "origin": "web"}
    content = lookups.search_rows()[0]["content"]
    assert content["tier"] == "open" and len(content["used"]) == 1


def test_strict_matches_hosts_on_label_boundaries(lookups: Lookups) -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    sources = [
        Source("https://evilwikipedia.org/copper"),
        Source("https://en.wikipedia.org.evil.example/copper"),
        Source("https://EN.Wikipedia.ORG./wiki/Copper"),
        Source("https://nist.gov/cu"),
        Source("https://wikipedia.org:8443/x"),
    ]
    _answering(lookups, *sources)
    lookups.start()
    lookups.search()
    content = lookups.search_rows()[0]["content"]
    canonical = [s.url for s in sources]
    canonical[2] = "https://en.wikipedia.org/wiki/Copper"  # the row holds the canonical form
    assert [c["url"] for c in content["candidates"]] == canonical
    assert [c["url"] for c in content["used"]] == [
        "https://en.wikipedia.org/wiki/Copper",
        "https://nist.gov/cu",
        "https://wikipedia.org:8443/x",
    ]


def test_a_non_http_citation_is_a_candidate_never_used(lookups: Lookups) -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    lookups.override({"tier": "open"})
    _answering(lookups, Source("ftp://wikipedia.org/copper"), Source("javascript:alert(1)"))
    lookups.start()
    receipt = lookups.search()
    assert receipt["code"] == "SEARCH_INSUFFICIENT"
    content = lookups.search_rows()[0]["content"]
    assert len(content["candidates"]) == 2 and content["used"] == []
    assert lookups.anthropic.extractions() == []


def test_no_allowed_source_is_insufficient_before_any_extraction(lookups: Lookups) -> None:
    """Spec: docs/reference/codes.md (the lookup's failure codes)."""
    _answering(lookups, Source("https://blog.example.com/copper"))
    lookups.start()
    receipt = lookups.search()
    assert receipt["ok"] is False and receipt["code"] == "SEARCH_INSUFFICIENT"
    assert "strict" in receipt["error"] and "stop" in receipt["error"]
    row = lookups.search_rows()[0]
    assert row["ok"] is False
    content = row["content"]
    assert content["outcome"] == "insufficient"
    assert "synthesis" not in content
    assert content["error"] == receipt["error"] and content["code"] == "SEARCH_INSUFFICIENT"
    assert lookups.anthropic.extractions() == []


def test_an_explicitly_empty_allow_list_answers_nothing(lookups: Lookups) -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    lookups.override({"allowedHosts": []})
    _answering(lookups, Source(WIKI))
    lookups.start()
    assert lookups.search()["code"] == "SEARCH_INSUFFICIENT"
    assert lookups.search_rows()[0]["content"]["policy"]["allowedHosts"] == []


def test_extraction_answering_insufficient_is_search_insufficient(lookups: Lookups) -> None:
    """Spec: docs/reference/codes.md (the lookup's failure codes)."""
    _answering(lookups, Source(WIKI))
    lookups.anthropic.script.extract_text = reply_json("", [], insufficient=True)
    lookups.start()
    receipt = lookups.search()
    assert receipt["code"] == "SEARCH_INSUFFICIENT"
    content = lookups.search_rows()[0]["content"]
    assert content["outcome"] == "insufficient"
    assert content["synthesis"]["answer"] is None


@pytest.mark.parametrize(
    "reply",
    [
        "The density of copper is 8.96 g/cm3.",
        '{"answer": "8.96 g/cm3", "used": [0]}',
        '{"answer": "8.96 g/cm3", "used": [3], "insufficient": false}',
        '{"answer": "8.96 g/cm3", "used": [-1], "insufficient": false}',
        '{"answer": "8.96 g/cm3", "used": [], "insufficient": false}',
        '["8.96 g/cm3"]',
        'Sure! {"answer": "8.96 g/cm3", "used": [0], "insufficient": false}',
    ],
)
def test_a_reply_that_is_not_the_object_is_failed_and_stays_in_the_record(
    lookups: Lookups, reply: str
) -> None:
    """Spec: docs/guide/lookup.md (the pipeline of one lookup)."""
    _answering(lookups, Source(WIKI))
    lookups.anthropic.script.extract_text = reply
    lookups.start()
    receipt = lookups.search()
    assert receipt["ok"] is False and receipt["code"] == "SEARCH_UNAVAILABLE"
    assert "8.96" not in receipt["error"]  # the raw text never reaches the model
    content = lookups.search_rows()[0]["content"]
    assert content["outcome"] == "failed"
    assert content["synthesis"]["raw"] == reply
    assert content["synthesis"]["answer"] is None


def test_a_fenced_json_object_is_read(lookups: Lookups) -> None:
    """Spec: docs/guide/lookup.md (the pipeline of one lookup)."""
    _answering(lookups, Source(WIKI))
    lookups.anthropic.script.extract_text = "```json\n" + reply_json(ANSWER, [0]) + "\n```"
    lookups.start()
    assert lookups.search()["answer"] == ANSWER


def test_the_answer_is_cut_to_answer_max_chars(lookups: Lookups) -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    lookups.override({"answerMaxChars": 20})
    _answering(lookups, Source(WIKI))
    lookups.start()
    answer = lookups.search()["answer"]
    assert len(answer) == 20 and answer.endswith("…")
    assert lookups.search_rows()[0]["content"]["synthesis"]["answer"] == answer


def test_budget_refuses_before_the_provider_and_survives_a_restart(
    lookups: Lookups,
) -> None:
    """Spec: docs/reference/codes.md (the lookup's failure codes)."""
    lookups.override({"maxSearchesPerRecord": 2, "cacheDays": 0})  # each asks the provider
    _answering(lookups, Source(WIKI))
    lookups.start()
    assert lookups.search()["ok"] is True
    lookups.anthropic.script.search_status = 500  # a failed lookup spends the budget too
    assert lookups.search()["code"] == "SEARCH_UNAVAILABLE"
    before = len(lookups.anthropic.requests)
    receipt = lookups.search()
    assert receipt["code"] == "SEARCH_BUDGET_EXCEEDED"
    assert "2 lookup" in receipt["error"]
    assert len(lookups.anthropic.requests) == before
    lookups.restart()
    assert lookups.search()["code"] == "SEARCH_BUDGET_EXCEEDED"
    assert len(lookups.anthropic.requests) == before
    refused = lookups.search_rows()[-1]["content"]
    assert refused["outcome"] == "refused" and refused["candidates"] == []
    assert "synthesis" not in refused
    # A new record carries a new budget.
    assert lookups.call("record_end", {}) == {"ok": True}
    lookups.start("Another")
    lookups.anthropic.script.search_status = 200
    assert lookups.search()["ok"] is True


def test_replay_treats_search_rows_as_facts(lookups: Lookups) -> None:
    """Spec: docs/guide/records.md (recovery by replay)."""
    _answering(lookups, Source(WIKI))
    lookups.start()
    lookups.search()
    lookups.call("set", {"name": "rho", "value": {"num": 8960, "dim": [-3, 1, 0, 0, 0, 0, 0]}})
    before = len(lookups.anthropic.requests)
    lookups.restart()
    assert len(lookups.anthropic.requests) == before  # recovery never calls a provider
    assert lookups.call("get", {"name": "rho"})["ok"] is True
    assert lookups.call("record_message", {"text": "next"}) == {"ok": True}
    assert [row["seq"] for row in lookups.rows()] == [1, 2, 3, 4, 5]


def test_no_provider_configured_names_what_to_set(lookups: Lookups) -> None:
    """Spec: docs/reference/codes.md (the lookup's failure codes)."""
    lookups.env.clear()
    lookups.start()
    receipt = lookups.search()
    assert receipt["code"] == "SEARCH_UNAVAILABLE"
    assert "ANTHROPIC_API_KEY" in receipt["error"] and "OPENAI_API_KEY" in receipt["error"]
    assert lookups.search_rows()[0]["content"]["outcome"] == "failed"


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (401, "check ANTHROPIC_API_KEY"),
        (403, "refused the API key"),
        (429, "rate-limiting"),
        (500, "HTTP 500"),
        (503, "HTTP 503"),
    ],
)
def test_provider_http_failures_are_unavailable_and_never_leak_the_key(
    lookups: Lookups, status: int, words: str
) -> None:
    """Spec: docs/reference/codes.md (the lookup's failure codes)."""
    lookups.anthropic.script.search_status = status
    lookups.anthropic.script.error_body = json.dumps(
        {"type": "error", "error": {"type": "x", "message": f"bad key {ANTHROPIC_KEY}"}}
    )
    lookups.start()
    receipt = lookups.search()
    assert receipt["code"] == "SEARCH_UNAVAILABLE" and words in receipt["error"]
    everything = json.dumps(lookups.rows()) + lookups.log_text() + json.dumps(receipt)
    assert ANTHROPIC_KEY not in everything
    assert lookups.call("record_message", {"text": "still serving"}) == {"ok": True}


def test_openai_http_failure_is_unavailable(lookups: Lookups) -> None:
    """Spec: docs/reference/codes.md (the lookup's failure codes)."""
    lookups.use_openai_only()
    lookups.restart()
    lookups.openai.script.search_status = 401
    lookups.openai.script.error_body = json.dumps({"error": {"message": f"Incorrect {OPENAI_KEY}"}})
    lookups.start()
    receipt = lookups.search()
    assert receipt["code"] == "SEARCH_UNAVAILABLE" and "OPENAI_API_KEY" in receipt["error"]
    assert OPENAI_KEY not in json.dumps(lookups.rows()) + lookups.log_text()


def test_a_provider_that_does_not_answer_in_time_is_unavailable(lookups: Lookups) -> None:
    """Spec: docs/reference/codes.md (the lookup's failure codes)."""
    lookups.anthropic.script.search_delay = 3.0
    lookups.start()
    receipt = lookups.search()
    assert receipt["code"] == "SEARCH_UNAVAILABLE" and "in time" in receipt["error"]


@pytest.mark.parametrize(
    "body", [b"not json at all", b'{"content": 5}', b'{"type": "message", "content": [{"x": 1}]}']
)
def test_a_malformed_provider_response_is_unavailable(lookups: Lookups, body: bytes) -> None:
    """Spec: docs/reference/codes.md (the lookup's failure codes)."""
    lookups.anthropic.script.search_raw = body
    lookups.start()
    receipt = lookups.search()
    assert receipt["ok"] is False
    assert receipt["code"] in ("SEARCH_UNAVAILABLE", "SEARCH_INSUFFICIENT")
    assert len(lookups.search_rows()) == 1
    assert lookups.call("record_message", {"text": "still serving"}) == {"ok": True}


def test_extraction_failure_keeps_a_synthesis_without_answer(lookups: Lookups) -> None:
    """Spec: docs/reference/codes.md (the lookup's failure codes)."""
    _answering(lookups, Source(WIKI))
    lookups.anthropic.script.extract_status = 529
    lookups.start()
    assert lookups.search()["code"] == "SEARCH_UNAVAILABLE"
    synthesis = lookups.search_rows()[0]["content"]["synthesis"]
    assert synthesis["answer"] is None and synthesis["promptVersion"] == PROMPT_VERSION


def test_no_open_record_writes_nothing_and_calls_no_provider(lookups: Lookups) -> None:
    """Spec: docs/reference/codes.md (the lookup's failure codes)."""
    receipt = lookups.search()
    assert receipt["code"] == "ENGINE_OPEN_RECORD_NOT_FOUND"
    assert "record_start" in receipt["error"]
    assert lookups.anthropic.requests == []
    assert not (lookups.home / "open-record.jsonl").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"question": ""}, "non-empty string"),
        ({"question": "   "}, "only whitespace"),
        ({"question": 42}, "non-empty string"),
        ({"question": None}, "missing"),
        ({}, "missing"),
        ({"question": "x" * 501}, "over the limit of 500"),
        ({"question": "ok?", "query": "x"}, "no argument 'query'"),
        (["q"], "JSON object"),
    ],
)
def test_a_bad_question_is_refused_with_one_row_and_no_provider_call(
    lookups: Lookups, args: Any, words: str
) -> None:
    """Spec: docs/reference/tools.md (the search tool's contract)."""
    lookups.start()
    receipt = lookups.call("search", args)
    assert receipt["ok"] is False and receipt["code"] == "ENGINE_INVALID_ARGS"
    assert words in receipt["error"]
    (row,) = lookups.search_rows()
    assert row["ok"] is False and row["content"] == {
        "code": "ENGINE_INVALID_ARGS",
        "error": receipt["error"],
    }
    assert lookups.anthropic.requests == []


def test_three_layers_and_a_settings_write_reaching_the_next_lookup(
    lookups: Lookups,
) -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    lookups.preset.update({"maxResults": 3, "answerMaxChars": 500})
    sources = [Source(f"https://nist.gov/{i}") for i in range(5)]
    _answering(lookups, *sources)
    lookups.start()
    lookups.search()
    policy = lookups.search_rows()[-1]["content"]["policy"]
    assert policy["maxResults"] == 3 and policy["answerMaxChars"] == 500  # the preset's layer
    assert policy["maxSearchesPerRecord"] == 4  # the code default
    assert len(lookups.search_rows()[-1]["content"]["candidates"]) == 3
    lookups.override({"maxResults": 2})  # no restart
    lookups.search()
    content = lookups.search_rows()[-1]["content"]
    assert content["policy"]["maxResults"] == 2 and len(content["candidates"]) == 2
    assert content["policy"]["answerMaxChars"] == 500


def test_an_unusable_value_is_logged_and_replaced_never_fatal(lookups: Lookups) -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    lookups.preset.update({"maxResults": 3})
    lookups.override({"maxResults": "lots", "tier": "medium", "enrich": {"pages": -1}})
    _answering(lookups, Source(WIKI))
    lookups.start()
    assert lookups.search()["ok"] is True
    policy = lookups.search_rows()[0]["content"]["policy"]
    assert policy["maxResults"] == 3 and policy["tier"] == "strict" and policy["enrichPages"] == 0
    log = lookups.log_text()
    assert "maxResults" in log and "'lots'" in log and "tier" in log and "enrich.pages" in log


def test_both_keys_set_uses_anthropic_unless_the_variable_says_openai(
    lookups: Lookups,
) -> None:
    """Spec: docs/guide/lookup.md (the pipeline of one lookup)."""
    lookups.env.update(
        {"OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": lookups.openai.root + "/v1"}
    )
    lookups.override({"cacheDays": 0})  # the cache's key is the policy, not the provider
    _answering(lookups, Source(WIKI))
    lookups.start()
    lookups.search()
    assert len(lookups.anthropic.searches()) == 1 and lookups.openai.requests == []
    lookups.env["RECKONER_SEARCH_PROVIDER"] = "openai"
    lookups.search()
    assert len(lookups.openai.searches()) == 1


def test_synthesis_provider_and_model_route_the_extractive_step(lookups: Lookups) -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    lookups.env.update(
        {"OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": lookups.openai.root + "/v1"}
    )
    lookups.override(
        {"synthesis": {"provider": "openai", "model": "gpt-5.4-mini", "maxTokens": 300}}
    )
    _answering(lookups, Source(WIKI))
    lookups.start()
    assert lookups.search()["ok"] is True
    assert len(lookups.anthropic.searches()) == 1 and lookups.anthropic.extractions() == []
    (extract,) = lookups.openai.extractions()
    assert extract["model"] == "gpt-5.4-mini" and extract["max_output_tokens"] == 300
    synthesis = lookups.search_rows()[0]["content"]["synthesis"]
    assert synthesis["provider"] == "openai" and synthesis["model"] == "gpt-5.4-mini"


def test_the_model_variable_names_the_model(lookups: Lookups) -> None:
    """Spec: docs/guide/lookup.md (the pipeline of one lookup)."""
    lookups.env["ANTHROPIC_MODEL"] = "deepseek-chat"
    _answering(lookups, Source(WIKI))
    lookups.start()
    lookups.search()
    assert {r["model"] for r in lookups.anthropic.requests} == {"deepseek-chat"}


def test_pure_engine_has_no_search_tool(tmp_path: Any) -> None:
    """Spec: docs/guide/lookup.md (the outside lookup)."""
    from reckoner import Engine

    with Engine(tmp_path / "pure") as engine:
        engine.call("record_start", {"title": "t"})
        receipt = engine.call("search", {"question": "What is g?"})
    assert receipt["code"] == "ENGINE_INVALID_ARGS" and "unknown tool 'search'" in receipt["error"]


def test_a_running_lookup_counts_against_the_budget(lookups: Lookups) -> None:
    """Two lookups at once with one left: the second is refused, never both answered.
    Spec: docs/guide/lookup.md (the recorded fact)."""
    lookups.override({"maxSearchesPerRecord": 1})
    _answering(lookups, Source(WIKI))
    lookups.anthropic.script.search_delay = 0.5
    lookups.start()
    receipts = _while_searching(lookups, lambda: lookups.search())
    assert sorted(r.get("code", "answered") for r in receipts) == [
        "SEARCH_BUDGET_EXCEEDED",
        "answered",
    ]
    assert [r["content"]["outcome"] for r in lookups.search_rows()] == ["refused", "answered"]


def test_a_lookup_whose_record_closed_meanwhile_writes_nowhere(lookups: Lookups) -> None:
    """Spec: docs/guide/records.md (trace rows)."""
    _answering(lookups, Source(WIKI))
    lookups.anthropic.script.search_delay = 0.5
    lookups.start()

    def close_and_reopen() -> dict[str, Any]:
        assert lookups.call("record_end", {}) == {"ok": True}
        lookups.start("The next question")
        return {}

    receipts = _while_searching(lookups, close_and_reopen)
    assert receipts[0]["code"] == "ENGINE_OPEN_RECORD_NOT_FOUND"
    assert "closed before it finished" in receipts[0]["error"]
    assert [row["tool"] for row in lookups.rows()] == ["record_start"]  # the new record
    assert "outlived its record" in lookups.log_text()


def _while_searching(lookups: Lookups, meanwhile: Callable[[], dict[str, Any]]) -> list[Any]:
    """Start a lookup in a thread, run ``meanwhile`` once the provider has the request;
    the lookup's receipt first, then what ``meanwhile`` answered."""
    receipts: list[dict[str, Any]] = []
    running = threading.Thread(target=lambda: receipts.append(lookups.search()))
    running.start()
    while not lookups.anthropic.requests:
        threading.Event().wait(0.01)
    other = meanwhile()
    running.join()
    return [*receipts, other]


@pytest.mark.parametrize(
    ("status", "raw", "words"),
    [
        (429, None, "rate-limiting"),
        (500, None, "HTTP 500"),
        (200, b"<html>not json</html>", "could not be read"),
        (200, b'{"output": 7}', "unexpected shape"),
    ],
)
def test_openai_faults_are_unavailable_and_the_tool_keeps_serving(
    lookups: Lookups, status: int, raw: bytes | None, words: str
) -> None:
    """Spec: docs/reference/codes.md (the lookup's failure codes)."""
    lookups.use_openai_only()
    lookups.restart()
    lookups.openai.script.search_status = status
    lookups.openai.script.search_raw = raw
    lookups.start()
    receipt = lookups.search()
    assert receipt["code"] == "SEARCH_UNAVAILABLE" and words in receipt["error"]
    assert lookups.search_rows()[0]["content"]["outcome"] == "failed"
    lookups.openai.script.search_status, lookups.openai.script.search_raw = 200, None
    _answering(lookups, Source(WIKI))
    assert lookups.search()["ok"] is True


def test_the_pure_preset_loads_no_provider_sdk() -> None:
    """The pure preset reaches nothing: serving it never imports a provider SDK.
    Spec: docs/guide/lookup.md (the outside lookup)."""
    import subprocess
    import sys

    probe = (
        "import sys, reckoner.server.run, reckoner.cli; "
        "print(sorted(m for m in ('anthropic', 'openai', 'trafilatura') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_every_outcome_has_one_row_of_the_same_shape(lookups: Lookups) -> None:
    """answered, insufficient (before and after synthesis), failed (with the raw reply kept)
    and refused: one row each, the same keys in the same order, synthesis only once it ran.
    Spec: docs/guide/lookup.md (the recorded fact)."""
    lookups.override({"maxSearchesPerRecord": 4, "cacheDays": 0})
    lookups.start()
    _answering(lookups, Source(WIKI))
    lookups.search()
    lookups.anthropic.script.sources = [Source("https://blog.example.com/x")]
    lookups.search()
    _answering(lookups, Source(WIKI))
    lookups.anthropic.script.extract_text = reply_json("", [], insufficient=True)
    lookups.search()
    lookups.anthropic.script.extract_text = "not an object"
    lookups.search()
    lookups.search()
    rows = lookups.search_rows()
    head = ["question", "tier", "outcome", "candidates", "used", "policy"]
    expected = [
        ("answered", True, [*head, "synthesis", "usage", "durationMs"]),
        ("insufficient", False, [*head, "usage", "error", "code", "durationMs"]),
        ("insufficient", False, [*head, "synthesis", "usage", "error", "code", "durationMs"]),
        ("failed", False, [*head, "synthesis", "usage", "error", "code", "durationMs"]),
        ("refused", False, [*head, "error", "code", "durationMs"]),
    ]
    assert len(rows) == len(expected)
    for row, (outcome, ok, keys) in zip(rows, expected, strict=True):
        assert row["ok"] is ok and row["content"]["outcome"] == outcome
        assert list(row["content"]) == keys
        expected_policy = {**_default_policy_row(), "maxSearchesPerRecord": 4, "cacheDays": 0}
        assert row["content"]["policy"] == expected_policy
    assert set(rows[3]["content"]["synthesis"]) == {
        "provider",
        "model",
        "promptVersion",
        "answer",
        "used",
        "raw",
    }
    assert rows[3]["content"]["synthesis"]["raw"] == "not an object"


def test_a_lookup_that_outlives_its_engine_writes_nothing(lookups: Lookups) -> None:
    _answering(lookups, Source(WIKI))
    lookups.anthropic.script.search_delay = 0.5
    lookups.start()
    engine = lookups.engine
    assert engine is not None

    def close() -> dict[str, Any]:
        engine.close()
        return {}

    receipts = _while_searching(lookups, close)
    lookups.engine = None
    assert receipts[0]["code"] == "ENGINE_UNKNOWN_ERROR" and "not recorded" in receipts[0]["error"]
    assert [row["tool"] for row in record_rows(lookups.home)] == ["record_start"]
