"""Issue 21, case 12: every cited URL is read once, by lookup/urls.py, and that reading is the
one the allow-list, the page fetch, the row and the panel's link use. A URL two parsers could
read differently is one skipped source with its sentence; the lookup keeps the others."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import Page, PageServer, Source, reply_json
from lookup_helpers import Lookups

from reckoner.panel.background import BackgroundPanel

WIKI = "https://en.wikipedia.org/wiki/Copper"
BACKSLASH = "https://evil.com\\@en.wikipedia.org/x"
OCTAL = "http://0177.0.0.1/"
ANSWER = "The density of copper near room temperature is 8.96 g/cm3."
ARTICLE = (
    b"<html><body><article><h1>Copper</h1><p>Copper is a chemical element with symbol Cu. "
    b"Its density near room temperature is 8.96 g/cm3, and it melts at 1084.62 degC.</p>"
    b"<p>Copper is a soft, malleable and ductile metal with very high thermal and electrical "
    b"conductivity.</p></article></body></html>"
)


def _content(lookups: Lookups) -> dict[str, Any]:
    (row,) = lookups.search_rows()
    content: dict[str, Any] = row["content"]
    return content


@pytest.fixture
def enriching_open(lookups: Lookups, page_server: PageServer) -> Lookups:
    """The open tier fetching two pages, loopback allowed so the page server can answer."""
    page_server.pages.clear()
    page_server.requested.clear()
    page_server.pages["/copper"] = Page(body=ARTICLE)
    lookups.override({"tier": "open", "enrich": {"pages": 2, "allowPrivateAddresses": True}})
    lookups.anthropic.script.extract_text = reply_json(ANSWER, [0])
    lookups.start()
    return lookups


@pytest.mark.parametrize(
    "cited", [OCTAL, "http://0x7f.0.0.1/", "http://2130706433/", "http://127.1/"]
)
def test_a_citation_with_a_non_canonical_ipv4_host_is_one_skipped_source_and_the_lookup_answers(
    enriching_open: Lookups, page_server: PageServer, cited: str
) -> None:
    """Issue 21 case 12 (docs/guide/lookup.md step 3): the page fetch never sees the octal host, the
    row records it as skipped with its sentence, and the other source is fetched and used."""
    lookups = enriching_open
    good = page_server.url("/copper")
    lookups.anthropic.script.sources = [Source(cited, "Loopback"), Source(good, "Copper")]
    receipt = lookups.search()
    assert receipt == {"ok": True, "answer": ANSWER, "origin": "web"}
    content = _content(lookups)
    skipped, kept = content["candidates"]
    assert skipped["url"] == cited
    assert "non-canonical form" in skipped["skipped"] and "skipped" in skipped["skipped"]
    assert kept["url"] == good and "skipped" not in kept
    assert [c["url"] for c in content["used"]] == [good]
    assert page_server.requested == ["/copper"]
    (extract,) = lookups.anthropic.extractions()
    assert "melts at 1084.62 degC" in extract["messages"][0]["content"]
    assert "non-canonical form" in lookups.log_text()


def test_a_page_redirecting_to_a_refused_url_is_one_page_not_enriched(
    enriching_open: Lookups, page_server: PageServer
) -> None:
    """The redirect's location is read by the same parser before it is followed: httpx
    would follow a userinfo location, the lookup does not."""
    lookups = enriching_open
    page_server.pages["/secret"] = Page(body=ARTICLE)
    location = page_server.url("/secret", host="user@127.0.0.1")
    page_server.pages["/moved"] = Page(301, b"", "text/html", location=location)
    lookups.anthropic.script.sources = [
        Source(page_server.url("/moved"), "Moved"),
        Source(page_server.url("/copper"), "Copper"),
    ]
    assert lookups.search()["ok"] is True
    assert page_server.requested == ["/moved", "/copper"]
    assert len(_content(lookups)["used"]) == 2
    assert "redirects to a refused location" in lookups.log_text()


def test_a_backslash_url_is_refused_and_never_recorded_as_a_wikipedia_source(
    lookups: Lookups,
) -> None:
    """Issue 21 case 12: ``evil.com\\@en.wikipedia.org`` is evil.com to a browser, so the
    strict allow-list must not take it as wikipedia.org; the Wikipedia source still answers."""
    lookups.anthropic.script.sources = [Source(BACKSLASH, "Evil"), Source(WIKI, "Copper")]
    lookups.anthropic.script.extract_text = reply_json(ANSWER, [0])
    lookups.start()
    assert lookups.search() == {"ok": True, "answer": ANSWER, "origin": "allowlist"}
    content = _content(lookups)
    assert [c["url"] for c in content["used"]] == [WIKI]
    (evil, _) = content["candidates"]
    assert evil["url"] == BACKSLASH and "backslash" in evil["skipped"]
    (extract,) = lookups.anthropic.extractions()
    assert "evil.com" not in extract["messages"][0]["content"]


@pytest.mark.parametrize(
    "cited",
    [
        "https://user@en.wikipedia.org/x",
        "https://en.wikipedia.org\t/x",
        "https://%65n.wikipedia.org/x",
        "https://en.wikipedia.org:70000/x",
        "https://stra\u00dfe.wikipedia.org/x",
        "https://en.wikipedia.org\u200b/x",
    ],
)
def test_a_url_two_parsers_could_read_differently_is_never_used(
    lookups: Lookups, cited: str
) -> None:
    lookups.anthropic.script.sources = [Source(cited)]
    lookups.anthropic.script.extract_text = reply_json(ANSWER, [0])
    lookups.start()
    assert lookups.search()["code"] == "SEARCH_INSUFFICIENT"
    content = _content(lookups)
    assert content["used"] == [] and content["candidates"][0]["skipped"]
    assert lookups.anthropic.extractions() == []


def test_the_row_holds_the_canonical_url_the_policy_and_the_fetch_used(lookups: Lookups) -> None:
    lookups.anthropic.script.sources = [Source("HTTPS://EN.Wikipedia.org.:443/a/../wiki/Cu\u00e9")]
    lookups.anthropic.script.extract_text = reply_json(ANSWER, [0])
    lookups.start()
    assert lookups.search()["ok"] is True
    (used,) = _content(lookups)["used"]
    assert used["url"] == "https://en.wikipedia.org/wiki/Cu%C3%A9"


def test_the_panel_links_the_canonical_url_and_never_the_backslash_one(
    lookups: Lookups, page: Any
) -> None:
    """The lookup card shows the skipped source as text with its sentence, and links only
    the canonical string the row holds."""
    lookups.override({"tier": "open"})
    lookups.anthropic.script.sources = [Source(BACKSLASH, "Evil"), Source(WIKI, "Copper")]
    lookups.anthropic.script.extract_text = reply_json(ANSWER, [0])
    lookups.start()
    assert lookups.search()["ok"] is True
    assert lookups.engine is not None and lookups.engine.open_record_id is not None
    record_id = lookups.engine.open_record_id
    with BackgroundPanel(lookups.home, poll_ms=200) as panel:
        page.goto(f"{panel.login_url}#/records/{record_id}")
        page.wait_for_selector(".card.search")
        card = page.locator(".card.search")
        hrefs = card.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
        assert hrefs == [WIKI]
        card.locator("details.not-allowed > summary").click()
        skipped = card.locator("details.not-allowed li")
        assert "backslash" in skipped.locator(".skipped").inner_text()
        assert skipped.locator(".host").count() == 0
        assert "evil.com" not in card.locator(".host").all_inner_texts()


@pytest.mark.parametrize("host", ["xn--zca2", "xn--", "XN--a", "xn--abc-"])
def test_an_xn_label_that_is_no_encoded_name_is_refused_as_a_browser_refuses_it(host: str) -> None:
    """A label starting with xn-- claims to be an encoded international name; one that does
    not decode and encode back to itself is a host the WHATWG parser refuses ("Invalid URL"),
    so the lookup refuses it too (found by the property test against Node's URL parser).
    Spec: docs/guide/lookup.md (sources and their URLs)."""
    from reckoner.lookup.urls import UrlRefused, parse

    with pytest.raises(UrlRefused, match="xn--"):
        parse(f"http://{host}/page")
    assert parse("http://xn--bcher-kva.example/").host == "xn--bcher-kva.example"
