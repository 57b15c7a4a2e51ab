"""The panel's Pitfalls tab (issue 13, "CLI and panel"): its endpoints under
/api/reckoner/pitfalls with the same Host/Origin/JSON rules as every endpoint, and the tab
in Debian's Chromium driven by Playwright, in English and in Chinese."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from chromium import open_panel, page_of
from panel_access import panel_app, signed_in
from reckoner.pitfalls.model import clean_fields
from reckoner.pitfalls.tiers import Pitfalls

API = "/api/reckoner/pitfalls"


def _record(home: Path, project: Path | None, **fields: Any) -> str:
    return str(Pitfalls.open(home, project=project).record(clean_fields(fields)).entry["id"])


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / "records").mkdir(parents=True)
    project.mkdir()
    return home, project


@pytest.fixture
def client(dirs: tuple[Path, Path]) -> Iterator[TestClient]:
    home, project = dirs
    with signed_in(panel_app(home, pitfalls_project=project)) as test_client:
        yield test_client


def test_search_reads_project_first_and_filters(
    client: TestClient, dirs: tuple[Path, Path]
) -> None:
    home, project = dirs
    own = _record(home, project, title="pip wheel fails", tags=["pip"], status="open")
    other = _record(home, project.parent / "other", title="pip cache full", tags=["pip"])
    answer = client.get(API, params={"q": "pip"}).json()
    assert [(lesson["id"], lesson["tier"]) for lesson in answer["lessons"]] == [
        (own, "project"),
        (other, "global"),
    ]
    assert [x["id"] for x in client.get(API, params={"status": "open"}).json()["lessons"]] == [own]
    assert client.get(API, params={"q": "what is the"}).json()["lessons"] == []


def test_read_a_lesson_and_edit_its_status_and_notes(
    client: TestClient, dirs: tuple[Path, Path]
) -> None:
    home, project = dirs
    lesson_id = _record(home, project, title="npm EACCES", solution="use a prefix")
    read = client.get(f"{API}/{lesson_id}").json()
    assert read["lesson"]["title"] == "npm EACCES"
    assert read["markdown"].startswith("# npm EACCES\n")
    assert read["card"].endswith(f"cards/{lesson_id}.md")
    edited = client.patch(f"{API}/{lesson_id}", json={"status": "workaround", "note": "seen on CI"})
    assert edited.status_code == 200, edited.text
    assert edited.json()["lesson"]["status"] == "workaround"
    # Both tiers carry the final lesson.
    for pitfalls in (Pitfalls.open(home, project=project), Pitfalls.open(home)):
        found = pitfalls.find(lesson_id)
        assert found is not None and found[0]["notes"][0]["text"] == "seen on CI"


def test_bad_edits_are_one_sentence_each(client: TestClient, dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    lesson_id = _record(home, project, title="t")
    missing = client.patch(f"{API}/p-20200101-000000-0000", json={"note": "x"})
    assert missing.status_code == 404 and "no lesson has the id" in missing.json()["error"]
    assert client.get(f"{API}/nope").status_code == 404
    extra = client.patch(f"{API}/{lesson_id}", json={"title": "new"})
    assert extra.status_code == 400 and "only status and note" in extra.json()["error"]
    bad = client.patch(
        f"{API}/{lesson_id}", content=b"{", headers={"content-type": "application/json"}
    )
    assert bad.status_code == 400
    nothing = client.patch(f"{API}/{lesson_id}", json={})
    assert nothing.status_code == 400 and "changes nothing" in nothing.json()["error"]


def test_the_same_guard_host_origin_and_json(client: TestClient, dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    lesson_id = _record(home, project, title="t")
    assert client.get(API, headers={"host": "evil.example"}).status_code == 421
    foreign = client.patch(
        f"{API}/{lesson_id}", json={"note": "x"}, headers={"origin": "http://evil.example"}
    )
    assert foreign.status_code == 403
    form = client.patch(
        f"{API}/{lesson_id}", content=b"note=x", headers={"content-type": "text/plain"}
    )
    assert form.status_code == 415
    found = Pitfalls.open(home).find(lesson_id)
    assert found is not None and found[0]["notes"] == []  # nothing was written


# -- the tab in a real browser ------------------------------------------------------------


@pytest.mark.parametrize(
    ("locale", "words"),
    [
        ("en-US", {"tab": "Pitfalls", "status": "workaround", "saved": "Saved."}),
        ("zh-CN", {"tab": "踩坑记录", "status": "已绕过", "saved": "已保存。"}),
    ],
)
def test_the_pitfalls_tab_searches_reads_and_edits_in_a_browser(
    locale: str, words: dict[str, str], dirs: tuple[Path, Path], browser: Any
) -> None:
    from playwright.sync_api import expect

    from reckoner.panel.background import BackgroundPanel

    home, _ = dirs
    lesson_id = _record(
        home,
        None,
        title="npm install -g fails with EACCES",
        solution="use --prefix ~/.local",
        evidence="npm ERR! code EACCES",
        tags=["npm"],
    )
    _record(home, None, title="docker layer cache misses", tags=["docker"])
    with BackgroundPanel(home) as panel, page_of(browser, locale=locale) as page:
        open_panel(page, panel.login_url)
        page.click("#tab-pitfalls")
        assert page.inner_text("#tab-pitfalls") == words["tab"]
        page.wait_for_selector(".pitfall-link")
        assert page.locator(".pitfall-link").count() == 2
        page.fill("#pitfall-query", "npm EACCES")
        page.click("#pitfall-search button[type=submit]")
        expect(page.locator(".pitfall-link")).to_have_count(1)
        page.click(f"[data-pitfall='{lesson_id}']")
        page.wait_for_selector("#pitfall-title")
        assert "use --prefix ~/.local" in page.inner_text(".pitfall-card")
        assert "npm ERR! code EACCES" in page.inner_text(".pitfall-card pre")
        page.select_option("#pitfall-status", "workaround")
        page.fill("#pitfall-note", "seen again on CI")
        page.click("#pitfall-save")
        expect(page.locator("#pitfall-save-line")).to_have_text(words["saved"])
        assert "seen again on CI" in page.inner_text(".pitfall-notes")
        page.click("#pitfall-back")
        page.wait_for_selector(".pitfall-link")
        assert words["status"] in page.inner_text(f"[data-pitfall='{lesson_id}']")
    found = Pitfalls.open(home).find(lesson_id)
    assert found is not None
    assert found[0]["status"] == "workaround"
    assert [n["text"] for n in found[0]["notes"]] == ["seen again on CI"]
