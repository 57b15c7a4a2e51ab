"""Issue 22 (lookup side): one overall deadline per lookup, a wall-clock limit per page,
cancellation by the call's CallControl and progress reports, against the fake providers and
a dripping page server on loopback, the official SDKs as clients."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fakes import Page, PageServer, Source, reply_json
from lookup_helpers import Lookups

from reckoner.host.calls import CallControl, calling
from reckoner.lookup.pages import PageFetcher
from reckoner.lookup.policy import (
    DEADLINE_BOUNDS,
    DEADLINE_SECONDS,
    Unusable,
    merge_override,
    resolve,
)
from reckoner.lookup.providers import PageSkipped
from reckoner.lookup.urls import parse

WIKI = "https://en.wikipedia.org/wiki/Copper"
ANSWER = "The density of copper near room temperature is 8.96 g/cm3."
NEVER = 60.0
"""How long a fake holds a request that 'never' answers: beyond every limit under test."""
HANG_GUARD_S = 30.0
"""A generous bound that only keeps a broken build from hanging the suite."""
ARTICLE = (
    b"<html><body><article><h1>Copper</h1><p>Copper is a chemical element with symbol Cu. "
    b"Its density near room temperature is 8.96 g/cm3, and it melts at 1084.62 degC.</p>"
    b"</article></body></html>"
)


def _answering(lookups: Lookups, *sources: Source) -> None:
    lookups.anthropic.script.sources = list(sources) or [Source(WIKI, "Copper")]
    lookups.anthropic.script.extract_text = reply_json(ANSWER, [0])


def _in_call(lookups: Lookups, control: CallControl) -> tuple[threading.Thread, list[Any]]:
    """The search run in its own thread as the server's worker runs it, under ``control``."""
    answers: list[Any] = []

    def work() -> None:
        with calling(control):
            answers.append(lookups.search())

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread, answers


def _warm(lookups: Lookups) -> None:
    """One answered lookup first: the SDK's first import and client take seconds on a busy
    machine, time that would count against a small test deadline."""
    _answering(lookups)
    # Another question than the tests ask, so theirs is not answered from the cache.
    receipt = lookups.search("What is the density of copper, to warm up?")
    assert receipt["ok"] is True, receipt
    lookups.anthropic.clear()


def _until(condition: Any) -> None:
    stop = time.monotonic() + HANG_GUARD_S
    while not condition():
        assert time.monotonic() < stop, "the condition never came"
        time.sleep(0.02)


def test_a_provider_that_never_answers_ends_the_lookup_at_its_deadline(
    lookups: Lookups,
) -> None:
    lookups.with_shipped_timeouts()  # 45 s a request and one retry: the deadline must win
    lookups.start()
    _warm(lookups)
    lookups.override({"deadlineSeconds": 3})
    lookups.anthropic.script.search_delay = NEVER
    began = time.monotonic()
    receipt = lookups.search()
    took = time.monotonic() - began
    assert receipt["ok"] is False and receipt["code"] == "SEARCH_UNAVAILABLE"
    assert "3 s deadline (deadlineSeconds)" in receipt["error"]
    assert "search.deadlineSeconds" in receipt["error"]  # the key that raises it
    assert took < 45.0  # ended by the deadline, not by the provider's own timeout
    row = lookups.search_rows()[-1]
    assert row["content"]["outcome"] == "failed"
    assert row["content"]["policy"]["deadlineSeconds"] == 3
    assert row["content"]["durationMs"] >= 3000
    assert len(lookups.anthropic.searches()) == 1  # no retry once the time is up


def test_the_default_deadline_is_recorded_in_the_row(lookups: Lookups) -> None:
    _answering(lookups)
    lookups.start()
    assert lookups.search()["ok"] is True
    (row,) = lookups.search_rows()
    assert row["content"]["policy"]["deadlineSeconds"] == 60


@pytest.fixture
def dripping(lookups: Lookups, page_server: PageServer) -> Lookups:
    page_server.pages.clear()
    lookups.start()
    _warm(lookups)
    lookups.override(
        {
            "deadlineSeconds": 6,
            "allowedHosts": ["127.0.0.1", "wikipedia.org"],
            "enrich": {"pages": 2, "allowPrivateAddresses": True},
        }
    )
    return lookups


def test_a_page_that_drips_a_byte_a_second_is_cut_and_the_lookup_still_answers(
    dripping: Lookups, page_server: PageServer
) -> None:
    page_server.pages["/drip"] = Page(body=ARTICLE, drip="body")
    page_server.pages["/copper"] = Page(body=ARTICLE)
    _answering(
        dripping,
        Source(page_server.url("/drip"), "Dripping"),
        Source(page_server.url("/copper"), "Copper"),
    )
    receipt = dripping.search()
    assert receipt == {"ok": True, "answer": ANSWER, "origin": "allowlist"}
    assert "time limit" in dripping.log_text()  # the note says the page was cut
    (extract,) = dripping.anthropic.extractions()
    material: str = extract["messages"][0]["content"]
    # The cut page gave no text; the other page's text reached the extraction.
    assert material.count("Page text:") == 1 and "1084.62 degC" in material


def test_a_page_whose_headers_drip_is_cut_at_its_wall_clock_limit(
    page_server: PageServer,
) -> None:
    page_server.pages["/slow-head"] = Page(body=ARTICLE, drip="all")
    fetcher = PageFetcher(lambda url: True, allow_private=True)
    began = time.monotonic()
    with pytest.raises(PageSkipped, match=r"cut at the page's 2 s time limit"):
        fetcher.text(parse(page_server.url("/slow-head")), 4000, within=2.0)
    assert time.monotonic() - began < HANG_GUARD_S


def test_a_lookup_cancelled_mid_provider_turn_stops_and_records_failed(
    lookups: Lookups,
) -> None:
    lookups.with_shipped_timeouts()
    lookups.start()
    _warm(lookups)
    _answering(lookups)
    lookups.anthropic.script.search_delay = NEVER
    control = CallControl()
    thread, answers = _in_call(lookups, control)
    _until(lambda: lookups.anthropic.searches())
    control.cancel()
    thread.join(HANG_GUARD_S)
    assert not thread.is_alive()
    (receipt,) = answers
    assert receipt["ok"] is False and receipt["code"] == "SEARCH_UNAVAILABLE"
    assert "cancelled" in receipt["error"] and "answer" not in receipt
    row = lookups.search_rows()[-1]
    assert row["content"]["outcome"] == "failed"
    assert (
        "was cancelled by its client during the provider's search turn" in row["content"]["error"]
    )
    assert "synthesis" not in row["content"]


def test_a_lookup_cancelled_during_the_extraction_keeps_no_answer(lookups: Lookups) -> None:
    lookups.with_shipped_timeouts()
    _answering(lookups)
    arrived = threading.Event()

    def slow_answer(body: dict[str, Any]) -> str:
        arrived.set()
        # Held past the cancel; the answer comes after all, when the test's end releases it.
        lookups.anthropic.hold(NEVER)
        return reply_json(ANSWER, [0])

    lookups.anthropic.script.extract_text = slow_answer
    lookups.start()
    control = CallControl()
    thread, answers = _in_call(lookups, control)
    assert arrived.wait(HANG_GUARD_S)
    control.cancel()
    thread.join(HANG_GUARD_S)
    (receipt,) = answers
    assert receipt["ok"] is False and "cancelled" in receipt["error"]
    row = lookups.search_rows()[-1]
    content = row["content"]
    assert content["outcome"] == "failed" and "during the extraction" in content["error"]
    assert content["synthesis"]["answer"] is None and ANSWER not in str(content)


def test_progress_reports_arrive_in_order_at_each_turn_and_page(
    lookups: Lookups, page_server: PageServer
) -> None:
    page_server.pages["/a"] = Page(body=ARTICLE)
    page_server.pages["/b"] = Page(body=ARTICLE)
    lookups.override(
        {"allowedHosts": ["127.0.0.1"], "enrich": {"pages": 2, "allowPrivateAddresses": True}}
    )
    _answering(lookups, Source(page_server.url("/a")), Source(page_server.url("/b")))
    lookups.start()
    reports: list[tuple[float, float | None, str]] = []
    control = CallControl(
        sink=lambda progress, total, message: reports.append((progress, total, message))
    )
    with calling(control):
        assert lookups.search()["ok"] is True
    assert [message for _, _, message in reports] == [
        "lookup: the provider's search turn",
        "lookup: fetched page 1 of 2",
        "lookup: fetched page 2 of 2",
        "lookup: the extraction",
    ]
    values = [progress for progress, _, _ in reports]
    assert values == sorted(values) and len(set(values)) == len(values)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(2, "from 3 to 600"), (601, "from 3 to 600"), ("60", "a whole number"), (True, "whole")],
)
def test_an_unusable_deadline_is_one_sentence_and_the_default_applies(
    value: Any, expected: str
) -> None:
    resolution = resolve({}, {"deadlineSeconds": value})
    (note,) = resolution.notes
    assert "deadlineSeconds" in note and expected in note and "\n" not in note
    assert resolution.policy.deadline_s == 60
    with pytest.raises(Unusable, match=r"^search\.deadlineSeconds must be a whole number from 3 "):
        merge_override({}, {"deadlineSeconds": value})


def test_the_readme_names_the_deadline_key_and_its_default() -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs/guide/lookup.md").read_text("utf-8")
    low, high = DEADLINE_BOUNDS
    assert f"| `deadlineSeconds` | {DEADLINE_SECONDS} |" in readme
    assert f"({low} to {high})" in readme
