"""The panel's delete and merge of lessons (issue 26: "pitfall_delete and pitfall_merge
(tools, CLI, panel actions)"): the endpoints over real HTTP on loopback behind the panel's
token and guard, calling the memory's own tools; and the Delete and "Merge into…" actions
of the Pitfalls tab in Debian's Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from chromium import open_panel, page_of
from panel_access import http_client
from reckoner.panel.background import BackgroundPanel
from reckoner.pitfalls.model import clean_fields
from reckoner.pitfalls.tiers import GLOBAL_DIR, Pitfalls

API = "/api/reckoner/pitfalls"
UNKNOWN = "p-20200101-000000-0000"


def _record(home: Path, **fields: Any) -> str:
    return str(Pitfalls.open(home).record(clean_fields(fields)).entry["id"])


def _memory(home: Path) -> dict[str, bytes]:
    """Every file of the global library, by path: what a refused change must leave as is."""
    root = home / GLOBAL_DIR
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "records").mkdir()
    return tmp_path


@pytest.fixture
def panel(home: Path) -> Iterator[BackgroundPanel]:
    with BackgroundPanel(home) as running:
        yield running


@pytest.fixture
def client(panel: BackgroundPanel) -> Iterator[httpx.Client]:
    with http_client(panel, timeout=30) as http:
        yield http


def test_delete_and_merge_need_the_panels_token(home: Path, panel: BackgroundPanel) -> None:
    lesson = _record(home, title="npm EACCES", solution="use --prefix")
    other = _record(home, title="pip wheel fails", solution="upgrade pip")
    before = _memory(home)
    with httpx.Client(base_url=panel.url.rstrip("/"), timeout=30) as stranger:
        assert stranger.delete(f"{API}/{lesson}").status_code == 401
        merge = stranger.post(f"{API}/merge", json={"id": lesson, "duplicate": other})
        assert merge.status_code == 401
    assert _memory(home) == before


def test_delete_removes_the_lesson_and_keeps_its_history(home: Path, client: httpx.Client) -> None:
    lesson = _record(home, title="npm install -g fails with EACCES", solution="use --prefix")
    kept = _record(home, title="docker layer cache misses", solution="order the COPY lines")
    answer = client.delete(f"{API}/{lesson}")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"deleted": lesson}
    assert client.get(f"{API}/{lesson}").status_code == 404
    assert [x["id"] for x in client.get(API).json()["lessons"]] == [kept]
    # A tombstone is appended: the lesson's own snapshot is still in the history.
    history = (home / GLOBAL_DIR / "entries.jsonl").read_text("utf-8")
    assert history.count(lesson) == 2 and '"deleted":true' in history.replace(" ", "")
    again = client.delete(f"{API}/{lesson}")
    assert again.status_code == 404 and "no lesson has the id" in again.json()["error"]


def test_merge_folds_the_duplicate_into_the_lesson_that_stays(
    home: Path, client: httpx.Client
) -> None:
    kept = _record(home, title="npm EACCES on global install", tags=["npm"])
    duplicate = _record(
        home, title="permission denied in node_modules", solution="use --prefix", tags=["EACCES"]
    )
    answer = client.post(f"{API}/merge", json={"id": kept, "duplicate": duplicate})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["merged"] == duplicate and body["lesson"]["id"] == kept
    assert body["lesson"]["solution"] == "use --prefix"
    assert body["lesson"]["tags"] == ["npm", "EACCES"]
    assert body["lesson"]["notes"][-1]["text"].startswith(f"merged from {duplicate}")
    assert client.get(f"{API}/{duplicate}").status_code == 404
    assert [x["id"] for x in client.get(API).json()["lessons"]] == [kept]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "words"),
    [
        ("DELETE", f"{API}/{UNKNOWN}", None, 404, "no lesson has the id"),
        ("POST", f"{API}/merge", {"id": UNKNOWN, "duplicate": "LESSON"}, 404, "no lesson"),
        ("POST", f"{API}/merge", {"id": "LESSON", "duplicate": UNKNOWN}, 404, "no lesson"),
        ("POST", f"{API}/merge", {"id": "LESSON", "duplicate": "LESSON"}, 400, "both"),
        ("POST", f"{API}/merge", {"id": "LESSON"}, 400, "the one folded into it"),
        (
            "POST",
            f"{API}/merge",
            {"id": "OTHER", "duplicate": "LESSON", "x": 1},
            400,
            "nothing else",
        ),
        ("POST", f"{API}/merge", ["LESSON", "OTHER"], 400, "nothing else"),
        ("POST", f"{API}/merge", {"id": "OTHER", "duplicate": 7}, 400, "must be a string"),
    ],
)
def test_a_refused_delete_or_merge_writes_nothing(
    home: Path,
    client: httpx.Client,
    method: str,
    path: str,
    body: Any,
    status: int,
    words: str,
) -> None:
    lesson = _record(home, title="npm EACCES", solution="use --prefix")
    other = _record(home, title="pip wheel fails", solution="upgrade pip")
    if isinstance(body, dict):
        body = {k: {"LESSON": lesson, "OTHER": other}.get(v, v) for k, v in body.items()}
    before = _memory(home)
    answer = client.request(method, path, json=body)
    assert answer.status_code == status, answer.text
    assert words in answer.json()["error"]
    assert _memory(home) == before


def test_a_foreign_origin_or_a_form_cannot_delete_or_merge(
    home: Path, client: httpx.Client
) -> None:
    lesson = _record(home, title="npm EACCES", solution="use --prefix")
    other = _record(home, title="pip wheel fails", solution="upgrade pip")
    before = _memory(home)
    evil = {"origin": "http://evil.example"}
    assert client.delete(f"{API}/{lesson}", headers=evil).status_code == 403
    merge = {"id": lesson, "duplicate": other}
    assert client.post(f"{API}/merge", json=merge, headers=evil).status_code == 403
    form = client.post(
        f"{API}/merge",
        content=f"id={lesson}&duplicate={other}",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert form.status_code == 415
    assert (
        client.delete(f"{API}/{lesson}", headers={"sec-fetch-site": "cross-site"}).status_code
        == 403
    )
    assert _memory(home) == before


# -- the actions in a real browser ----------------------------------------------------------


@contextmanager
def _lesson_page(
    browser: Any, panel: BackgroundPanel, lesson_id: str, locale: str
) -> Iterator[Any]:
    """Signs in and opens the lesson; any window.alert/confirm/prompt fails the test."""
    with page_of(browser, locale=locale) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: dialogs.append(dialog.type))
        open_panel(page, panel.login_url)
        page.click("#tab-pitfalls")
        page.click(f"[data-pitfall='{lesson_id}']")
        page.wait_for_selector("#pitfall-title")
        yield page
        assert dialogs == [], f"the page opened a browser dialog: {dialogs}"


@pytest.mark.parametrize(
    ("locale", "words"),
    [
        ("en-US", {"ask": "Delete “npm EACCES”?", "done": "Deleted {id}."}),
        ("zh-CN", {"ask": "删除“npm EACCES”？", "done": "已删除 {id}。"}),
    ],
)
def test_delete_asks_in_the_page_and_escape_keeps_the_lesson(
    home: Path, panel: BackgroundPanel, browser: Any, locale: str, words: dict[str, str]
) -> None:
    from playwright.sync_api import expect

    lesson = _record(home, title="npm EACCES", solution="use --prefix")
    other = _record(home, title="docker layer cache misses", solution="order the COPY lines")
    with _lesson_page(browser, panel, lesson, locale) as page:
        page.click("#pitfall-delete")
        expect(page.locator("#pitfall-confirm-ask")).to_contain_text(words["ask"])
        expect(page.locator("#pitfall-cancel")).to_be_focused()
        page.keyboard.press("Escape")
        expect(page.locator(".pitfall-confirm")).to_have_count(0)
        expect(page.locator("#pitfall-delete")).to_be_focused()
        assert Pitfalls.open(home).find(lesson) is not None
        page.click("#pitfall-delete")
        page.click("#pitfall-delete-yes")
        expect(page.locator("#pitfall-notice")).to_have_text(words["done"].format(id=lesson))
        expect(page.locator(".pitfall-link")).to_have_count(1)
        assert page.locator(".pitfall-link").get_attribute("data-pitfall") == other
    assert Pitfalls.open(home).find(lesson) is None


def test_merge_into_a_lesson_picked_from_the_list_or_given_by_id(
    home: Path, panel: BackgroundPanel, browser: Any
) -> None:
    from playwright.sync_api import expect

    kept = _record(home, title="npm install -g fails with EACCES", tags=["npm"])
    duplicate = _record(
        home, title="npm install -g EACCES permission denied", solution="use --prefix"
    )
    third = _record(home, title="global npm install denied", tags=["EACCES"])
    _record(home, title="docker layer cache misses", solution="order the COPY lines")
    with _lesson_page(browser, panel, duplicate, "en-US") as page:
        page.click("#pitfall-merge")
        expect(page.locator("#pitfall-keep")).to_be_focused()
        page.keyboard.press("Escape")
        expect(page.locator(".pitfall-confirm")).to_have_count(0)
        page.click("#pitfall-merge")
        picks = page.locator(".pitfall-keep-pick")
        expect(picks.first).to_be_visible()
        assert duplicate not in [
            picks.nth(i).get_attribute("data-keep") for i in range(picks.count())
        ]
        page.click(f"[data-keep='{kept}']")
        expect(page.locator("#pitfall-keep")).to_have_value(kept)
        page.click("#pitfall-merge-yes")
        expect(page.locator("#pitfall-save-line")).to_have_text(
            f"Merged {duplicate} into this lesson."
        )
        assert page.inner_text("#pitfall-title") == "npm install -g fails with EACCES"
        assert "use --prefix" in page.inner_text(".pitfall-card")
        # Now fold the third lesson in by typing an id: a wrong one is refused in the box.
        page.click("#pitfall-back")
        page.click(f"[data-pitfall='{third}']")
        page.wait_for_selector("#pitfall-title")
        before = _memory(home)
        page.click("#pitfall-merge")
        page.fill("#pitfall-keep", UNKNOWN)
        page.press("#pitfall-keep", "Enter")
        expect(page.locator("#pitfall-confirm-line")).to_contain_text("no lesson has the id")
        assert _memory(home) == before
        page.fill("#pitfall-keep", kept)
        page.press("#pitfall-keep", "Enter")
        expect(page.locator("#pitfall-save-line")).to_have_text(f"Merged {third} into this lesson.")
    memory = Pitfalls.open(home)
    assert memory.find(duplicate) is None and memory.find(third) is None
    found = memory.find(kept)
    assert found is not None and found[0]["tags"] == ["npm", "EACCES"]
