"""Issue 11 in the panel (docs/guide/panel.md): the settings endpoint's `search` section (the
three layers, null clears an override, null resets them all, unusable values refused), and
in Debian's Chromium the lookup card and the Search policy block, over rows a real engine
wrote through the fake provider."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import Source, reply_json
from lookup_helpers import Lookups
from starlette.testclient import TestClient

from panel_access import BASE, panel_app, signed_in
from reckoner.lookup.policy import FIELDS
from reckoner.panel.background import BackgroundPanel

API = "/api/reckoner"
WIKI = "https://en.wikipedia.org/wiki/Copper"
ANSWER = "Copper's density is 8.96 g/cm3 near room temperature."


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    (tmp_path / "home" / "records").mkdir(parents=True)
    with signed_in(panel_app(tmp_path / "home")) as test_client:
        yield test_client


def _fields(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["key"]: f for f in view["search"]["fields"]}


def test_the_search_section_shows_three_layers_and_the_effective_value(
    client: TestClient,
) -> None:
    """Spec: docs/guide/panel.md (the Settings tab)."""
    fields = _fields(client.get(f"{API}/settings").json())
    assert list(fields) == [f.name for f in FIELDS]
    tier = fields["tier"]
    assert (tier["default"], tier["preset"], tier["override"], tier["effective"]) == (
        "strict",
        "strict",
        None,
        "strict",
    )
    assert tier["from"] == "preset" and tier["choices"] == ["strict", "open"]
    assert fields["maxResults"]["from"] == "default" and fields["maxResults"]["effective"] == 12
    assert fields["synthesis.model"]["effective"] is None


def test_a_put_sets_clears_and_resets_overrides(client: TestClient, tmp_path: Path) -> None:
    """Spec: docs/guide/panel.md (the Settings tab)."""
    state = tmp_path / "home" / "state.json"
    answer = client.put(
        f"{API}/settings",
        json={"search": {"maxResults": 3, "enrich.pages": 1, "allowedHosts": ["nist.gov"]}},
        headers={"Origin": BASE},
    )
    assert answer.status_code == 200 and answer.json()["saved"] == ["search"]
    assert json.loads(state.read_text())["search"] == {
        "maxResults": 3,
        "enrich": {"pages": 1},
        "allowedHosts": ["nist.gov"],
    }
    fields = _fields(answer.json()["settings"])
    assert fields["maxResults"]["effective"] == 3 and fields["maxResults"]["from"] == "override"
    cleared = client.put(f"{API}/settings", json={"search": {"enrich.pages": None}})
    assert json.loads(state.read_text())["search"] == {
        "maxResults": 3,
        "allowedHosts": ["nist.gov"],
    }
    assert _fields(cleared.json()["settings"])["enrich.pages"]["from"] == "default"
    client.put(f"{API}/settings", json={"search": None})
    assert "search" not in json.loads(state.read_text())


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"search": {"maxResults": "lots"}}, "search.maxResults must be a whole number from 1"),
        ({"search": {"tier": "loose"}}, "search.tier must be 'strict' or 'open'"),
        ({"search": {"colour": 1}}, "no key 'colour'"),
        ({"search": ["tier"]}, "must be an object of policy keys"),
    ],
)
def test_an_unusable_value_is_refused_with_one_sentence_and_nothing_saved(
    client: TestClient, tmp_path: Path, body: Any, words: str
) -> None:
    """Spec: docs/guide/panel.md (the Settings tab)."""
    answer = client.put(f"{API}/settings", json=body)
    assert answer.status_code == 400 and words in answer.json()["error"]
    assert not (tmp_path / "home" / "state.json").exists()


def test_the_settings_put_sets_cache_days_within_its_bounds(
    client: TestClient, tmp_path: Path
) -> None:
    refused = client.put(f"{API}/settings", json={"search": {"cacheDays": 400}})
    assert refused.status_code == 400
    assert "cacheDays must be a whole number from 0 to 365" in refused.json()["error"]
    saved = client.put(f"{API}/settings", json={"search": {"cacheDays": 0}})
    assert saved.status_code == 200
    assert json.loads((tmp_path / "home" / "state.json").read_text())["search"] == {"cacheDays": 0}


# ---------------------------------------------------------------------------------------
# In the browser


def _solve_with_lookups(lookups: Lookups) -> str:
    """A record with an answered, an insufficient and a refused lookup, written by the engine."""
    lookups.override({"maxSearchesPerRecord": 2})
    lookups.anthropic.script.sources = [
        Source(WIKI, "Copper - Wikipedia"),
        Source("https://blog.example.com/cu", "Some blog"),
    ]
    lookups.anthropic.script.extract_text = reply_json(ANSWER, [0])
    lookups.start("Mass of a copper bar")
    assert lookups.search()["ok"] is True
    lookups.anthropic.script.sources = [Source("https://blog.example.com/tin", "Tin blog")]
    assert lookups.search("What is the density of tin?")["code"] == "SEARCH_INSUFFICIENT"
    assert lookups.search("What is the density of lead?")["code"] == "SEARCH_BUDGET_EXCEEDED"
    assert lookups.engine is not None and lookups.engine.open_record_id is not None
    return lookups.engine.open_record_id


def test_the_lookup_card_shows_question_answer_and_collapsible_sources(
    lookups: Lookups, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    record_id = _solve_with_lookups(lookups)
    with BackgroundPanel(lookups.home, poll_ms=200) as panel:
        page.goto(f"{panel.login_url}#/records/{record_id}")
        page.wait_for_selector(".card.search")
        cards = page.locator(".card.search")
        assert cards.count() == 3  # unanswered lookups show without Display all
        answered = cards.nth(0)
        assert answered.locator(".question").inner_text() == "What is the density of copper?"
        assert answered.locator(".answer").inner_text() == ANSWER
        summary = answered.locator("details.used > summary")
        assert summary.inner_text() == "Sources (1)"
        link = answered.locator("details.used a")
        assert not link.is_visible()  # collapsed until opened
        summary.click()
        assert link.is_visible()
        assert link.get_attribute("href") == WIKI
        assert link.get_attribute("target") == "_blank"
        assert "noopener" in (link.get_attribute("rel") or "")
        assert link.inner_text() == "Copper - Wikipedia"
        assert "Not allowed" not in answered.inner_text()  # collapsed header text differs
        assert answered.locator("details.not-allowed > summary").inner_text().endswith("(1)")
        insufficient, refused = cards.nth(1), cards.nth(2)
        assert "warning" in (insufficient.get_attribute("class") or "")
        assert "SEARCH_INSUFFICIENT" in insufficient.locator(".lookup-error").inner_text()
        assert "stop" in insufficient.locator(".error-text").inner_text()
        assert "SEARCH_BUDGET_EXCEEDED" in refused.locator(".lookup-error").inner_text()
        colour = insufficient.evaluate("e => getComputedStyle(e).borderLeftColor")
        plain = page.locator(".card.marker").first.evaluate(
            "e => getComputedStyle(e).borderLeftColor"
        )
        assert colour != plain  # the warning accent


def test_the_search_policy_block_edits_the_override_layer(lookups: Lookups, page: Any) -> None:
    """Spec: docs/guide/panel.md (the Settings tab)."""
    state = lookups.home / "state.json"
    lookups.override({"maxResults": 5})
    with BackgroundPanel(lookups.home, poll_ms=200) as panel:
        page.goto(f"{panel.login_url}#/settings")
        page.wait_for_selector(".search-policy")
        row = page.locator('tr[data-key="maxResults"]')
        assert row.locator(".layer-default").inner_text() == "12"
        assert row.locator(".layer-preset").inner_text() == "—"
        field = page.locator("#search-maxResults")
        assert field.input_value() == "5" and field.get_attribute("placeholder") == "5"
        assert page.locator("#search-enrich-pages").get_attribute("placeholder") == "0"
        assert "strict" in page.locator("#search-tier option[value='']").inner_text()
        # An empty field writes null: the override goes, and the default is the placeholder.
        field.fill("")
        page.locator("#search-enrich-pages").fill("2")
        page.locator("#search-tier").select_option("open")
        page.locator("#search-save").click()
        page.wait_for_selector("#search-save-line >> text=Saved.")
        assert json.loads(state.read_text())["search"] == {"enrich": {"pages": 2}, "tier": "open"}
        assert page.locator("#search-maxResults").get_attribute("placeholder") == "12"
        # A refused value is one sentence on the block; nothing is written.
        page.locator("#search-answerMaxChars").fill("0")
        page.locator("#search-save").click()
        page.wait_for_selector("#search-save-line[data-kind='error']")
        assert "answerMaxChars" in page.locator("#search-save-line").inner_text()
        assert json.loads(state.read_text())["search"] == {"enrich": {"pages": 2}, "tier": "open"}
        page.locator("#search-reset").click()
        page.wait_for_selector("#search-save-line >> text=All overrides cleared.")
        assert "search" not in json.loads(state.read_text())
        # The next lookup runs under what the block wrote, with no restart.
        lookups.anthropic.script.sources = [Source(WIKI)]
        lookups.anthropic.script.extract_text = reply_json(ANSWER, [0])
        lookups.override({"maxResults": 1})
        lookups.start()
        lookups.search()
        assert lookups.search_rows()[-1]["content"]["policy"]["maxResults"] == 1


def test_the_restart_line_shows_while_restart_is_required(lookups: Lookups, page: Any) -> None:
    """Spec: docs/guide/panel.md (the Settings tab)."""
    from reckoner.storage.home import HomeLayout
    from reckoner.storage.state_file import StateFile

    StateFile(HomeLayout(lookups.home)).set_restart_required(True)
    with BackgroundPanel(lookups.home, poll_ms=200) as panel:
        page.goto(f"{panel.login_url}#/settings")
        page.wait_for_selector(".search-policy")
        assert page.locator(".restart-line").is_visible()


def test_the_policy_block_sets_an_empty_allow_list_with_brackets(
    lookups: Lookups, page: Any
) -> None:
    state = lookups.home / "state.json"
    with BackgroundPanel(lookups.home, poll_ms=200) as panel:
        page.goto(f"{panel.login_url}#/settings")
        page.wait_for_selector(".search-policy")
        page.locator("#search-allowedHosts").fill("[]")
        page.locator("#search-save").click()
        page.wait_for_selector("#search-save-line >> text=Saved.")
        assert json.loads(state.read_text())["search"] == {"allowedHosts": []}
        # Shown back as [], so saving the block again keeps the empty list.
        page.reload()
        page.wait_for_selector(".search-policy")
        assert page.locator("#search-allowedHosts").input_value() == "[]"
        page.locator("#search-save").click()
        page.wait_for_selector("#search-save-line >> text=Saved.")
        assert json.loads(state.read_text())["search"] == {"allowedHosts": []}
