"""docs/guide/lookup.md step 3 (issue 11): enrich fetches allowed pages with httpx under SSRF
guards,
extracts the main text with trafilatura and cuts it; a page that fails is not enriched."""

from __future__ import annotations

import pytest
from fakes import Page, PageServer, Source, reply_json
from lookup_helpers import Lookups

from reckoner.lookup.pages import is_public

ARTICLE = (
    b"<html><head><title>Copper</title></head><body><nav>Home | About | Login</nav>"
    b"<article><h1>Copper</h1><p>Copper is a chemical element with symbol Cu. Its density "
    b"near room temperature is 8.96 g/cm3, and its melting point is 1084.62 degC.</p>"
    b"<p>Copper is a soft, malleable and ductile metal with very high thermal and electrical "
    b"conductivity. A freshly exposed surface of pure copper has a pinkish-orange colour.</p>"
    b"</article><footer>Copyright footer text</footer></body></html>"
)


@pytest.fixture
def enriching(lookups: Lookups, page_server: PageServer) -> Lookups:
    page_server.pages.clear()
    page_server.requested.clear()
    lookups.override(
        {
            "allowedHosts": ["127.0.0.1"],
            "enrich": {"pages": 1, "charsPerPage": 4000, "allowPrivateAddresses": True},
        }
    )
    lookups.anthropic.script.extract_text = reply_json("8.96 g/cm3", [0])
    lookups.start()
    return lookups


def _material(lookups: Lookups) -> str:
    (extract,) = lookups.anthropic.extractions()
    text: str = extract["messages"][0]["content"]
    return text


def test_an_allowed_page_reaches_the_extraction_as_main_text(
    enriching: Lookups, page_server: PageServer
) -> None:
    page_server.pages["/copper"] = Page(body=ARTICLE)
    enriching.anthropic.script.sources = [Source(page_server.url("/copper"), "Copper")]
    assert enriching.search()["ok"] is True
    material = _material(enriching)
    assert "Page text:" in material and "melting point is 1084.62 degC" in material
    assert "Login" not in material  # navigation is not main text


def test_the_page_text_is_cut_to_chars_per_page(
    enriching: Lookups, page_server: PageServer
) -> None:
    enriching.override(
        {
            "allowedHosts": ["127.0.0.1"],
            "enrich": {"pages": 1, "charsPerPage": 100, "allowPrivateAddresses": True},
        }
    )
    page_server.pages["/plain"] = Page(body=b"x" * 5000, content_type="text/plain")
    enriching.anthropic.script.sources = [Source(page_server.url("/plain"))]
    enriching.search()
    assert "Page text: " + "x" * 100 + "\n" in _material(enriching)


def test_a_loopback_page_is_refused_unless_the_policy_allows_it(
    enriching: Lookups, page_server: PageServer
) -> None:
    enriching.override({"allowedHosts": ["127.0.0.1", "localhost"], "enrich": {"pages": 2}})
    page_server.pages["/copper"] = Page(body=ARTICLE)
    enriching.anthropic.script.sources = [
        Source(page_server.url("/copper")),
        Source(page_server.url("/copper", host="localhost")),
    ]
    assert enriching.search()["ok"] is True  # the call continues on the snippets
    assert page_server.requested == []
    assert "Page text" not in _material(enriching)
    assert "non-public address" in enriching.log_text()


@pytest.mark.parametrize(
    ("page", "why"),
    [
        (Page(body=b"<p>big</p>" * 300_000), "byte cap"),
        (Page(body=b"x", length=50_000_000), "byte cap"),
        (Page(body=b"\x89PNG\r\n", content_type="image/png"), "not text"),
        (Page(body=b"\x00\x01\x02binary", content_type="text/plain"), "binary"),
        (Page(status=404, body=b"gone"), "HTTP 404"),
    ],
)
def test_a_page_that_fails_is_simply_not_enriched(
    enriching: Lookups, page_server: PageServer, page: Page, why: str
) -> None:
    page_server.pages["/p"] = page
    enriching.anthropic.script.sources = [Source(page_server.url("/p"))]
    assert enriching.search()["ok"] is True
    assert "Page text" not in _material(enriching)
    assert why in enriching.log_text()


def test_a_redirect_is_rechecked_against_the_policy(
    enriching: Lookups, page_server: PageServer
) -> None:
    page_server.pages["/hop"] = Page(status=302, location=page_server.url("/secret", "localhost"))
    page_server.pages["/secret"] = Page(body=ARTICLE)
    enriching.anthropic.script.sources = [Source(page_server.url("/hop"))]
    assert enriching.search()["ok"] is True
    assert page_server.requested == ["/hop"]
    assert "not a source the policy allows" in enriching.log_text()


def test_a_redirect_within_the_policy_is_followed(
    enriching: Lookups, page_server: PageServer
) -> None:
    page_server.pages["/hop"] = Page(status=301, location="/copper")
    page_server.pages["/copper"] = Page(body=ARTICLE)
    enriching.anthropic.script.sources = [Source(page_server.url("/hop"))]
    enriching.search()
    assert page_server.requested == ["/hop", "/copper"]
    assert "8.96 g/cm3" in _material(enriching).split("Page text:")[1]


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("::1", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("::ffff:127.0.0.1", False),
        ("224.0.0.1", False),
    ],
)
def test_only_global_unicast_addresses_are_public(address: str, public: bool) -> None:
    assert is_public(address) is public
