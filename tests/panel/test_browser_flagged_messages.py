"""The record view marks a message or end row whose text quotes a number no receipt showed
(issue 27): the row carries ``"warnings": ["<sentence>", ...]`` and the card shows an
"unverified number" badge and the sentences under the text, as text, never as HTML.

Debian's Chromium through Playwright against a real panel over a real record file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from panel_records import RowBuilder, write_closed

from chromium import open_panel
from reckoner.panel.background import BackgroundPanel

RECORD = "1700000000000"
HOSTILE = '<img src="x" onerror="window.__flagged = 1">the number 9.81 appeared nowhere'
WARNED = "the number 68 in this message was not shown by any receipt of this record"


@pytest.fixture
def flagged(home: Path, panel: BackgroundPanel, page: Any) -> Any:
    """The page on a closed record holding plain, flagged and hostile message and end rows."""
    _flagged_record(home)
    open_panel(page, f"{panel.login_url}#/records/{RECORD}")
    return page


def _flagged_record(home: Path) -> RowBuilder:
    builder = RowBuilder(RECORD, "Falling time", 1_700_000_000_000)
    builder.message("g is about 9.81 m/s², so it takes 68 s.")
    builder.add("record_message", {"text": "g is 9.81; it takes 68 s.", "warnings": [WARNED]})
    builder.add("record_message", {"text": "nothing quoted here", "warnings": []})
    builder.add("record_message", {"text": "a hostile sentence", "warnings": [HOSTILE, WARNED]})
    builder.add("record_end", {"text": "It takes 68 s.", "record": RECORD, "warnings": [WARNED]})
    write_closed(home, builder)
    return builder


def test_a_message_with_warnings_carries_the_unverified_number_badge_and_its_sentences(
    flagged: Any,
) -> None:
    page = flagged

    messages = page.locator("#timeline .card.marker.message")
    assert messages.count() == 4
    plain, flagged, empty, hostile = messages.all()
    for unmarked in (plain, empty):
        assert unmarked.locator(".badge.unverified").count() == 0
        assert unmarked.locator(".warnings").count() == 0
        assert "flagged" not in (unmarked.get_attribute("class") or "")
    assert flagged.locator("h3 .badge.unverified").inner_text() == "unverified number"
    assert "flagged" in (flagged.get_attribute("class") or "").split()
    assert flagged.locator(".prose").inner_text() == "g is 9.81; it takes 68 s."
    assert flagged.locator(".warnings li").all_inner_texts() == [WARNED]
    assert hostile.locator(".warnings li").all_inner_texts() == [HOSTILE, WARNED]


def test_an_end_row_with_warnings_is_marked_like_a_message(flagged: Any) -> None:
    page = flagged

    end = page.locator("#timeline .card.marker.end")
    assert end.locator("h3").inner_text().startswith("Record ended")
    assert end.locator("h3 .badge.unverified").inner_text() == "unverified number"
    assert end.locator(".prose").inner_text() == "It takes 68 s."
    assert end.locator(".warnings li").all_inner_texts() == [WARNED]


def test_a_hostile_warning_renders_as_text_and_never_as_markup(flagged: Any) -> None:
    page = flagged

    warnings = page.locator("#timeline .warnings")
    assert warnings.count() == 3
    assert page.locator("#timeline img").count() == 0
    assert page.evaluate("window.__flagged") is None
    shown = page.locator("#timeline .card.marker.message").nth(3).locator(".warnings li").first
    assert shown.inner_text() == HOSTILE
