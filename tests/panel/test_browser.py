"""The Records tab in a real browser (docs/guide/panel.md; issue 5): Debian's Chromium driven by
Playwright against a real uvicorn server on a loopback port, over real record files.

The poll interval is shortened through the app option so "within one poll" does not mean
waiting 5 s; the default stays 5 s.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from panel_records import RowBuilder, divider_record, write_closed, write_open

from chromium import open_panel, wait_until_true
from reckoner.panel.background import BackgroundPanel
from reckoner.service import Engine
from reckoner.units.spelling import spell_vector

# Long enough for several polls on a loaded CI machine; a missed poll shows as a failure.
WAIT_MS = 5000


def _populate(home: Path) -> RowBuilder:
    divider = divider_record()
    write_closed(home, divider)
    untitled = RowBuilder("1700000100000", "", 1_700_000_100_000)
    untitled.end()
    write_closed(home, untitled)
    running = RowBuilder("1700000200000", "Live solve", 1_700_000_200_000)
    running.set("x", {"num": 1, "dim": [0, 0, 0, 0, 0, 0, 0]})
    write_open(home, running)
    (home / "records" / "1600000000000.jsonl").write_bytes(b"not a record\n")
    return divider


# ---------------------------------------------------------------------------------------
# The list


def test_list_pins_the_open_record_and_orders_closed_newest_first(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    _populate(home)
    open_panel(page, panel.login_url)

    pinned = page.locator(".open-record")
    assert pinned.locator(".title").inner_text() == "Live solve"
    assert pinned.locator(".badge.incomplete").inner_text() == "incomplete"
    titles = page.locator(".records .record-link .title").all_inner_texts()
    # The untitled record shows its identifier instead of an empty title.
    assert titles == ["1700000100000", "Voltage divider power"]
    times = page.locator(".records .record-link .times").first.inner_text()
    assert "opened" in times and "ended" in times
    assert "1600000000000" in page.locator(".unreadable").inner_text()


def test_list_is_keyboard_usable(home: Path, panel: BackgroundPanel, page: Any) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    _populate(home)
    open_panel(page, panel.login_url)
    page.locator(".records .record-link").last.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#record-title")
    assert page.locator("#record-title").inner_text() == "Voltage divider power"


def test_list_poll_shows_a_new_record(home: Path, panel: BackgroundPanel, page: Any) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    open_panel(page, panel.login_url)
    assert page.locator(".empty").is_visible()
    late = RowBuilder("1700000300000", "Arrived later", 1_700_000_300_000)
    late.end()
    write_closed(home, late)
    page.wait_for_selector("text=Arrived later", timeout=WAIT_MS)


# ---------------------------------------------------------------------------------------
# Select mode and deletion


def test_select_all_and_delete_behind_a_confirmation_dialog(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    _populate(home)
    open_panel(page, panel.login_url)
    page.click("#select-mode")
    # The open record never joins the selection.
    assert page.locator(".open-record input[type=checkbox]").count() == 0
    page.click("#select-all")
    assert page.locator(".pick:checked").count() == 2
    assert page.locator("#delete-selected").inner_text() == "Delete selected (2)"

    page.click("#delete-selected")
    dialog = page.locator("#confirm-dialog")
    assert dialog.is_visible()
    assert "Delete 2 records?" in dialog.inner_text()
    page.click("#confirm-cancel")
    assert not dialog.is_visible()
    assert len(list((home / "records").glob("17*.jsonl"))) == 2

    page.click("#delete-selected")
    page.click("#confirm-ok")
    page.wait_for_selector(".records", state="detached")
    assert list((home / "records").glob("17*.jsonl")) == []
    assert (home / "open-record.jsonl").exists()
    assert page.locator(".open-record .title").inner_text() == "Live solve"
    # Nothing is left to select, so the keyboard lands on the view itself, once the list has
    # been drawn again after the deletes (the focus moves last, after the re-render).
    wait_until_true(page, "document.activeElement?.id === 'main'", WAIT_MS)


def test_escape_closes_the_dialog_and_deletes_nothing(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    _populate(home)
    open_panel(page, panel.login_url)
    page.click("#select-mode")
    page.locator(".pick").first.check()
    page.click("#delete-selected")
    page.keyboard.press("Escape")
    assert not page.locator("#confirm-dialog").is_visible()
    assert len(list((home / "records").glob("17*.jsonl"))) == 2


def test_unreadable_identifiers_can_be_deleted(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    _populate(home)
    open_panel(page, panel.login_url)
    page.click("#delete-unreadable")
    page.click("#confirm-ok")
    page.wait_for_selector(".unreadable", state="detached")
    assert not (home / "records" / "1600000000000.jsonl").exists()
    assert len(list((home / "records").glob("17*.jsonl"))) == 2


# ---------------------------------------------------------------------------------------
# One record


def test_record_timeline_groups_rows_into_cards(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    divider = _populate(home)
    open_panel(page, f"{panel.login_url}#/records/{divider.record_id}")

    header = page.locator(".header-card")
    visible = sum(1 for row in divider.rows if row["ok"] and not row["content"].get("hide"))
    assert header.locator("#visible-count").inner_text() == f"{visible} rows shown"
    assert header.locator("#failed-count").inner_text() == "0 failed"
    assert "ended" in header.inner_text()

    cards = page.locator("#timeline .card")
    kinds = [
        card.get_attribute("class").split()[1]
        for card in cards.all()  # type: ignore[union-attr]
    ]
    assert kinds == ["marker", "writes", "marker", "eval", "reads", "writes", "eval", "marker"]
    writes = page.locator(".card.writes").first
    assert writes.locator("h3").inner_text() == "Writes (2)"
    assert writes.locator("li").all_inner_texts() == [
        "#2 @V = 12 V rev 1",
        "#3 @R = 4700 Ω rev 1",
    ]
    # R is overwritten later: its second write is revision 2.
    assert page.locator(".card.writes").nth(1).locator("li").inner_text() == "#10 @R = 1000 Ω rev 2"
    assert page.locator(".card.reads h3").inner_text() == "Reads (1)"

    step = page.locator(".card.eval").first
    assert "@P" in step.locator(".target").inner_text()
    assert "rev 1" in step.locator(".target").inner_text()
    assert step.locator(".vars li").all_inner_texts() == ["@V = 12 V", "@R = 4700 Ω"]
    power = step.locator(".result .num")
    assert power.inner_text() == "0.0306383"
    # Full precision on hover: the title reads back as the exact stored double.
    assert float(power.get_attribute("title") or "nan") == 0.030638297872340425
    assert step.locator(".result .unit").inner_text() == "W"


def test_formula_is_typeset_with_the_ascii_one_click_away(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    divider = _populate(home)
    open_panel(page, f"{panel.login_url}#/records/{divider.record_id}")
    formula = page.locator(".card.eval .fx").first
    formula.locator(".tex .katex").wait_for()
    assert not formula.locator(".ascii").is_visible()
    formula.locator(".fx-toggle").click()
    assert formula.locator(".ascii").inner_text() == "(@V)^2/@R"
    assert formula.locator(".ascii").is_visible()
    assert not formula.locator(".tex").is_visible()
    formula.locator(".fx-toggle").click()
    assert formula.locator(".tex .katex").is_visible()


def test_sweep_result_is_plotted(home: Path, panel: BackgroundPanel, page: Any) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    divider = _populate(home)
    open_panel(page, f"{panel.login_url}#/records/{divider.record_id}")
    sweep = page.locator(".card.eval").nth(1)
    svg = sweep.locator(".plot svg")
    assert svg.count() == 1
    assert svg.locator("circle").count() == 5
    assert "5 values from 0 to 12" in (svg.get_attribute("aria-label") or "")
    assert sweep.locator(".result .index").count() == 5
    # The scalar step has no plot.
    assert page.locator(".card.eval").first.locator(".plot").count() == 0


def test_chip_jumps_to_the_row_that_wrote_the_slot(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    divider = _populate(home)
    open_panel(page, f"{panel.login_url}#/records/{divider.record_id}")
    page.locator(".card.eval").first.locator("button.chip", has_text="@R").click()
    focused = page.evaluate("document.activeElement.id")
    assert focused == "row-3"
    # The sweep reads V, last written by the set at seq 2.
    page.locator(".card.eval").nth(1).locator("button.chip", has_text="@V").click()
    assert page.evaluate("document.activeElement.id") == "row-2"


def test_display_all_shows_refusals_and_notes_and_is_remembered(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    divider = _populate(home)
    url = f"{panel.login_url}#/records/{divider.record_id}"
    open_panel(page, url)
    assert page.locator(".card.failed").count() == 0
    assert page.locator(".hidden-note").count() == 0

    page.locator("#show-all").check()
    failed = page.locator(".card.failed")
    assert failed.locator("h3").inner_text() == "Failed attempts (2)"
    cells = failed.locator("tbody tr").nth(1).locator("td").all_inner_texts()
    assert cells == ["#6", "eval", "@Rx", "ENGINE_SLOT_NOT_FOUND", "the slot @Rx does not exist."]
    # A refused eval keeps no formula in its row, so the cell stays empty.
    assert failed.locator("tbody tr").first.locator("td").nth(2).inner_text() == ""
    assert page.locator(".hidden-note").count() == 1
    assert page.locator("#failed-count").inner_text() == "2 failed"
    assert page.locator("#visible-count").inner_text() == f"{len(divider.rows)} rows shown"

    wait_until_true(
        page, "fetch('/api/reckoner/settings').then(r => r.json()).then(s => s.panel.showAll)"
    )
    assert json.loads((home / "state.json").read_text())["panel"] == {"showAll": True}
    page.reload()
    page.wait_for_selector("body[data-ready]")
    assert page.locator("#show-all").is_checked()
    assert page.locator(".card.failed").count() == 1


def test_refused_markers_render_as_accent_cards(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    builder = RowBuilder("1700000000000", "markers", 1_700_000_000_000)
    builder.refuse(
        "record_start",
        "ENGINE_OPEN_RECORD_FOUND",
        "record 1700000000000 is already open; end it with record_end first.",
    )
    builder.end()
    write_closed(home, builder)
    (home / "state.json").write_text('{"panel":{"showAll":true}}')
    open_panel(page, f"{panel.login_url}#/records/1700000000000")
    refused = page.locator(".card.marker.refused")
    assert refused.locator("h3").inner_text().startswith("Refused record_start")
    assert "ENGINE_OPEN_RECORD_FOUND" in refused.inner_text()
    assert page.locator(".card.failed").count() == 0


def test_live_row_from_an_engine_appears_within_one_poll(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    from reckoner import Engine  # type: ignore[attr-defined]

    with Engine(home=home) as engine:
        assert engine.call("record_start", {"title": "Live divider"})["ok"] is True
        engine.call("set", {"name": "V", "value": {"num": 5, "dim": "volt"}})
        open_panel(page, panel.login_url)
        page.locator(".open-record .record-link").click()
        page.wait_for_selector("#record-title")
        assert page.locator(".badge.incomplete").is_visible()
        assert page.locator(".card.writes li").count() == 1

        receipt = engine.call("set", {"name": "R", "value": {"num": 220, "dim": "ohm"}})
        assert receipt["ok"] is True
        page.wait_for_selector("text=@R = 220 Ω", timeout=WAIT_MS)
        assert page.locator(".card.writes h3").inner_text() == "Writes (2)"

        engine.call("eval", {"formula": "@V/@R", "target": "I"})
        page.wait_for_selector('.card.eval .result .unit >> text="A"', timeout=WAIT_MS)

        # New rows are appended, so what the reader set on screen stays as it was.
        formula = page.locator(".card.eval .fx")
        formula.locator(".tex .katex").wait_for(timeout=WAIT_MS)
        formula.locator(".fx-toggle").click()
        engine.call("record_message", {"text": "Current through R."})
        page.wait_for_selector("text=Current through R.", timeout=WAIT_MS)
        assert formula.locator(".ascii").is_visible()
        assert page.locator("#visible-count").inner_text() == "5 rows shown"

        engine.call("record_end", {})
        page.wait_for_selector(".header-card >> text=ended", timeout=WAIT_MS)
        assert page.locator(".badge.incomplete").count() == 0


def test_two_live_open_records_are_pinned_and_polled(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Two engines on one home: both open records pinned with their badge, both live.
    Spec: docs/guide/panel.md (issue 9)."""
    from reckoner import Engine  # type: ignore[attr-defined]

    with Engine(home=home) as first, Engine(home=home) as second:
        assert (first.lane, second.lane) == (1, 2)
        assert first.call("record_start", {"title": "Lane one solve"})["ok"] is True
        open_panel(page, panel.login_url)
        page.wait_for_selector(".open-record >> text=Lane one solve")
        assert page.locator(".open-record").count() == 1

        # A record opened by the second engine appears within a poll, pinned beside the first.
        assert second.call("record_start", {"title": "Lane two solve"})["ok"] is True
        page.wait_for_selector(".open-record >> text=Lane two solve", timeout=WAIT_MS)
        pinned = page.locator(".open-record")
        assert pinned.count() == 2
        assert pinned.locator(".badge.incomplete").count() == 2

        # Select mode offers neither open record for deletion.
        first.call("record_end", {})
        page.wait_for_selector(".record-row >> text=Lane one solve", timeout=WAIT_MS)
        assert page.locator(".open-record").count() == 1
        page.click("#select-mode")
        assert page.locator(".open-record input[type=checkbox]").count() == 0
        page.click("#select-done")

        # The second lane's timeline is live too.
        page.locator(".open-record .record-link").click()
        page.wait_for_selector("#record-title")
        second.call("set", {"name": "R", "value": {"num": 220, "dim": "ohm"}})
        page.wait_for_selector("text=@R = 220 Ω", timeout=WAIT_MS)
        assert page.locator(".badge.incomplete").is_visible()


# ---------------------------------------------------------------------------------------
# Languages


def test_i18n_simplified_chinese_follows_the_browser_and_switches(
    browser: Any, home: Path, panel: BackgroundPanel
) -> None:
    _populate(home)
    context = browser.new_context(locale="zh-CN")
    page = context.new_page()
    try:
        open_panel(page, panel.login_url)
        assert page.locator("#tab-records").inner_text() == "记录"
        assert page.locator(".open-record .badge").inner_text() == "未完成"
        assert page.evaluate("document.documentElement.lang") == "zh-CN"
        page.select_option("#lang-select", "en")
        assert page.locator("#tab-records").inner_text() == "Records"
        assert page.locator(".open-record .badge").inner_text() == "incomplete"
    finally:
        context.close()


def test_settings_tab_writes_the_panel_preference(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Settings tab)."""
    open_panel(page, f"{panel.login_url}#/settings")
    toggle = page.locator("#pref-show-all")
    assert not toggle.is_checked()
    toggle.check()
    page.wait_for_selector("#panel-save-line >> text=Saved.")
    assert json.loads((home / "state.json").read_text())["panel"] == {"showAll": True}


def test_typeset_every_notation_shape_is_accepted_by_the_vendored_katex(
    panel: BackgroundPanel, page: Any
) -> None:
    from test_typeset import SAMPLES

    from reckoner.panel.typeset import formula_latex

    open_panel(page, panel.login_url)
    page.add_script_tag(url="/static/vendor/katex/katex.min.js")
    latex = [formula_latex(formula) for formula in SAMPLES]
    failures = page.evaluate(
        """(all) => all.flatMap((tex) => {
            try { katex.renderToString(tex, { throwOnError: true }); return []; }
            catch (error) { return [tex + ' -> ' + error.message]; }
        })""",
        latex,
    )
    assert failures == []


def test_complex_arrays_and_objects_render_with_units_spelled_from_the_table(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/formulas.md (the four value types)."""
    volt = [2, 1, -3, -1, 0, 0, 0]
    builder = RowBuilder("1700000000000", "values", 1_700_000_000_000)
    builder.set("Z", {"re": 3, "im": -4, "dim": [2, 1, -3, -2, 0, 0, 0]})
    builder.set("odd", {"num": 2.5, "dim": [1, 0, 0, 0, 0, 0, 1]})
    builder.set(
        "net", {"object": {"v": {"num": 5, "dim": volt}, "w": {"array": [1, 2], "dim": volt}}}
    )
    builder.set("k", {"num": 0.8, "dim": [1, 1, -3, 0, -1, 0, 0]})
    builder.eval(
        "@net.w*2",
        "w2",
        1,
        {"net": {"object": {"w": {"array": [1, 2], "dim": volt}}}},
        {"array": [[1, 2], [3, 4]], "dim": volt},
    )
    builder.end()
    write_closed(home, builder)
    open_panel(page, f"{panel.login_url}#/records/1700000000000")

    lines = page.locator(".card.writes li").all_inner_texts()
    assert lines[0] == "#2 @Z = 3 − 4i Ω rev 1"
    # A vector the table does not name is spelled with base symbols.
    assert lines[1] == "#3 @odd = 2.5 m·cd rev 1"
    assert lines[2] == "#4 @net = {v: 5 V, w: [1, 2] V} rev 1"
    # A vector with a derived unit is spelled from the table the articles use.
    assert lines[3] == f"#5 @k = 0.8 {spell_vector((1, 1, -3, 0, -1, 0, 0))} rev 1"
    assert lines[3] == "#5 @k = 0.8 W/(m·K) rev 1"
    result = page.locator(".card.eval .result")
    assert result.locator("details.tree").count() == 3  # the outer array and its two rows
    assert "array · 2 items V" in result.inner_text()
    page.locator(".card.writes li .unit", has_text="Ω").hover()
    assert page.locator(".card.writes li .unit", has_text="Ω").get_attribute("title") == (
        "resistance [2,1,-3,-2,0,0,0]"
    )


def test_a_record_deleted_while_open_says_so(home: Path, panel: BackgroundPanel, page: Any) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    divider = _populate(home)
    open_panel(page, f"{panel.login_url}#/records/{divider.record_id}")
    (home / "records" / f"{divider.record_id}.jsonl").unlink()
    page.wait_for_selector("text=This record no longer exists.", timeout=WAIT_MS)
    page.click("a.back")
    page.wait_for_selector(".records")
    assert "Voltage divider power" not in page.locator(".records").inner_text()


def test_readings_show_the_unit_they_were_read_in(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Issue 14 (unit on get, read on set and eval): a value read in a unit carries numbers in
    that unit, so the timeline names that unit (30.64 mW, never 30.64 W); a set's and an
    eval's reading is shown beside what the call stored, a list of readings in order.
    Spec: docs/guide/panel.md (issue 14)."""
    with Engine(home) as engine:
        engine.call("record_start", {"title": "readings"})
        engine.call(
            "set",
            {"name": "T", "value": {"num": 98.6, "unit": "degF"}, "read": {"unit": "degC"}},
        )
        engine.call("set", {"name": "V", "value": {"num": 12, "unit": "V"}})
        engine.call("set", {"name": "R", "value": {"num": 4.7, "unit": "kOhm"}})
        engine.call(
            "eval",
            {
                "formula": "@V^2/@R",
                "target": "P",
                "read": [{"unit": "mW", "digits": 4}, {"unit": "W", "digits": 2}],
            },
        )
        engine.call("get", {"name": "P", "unit": "mW", "digits": 4})
        record_id = str(engine.open_record_id)
        assert engine.call("record_end", {})["ok"] is True
    open_panel(page, f"{panel.login_url}#/records/{record_id}")
    page.wait_for_selector(".card.eval")

    writes = page.locator(".card.writes li").all_inner_texts()
    assert writes[0] == "#2 @T = 310.15 K rev 1 read as 37 degC", writes
    reading = page.locator(".card.eval .reading")
    assert " ".join(reading.text_content().split()) == "read as 30.64 mW; 0.031 W"
    assert reading.locator(".unit", has_text="mW").get_attribute("title") == (
        "power [2,1,-3,0,0,0,0]"
    )
    assert page.locator(".card.reads li").inner_text() == "#6 @P = 30.64 mW"
